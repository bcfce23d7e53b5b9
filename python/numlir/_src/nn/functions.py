"""More numlir.nn functions: softmax, log_softmax, logsumexp, the ELU family, clipped
activations, standardize.

>>> import numlir.numpy as jnp, numlir.nn as nn
>>> nn.relu6(jnp.array([-1.0, 3.0, 9.0]))
Array([0., 3., 6.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from numlir._src import core
from numlir._src.custom_derivatives import custom_jvp
from numlir._src.lax import elementwise as ew
from numlir._src.lax import float_math
from numlir._src.lax import type_checks as tc
from numlir._src.lax.elementwise import stop_gradient
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.numpy.logaddexp import logaddexp
from numlir._src.numpy.util import promote_args_inexact


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):
    """``log(sum(b * exp(a), axis))``, computed stably (shifted by the finite maximum);
    ``where`` leaves elements out of the sum.

    With ``return_sign`` returns ``(log|s|, sign(s))``; otherwise a negative
    sum gives NaN, as in JAX.
    """
    if where is not None:
        (a,) = promote_args_inexact("logsumexp", a)
        a = ufuncs.where(where, a, -np.inf)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        shape = np.broadcast_shapes(reshaping.shape(a), reshaping.shape(b))
        a, b = reshaping.broadcast_to(a, shape), reshaping.broadcast_to(b, shape)
        a = ufuncs.where(b != 0, a, -np.inf)
    else:
        (a,) = promote_args_inexact("logsumexp", a)
    axes = tc.canonical_axes("logsumexp", axis, core.get_aval(a).ndim)
    if core.get_aval(a).size:
        amax = reductions.max(a, axis=axis, keepdims=True)
        # The result does not depend on the shift, so neither does its derivative: through
        # the shift, an infinite cotangent would make inf - inf (as jax, no gradient).
        amax = stop_gradient(ufuncs.where(ufuncs.isfinite(amax), amax, 0))
    else:
        amax = creation.zeros_like(reductions.sum(a, axis=axis, keepdims=True))
    exp = ufuncs.exp(a - amax)
    if b is not None:
        exp = exp * b
    total = reductions.sum(exp, axis=axis, keepdims=True)
    sign = ufuncs.sign(total)
    out = ufuncs.log(ufuncs.abs(total)) + amax
    if not return_sign:
        out = ufuncs.where(sign < 0, np.nan, out)
    if not keepdims:
        out = reshaping.squeeze(out, axes) if axes else out
        sign = reshaping.squeeze(sign, axes) if axes else sign
    return (out, sign) if return_sign else out


def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x, axis)``, computed stably; elements outside ``where`` are left out of
    the sum and come out as ``-inf``, as in JAX."""
    (x,) = promote_args_inexact("log_softmax", x)
    x_max = reductions.max(x, axis=axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else ufuncs.where(where, x, -np.inf)
    shifted = x_safe - stop_gradient(x_max)
    total = reductions.sum(ufuncs.exp(shifted), axis=axis, where=where, keepdims=True)
    result = shifted - ufuncs.log(total)
    return result if where is None else ufuncs.where(where, result, -np.inf)


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x), axis)``, computed stably; elements outside ``where`` are left
    out of the sum and come out as 0, as in JAX. Its derivative is JAX's
    ``y * (t - sum(y * t))``: through the quotient and the shift, an infinite cotangent
    would make NaN everywhere, not only where jax's does."""
    (x,) = promote_args_inexact("softmax", x)
    axis = axis if axis is None or isinstance(axis, int) else tuple(axis)
    if where is None:
        return _softmax(x, axis)
    return _masked_softmax(x, where, axis)


