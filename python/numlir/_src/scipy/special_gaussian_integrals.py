"""Integrals of the Gaussian of jax.scipy.special: Dawson's integral
``dawsn(x) = e^(-x^2) int_0^x e^(t^2) dt`` and Owen's T function
``owens_t(h, a) = 1/(2 pi) int_0^a e^(-h^2 (1 + u^2) / 2) / (1 + u^2) du``.

dawsn sums ``e^(-x^2) sum_n x^(2n+1) / (n! (2n + 1))``, whose terms are positive, below
|x| = 6.5 (5 in float32), with ``e^(-x^2)`` taken from x^2 split exactly into two floats;
above, the asymptotic series ``1/(2x) sum_k (2k - 1)!! / (2 x^2)^k`` (28 terms; 14 in
float32). Both agree with SciPy to a few ulps.

owens_t integrates by Gauss-Legendre quadrature (24 nodes; 12 in float32) over
``[0, min(|a|, V / |h|)]``, past which the integrand is below ``e^(-V^2/2)`` of its
largest value (V = 9; 6.5 in float32), for ``|a| <= 1``; for ``|a| > 1`` it uses
``T(h, a) = (Q(h) + Q(a h)) / 2 - Q(h) Q(a h) - T(a h, 1/a)`` with the upper normal tail
``Q`` from erfc, which keeps relative precision far in the tails (within 1e-14 of
SciPy, whose own error there reaches 1e-13). T is even in h and odd in a.

Derivatives are jax's: ``1 - 2 x dawsn(x)``; ``dT/dh = -e^(-h^2/2) erf(a h / sqrt 2) /
(2 sqrt(2 pi))`` and ``dT/da = e^(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2))``.
"""

from __future__ import annotations

import numpy as np

from numlir._src import ad
from numlir._src.lax import control_flow
from numlir._src.lax import special as lax_special
from numlir._src.numpy import creation, reductions, ufuncs
from numlir._src.numpy.util import dtype_of
from numlir._src.scipy import special_elementwise as se

_MAX_STEPS = 400


# --- Dawson's integral ------------------------------------------------------------------------


def _dawsn_impl(x):
    is64 = dtype_of(x).itemsize >= 8
    switch, asymptotic_terms = (6.5, 28) if is64 else (5.0, 14)
    eps = float(np.finfo(dtype_of(x)).eps)
    ax = ufuncs.abs(x)
    use_series = ax < switch
    xs = ufuncs.where(use_series, ax, 1.0)
    square = xs * xs

    def cond(state):
        n, *_, done = state
        return ~reductions.all(done) & (n < _MAX_STEPS)

    def body(state):
        n, term, total, done = state  # term = x^(2n) / n!
        nf = n.astype(dtype_of(x))
        step = term / (2 * nf + 1)
        total = ufuncs.where(done, total, total + step)
        done = done | ((step <= eps * 0.25 * total) & (nf > square))
        return n + 1, term * square / (nf + 1), total, done

    start = (np.int32(0), creation.ones_like(x), creation.zeros_like(x), ufuncs.isnan(x))
    total = control_flow.while_loop(cond, body, start)[2]
    hi, lo = se.two_product(xs, xs)
    series = xs * total * ufuncs.exp(-hi) * (1 - lo)
    xa = ufuncs.where(use_series, switch, ax)
    y = 1 / (2 * xa * xa)
    tail = creation.ones_like(x)
    for k in range(asymptotic_terms, 0, -1):
        tail = 1 + (2 * k - 1) * y * tail
    value = ufuncs.where(use_series, series, tail / (2 * xa))
    value = ufuncs.where(ax == np.inf, 0.0, value)
    return ufuncs.where(x < 0, -value, value)


dawsn_p = se.primitive("dawsn", _dawsn_impl, 1)
ad.defjvp(dawsn_p, lambda t, x: t * (1 - 2 * x * dawsn_p.bind(x)))


