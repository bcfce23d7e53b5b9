"""More numlir.numpy functions: exp/log family, trig, rounding, bit shifts, arg and NaN reductions.

NumPy names with JAX semantics (promotion, NaN handling)::

    >>> import numlir.numpy as jnp
    >>> jnp.argmax(jnp.array([1.0, 3.0, jnp.nan, 3.0]))
    Array(2, dtype=int32)
"""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import elementwise as lax
from numlir._src.lax import bits, float_math, reduction
from numlir._src.lax import shape_ops
from numlir._src.lax import type_checks as tc
from numlir._src.numpy import reductions, ufuncs
from numlir._src.numpy.ufuncs import _binary, _float_or_identity, _unary
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_args_inexact

# --- Unary float math -----------------------------------------------------------------------

log1p = _unary("log1p", float_math.log1p, inexact=True)
expm1 = _unary("expm1", float_math.expm1, inexact=True)
tan = _unary("tan", float_math.tan, inexact=True)
arcsin = _unary("arcsin", float_math.asin, inexact=True)
arccos = _unary("arccos", float_math.acos, inexact=True)
arctan = _unary("arctan", float_math.atan, inexact=True)
sinh = _unary("sinh", float_math.sinh, inexact=True)
cosh = _unary("cosh", float_math.cosh, inexact=True)
arcsinh = _unary("arcsinh", float_math.asinh, inexact=True)
arccosh = _unary("arccosh", float_math.acosh, inexact=True)
arctanh = _unary("arctanh", float_math.atanh, inexact=True)
cbrt = _unary("cbrt", float_math.cbrt, inexact=True)
asin, acos, atan, asinh, acosh, atanh = arcsin, arccos, arctan, arcsinh, arccosh, arctanh

_LN2 = 0.6931471805599453
_LN10 = 2.302585092994046


def exp2(x, /):
    """Elementwise ``2 ** x``."""
    (x,) = promote_args_inexact("exp2", x)
    return lax.exp(lax.mul(x, lax.convert_element_type(_LN2, dtype_of(x), weak_type=True)))


def log2(x, /):
    """Elementwise base-2 logarithm."""
    (x,) = promote_args_inexact("log2", x)
    return lax.div(lax.log(x), lax.convert_element_type(_LN2, dtype_of(x), weak_type=True))


def log10(x, /):
    """Elementwise base-10 logarithm."""
    (x,) = promote_args_inexact("log10", x)
    return lax.div(lax.log(x), lax.convert_element_type(_LN10, dtype_of(x), weak_type=True))


def deg2rad(x, /):
    """Degrees to radians."""
    (x,) = promote_args_inexact("deg2rad", x)
    return x * (np.pi / 180)


def rad2deg(x, /):
    """Radians to degrees."""
    (x,) = promote_args_inexact("rad2deg", x)
    return x * (180 / np.pi)


radians, degrees = deg2rad, rad2deg

# --- Rounding -------------------------------------------------------------------------------

rint = _unary(
    "rint", lambda x: float_math.round(x, float_math.RoundingMethod.TO_NEAREST_EVEN), inexact=True
)


def _trunc(x):
    return lax.select(
        lax.lt(x, lax.convert_element_type(0, dtype_of(x), weak_type=True)),
        lax.ceil(x),
        lax.floor(x),
    )


trunc = _float_or_identity("trunc", _trunc)
fix = _float_or_identity("fix", _trunc)


