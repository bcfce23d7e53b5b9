"""The array API standard's special values of complex elementwise functions (C99 Annex G).

XLA's complex expansions, which numlir's lowering follows, give NaN + NaN j at many
infinite and NaN inputs where the standard (2024.12, after C99 Annex G) gives a value
with an infinite or finite part: ``exp(+inf + inf j)`` is ``inf + NaN j``, ``log(NaN + inf
j)`` is ``+inf + NaN j``, ``acos(0 + NaN j)`` is ``pi/2 + NaN j``. jax gives XLA's values;
numlir gives the standard's. Each function here takes the input ``z`` and the value ``w``
the expansion computed, and selects the standard's value at exactly the points the
standard lists, leaving every other element (and its derivative) as it was. The standard
lists the upper half plane (``b >= +0``); the lower half follows from ``f(conj z) ==
conj f(z)``, which C99 states for each of these functions, so each rule below takes the
imaginary sign from ``b`` where the result has a definite one.

    >>> import numpy as np, numlir.numpy as jnp
    >>> jnp.exp(jnp.asarray(complex(np.inf, np.inf)))
    Array(inf+nanj, dtype=complex64)
"""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import complex_ops
from numlir._src.lax import elementwise as ew


def _c(part, re, im):
    """A rank-0 complex constant with parts of ``part``'s dtype (select broadcasts it)."""
    return complex_ops.complex(ew.const(part, re), ew.const(part, im))


def _isnan(x):
    return ew.ne(x, x)


def _isinf(x):
    return ew.eq(ew.abs(x), ew.const(x, np.inf))


def _iszero(x):
    return ew.eq(x, ew.const(x, 0))


def _and(*masks):
    out = masks[0]
    for m in masks[1:]:
        out = ew.bitwise_and(out, m)
    return out


def _or(*masks):
    out = masks[0]
    for m in masks[1:]:
        out = ew.bitwise_or(out, m)
    return out


def _copysign(mag, sign):
    """``|mag|`` with the sign bit of ``sign`` (both real, same dtype; ``mag`` may be rank 0)."""
    mag = ew.abs(mag)
    negative = ew.bitwise_or(ew.lt(sign, ew.const(sign, 0)),
                             _and(_iszero(sign), ew.lt(ew.div(ew.const(sign, 1), sign),
                                                       ew.const(sign, 0))))
    return ew.select(negative, ew.neg(mag), mag)


def _parts(z):
    return complex_ops.real(z), complex_ops.imag(z)


def _exp_like(z, w, minus_one: bool):
    """exp and expm1 at a = +-inf with b = +-inf or NaN: +-inf gives inf + NaN j; -inf
    gives 0 + 0j for exp and -1 + 0j for expm1 (the standard leaves the signs open)."""
    a, b = _parts(z)
    edge = _and(_isinf(a), ew.bitwise_or(_isinf(b), _isnan(b)))
    w = ew.select(_and(edge, ew.gt(a, ew.const(a, 0))), _c(a, np.inf, np.nan), w)
    return ew.select(_and(edge, ew.lt(a, ew.const(a, 0))), _c(a, -1.0 if minus_one else 0.0, 0.0),
                     w)


def exp(z, w):
    return _exp_like(z, w, minus_one=False)


def expm1(z, w):
    """Also expm1(+-0 + 0j) = +0 + 0j (the standard's ``0 + 0j``; conj for b = -0)."""
    a, b = _parts(z)
    zero = _and(_iszero(a), _iszero(b))
    w = ew.select(zero, complex_ops.complex(ew.abs(a), b), w)
    return _exp_like(z, w, minus_one=True)


def log(z, w):
    """log and log1p (and log2, log10, which scale log): +inf + NaN j where one part is
    infinite and the other NaN."""
    a, b = _parts(z)
    edge = _or(_and(_isinf(a), _isnan(b)), _and(_isnan(a), _isinf(b)))
    return ew.select(edge, _c(a, np.inf, np.nan), w)