def _softmax_values(x, where, axis):
    x_max = reductions.max(x, axis=axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else ufuncs.where(where, x, -np.inf)
    unnormalized = ufuncs.exp(x_safe - x_max)
    result = unnormalized / reductions.sum(unnormalized, axis=axis, where=where, keepdims=True)
    return result if where is None else ufuncs.where(where, result, 0)


def _softmax_tangent(y, t, axis, where):
    return y * (t - reductions.sum(y * t, axis=axis, where=where, keepdims=True))


_softmax = custom_jvp(lambda x, axis: _softmax_values(x, None, axis), nondiff_argnums=(1,))
_masked_softmax = custom_jvp(_softmax_values, nondiff_argnums=(2,))


@_softmax.defjvp
def _softmax_jvp(axis, primals, tangents):
    (x,), (t,) = primals, tangents
    y = _softmax(x, axis)
    return y, _softmax_tangent(y, t, axis, None)


@_masked_softmax.defjvp
def _masked_softmax_jvp(axis, primals, tangents):
    (x, where), (t, _) = primals, tangents
    y = _masked_softmax(x, where, axis)
    return y, _softmax_tangent(y, t, axis, where)


def _zero_unless(keep, t):
    """``t`` where ``keep``, else 0: a derivative that is 0 off a region, even where the
    cotangent is inf or NaN (a product with a 0/1 mask would give NaN there)."""
    return ew.select(keep, t, creation.zeros_like(t))


@custom_jvp
def relu(x):
    """Rectified linear unit ``max(x, 0)``. Its derivative at 0 is 0, as JAX's (a plain
    ``maximum`` would split the tie and give 1/2)."""
    return ufuncs.maximum(x, 0)


relu.defjvps(lambda t, out, x: _zero_unless(x > 0, t))


@custom_jvp
def relu6(x):
    """``min(max(x, 0), 6)``; its derivative is 0 at both kinks, as JAX's."""
    return ufuncs.minimum(ufuncs.maximum(x, 0), 6.0)


relu6.defjvps(lambda t, out, x: _zero_unless((x > 0) & (x < 6), t))


def softplus(x):
    """``log(1 + exp(x))`` as ``logaddexp(x, 0)``, whose derivative is ``sigmoid(x)``
    everywhere: 1/2 at 0, where a ``max(x, 0) + log1p(exp(-|x|))`` form gives 0."""
    return logaddexp(x, 0)


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``; derivative ``sigmoid(-x)``, 1/2 at 0."""
    (x,) = promote_args_inexact("log_sigmoid", x)
    return -softplus(-x)


def hard_tanh(x):
    """``clip(x, -1, 1)``, written as JAX's selects: its derivative is 1 at ``x = ±1``."""
    (x,) = promote_args_inexact("hard_tanh", x)
    return ufuncs.where(x > 1, 1, ufuncs.where(x < -1, -1, x))


def elu(x, alpha=1.0):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""
    (x,) = promote_args_inexact("elu", x)
    safe = ufuncs.where(x > 0, 0, x)
    return ufuncs.where(x > 0, x, alpha * float_math.expm1(safe))


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * min(exp(x / alpha) - 1, 0)``."""
    (x,) = promote_args_inexact("celu", x)
    return ufuncs.maximum(x, 0) + alpha * float_math.expm1(ufuncs.minimum(x, 0) / alpha)


def selu(x):
    """Scaled ELU with the self-normalizing constants."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


def leaky_relu(x, negative_slope=1e-2):
    """``x`` for ``x >= 0``, ``negative_slope * x`` otherwise."""
    (x,) = promote_args_inexact("leaky_relu", x)
    return ufuncs.where(x >= 0, x, negative_slope * x)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="fast"):
    """``(x - mean) / sqrt(variance + epsilon)`` over ``axis``; the statistics are taken over
    the elements in ``where``.

    As JAX: ``algorithm="fast"`` takes the variance as ``mean(x^2) - mean(x)^2``, clipped at
    0 because cancellation can make it negative (fuzz seed 1, program 42431: a NaN
    gradient); ``"stable"`` as ``mean((x - mean(x))^2)``."""
    (x,) = promote_args_inexact("standardize", x)
    if mean is None:
        mean = reductions.mean(x, axis=axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = reductions.mean(ufuncs.square(x - mean), axis=axis, keepdims=True,
                                       where=where)
        elif algorithm == "fast":
            variance = ufuncs.clip(
                reductions.mean(ufuncs.square(x), axis=axis, keepdims=True, where=where)
                - ufuncs.square(mean), 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return (x - mean) * (1 / ufuncs.sqrt(variance + epsilon))
