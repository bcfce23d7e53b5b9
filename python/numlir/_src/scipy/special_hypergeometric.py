"""The confluent and Gauss hypergeometric functions of jax.scipy.special:
``hyp1f1(a, b, x) = sum_k (a)_k / (b)_k x^k / k!`` and
``hyp2f1(a, b, c, x) = sum_k (a)_k (b)_k / (c)_k x^k / k!`` for real arguments.

hyp1f1 takes x >= 0 as it is and x < 0 through Kummer's transformation
``M(a, b, x) = e^x M(b - a, b, -x)``, so the series it sums has positive terms when
``0 < a < b``, whatever the sign of x (jax's alternating series loses everything to
cancellation at x = -50). Past z = 50 (30 in float32) it takes the asymptotic series
``M(a, b, z) ~ Gamma(b) / Gamma(a) e^z z^(a-b) sum_k (b - a)_k (1 - a)_k / (k! z^k)``, where
that converges to the dtype's precision before its terms grow and the term it leaves out
(about ``Gamma(b) / Gamma(b - a) z^-a``) is below that precision, and the power series
elsewhere. Polynomial cases (a or b - a a non-positive integer) sum their terms exactly.

hyp2f1, for x < 1, maps x < 0 into (0, 1) by Pfaff's transformation
``F(a, b; c; x) = (1 - x)^-a F(a, c - b; c; x / (x - 1))``, sums the power series up to
z = 0.9, and above uses the connection to ``1 - z``:
``F = G(c) G(d) / (G(c-a) G(c-b)) F(a, b; 1-d; 1-z) + (1-z)^d G(c) G(-d) / (G(a) G(b))
F(c-a, c-b; d+1; 1-z)`` with ``d = c - a - b`` (G the gamma function), and at integer d
its limit, the series with digamma terms of Abramowitz & Stegun 15.3.10-11 (15.3.12
through Euler's transformation ``F = (1-z)^d F(c-a, c-b; c; z)``). Within sqrt(eps) of an
integer d the integer form is used, so accuracy there is about sqrt(eps) relative.
Polynomial cases (a, b, c - a or c - b a non-positive integer) are summed exactly.

The special values are jax's: ``hyp1f1`` is 1 at a = 0 (even at b = 0), e^x at a = b and
inf at b = 0 (and at the other poles, b a non-positive integer, unless a polynomial
stops first); ``hyp2f1`` is 1 at x = 0 or a = 0 or b = 0 (c != 0), inf at c = 0, at c a
negative integer and for x > 1, the Gauss sum at x = 1 (inf where c - a - b <= 0).

Derivatives are jax's formulas: ``d/dx = (a/b) M(a+1, b+1, x)`` and
``(ab/c) F(a+1, b+1; c+1; x)``, and in the parameters the termwise derivatives of the
series (``(a)_k`` differentiated by a recurrence, so they hold at polynomial cases too),
taken through the same transformations (so they converge for every x < 1 and for
negative x in hyp1f1). The parameter derivatives have no derivatives of their own.
"""

from __future__ import annotations

import numpy as np

from numlir._src import ad
from numlir._src.lax import control_flow
from numlir._src.lax import special as lax_special
from numlir._src.numpy import creation, reductions, ufuncs
from numlir._src.numpy.util import dtype_of
from numlir._src.scipy import special_elementwise as se

_MAX_STEPS = 3000


def _eps(x) -> float:
    return float(np.finfo(dtype_of(x)).eps)


def _is64(x) -> bool:
    return dtype_of(x).itemsize >= 8


def _nonpositive_integer(v):
    return (v <= 0) & (v == ufuncs.floor(v))


def _gammasgn(v):
    """The sign of Gamma(v) (1 at the poles, where callers never use it)."""
    odd = ufuncs.remainder(ufuncs.floor(v), 2) == 1
    return ufuncs.where((v < 0) & odd, -1.0, 1.0).astype(dtype_of(v))


