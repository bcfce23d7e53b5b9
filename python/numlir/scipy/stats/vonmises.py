"""numlir.scipy.stats.vonmises: as jax.scipy.stats.vonmises."""

from numlir._src.scipy.continuous_distributions import (  # noqa: F401
    vonmises_logpdf as logpdf,
    vonmises_pdf as pdf,
)
