"""The regularized incomplete gamma functions and their derivatives in ``a``, as
jax.lax's igamma, igammac, igamma_grad_a and random_gamma_grad.

``igamma(a, x) = P(a, x) = gamma(a, x) / Gamma(a)`` and ``igammac = Q = 1 - P``.
Both share one evaluation:

- for ``x < a + 1`` (or ``x < 1``) the series
  ``P = e^-x x^a / Gamma(a) * sum_n x^n / (a (a+1) ... (a+n))``, whose terms are
  positive, so nothing cancels;
- elsewhere the continued fraction of Q,
  ``Q = e^-x x^a / Gamma(a) * 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...)))``,
  by the modified Lentz method.

Each loop also carries the derivative of its partial result in ``a`` (forward
mode by hand: ``d term_n / da = -term_n sum_k<=n 1/(a+k)`` for the series, the
differentiated Lentz recurrences for the fraction), which gives
``igamma_grad_a``; ``random_gamma_grad(a, x) = -(dP/da) / (dP/dx)`` is the
derivative of a Gamma(a) sample ``x`` in ``a`` at fixed CDF value. The loops
stop when every element has converged to the dtype's epsilon (or after 2000
steps). Half precisions compute in float32.
"""

from __future__ import annotations

from math import factorial

import numpy as np

from numlir._src import ad, core
from numlir._src.lax import composite_primitives, control_flow, float_math, lentz, special
from numlir._src.lax import elementwise as ew
from numlir._src.lax import reduction, shape_ops
from numlir._src.lax.elementwise import const

_MAX_STEPS = 2000


def _compute_dtype(dtype):
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype


def _series(a, x):
    """``(sum, d sum / da)`` of ``sum_n x^n / ((a+1) (a+2) ... (a+n))``, the series of
    ``P(a, x) Gamma(a + 1) e^x x^-a``: its first term is 1, not 1/a, so that for tiny a
    neither it nor its derivative (-1/a^2 in the unnormalized series) overflows, and
    ``dP/da`` is not the difference of two huge terms."""
    eps = const(a, np.finfo(core.get_aval(a).dtype).eps)
    one = const(a, 1.0)

    def cond(state):
        n, _, _, _, _, done = state
        return ew.bitwise_and(
            ew.lt(n, const(n, _MAX_STEPS)),
            ew.bitwise_not(reduction.reduce_and(done, tuple(range(core.get_aval(done).ndim)))),
        )

    def body(state):
        n, term, dterm, total, dtotal, done = state
        k = ew.add(a, ew.convert_element_type(ew.add(n, const(n, 1)), core.get_aval(a).dtype))
        term = ew.mul(term, ew.div(x, k))
        harmonic_step = ew.div(one, k)
        # d term_n = term_n (d term_{n-1} / term_{n-1} - 1/(a+n)) = x/(a+n) (d term_{n-1}) - term_n/(a+n)
        dterm = ew.sub(ew.mul(dterm, ew.div(x, k)), ew.mul(term, harmonic_step))
        keep = ew.bitwise_not(done)
        total = ew.select(keep, ew.add(total, term), total)
        dtotal = ew.select(keep, ew.add(dtotal, dterm), dtotal)
        # Converged when neither the sum nor its derivative moves any more.
        settled = ew.bitwise_and(
            ew.le(ew.abs(term), ew.mul(ew.abs(total), eps)),
            ew.le(ew.abs(dterm), ew.mul(ew.abs(dtotal), eps)),
        )
        done = ew.bitwise_or(done, settled)
        return ew.add(n, const(n, 1)), term, dterm, total, dtotal, done

    first = ew.add(ew.mul(a, const(a, 0.0)), one)
    dfirst = ew.mul(a, const(a, 0.0))
    start = (np.int32(0), first, dfirst, first, dfirst, ew.ne(a, a))
    _, _, _, total, dtotal, _ = control_flow.while_loop(cond, body, start)
    return total, dtotal


