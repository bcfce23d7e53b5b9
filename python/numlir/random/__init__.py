"""numlir.random: JAX's counter-based PRNG (threefry2x32), bit-identical to jax.random.

Keys are explicit values; split them instead of reusing them::

    import numlir.random as random

    key = random.PRNGKey(0)              # uint32[2], the same bits as jax.random.PRNGKey(0)
    key, sub = random.split(key)
    x = random.normal(sub, (3, 4))       # the same values as jax.random.normal

``key(seed)`` returns the same raw ``uint32[2]`` array as ``PRNGKey`` (numlir has
no typed key dtype); ``key_data``/``wrap_key_data`` therefore return their input.
"""

from numlir._src.random.distributions import (bernoulli, categorical, choice, exponential, gumbel,
                                              laplace, logistic, normal, permutation, rademacher,
                                              randint, shuffle, truncated_normal, uniform)
from numlir._src.random.keys import (PRNGKey, bits, fold_in, key, key_data, key_impl, split,
                                     wrap_key_data)

__all__ = [
    "PRNGKey", "bernoulli", "bits", "categorical", "choice", "exponential", "fold_in", "gumbel",
    "key", "key_data", "key_impl", "laplace", "logistic", "normal", "permutation", "rademacher",
    "randint", "shuffle", "split", "truncated_normal", "uniform", "wrap_key_data",
]
