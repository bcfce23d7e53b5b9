"""The Faddeeva function of jax.scipy.special, ``wofz(z) = exp(-z^2) erfc(-iz)``, for complex
z (real and integer inputs become complex first, as jax's).

In the upper half-plane it is Weideman's rational approximation (SIAM J. Numer. Anal. 31,
1994): with ``t = L tan(theta / 2)``, the function ``(L^2 + t^2) e^(-t^2)`` is a Fourier
series in theta whose coefficients ``a_n`` turn the integral that defines w into

    w(z) = (1/sqrt(pi) + 2 p(Z) / d) / d,   d = L - iz,  Z = (L + iz) / d,
    p(Z) = sum_{n=1..N} a_n Z^(n-1),

with |Z| <= 1 there, so the polynomial is evaluated stably anywhere in the half-plane,
near the real axis and at large |z| alike. The coefficients come from the trapezoid rule
in theta (computed here once, in float64). N = 40 gives about 1e-15 relative error in
complex128 (jax uses N = 32, about 3e-13); N = 20 reaches float32's rounding in complex64.
Dividing by d twice, rather than by d^2, keeps |z| up to the largest float from
overflowing.

The lower half-plane uses the reflection ``w(z) = 2 exp(-z^2) - w(-z)``, with
``exp(-z^2) = e^(y^2 - x^2) e^(-2ixy)`` formed from the exact products and sums of the
parts (error-free transformations), so its exponent and phase carry no rounding even
where they are large. On the real axis the real part is that ``e^(-x^2)`` itself,
exactly, rather than the approximation's absolute error of 1e-17. Non-finite inputs give
NaN + NaN i, as jax's (SciPy gives 0 at +-inf).

The derivative is ``w'(z) = 2i/sqrt(pi) - 2 z w(z)``, holomorphic, as jax's.
"""

from __future__ import annotations

import functools

import numpy as np

from numlir._src import ad, core, dtypes
from numlir._src.ad_util import Zero
from numlir._src.lax import complex_ops
from numlir._src.lax import elementwise as ew
from numlir._src.lax import type_checks as tc
from numlir._src.numpy import ufuncs
from numlir._src.numpy.util import check_arraylike, dtype_of
from numlir._src.scipy import special_elementwise as se

# Terms of Weideman's approximation per dtype: the fewest past which the error stops falling.
_TERMS = {np.dtype(np.complex128): 40, np.dtype(np.complex64): 20}
_RSQRT_PI = float(1 / np.sqrt(np.pi))  # a Python float, so that it stays weakly typed


@functools.cache
def _weideman(terms: int) -> tuple[float, tuple[float, ...]]:
    """``(L, (a_N, ..., a_1))``: the scale and coefficients of Weideman's approximation with
    N = ``terms``, highest degree first (Horner's order)."""
    scale = np.sqrt(terms / np.sqrt(2))  # Weideman's choice of L for N terms
    points = 2 * terms
    theta = np.pi * np.arange(1 - points, points) / points  # theta = pi (t = inf) adds 0
    t = scale * np.tan(theta / 2)
    samples = (scale * scale + t * t) * np.exp(-t * t)
    orders = np.arange(1, terms + 1)
    # The samples are even in theta, so the trapezoid rule's Fourier sums are cosine sums.
    coefficients = np.cos(np.outer(orders, theta)) @ samples / (2 * points)
    return float(scale), tuple(float(c) for c in coefficients[::-1])


def _upper_half(z):
    """w(z) for Im z >= 0."""
    scale, coefficients = _weideman(_TERMS[dtype_of(z)])
    x, y = complex_ops.real(z), complex_ops.imag(z)
    d = complex_ops.complex(scale + y, -x)  # L - iz
    zz = complex_ops.complex(scale - y, x) / d  # (L + iz) / (L - iz)
    p = zz * coefficients[0] + coefficients[1]
    for c in coefficients[2:]:
        p = p * zz + c
    return (_RSQRT_PI + 2 * p / d) / d


def _two_sum(a, b):
    """``a + b`` as ``hi + lo`` exactly (Knuth's two-sum)."""
    hi = a + b
    b_part = hi - a
    lo = (a - (hi - b_part)) + (b - b_part)
    return hi, lo


def _finite_or_zero(v):
    """A rounding-error term, dropped where its product overflowed (then the leading term is
    infinite or zero, and the correction cannot matter)."""
    return ufuncs.where(ufuncs.isfinite(v), v, 0.0)


def _exp_minus_square(x, y):
    """``exp(-z^2)`` for ``z = x + iy`` from its modulus ``e^((y - x)(y + x))`` and phase
    ``-2xy``, each with its rounding carried as a correction term."""
    s_hi, s_lo = _two_sum(y, -x)
    t_hi, t_lo = _two_sum(y, x)
    e_hi, e_lo = se.two_product(s_hi, t_hi)
    e_lo = _finite_or_zero(e_lo + s_hi * t_lo + s_lo * t_hi)
    modulus = ufuncs.exp(e_hi) * (1 + e_lo)
    p_hi, p_lo = se.two_product(x, y)
    angle, delta = -2 * p_hi, -2 * _finite_or_zero(p_lo)
    cos, sin = ufuncs.cos(angle), ufuncs.sin(angle)
    # where e^(y^2 - x^2) underflows the phase may be inf or NaN; the value is 0 regardless
    vanished = modulus == 0
    real = ufuncs.where(vanished, 0.0, modulus * (cos - delta * sin))
    imag = ufuncs.where(vanished, 0.0, modulus * (sin + delta * cos))
    return real, imag


def _wofz_impl(z):
    x, y = complex_ops.real(z), complex_ops.imag(z)
    upper = y >= 0
    w_reflected = _upper_half(ufuncs.where(upper, z, -z))
    gauss_re, gauss_im = _exp_minus_square(x, y)
    w = ufuncs.where(upper, w_reflected, complex_ops.complex(2 * gauss_re, 2 * gauss_im) - w_reflected)
    on_axis = complex_ops.complex(gauss_re, complex_ops.imag(w))  # Re w(x) = e^(-x^2) for real x
    w = ufuncs.where(y == 0, on_axis, w)
    finite = ufuncs.isfinite(x) & ufuncs.isfinite(y)
    return ufuncs.where(finite, w, np.asarray(complex(np.nan, np.nan), dtype_of(z)))


wofz_p = se.primitive("wofz", _wofz_impl, 1, accepted=(tc.COMPLEX,))


def _wofz_jvp(primals, tangents):
    (z,), (t,) = primals, tangents
    w = wofz_p.bind(z)
    if isinstance(t, Zero):
        return w, Zero(core.get_aval(w))
    return w, t * (2j * _RSQRT_PI - 2 * z * w)


ad.defjvp_rule(wofz_p, _wofz_jvp)


def wofz(z):
    """The Faddeeva function ``w(z) = exp(-z^2) erfc(-iz)``, complex for every input (float64
    and 64-bit integers give complex128, other reals complex64), as jax's.

    Example::

        >>> numlir.scipy.special.wofz(1.0 + 1.0j)
        Array(0.30474427+0.20821898j, dtype=complex64)
    """
    check_arraylike("wofz", z)
    dtype = dtypes.complex_dtype_of(dtype_of(z))
    return wofz_p.bind(ew.convert_element_type(z, dtype, weak_type=False))
