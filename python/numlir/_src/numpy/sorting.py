"""numpy sorting: sort and argsort (stable, jax's NaN-last order), built on lax.sort."""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops, slicing
from numlir._src.lax import sorting as lax_sorting
from numlir._src.lax import type_checks as tc
from numlir._src.lax.scan import fori_loop
from numlir._src.numpy import creation, cumulative, joining, reductions, reshaping, ufuncs
from numlir._src.numpy.util import check_arraylike, promote_dtypes, promote_dtypes_inexact


def _prepare(a, axis, what):
    a = creation.asarray(a)
    if axis is None:
        return reshaping.ravel(a), 0
    aval = core.get_aval(a)
    if aval.ndim == 0:
        raise core.value_error(f"jnp.{what}: axis {axis} is out of bounds for a 0-d array")
    return a, tc.canonical_axis(f"jnp.{what}", axis, aval.ndim)


def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
         descending: bool = False):
    """A sorted copy of ``a`` along ``axis`` (flattened when ``axis`` is None); NaNs last.

    Example::

        jnp.sort(jnp.array([3, 1, 2]))  # [1, 2, 3]
    """
    if order is not None:
        raise NotImplementedError("jnp.sort: 'order' is not supported")
    a, axis = _prepare(a, axis, "sort")
    result = lax_sorting.sort(a, dimension=axis)
    if descending:  # jax reverses the ascending sort

        result = slicing.rev(result, (axis,))
    return result


def sort_complex(a):
    """``a`` sorted along its last axis, lexicographically by real then imaginary part, as a
    complex array (a real ``a`` becomes complex), as ``jnp.sort_complex``."""
    a, axis = _prepare(a, -1, "sort_complex")
    result = lax_sorting.sort(a, dimension=axis)
    return ew.convert_element_type(result, dtypes.complex_dtype_of(core.get_aval(result).dtype))


def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False):
    """The indices that sort ``a`` along ``axis``; equal elements keep their order.

    Example::

        jnp.argsort(jnp.array([3, 1, 2]))  # [1, 2, 0]
    """

    if order is not None:
        raise NotImplementedError("jnp.argsort: 'order' is not supported")
    a, axis = _prepare(a, axis, "argsort")
    # jax's default int: int64 under x64.
    iota = shape_ops.broadcasted_iota(dtypes.default_int_dtype(), core.get_aval(a).shape, axis)
    keys = lax_sorting.descending_keys(a) if descending else [a]
    return lax_sorting.sort((*keys, iota), dimension=axis, num_keys=len(keys))[-1]


# --- searchsorted -------------------------------------------------------------------------------


def _nan_last_lt(x, y):
    """``x < y`` in sort order: NaNs after every number, ``-0.0 == 0.0``."""
    if not dtypes.issubdtype(core.get_aval(x).dtype, np.inexact):
        return ufuncs.less(x, y)
    return ufuncs.less(x, y) | (ufuncs.isnan(y) & ~ufuncs.isnan(x))


def _index_dtype(n: int):
    return np.dtype(np.int32) if n <= np.iinfo(np.int32).max else np.dtype(np.int64)


