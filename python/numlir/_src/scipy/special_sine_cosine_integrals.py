"""The sine and cosine integrals of jax.scipy.special: ``sici(x) = (Si(x), Ci(x))`` with
``Si(x) = int_0^x sin t / t dt`` and ``Ci(x) = gamma + log x + int_0^x (cos t - 1) / t dt``,
and Fresnel's ``fresnel(x) = (S(x), C(x))`` with ``S(x) = int_0^x sin(pi t^2 / 2) dt`` and
``C(x) = int_0^x cos(pi t^2 / 2) dt``.

Each pair sums its power series for small |x| (Si and Ci below 2, S and C below 1.6) and
above that evaluates a continued fraction of complex numbers, from a fixed depth back to
its first term (complex arithmetic spelled out on real and imaginary parts):

- ``E_1(i x) = e^-ix / (1 + i x - 1 / (3 + i x - 4 / (5 + i x - ...)))``, whence
  ``Si = pi/2 + Im E_1(ix)`` and ``Ci = -Re E_1(ix)``;
- ``C + i S = (1 + i)/2 (1 - e^(i pi x^2 / 2) (1 - i) x / (1 - i pi x^2 - 1 2 / (5 - i pi x^2 -
  3 4 / (9 - i pi x^2 - ...))))``, the continued fraction of erfc on the diagonal.

Far out (past 1e8 for Si/Ci, 1e5 for S/C in float64) the leading asymptotic terms are
exact to the dtype. ``sin(pi x^2 / 2)`` and its cosine reduce ``x^2 / 2`` modulo 2 exactly
(x = n + f, with ``n f`` split into two floats), so they keep full precision for large x.

Si, S and C are odd; Ci(-x) = Ci(x), as jax.scipy's (NaN at -inf). Derivatives are jax's:
``sin(x) / x``, ``cos(x) / x``, ``sin(pi x^2 / 2)`` and ``cos(pi x^2 / 2)``.
"""

from __future__ import annotations

import numpy as np

from numlir._src import ad
from numlir._src.lax import control_flow, scan
from numlir._src.numpy import creation, reductions, ufuncs
from numlir._src.numpy.util import dtype_of
from numlir._src.scipy import special_elementwise as se

_MAX_STEPS = 200


def _is64(x) -> bool:
    return dtype_of(x).itemsize >= 8


def _cmul(ar, ai, br, bi):
    return ar * br - ai * bi, ar * bi + ai * br


def _real_over(a, br, bi):
    """``a / (br + i bi)`` for real a."""
    scale = a / (br * br + bi * bi)
    return br * scale, -bi * scale


def _fraction(first, step, terms: int, like):
    """``1 / (b_1 + a_2 / (b_2 + ... a_N / b_N))`` for complex b_k and real a_k given by
    ``step(k) -> (a_k, b_k_re, b_k_im)`` (k a float array), from the last term back."""

    def body(j, tail):
        a, br, bi = step((terms - j).astype(dtype_of(like)))
        return _real_over(a, br + tail[0], bi + tail[1])

    zero = creation.zeros_like(like)
    tail = scan.fori_loop(0, terms - 1, body, (zero, zero))
    br, bi = first
    return _real_over(1.0 + zero, br + tail[0], bi + tail[1])


# --- Si and Ci ----------------------------------------------------------------------------------


def _sici_series(x):
    """``(Si(x), Ci(x) - gamma - log x)`` from their power series (0 <= x <= 2)."""
    eps = float(np.finfo(dtype_of(x)).eps)

    def cond(state):
        k, *_, done = state
        return ~reductions.all(done) & (k < _MAX_STEPS)

    def body(state):
        k, term, si, ci, done = state  # term = (-1)^m x^k / k!, k = 2m or 2m + 1
        kf = k.astype(dtype_of(x))
        odd = (k % 2) == 1
        step = term / kf
        si = ufuncs.where(done | ~odd, si, si + step)
        ci = ufuncs.where(done | odd, ci, ci + step)
        done = done | (ufuncs.abs(step) <= eps * ufuncs.minimum(ufuncs.abs(si), 1.0) * 0.5)
        # (-1)^m x^(k+1) / (k+1)!: the sign turns from every odd k to the next even k
        term = term * x / (kf + 1)
        term = ufuncs.where(odd, -term, term)
        return k + 1, term, si, ci, done

    zero = creation.zeros_like(x)
    start = (np.int32(1), x, zero, zero, (x == 0) | ufuncs.isnan(x))
    _, _, si, ci, _ = control_flow.while_loop(cond, body, start)
    return si, ci


