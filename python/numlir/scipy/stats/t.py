"""numlir.scipy.stats.t: as jax.scipy.stats.t."""

from numlir._src.scipy.continuous_distributions import (  # noqa: F401
    t_logpdf as logpdf,
    t_pdf as pdf,
)
