"""numlir.scipy.stats.gamma: as jax.scipy.stats.gamma."""

from numlir._src.scipy.continuous_distributions import (  # noqa: F401
    gamma_cdf as cdf,
    gamma_logcdf as logcdf,
    gamma_logpdf as logpdf,
    gamma_logsf as logsf,
    gamma_pdf as pdf,
    gamma_sf as sf,
)
