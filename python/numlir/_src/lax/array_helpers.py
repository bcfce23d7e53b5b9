"""Small array helpers of jax.lax composed from its primitives: stack, broadcast_like,
stage and shape_as_value."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from numlir._src import core
from numlir._src.array import as_array
from numlir._src.lax import shape_ops, slicing
from numlir._src.lax import type_checks as tc


def stack(operands: Sequence[Any], axis: int = 0):
    """Join ``operands`` (one shape and dtype) along a new dimension ``axis``."""
    operands = list(operands)
    if not operands:
        raise core.value_error("stack: needs at least one operand")
    ndim = core.get_aval(operands[0]).ndim
    axis = tc.canonical_axis("stack", axis, ndim + 1)
    return slicing.concatenate([shape_ops.expand_dims(x, (axis,)) for x in operands], axis)


def broadcast_like(arr, like_arr):
    """``arr`` broadcast (NumPy style, from the right) to the shape of ``like_arr``."""
    shape = core.get_aval(like_arr).shape
    aval = core.get_aval(arr)
    if aval.ndim > len(shape):
        raise core.shape_error(
            f"broadcast_like: cannot broadcast {aval.str_short()} to the lower-rank shape {shape}"
        )
    return shape_ops.broadcast_in_dim(arr, shape, tuple(range(len(shape) - aval.ndim, len(shape))))


def stage(x, /):
    """``x`` as an array of the current trace: under jit a traced value, not a constant."""
    return as_array(x)


def shape_as_value(shape) -> np.ndarray:
    """A shape as an integer array (numlir's shapes are always static)."""
    dims = [operator.index(d) for d in shape]
    fits = all(d <= np.iinfo(np.int32).max for d in dims)
    return np.asarray(dims, dtype=np.int32 if fits else np.int64).reshape(len(dims))