def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
    """Indices where ``v`` would be inserted into the sorted 1-D ``a`` to keep it sorted.

    ``side="left"`` gives the first such index, ``"right"`` the last; NaNs count as larger
    than every number (as ``jnp.sort`` orders them). ``method`` is ``"scan"`` (binary search,
    O(m log n)), ``"scan_unrolled"`` (the same, unrolled), ``"compare_all"`` (O(m n)) or
    ``"sort"`` (answered by the binary search).

    Example::

        jnp.searchsorted(jnp.array([1., 2., 2., 3.]), jnp.array([2., 5.]))  # [1, 4]
    """

    check_arraylike("searchsorted", a, v)
    if side not in ("left", "right"):
        raise core.value_error(f"jnp.searchsorted: side must be 'left' or 'right', got {side!r}")
    if method not in ("scan", "scan_unrolled", "compare_all", "sort"):
        raise core.value_error(f"jnp.searchsorted: unsupported method {method!r}")
    a, v = creation.asarray(a), creation.asarray(v)
    if a.ndim != 1:
        raise core.value_error(f"jnp.searchsorted: a should be 1-dimensional, got shape {a.shape}")
    a, v = promote_dtypes(a, v)
    if sorter is not None:
        a = joining.take(a, sorter)
    n = a.shape[0]
    dtype = _index_dtype(n)
    if n == 0 or v.size == 0:
        return creation.zeros(v.shape, dtype)
    # left: count a[i] < v; right: count a[i] <= v, i.e. not v < a[i].
    before = ((lambda ai, q: _nan_last_lt(ai, q)) if side == "left"
              else (lambda ai, q: ~_nan_last_lt(q, ai)))
    if method == "compare_all":
        hits = before(reshaping.reshape(a, (n,) + (1,) * v.ndim), v)
        return reductions.sum(hits, axis=0, dtype=dtype)

    def step(lo, hi):  # lower bound of the first i with not before(a[i], v), in [lo, hi]
        active = lo < hi
        mid = lo + (hi - lo) // 2
        go_right = before(joining.take(a, mid, mode="clip"), v) & active
        return ufuncs.where(go_right, mid + 1, lo), ufuncs.where(go_right | ~active, hi, mid)

    lo, hi = creation.zeros(v.shape, dtype), creation.full(v.shape, n, dtype)
    levels = int(np.ceil(np.log2(n + 1)))
    if method == "scan_unrolled":
        for _ in range(levels):
            lo, hi = step(lo, hi)
    else:

        lo, hi = fori_loop(0, levels, lambda _, c: step(*c), (lo, hi))
    return lo


# --- lexsort, msort, partition ----------------------------------------------------------------