def _continued_fraction(a, x):
    """``(h, dh/da)`` of the continued fraction for Q, by the modified Lentz method."""
    dtype = core.get_aval(a).dtype
    eps, tiny, one, guard = lentz.constants(a)

    def cond(state):
        i = state[0]
        done = state[-1]
        return ew.bitwise_and(
            ew.lt(i, const(i, _MAX_STEPS)),
            ew.bitwise_not(reduction.reduce_and(done, tuple(range(core.get_aval(done).ndim)))),
        )

    def body(state):
        i, b, c, dc, d, dd, h, dh, done = state
        fi = ew.convert_element_type(ew.add(i, const(i, 1)), dtype)
        an = ew.neg(ew.mul(fi, ew.sub(fi, a)))  # -i (i - a)
        dan = fi
        b = ew.add(b, const(b, 2.0))  # x + 2i + 1 - a; d b / da = -1 throughout
        raw_d = ew.add(ew.mul(an, d), b)
        draw_d = ew.sub(ew.add(ew.mul(dan, d), ew.mul(an, dd)), one)
        denom = guard(raw_d)
        new_d = ew.div(one, denom)
        new_dd = ew.neg(ew.div(draw_d, ew.mul(denom, denom)))
        raw_c = ew.add(b, ew.div(an, c))
        draw_c = ew.sub(ew.sub(ew.div(dan, c), ew.div(ew.mul(an, dc), ew.mul(c, c))), one)
        new_c = guard(raw_c)
        delta = ew.mul(new_d, new_c)
        ddelta = ew.add(ew.mul(new_dd, new_c), ew.mul(new_d, draw_c))
        keep = ew.bitwise_not(done)
        new_h = ew.select(keep, ew.mul(h, delta), h)
        new_dh = ew.select(keep, ew.add(ew.mul(dh, delta), ew.mul(h, ddelta)), dh)
        # Converged when neither h nor its derivative moves any more (at a = 1 the first
        # coefficient is 0, so h is exact at once while dh still changes).
        settled = ew.bitwise_and(
            ew.le(ew.abs(ew.sub(delta, one)), eps),
            ew.le(ew.abs(ew.mul(h, ddelta)), ew.mul(ew.abs(new_dh), eps)),
        )
        done = ew.bitwise_or(done, settled)
        return ew.add(i, const(i, 1)), b, new_c, draw_c, new_d, new_dd, new_h, new_dh, done

    b0 = ew.sub(ew.add(x, one), a)
    d0 = ew.div(one, guard(b0))
    dd0 = ew.mul(d0, d0)  # d(1/b0)/da with d b0/da = -1
    shape = core.get_aval(a).shape
    c0 = shape_ops.broadcast_in_dim(ew.div(one, tiny), shape, ())
    dc0 = shape_ops.broadcast_in_dim(const(a, 0.0), shape, ())
    start = (np.int32(0), b0, c0, dc0, d0, dd0, d0, dd0, ew.ne(a, a))
    state = control_flow.while_loop(cond, body, start)
    return state[6], state[7]


_SMALL_A = 0.1
def _riemann_zeta(k: int) -> float:
    """zeta(k) for k >= 2 in float64: ten terms, then the Euler-Maclaurin tail."""
    n = 10
    total = sum(j ** -float(k) for j in range(1, n)) + n ** (1.0 - k) / (k - 1) + 0.5 * n ** -float(k)
    rising = float(k)  # k (k+1) ... (k + 2m - 2)
    for m, b in enumerate(special._bernoulli_even(10), start=1):
        total += float(b) / factorial(2 * m) * rising * n ** (-k - 2.0 * m + 1)
        rising *= (k + 2 * m - 1) * (k + 2 * m)
    return total


# log Gamma(1 + a) = -gamma a + sum_{k>=2} (-1)^k zeta(k) a^k / k, for |a| < 0.1 (the term
# left out, a^20 / 20, is below 1e-21 there).
_LGAMMA1P_COEFFS = [-np.euler_gamma] + [(-1) ** k * _riemann_zeta(k) / k for k in range(2, 20)]


def _lgamma1p_small(a):
    """``log Gamma(1 + a)`` for |a| < 0.1 by its Maclaurin series (lgamma(1 + a) rounds 1 + a)."""
    total = const(a, 0.0)
    for c in reversed(_LGAMMA1P_COEFFS):
        total = ew.mul(a, ew.add(const(a, c), total))
    return total


