"""Elementwise functions of numlir.numpy (NumPy names, JAX promotion semantics)."""

from __future__ import annotations

import operator

import numpy as np

from numlir._src import core, dtypes
from numlir._src.array import as_array
from numlir._src.lax import bits, complex_ops, float_math
from numlir._src.lax import elementwise as ew
from numlir._src.lax import composites as lax_composites
from numlir._src.lax import shape_ops
from numlir._src.lax import windowed_reductions
from numlir._src.numpy import complex_special_values as csv
from numlir._src.numpy.util import (check_arraylike, dtype_of, promote_args, promote_args_inexact,
                                    promote_dtypes, promote_shapes)


def _is_bool(x) -> bool:
    return dtype_of(x) == dtypes.bool_


def _is_unsigned(x) -> bool:
    return dtypes.is_unsigned_int(dtype_of(x))


def _is_int(x) -> bool:
    return dtypes.is_int(dtype_of(x))


def _binary(name, fn, inexact=False):
    def op(x, y, /):
        x, y = (promote_args_inexact if inexact else promote_args)(name, x, y)
        return fn(x, y)

    op.__name__ = name
    op.__doc__ = f"Elementwise ``{name}`` with NumPy broadcasting and JAX type promotion."
    return op


def _unary(name, fn, inexact=False):
    def op(x, /):
        check_arraylike(name, x)
        if inexact:
            (x,) = promote_args_inexact(name, x)
        return fn(x)

    op.__name__ = name
    op.__doc__ = f"Elementwise ``{name}``."
    return op


add = _binary("add", lambda x, y: ew.bitwise_or(x, y) if _is_bool(x) else ew.add(x, y))
subtract = _binary("subtract", ew.sub)
multiply = _binary("multiply", lambda x, y: ew.bitwise_and(x, y) if _is_bool(x) else ew.mul(x, y))
true_divide = _binary("true_divide", ew.div, inexact=True)
divide = true_divide
maximum = _binary("maximum", ew.max)
minimum = _binary("minimum", ew.min)


def _fmod(x, y):
    if _is_int(x):  # as jax: an integer x % 0 is 0 (XLA's remainder by 0 would be x)
        y = _nonzero_divisor(y)
    return ew.rem(x, y)


def _nonzero_divisor(y):
    """``y`` with its zeros replaced by 1 (jax's integer remainder, mod and fmod)."""
    return ew.select(ew.eq(y, ew.convert_element_type(0, dtype_of(y), True)),
                     _ones_like(y), y)


fmod = _binary("fmod", _fmod)
equal = _binary("equal", ew.eq)
not_equal = _binary("not_equal", ew.ne)


def _ordered(compare):
    """``compare``; complex numbers compare real part first, then imaginary part, as jax's
    comparisons (lax's refuse them)."""

    def fn(x, y):
        if not dtypes.is_complex(dtype_of(x)):
            return compare(x, y)
        x_re, y_re = complex_ops.real(x), complex_ops.real(y)
        by_imag = compare(complex_ops.imag(x), complex_ops.imag(y))
        return ew.select(ew.eq(x_re, y_re), by_imag, compare(x_re, y_re))

    return fn


less = _binary("less", _ordered(ew.lt))
less_equal = _binary("less_equal", _ordered(ew.le))
greater = _binary("greater", _ordered(ew.gt))
greater_equal = _binary("greater_equal", _ordered(ew.ge))
bitwise_and = _binary("bitwise_and", ew.bitwise_and)
bitwise_or = _binary("bitwise_or", ew.bitwise_or)
bitwise_xor = _binary("bitwise_xor", ew.bitwise_xor)