def _sici_fraction(x):
    """``(Si(x), Ci(x))`` for x >= 2 from the continued fraction of ``E_1(ix)``."""
    terms = 90 if _is64(x) else 30

    def step(k):
        return -(k - 1) * (k - 1), 2 * k - 1, x

    hr, hi = _fraction((1.0 + 0.0 * x, x), step, terms, x)
    er, ei = _cmul(ufuncs.cos(x), -ufuncs.sin(x), hr, hi)
    return np.pi / 2 + ei, -er


def _sici(x, want: str):
    far = 1e8 if _is64(x) else 1e4
    ax = ufuncs.abs(x)
    small = ax < 2
    middle = ~small & (ax <= far)
    si_s, ci_s = _sici_series(ufuncs.where(small, ax, 1.0))
    si_f, ci_f = _sici_fraction(ufuncs.where(middle, ax, 2.0))
    big = ufuncs.where(middle | small, far * 2, ax)
    cos, sin = ufuncs.cos(big), ufuncs.sin(big)
    f, g = 1 / big, 1 / (big * big)  # the auxiliary functions' leading terms
    if want == "si":
        value = ufuncs.where(small, si_s, ufuncs.where(middle, si_f, np.pi / 2 - f * cos - g * sin))
        value = ufuncs.where(ax == np.inf, np.pi / 2, value)
        return ufuncs.where(x < 0, -value, value)
    log_ax = ufuncs.log(ufuncs.where(small, ax, 1.0))
    value = ufuncs.where(small, np.euler_gamma + log_ax + ci_s,
                         ufuncs.where(middle, ci_f, f * sin - g * cos))
    value = ufuncs.where(ax == np.inf, 0.0, value)
    value = ufuncs.where(x == 0, -np.inf, value)
    return ufuncs.where(x == -np.inf, np.nan, value)


si_p = se.primitive("sine_integral", lambda x: _sici(x, "si"), 1)
ci_p = se.primitive("cosine_integral", lambda x: _sici(x, "ci"), 1)


def _sinc_tangent(t, x):
    safe = ufuncs.where(x == 0, 1.0, x)
    return t * ufuncs.where(x == 0, 1.0, ufuncs.sin(safe) / safe)


ad.defjvp(si_p, _sinc_tangent)
ad.defjvp(ci_p, lambda t, x: t * ufuncs.cos(x) / x)


def sici(x):
    """The sine and cosine integrals ``(Si(x), Ci(x))``.

    Example::

        >>> si, ci = numlir.scipy.special.sici(1.0)   # 0.9460831, 0.3374039
    """
    (x,) = se.promote("sici", x)
    return si_p.bind(x), ci_p.bind(x)


# --- Fresnel's S and C ------------------------------------------------------------------------


def _mod2(v):
    return v - 2 * ufuncs.round(v / 2)


def sincos_pi_half_square(x):
    """``(sin(pi x^2 / 2), cos(pi x^2 / 2))`` with x^2 / 2 reduced modulo 2 exactly."""
    n = ufuncs.round(x)
    f = x - n  # exact, |f| <= 1/2
    whole = ufuncs.where(f == 0, 0.0, n)  # past 2^mantissa f is 0 and n f needs no split
    hi, lo = se.two_product(whole, f)
    odd = ufuncs.remainder(n, 2) == 1  # n^2 / 2 = 1/2 (mod 2) for odd n, 0 for even n
    r = _mod2(ufuncs.where(odd, 0.5, 0.0) + _mod2(hi) + lo + f * f / 2)
    angle = np.pi * r
    return ufuncs.sin(angle), ufuncs.cos(angle)


