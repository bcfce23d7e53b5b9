"""Rearranging and editing arrays: append, insert, delete, rollaxis, permute_dims,
matrix_transpose, unstack, concat, broadcast_arrays, broadcast_shapes, select and
fill_diagonal."""

from __future__ import annotations

import operator

import numpy as np

from numlir._src import core
from numlir._src.numpy import creation, joining, linalg_ops, reshaping, ufuncs
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_dtypes


def append(arr, values, axis: int | None = None):
    """``arr`` followed by ``values`` along ``axis`` (both flattened when ``axis`` is None)."""
    check_arraylike("append", arr, values)
    if axis is None:
        return joining.concatenate([reshaping.ravel(arr), reshaping.ravel(values)])
    return joining.concatenate([arr, values], axis=axis)


def _insertion_order(obj, n: int, values, axis: int, ndim: int):
    """For NumPy's insert: the values block (values moved to line up with ``axis``) and,
    per result position along ``axis``, the index into ``concatenate([arr, block])``."""
    if isinstance(obj, slice):
        index = np.arange(*obj.indices(n))
    else:
        index = np.asarray(obj)
        if index.dtype == bool:
            raise ValueError("insert: boolean indices are not supported; pass integer indices")
        index = index.astype(np.int64)
    if np.any((index < -n) | (index > n)):
        raise IndexError(f"insert: index {obj!r} is out of bounds for axis {axis} with size {n}")
    index = np.where(index < 0, index + n, index)
    values = reshaping.reshape(values, (1,) * (ndim - values.ndim) + values.shape) if values.ndim < ndim else values
    if index.ndim == 0:  # a block of values.shape[axis] entries before one position
        block = linalg_ops.moveaxis(values, 0, axis)
        count = block.shape[axis]
        new_positions = int(index) + np.arange(count)
    else:
        count = index.size
        order = np.argsort(index.ravel(), kind="stable")
        new_positions = np.empty(count, np.int64)
        new_positions[order] = index.ravel()[order] + np.arange(count)
        block = values
    source = np.empty(n + count, np.int64)
    is_new = np.zeros(n + count, bool)
    is_new[new_positions] = True
    source[~is_new] = np.arange(n)
    source[new_positions] = n + np.arange(count)
    return block, count, source


def insert(arr, obj, values, axis: int | None = None):
    """``arr`` with ``values`` inserted before the positions ``obj`` (an int, a slice or
    concrete indices) along ``axis`` (of the flattened array when ``axis`` is None)."""
    check_arraylike("insert", arr, values)
    if isinstance(obj, core.Tracer):
        raise TypeError("insert: the positions must be concrete (not traced)")
    arr = creation.asarray(arr)
    if axis is None:
        arr, axis = reshaping.ravel(arr), 0
    axis = operator.index(axis) % max(arr.ndim, 1)
    values = creation.asarray(values).astype(dtype_of(arr))
    block, count, source = _insertion_order(obj, arr.shape[axis], values, axis, arr.ndim)
    shape = arr.shape[:axis] + (count,) + arr.shape[axis + 1:]
    block = reshaping.broadcast_to(block, shape)
    joined = joining.concatenate([arr, block], axis=axis)
    return joining.take(joined, creation.asarray(source.astype(np.int32)), axis=axis)


def delete(arr, obj, axis: int | None = None, *, assume_unique_indices: bool = False):
    """``arr`` without the entries ``obj`` (an int, a slice or concrete indices) along ``axis``."""
    check_arraylike("delete", arr)
    arr = creation.asarray(arr)
    if axis is None:
        arr, axis = reshaping.ravel(arr), 0
    axis = operator.index(axis)
    n = arr.shape[axis]
    if isinstance(obj, core.Tracer):
        raise TypeError("delete: the indices to delete must be concrete (not traced); "
                        "use jnp.where or a boolean mask under jit")
    keep = np.ones(n, bool)
    if isinstance(obj, slice):
        keep[obj] = False
    else:
        idx = np.asarray(obj)
        if idx.dtype == bool:
            raise ValueError("delete: boolean indices are not supported; pass integer indices")
        idx = idx.astype(np.int64).ravel()
        if np.any((idx < -n) | (idx >= n)):
            raise IndexError(f"delete: index out of bounds for axis {axis} with size {n}: {obj!r}")
        keep[idx] = False
    return joining.take(arr, creation.asarray(np.flatnonzero(keep).astype(np.int32)), axis=axis)


