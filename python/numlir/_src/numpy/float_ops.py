"""More elementwise functions on floats and integers: copysign, fabs, float_power, frexp,
ldexp, modf, spacing, sinc, i0, divmod, gcd, lcm, and real/imag/conj/angle."""

from __future__ import annotations

import numpy as np

from numlir._src import dtypes
from numlir._src.lax import bessel, bits, complex_ops, control_flow
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.numpy.logic import signbit
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_args, promote_arrays_inexact


def i0(x):
    """The modified Bessel function of the first kind of order 0, ``I0(x)``, whose
    derivative is ``I1(x)`` (0 at 0, as jax's)."""
    (x,) = promote_arrays_inexact("i0", x)
    return bessel.i0(x)


def copysign(x1, x2, /):
    """The magnitude of ``x1`` with the sign (bit) of ``x2``."""
    x1, x2 = promote_arrays_inexact("copysign", x1, x2)
    return ufuncs.where(signbit(x2), -ufuncs.abs(x1), ufuncs.abs(x1))


def fabs(x, /):
    """``|x|`` as a float."""
    (x,) = promote_arrays_inexact("fabs", x)
    return ufuncs.abs(x)


def float_power(x1, x2, /):
    """``x1 ** x2`` computed in the inexact type of the operands."""
    return ufuncs.power(*promote_arrays_inexact("float_power", x1, x2))


_INT_OF = {np.dtype(np.float16): np.int16, np.dtype(np.float32): np.int32, np.dtype(np.float64): np.int64}


def frexp(x, /):
    """``(m, e)`` with ``x = m * 2**e`` and ``0.5 <= |m| < 1`` (``(x, 0)`` for 0, inf and NaN)."""
    (x,) = promote_arrays_inexact("frexp", x)
    dtype = np.dtype(dtype_of(x))
    if dtype not in _INT_OF:
        x = x.astype(np.float32)
        dtype = np.dtype(np.float32)
    info = np.finfo(dtype)
    int_t = _INT_OF[dtype]
    # Subnormals are scaled into the normal range first, so their exponent field is exact.
    subnormal = ufuncs.less(ufuncs.abs(x), info.tiny) & ufuncs.not_equal(x, 0)
    scale_bits = info.nmant + 1
    scaled = ufuncs.where(subnormal, x * np.asarray(2.0 ** scale_bits, dtype), x)
    word = bits.bitcast_convert_type(scaled, int_t)
    biased = ufuncs.bitwise_and(ufuncs.right_shift(word, np.asarray(info.nmant, int_t)),
                                np.asarray((1 << info.nexp) - 1, int_t))
    e = biased - np.asarray(info.maxexp - 2, int_t) - ufuncs.where(subnormal, np.asarray(scale_bits, int_t),
                                                                    np.asarray(0, int_t))
    special = ~ufuncs.isfinite(x) | ufuncs.equal(x, 0)
    e = ufuncs.where(special, np.asarray(0, int_t), e)
    # m = x * 2**-e, exact (a power-of-two scaling) and differentiable; in two factors,
    # since 2**-e alone overflows for subnormal x.
    first = ufuncs.floor_divide(-e, np.asarray(2, int_t))
    two = np.asarray(2, dtype)
    m = x * ufuncs.power(two, first.astype(dtype)) * ufuncs.power(two, (-e - first).astype(dtype))
    return ufuncs.where(special, x, m), e.astype(np.int32)


def ldexp(x1, x2, /):
    """``x1 * 2**x2`` for integer ``x2``, without overflowing where the result is finite."""
    check_arraylike("ldexp", x1, x2)
    if dtypes.is_inexact(dtype_of(x2)):
        raise ValueError(f"ldexp not supported for input types {(dtype_of(x1), dtype_of(x2))}")
    (x1,) = promote_arrays_inexact("ldexp", x1)
    dtype = dtype_of(x1)
    # As jax: the exponent is x1's float type before it is added, so that frexp's exponent
    # plus an extreme x2 (int8's 127) does not wrap around.
    x2 = creation.asarray(x2).astype(dtype)
    m, e = frexp(x1)
    e = e.astype(dtype) + x2
    m = ufuncs.where(e > 0, m * 2, m)
    e = ufuncs.where(e > 0, e - 1, e)
    # 2**e in two halves: 2**e alone overflows (or underflows) before the product does.
    half = ufuncs.floor(e / 2)
    x = m * ufuncs.power(np.asarray(2, dtype), half) * ufuncs.power(np.asarray(2, dtype), e - half)
    return ufuncs.where(ufuncs.isinf(x1) | ufuncs.equal(x1, 0), x1, x)


def modf(x, /):
    """``(x - trunc(x), trunc(x))``: fractional and integral parts, both with x's sign."""
    (x,) = promote_arrays_inexact("modf", x)
    whole = ufuncs.trunc(x)
    return x - whole, whole


