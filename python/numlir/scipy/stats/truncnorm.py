"""numlir.scipy.stats.truncnorm: as jax.scipy.stats.truncnorm."""

from numlir._src.scipy.continuous_distributions import (  # noqa: F401
    truncnorm_cdf as cdf,
    truncnorm_logcdf as logcdf,
    truncnorm_logpdf as logpdf,
    truncnorm_logsf as logsf,
    truncnorm_pdf as pdf,
    truncnorm_sf as sf,
)
