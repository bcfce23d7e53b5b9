"""numlir.scipy.stats.multinomial: as jax.scipy.stats.multinomial."""

from numlir._src.scipy.discrete_distributions import (  # noqa: F401
    multinomial_logpmf as logpmf,
    multinomial_pmf as pmf,
)