def _floor_divide(x, y):
    if _is_unsigned(x) or _is_bool(x):
        return ew.div(x, y)
    if _is_int(x):
        # As jax: C division truncates; step down where the signs differ and it was inexact.
        # The signs are sign(x) and sign(y), so x // 0 is XLA's x / 0 = -1 stepped down to
        # -2 for x != 0 (x % 0 is x there), and 0 // 0 is -1.
        q = ew.div(x, y)
        inexact = ew.ne(ew.rem(x, y), ew.convert_element_type(0, dtype_of(x), True))
        signs_differ = ew.ne(ew.sign(x), ew.sign(y))
        one = ew.convert_element_type(1, dtype_of(x), True)
        return ew.select(ew.bitwise_and(inexact, signs_differ), ew.sub(q, one), q)
    return _float_floor_divide(x, y)


def _float_floor_divide(x, y):
    """Python's float floor division where both operands are finite and the quotient is
    nonzero: ``(x - fmod(x, y)) / y``, one less where the remainder's sign differs from
    ``y``'s, rounded, so ``1 // 0.1`` is 9 (``floor(1 / 0.1)`` is 10) as in jax and NumPy.
    Elsewhere the array API standard's ``floor(x / y)``, where jax keeps Python's divmod:
    ``inf // 1.5`` is inf (jax NaN), ``-1 // inf`` is -0 (jax -1), ``-0 // 2`` is -0 and
    ``-1 // -3`` is +0 (jax +0 and -0); ``5 // 0`` is inf in both (docs/array-api.md)."""
    mod = ew.rem(x, y)
    zero = ew.convert_element_type(0, dtype_of(x), True)
    div = ew.div(ew.select(ew.eq(y, zero), x, ew.sub(x, mod)), y)  # x // 0 is ±inf
    step_down = ew.bitwise_and(ew.ne(mod, zero), ew.ne(ew.sign(y), ew.sign(mod)))
    div = ew.select(step_down, ew.sub(div, ew.convert_element_type(1, dtype_of(x), True)), div)
    python = float_math.round(div)
    finite = ew.bitwise_and(float_math.is_finite(x), float_math.is_finite(y))
    by_standard = ew.bitwise_or(ew.bitwise_not(finite), ew.eq(python, zero))
    return ew.select(by_standard, ew.floor(ew.div(x, y)), python)


def _remainder(x, y):
    if _is_int(x):  # as jax: x % 0 is 0
        y = _nonzero_divisor(y)
    r = ew.rem(x, y)
    if _is_unsigned(x) or _is_bool(x):
        return r
    zero = ew.convert_element_type(0, dtype_of(x), True)
    fix = ew.bitwise_and(ew.ne(r, zero), ew.ne(ew.lt(r, zero), ew.lt(y, zero)))
    r = ew.select(fix, ew.add(r, y), r)
    return r if _is_int(x) else _zero_with_sign_of(r, y)


def _zero_with_sign_of(r, y):
    """``r`` with its zeros given ``y``'s sign, as the array API standard (and Python) have
    it: ``-4 % 2`` is +0 and ``0 % -2`` is -0, where jax keeps fmod's sign (the dividend's).
    The derivative stays ``r``'s: a zero of the chosen sign minus ``r - r``, whose value is
    +0 and whose tangent is ``r``'s (a select of a constant would give the tangent 0)."""
    dtype = dtype_of(r)
    zero = ew.convert_element_type(0, dtype, True)
    signed_zero = ew.select(ew.lt(y, zero), ew.convert_element_type(-0.0, dtype, True), zero)
    keeps_tangent = ew.sub(signed_zero, ew.sub(ew.stop_gradient(r), r))
    return ew.select(ew.eq(r, zero), keeps_tangent, r)


floor_divide = _binary("floor_divide", _floor_divide)
remainder = _binary("remainder", _remainder)
mod = remainder


def _integer_pow(x, n: int):
    """x ** n for a static Python int n by repeated squaring."""
    if n == 0:
        return _ones_like(x)
    return as_array(lax_composites.integer_pow(x, n))  # integers to n < 0 raise, as jax's


def _ones_like(x):

    aval = core.get_aval(x)
    one = ew.convert_element_type(1, aval.dtype, aval.weak_type)
    return shape_ops.broadcast_in_dim(one, aval.shape, ())


