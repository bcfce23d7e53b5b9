"""packbits and unpackbits: eight booleans to a uint8 and back, as NumPy's."""

from __future__ import annotations

import operator

import numpy as np

from numlir._src.numpy import creation, joining, linalg_ops, reductions, reshaping
from numlir._src.numpy.util import check_arraylike, dtype_of


def _bit_weights(bitorder: str) -> np.ndarray:
    if bitorder not in ("big", "little"):
        raise ValueError(f"bitorder must be 'big' or 'little', got {bitorder!r}")
    weights = 1 << np.arange(8, dtype=np.uint8)
    return weights[::-1].copy() if bitorder == "big" else weights


def packbits(a, axis: int | None = None, bitorder: str = "big"):
    """Each run of 8 elements along ``axis`` (nonzero meaning 1, zero-padded at the end) as the
    bits of one uint8; the flattened array when ``axis`` is None."""
    check_arraylike("packbits", a)
    a = creation.asarray(a)
    if not (np.issubdtype(dtype_of(a), np.integer) or dtype_of(a) == np.bool_):
        raise TypeError(f"packbits: expected an integer or boolean array, got {dtype_of(a).name}")
    weights = _bit_weights(bitorder)
    if axis is None:
        a, axis = reshaping.ravel(a), 0
    axis = operator.index(axis) % max(a.ndim, 1)
    bits = linalg_ops.moveaxis(a != 0, axis, -1).astype(np.uint8)
    n = bits.shape[-1]
    pad = -n % 8
    if pad:
        bits = joining.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, pad)])
    groups = reshaping.reshape(bits, bits.shape[:-1] + ((n + pad) // 8, 8))
    packed = reductions.sum(groups * creation.asarray(weights), axis=-1, dtype=np.uint8)
    return linalg_ops.moveaxis(packed, -1, axis)


def unpackbits(a, axis: int | None = None, count: int | None = None, bitorder: str = "big"):
    """The 8 bits of each uint8 along ``axis`` (the flattened array when None), keeping the
    first ``count`` bits (negative: dropping the last ``-count``; past the end: zeros)."""
    check_arraylike("unpackbits", a)
    a = creation.asarray(a)
    if dtype_of(a) != np.uint8:
        raise TypeError(f"unpackbits: expected an array of uint8, got {dtype_of(a).name}")
    weights = creation.asarray(_bit_weights(bitorder))
    if axis is None:
        a, axis = reshaping.ravel(a), 0
    axis = operator.index(axis) % max(a.ndim, 1)
    moved = linalg_ops.moveaxis(a, axis, -1)
    bits = ((reshaping.expand_dims(moved, -1) & weights) != 0).astype(np.uint8)
    bits = reshaping.reshape(bits, moved.shape[:-1] + (moved.shape[-1] * 8,))
    if count is not None:
        count = operator.index(count)
        total = bits.shape[-1]
        keep = max(total + count, 0) if count < 0 else count
        if keep <= total:
            bits = bits[..., :keep]
        else:
            bits = joining.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, keep - total)])
    return linalg_ops.moveaxis(bits, -1, axis)