def _gamma_ratio(num, den):
    """``prod Gamma(num) / prod Gamma(den)`` as (sign, log of the magnitude)."""
    sign, log = 1.0, 0.0
    for v in num:
        sign, log = sign * _gammasgn(v), log + lax_special.lgamma(v)
    for v in den:
        sign, log = sign * _gammasgn(v), log - lax_special.lgamma(v)
    return sign, log


def _last_sign_change(*params):
    """Past this k every factor (p + k) has the sign it keeps."""
    past = 0.0 * params[0]
    for p in params:
        past = ufuncs.maximum(past, -p)
    return past


def _series(num, den, z):
    """``sum_k prod (num)_k / prod (den)_k z^k / k!``, to the dtype's precision (a
    polynomial when a numerator parameter is a non-positive integer)."""
    eps = _eps(z)
    past = _last_sign_change(*num, *den)

    def cond(state):
        k, *_, done = state
        return ~reductions.all(done) & (k < _MAX_STEPS)

    def body(state):
        k, term, total, done = state
        kf = k.astype(dtype_of(z))
        total = ufuncs.where(done, total, total + term)
        ratio = z / (kf + 1)
        for p in num:
            ratio = ratio * (p + kf)
        for q in den:
            ratio = ratio / (q + kf)
        term = term * ratio
        done = done | ((ufuncs.abs(term) <= eps * ufuncs.abs(total)) & (kf >= past))
        return k + 1, term, total, done

    start = (np.int32(0), creation.ones_like(z), creation.zeros_like(z), ufuncs.isnan(z))
    return control_flow.while_loop(cond, body, start)[2]


def _series_derivatives(num, den, z):
    """The derivatives of ``_series(num, den, z)`` in each numerator and denominator
    parameter, term by term: each term's derivative follows its own recurrence, so a
    polynomial case (a term that reaches 0) still gets the derivative of the series."""
    eps = _eps(z)
    past = _last_sign_change(*num, *den)
    count = len(num) + len(den)

    def cond(state):
        k, *_, done = state
        return ~reductions.all(done) & (k < _MAX_STEPS)

    def body(state):
        k, term, dterms, totals, done = state
        kf = k.astype(dtype_of(z))
        totals = tuple(ufuncs.where(done, t, t + d) for t, d in zip(totals, dterms))
        base = z / (kf + 1)  # the ratio without numerator factors, over the denominators
        for q in den:
            base = base / (q + kf)
        ratio = base
        for p in num:
            ratio = ratio * (p + kf)
        new = []
        for i, p in enumerate(num):  # d/dp (p + k) = 1
            others = base
            for j, p2 in enumerate(num):
                if j != i:
                    others = others * (p2 + kf)
            new.append(dterms[i] * ratio + term * others)
        for i, q in enumerate(den):  # d/dq 1/(q + k) = -1/(q + k)^2
            new.append((dterms[len(num) + i] - term / (q + kf)) * ratio)
        term = term * ratio
        settled = kf >= past
        for d, t in zip(new, totals):
            settled = settled & (ufuncs.abs(d) <= eps * ufuncs.abs(t))
        return k + 1, term, tuple(new), totals, done | settled

    zero = creation.zeros_like(z)
    start = (np.int32(0), creation.ones_like(z), (zero,) * count, (zero,) * count, ufuncs.isnan(z))
    return control_flow.while_loop(cond, body, start)[3]


# --- hyp1f1 ------------------------------------------------------------------------------------


def _asymptotic_switch(z) -> float:
    return 50.0 if _is64(z) else 30.0


def _kummer(a, b, x):
    """``(alpha, z, shift)`` with ``M(a, b, x) = e^shift M(alpha, b, z)`` and z >= 0."""
    negative = x < 0
    return ufuncs.where(negative, b - a, a), ufuncs.abs(x), ufuncs.where(negative, x, 0.0)