log1p = log


def sqrt(z, w):
    """sqrt(any + inf j) = inf + inf j (NaN real part included), sqrt(-inf + NaN j) =
    NaN + inf j, sqrt(+inf + NaN j) = inf + NaN j."""
    a, b = _parts(z)
    w = ew.select(_isinf(b), complex_ops.complex(ew.abs(b), b), w)
    a_inf_b_nan = _and(_isinf(a), _isnan(b))
    w = ew.select(_and(a_inf_b_nan, ew.lt(a, ew.const(a, 0))), _c(a, np.nan, np.inf), w)
    return ew.select(_and(a_inf_b_nan, ew.gt(a, ew.const(a, 0))), _c(a, np.inf, np.nan), w)


def tanh(z, w):
    """tanh(+-0 + inf j) and tanh(+-0 + NaN j) keep the zero: +-0 + NaN j (tanh is odd)."""
    a, b = _parts(z)
    edge = _and(_iszero(a), ew.bitwise_or(_isinf(b), _isnan(b)))
    return ew.select(edge, complex_ops.complex(a, ew.const(a, np.nan)), w)


def acos(z, w):
    """acos(+-0 + NaN j) = pi/2 + NaN j."""
    a, b = _parts(z)
    return ew.select(_and(_iszero(a), _isnan(b)), _c(a, np.pi / 2, np.nan), w)


def acosh(z, w):
    """acosh(+-0 + NaN j) = NaN + pi/2 j (the standard leaves the sign of pi/2 open)."""
    a, b = _parts(z)
    return ew.select(_and(_iszero(a), _isnan(b)), _c(a, np.nan, np.pi / 2), w)


def asinh(z, w):
    """asinh(NaN +- 0j) = NaN +- 0j; asinh(NaN + b j) = NaN + NaN j for finite nonzero b
    (the expansion's large-|z| branch reads only b there: 89.29 + NaN j at b = 3e38)."""
    a, b = _parts(z)
    finite_nonzero = _and(ew.bitwise_not(_isnan(b)), ew.bitwise_not(_isinf(b)),
                          ew.bitwise_not(_iszero(b)))
    nan = ew.const(a, np.nan)
    w = ew.select(_and(_isnan(a), finite_nonzero), complex_ops.complex(nan, nan), w)
    return ew.select(_and(_isnan(a), _iszero(b)), complex_ops.complex(a, b), w)


def atanh(z, w):
    """atanh(a + NaN j) is +-0 + NaN j for a = +-0 or +-inf (the zero takes a's sign: atanh
    is odd), else NaN + NaN j; atanh(NaN + b j) is NaN + NaN j for finite or NaN b (NaN +
    inf j keeps the expansion's +-0 + pi/2 j)."""
    a, b = _parts(z)
    zero_real = ew.bitwise_or(_iszero(a), _isinf(a))
    nan = ew.const(a, np.nan)
    real = ew.select(zero_real, _copysign(ew.const(a, 0), a), nan)
    w = ew.select(_isnan(b), complex_ops.complex(real, nan), w)
    return ew.select(_and(_isnan(a), ew.bitwise_not(_isinf(b))), _c(a, np.nan, np.nan), w)


def sign(z, w):
    """sign(+-0 +- 0j) = +0 + 0j; NaN + NaN j where either part is NaN."""
    a, b = _parts(z)
    w = ew.select(_and(_iszero(a), _iszero(b)), _c(a, 0.0, 0.0), w)
    return ew.select(ew.bitwise_or(_isnan(a), _isnan(b)), _c(a, np.nan, np.nan), w)


def with_special_values(fn, fix):
    """``fn`` whose complex results take the standard's values where ``fix`` says; real
    inputs go to ``fn`` untouched."""

    def op(x):
        out = fn(x)
        if not dtypes.is_complex(core.get_aval(x).dtype):
            return out
        return fix(x, out)

    op.__name__ = getattr(fn, "__name__", "op")
    return op
