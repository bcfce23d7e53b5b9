"""numlir.scipy.stats: location-scale distributions, as jax.scipy.stats."""

from numlir.scipy.stats import norm  # noqa: F401
from numlir.scipy.stats import expon  # noqa: F401
from numlir.scipy.stats import uniform  # noqa: F401
from numlir.scipy.stats import laplace  # noqa: F401
from numlir.scipy.stats import logistic  # noqa: F401
from numlir.scipy.stats import cauchy  # noqa: F401
from numlir.scipy.stats import gumbel_r  # noqa: F401
from numlir.scipy.stats import gumbel_l  # noqa: F401
