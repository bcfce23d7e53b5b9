"""numlir.scipy.stats.cauchy: as jax.scipy.stats.cauchy."""

from numlir._src.scipy.stats import (  # noqa: F401
    cauchy_cdf as cdf,
    cauchy_isf as isf,
    cauchy_logcdf as logcdf,
    cauchy_logpdf as logpdf,
    cauchy_logsf as logsf,
    cauchy_pdf as pdf,
    cauchy_ppf as ppf,
    cauchy_sf as sf,
)
