"""numlir.scipy.stats.wrapcauchy: as jax.scipy.stats.wrapcauchy."""

from numlir._src.scipy.continuous_distributions import (  # noqa: F401
    wrapcauchy_logpdf as logpdf,
    wrapcauchy_pdf as pdf,
)
