"""Reductions of numlir.numpy: sum, prod, mean, var, std, max, min, all, any.

Each takes ``where=`` (a mask broadcastable to the input: masked-out elements
don't take part) and, where NumPy has it, ``initial=`` (an extra element of
the reduction), as in jax.numpy.
"""

from __future__ import annotations

import builtins

from numlir._src import core, dtypes
from numlir._src.array import as_array
from numlir._src.lax import elementwise as lax
from numlir._src.lax import reduction, shape_ops
from numlir._src.lax import type_checks as tc
from numlir._src.numpy.util import broadcast_shapes, check_arraylike


def _keepdims(out, axes, keepdims: bool):
    return shape_ops.expand_dims(out, axes) if keepdims and axes else out


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
    if dtypes.is_float(dtype):
        return -float("inf") if name == "max" else float("inf")
    info = dtypes.iinfo(dtype)
    return int(info.min) if name == "max" else int(info.max)


def _masked(name, a, where):
    """``a`` with the elements outside ``where`` replaced by the identity."""
    from numlir._src.numpy.ufuncs import where as select

    aval = core.get_aval(a)
    check_arraylike(name, where)
    mask = lax.convert_element_type(where, dtypes.bool_)
    fill = lax.convert_element_type(_identity(name, aval.dtype), aval.dtype, True)
    shape = broadcast_shapes(name, aval.shape, core.get_aval(mask).shape)
    if shape != aval.shape:
        raise core.shape_error(
            f"{name}: where mask of shape {core.get_aval(mask).shape} does not broadcast "
            f"to the input shape {aval.shape}"
        )
    return select(mask, a, fill)


_COMBINE = {"sum": lax.add, "prod": lax.mul, "max": lax.max, "min": lax.min}


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
        a = lax.convert_element_type(a, computation_dtype, aval.weak_type)
    if where is not None:
        a = _masked(name, a, where)
    out = prim_fn(a, axes) if axes else as_array(a)
    if initial is not None:
        out_aval = core.get_aval(out)
        out = _COMBINE[name](out, lax.convert_element_type(initial, out_aval.dtype, True))
    if computation_dtype != result_dtype:
        out = lax.convert_element_type(out, result_dtype, aval.weak_type)
    return _keepdims(out, axes, keepdims)


def sum(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None,  # noqa: A001
        where=None):
    """Sum over ``axis`` (None: all; int or tuple; negative counts from the end)."""
    _no_out("sum", out)
    return _reduce("sum", a, axis, keepdims, dtype, reduction.reduce_sum, _sum_dtype, where,
                   initial)


def prod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Product over ``axis``."""
    _no_out("prod", out)
    return _reduce("prod", a, axis, keepdims, dtype, reduction.reduce_prod, _sum_dtype, where,
                   initial)


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
    return _reduce("all", lax.convert_element_type(a, dtypes.bool_), axis, keepdims, None,
                   reduction.reduce_and, None, where)


def any(a, axis=None, out=None, keepdims: bool = False, *, where=None):  # noqa: A001
    """True where any element along ``axis`` is nonzero."""
    check_arraylike("any", a)
    _no_out("any", out)
    return _reduce("any", lax.convert_element_type(a, dtypes.bool_), axis, keepdims, None,
                   reduction.reduce_or, None, where)


def _count(axes, aval, where, keepdims, dtype):
    """How many elements each output averages over (an array when masked)."""
    if where is None:
        count = 1
        for i in axes:
            count *= aval.shape[i]
        return lax.convert_element_type(count, dtype, True)
    from numlir._src.numpy.array_api import broadcast_to

    mask = broadcast_to(lax.convert_element_type(where, dtypes.bool_), aval.shape)
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
    out = lax.div(total, _count(axes, aval, where, keepdims, computation_dtype))
    return lax.convert_element_type(out, dtype, aval.weak_type)


def var(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False, *,
        where=None):
    """Variance over ``axis``: ``mean(|a - mean(a)|**2)`` with ``ddof`` delta degrees of freedom.

    16-bit floats are computed in float32; where fewer than ``ddof`` elements
    remain the result is NaN, as in jax."""
    check_arraylike("var", a)
    _no_out("var", out)
    aval = core.get_aval(a)
    axes = tc.canonical_axes("var", axis, aval.ndim)
    if dtype is None:
        dtype = dtypes.to_inexact_dtype(aval.dtype)
    dtype = dtypes.canonicalize_dtype(dtype)
    computation_dtype = _computation_dtype(dtype)
    a = lax.convert_element_type(a, computation_dtype, aval.weak_type)
    centered = lax.sub(a, mean(a, axis=axes, keepdims=True, where=where))
    total = sum(lax.mul(centered, centered), axis=axes, keepdims=keepdims, where=where)
    count = _count(axes, aval, where, keepdims, computation_dtype)
    normalizer = lax.sub(count, lax.convert_element_type(ddof, computation_dtype, True))
    result = lax.convert_element_type(lax.div(total, normalizer), dtype, aval.weak_type)
    from numlir._src.numpy.ufuncs import where as select

    zero = lax.convert_element_type(0, computation_dtype, True)
    nan = lax.convert_element_type(float("nan"), dtype, True)
    return select(lax.gt(normalizer, zero), result, nan)


def std(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False, *,
        where=None):
    """Standard deviation over ``axis``."""
    _no_out("std", out)
    return lax.sqrt(var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where))
