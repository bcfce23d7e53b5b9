"""numlir.scipy.stats.expon: as jax.scipy.stats.expon."""

from numlir._src.scipy.stats import (  # noqa: F401
    expon_cdf as cdf,
    expon_logcdf as logcdf,
    expon_logpdf as logpdf,
    expon_logsf as logsf,
    expon_pdf as pdf,
    expon_ppf as ppf,
    expon_sf as sf,
)
