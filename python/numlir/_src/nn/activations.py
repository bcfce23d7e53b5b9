"""The rest of jax.nn's activations: gated, hard, sparse and smooth variants, log1mexp,
logmeanexp. Each is the formula JAX documents, written on numlir.numpy.

>>> import numlir.numpy as jnp, numlir.nn as nn
>>> nn.hard_sigmoid(jnp.array([-4.0, 0.0, 4.0]))
Array([0. , 0.5, 1. ], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from numlir._src.lax.elementwise import logistic
from numlir._src.custom_derivatives import custom_jvp
from numlir._src.nn.functions import logsumexp, relu6, softplus
from numlir._src.numpy import creation, joining, reductions, reshaping, ufuncs
from numlir._src.numpy.util import promote_arrays_inexact
from numlir._src import core


def identity(x):
    """``x`` itself, as an array."""
    return creation.asarray(x)


def glu(x, axis: int = -1):
    """Gated linear unit: the first half of ``axis`` times the sigmoid of the second half."""
    (x,) = promote_arrays_inexact("glu", x)
    size = core.get_aval(x).shape[axis]
    if size % 2:
        raise ValueError(f"glu: axis {axis} has size {size}, which is not divisible by 2")
    first, second = joining.split(x, 2, axis)
    return first * logistic(second)


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    (x,) = promote_arrays_inexact("hard_sigmoid", x)
    return relu6(x + 3.0) / 6.0


def hard_silu(x):
    """Hard SiLU (hard swish): ``x * hard_sigmoid(x)``."""
    (x,) = promote_arrays_inexact("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def mish(x):
    """``x * tanh(softplus(x))``."""
    (x,) = promote_arrays_inexact("mish", x)
    return x * ufuncs.tanh(softplus(x))


def soft_sign(x):
    """``x / (|x| + 1)``."""
    (x,) = promote_arrays_inexact("soft_sign", x)
    return x / (ufuncs.abs(x) + 1)


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``, a smooth ReLU whose smoothness is ``b``."""
    x, b = promote_arrays_inexact("squareplus", x, b)
    return (x + ufuncs.sqrt(ufuncs.square(x) + b)) / 2


def sparse_plus(x):
    """0 for ``x <= -1``, ``(x + 1)**2 / 4`` between, ``x`` for ``x >= 1``."""
    (x,) = promote_arrays_inexact("sparse_plus", x)
    return ufuncs.where(x <= -1.0, 0.0, ufuncs.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def sparse_sigmoid(x):
    """``clip(x + 1, 0, 2) / 2``, the derivative of sparse_plus."""
    (x,) = promote_arrays_inexact("sparse_sigmoid", x)
    return 0.5 * ufuncs.clip(x + 1.0, 0.0, 2.0)


@custom_jvp
def log1mexp(x):
    """``log(1 - exp(-x))`` for ``x >= 0``, accurate for small and large ``x`` (Mächler's split
    at log 2). Its derivative is JAX's rule ``1 / expm1(x)``: through the branches, the
    untaken one's inf or NaN derivative would leak in as NaN."""
    (x,) = promote_arrays_inexact("log1mexp", x)
    return ufuncs.where(x < np.log(2.0), ufuncs.log(-ufuncs.expm1(-x)), ufuncs.log1p(-ufuncs.exp(-x)))


log1mexp.defjvps(lambda t, out, x: t / ufuncs.expm1(x))


def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
    """``logsumexp(x) - log(n)``, ``n`` the number of elements reduced (those ``where`` selects)."""
    (x,) = promote_arrays_inexact("logmeanexp", x)
    if where is None:
        lse = logsumexp(x, axis=axis, keepdims=keepdims)
        shape = core.get_aval(x).shape
        axes = range(len(shape)) if axis is None else np.atleast_1d(axis)
        count = float(np.prod([shape[int(a)] for a in axes], dtype=np.float64))
        return lse - np.log(count).astype(core.get_aval(lse).dtype)
    where = reshaping.broadcast_to(where, core.get_aval(x).shape)
    lse = logsumexp(ufuncs.where(where, x, -np.inf), axis=axis, keepdims=keepdims)
    count = reductions.sum(where, axis=axis, keepdims=keepdims).astype(core.get_aval(lse).dtype)
    return lse - ufuncs.log(count)
