"""Functions whose output size depends on the data: nonzero, flatnonzero, argwhere,
compress, extract, the Array API's unique_* and the set operations, trim_zeros.

Eagerly the size is read from the (concrete) data. Under jit it must be given as
``size``: the result is then truncated or padded to exactly ``size`` entries
(with ``fill_value``), as in JAX.
"""

from __future__ import annotations

import collections
import operator

import numpy as np

from numlir._src import core, dtypes
from numlir._src.numpy import creation, cumulative, joining, reductions, reshaping, sorting, ufuncs
from numlir._src.numpy.logic import isin
from numlir._src.numpy.util import check_arraylike, dtype_of

UniqueAllResult = collections.namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _static_size(name: str, mask, size):
    """``size``, or the number of True entries of a concrete ``mask``."""
    if size is not None:
        if isinstance(size, core.Tracer):
            raise core.ConcretizationTypeError(f"{name}: size must be a static Python int")
        size = operator.index(size)
        if size < 0:
            raise ValueError(f"{name}: size must be non-negative, got {size}")
        return size
    if isinstance(mask, core.Tracer):
        raise core.ConcretizationTypeError(
            f"{name}: the size of the result depends on the values of the argument, which are not "
            f"known under jit/vmap/grad tracing; pass size= (and optionally fill_value=)")
    return int(np.count_nonzero(np.asarray(mask)))


def _true_positions(mask_flat, size: int):
    """The flat positions of the first ``size`` True entries (of the default integer dtype,
    as jax's indices are), and which slots hold one."""
    n = reshaping.size(mask_flat)
    idt = dtypes.default_int_dtype()
    ranks = cumulative.cumsum(mask_flat.astype(idt)) - 1
    target = ufuncs.where(mask_flat, ranks, idt.type(size))
    positions = creation.zeros((size,), idt).at[target].set(creation.arange(n, dtype=idt), mode="drop")
    filled = creation.arange(size, dtype=idt) < reductions.sum(mask_flat.astype(idt))
    return positions, filled


def nonzero(a, *, size: int | None = None, fill_value=None):
    """The indices of the nonzero elements, one integer array per dimension."""
    check_arraylike("nonzero", a)
    a = creation.asarray(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() "
                         "instead.")
    mask = ufuncs.not_equal(a, creation.zeros((), dtype_of(a)))
    size = _static_size("nonzero", mask, size)
    positions, filled = _true_positions(reshaping.ravel(mask), size)
    fills = fill_value if isinstance(fill_value, (tuple, list)) else (fill_value,) * a.ndim
    if len(fills) != a.ndim:
        raise ValueError(f"fill_value must be a scalar or a tuple of length {a.ndim}; got {fill_value}")
    coords, rest = [], positions
    idt = dtype_of(positions)
    for dim, fill in zip(reversed(a.shape), reversed(fills)):
        coord = rest % idt.type(max(dim, 1))
        rest = rest // idt.type(max(dim, 1))
        coords.append(coord if fill is None else ufuncs.where(filled, coord, creation.asarray(fill).astype(idt)))
    return tuple(reversed(coords))


def flatnonzero(a, *, size: int | None = None, fill_value=None):
    """The indices of the nonzero elements of the flattened ``a``."""
    return nonzero(reshaping.ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size: int | None = None, fill_value=None):
    """The indices of the nonzero elements as rows of an ``(n, a.ndim)`` array."""
    check_arraylike("argwhere", a)
    a = joining.atleast_1d(creation.asarray(a))
    return joining.stack(nonzero(a, size=size, fill_value=fill_value), axis=1)


def compress(condition, a, axis: int | None = None, *, size: int | None = None, fill_value=0, out=None):
    """The slices of ``a`` along ``axis`` where the 1-D ``condition`` is true."""
    check_arraylike("compress", condition, a)
    condition = reshaping.ravel(creation.asarray(condition)).astype(bool)
    a = creation.asarray(a)
    if axis is None:
        a, axis = reshaping.ravel(a), 0
    axis = axis % a.ndim
    n = a.shape[axis]
    if condition.shape[0] > n:
        condition = condition[:n]
    elif condition.shape[0] < n:
        a = joining.take(a, creation.arange(condition.shape[0], dtype=np.int32), axis=axis)
    size = _static_size("compress", condition, size)
    positions, filled = _true_positions(condition, size)
    taken = joining.take(a, positions, axis=axis)
    shape = [1] * taken.ndim
    shape[axis] = size
    return ufuncs.where(reshaping.reshape(filled, shape), taken,
                        creation.asarray(fill_value).astype(dtype_of(a)))