def round(a, decimals: int = 0):
    """Round to ``decimals`` decimal places, ties to even (NumPy's ``around``)."""
    check_arraylike("round", a)
    if not dtypes.is_float(dtype_of(a)):
        if decimals >= 0:
            return ufuncs.positive(a)
        factor = 10 ** (-decimals)
        return ufuncs.multiply(ufuncs.floor_divide(ufuncs.add(a, factor // 2), factor), factor)
    if decimals == 0:
        return rint(a)
    factor = 10.0**decimals
    return ufuncs.true_divide(rint(ufuncs.multiply(a, factor)), factor)


around = round

# --- Binary float math ------------------------------------------------------------------------

arctan2 = _binary("arctan2", float_math.atan2, inexact=True)
atan2 = arctan2
nextafter = _binary("nextafter", float_math.nextafter, inexact=True)


def _fmax(x, y):
    if not dtypes.is_float(dtype_of(x)):
        return lax.max(x, y)
    return lax.select(lax.ne(y, y), x, lax.select(lax.ne(x, x), y, lax.max(x, y)))


def _fmin(x, y):
    if not dtypes.is_float(dtype_of(x)):
        return lax.min(x, y)
    return lax.select(lax.ne(y, y), x, lax.select(lax.ne(x, x), y, lax.min(x, y)))


fmax = _binary("fmax", _fmax)
fmin = _binary("fmin", _fmin)


def _hypot(x, y):
    x, y = lax.abs(x), lax.abs(y)
    big, small = lax.max(x, y), lax.min(x, y)
    zero = lax.convert_element_type(0, dtype_of(x), weak_type=True)
    one = lax.convert_element_type(1, dtype_of(x), weak_type=True)
    ratio = lax.div(small, lax.select(lax.eq(big, zero), one, big))
    out = lax.mul(big, lax.sqrt(lax.add(one, lax.mul(ratio, ratio))))
    inf = lax.convert_element_type(np.inf, dtype_of(x), weak_type=True)
    return lax.select(
        lax.bitwise_or(lax.eq(x, inf), lax.eq(y, inf)), inf, out
    )  # hypot(nan, inf) = inf


hypot = _binary("hypot", _hypot, inexact=True)


def _logaddexp(x, y):
    amax = lax.max(x, y)
    delta = lax.sub(x, y)
    # Equal infinities give NaN in delta; the max is then the answer.
    nan_delta = lax.ne(delta, delta)
    zero = lax.convert_element_type(0, dtype_of(x), weak_type=True)
    safe = lax.select(nan_delta, zero, lax.neg(lax.abs(delta)))
    out = lax.add(amax, float_math.log1p(lax.exp(safe)))
    return lax.select(lax.bitwise_and(nan_delta, lax.eq(x, y)), amax, out)


logaddexp = _binary("logaddexp", _logaddexp, inexact=True)


def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)``, computed stably."""
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    ln2 = lax.convert_element_type(_LN2, dtype_of(x1), weak_type=True)
    return lax.div(_logaddexp(lax.mul(x1, ln2), lax.mul(x2, ln2)), ln2)


def heaviside(x1, x2, /):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0`` (NaN stays NaN)."""
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    zero = lax.convert_element_type(0, dtype_of(x1), weak_type=True)
    one = lax.convert_element_type(1, dtype_of(x1), weak_type=True)
    step = ufuncs.where(lax.gt(x1, zero), one, zero)
    return ufuncs.where(lax.eq(x1, zero), x2, ufuncs.where(lax.ne(x1, x1), x1, step))


def nan_to_num(x, copy: bool = True, nan: float = 0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan`` and ±inf by ``posinf``/``neginf`` (default: the dtype's extremes)."""
    check_arraylike("nan_to_num", x)
    dtype = dtype_of(x)
    if not dtypes.is_float(dtype):
        return ufuncs.positive(x)
    info = dtypes.finfo(dtype)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = ufuncs.where(lax.ne(x, x), nan, x)
    out = ufuncs.where(ufuncs.equal(out, np.inf), posinf, out)
    return ufuncs.where(ufuncs.equal(out, -np.inf), neginf, out).astype(dtype)


# --- Bit shifts -------------------------------------------------------------------------------------


def _shift_check(name, x, y):
    if not (dtypes.is_int(dtype_of(x)) or dtypes.is_bool(dtype_of(x))):
        raise TypeError(f"{name} only accepts integer arguments, got {dtype_of(x).name}")


def left_shift(x1, x2, /):
    """Elementwise ``x1 << x2`` (0 once ``x2`` is at least the bit width)."""
    x1, x2 = ufuncs.promote_args("left_shift", x1, x2)
    _shift_check("left_shift", x1, x2)
    return bits.shift_left(x1, x2)


def right_shift(x1, x2, /):
    """Elementwise ``x1 >> x2``: arithmetic for signed, logical for unsigned integers."""
    x1, x2 = ufuncs.promote_args("right_shift", x1, x2)
    _shift_check("right_shift", x1, x2)
    if dtypes.is_signed_int(dtype_of(x1)):
        return bits.shift_right_arithmetic(x1, x2)
    return bits.shift_right_logical(x1, x2)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift
bitwise_invert = ufuncs.invert


def bitwise_count(x, /):
    """Elementwise number of set bits of ``|x|``."""
    check_arraylike("bitwise_count", x)
    if dtypes.is_signed_int(dtype_of(x)):
        x = lax.abs(x)
    return bits.population_count(x).astype(np.uint8)


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
    return dtypes.is_float(dtype_of(a))


def nansum(a, axis=None, dtype=None, keepdims: bool = False):
    """Sum treating NaN as 0."""
    check_arraylike("nansum", a)
    if _is_float(a):
        a = ufuncs.where(ufuncs.isnan(a), 0, a)
    return reductions.sum(a, axis=axis, dtype=dtype, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, keepdims: bool = False):
    """Mean over the non-NaN elements (NaN where there are none)."""
    check_arraylike("nanmean", a)
    if not _is_float(a):
        return reductions.mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    valid = ufuncs.logical_not(ufuncs.isnan(a))
    total = nansum(a, axis=axis, dtype=dtype, keepdims=keepdims)
    count = reductions.sum(valid, axis=axis, keepdims=keepdims)
    return ufuncs.true_divide(total, count.astype(dtype_of(total)))


def _nan_extreme(name, a, axis, keepdims, fill, fn):
    check_arraylike(name, a)
    if not _is_float(a):
        return fn(a, axis=axis, keepdims=keepdims)
    nan = ufuncs.isnan(a)
    out = fn(ufuncs.where(nan, fill, a), axis=axis, keepdims=keepdims)
    all_nan = reductions.all(nan, axis=axis, keepdims=keepdims)
    return ufuncs.where(all_nan, np.nan, out).astype(dtype_of(a))


def nanmax(a, axis=None, keepdims: bool = False):
    """Maximum ignoring NaN (NaN where all are NaN)."""
    return _nan_extreme("nanmax", a, axis, keepdims, -np.inf, reductions.max)


def nanmin(a, axis=None, keepdims: bool = False):
    """Minimum ignoring NaN (NaN where all are NaN)."""
    return _nan_extreme("nanmin", a, axis, keepdims, np.inf, reductions.min)


def count_nonzero(a, axis=None, keepdims: bool = False):
    """Number of non-zero elements over ``axis``."""
    check_arraylike("count_nonzero", a)
    return reductions.sum(
        ufuncs.not_equal(a, 0), axis=axis, keepdims=keepdims, dtype=dtypes.default_int_dtype()
    )


def ptp(a, axis=None, keepdims: bool = False):
    """Range ``max - min`` over ``axis``."""
    return ufuncs.subtract(
        reductions.max(a, axis=axis, keepdims=keepdims),
        reductions.min(a, axis=axis, keepdims=keepdims),
    )


def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
    """Weighted mean over ``axis``; ``returned`` also gives the sum of weights."""
    check_arraylike("average", a)
    if weights is None:
        avg = reductions.mean(a, axis=axis, keepdims=keepdims)
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
    total_weight = reductions.sum(
        ufuncs.add(weights, ufuncs.multiply(a, 0)), axis=axis, keepdims=keepdims
    )
    avg = ufuncs.true_divide(
        reductions.sum(ufuncs.multiply(a, weights), axis=axis, keepdims=keepdims), total_weight
    )
    return (avg, total_weight) if returned else avg
