"""jax.nn.scaled_matmul: a batched matmul of block-scaled operands (each block of the
contracting axis multiplied by its scale), computed in float32 as jax specifies. Its usual operands, NumPy arrays of float8 values
and float8_e8m0fnu scales, are taken as the float32 numbers they hold."""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax.scaled_dot import widen_narrow_float
from numlir._src.numpy import creation, joining, linalg_ops, reshaping


def _dequantized(name: str, x, scales, dtype):
    x, scales = creation.asarray(widen_narrow_float(x)), creation.asarray(widen_narrow_float(scales))
    if x.ndim != 3 or scales.ndim != 3:
        raise core.value_error(f"scaled_matmul: {name} and its scales must be 3-D (B, rows, K), "
                               f"got shapes {x.shape} and {scales.shape}")
    k, blocks = x.shape[-1], scales.shape[-1]
    if x.shape[:2] != scales.shape[:2] or blocks == 0 or k % blocks:
        raise core.value_error(
            f"scaled_matmul: {name}'s scales {scales.shape} must share its leading dimensions "
            f"{x.shape[:2]} and divide its contracting dimension {k} into blocks")
    x, scales = x.astype(dtype), scales.astype(dtype)
    return x * joining.repeat(scales, k // blocks, axis=-1)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """``einsum('BMK,BNK->BMN')`` of ``lhs`` and ``rhs`` with each block of K scaled by its
    entry of ``lhs_scales`` (B, M, K_a) / ``rhs_scales`` (B, N, K_b); block sizes ``K // K_a``
    and ``K // K_b``. Computed in float32, as jax's, and returned as
    ``preferred_element_type``."""
    a = _dequantized("lhs", lhs, lhs_scales, dtypes.float32)
    b = _dequantized("rhs", rhs, rhs_scales, dtypes.float32)
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[2]:
        raise core.value_error(f"scaled_matmul: lhs {a.shape} and rhs {b.shape} need equal batch "
                               "and contracting dimensions")
    out = linalg_ops.matmul(a, reshaping.swapaxes(b, -1, -2))
    return out.astype(dtypes.canonicalize_dtype(preferred_element_type))