def _static_int(y):
    """``y`` as a Python int where jax's power takes its integer_pow path: ``y`` is a
    concrete integer (or bool) scalar -- a Python or NumPy integer, or a 0-d integer array
    that is not a tracer."""
    if isinstance(y, core.Tracer):
        return None
    try:
        return operator.index(y)
    except TypeError:
        return None


def _pow_int_int(x, y):
    """Integer ``x ** y`` as jax's power computes it for an array exponent: binary
    exponentiation over the exponent's six low bits in wrapping arithmetic, so ``y``
    counts modulo 64 (a negative one as two's complement: ``x ** -1`` is ``x ** 63``), and
    ``0 ** y`` is 0 for ``y != 0``."""
    aval = core.get_aval(x)
    zero, one = (ew.convert_element_type(v, aval.dtype, True) for v in (0, 1))
    acc = where(ew.bitwise_and(ew.eq(x, zero), ew.ne(y, zero)), zero, one)
    for _ in range(6):
        acc = where(ew.ne(ew.bitwise_and(y, one), zero), ew.mul(acc, x), acc)
        x = ew.mul(x, x)
        y = bits.shift_right_logical(y, one)
    return ew.convert_element_type(acc, aval.dtype, aval.weak_type)


def power(x, y, /):
    """Elementwise ``x ** y``, as jax's: a concrete integer scalar exponent uses repeated
    multiplication (integer_pow; integers to negative ones raise), integer bases with other
    exponents jax's wrapping binary exponentiation (``_pow_int_int``), bools as ints."""
    check_arraylike("power", x, y)
    n = _static_int(y)
    if n is not None and not isinstance(x, (int, float)):
        if _is_bool(x):
            x = ew.convert_element_type(x, dtypes.default_int_dtype(), False)
        return _integer_pow(x, n)
    y_aval = core.get_aval(y)
    x, y = promote_args("power", x, y)
    if _is_bool(x):
        x, y = (ew.convert_element_type(v, dtypes.default_int_dtype(), False) for v in (x, y))
    if _is_int(x):
        return _pow_int_int(x, y)
    out = ew.pow(x, y)
    if dtypes.is_inexact(dtype_of(out)) and dtypes.is_int(y_aval.dtype) and not y_aval.weak_type:
        # As jax, which raises an inexact x to an integer array by lax.pow(x, y) without
        # promoting y: the result is weak only where both operands are, so a strong
        # integer exponent makes it strong (2.0 ** int32_array is a strong float).
        out = ew.convert_element_type(out, dtype_of(out), False)
    return out


def negative(x, /):
    """Elementwise ``-x``."""
    check_arraylike("negative", x)
    if _is_bool(x):
        raise core.shape_error("negative does not accept dtype bool; use numlir.numpy.logical_not")
    return ew.neg(x)


def positive(x, /):
    check_arraylike("positive", x)
    return as_array(x)


def absolute(x, /):
    """Elementwise ``|x|`` (identity for unsigned ints and bools)."""
    check_arraylike("absolute", x)
    if _is_unsigned(x) or _is_bool(x):
        return as_array(x)
    return ew.abs(x)


abs = absolute  # noqa: A001


def sign(x, /):
    """The sign of ``x``: -1, 0 or 1 (NaN for NaN). The sign of a zero of either sign is +0,
    as the array API standard and NumPy say (jax's keeps -0: docs/array-api.md); ``+ 0``
    makes it so and changes nothing else."""
    check_arraylike("sign", x)
    if _is_bool(x):
        return as_array(x)
    out = csv.with_special_values(ew.sign, csv.sign)(x)
    if dtypes.issubdtype(out.dtype, np.floating):
        out = ew.add(out, ew.const(out, 0))
    return out


def _float_or_identity(name, fn):
    def op(x, /):
        check_arraylike(name, x)
        if _is_int(x) or _is_bool(x):
            return as_array(x)
        return fn(x)

    op.__name__ = name
    return op


