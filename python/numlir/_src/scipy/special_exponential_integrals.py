"""The exponential integrals of jax.scipy.special: ``expn(n, x) = E_n(x) = int_1^inf
e^(-x t) t^-n dt``, ``exp1(x) = E_1(x)`` and ``expi(x) = Ei(x) = -E_1(-x)``.

- ``E_n(x)`` for ``0 < x <= 1`` and whole ``n >= 1`` sums its power series,
  ``(-x)^(n-1) / (n-1)! (psi(n) - log x) - sum_{k != n-1} (-x)^k / ((k - n + 1) k!)``,
  whose terms shrink from the first (about 20 of them in float64); for other n it is NaN
  there, as jax's;
- for ``x > 1`` and ``n >= 0`` it evaluates the continued fraction
  ``e^-x / (x + n - 1 n / (x + n + 2 - 2 (n + 1) / (x + n + 4 - ...)))`` from a fixed
  depth back (110 terms in float64, 40 in float32: enough at x = 1, where it converges
  slowest);
- for ``n < 0`` and every ``x > 0``, ``x^(n-1) Gamma(1 - n, x)`` with the regularized
  upper incomplete gamma function (a fraction of fixed depth falls short once -n grows,
  and jax's, which uses it for every n, gives E_-30(1.5) = -2.6e6, not 9.2e26);
- ``Ei(x)`` for ``0 < x <= 40`` (20 in float32) sums ``gamma + log x + sum x^k / (k k!)``,
  whose terms are positive, and above that the asymptotic series
  ``e^x / x sum_k k! / x^k``, cut where its terms are smallest (below 1e-16 of the sum).

Accuracy is within a few ulps of SciPy in float64 except near Ei's zero at x = 0.3725,
where only the absolute error is small. The edge values are the limits, where jax's
differ: ``expn(n, 0) = 1 / (n - 1)`` for n > 1 (jax says 1/n) and inf for n <= 1,
``expn(n, inf) = expn(inf, x) = 0``, ``expi(0) = -inf``, ``expi(-inf) = 0`` (jax gives NaN
for these); NaN for negative x.

The derivatives are jax's: ``d/dx E_n = -E_(n-1)`` (for n = 0,
``-e^-x (1 + x) / x^2``, which jax leaves NaN) and ``d/dx Ei = e^x / x``; E_n has none in n.
"""

from __future__ import annotations

import numpy as np

from numlir._src import ad
from numlir._src.lax import control_flow, incomplete_gamma, scan
from numlir._src.lax import special as lax_special
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.numpy.util import dtype_of
from numlir._src.scipy import special_elementwise as se

_MAX_STEPS = 1000
# Terms of E_n's continued fraction by itemsize: enough at x = 1, where it converges slowest.
_FRACTION_TERMS = {4: 40, 8: 110}


def _eps(x):
    return float(np.finfo(dtype_of(x)).eps)


def _not_all(done):
    return ~reductions.all(done)


def _series(n, x):
    """E_n(x) for integer n >= 1 and 0 < x <= 1 (other lanes must hold such values too)."""
    eps = _eps(x)
    # Up to this order the loop runs to k = n - 1 and takes (-x)^(n-1) / (n-1)! and
    # psi(n) = -gamma + sum_{k < n} 1/k from its own terms, exactly; past it that term is
    # below 1e-20 of the sum and lgamma and digamma give it closely enough.
    exact_orders = 24.0

    def cond(state):
        k, *_, done = state
        return _not_all(done) & (k < _MAX_STEPS)

    def body(state):
        k, term, total, lead, harmonic, done = state  # term = (-x)^k / k!
        kf = k.astype(dtype_of(x))
        denominator = kf - n + 1
        pole = denominator == 0
        step = ufuncs.where(pole, 0.0, -term / ufuncs.where(pole, 1.0, denominator))
        total = ufuncs.where(done, total, total + step)
        lead = ufuncs.where(pole, term, lead)
        harmonic = ufuncs.where(denominator < 0, harmonic + 1 / (kf + 1), harmonic)
        # |term| falls from k = 0 on (x <= 1), so what is left is below it.
        done = done | ((ufuncs.abs(term) <= eps * ufuncs.abs(total))
                       & ((denominator >= 0) | (n > exact_orders)))
        return k + 1, term * -x / (kf + 1), total, lead, harmonic, done

    zero = creation.zeros_like(x)
    start = (np.int32(0), creation.ones_like(x), zero, zero, zero, ufuncs.isnan(x))
    _, _, total, lead, harmonic, _ = control_flow.while_loop(cond, body, start)
    log_x = ufuncs.log(x)
    high = n > exact_orders
    safe_n = ufuncs.where(high, n, exact_orders + 1)
    odd = ufuncs.remainder(n - 1, 2) == 1
    magnitude = ufuncs.exp((safe_n - 1) * log_x - lax_special.lgamma(safe_n))
    lead = ufuncs.where(high, ufuncs.where(odd, -magnitude, magnitude), lead)
    psi = ufuncs.where(high, lax_special.digamma(safe_n), harmonic - np.euler_gamma)
    return lead * (psi - log_x) + total


