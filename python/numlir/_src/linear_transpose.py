"""``linear_transpose``: the transpose of a linear function, as ``jax.linear_transpose``."""

from __future__ import annotations

import numpy as np

from numlir._src import core, tree_util
from numlir._src.forward_mode import jvp
from numlir._src.reverse_mode import vjp


def _zeros_like_spec(x):
    aval = core.get_aval(x) if not hasattr(x, "aval") else x.aval
    return np.zeros(aval.shape, aval.dtype)


def linear_transpose(fun, *primals, reduce_axes=()):
    """``t(ct)``: the cotangents of ``fun``'s inputs for output cotangent ``ct``, for a
    ``fun`` linear in its arguments (``primals`` give their shapes and dtypes).

    Linearity is checked once, on random inputs: ``fun(0) == 0`` and the derivative at a
    random point equals the derivative at 0; a function failing it raises TypeError
    (jax detects the non-linear operations instead)."""
    if reduce_axes:
        raise NotImplementedError("reduce_axes is not supported (it was removed from jax as well)")
    zeros = tree_util.tree_map(_zeros_like_spec, primals)
    rng = np.random.default_rng(0)
    point = tree_util.tree_map(lambda z: rng.standard_normal(z.shape).astype(z.dtype), zeros)
    tangent = tree_util.tree_map(lambda z: rng.standard_normal(z.shape).astype(z.dtype), zeros)
    at_zero = jvp(fun, zeros, tangent)
    at_point = jvp(fun, point, tangent)
    for value in tree_util.tree_leaves(at_zero[0]):
        if np.any(np.asarray(value) != 0):
            raise TypeError("linear_transpose only supports linear functions: fun(0) is not 0")
    for a, b in zip(tree_util.tree_leaves(at_zero[1]), tree_util.tree_leaves(at_point[1])):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if not np.allclose(a, b, rtol=1e-4, atol=1e-5 * (1 + np.abs(a).max(initial=0))):
            raise TypeError("linear_transpose only supports linear functions: its derivative changes "
                            "with the input")
    _, pullback = vjp(fun, *zeros)

    def transposed(*cts):
        ct = cts[0] if len(cts) == 1 else cts
        return pullback(ct)

    return transposed
