"""Spence's function of jax.scipy.special, ``spence(x) = int_1^x log t / (1 - t) dt =
Li2(1 - x)`` for ``x >= 0`` (NaN below 0, as jax's).

The dilogarithm sums ``Li2(z) = sum_n B_n u^(n+1) / (n+1)!`` in ``u = -log(1 - z)`` (B_n the
Bernoulli numbers, B_1 = -1/2), whose terms shrink like ``(u / 2 pi)^n``; the reflection
``Li2(z) = pi^2/6 - log z log(1 - z) - Li2(1 - z)`` and the inversion
``Li2(z) = -pi^2/6 - log^2(-z) / 2 - Li2(1/z)`` keep ``|u| <= log 2``, where 13 terms
reach float64's precision. In terms of x, with no rounding in forming 1 - x:

- ``0.5 <= x <= 2``: ``u = -log x``;
- ``x < 0.5``: ``pi^2/6 - log(x) log1p(-x) - Li2(x)``;
- ``x > 2``: ``-pi^2/6 - log^2(x - 1) / 2 - Li2(1 / (1 - x))``, ``u = -log1p(1 / (x - 1))``.

Within 2 ulps of SciPy in float64. The derivative is ``log(x) / (1 - x)`` (-1 at x = 1, -inf
at 0), a primitive of its own whose derivative is ``(1/x - 1 + log x) / (1 - x)^2`` (1/2 at
1, by its series near 1, where the closed form cancels; +inf at 0). Below 0, where spence
is the constant NaN, both are 0, as jax's.
"""

from __future__ import annotations

from math import factorial

import numpy as np

from numlir._src import ad
from numlir._src.lax import elementwise as ew
from numlir._src.lax.special import _bernoulli_even
from numlir._src.numpy import creation, ufuncs
from numlir._src.numpy.util import dtype_of
from numlir._src.scipy import special_elementwise as se

_TERMS = 13


# Li2 = u - u^2/4 + sum_k c_k u^(2k+1), c_k = B_2k / (2k+1)!
_ODD_COEFFS = [float(b / factorial(2 * k + 1)) for k, b in enumerate(_bernoulli_even(_TERMS), start=1)]


def _li2(u):
    """``Li2(1 - e^-u)`` for |u| <= log 2."""
    u2 = u * u
    odd = 0.0 * u
    for c in reversed(_ODD_COEFFS):
        odd = c + u2 * odd
    return u - u2 / 4 + u * u2 * odd


def _spence_impl(x):
    low, high = x < 0.5, x > 2
    middle = ~low & ~high
    pi2_6 = np.pi ** 2 / 6
    xm = ufuncs.where(middle, x, 1.0)
    mid = _li2(-ufuncs.log(xm))
    xl = ufuncs.where(low & (x > 0), x, 0.25)
    lower = pi2_6 - ufuncs.log(xl) * ufuncs.log1p(-xl) - _li2(-ufuncs.log1p(-xl))
    xh = ufuncs.where(high & (x < np.inf), x, 4.0)
    log_h = ufuncs.log(xh - 1)
    upper = -pi2_6 - log_h * log_h / 2 - _li2(-ufuncs.log1p(1 / (xh - 1)))
    value = ufuncs.where(middle, mid, ufuncs.where(low, lower, upper))
    value = ufuncs.where(x == 0, pi2_6, ufuncs.where(x == 1, 0.0, value))
    value = ufuncs.where(x == np.inf, -np.inf, value)
    return ufuncs.where((x < 0) | ufuncs.isnan(x), np.nan, value)


spence_p = se.primitive("spence", _spence_impl, 1)


def _spence_slope_impl(x):
    """``spence'(x) = log(x) / (1 - x)``: -1 at 1, -inf at 0, and 0 below 0, where spence is
    the constant NaN (as jax's, whose derivative there is the constant branch's)."""
    at_one = x == 1
    safe = ufuncs.where(at_one, 2.0, x)
    slope = ufuncs.where(at_one, -1.0, ufuncs.log(safe) / (1 - safe))
    return ufuncs.where(x < 0, 0.0, slope)


# spence''(1 + e) = sum_k (-1)^k (k + 1) e^k / (k + 2), for |e| <= 1/8 (the last term is
# below 1e-17 of the first), where the closed form cancels.
_CURVATURE_TERMS = [(-1) ** k * (k + 1) / (k + 2) for k in range(19)]


def _spence_curvature(x):
    """``spence''(x) = (1/x - 1 + log x) / (1 - x)^2``: +inf at 0 (the limit from above), 1/2
    at 1 (by its series near 1), 0 below 0."""
    e = x - 1
    near_one = ufuncs.abs(e) <= 0.125
    series = 0.0 * x
    for c in reversed(_CURVATURE_TERMS):
        series = c + e * series
    safe = ufuncs.where(near_one | (x <= 0), 2.0, x)
    closed = (1 / safe - 1 + ufuncs.log(safe)) / ((1 - safe) * (1 - safe))
    value = ufuncs.where(near_one, series, closed)
    value = ufuncs.where(x == 0, np.inf, value)
    return ufuncs.where(x < 0, 0.0, value)


spence_slope_p = se.primitive("spence_slope", _spence_slope_impl, 1)
ad.defjvp(spence_p, lambda t, x: t * spence_slope_p.bind(x))
ad.defjvp(spence_slope_p, lambda t, x: t * _spence_curvature(x))


def spence(x):
    """Spence's function ``int_1^x log t / (1 - t) dt``, the dilogarithm ``Li2(1 - x)``
    (float32 or float64 only, as jax's; NaN for x < 0).

    Example::

        >>> numlir.scipy.special.spence(2.0)   # -pi^2 / 12
        Array(-0.822467, dtype=float32)
    """
    x = creation.asarray(x)
    dtype = dtype_of(x)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dtype} is not supported, see docstring for supported types.")
    return spence_p.bind(ew.convert_element_type(x, dtype, weak_type=False))

