"""numlir.scipy.stats.laplace: as jax.scipy.stats.laplace."""

from numlir._src.scipy.stats import (  # noqa: F401
    laplace_cdf as cdf,
    laplace_logpdf as logpdf,
    laplace_pdf as pdf,
)
