"""numlir.scipy.stats: probability distributions, as jax.scipy.stats."""

from numlir.scipy.stats import norm  # noqa: F401
from numlir.scipy.stats import expon  # noqa: F401
from numlir.scipy.stats import uniform  # noqa: F401
from numlir.scipy.stats import laplace  # noqa: F401
from numlir.scipy.stats import logistic  # noqa: F401
from numlir.scipy.stats import cauchy  # noqa: F401
from numlir.scipy.stats import gumbel_r  # noqa: F401
from numlir.scipy.stats import gumbel_l  # noqa: F401
from numlir.scipy.stats import bernoulli  # noqa: F401
from numlir.scipy.stats import beta  # noqa: F401
from numlir.scipy.stats import betabinom  # noqa: F401
from numlir.scipy.stats import binom  # noqa: F401
from numlir.scipy.stats import chi2  # noqa: F401
from numlir.scipy.stats import dirichlet  # noqa: F401
from numlir.scipy.stats import gamma  # noqa: F401
from numlir.scipy.stats import gennorm  # noqa: F401
from numlir.scipy.stats import geom  # noqa: F401
from numlir.scipy.stats import multinomial  # noqa: F401
from numlir.scipy.stats import multivariate_normal  # noqa: F401
from numlir.scipy.stats import nbinom  # noqa: F401
from numlir.scipy.stats import pareto  # noqa: F401
from numlir.scipy.stats import poisson  # noqa: F401
from numlir.scipy.stats import t  # noqa: F401
from numlir.scipy.stats import truncnorm  # noqa: F401
from numlir.scipy.stats import vonmises  # noqa: F401
from numlir.scipy.stats import wrapcauchy  # noqa: F401
