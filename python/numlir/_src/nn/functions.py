"""More numlir.nn functions: logsumexp, the ELU family, clipped activations, standardize.

>>> import numlir.numpy as jnp, numlir.nn as nn
>>> nn.relu6(jnp.array([-1.0, 3.0, 9.0]))
Array([0., 3., 6.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

import numlir.numpy as jnp
from numlir._src import core
from numlir._src.lax import elementwise_extra as lax_extra
from numlir._src.lax import type_checks as tc
from numlir._src.numpy.util import promote_args_inexact


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False):
    """``log(sum(b * exp(a), axis))``, computed stably (shifted by the finite maximum).

    With ``return_sign`` returns ``(log|s|, sign(s))``; otherwise a negative
    sum gives NaN, as in JAX.
    """
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        shape = np.broadcast_shapes(jnp.shape(a), jnp.shape(b))
        a, b = jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape)
        a = jnp.where(b != 0, a, -np.inf)
    else:
        (a,) = promote_args_inexact("logsumexp", a)
    axes = tc.canonical_axes("logsumexp", axis, core.get_aval(a).ndim)
    if core.get_aval(a).size:
        amax = jnp.max(a, axis=axis, keepdims=True)
        amax = jnp.where(jnp.isfinite(amax), amax, 0)
    else:
        amax = jnp.zeros_like(jnp.sum(a, axis=axis, keepdims=True))
    exp = jnp.exp(a - amax)
    if b is not None:
        exp = exp * b
    total = jnp.sum(exp, axis=axis, keepdims=True)
    sign = jnp.sign(total)
    out = jnp.log(jnp.abs(total)) + amax
    if not return_sign:
        out = jnp.where(sign < 0, np.nan, out)
    if not keepdims:
        out = jnp.squeeze(out, axes) if axes else out
        sign = jnp.squeeze(sign, axes) if axes else sign
    return (out, sign) if return_sign else out


def relu6(x):
    """``min(max(x, 0), 6)``."""
    return jnp.minimum(jnp.maximum(x, 0), 6)


def hard_tanh(x):
    """``clip(x, -1, 1)``."""
    return jnp.minimum(jnp.maximum(x, -1), 1)


def elu(x, alpha=1.0):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""
    (x,) = promote_args_inexact("elu", x)
    safe = jnp.where(x > 0, 0, x)
    return jnp.where(x > 0, x, alpha * lax_extra.expm1(safe))


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * min(exp(x / alpha) - 1, 0)``."""
    (x,) = promote_args_inexact("celu", x)
    return jnp.maximum(x, 0) + alpha * lax_extra.expm1(jnp.minimum(x, 0) / alpha)


def selu(x):
    """Scaled ELU with the self-normalizing constants."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


def leaky_relu(x, negative_slope=1e-2):
    """``x`` for ``x >= 0``, ``negative_slope * x`` otherwise."""
    (x,) = promote_args_inexact("leaky_relu", x)
    return jnp.where(x >= 0, x, negative_slope * x)


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``, computed stably."""
    (x,) = promote_args_inexact("log_sigmoid", x)
    return jnp.minimum(x, 0) - lax_extra.log1p(jnp.exp(-jnp.abs(x)))


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5):
    """``(x - mean) / sqrt(variance + epsilon)`` over ``axis``."""
    (x,) = promote_args_inexact("standardize", x)
    if mean is None:
        mean = jnp.mean(x, axis=axis, keepdims=True)
    if variance is None:
        variance = jnp.mean(jnp.square(x), axis=axis, keepdims=True) - jnp.square(mean)
    return (x - mean) * (1 / jnp.sqrt(variance + epsilon))
