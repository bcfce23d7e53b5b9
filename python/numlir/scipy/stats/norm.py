"""numlir.scipy.stats.norm: as jax.scipy.stats.norm."""

from numlir._src.scipy.stats import (  # noqa: F401
    norm_cdf as cdf,
    norm_logcdf as logcdf,
    norm_logpdf as logpdf,
    norm_logsf as logsf,
    norm_pdf as pdf,
    norm_sf as sf,
)
from numlir._src.scipy.continuous_distributions import norm_isf as isf, norm_ppf as ppf  # noqa: F401
