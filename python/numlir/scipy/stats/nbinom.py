"""numlir.scipy.stats.nbinom: as jax.scipy.stats.nbinom."""

from numlir._src.scipy.discrete_distributions import (  # noqa: F401
    nbinom_logpmf as logpmf,
    nbinom_pmf as pmf,
)