def rollaxis(a, axis: int, start: int = 0):
    """Move ``axis`` so that it lies before position ``start`` (NumPy's older moveaxis)."""
    check_arraylike("rollaxis", a)
    ndim = np.ndim(a) if not isinstance(a, core.Tracer) else a.ndim
    axis = operator.index(axis)
    start = operator.index(start)
    if not -ndim <= axis < ndim:
        raise ValueError(f"rollaxis: axis {axis} is out of bounds for an array of rank {ndim}")
    if not -ndim <= start <= ndim:
        raise ValueError(f"rollaxis: start {start} must be in [{-ndim}, {ndim}]")
    axis %= ndim
    start = start + ndim if start < 0 else start
    if axis < start:
        start -= 1
    return linalg_ops.moveaxis(a, axis, start)


def permute_dims(a, /, axes):
    """``transpose(a, axes)`` (the Array API's name)."""
    return reshaping.transpose(a, axes)


def matrix_transpose(x, /):
    """Swap the last two axes (rank >= 2)."""
    check_arraylike("matrix_transpose", x)
    x = creation.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={x.ndim}")
    return reshaping.swapaxes(x, -1, -2)


def unstack(x, /, *, axis: int = 0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    check_arraylike("unstack", x)
    x = creation.asarray(x)
    if x.ndim == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.")
    moved = linalg_ops.moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


def concat(arrays, /, *, axis: int | None = 0):
    """``concatenate(arrays, axis)`` (the Array API's name)."""
    return joining.concatenate(arrays, axis=axis)


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The shape that ``shapes`` broadcast to (a ValueError if they do not)."""
    if not shapes:
        return ()
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*[tuple(s) if np.ndim(s) else (s,) for s in shapes]))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(np.atleast_1d(s)) for s in shapes]}") from None


def broadcast_arrays(*args):
    """Every argument broadcast to their common shape."""
    check_arraylike("broadcast_arrays", *args)
    shape = broadcast_shapes(*[reshaping.shape(a) for a in args])
    return [reshaping.broadcast_to(a, shape) for a in args]


def select(condlist, choicelist, default=0):
    """Per element, the choice of the first true condition (``default`` where none is)."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    for i, cond in enumerate(condlist):
        if dtype_of(cond) != np.bool_:
            raise TypeError(f"condlist must contain boolean arrays; entry {i} has dtype {dtype_of(cond)}")
    *choices, default = promote_dtypes(*choicelist, default)
    out = default
    for cond, choice in zip(reversed(condlist), reversed(choices)):
        out = ufuncs.where(cond, choice, out)
    return out


def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
    """``a`` with its main diagonal set to ``val`` (cycled along it); ``inplace=False`` is required."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, so jnp.fill_diagonal cannot work in place; "
                                  "pass inplace=False and use the returned array")
    check_arraylike("fill_diagonal", a, val)
    a = creation.asarray(a)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    # NumPy's flat positions: every (columns + 1)-th element, up to the square part unless wrap.
    size = int(np.prod(a.shape))
    if a.ndim == 2:
        step, end = a.shape[1] + 1, size if wrap else a.shape[1] * a.shape[1]
    else:
        step, end = 1 + int(np.sum(np.cumprod(a.shape[:-1]))), size
    index = np.unravel_index(np.arange(0, min(end, size), step), a.shape)
    count = len(index[0])
    values = reshaping.ravel(creation.asarray(val).astype(dtype_of(a)))
    if reshaping.size(values) == 0 or count == 0:
        return a
    cycled = joining.take(values, creation.asarray((np.arange(count) % reshaping.size(values)).astype(np.int32)))
    return a.at[tuple(creation.asarray(i.astype(np.int32)) for i in index)].set(cycled)