def _fresnel_series(x):
    """``(S(x), C(x))`` from ``C + i S = x sum_n (i t)^n / (n! (2n + 1))``, ``t = pi x^2 / 2``."""
    eps = float(np.finfo(dtype_of(x)).eps)
    t = np.pi / 2 * x * x

    def cond(state):
        n, *_, done = state
        return ~reductions.all(done) & (n < _MAX_STEPS)

    def body(state):
        n, term, s, c, done = state  # term = t^n / n!, the sign of i^n applied below
        nf = n.astype(dtype_of(x))
        step = term / (2 * nf + 1)
        quarter = n % 4
        signed = ufuncs.where(quarter >= 2, -step, step)
        imaginary = (quarter % 2) == 1
        s = ufuncs.where(done | ~imaginary, s, s + signed)
        c = ufuncs.where(done | imaginary, c, c + signed)
        done = done | (step <= eps * 0.25 * ufuncs.maximum(ufuncs.abs(c), 1e-30))
        return n + 1, term * t / (nf + 1), s, c, done

    zero = creation.zeros_like(x)
    start = (np.int32(0), creation.ones_like(x), zero, zero, (x == 0) | ufuncs.isnan(x))
    _, _, s, c, _ = control_flow.while_loop(cond, body, start)
    return x * s, x * c


def _fresnel_fraction(x, sin, cos):
    """``(S(x), C(x))`` for x >= 1.6 from the continued fraction of erfc."""
    terms = 50 if _is64(x) else 20
    z = np.pi * x * x

    def step(k):
        odd = 2 * k - 3
        return -odd * (odd + 1), 4 * k - 3, -z

    hr, hi = _fraction((1.0 + 0.0 * x, -z), step, terms, x)
    hr, hi = _cmul(hr, hi, x, -x)
    er, ei = _cmul(cos, sin, hr, hi)
    # (1 + i)/2 (1 - e): real part (1 - er + ei) / 2, imaginary part (1 - er - ei) / 2
    return (1 - er - ei) / 2, (1 - er + ei) / 2


def _fresnel(x, want: str):
    far = 1e5 if _is64(x) else 100.0
    ax = ufuncs.abs(x)
    small = ax < 1.6
    middle = ~small & (ax <= far)
    sin, cos = sincos_pi_half_square(ufuncs.where(ax == np.inf, 0.0, ax))
    s_s, c_s = _fresnel_series(ufuncs.where(small, ax, 1.0))
    s_f, c_f = _fresnel_fraction(ufuncs.where(middle, ax, 2.0), sin, cos)
    big = ufuncs.where(small | middle, far * 2, ax)
    f, g = 1 / (np.pi * big), 1 / (np.pi * np.pi * big * big * big)
    if want == "s":
        value = ufuncs.where(small, s_s, ufuncs.where(middle, s_f, 0.5 - f * cos - g * sin))
    else:
        value = ufuncs.where(small, c_s, ufuncs.where(middle, c_f, 0.5 + f * sin - g * cos))
    value = ufuncs.where(ax == np.inf, 0.5, value)
    return ufuncs.where(x < 0, -value, value)


fresnel_s_p = se.primitive("fresnel_s", lambda x: _fresnel(x, "s"), 1)
fresnel_c_p = se.primitive("fresnel_c", lambda x: _fresnel(x, "c"), 1)
ad.defjvp(fresnel_s_p, lambda t, x: t * sincos_pi_half_square(x)[0])
ad.defjvp(fresnel_c_p, lambda t, x: t * sincos_pi_half_square(x)[1])


def fresnel(x):
    """The Fresnel integrals ``(S(x), C(x))``.

    Example::

        >>> s, c = numlir.scipy.special.fresnel(1.0)   # 0.43825915, 0.7798934
    """
    (x,) = se.promote("fresnel", x)
    return fresnel_s_p.bind(x), fresnel_c_p.bind(x)
