"""numlir.scipy.stats.uniform: as jax.scipy.stats.uniform."""

from numlir._src.scipy.stats import (  # noqa: F401
    uniform_cdf as cdf,
    uniform_logpdf as logpdf,
    uniform_pdf as pdf,
    uniform_ppf as ppf,
)