def lexsort(keys, axis: int = -1):
    """Indices sorting by several keys; the *last* key is the primary one (stable, NaNs last).

    Example::

        jnp.lexsort([jnp.array([1, 0, 1]), jnp.array([0, 0, -1])])  # [2, 1, 0]
    """

    keys = [creation.asarray(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({k.shape for k in keys}) > 1:
        raise core.value_error("jnp.lexsort: all keys need to be the same shape")
    shape = keys[0].shape
    if not shape:
        return creation.zeros((), dtypes.default_int_dtype())
    axis = tc.canonical_axis("jnp.lexsort", axis, len(shape))
    idx_dtype = _index_dtype(shape[axis])
    if idx_dtype == np.int32:
        idx_dtype = dtypes.default_int_dtype()
    iota = shape_ops.broadcasted_iota(idx_dtype, shape, axis)
    return lax_sorting.sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


def msort(a):
    """``jnp.sort(a, axis=0)``."""
    return sort(a, axis=0)


def _ascending_nan_first_order(x):
    """Stable ascending argsort of ``x`` along its last axis, NaNs first (as jax partitions)."""

    iota = shape_ops.broadcasted_iota(np.int32, x.shape, x.ndim - 1)
    keys = [~ufuncs.isnan(x), x] if dtypes.issubdtype(x.dtype, np.inexact) else [x]
    return lax_sorting.sort((*keys, iota), dimension=x.ndim - 1, num_keys=len(keys))[-1]


def _partition_prepare(name, a, kth, axis):
    a = creation.asarray(a)
    if a.ndim == 0:
        raise core.value_error(f"jnp.{name}: a must have at least one dimension")
    axis = tc.canonical_axis(f"jnp.{name}", axis, a.ndim)
    n = a.shape[axis]
    kth = tc.canonical_axis(f"jnp.{name}", kth, n)
    return reshaping.swapaxes(a, axis, -1), kth, axis, n


def partition(a, kth: int, axis: int = -1):
    """A copy of ``a`` with the ``kth`` smallest value at index ``kth`` along ``axis``: smaller
    values (ascending) before it, larger values (descending) after it, as jax orders them.

    Example::

        jnp.partition(jnp.array([5, 1, 4, 2, 3]), 1)  # [1, 2, 5, 4, 3]
    """
    x, kth, axis, n = _partition_prepare("partition", a, kth, axis)
    bottom = joining.take_along_axis(x, _ascending_nan_first_order(x)[..., :kth + 1], axis=-1)
    top = lax_sorting.top_k(x, n - kth - 1)[0]
    return reshaping.swapaxes(joining.concatenate([bottom, top], axis=-1), axis, -1)


def argpartition(a, kth: int, axis: int = -1):
    """Indices that partition ``a`` at ``kth`` (see :func:`partition`); the indices after
    ``kth`` are in increasing order.

    Example::

        jnp.argpartition(jnp.array([5, 1, 4, 2, 3]), 1)  # [1, 3, 0, 2, 4]
    """

    x, kth, axis, n = _partition_prepare("argpartition", a, kth, axis)
    order = _ascending_nan_first_order(x)
    iota = shape_ops.broadcasted_iota(np.int32, x.shape, x.ndim - 1)
    rank = lax_sorting.sort((order, iota), dimension=x.ndim - 1, num_keys=1)[1]
    rest = lax_sorting.sort((rank <= kth, iota), dimension=x.ndim - 1, num_keys=1)[1]
    out = joining.concatenate([order[..., :kth + 1], rest[..., :n - kth - 1]], axis=-1)
    return reshaping.swapaxes(out, axis, -1)


# --- quantiles --------------------------------------------------------------------------------

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _reduce_to_last_axis(name, a, axis, keepdims):
    """``a`` with the reduced axes merged into its last axis, and the kept-dims output shape."""
    if axis is None:
        return reshaping.ravel(a), (1,) * a.ndim if keepdims else ()
    axes = tc.canonical_axes(f"jnp.{name}", axis, a.ndim)
    kept = [d for d in range(a.ndim) if d not in axes]
    x = reshaping.transpose(a, kept + list(axes))
    batch = tuple(a.shape[d] for d in kept)
    x = reshaping.reshape(x, batch + (int(np.prod([a.shape[d] for d in axes], dtype=np.int64)),))
    out = tuple(1 if d in axes else a.shape[d] for d in range(a.ndim)) if keepdims else batch
    return x, out


def _quantile(name, a, q, axis, method, keepdims, ignore_nan):
    check_arraylike(name, a, q)
    if method not in _QUANTILE_METHODS:
        raise core.value_error(f"jnp.{name}: method must be one of {_QUANTILE_METHODS}, "
                               f"got {method!r}")
    a, (q,) = creation.asarray(a), promote_dtypes_inexact(creation.asarray(q))
    if dtypes.is_complex(a.dtype) or dtypes.is_complex(q.dtype):
        raise core.value_error(f"jnp.{name} does not support complex input, as the operation is "
                               "poorly defined.")
    if not dtypes.issubdtype(a.dtype, np.inexact):  # as jax: 64-bit ints -> f64, narrower -> f32
        a = a.astype(np.float64 if a.dtype.itemsize == 8 else np.float32)
    if q.ndim > 1:
        raise core.value_error(f"jnp.{name}: q must have rank <= 1, got shape {q.shape}")
    x, out_shape = _reduce_to_last_axis(name, a, axis, keepdims)
    n = x.shape[-1]
    nan = ufuncs.isnan(x)
    if ignore_nan:
        count = reductions.sum(~nan, axis=-1, keepdims=True).astype(q.dtype)
    else:  # one NaN makes the whole slice NaN
        x = ufuncs.where(reductions.any(nan, axis=-1, keepdims=True), creation.asarray(np.nan, x.dtype), x)
        count = creation.full(x.shape[:-1] + (1,), n, q.dtype)
    x = sort(x, axis=-1)
    pos = reshaping.reshape(q, (1,) * (x.ndim - 1) + (q.size,)) * (count - 1)  # batch..., Q
    low, high = ufuncs.floor(pos), ufuncs.ceil(pos)
    frac = pos - low
    last = ufuncs.maximum(count - 1, 0)
    low = ufuncs.clip(low, 0, last).astype(np.int32)
    high = ufuncs.clip(high, 0, last).astype(np.int32)
    low_v = joining.take_along_axis(x, low, axis=-1)
    high_v = joining.take_along_axis(x, high, axis=-1)
    if method == "linear":
        result = low_v.astype(q.dtype) * (1 - frac) + high_v.astype(q.dtype) * frac
    elif method == "lower":
        result = low_v
    elif method == "higher":
        result = high_v
    elif method == "midpoint":
        result = (low_v + high_v) * creation.asarray(0.5, low_v.dtype)
    else:
        result = ufuncs.where(frac <= 0.5, low_v, high_v)
    if ignore_nan and dtypes.is_inexact(result.dtype):
        # an all-NaN slice's quantile is a NaN constant: no element gets a gradient (as jax)
        result = ufuncs.where(count == 0, creation.asarray(np.nan, result.dtype), result)
    result = reshaping.reshape(_last_to_front(result), q.shape + out_shape)
    return result.astype(a.dtype)


def _last_to_front(x):
    return reshaping.transpose(x, (x.ndim - 1,) + tuple(range(x.ndim - 1)))


def quantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False):
    """The ``q``-th quantiles (``0 <= q <= 1``, scalar or 1-D) of ``a`` over ``axis``; a NaN in a
    slice makes its quantile NaN. ``q``'s axis comes first in the result.

    Example::

        jnp.quantile(jnp.array([1., 2., 3., 4.]), 0.5)  # 2.5
    """
    if out is not None or overwrite_input:
        raise core.value_error("jnp.quantile does not support overwrite_input=True or out != None")
    return _quantile("quantile", a, q, axis, method, keepdims, ignore_nan=False)


def nanquantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False):
    """:func:`quantile` ignoring NaNs (NaN only where a slice is all NaN).

    Example::

        jnp.nanquantile(jnp.array([1., jnp.nan, 3.]), 0.5)  # 2.0
    """
    if out is not None or overwrite_input:
        raise core.value_error("jnp.nanquantile does not support overwrite_input=True or "
                               "out != None")
    return _quantile("nanquantile", a, q, axis, method, keepdims, ignore_nan=True)