def _q_small_a(a, x):
    """``Q(a, x) = (1 - A) + A (1 - B)`` for 0 < a < 0.1 and the series' x (< a + 1), where
    ``P = A B``, ``A = x^a / Gamma(1 + a)`` and ``B = e^-x sum_n x^n / ((1+a)...(n+a))``:
    ``1 - A = -expm1(a log x - lgamma1p(a))`` and
    ``1 - B = e^-x sum_n (x^n / n!) (-expm1(-sum_{k<=n} log1p(a / k)))``, all of whose terms
    are of a's size, so nothing cancels."""
    eps = const(a, np.finfo(core.get_aval(a).dtype).eps)
    one = const(a, 1.0)
    log_a_part = ew.sub(ew.mul(a, ew.log(x)), _lgamma1p_small(a))
    one_minus_a = ew.neg(float_math.expm1(log_a_part))

    def cond(state):
        n, _, _, _, done = state
        return ew.bitwise_and(
            ew.lt(n, const(n, _MAX_STEPS)),
            ew.bitwise_not(reduction.reduce_and(done, tuple(range(core.get_aval(done).ndim)))),
        )

    def body(state):
        n, term, logs, total, done = state  # term = x^n / n!, logs = sum_{k<=n} log1p(a/k)
        k = ew.convert_element_type(ew.add(n, const(n, 1)), core.get_aval(a).dtype)
        term = ew.mul(term, ew.div(x, k))
        logs = ew.add(logs, float_math.log1p(ew.div(a, k)))
        step = ew.mul(term, ew.neg(float_math.expm1(ew.neg(logs))))
        total = ew.select(done, total, ew.add(total, step))
        done = ew.bitwise_or(done, ew.le(step, ew.mul(total, eps)))
        return ew.add(n, const(n, 1)), term, logs, total, done

    zero = ew.mul(a, const(a, 0.0))
    start = (np.int32(0), ew.add(zero, one), zero, zero, ew.ne(a, a))
    _, _, _, total, _ = control_flow.while_loop(cond, body, start)
    one_minus_b = ew.mul(ew.exp(ew.neg(x)), total)
    return ew.add(one_minus_a, ew.mul(ew.sub(one, one_minus_a), one_minus_b))


def _evaluate(a, x, want: str):
    """P, Q, dP/da or -(dP/da)/(dP/dx) at (a, x), in the compute dtype, with JAX's special
    values (except that dP/da is 0, not NaN, at x = inf, where P is 1 for every a, and
    that P(0, x) is 1 for every x > 0, where jax gives NaN below x = 1)."""
    one, zero = const(a, 1.0), const(a, 0.0)
    use_series = ew.bitwise_or(ew.lt(x, ew.add(a, one)), ew.lt(x, one))
    valid = ew.bitwise_and(ew.gt(a, zero), ew.gt(x, zero))
    finite = ew.bitwise_and(valid, ew.lt(x, const(x, np.inf)))
    # Each method runs on inputs where it converges; the other's lanes get a harmless point.
    sa = ew.select(ew.bitwise_and(finite, use_series), a, one)
    sx = ew.select(ew.bitwise_and(finite, use_series), x, const(x, 0.5))
    ca = ew.select(ew.bitwise_and(finite, ew.bitwise_not(use_series)), a, one)
    cx = ew.select(ew.bitwise_and(finite, ew.bitwise_not(use_series)), x, const(x, 2.0))
    series, dseries = _series(sa, sx)
    fraction, dfraction = _continued_fraction(ca, cx)
    # The series' prefactor is x^a e^-x / Gamma(a + 1) (see _series).
    log_prefactor_s = ew.sub(ew.sub(ew.mul(sa, ew.log(sx)), sx), special.lgamma(ew.add(sa, one)))
    log_prefactor_c = ew.sub(ew.sub(ew.mul(ca, ew.log(cx)), cx), special.lgamma(ca))
    pre_s, pre_c = ew.exp(log_prefactor_s), ew.exp(log_prefactor_c)
    p_series = ew.mul(pre_s, series)
    q_fraction = ew.mul(pre_c, fraction)
    if want in ("p", "q"):
        p = ew.select(use_series, p_series, ew.sub(one, q_fraction))
        q_series = ew.sub(one, p_series)
        if want == "q":
            # For small a, P is nearly 1 and 1 - P cancels (to 0 at a = x = 1e-30, where
            # Q = 6.85e-29): there Q comes from terms that are each small.
            small_a = ew.lt(sa, const(a, _SMALL_A))
            q_series = ew.select(small_a, _q_small_a(ew.select(small_a, sa, const(a, 0.05)), sx), q_series)
        q = ew.select(use_series, q_series, q_fraction)
        value = p if want == "p" else q
        at_zero, at_inf = (zero, one) if want == "p" else (one, zero)
        value = ew.select(ew.eq(x, zero), at_zero, value)
        value = ew.select(ew.eq(x, const(x, np.inf)), at_inf, value)
        # P(0, x) = 1 for x > 0, the limit a -> 0 (NaN at x = 0, as below)
        value = ew.select(ew.bitwise_and(ew.eq(a, zero), ew.gt(x, zero)), at_inf, value)
    elif want == "sample_grad":
        # -(dP/da) / (dP/dx), where dP/dx = pre / x: the prefactor cancels, so this neither
        # underflows nor overflows where P's derivatives do.
        # dP/dx = a pre_s / x here, where pre_s carries Gamma(a + 1).
        series_ratio = ew.div(
            ew.add(ew.mul(ew.sub(ew.log(sx), special.digamma(ew.add(sa, one))), series), dseries), sa)
        fraction_ratio = ew.add(
            ew.mul(ew.sub(ew.log(cx), special.digamma(ca)), fraction), dfraction
        )
        value = ew.select(use_series, ew.neg(ew.mul(sx, series_ratio)), ew.mul(cx, fraction_ratio))
        value = ew.select(ew.eq(x, zero), zero, value)
        value = ew.select(ew.eq(x, const(x, np.inf)), const(x, np.nan), value)
    else:
        # d pre / da = pre (log x - digamma(a)), with a + 1 for the series' Gamma(a + 1)
        dp_series = ew.add(
            ew.mul(ew.mul(pre_s, ew.sub(ew.log(sx), special.digamma(ew.add(sa, one)))), series),
            ew.mul(pre_s, dseries),
        )
        dq_fraction = ew.add(
            ew.mul(ew.mul(pre_c, ew.sub(ew.log(cx), special.digamma(ca))), fraction),
            ew.mul(pre_c, dfraction),
        )
        value = ew.select(use_series, dp_series, ew.neg(dq_fraction))
        value = ew.select(ew.bitwise_or(ew.eq(x, zero), ew.eq(x, const(x, np.inf))), zero, value)
    invalid = ew.bitwise_or(
        ew.bitwise_or(ew.lt(x, zero), ew.lt(a, zero)), ew.bitwise_or(ew.ne(a, a), ew.ne(x, x))
    )
    at_origin = ew.bitwise_and(ew.eq(a, zero), ew.eq(x, zero))
    invalid = ew.bitwise_or(invalid, at_origin if want in ("p", "q") else ew.eq(a, zero))
    return ew.select(invalid, const(a, np.nan), value)


