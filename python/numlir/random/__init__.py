"""numlir.random: JAX's counter-based PRNG (threefry2x32), with jax.random's bits.

Keys, ``split``, ``fold_in``, ``bits`` and the samplers built from bits by
exact arithmetic (uniform, randint, bernoulli, permutation, ...) give exactly
jax.random's values for the same key. Samplers that go through a
transcendental function (normal via erf_inv, gumbel, exponential, ...) agree
to float32 rounding (an ulp or so), since numlir's erf_inv/log round a little
differently from XLA's.

Keys are explicit values; split them instead of reusing them::

    import numlir.random as random

    key = random.PRNGKey(0)              # uint32[2], the same bits as jax.random.PRNGKey(0)
    key, sub = random.split(key)
    x = random.normal(sub, (3, 4))       # jax.random.normal's values, to an ulp

``key(seed)`` returns the same raw ``uint32[2]`` array as ``PRNGKey`` (numlir has
no typed key dtype); ``key_data``/``wrap_key_data`` therefore return their input.
"""

from numlir._src.random.binomial import binomial, multinomial
from numlir._src.random.distributions import (bernoulli, categorical, choice, exponential, gumbel,
                                              laplace, logistic, normal, permutation, rademacher,
                                              randint, shuffle, truncated_normal, uniform)
from numlir._src.random.keys import (PRNGKey, bits, clone, fold_in, key, key_data, key_dtype, key_impl,
                                     split, wrap_key_data)
from numlir._src.random.gamma import (ball, beta, chisquare, dirichlet, f, gamma, generalized_normal,
                                      loggamma, t)
from numlir._src.random.matrix_samplers import multivariate_normal, orthogonal
from numlir._src.random.poisson import poisson
from numlir._src.random.transformed import (cauchy, double_sided_maxwell, geometric, lognormal, maxwell,
                                            pareto, rayleigh, triangular, wald, weibull_min)

__all__ = [
    "PRNGKey", "bernoulli", "bits", "categorical", "choice", "exponential", "fold_in", "gumbel",
    "key", "key_data", "key_impl", "laplace", "logistic", "normal", "permutation", "rademacher",
    "randint", "shuffle", "split", "truncated_normal", "uniform", "wrap_key_data",
    "cauchy", "clone", "double_sided_maxwell", "geometric", "key_dtype", "lognormal", "maxwell",
    "pareto", "rayleigh", "triangular", "wald", "weibull_min", "ball", "beta", "chisquare",
    "dirichlet", "f", "gamma", "generalized_normal", "loggamma", "t", "poisson",
    "multivariate_normal", "orthogonal", "binomial", "multinomial",
]

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
