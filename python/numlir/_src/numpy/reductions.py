"""Reductions of numlir.numpy: sum, prod, mean, var, std, max, min, all, any; argmax and
argmin; the NaN-aware nansum/nanmean/nanmax/nanmin; count_nonzero, ptp and average.

Each takes ``where=`` (a mask broadcastable to the input: masked-out elements
don't take part) and, where NumPy has it, ``initial=`` (an extra element of
the reduction), as in jax.numpy.
"""

from __future__ import annotations

import builtins

import numpy as np

from numlir._src import core, dtypes
from numlir._src.array import as_array
from numlir._src.lax import elementwise as ew
from numlir._src.lax import reduction, shape_ops
from numlir._src.lax import type_checks as tc
from numlir._src.numpy import ufuncs
from numlir._src.numpy.ufuncs import where as select
from numlir._src.numpy.reshaping import broadcast_to
from numlir._src.numpy.util import broadcast_shapes, check_arraylike, dtype_of, promote_args_inexact


def _keepdims(out, axes, keepdims: bool):
    return shape_ops.expand_dims(out, axes) if keepdims and axes else out


def _bool_to_int(dtype):
    """``promote_integers=False``: only bools become the default int, as in jax."""
    return dtypes.default_int_dtype() if dtypes.is_bool(dtype) else dtype


def _sum_dtype(dtype):
    """NumPy/JAX: bools and narrow ints accumulate in the default (u)int type."""
    if dtypes.is_bool(dtype) or (dtypes.is_signed_int(dtype) and dtype.itemsize < dtypes.default_int_dtype().itemsize):
        return dtypes.default_int_dtype()
    if dtypes.is_unsigned_int(dtype) and dtype.itemsize < dtypes.default_uint_dtype().itemsize:
        return dtypes.default_uint_dtype()
    return dtype


def _identity(name, dtype):
    """The value a masked-out element contributes to reduction ``name``."""
    if name in ("sum", "any"):
        return 0
    if name in ("prod", "all"):
        return 1
    if dtypes.is_bool(dtype):
        return name == "min"
    if dtypes.is_inexact(dtype):  # complex: (-inf, 0) and (inf, 0), as jax
        return -float("inf") if name == "max" else float("inf")
    info = dtypes.iinfo(dtype)
    return int(info.min) if name == "max" else int(info.max)


def _masked(name, a, where):
    """``a`` with the elements outside ``where`` replaced by the identity."""

    aval = core.get_aval(a)
    check_arraylike(name, where)
    mask = ew.convert_element_type(where, dtypes.bool_)
    fill = ew.convert_element_type(_identity(name, aval.dtype), aval.dtype, True)
    shape = broadcast_shapes(name, aval.shape, core.get_aval(mask).shape)
    if shape != aval.shape:
        raise core.shape_error(
            f"{name}: where mask of shape {core.get_aval(mask).shape} does not broadcast "
            f"to the input shape {aval.shape}"
        )
    return select(mask, a, fill)


_COMBINE = {"sum": ew.add, "prod": ew.mul, "max": ew.max, "min": ew.min}


def _computation_dtype(dtype):
    """16-bit floats are reduced in float32 and rounded once at the end, as jax."""
    return dtypes.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype


def _reduce(name, a, axis, keepdims, dtype, prim_fn, default_dtype=None, where=None,
            initial=None):
    check_arraylike(name, a)
    aval = core.get_aval(a)
    axes = tc.canonical_axes(name, axis, aval.ndim)
    # jax widens only when the caller leaves the dtype to it.
    upcast = dtype is None and default_dtype is not None
    if dtype is None and default_dtype is not None:
        dtype = default_dtype(aval.dtype)
    result_dtype = aval.dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
    computation_dtype = _computation_dtype(result_dtype) if upcast else result_dtype
    if computation_dtype != aval.dtype:
        a = ew.convert_element_type(a, computation_dtype, aval.weak_type)
    if where is not None:
        a = _masked(name, a, where)
    out = prim_fn(a, axes) if axes else as_array(a)
    if initial is not None:
        out_aval = core.get_aval(out)
        # initial first, as jax: it decides between complex NaNs (max(a, b) is b when they
        # do not compare).
        out = _COMBINE[name](ew.convert_element_type(initial, out_aval.dtype, True), out)
    if computation_dtype != result_dtype:
        out = ew.convert_element_type(out, result_dtype, aval.weak_type)
    return _keepdims(out, axes, keepdims)