def _fraction(n, x):
    """E_n(x) for n >= 0 and x >= 1, from the continued fraction's last term back to its
    first (a few ulps; a forward evaluation's rounding errors grow with its length)."""
    terms = _FRACTION_TERMS[dtype_of(x).itemsize]

    def body(j, tail):
        i = (terms - j).astype(dtype_of(x))
        return -i * (n - 1 + i) / (x + n + 2 * i + tail)

    tail = scan.fori_loop(0, terms, body, creation.zeros_like(x))
    return ufuncs.exp(-x) / (x + n + tail)


def _expn_positive(n, x):
    """E_n(x) for integer n >= 1 and finite x > 0; other lanes get something finite."""
    use_fraction = x > 1
    series = _series(ufuncs.where(use_fraction, 1.0, n), ufuncs.where(use_fraction, 0.5, x))
    fraction = _fraction(ufuncs.where(use_fraction, n, 1.0), ufuncs.where(use_fraction, x, 2.0))
    return ufuncs.where(use_fraction, fraction, series)


def _expn_impl(n, x):
    integer = n == ufuncs.floor(n)
    finite = (x > 0) & (x < np.inf)
    # 0 < x <= 1: the series, for whole n >= 1 (jax's is NaN for other n there).
    series_ok = finite & (x <= 1) & integer & (n >= 1)
    series = _series(ufuncs.where(series_ok, n, 1.0), ufuncs.where(series_ok, x, 0.5))
    # n < 0: E_n(x) = x^(n-1) Gamma(1 - n, x), the upper incomplete gamma function, for
    # every x > 0 (jax's is NaN for x <= 1, and its fraction's fixed depth falls short once
    # -n grows: E_-30(1.5) = 9.2e26 came out as -2.6e6, E_-1e30(1.5) = inf as -2.2e-31).
    gamma_ok = finite & (n < 0) & (n > -np.inf)
    a, xg = 1 - ufuncs.where(gamma_ok, n, -1.0), ufuncs.where(gamma_ok, x, 1.0)
    a, xg = (reshaping.broadcast_to(v, np.broadcast_shapes(a.shape, xg.shape)) for v in (a, xg))
    gamma_form = ufuncs.exp((-a) * ufuncs.log(xg) + lax_special.lgamma(a)
                            + ufuncs.log(incomplete_gamma.igammac(a, xg)))
    # x > 1, n >= 0: the continued fraction.
    fraction_ok = finite & (x > 1) & (n >= 0) & (n < np.inf)
    fraction = _fraction(ufuncs.where(fraction_ok, n, 1.0), ufuncs.where(fraction_ok, x, 2.0))
    value = ufuncs.where(fraction_ok, fraction, ufuncs.where(series_ok, series, np.nan))
    value = ufuncs.where(gamma_ok, gamma_form, value)
    value = ufuncs.where(finite & (n == np.inf), 0.0, ufuncs.where(finite & (n == -np.inf), np.inf, value))
    safe_x = ufuncs.where(x > 0, x, 1.0)
    value = ufuncs.where((n == 0) & (x > 0), ufuncs.exp(-safe_x) / safe_x, value)
    # E_n(0) = int_1^inf t^-n dt: inf for n <= 1, 1 / (n - 1) above.
    at_zero = ufuncs.where(n <= 1, np.inf, 1 / ufuncs.where(n <= 1, 2.0, n - 1))
    value = ufuncs.where(x == 0, at_zero, value)
    value = ufuncs.where(x == np.inf, 0.0, value)
    invalid = (x < 0) | ufuncs.isnan(n) | ufuncs.isnan(x)
    return ufuncs.where(invalid, np.nan, value)


