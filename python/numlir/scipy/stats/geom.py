"""numlir.scipy.stats.geom: as jax.scipy.stats.geom."""

from numlir._src.scipy.discrete_distributions import (  # noqa: F401
    geom_logpmf as logpmf,
    geom_pmf as pmf,
)