def _impl(want: str):
    def impl(a, x):
        dtype = core.get_aval(a).dtype
        compute = _compute_dtype(dtype)
        a, x = ew.convert_element_type(a, compute), ew.convert_element_type(x, compute)
        return ew.convert_element_type(_evaluate(a, x, want), dtype)

    return impl


igamma_p = composite_primitives.binary("igamma", _impl("p"))
igammac_p = composite_primitives.binary("igammac", _impl("q"))
igamma_grad_a_p = composite_primitives.binary("igamma_grad_a", _impl("dp_da"))
random_gamma_grad_p = composite_primitives.binary("random_gamma_grad", _impl("sample_grad"))


def igamma(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    return igamma_p.bind(*special._prepare(a, x))


def igammac(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return igammac_p.bind(*special._prepare(a, x))


def igamma_grad_a(a, x):
    """``dP(a, x) / da``, the derivative of igamma in its first argument."""
    return igamma_grad_a_p.bind(*special._prepare(a, x))


def random_gamma_grad(a, x):
    """The derivative in ``a`` of a Gamma(a) sample ``x`` at a fixed CDF value:
    ``-(dP/da) / (dP/dx)``."""
    return random_gamma_grad_p.bind(*special._prepare(a, x))


def _density(a, x):
    """``dP/dx = x^(a-1) e^-x / Gamma(a)``."""
    return ew.exp(ew.sub(ew.sub(ew.mul(ew.sub(a, const(a, 1.0)), ew.log(x)), x), special.lgamma(a)))


ad.defjvp(
    igamma_p,
    lambda t, a, x: ew.mul(t, igamma_grad_a(a, x)),
    lambda t, a, x: ew.mul(t, _density(a, x)),
)
ad.defjvp(
    igammac_p,
    lambda t, a, x: ew.neg(ew.mul(t, igamma_grad_a(a, x))),
    lambda t, a, x: ew.neg(ew.mul(t, _density(a, x))),
)
ad.defjvp(
    igamma_grad_a_p, special._no_tangent("igamma_grad_a"), special._no_tangent("igamma_grad_a")
)
ad.defjvp(
    random_gamma_grad_p,
    special._no_tangent("random_gamma_grad"),
    special._no_tangent("random_gamma_grad"),
)