floor = _float_or_identity("floor", ew.floor)
ceil = _float_or_identity("ceil", ew.ceil)
exp = _unary("exp", csv.with_special_values(ew.exp, csv.exp), inexact=True)
log = _unary("log", csv.with_special_values(ew.log, csv.log), inexact=True)
tanh = _unary("tanh", csv.with_special_values(ew.tanh, csv.tanh), inexact=True)
sqrt = _unary("sqrt", csv.with_special_values(ew.sqrt, csv.sqrt), inexact=True)
sin = _unary("sin", ew.sin, inexact=True)
cos = _unary("cos", ew.cos, inexact=True)


def square(x, /):
    check_arraylike("square", x)
    return ew.mul(x, x)


def reciprocal(x, /):
    (x,) = promote_args_inexact("reciprocal", x)
    return ew.div(ew.convert_element_type(1, dtype_of(x), True), x)


def invert(x, /):
    """Elementwise bitwise NOT (logical NOT for bool)."""
    check_arraylike("invert", x)
    return ew.bitwise_not(x)


bitwise_not = invert


def _to_bool(x):
    if dtypes.is_complex(dtype_of(x)):  # as jax: x != 0, both parts (a cast keeps the real one)
        return ew.ne(x, ew.convert_element_type(0, dtype_of(x), True))
    return ew.convert_element_type(x, dtypes.bool_)


def logical_not(x, /):
    check_arraylike("logical_not", x)
    return ew.bitwise_not(_to_bool(x))


def _logical(name, fn):
    def op(x, y, /):
        check_arraylike(name, x, y)
        return fn(*promote_shapes(name, _to_bool(x), _to_bool(y)))

    op.__name__ = name
    return op


logical_and = _logical("logical_and", ew.bitwise_and)
logical_or = _logical("logical_or", ew.bitwise_or)
logical_xor = _logical("logical_xor", ew.bitwise_xor)


def isnan(x, /):
    check_arraylike("isnan", x)
    return ew.ne(x, x)


def _on_parts(fn, x):
    """``fn`` applied to the real and imaginary parts of complex ``x``, recombined."""
    return complex_ops.complex(fn(complex_ops.real(x)), fn(complex_ops.imag(x)))


def isinf(x, /):
    check_arraylike("isinf", x)
    if dtypes.is_complex(dtype_of(x)):
        return ew.bitwise_or(isinf(complex_ops.real(x)), isinf(complex_ops.imag(x)))
    if not dtypes.is_float(dtype_of(x)):
        return ew.ne(x, x)
    return ew.eq(ew.abs(x), ew.convert_element_type(np.inf, dtype_of(x), True))


def isfinite(x, /):
    check_arraylike("isfinite", x)
    if dtypes.is_complex(dtype_of(x)):
        return ew.bitwise_and(isfinite(complex_ops.real(x)), isfinite(complex_ops.imag(x)))
    if not dtypes.is_float(dtype_of(x)):
        return ew.eq(x, x)
    return ew.lt(ew.abs(x), ew.convert_element_type(np.inf, dtype_of(x), True))


def where(condition, x=None, y=None, /, *, size: int | None = None, fill_value=None):
    """``x`` where ``condition`` else ``y``, broadcasting all three; with ``condition`` alone,
    ``nonzero(condition, size=size, fill_value=fill_value)``."""
    if x is None and y is None:
        from numlir._src.numpy.selection import nonzero  # noqa: PLC0415 - selection builds on ufuncs

        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise TypeError("where: pass both x and y, or neither (then it is nonzero(condition))")
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term where function.")
    check_arraylike("where", condition, x, y)
    x, y = promote_dtypes(x, y)
    condition, x, y = promote_shapes("where", _to_bool(condition), x, y, check_rank=False)
    return ew.select(condition, x, y)