def sum(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None,  # noqa: A001
        where=None, promote_integers: bool = True):
    """Sum over ``axis`` (None: all; int or tuple; negative counts from the end); narrow
    integers sum in the default int type unless ``promote_integers=False`` (then they wrap
    in their own)."""
    _no_out("sum", out)
    return _reduce("sum", a, axis, keepdims, dtype, reduction.reduce_sum,
                   _sum_dtype if promote_integers else _bool_to_int, where, initial)


def prod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None,
         promote_integers: bool = True):
    """Product over ``axis`` (narrow integers as in ``sum``)."""
    _no_out("prod", out)
    return _reduce("prod", a, axis, keepdims, dtype, reduction.reduce_prod,
                   _sum_dtype if promote_integers else _bool_to_int, where, initial)


def _no_out(name, out):
    if out is not None:
        raise TypeError(f"{name}: numlir arrays are immutable, so out= is not supported "
                        "(use the return value; for in-place style updates see x.at[...])")


def _check_nonempty(name, a, axis, where=None, initial=None):
    aval = core.get_aval(a)
    axes = tc.canonical_axes(name, axis, aval.ndim)
    if where is not None and initial is None:
        raise core.value_error(
            f"reduction operation {name} does not have an identity, so to use a where mask "
            f"one has to specify 'initial'"
        )
    if initial is None and builtins.any(aval.shape[i] == 0 for i in axes):
        raise core.value_error(
            f"zero-size array to reduction operation {name} which has no identity "
            f"(shape {aval.shape}, axis {axis})"
        )


def max(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):  # noqa: A001
    """Maximum over ``axis``; with ``where``, ``initial`` is required (no identity)."""
    check_arraylike("max", a)
    _no_out("max", out)
    _check_nonempty("max", a, axis, where, initial)
    fn = reduction.reduce_or if core.get_aval(a).dtype == dtypes.bool_ else reduction.reduce_max
    return _reduce("max", a, axis, keepdims, None, fn, None, where, initial)


def min(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):  # noqa: A001
    """Minimum over ``axis``; with ``where``, ``initial`` is required (no identity)."""
    check_arraylike("min", a)
    _no_out("min", out)
    _check_nonempty("min", a, axis, where, initial)
    fn = reduction.reduce_and if core.get_aval(a).dtype == dtypes.bool_ else reduction.reduce_min
    return _reduce("min", a, axis, keepdims, None, fn, None, where, initial)


amax, amin = max, min


def all(a, axis=None, out=None, keepdims: bool = False, *, where=None):  # noqa: A001
    """True where all elements along ``axis`` are nonzero."""
    check_arraylike("all", a)
    _no_out("all", out)
    return _reduce("all", ew.convert_element_type(a, dtypes.bool_), axis, keepdims, None,
                   reduction.reduce_and, None, where)


def any(a, axis=None, out=None, keepdims: bool = False, *, where=None):  # noqa: A001
    """True where any element along ``axis`` is nonzero."""
    check_arraylike("any", a)
    _no_out("any", out)
    return _reduce("any", ew.convert_element_type(a, dtypes.bool_), axis, keepdims, None,
                   reduction.reduce_or, None, where)


