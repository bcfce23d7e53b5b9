"""Reading an array's bits another way: ``Array.view(dtype)`` and ``Array.byteswap()``.

As jax.Array's: a dtype of another width rescales the last axis (float32[n] viewed as
uint8 is uint8[4n], little-endian), and booleans are viewed through uint8.
"""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import bits
from numlir._src.numpy import creation, joining, reshaping, ufuncs


def view(a, dtype=None, type=None):  # noqa: A002 - numpy's and jax's name
    """``a``'s bits as ``dtype``: the last axis shrinks or grows by the ratio of the widths."""
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return a
    dtype = dtypes.canonicalize_dtype(dtype)
    aval = core.get_aval(a)
    old = aval.dtype
    if aval.ndim == 0:
        if old.itemsize != dtype.itemsize:
            raise ValueError("view() of a 0d array is only supported if the itemsize is "
                             "unchanged.")
        return reshaping.squeeze(view(reshaping.expand_dims(a, 0), dtype), 0)
    if (aval.shape[-1] * old.itemsize) % dtype.itemsize:
        raise ValueError("When changing to a larger dtype, its size must be a divisor of the "
                         "total size in bytes of the last axis of the array.")
    if old == dtype:
        return a
    if dtypes.is_bool(old):
        return view(creation.astype(a, np.uint8), dtype)
    if dtypes.is_bool(dtype):
        return ufuncs.not_equal(view(a, np.uint8), 0)
    lead, last = aval.shape[:-1], aval.shape[-1]
    if old.itemsize < dtype.itemsize:
        ratio = dtype.itemsize // old.itemsize
        return bits.bitcast_convert_type(reshaping.reshape(a, (*lead, last // ratio, ratio)), dtype)
    out = bits.bitcast_convert_type(a, dtype)
    if old.itemsize > dtype.itemsize:
        out = reshaping.reshape(out, (*lead, last * (old.itemsize // dtype.itemsize)))
    return out


def byteswap(a):
    """Each element with its bytes in the opposite order (numpy's ``byteswap()``)."""
    aval = core.get_aval(a)
    size = aval.dtype.itemsize
    if size == 1 or aval.size == 0:
        return a
    as_bytes = bits.bitcast_convert_type(a, np.uint8)  # (..., size), least significant first
    return bits.bitcast_convert_type(joining.flip(as_bytes, -1), aval.dtype)