def clip(arr=None, /, min=None, max=None):  # noqa: A002 - jax's keyword names
    """Clip ``arr`` to ``[min, max]``; complex values are refused, as jax does.

    The keywords are JAX 0.10's ``min``/``max``: JAX finished deprecating numpy's
    ``a_min``/``a_max`` and now raises TypeError for them, so numlir does too (code that
    runs on numlir must run on JAX).
    """
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    check_arraylike("clip", arr)
    if any(v is not None and dtypes.is_complex(dtype_of(v)) for v in (arr, min, max)):
        raise ValueError("Clip received a complex value either through the input or the min/max "
                         "keywords. Complex values have no ordering and cannot be clipped. "
                         "Please convert to a real value or array by taking the real or "
                         "imaginary components via numlir.numpy.real/imag respectively.")
    if min is not None:
        arr = maximum(arr, min)
    if max is not None:
        arr = minimum(arr, max)
    return as_array(arr)


# --- Unary float math -----------------------------------------------------------------------

log1p = _unary("log1p", csv.with_special_values(float_math.log1p, csv.log1p), inexact=True)
expm1 = _unary("expm1", csv.with_special_values(float_math.expm1, csv.expm1), inexact=True)
tan = _unary("tan", float_math.tan, inexact=True)
arcsin = _unary("arcsin", float_math.asin, inexact=True)
arccos = _unary("arccos", csv.with_special_values(float_math.acos, csv.acos), inexact=True)
arctan = _unary("arctan", float_math.atan, inexact=True)
sinh = _unary("sinh", float_math.sinh, inexact=True)
cosh = _unary("cosh", float_math.cosh, inexact=True)
arcsinh = _unary("arcsinh", csv.with_special_values(float_math.asinh, csv.asinh),
                 inexact=True)
arccosh = _unary("arccosh", csv.with_special_values(float_math.acosh, csv.acosh),
                 inexact=True)
arctanh = _unary("arctanh", csv.with_special_values(float_math.atanh, csv.atanh),
                 inexact=True)
cbrt = _unary("cbrt", float_math.cbrt, inexact=True)
asin, acos, atan, asinh, acosh, atanh = arcsin, arccos, arctan, arcsinh, arccosh, arctanh

_LN2 = 0.6931471805599453
_LN10 = 2.302585092994046


def exp2(x, /):
    """Elementwise ``2 ** x``."""
    (x,) = promote_args_inexact("exp2", x)
    return ew.exp(ew.mul(x, ew.convert_element_type(_LN2, dtype_of(x), weak_type=True)))


def _scale_log(x, scale):
    """``scale(log(x))``; complex logarithms are scaled part by part, as jax does (a complex
    division by a real constant would turn an infinite part into NaN)."""
    r = csv.with_special_values(ew.log, csv.log)(x)
    if not dtypes.is_complex(dtype_of(x)):
        return scale(r)
    return complex_ops.complex(scale(complex_ops.real(r)), scale(complex_ops.imag(r)))


def log2(x, /):
    """Elementwise base-2 logarithm."""
    (x,) = promote_args_inexact("log2", x)
    return _scale_log(x, lambda r: ew.div(r, ew.convert_element_type(_LN2, dtype_of(r), True)))


def log10(x, /):
    """Elementwise base-10 logarithm (of complex numbers, ``log(x) * (1 / ln 10)`` part by
    part, as jax)."""
    (x,) = promote_args_inexact("log10", x)
    if dtypes.is_complex(dtype_of(x)):
        return _scale_log(x, lambda r: ew.mul(r, ew.convert_element_type(1 / _LN10, dtype_of(r),
                                                                          True)))
    return ew.div(ew.log(x), ew.convert_element_type(_LN10, dtype_of(x), weak_type=True))


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

def _rint(x):
    if dtypes.is_complex(dtype_of(x)):
        return _on_parts(_rint, x)
    return float_math.round(x, float_math.RoundingMethod.TO_NEAREST_EVEN)


