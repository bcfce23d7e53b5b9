"""Reductions of numlir.numpy: sum, prod, mean, max, min, all, any."""

from __future__ import annotations

import builtins

from numlir._src import core, dtypes
from numlir._src.array import as_array
from numlir._src.lax import elementwise as lax
from numlir._src.lax import reduction, shape_ops
from numlir._src.lax import type_checks as tc
from numlir._src.numpy.util import check_arraylike


def _keepdims(out, axes, keepdims: bool):
    return shape_ops.expand_dims(out, axes) if keepdims and axes else out


def _sum_dtype(dtype):
    """NumPy/JAX: bools and narrow ints accumulate in the default (u)int type."""
    if dtypes.is_bool(dtype) or (dtypes.is_signed_int(dtype) and dtype.itemsize < dtypes.default_int_dtype().itemsize):
        return dtypes.default_int_dtype()
    if dtypes.is_unsigned_int(dtype) and dtype.itemsize < dtypes.default_uint_dtype().itemsize:
        return dtypes.default_uint_dtype()
    return dtype


def _reduce(name, a, axis, keepdims, dtype, prim_fn, default_dtype=None):
    check_arraylike(name, a)
    aval = core.get_aval(a)
    axes = tc.canonical_axes(name, axis, aval.ndim)
    if dtype is None and default_dtype is not None:
        dtype = default_dtype(aval.dtype)
    if dtype is not None:
        a = lax.convert_element_type(a, dtypes.canonicalize_dtype(dtype), aval.weak_type)
    out = prim_fn(a, axes) if axes else as_array(a)
    return _keepdims(out, axes, keepdims)


def sum(a, axis=None, dtype=None, keepdims: bool = False):  # noqa: A001
    """Sum over ``axis`` (None: all; int or tuple; negative counts from the end)."""
    return _reduce("sum", a, axis, keepdims, dtype, reduction.reduce_sum, _sum_dtype)


def prod(a, axis=None, dtype=None, keepdims: bool = False):
    """Product over ``axis``."""
    return _reduce("prod", a, axis, keepdims, dtype, reduction.reduce_prod, _sum_dtype)


def _check_nonempty(name, a, axis):
    aval = core.get_aval(a)
    axes = tc.canonical_axes(name, axis, aval.ndim)
    if builtins.any(aval.shape[i] == 0 for i in axes):
        raise core.value_error(
            f"zero-size array to reduction operation {name} which has no identity "
            f"(shape {aval.shape}, axis {axis})"
        )


def max(a, axis=None, keepdims: bool = False):  # noqa: A001
    """Maximum over ``axis``."""
    check_arraylike("max", a)
    _check_nonempty("max", a, axis)
    fn = reduction.reduce_or if core.get_aval(a).dtype == dtypes.bool_ else reduction.reduce_max
    return _reduce("max", a, axis, keepdims, None, fn)


def min(a, axis=None, keepdims: bool = False):  # noqa: A001
    """Minimum over ``axis``."""
    check_arraylike("min", a)
    _check_nonempty("min", a, axis)
    fn = reduction.reduce_and if core.get_aval(a).dtype == dtypes.bool_ else reduction.reduce_min
    return _reduce("min", a, axis, keepdims, None, fn)


amax, amin = max, min


def all(a, axis=None, keepdims: bool = False):  # noqa: A001
    """True where all elements along ``axis`` are nonzero."""
    check_arraylike("all", a)
    return _reduce("all", lax.convert_element_type(a, dtypes.bool_), axis, keepdims, None, reduction.reduce_and)


def any(a, axis=None, keepdims: bool = False):  # noqa: A001
    """True where any element along ``axis`` is nonzero."""
    check_arraylike("any", a)
    return _reduce("any", lax.convert_element_type(a, dtypes.bool_), axis, keepdims, None, reduction.reduce_or)


def mean(a, axis=None, dtype=None, keepdims: bool = False):
    """Arithmetic mean over ``axis``; integer inputs give the default float dtype."""
    check_arraylike("mean", a)
    aval = core.get_aval(a)
    axes = tc.canonical_axes("mean", axis, aval.ndim)
    if dtype is None:
        dtype = aval.dtype if dtypes.is_float(aval.dtype) else dtypes.default_float_dtype()
    dtype = dtypes.canonicalize_dtype(dtype)
    count = 1
    for i in axes:
        count *= aval.shape[i]
    total = sum(a, axis=axes, dtype=dtype, keepdims=keepdims)
    return lax.div(total, lax.convert_element_type(count, dtype, True))


def var(a, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False):
    """Variance over ``axis``: ``mean(|a - mean(a)|**2)`` with ``ddof`` delta degrees of freedom."""
    check_arraylike("var", a)
    aval = core.get_aval(a)
    axes = tc.canonical_axes("var", axis, aval.ndim)
    if dtype is None:
        dtype = aval.dtype if dtypes.is_float(aval.dtype) else dtypes.default_float_dtype()
    a = lax.convert_element_type(a, dtypes.canonicalize_dtype(dtype), aval.weak_type)
    centered = lax.sub(a, mean(a, axis=axes, keepdims=True))
    count = 1
    for i in axes:
        count *= aval.shape[i]
    total = sum(lax.mul(centered, centered), axis=axes, keepdims=keepdims)
    return lax.div(total, lax.convert_element_type(count - ddof, core.get_aval(total).dtype, True))


def std(a, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False):
    """Standard deviation over ``axis``."""
    return lax.sqrt(var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))