def _hyp1f1_asymptotic(alpha, b, z):
    """``(sum_k (b - alpha)_k (1 - alpha)_k / (k! z^k), converged)``: the sum up to its
    smallest term, and whether that term fell below the dtype's precision."""
    eps = _eps(z)
    steps = int(_asymptotic_switch(z)) * 4

    def cond(state):
        k, *_, done, _ = state
        return ~reductions.all(done) & (k < steps)

    def body(state):
        k, term, total, done, converged = state
        kf = k.astype(dtype_of(z))
        total = ufuncs.where(done, total, total + term)
        new = term * (b - alpha + kf) * (1 - alpha + kf) / ((kf + 1) * z)
        small = ufuncs.abs(new) <= eps * ufuncs.abs(total)
        growing = (ufuncs.abs(new) > ufuncs.abs(term)) & (kf >= _last_sign_change(b - alpha, 1 - alpha))
        converged = converged | (~done & small)
        return k + 1, new, total, done | small | growing, converged

    false = creation.zeros_like(z, dtype=bool)
    start = (np.int32(0), creation.ones_like(z), creation.zeros_like(z), false, false)
    _, _, total, _, converged = control_flow.while_loop(cond, body, start)
    return total, converged


def _hyp1f1_impl(a, b, x):
    alpha, z, shift = _kummer(a, b, x)
    polynomial = _nonpositive_integer(alpha)
    far = (z > _asymptotic_switch(z)) & ~polynomial & (b > 0)
    za = ufuncs.where(far, z, _asymptotic_switch(z) * 2)
    aa = ufuncs.where(far, alpha, 0.5)
    ba = ufuncs.where(far, b, 1.5)
    tail, converged = _hyp1f1_asymptotic(aa, ba, za)
    sign, log = _gamma_ratio([ba], [aa])
    asymptotic = sign * ufuncs.exp(shift + za + (aa - ba) * ufuncs.log(za) + log) * tail
    # the expansion leaves out a term about Gamma(b) / Gamma(b - a) z^-a: it must be below
    # the dtype's precision relative to the one it keeps
    neglected = (-za + (ba - 2 * aa) * ufuncs.log(za) + lax_special.lgamma(aa)
                 - ufuncs.where(_nonpositive_integer(ba - aa), np.inf, lax_special.lgamma(ba - aa)))
    use_asymptotic = far & converged & (neglected < np.log(_eps(z)))
    series = ufuncs.exp(shift) * _series([ufuncs.where(use_asymptotic, 1.0, alpha)],
                                         [ufuncs.where(use_asymptotic, 2.0, b)],
                                         ufuncs.where(use_asymptotic, 0.0, z))
    value = ufuncs.where(use_asymptotic, asymptotic, series)
    # b a non-positive integer is a pole, unless a polynomial in a ends before it
    pole = _nonpositive_integer(b) & ~(_nonpositive_integer(a) & (a > b))
    value = ufuncs.where(pole, np.inf, value)
    value = ufuncs.where(b == 0, np.inf, ufuncs.where(a == b, ufuncs.exp(x), value))
    value = ufuncs.where(a == 0, 1.0, value)
    return ufuncs.where(ufuncs.isnan(a) | ufuncs.isnan(b) | ufuncs.isnan(x), np.nan, value)


def _hyp1f1_parameter_derivative(which: str):
    def impl(a, b, x):
        alpha, z, shift = _kummer(a, b, x)
        d_alpha, d_b = _series_derivatives([alpha], [b], z)
        scale = ufuncs.exp(shift)
        if which == "a":  # alpha = b - a for x < 0
            return scale * ufuncs.where(x < 0, -d_alpha, d_alpha)
        return scale * ufuncs.where(x < 0, d_alpha + d_b, d_b)

    return impl


hyp1f1_p = se.primitive("hyp1f1", _hyp1f1_impl, 3)
hyp1f1_da_p = se.primitive("hyp1f1_da", _hyp1f1_parameter_derivative("a"), 3)
hyp1f1_db_p = se.primitive("hyp1f1_db", _hyp1f1_parameter_derivative("b"), 3)


def _no_tangent(name):
    def rule(t, *args):
        raise NotImplementedError(f"{name} has no derivatives of its own")

    return rule


ad.defjvp(hyp1f1_p,
          lambda t, a, b, x: t * hyp1f1_da_p.bind(a, b, x),
          lambda t, a, b, x: t * hyp1f1_db_p.bind(a, b, x),
          lambda t, a, b, x: t * a / b * hyp1f1_p.bind(a + 1, b + 1, x))
