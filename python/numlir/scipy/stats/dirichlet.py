"""numlir.scipy.stats.dirichlet: as jax.scipy.stats.dirichlet."""

from numlir._src.scipy.continuous_distributions import (  # noqa: F401
    dirichlet_logpdf as logpdf,
    dirichlet_pdf as pdf,
)
