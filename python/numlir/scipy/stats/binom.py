"""numlir.scipy.stats.binom: as jax.scipy.stats.binom."""

from numlir._src.scipy.discrete_distributions import (  # noqa: F401
    binom_logpmf as logpmf,
    binom_pmf as pmf,
)