for _p in (hyp1f1_da_p, hyp1f1_db_p):
    ad.defjvp(_p, *[_no_tangent(f"the parameter derivative of hyp1f1 ({_p.name})")] * 3)


def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function ``1F1(a; b; x)``.

    Example::

        >>> numlir.scipy.special.hyp1f1(1.0, 2.0, 1.0)   # (e - 1) / 1
        Array(1.7182816, dtype=float32)
    """
    return se.apply(hyp1f1_p, "hyp1f1", a, b, x)


# --- hyp2f1 ------------------------------------------------------------------------------------

_DIRECT_LIMIT = 0.9


def _pfaff(a, b, c, x):
    """``(a', b', z, log_scale, turned, swapped)`` with ``F(a, b; c; x) = e^log_scale
    F(a', b'; c; z)`` and 0 <= z < 1 for x < 1: x < 0 goes through Pfaff's transformation
    (``turned``; a and b exchanged first where ``swapped``), polynomial cases stay as
    they are."""
    polynomial = _nonpositive_integer(a) | _nonpositive_integer(b)
    turn = (x < 0) & ~polynomial
    # keep whichever of a, b makes c - (other) a polynomial parameter, if either does
    swap = turn & _nonpositive_integer(c - a) & ~_nonpositive_integer(c - b)
    first = ufuncs.where(swap, b, a)
    second = ufuncs.where(swap, a, b)
    s = 1 - x
    z = ufuncs.where(turn, x / (x - 1), x)
    log_scale = ufuncs.where(turn, -first * ufuncs.log(ufuncs.where(turn, s, 1.0)), 0.0)
    return (ufuncs.where(turn, first, a), ufuncs.where(turn, c - second, b), z, log_scale, turn, swap)


def _integer_connection(a, b, m, w):
    """``F(a, b; a + b + m; 1 - w)`` for integer m >= 0 and 0 < w <= 0.1, from A&S 15.3.10-11
    (a, b not non-positive integers)."""
    eps = _eps(w)
    c = a + b + m
    log_w = ufuncs.log(w)
    positive_m = m > 0
    safe_m = ufuncs.where(positive_m, m, 1.0)
    # finite part: Gamma(m) Gamma(c) / (Gamma(a+m) Gamma(b+m)) sum_{n<m} (a)_n (b)_n / (n! (1-m)_n) w^n
    sign1, log1 = _gamma_ratio([safe_m, c], [a + m, b + m])
    # series part: -(-1)^m Gamma(c) / (Gamma(a) Gamma(b)) w^m / m! sum_n ...
    sign2, log2 = _gamma_ratio([c], [a, b, m + 1])
    odd = ufuncs.remainder(m, 2) == 1
    sign2 = ufuncs.where(odd, sign2, -sign2)
    past = _last_sign_change(a + m, b + m)

    def cond(state):
        n, *_, done = state
        return ~reductions.all(done) & (n < _MAX_STEPS)

    def body(state):
        n, f_term, f_sum, s_term, s_sum, psi1, psim, psia, psib, done = state
        nf = n.astype(dtype_of(w))
        finite = nf < m
        f_sum = ufuncs.where(finite & ~done, f_sum + f_term, f_sum)
        step_denominator = (nf + 1) * ufuncs.where(nf + 1 < m, 1 - m + nf, 1.0)
        f_term = f_term * (a + nf) * (b + nf) * w / step_denominator
        step = s_term * (log_w - psi1 - psim + psia + psib)
        s_sum = ufuncs.where(done, s_sum, s_sum + step)
        s_term = s_term * (a + m + nf) * (b + m + nf) * w / ((nf + 1) * (m + nf + 1))
        psi1 = psi1 + 1 / (nf + 1)
        psim = psim + 1 / (m + nf + 1)
        psia = psia + 1 / (a + m + nf)
        psib = psib + 1 / (b + m + nf)
        settled = ~finite & (ufuncs.abs(step) <= eps * ufuncs.abs(s_sum)) & (nf >= past)
        return (n + 1, f_term, f_sum, s_term, s_sum, psi1, psim, psia, psib, done | settled)

    one, zero = creation.ones_like(w), creation.zeros_like(w)
    start = (np.int32(0), one, zero, one, zero, zero - np.euler_gamma, lax_special.digamma(m + 1),
             lax_special.digamma(a + m), lax_special.digamma(b + m), ufuncs.isnan(w))
    state = control_flow.while_loop(cond, body, start)
    f_sum, s_sum = state[2], state[4]
    finite = ufuncs.where(positive_m, sign1 * ufuncs.exp(log1) * f_sum, 0.0)
    return finite + sign2 * ufuncs.exp(log2 + m * log_w) * s_sum


def _hyp2f1_below_one(a, b, c, x):
    """F(a, b; c; x) for x < 1 (c not a non-positive integer)."""
    eps = _eps(x)
    a, b, z, log_scale, _, _ = _pfaff(a, b, c, x)
    d = c - a - b
    w = 1 - z
    polynomial = _nonpositive_integer(a) | _nonpositive_integer(b)
    euler_polynomial = ~polynomial & (_nonpositive_integer(c - a) | _nonpositive_integer(c - b))
    direct = polynomial | (z <= _DIRECT_LIMIT)
    connect = ~direct & ~euler_polynomial
    m = ufuncs.round(d)
    integer = connect & (ufuncs.abs(d - m) < np.sqrt(eps))
    general = connect & ~integer

    # one power series: F itself (direct) or Euler's polynomial (1 - z)^d F(c-a, c-b; c; z)
    series_z = ufuncs.where(direct | euler_polynomial, z, 0.0)
    pa = ufuncs.where(euler_polynomial, c - a, a)
    pb = ufuncs.where(euler_polynomial, c - b, b)
    series = _series([pa, pb], [c], series_z)
    safe_w = ufuncs.where(connect | euler_polynomial, w, 0.5)
    series = ufuncs.where(euler_polynomial, ufuncs.power(safe_w, d) * series, series)

    # the connection to 1 - z at non-integer d
    ga, gb, gc = (ufuncs.where(general, v, u) for v, u in ((a, 0.25), (b, 0.5), (c, 1.5)))
    gd = gc - ga - gb
    gw = ufuncs.where(general, w, 0.5)
    sign1, log1 = _gamma_ratio([gc, gd], [gc - ga, gc - gb])
    sign2, log2 = _gamma_ratio([gc, -gd], [ga, gb])
    first = _series([ga, gb], [1 - gd], gw)
    second = _series([gc - ga, gc - gb], [gd + 1], gw)
    connected = (sign1 * ufuncs.exp(log1) * first
                 + sign2 * ufuncs.exp(log2 + gd * ufuncs.log(gw)) * second)

    # integer d: m >= 0 directly, m < 0 after Euler's transformation
    negative = m < 0
    ia = ufuncs.where(integer, ufuncs.where(negative, c - a, a), 0.25)
    ib = ufuncs.where(integer, ufuncs.where(negative, c - b, b), 0.5)
    im = ufuncs.where(integer, ufuncs.abs(m), 1.0)
    iw = ufuncs.where(integer, w, 0.05)
    limit = _integer_connection(ia, ib, im, iw)
    limit = ufuncs.where(negative, ufuncs.power(iw, ufuncs.where(integer, d, 0.0)) * limit, limit)

    value = ufuncs.where(general, connected, ufuncs.where(integer, limit, series))
    return ufuncs.exp(log_scale) * value


def _hyp2f1_impl(a, b, c, x):
    eps50 = 50 * _eps(x)
    d = c - a - b
    s = 1 - x
    below = x < 1
    safe_x = ufuncs.where(below, x, 0.0)
    general = _hyp2f1_below_one(a, b, c, safe_x)
    sign, log = _gamma_ratio([c, d], [c - a, c - b])
    gauss = sign * ufuncs.exp(log)
    # jax's cases, in jax's order of precedence
    euler = (d <= -1) & ~((ufuncs.abs(d - ufuncs.round(d)) >= eps50) & (s < 0))
    polynomial_beyond = _nonpositive_integer(c - a) | _nonpositive_integer(c - b)
    beyond = _series([c - a, c - b], [c], ufuncs.where(euler & (x > 1) & polynomial_beyond, x, 0.0))
    # at x = 1: 0^d times F(c-a, c-b; c; 1) = Gamma(c) Gamma(-d) / (Gamma(a) Gamma(b))
    sign_at_one = _gammasgn(c) * _gammasgn(-d) * _gammasgn(a) * _gammasgn(b)
    euler_value = ufuncs.where(x < 1, general,
                               ufuncs.where((x > 1) & polynomial_beyond, ufuncs.power(s, d) * beyond,
                                            ufuncs.where(x == 1, sign_at_one * np.inf, np.inf)))
    value = ufuncs.where(below, general, ufuncs.where(x == 1, gauss, np.inf))
    value = ufuncs.where(below & (a == c), ufuncs.power(s, -b), value)
    value = ufuncs.where(below & (b == c), ufuncs.power(s, -a), value)
    value = ufuncs.where((d <= 0) & (x == 1), np.inf, value)
    value = ufuncs.where(euler, euler_value, value)
    value = ufuncs.where((c == 0) | ((c < 0) & (c == ufuncs.floor(c))), np.inf, value)
    value = ufuncs.where((x == 0) | (((a == 0) | (b == 0)) & (c != 0)), 1.0, value)
    nan = ufuncs.isnan(a) | ufuncs.isnan(b) | ufuncs.isnan(c) | ufuncs.isnan(x)
    return ufuncs.where(nan, np.nan, value)


def _hyp2f1_parameter_derivative(which: str):
    def impl(a, b, c, x):
        below = x < 1
        safe_x = ufuncs.where(below, x, 0.0)
        pa, pb, z, log_scale, turned, swapped = _pfaff(a, b, c, safe_x)
        da, db, dc = _series_derivatives([pa, pb], [c], z)
        if which == "c":
            out = ufuncs.where(turned, db + dc, dc)
        else:
            first = which == "a"
            own = (da if first else db)
            # after Pfaff, F = s^-p G(p, c - q; c; z): d/dp = -log(s) F + s^-p dG/dp; d/dq = -s^-p dG/d(c-q)
            log_s = ufuncs.log(1 - safe_x)
            value = _series([pa, pb], [c], z)
            leading = ufuncs.where(swapped, not first, first)
            turned_value = ufuncs.where(leading, -log_s * value + da, -db)
            out = ufuncs.where(turned, turned_value, own)
        out = ufuncs.exp(log_scale) * out
        return ufuncs.where(below, out, np.nan)

    return impl


hyp2f1_p = se.primitive("hyp2f1", _hyp2f1_impl, 4)
hyp2f1_da_p = se.primitive("hyp2f1_da", _hyp2f1_parameter_derivative("a"), 4)
hyp2f1_db_p = se.primitive("hyp2f1_db", _hyp2f1_parameter_derivative("b"), 4)
hyp2f1_dc_p = se.primitive("hyp2f1_dc", _hyp2f1_parameter_derivative("c"), 4)

ad.defjvp(hyp2f1_p,
          lambda t, a, b, c, x: t * hyp2f1_da_p.bind(a, b, c, x),
          lambda t, a, b, c, x: t * hyp2f1_db_p.bind(a, b, c, x),
          lambda t, a, b, c, x: t * hyp2f1_dc_p.bind(a, b, c, x),
          lambda t, a, b, c, x: t * a * b / c * hyp2f1_p.bind(a + 1, b + 1, c + 1, x))
for _p in (hyp2f1_da_p, hyp2f1_db_p, hyp2f1_dc_p):
    ad.defjvp(_p, *[_no_tangent(f"the parameter derivative of hyp2f1 ({_p.name})")] * 4)


def hyp2f1(a, b, c, x):
    """Gauss's hypergeometric function ``2F1(a, b; c; x)``.

    Example::

        >>> numlir.scipy.special.hyp2f1(1.0, 1.0, 2.0, -1.0)   # log(2)
        Array(0.69314724, dtype=float32)
    """
    return se.apply(hyp2f1_p, "hyp2f1", a, b, c, x)