def _count(axes, aval, where, keepdims, dtype):
    """How many elements each output averages over (an array when masked)."""
    if where is None:
        count = 1
        for i in axes:
            count *= aval.shape[i]
        return ew.convert_element_type(count, dtype, True)

    mask = broadcast_to(ew.convert_element_type(where, dtypes.bool_), aval.shape)
    return sum(mask, axis=axes, dtype=dtype, keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims: bool = False, *, where=None):
    """Arithmetic mean over ``axis``; integer inputs give a float of their width (as jax).

    Without ``dtype``, 16-bit floats are summed and divided in float32."""
    check_arraylike("mean", a)
    _no_out("mean", out)
    aval = core.get_aval(a)
    axes = tc.canonical_axes("mean", axis, aval.ndim)
    upcast = dtype is None
    if dtype is None:
        dtype = dtypes.to_inexact_dtype(aval.dtype)
    dtype = dtypes.canonicalize_dtype(dtype)
    computation_dtype = _computation_dtype(dtype) if upcast else dtype
    total = sum(a, axis=axes, dtype=computation_dtype, keepdims=keepdims, where=where)
    out = ew.div(total, _count(axes, aval, where, keepdims, computation_dtype))
    return ew.convert_element_type(out, dtype, aval.weak_type)


def _ddof(what: str, ddof, correction):
    """The delta degrees of freedom: ``correction`` (the array API's name) or ``ddof``."""
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError(f"{what}: ddof and correction can't be provided simultaneously "
                         "(correction is the array API's name for ddof)")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False, *,
        where=None, correction: int | float | None = None):
    """Variance over ``axis``: ``mean(|a - mean(a)|**2)`` with ``ddof`` (or ``correction``, the
    array API's name) delta degrees of freedom.

    16-bit floats are computed in float32; where no more than ``ddof`` elements
    remain the result is NaN, as in jax and the array API (NumPy gives inf when the sum of
    squares is not zero)."""
    check_arraylike("var", a)
    _no_out("var", out)
    ddof = _ddof("var", ddof, correction)
    aval = core.get_aval(a)
    axes = tc.canonical_axes("var", axis, aval.ndim)
    if dtypes.is_complex(aval.dtype):
        # As jax: computed in the complex dtype; the variance itself is real.
        computation_dtype = dtypes.canonicalize_dtype(aval.dtype)
        dtype = dtypes.complex_part_dtype(computation_dtype) if dtype is None else dtype
        dtype = dtypes.canonicalize_dtype(dtype)
    else:
        if dtype is None:
            dtype = dtypes.to_inexact_dtype(aval.dtype)
        dtype = dtypes.canonicalize_dtype(dtype)
        computation_dtype = _computation_dtype(dtype)
    a = ew.convert_element_type(a, computation_dtype, aval.weak_type)
    centered = ew.sub(a, mean(a, axis=axes, keepdims=True, where=where))
    if dtypes.is_complex(computation_dtype):
        centered = ew.abs(centered)
        computation_dtype = dtypes.complex_part_dtype(computation_dtype)
    total = sum(ew.mul(centered, centered), axis=axes, keepdims=keepdims, where=where)
    count = _count(axes, aval, where, keepdims, computation_dtype)
    normalizer = ew.sub(count, ew.convert_element_type(ddof, computation_dtype, True))
    result = ew.convert_element_type(ew.div(total, normalizer), dtype, aval.weak_type)

    zero = ew.convert_element_type(0, computation_dtype, True)
    nan = ew.convert_element_type(float("nan"), dtype, True)
    return select(ew.gt(normalizer, zero), result, nan)


def std(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False, *,
        where=None, correction: int | float | None = None):
    """Standard deviation over ``axis`` (``correction`` is the array API's name for ``ddof``)."""
    _no_out("std", out)
    ddof = _ddof("std", ddof, correction)
    return ew.sqrt(var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where))


# --- argmin / argmax ---------------------------------------------------------------------


def _arg(name, a, axis, keepdims, fn):
    check_arraylike(name, a)
    aval = core.get_aval(a)
    if axis is None:
        a = shape_ops.reshape(a, (aval.size,))
        out = fn(a, 0, dtypes.default_int_dtype())
        return shape_ops.reshape(out, (1,) * aval.ndim) if keepdims else out
    axis = tc.canonical_axis(name, axis, aval.ndim)
    out = fn(a, axis, dtypes.default_int_dtype())
    return shape_ops.expand_dims(out, (axis,)) if keepdims else out


def argmax(a, axis=None, out=None, keepdims: bool = False):
    """Index of the maximum (first occurrence; NaN wins) over ``axis`` (None: flattened)."""
    return _arg("argmax", a, axis, keepdims, reduction.argmax)