def _expi_impl(x):
    dtype = dtype_of(x)
    eps = _eps(x)
    switch = 40.0 if dtype.itemsize >= 8 else 20.0
    negative = x < 0
    e1 = _expn_positive(creation.ones_like(x), ufuncs.where(negative & (x > -np.inf), -x, 1.0))
    use_series = (x > 0) & (x <= switch)
    xs = ufuncs.where(use_series, x, 1.0)

    def cond(state):
        k, _, _, done = state
        return _not_all(done) & (k < _MAX_STEPS)

    def body(state):
        k, term, total, done = state  # term = x^k / k!
        kf = k.astype(dtype)
        total = ufuncs.where(done, total, total + term / kf)
        done = done | ((term <= eps * kf * total) & (kf > xs))
        return k + 1, term * xs / (kf + 1), total, done

    start = (np.int32(1), xs, creation.zeros_like(x), ufuncs.isnan(x))
    series = np.euler_gamma + ufuncs.log(xs) + control_flow.while_loop(cond, body, start)[2]
    # Asymptotic: sum_{k <= switch} k! / x^k by Horner's rule; exp(x / 2) twice so that the
    # result overflows only where Ei itself does.
    xa = ufuncs.where(use_series | negative, switch + 1, x)
    terms = creation.ones_like(x)
    for k in range(int(switch), 0, -1):
        terms = 1 + k / xa * terms
    half = ufuncs.exp(xa / 2)
    asymptotic = half * (half / xa * terms)
    value = ufuncs.where(negative, -e1, ufuncs.where(use_series, series, asymptotic))
    value = ufuncs.where(x == 0, -np.inf, value)
    value = ufuncs.where(x == -np.inf, -0.0, value)
    return ufuncs.where(x == np.inf, np.inf, value)


expn_p = se.primitive("expn", _expn_impl, 2)
expi_p = se.primitive("expi", _expi_impl, 1)


def _no_order_tangent(t, n, x):
    raise NotImplementedError("expn has no derivative in its order n (as in JAX)")


def _expn_x_tangent(t, n, x):
    safe_x = ufuncs.where(x == 0, 1.0, x)
    order_zero = -ufuncs.exp(-safe_x) * (1 + safe_x) / (safe_x * safe_x)
    order_zero = ufuncs.where(x == 0, -np.inf, ufuncs.where(x < 0, np.nan, order_zero))
    return t * ufuncs.where(n == 0, order_zero, -expn_p.bind(n - 1, x))


ad.defjvp(expn_p, _no_order_tangent, _expn_x_tangent)
ad.defjvp(expi_p, lambda t, x: t * ufuncs.exp(x) / x)


def expn(n, x):
    """The generalized exponential integral ``E_n(x) = int_1^inf e^(-x t) / t^n dt``.

    Example::

        >>> numlir.scipy.special.expn(2, 1.0)
        Array(0.14849555, dtype=float32)
    """
    return se.apply(expn_p, "expn", n, x)


def exp1(x):
    """The exponential integral ``E_1(x) = int_x^inf e^-t / t dt`` (``expn(1, x)``).

    Example::

        >>> numlir.scipy.special.exp1(1.0)
        Array(0.21938396, dtype=float32)
    """
    (x,) = se.promote("exp1", x)
    return expn_p.bind(creation.ones_like(x), x)


def expi(x):
    """The exponential integral ``Ei(x) = int_-inf^x e^t / t dt`` (principal value).

    Example::

        >>> numlir.scipy.special.expi(1.0)
        Array(1.8951179, dtype=float32)
    """
    return se.apply(expi_p, "expi", x)