def spacing(x, /):
    """The distance from ``x`` to the next float away from zero (negative for negative ``x``)."""
    (x,) = promote_arrays_inexact("spacing", x)
    dtype = dtype_of(x)
    out = ufuncs.nextafter(x, copysign(np.asarray(np.inf, dtype), x)) - x
    tiny = np.asarray(np.finfo(dtype).smallest_subnormal, dtype)
    return ufuncs.where(ufuncs.equal(out, 0), copysign(tiny, x), out)


def sinc(x, /):
    """``sin(pi x) / (pi x)``, 1 at 0; near 0 its Maclaurin series, so every derivative
    up to the 6th is right at 0 (the quotient's are NaN there)."""
    (x,) = promote_arrays_inexact("sinc", x)
    dtype = dtype_of(x)
    px = np.asarray(np.pi, dtype) * x
    small = ufuncs.less(ufuncs.abs(px), np.asarray(0.1, dtype))
    safe = ufuncs.where(small, np.asarray(1, dtype), px)
    # The series sees 0 where it is not taken: at |x| = 1e30 its own derivative would be
    # inf, and the 0 cotangent the select sends it would turn that into NaN.
    p2 = ufuncs.square(ufuncs.where(small, px, np.asarray(0, dtype)))
    series = 1 - p2 / 6 * (1 - p2 / 20 * (1 - p2 / 42))
    return ufuncs.where(small, series, ufuncs.sin(safe) / safe)


def divmod(x1, x2, /):  # noqa: A001
    """``(floor_divide(x1, x2), mod(x1, x2))``."""
    return ufuncs.floor_divide(x1, x2), ufuncs.remainder(x1, x2)


def _integer_args(name, x1, x2):
    x1, x2 = promote_args(name, x1, x2)
    if not dtypes.is_int(dtype_of(x1)):
        raise ValueError(f"{name} requires integer arguments, got {dtype_of(x1)}")
    return x1, x2


def gcd(x1, x2, /):
    """The greatest common divisor of ``|x1|`` and ``|x2|`` (Euclid's algorithm, elementwise)."""
    x1, x2 = _integer_args("gcd", x1, x2)
    shape = np.broadcast_shapes(reshaping.shape(x1), reshaping.shape(x2))
    a, b = (reshaping.broadcast_to(ufuncs.abs(v), shape) for v in (x1, x2))
    zero = creation.zeros((), dtype_of(a))

    def step(ab):
        a, b = ab
        nonzero = ufuncs.not_equal(b, zero)
        safe_b = ufuncs.where(nonzero, b, creation.ones((), dtype_of(b)))
        return ufuncs.where(nonzero, b, a), ufuncs.where(nonzero, ufuncs.remainder(a, safe_b), zero)

    a, _ = control_flow.while_loop(lambda ab: reductions.any(ufuncs.not_equal(ab[1], zero)), step, (a, b))
    return a


def lcm(x1, x2, /):
    """The least common multiple of ``|x1|`` and ``|x2|`` (0 if either is 0)."""
    x1, x2 = _integer_args("lcm", x1, x2)
    # As jax: |x1| * (|x2| // gcd), in this order and without a final abs, so that where
    # the product wraps (|INT_MIN+1| * 2) the result is jax's.
    x1, x2 = ufuncs.abs(x1), ufuncs.abs(x2)
    d = gcd(x1, x2)
    zero = creation.zeros((), dtype_of(d))
    return ufuncs.where(ufuncs.equal(d, zero), zero, ufuncs.multiply(x1, ufuncs.floor_divide(x2, d)))


def real(val, /):
    """The real part of each element (a real array is returned as it is)."""
    check_arraylike("real", val)
    val = creation.asarray(val)
    return complex_ops.real(val) if dtypes.is_complex(dtype_of(val)) else val


def imag(val, /):
    """The imaginary part of each element (zeros for a real array)."""
    check_arraylike("imag", val)
    val = creation.asarray(val)
    if dtypes.is_complex(dtype_of(val)):
        return complex_ops.imag(val)
    return creation.zeros(reshaping.shape(val), dtype_of(val))


def conjugate(x, /):
    """The complex conjugate of each element (a real array is returned as it is)."""
    check_arraylike("conjugate", x)
    x = creation.asarray(x)
    return complex_ops.conj(x) if dtypes.is_complex(dtype_of(x)) else x


conj = conjugate


def angle(z, deg: bool = False):
    """The argument of each element, ``arctan2(imag(z), real(z))``: for reals, 0 for
    non-negative values and pi for negative ones (and -0.0)."""
    check_arraylike("angle", z)
    z = creation.asarray(z)
    if dtypes.is_complex(dtype_of(z)):
        out = ufuncs.arctan2(complex_ops.imag(z), complex_ops.real(z))
    else:
        (z,) = promote_arrays_inexact("angle", z)
        out = ufuncs.arctan2(creation.zeros((), dtype_of(z)), z)
    return ufuncs.degrees(out) if deg else out
