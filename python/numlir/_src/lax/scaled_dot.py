"""lax.scaled_dot: ``dot_general(lhs * lhs_scale, rhs * rhs_scale)``, each scale entry
covering a run of the contracting axis (a subchannel), as jax's composite computes it:
operands and scales in bfloat16, the product in ``preferred_element_type``.

numlir has no float8/float4 arrays; NumPy arrays of those ml_dtypes formats (jax's
usual operands here) are taken as the float32 numbers they hold, which is exact.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import shape_ops
from numlir._src.lax.dot import dot_general
from numlir._src.lax.elementwise import convert_element_type, mul

# ml_dtypes' one-byte (and smaller) float formats: float8_*, float6_*, float4_e2m1fn.
_NARROW_FLOATS = frozenset(np.dtype(getattr(ml_dtypes, name)) for name in dir(ml_dtypes)
                           if name.startswith(("float8_", "float6_", "float4_")))


def widen_narrow_float(x):
    """A NumPy array of a float8/float6/float4 format as the float32 numbers it holds."""
    if isinstance(x, np.ndarray) and x.dtype in _NARROW_FLOATS:
        return x.astype(np.float32)
    return x


def _check_scale(side: str, shape, scale_shape, contracting) -> None:
    for i, size in enumerate(shape):
        if i in contracting:
            if scale_shape[i] == 0 or size % scale_shape[i]:
                raise TypeError(f"scaled_dot: {side} contracting dim {i} of size {size} must be "
                                f"divisible by its scale's dim size {scale_shape[i]}.")
            if size // scale_shape[i] < 2:
                raise TypeError(f"scaled_dot: the ratio of {side} contracting dim {i} to its "
                                f"scale's dim size ({size // scale_shape[i]}) must be at least 2.")
        elif scale_shape[i] != size:
            raise TypeError(f"scaled_dot: {side} dim {i} of size {size} does not match scale "
                            f"dim size {scale_shape[i]}.")


def _scaled(side: str, x, scale, contracting):
    """``x * scale`` in bfloat16, each scale entry repeated over its subchannel."""
    shape = core.get_aval(x).shape
    x = convert_element_type(x, dtypes.bfloat16)
    if scale is None:
        return x
    scale_shape = core.get_aval(scale).shape
    if len(scale_shape) != len(shape):
        raise TypeError(f"scaled_dot: {side} {shape} and its scale {scale_shape} must have the "
                        "same rank.")
    _check_scale(side, shape, scale_shape, contracting)
    scale = convert_element_type(scale, dtypes.bfloat16)
    for i in contracting:
        run = shape[i] // scale_shape[i]
        if run > 1:
            # Each entry repeated ``run`` times along axis i: broadcast into a new axis after
            # it, then merge the two.
            current = core.get_aval(scale).shape
            expanded = current[:i + 1] + (run,) + current[i + 1:]
            dims = tuple(d if d <= i else d + 1 for d in range(len(current)))
            scale = shape_ops.broadcast_in_dim(scale, expanded, dims)
            scale = shape_ops.reshape(scale, current[:i] + (current[i] * run,) + current[i + 1:])
    return mul(x, scale)


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """``dot_general(lhs * lhs_scale, rhs * rhs_scale)`` in ``preferred_element_type``
    (default bfloat16), as jax's. A scale has its operand's shape except along the
    contracting axes, which it divides into runs of at least 2 sharing one entry;
    without a scale the operand is used as it is. ``dimension_numbers`` defaults to a
    batched matmul over the leading axes."""
    lhs, rhs = widen_narrow_float(lhs), widen_narrow_float(rhs)
    lhs_scale, rhs_scale = widen_narrow_float(lhs_scale), widen_narrow_float(rhs_scale)
    lhs_shape, rhs_shape = core.get_aval(lhs).shape, core.get_aval(rhs).shape
    if dimension_numbers is None:
        n = len(lhs_shape)
        if n < 2:
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), (lb, rb) = dimension_numbers
    dimension_numbers = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"scaled_dot: lhs {lhs_shape} and rhs {rhs_shape} must have the same rank.")
    out_dtype = dtypes.bfloat16 if preferred_element_type is None else np.dtype(preferred_element_type)
    a = _scaled("LHS", lhs, lhs_scale, dimension_numbers[0][0])
    b = _scaled("RHS", rhs, rhs_scale, dimension_numbers[0][1])
    return dot_general(a, b, dimension_numbers, preferred_element_type=out_dtype)