def rint(x, /):
    """Round to the nearest integer, ties to even; integers and bools become the default
    float type (float64 with x64), as jax's."""
    check_arraylike("rint", x)
    if _is_int(x) or _is_bool(x):
        return ew.convert_element_type(x, dtypes.default_float_dtype(), False)
    (x,) = promote_args_inexact("rint", x)
    return _rint(x)


def _trunc(x):
    return ew.select(
        ew.lt(x, ew.convert_element_type(0, dtype_of(x), weak_type=True)),
        ew.ceil(x),
        ew.floor(x),
    )


trunc = _float_or_identity("trunc", _trunc)
fix = _float_or_identity("fix", _trunc)


def round(a, decimals: int = 0):
    """Round to ``decimals`` decimal places, ties to even (NumPy's ``around``)."""
    check_arraylike("round", a)
    if dtypes.is_complex(dtype_of(a)):
        return _on_parts(lambda part: round(part, decimals), a)
    if not dtypes.is_float(dtype_of(a)):
        if decimals < 0:  # as jax
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return positive(a)
    if decimals == 0:
        return rint(a)
    factor = 10.0**decimals
    return true_divide(rint(multiply(a, factor)), factor)


around = round

# --- Binary float math ------------------------------------------------------------------------

arctan2 = _binary("arctan2", float_math.atan2, inexact=True)
atan2 = arctan2
nextafter = _binary("nextafter", float_math.nextafter, inexact=True)


def _fmax(x, y):
    """JAX's select: ``x`` where ``x > y`` (real parts first) or ``y`` is NaN, else ``y``.
    So a tie takes ``y``, and the derivative goes to ``y`` alone: ``grad(fmax)(0., 0.)``
    is 0, where ``maximum`` would split it."""
    return ew.select(ew.bitwise_or(greater(x, y), ew.ne(y, y)), x, y)


def _fmin(x, y):
    """JAX's select: ``x`` where ``x < y`` or ``y`` is NaN, else ``y`` (ties take ``y``)."""
    return ew.select(ew.bitwise_or(less(x, y), ew.ne(y, y)), x, y)


fmax = _binary("fmax", _fmax)
fmin = _binary("fmin", _fmin)


def _hypot(x, y):
    x, y = ew.abs(x), ew.abs(y)
    big, small = ew.max(x, y), ew.min(x, y)
    zero = ew.convert_element_type(0, dtype_of(x), weak_type=True)
    one = ew.convert_element_type(1, dtype_of(x), weak_type=True)
    ratio = ew.div(small, ew.select(ew.eq(big, zero), one, big))
    out = ew.mul(big, ew.sqrt(ew.add(one, ew.mul(ratio, ratio))))
    inf = ew.convert_element_type(np.inf, dtype_of(x), weak_type=True)
    return ew.select(
        ew.bitwise_or(ew.eq(x, inf), ew.eq(y, inf)), inf, out
    )  # hypot(nan, inf) = inf


hypot = _binary("hypot", _hypot, inexact=True)


def _wrap_phase(x):
    """``x`` brought into [-pi, pi) by whole turns."""
    pi = ew.convert_element_type(np.pi, dtype_of(x), weak_type=True)
    turn = ew.convert_element_type(2 * np.pi, dtype_of(x), weak_type=True)
    rem = ew.rem(ew.add(x, pi), turn)
    return ew.sub(ew.select(ew.lt(rem, ew.const(rem, 0)), ew.add(rem, turn), rem), pi)


def _complex_logaddexp(x, y):
    # As jax: around the (lexicographic) larger operand, the phase wrapped into [-pi, pi).
    amax = ew.max(x, y)
    two = ew.convert_element_type(2, dtype_of(x), weak_type=True)
    out = ew.add(amax, float_math.log1p(ew.exp(ew.sub(ew.add(x, y), ew.mul(amax, two)))))
    return complex_ops.complex(complex_ops.real(out), _wrap_phase(complex_ops.imag(out)))


