"""NumPy's in-place writers, as functions that return the updated array: put,
put_along_axis and place. numlir arrays are immutable, so each requires
``inplace=False``, as jax.numpy's do."""

from __future__ import annotations

import numpy as np

from numlir._src import core
from numlir._src.lax import type_checks as tc
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.numpy.cumulative import cumsum
from numlir._src.numpy.util import check_arraylike, dtype_of


def _immutable(name: str):
    return ValueError(
        f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are immutable. "
        "Pass inplace=False to instead return an updated array."
    )


def put(a, ind, v, mode: str | None = None, *, inplace: bool = True):
    """``a`` with its flattened entries ``ind`` set to ``v`` (cycled); out-of-bounds indices
    are dropped, or clipped (``mode='clip'``) or wrapped (``mode='wrap'``)."""
    if inplace:
        raise _immutable("put")
    check_arraylike("put", a, ind, v)
    a = creation.asarray(a)
    flat = reshaping.ravel(a)
    ind = reshaping.ravel(creation.asarray(ind))
    v = reshaping.ravel(creation.asarray(v).astype(dtype_of(a)))
    if ind.size == 0 or v.size == 0:
        return a
    if v.size != ind.size:  # NumPy repeats the values to the number of indices
        v = v[creation.asarray(np.arange(ind.size) % v.size, np.int32)]
    if mode == "clip":
        ind = ufuncs.clip(ind, 0, flat.size - 1)
    elif mode == "wrap":
        ind = ufuncs.remainder(ind, flat.size)
    elif mode not in (None, "fill", "raise"):
        raise ValueError(f"put: mode must be 'clip', 'wrap' or None, got {mode!r}")
    return reshaping.reshape(flat.at[ind].set(v, mode="drop"), a.shape)


def put_along_axis(
    arr, indices, values, axis: int | None, inplace: bool = True, *, mode: str | None = None
):
    """``arr`` with ``values`` written at ``indices`` along ``axis``, the other axes matched
    positionally, the inverse of take_along_axis."""
    if inplace:
        raise _immutable("put_along_axis")
    check_arraylike("put_along_axis", arr, indices, values)
    arr = creation.asarray(arr)
    indices = creation.asarray(indices)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("put_along_axis: indices must be 1-D when axis is None")
        return reshaping.reshape(
            put_along_axis(reshaping.ravel(arr), indices, values, 0, inplace=False, mode=mode),
            arr.shape,
        )
    if indices.ndim != arr.ndim:
        raise ValueError(
            f"put_along_axis: indices and arr must have the same number of dimensions; "
            f"{indices.ndim} vs. {arr.ndim}"
        )
    axis = tc.canonical_axis("put_along_axis", axis, arr.ndim)
    shape = np.broadcast_shapes(
        *(tuple(1 if d == axis else s for d, s in enumerate(x.shape)) for x in (arr, indices))
    )
    shape = tuple(indices.shape[d] if d == axis else s for d, s in enumerate(shape))
    index = tuple(
        reshaping.broadcast_to(indices, shape)
        if d == axis
        else creation.arange(shape[d]).reshape((-1,) + (1,) * (arr.ndim - d - 1))
        for d in range(arr.ndim)
    )
    values = reshaping.broadcast_to(creation.asarray(values).astype(dtype_of(arr)), shape)
    return arr.at[index].set(values, mode=mode)


def place(arr, mask, vals, *, inplace: bool = True):
    """``arr`` with the entries where ``mask`` is true set to ``vals``, in order and cycled."""
    if inplace:
        raise _immutable("place")
    check_arraylike("place", arr, mask, vals)
    arr = creation.asarray(arr)
    mask = creation.asarray(mask).astype(bool)
    if mask.size != arr.size:
        raise ValueError(
            f"place: mask and arr must have the same size, got {mask.shape} and {arr.shape}"
        )
    vals = reshaping.ravel(creation.asarray(vals).astype(dtype_of(arr)))
    if vals.size == 0:
        if isinstance(mask, core.Tracer) or bool(reductions.any(mask)):
            raise ValueError("place: cannot place values from an empty array")
        return arr
    flat_mask = reshaping.ravel(mask)
    which = ufuncs.remainder(cumsum(flat_mask.astype(np.int32)) - 1, vals.size)
    return reshaping.reshape(ufuncs.where(flat_mask, vals[which], reshaping.ravel(arr)), arr.shape)
