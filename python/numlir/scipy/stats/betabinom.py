"""numlir.scipy.stats.betabinom: as jax.scipy.stats.betabinom."""

from numlir._src.scipy.discrete_distributions import (  # noqa: F401
    betabinom_logpmf as logpmf,
    betabinom_pmf as pmf,
)