def extract(condition, arr, *, size: int | None = None, fill_value=0):
    """The elements of ``arr`` where ``condition`` is true, flattened."""
    return compress(reshaping.ravel(condition), reshaping.ravel(arr), size=size, fill_value=fill_value)


def unique_values(x, /, *, size: int | None = None, fill_value=None):
    """The sorted unique values (NaNs distinct), the Array API's name."""
    return sorting.unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size: int | None = None, fill_value=None):
    values, counts = sorting.unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /, *, size: int | None = None, fill_value=None):
    values, inverse = sorting.unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value)
    return UniqueInverseResult(values, reshaping.reshape(inverse, reshaping.shape(x)))


def unique_all(x, /, *, size: int | None = None, fill_value=None):
    values, indices, inverse, counts = sorting.unique(x, return_index=True, return_inverse=True,
                                                      return_counts=True, equal_nan=False, size=size,
                                                      fill_value=fill_value)
    return UniqueAllResult(values, indices, reshaping.reshape(inverse, reshaping.shape(x)), counts)


def _sorted_firsts(ar):
    """``ar`` flattened and sorted, and the mask of each value's first occurrence."""
    s = sorting.sort(reshaping.ravel(creation.asarray(ar)))
    if reshaping.size(s) == 0:
        return s, creation.zeros((0,), bool)
    first = joining.concatenate([creation.ones((1,), bool), ufuncs.not_equal(s[1:], s[:-1])])
    return s, first


def _select_sorted(name, values, keep, size, fill_value):
    size = _static_size(name, keep, size)
    if fill_value is None:
        fill_value = reductions.min(values) if reshaping.size(values) else 0
    return compress(keep, values, size=size, fill_value=fill_value)


def union1d(ar1, ar2, *, size: int | None = None, fill_value=None):
    """The sorted unique values found in either array."""
    check_arraylike("union1d", ar1, ar2)
    both = joining.concatenate([reshaping.ravel(creation.asarray(ar1)), reshaping.ravel(creation.asarray(ar2))])
    return sorting.unique(both, size=size, fill_value=fill_value)


def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *,
                size: int | None = None, fill_value=None):
    """The sorted unique values found in both arrays."""
    check_arraylike("intersect1d", ar1, ar2)
    if return_indices:
        raise NotImplementedError("intersect1d(return_indices=True) is not implemented yet")
    s, first = _sorted_firsts(ar1)
    return _select_sorted("intersect1d", s, first & isin(s, ar2), size, fill_value)


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None, fill_value=None):
    """The sorted unique values of ``ar1`` that are not in ``ar2``."""
    check_arraylike("setdiff1d", ar1, ar2)
    s, first = _sorted_firsts(ar1)
    return _select_sorted("setdiff1d", s, first & ~isin(s, ar2), size, fill_value)


def setxor1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None, fill_value=None):
    """The sorted unique values found in exactly one of the arrays."""
    check_arraylike("setxor1d", ar1, ar2)
    s1, first1 = _sorted_firsts(ar1)
    s2, first2 = _sorted_firsts(ar2)
    values = joining.concatenate([s1, s2.astype(dtype_of(s1))]) if reshaping.size(s2) else s1
    keep = joining.concatenate([first1 & ~isin(s1, s2), first2 & ~isin(s2, s1)])
    order = sorting.lexsort((values, ~keep))  # kept values first, each group sorted
    return _select_sorted("setxor1d", values[order], keep[order], size, fill_value)


def trim_zeros(filt, trim: str = "fb", axis=None):
    """``filt`` without its leading ("f") and/or trailing ("b") zeros (concrete input only)."""
    check_arraylike("trim_zeros", filt)
    if isinstance(filt, core.Tracer):
        raise core.ConcretizationTypeError("trim_zeros: the result size depends on the values; "
                                           "it needs a concrete (not traced) array")
    host = np.asarray(filt)
    if host.ndim != 1:
        raise TypeError(f"trim_zeros requires a 1-D array, got shape {host.shape}")
    nz = np.flatnonzero(host)
    start = nz[0] if "f" in trim.lower() and nz.size else (host.size if not nz.size else 0)
    stop = nz[-1] + 1 if "b" in trim.lower() and nz.size else host.size
    return creation.asarray(filt)[int(start):int(max(start, stop))]