def _logaddexp(x, y, base2: bool = False):
    """``log(exp(x) + exp(y))``, or in base 2 with ``base2``: the max plus a correction,
    so the result is the max exactly when the other term is negligible (base 2 computed
    as ``logaddexp(x ln 2, y ln 2) / ln 2`` can land an ulp below it)."""
    if dtypes.is_complex(dtype_of(x)):
        return _complex_logaddexp(x, y)
    amax = ew.max(x, y)
    delta = ew.sub(x, y)
    # Equal infinities give NaN in delta; the max is then the answer.
    nan_delta = ew.ne(delta, delta)
    zero = ew.convert_element_type(0, dtype_of(x), weak_type=True)
    safe = ew.select(nan_delta, zero, ew.neg(ew.abs(delta)))
    if base2:
        ln2 = ew.convert_element_type(_LN2, dtype_of(x), weak_type=True)
        out = ew.add(amax, ew.div(float_math.log1p(exp2(safe)), ln2))
    else:
        out = ew.add(amax, float_math.log1p(ew.exp(safe)))
    return ew.select(ew.bitwise_and(nan_delta, ew.eq(x, y)), amax, out)


def heaviside(x1, x2, /):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0`` (NaN stays NaN)."""
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    zero = ew.convert_element_type(0, dtype_of(x1), weak_type=True)
    one = ew.convert_element_type(1, dtype_of(x1), weak_type=True)
    step = where(ew.gt(x1, zero), one, zero)
    return where(ew.eq(x1, zero), x2, where(ew.ne(x1, x1), x1, step))


def nan_to_num(x, copy: bool = True, nan: float = 0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan`` and ±inf by ``posinf``/``neginf`` (default: the dtype's extremes)."""
    check_arraylike("nan_to_num", x)
    dtype = dtype_of(x)
    if dtypes.is_complex(dtype):
        return _on_parts(lambda part: nan_to_num(part, copy, nan, posinf, neginf), x)
    if not dtypes.is_float(dtype):
        return positive(x)
    info = dtypes.finfo(dtype)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = where(ew.ne(x, x), nan, x)
    out = where(equal(out, np.inf), posinf, out)
    return where(equal(out, -np.inf), neginf, out).astype(dtype)


# --- Bit shifts -------------------------------------------------------------------------------------


def _shift_check(name, x, y):
    if not (dtypes.is_int(dtype_of(x)) or dtypes.is_bool(dtype_of(x))):
        raise TypeError(f"{name} only accepts integer arguments, got {dtype_of(x).name}")


def left_shift(x1, x2, /):
    """Elementwise ``x1 << x2`` (0 once ``x2`` is at least the bit width)."""
    x1, x2 = promote_args("left_shift", x1, x2)
    _shift_check("left_shift", x1, x2)
    return bits.shift_left(x1, x2)


def right_shift(x1, x2, /):
    """Elementwise ``x1 >> x2``: arithmetic for signed, logical for unsigned integers."""
    x1, x2 = promote_args("right_shift", x1, x2)
    _shift_check("right_shift", x1, x2)
    if dtypes.is_signed_int(dtype_of(x1)):
        return bits.shift_right_arithmetic(x1, x2)
    return bits.shift_right_logical(x1, x2)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift
bitwise_invert = invert


def bitwise_count(x, /):
    """Elementwise number of set bits of ``|x|``."""
    check_arraylike("bitwise_count", x)
    if dtypes.is_signed_int(dtype_of(x)):
        x = ew.abs(x)
    return bits.population_count(x).astype(np.uint8)


# reduce_window(x, init, jnp.add, ...) is a sum window, as with lax.add.
for _fn, _kind in ((add, "sum"), (multiply, "prod"), (maximum, "max"), (minimum, "min"),
                   (bitwise_and, "and"), (logical_and, "and"), (bitwise_or, "or"),
                   (logical_or, "or")):
    windowed_reductions.register_monoid(_fn, _kind)
del _fn, _kind