def dawsn(x):
    """Dawson's integral ``e^(-x^2) int_0^x e^(t^2) dt``.

    Example::

        >>> numlir.scipy.special.dawsn(1.0)
        Array(0.5380795, dtype=float32)
    """
    return se.apply(dawsn_p, "dawsn", x)


# --- Owen's T function --------------------------------------------------------------------------


def _gauss_legendre(count: int):
    nodes, weights = np.polynomial.legendre.leggauss(count)
    return (nodes + 1) / 2, weights / 2  # on [0, 1]


_QUADRATURE = {8: (9.0, _gauss_legendre(24)), 4: (6.5, _gauss_legendre(12))}


def _quadrature(h, a):
    """T(h, a) for h >= 0 and 0 <= a <= 1 (h finite)."""
    reach, (nodes, weights) = _QUADRATURE[dtype_of(h).itemsize]
    # Past h = 1e15 the integrand's factor e^(-h^2/2) is 0 in every dtype; the clamp keeps
    # h^2 finite, so that 0 is not inf * 0.
    h = ufuncs.minimum(h, 1e15)
    safe_h = ufuncs.where(h > 0, h, 1.0)
    upper = ufuncs.where(h > 0, ufuncs.minimum(a, reach / safe_h), a)
    half_h2 = h * h / 2
    total = creation.zeros_like(h)
    for node, weight in zip(nodes, weights):
        u2 = (upper * float(node)) ** 2
        total = total + float(weight) * ufuncs.exp(-half_h2 * u2) / (1 + u2)
    return ufuncs.exp(-half_h2) * upper * total / (2 * np.pi)


# Python floats, so that they stay weak next to float32 operands (np.float64 would not).
_SQRT_HALF = float(np.sqrt(0.5))
_TWO_SQRT_TWO_PI = float(2 * np.sqrt(2 * np.pi))


def _upper_tail(z):
    return lax_special.erfc(z * _SQRT_HALF) / 2


def _owens_t_impl(h, a):
    ah, aa = ufuncs.abs(h), ufuncs.abs(a)
    finite = ah < np.inf
    small = aa <= 1
    inside = ufuncs.where(finite & small, ah, 0.0)
    direct = _quadrature(inside, ufuncs.where(finite & small, aa, 0.0))
    # |a| > 1: reflect to T(a h, 1/a)
    wide = finite & ~small & (aa < np.inf)
    rh = ufuncs.where(wide, ah, 0.0)
    ra = ufuncs.where(wide, aa, 2.0)
    q_h, q_ah = _upper_tail(rh), _upper_tail(ra * rh)
    reflected = (q_h + q_ah) / 2 - q_h * q_ah - _quadrature(ra * rh, 1 / ra)
    value = ufuncs.where(small, direct, reflected)
    # |a| = inf: Q(h) / 2, and 1/4 at h = 0
    value = ufuncs.where(aa == np.inf, ufuncs.where(ah == 0, 0.25, _upper_tail(ah) / 2), value)
    value = ufuncs.where(finite, value, 0.0)
    value = ufuncs.where(a < 0, -value, value)
    return ufuncs.where(ufuncs.isnan(h) | ufuncs.isnan(a), np.nan, value)


owens_t_p = se.primitive("owens_t", _owens_t_impl, 2)


def _owens_t_h_tangent(t, h, a):
    slope = -ufuncs.exp(-h * h / 2) * lax_special.erf(a * h * _SQRT_HALF) / _TWO_SQRT_TWO_PI
    return t * slope


def _owens_t_a_tangent(t, h, a):
    spread = 1 + a * a
    return t * ufuncs.exp(-h * h * spread / 2) / (2 * np.pi * spread)


ad.defjvp(owens_t_p, _owens_t_h_tangent, _owens_t_a_tangent)


def owens_t(h, a):
    """Owen's T function ``1/(2 pi) int_0^a e^(-h^2 (1 + u^2) / 2) / (1 + u^2) du``.

    Example::

        >>> numlir.scipy.special.owens_t(0.5, 2.0)
        Array(0.1415806, dtype=float32)
    """
    return se.apply(owens_t_p, "owens_t", h, a)
