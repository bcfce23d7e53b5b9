"""numlir.scipy.stats.multivariate_normal: as jax.scipy.stats.multivariate_normal."""

from numlir._src.scipy.multivariate_normal import logpdf, pdf  # noqa: F401
