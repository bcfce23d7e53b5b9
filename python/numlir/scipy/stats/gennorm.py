"""numlir.scipy.stats.gennorm: as jax.scipy.stats.gennorm."""

from numlir._src.scipy.continuous_distributions import (  # noqa: F401
    gennorm_cdf as cdf,
    gennorm_logpdf as logpdf,
    gennorm_pdf as pdf,
)