def argmin(a, axis=None, out=None, keepdims: bool = False):
    """Index of the minimum (first occurrence; NaN wins) over ``axis`` (None: flattened)."""
    return _arg("argmin", a, axis, keepdims, reduction.argmin)


# --- NaN-aware and other reductions -------------------------------------------------------------------


def _is_float(a):
    return dtypes.is_inexact(dtype_of(a))


def nansum(a, axis=None, dtype=None, keepdims: bool = False):
    """Sum treating NaN as 0."""
    check_arraylike("nansum", a)
    if _is_float(a):
        a = ufuncs.where(ufuncs.isnan(a), 0, a)
    return sum(a, axis=axis, dtype=dtype, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, keepdims: bool = False):
    """Mean over the non-NaN elements (NaN where there are none)."""
    check_arraylike("nanmean", a)
    if not _is_float(a):
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    valid = ufuncs.logical_not(ufuncs.isnan(a))
    total = nansum(a, axis=axis, dtype=dtype, keepdims=keepdims)
    count = sum(valid, axis=axis, keepdims=keepdims)
    return ufuncs.true_divide(total, count.astype(dtype_of(total)))


def _nan_extreme(name, a, axis, keepdims, fill, fn):
    check_arraylike(name, a)
    if not _is_float(a):
        return fn(a, axis=axis, keepdims=keepdims)
    nan = ufuncs.isnan(a)
    out = fn(ufuncs.where(nan, fill, a), axis=axis, keepdims=keepdims)
    all_nan = all(nan, axis=axis, keepdims=keepdims)
    return ufuncs.where(all_nan, np.nan, out).astype(dtype_of(a))


def nanmax(a, axis=None, keepdims: bool = False):
    """Maximum ignoring NaN (NaN where all are NaN)."""
    return _nan_extreme("nanmax", a, axis, keepdims, -np.inf, max)


def nanmin(a, axis=None, keepdims: bool = False):
    """Minimum ignoring NaN (NaN where all are NaN)."""
    return _nan_extreme("nanmin", a, axis, keepdims, np.inf, min)


def count_nonzero(a, axis=None, keepdims: bool = False):
    """Number of non-zero elements over ``axis``."""
    check_arraylike("count_nonzero", a)
    return sum(
        ufuncs.not_equal(a, 0), axis=axis, keepdims=keepdims, dtype=dtypes.default_int_dtype()
    )


def ptp(a, axis=None, keepdims: bool = False):
    """Range ``max - min`` over ``axis``."""
    return ufuncs.subtract(
        max(a, axis=axis, keepdims=keepdims),
        min(a, axis=axis, keepdims=keepdims),
    )


def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
    """Weighted mean over ``axis``; ``returned`` also gives the sum of weights."""
    check_arraylike("average", a)
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        aval = core.get_aval(a)
        axes = tc.canonical_axes("average", axis, aval.ndim)
        count = int(np.prod([aval.shape[i] for i in axes])) if axes else 1
        return avg, ufuncs.add(ufuncs.multiply(avg, 0), count)
    a, weights = promote_args_inexact("average", a, weights)
    a_aval, w_aval = core.get_aval(a), core.get_aval(weights)
    if a_aval.shape != w_aval.shape:
        if axis is None or w_aval.ndim != 1:
            raise ValueError(
                "average: 1D weights need an axis; otherwise weights must match a's shape"
            )
        axis = tc.canonical_axis("average", axis, a_aval.ndim)
        shape = [1] * a_aval.ndim
        shape[axis] = w_aval.shape[0]
        weights = shape_ops.reshape(weights, tuple(shape))
    # weights + 0 * a broadcasts the weights to a's shape.
    total_weight = sum(
        ufuncs.add(weights, ufuncs.multiply(a, 0)), axis=axis, keepdims=keepdims
    )
    avg = ufuncs.true_divide(
        sum(ufuncs.multiply(a, weights), axis=axis, keepdims=keepdims), total_weight
    )
    return (avg, total_weight) if returned else avg
