"""Tests on values and arrays: isclose, allclose, array_equal, array_equiv, isin, signbit,
isposinf/isneginf and the real/complex predicates."""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import bits, complex_ops
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_args, promote_args_inexact


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """``|a - b| <= atol + rtol * |b|`` elementwise; infinities are close only to themselves,
    NaN to nothing (to NaN with ``equal_nan``). Integers compare as floats (the default
    float type), with the tolerances, as in jax and NumPy: int32's INT_MAX - 1 and INT_MAX
    are close."""
    a, b = promote_args("isclose", a, b)
    if dtypes.is_int(dtype_of(a)):
        a, b = promote_args_inexact("isclose", a, b)
    dtype = dtype_of(a)
    if not dtypes.is_inexact(dtype):  # bools
        return ufuncs.equal(a, b)
    # The moduli are real: so are the tolerances.
    rtol, atol = (creation.asarray(v).astype(dtypes.complex_part_dtype(dtype)) for v in (rtol, atol))
    out = ufuncs.less_equal(ufuncs.abs(a - b), atol + rtol * ufuncs.abs(b))
    a_inf, b_inf = ufuncs.isinf(a), ufuncs.isinf(b)
    out = (out & ~(a_inf | b_inf)) | (a_inf & b_inf & ufuncs.equal(a, b))
    a_nan, b_nan = ufuncs.isnan(a), ufuncs.isnan(b)
    out = out & ~(a_nan | b_nan)
    return out | (a_nan & b_nan) if equal_nan else out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """Whether every element of ``a`` is close to ``b`` (isclose), as a boolean array."""
    return reductions.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan: bool = False):
    """Same shape and equal elements (NaNs equal with ``equal_nan``), as a boolean array."""
    check_arraylike("array_equal", a1, a2)
    a1, a2 = creation.asarray(a1), creation.asarray(a2)
    if reshaping.shape(a1) != reshaping.shape(a2):
        return creation.asarray(False)
    eq = ufuncs.equal(a1, a2)
    if equal_nan and (dtypes.is_inexact(dtype_of(a1)) or dtypes.is_inexact(dtype_of(a2))):
        eq = eq | (ufuncs.isnan(a1) & ufuncs.isnan(a2))
    return reductions.all(eq)


def array_equiv(a1, a2):
    """Equal after broadcasting (False when the shapes do not broadcast)."""
    check_arraylike("array_equiv", a1, a2)
    try:
        np.broadcast_shapes(reshaping.shape(a1), reshaping.shape(a2))
    except ValueError:
        return creation.asarray(False)
    return reductions.all(ufuncs.equal(a1, a2))


def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *, method="auto"):
    """Whether each element of ``element`` occurs in ``test_elements``."""
    check_arraylike("isin", element, test_elements)
    element, test_elements = creation.asarray(element), creation.asarray(test_elements)
    found = reductions.any(ufuncs.equal(element[..., None], reshaping.ravel(test_elements)), axis=-1)
    return ~found if invert else found


_INT_OF_WIDTH = {16: np.int16, 32: np.int32, 64: np.int64}


def signbit(x, /):
    """Whether the sign bit is set (-0.0 and -NaN included); ``x < 0`` for integers."""
    (x,) = promote_args("signbit", x)
    dtype = dtype_of(x)
    if dtypes.is_complex(dtype):
        raise core.value_error(f"numlir.numpy.signbit is not well defined for {dtype.name}")
    if dtypes.is_bool(dtype):
        return creation.zeros(reshaping.shape(x), np.bool_)
    if not dtypes.is_float(dtype):
        return ufuncs.less(x, creation.asarray(0).astype(dtype))
    width = np.dtype(dtype).itemsize * 8
    if width not in _INT_OF_WIDTH:
        raise NotImplementedError(f"signbit supports 16-, 32- and 64-bit floats, got {dtype}")
    as_int = bits.bitcast_convert_type(x, _INT_OF_WIDTH[width])
    return ufuncs.less(as_int, creation.asarray(0).astype(_INT_OF_WIDTH[width]))


def _refuse_complex_infinity(x):
    if dtypes.is_complex(dtype_of(x)):
        raise core.value_error("isposinf/isneginf are not well defined for complex types")


def isposinf(x, /):
    """Whether each element is +inf."""
    (x,) = promote_args("isposinf", x)
    _refuse_complex_infinity(x)
    return ufuncs.equal(x, np.inf) if dtypes.is_float(dtype_of(x)) else creation.zeros(reshaping.shape(x), bool)


def isneginf(x, /):
    """Whether each element is -inf."""
    (x,) = promote_args("isneginf", x)
    _refuse_complex_infinity(x)
    return ufuncs.equal(x, -np.inf) if dtypes.is_float(dtype_of(x)) else creation.zeros(reshaping.shape(x), bool)


def _imag(x):
    x = creation.asarray(x)
    if dtypes.is_complex(dtype_of(x)):
        return complex_ops.imag(x)
    return creation.zeros(reshaping.shape(x), dtype_of(x))


def isreal(x):
    """Whether each element's imaginary part is 0 (true everywhere for a real array)."""
    check_arraylike("isreal", x)
    return ufuncs.equal(_imag(x), 0)


def iscomplex(x):
    """Whether each element's imaginary part is nonzero (false everywhere for a real array)."""
    check_arraylike("iscomplex", x)
    return ufuncs.not_equal(_imag(x), 0)


def isrealobj(x) -> bool:
    return not np.issubdtype(dtype_of(x), np.complexfloating)


def iscomplexobj(x) -> bool:
    return np.issubdtype(dtype_of(x), np.complexfloating)


def isscalar(element) -> bool:
    """Python and NumPy scalars, and arrays of rank 0, as ``jnp.isscalar``."""
    if isinstance(element, core.Tracer) or (hasattr(element, "shape") and hasattr(element, "ndim")):
        return element.ndim == 0
    return dtypes.is_python_scalar(element) or np.isscalar(element)


def iterable(y) -> bool:
    """Whether ``iter(y)`` works."""
    try:
        iter(y)
    except TypeError:
        return False
    return True