def _percent(q):
    (q,) = promote_dtypes_inexact(creation.asarray(q))
    return q / 100


def percentile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False):
    """:func:`quantile` with ``q`` in percent (0..100).

    Example::

        jnp.percentile(jnp.array([1., 2., 3., 4., 5.]), 25)  # 2.0
    """
    return quantile(a, _percent(q), axis, out, overwrite_input, method, keepdims)


def nanpercentile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False):
    """:func:`nanquantile` with ``q`` in percent (0..100)."""
    return nanquantile(a, _percent(q), axis, out, overwrite_input, method, keepdims)


def median(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
    """The median over ``axis`` (the midpoint of the two middle values for even sizes).

    Example::

        jnp.median(jnp.array([3., 1., 4., 2.]))  # 2.5
    """
    return quantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def nanmedian(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
    """:func:`median` ignoring NaNs."""
    return nanquantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


# --- unique -----------------------------------------------------------------------------------

_UNIQUE_SIZE_HINT = ("To make jnp.unique() compatible with JIT and other transforms, you can "
                     "specify a concrete value for the size argument, which will determine the "
                     "output size.")


def _true_indices(mask, size: int, fill: int):
    """The first ``size`` indices where the 1-D ``mask`` is True, padded with ``fill``."""

    n = mask.shape[0]
    iota = shape_ops.broadcasted_iota(dtypes.default_int_dtype(), (n,), 0)
    idx = lax_sorting.sort((~mask, iota), num_keys=1)[1][:size]  # Trues first, in order
    if size > n:
        idx = joining.concatenate([idx, creation.zeros((size - n,), idx.dtype)])
    valid = creation.arange(size) < reductions.sum(mask)
    return ufuncs.where(valid, idx, creation.asarray(fill, idx.dtype))


def _sorted_with_boundaries(aux, equal_nan: bool):
    """``aux`` (unique along axis 0) sorted by rows, the permutation, and where new values start."""

    n = aux.shape[0]
    rows = reshaping.reshape(aux, (n, -1))
    iota = shape_ops.broadcasted_iota(dtypes.default_int_dtype(), (n,), 0)
    cols = [rows[:, j] for j in range(rows.shape[1])]
    perm = lax_sorting.sort((*cols, iota), num_keys=len(cols))[-1]
    rows = joining.take(rows, perm, axis=0)
    differs = rows[1:] != rows[:-1]
    if equal_nan and dtypes.issubdtype(rows.dtype, np.inexact):
        differs = differs & ~(ufuncs.isnan(rows[1:]) & ufuncs.isnan(rows[:-1]))
    first = joining.concatenate([creation.ones((1,), bool), reductions.any(differs, axis=1)])
    return joining.take(aux, perm, axis=0), perm, first


def unique(ar, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value=None, sorted: bool = True):  # noqa: A002
    """The sorted unique values of ``ar`` (flattened, or sub-arrays along ``axis``), optionally
    with the first index of each, the inverse mapping and the counts.

    The result size depends on the data, so under jit ``size`` must be given: the output then
    has exactly ``size`` entries, padded with ``fill_value`` (default: the smallest unique value;
    padded indices and counts use index 0 and count 0).

    Example::

        jnp.unique(jnp.array([3, 1, 3, 2]))  # [1, 2, 3]
        f = numlir.jit(lambda x: jnp.unique(x, size=4, fill_value=0))
        f(jnp.array([3, 1, 3, 2]))  # [1, 2, 3, 0]
    """

    check_arraylike("unique", ar)
    if size is None and isinstance(ar, core.Tracer):
        raise core.ConcretizationTypeError(core._with_location(
            f"Abstract tracer value encountered where concrete value is expected: traced array "
            f"with shape {ar.aval.str_short()}.\nThe error arose for the first argument of "
            f"jnp.unique(). {_UNIQUE_SIZE_HINT}"))
    if size is not None:
        if isinstance(size, core.Tracer):
            raise core.ConcretizationTypeError(core._with_location(
                f"The error arose for the size argument of jnp.unique(). {_UNIQUE_SIZE_HINT}"))
        size = int(size)
    ar = creation.asarray(ar)
    shape, flat = ar.shape, axis is None
    if flat:
        ar, axis = reshaping.ravel(ar), 0
    else:
        axis = tc.canonical_axis("jnp.unique", axis, ar.ndim)
    n = ar.shape[axis]
    if n == 0 and size and fill_value is None:
        raise core.value_error("jnp.unique: for zero-sized input with nonzero size argument, "
                               "fill_value must be specified")
    aux = reshaping.swapaxes(ar, 0, axis) if axis else ar
    int_dtype = dtypes.default_int_dtype()
    if aux.size == 0:
        values = aux if not size else creation.full((size,) + aux.shape[1:], fill_value, aux.dtype)
        rets = [reshaping.swapaxes(values, 0, axis) if axis else values]
        empty = creation.zeros((0,), int_dtype)
        if return_index:
            rets.append(empty)
        if return_inverse:
            rets.append(creation.zeros(shape if flat else (n,), int_dtype))
        if return_counts:
            rets.append(creation.full((1,), n, int_dtype) if n else empty)
        return rets[0] if len(rets) == 1 else tuple(rets)

    aux, perm, first = _sorted_with_boundaries(aux, equal_nan)
    num_unique = reductions.sum(first)
    if size is None:
        size = int(num_unique)  # eager: the input is concrete
    ind = _true_indices(first, size, 0)
    values = joining.take(aux, ind, axis=0)
    if fill_value is not None:
        valid = reshaping.reshape(creation.arange(size) < num_unique, (size,) + (1,) * (aux.ndim - 1))
        values = ufuncs.where(valid, values, creation.asarray(fill_value).astype(values.dtype))
    rets = [reshaping.swapaxes(values, 0, axis) if axis else values]
    if return_index:
        rets.append(joining.take(perm, ind))
    if return_inverse:
        group = cumulative.cumsum(first).astype(int_dtype) - 1
        inverse = joining.take(group, argsort(perm))
        rets.append(reshaping.reshape(inverse, shape) if flat else inverse)
    if return_counts:
        starts = _true_indices(first, size + 1, n)
        rets.append(starts[1:] - starts[:-1])
    return rets[0] if len(rets) == 1 else tuple(rets)
