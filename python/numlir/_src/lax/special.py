"""Special functions: erf, erfc, erf_inv, lgamma, digamma, and the Hurwitz zeta and
polygamma functions lax.zeta(x, q) and lax.polygamma(m, x), as JAX's.

erf, erf_inv, lgamma and digamma lower to one hlo op each. erfc is accurate in the
tail, where ``1 - erf(x)`` cancels: past x = 1 (float32) or 2 (float64) it comes from
the continued fraction of erfcx(x) = exp(x^2) erfc(x), 80 terms evaluated backwards
(relative error below 1e-10 at x = 1 and 1e-15 from x = 2, against SciPy).

Both are primitives (so each has its own derivative: d/dx polygamma(m, x) =
polygamma(m + 1, x), which keeps higher derivatives of lgamma/digamma small)
but hlo has no such op: they lower by inlining a composite of ordinary ops.

zeta(s, q) = sum_k (q + k)^-s is summed directly for the first terms, and the
rest by the Euler–Maclaurin formula, whose correction terms shrink like
((s + 2j) / (2 pi w))^2j at w = q + terms already summed. Accuracy is near
the dtype's precision for q > -5; like JAX, far-negative non-integer q is
not handled (the tail formula needs w well above zero).

Example::

    >>> lax.polygamma(1., 1.)   # trigamma(1) = pi^2 / 6
    Array(1.644934, dtype=float32)
"""

from __future__ import annotations

import functools
from fractions import Fraction
from math import comb, factorial

import numpy as np

from numlir._src import ad, core, dtypes
from numlir._src.lax import composite_primitives
from numlir._src.lax import elementwise as ew
from numlir._src.lax import type_checks as tc
from numlir._src.lax.elementwise import const

# --- erf, erf_inv, lgamma, digamma ----------------------------------------------------------

erf_p = ew._unary("erf", "erf", (tc.FLOAT,))
erf_inv_p = ew._unary("erf_inv", "erf_inv", (tc.FLOAT,))
lgamma_p = ew._unary("lgamma", "lgamma", (tc.FLOAT,))
digamma_p = ew._unary("digamma", "digamma", (tc.FLOAT,))


def erf(x):
    """Elementwise error function."""
    return erf_p.bind(x)


def erf_inv(x):
    """Elementwise inverse error function (±inf at ±1)."""
    return erf_inv_p.bind(x)


def lgamma(x):
    """Elementwise ``log(|gamma(x)|)``."""
    return lgamma_p.bind(x)


def digamma(x):
    """Elementwise digamma function (derivative of lgamma)."""
    return digamma_p.bind(x)


def _sq(x):
    return ew.mul(x, x)


ad.defjvp(erf_p, lambda t, x: ew.mul(t, ew.mul(const(x, 2 / np.sqrt(np.pi)), ew.exp(ew.neg(_sq(x))))))
ad.defjvp(erf_inv_p, lambda t, x: ew.mul(t, ew.mul(const(x, np.sqrt(np.pi) / 2),
                                                   ew.exp(_sq(erf_inv(x))))))
ad.defjvp(lgamma_p, lambda t, x: ew.mul(t, digamma(x)))
# digamma' is trigamma, polygamma(1, x).
ad.defjvp(digamma_p, lambda t, x: ew.mul(t, polygamma(const(x, 1), x)))

# --- erfc -------------------------------------------------------------------------------------

CF_TERMS = 80


def erfcx_tail_start(dtype) -> float:
    """Where erfc switches from ``1 - erf`` to the continued fraction."""
    return 1.0 if np.dtype(dtype).itemsize <= 4 else 2.0


def erfcx_tail(x):
    """``exp(x^2) erfc(x)`` for ``x >= 1`` from its continued fraction (x is clamped there)."""
    x = ew.max(x, const(x, 1.0))
    t = const(x, 0.0)
    for k in range(CF_TERMS, 0, -1):
        t = ew.div(const(x, k / 2), ew.add(x, t))
    return ew.div(const(x, 1 / np.sqrt(np.pi)), ew.add(x, t))


def _erfc_impl(x):
    dtype = core.get_aval(x).dtype
    compute = _compute_dtype(dtype)
    x = ew.convert_element_type(x, compute)
    tail = ew.ge(x, const(x, erfcx_tail_start(compute)))
    direct = ew.sub(const(x, 1.0), erf(ew.select(tail, const(x, 0.0), x)))
    value = ew.select(tail, ew.mul(ew.exp(ew.neg(_sq(x))), erfcx_tail(x)), direct)
    return ew.convert_element_type(value, dtype)


erfc_p = composite_primitives.unary("erfc", _erfc_impl)
ad.defjvp(erfc_p, lambda t, x: ew.mul(t, ew.mul(const(x, -2 / np.sqrt(np.pi)), ew.exp(ew.neg(_sq(x))))))


def erfc(x):
    """Elementwise complementary error function ``1 - erf(x)``, accurate where it is tiny."""
    return erfc_p.bind(x)


# --- zeta and polygamma -------------------------------------------------------------------------

_DIRECT_TERMS = 10
_TAIL_TERMS = 10


def _bernoulli_even(count: int) -> list[Fraction]:
    """B_2, B_4, ..., B_2count, from sum_{k<=n} C(n+1, k) B_k = 0."""
    b = [Fraction(1)]
    for n in range(1, 2 * count + 1):
        b.append(-sum(comb(n + 1, k) * b[k] for k in range(n)) / (n + 1))
    return b[2::2]


# c_j = B_2j / (2j)!, the Euler–Maclaurin weights.
_TAIL_COEFFS = [float(b / factorial(2 * j))
                for j, b in enumerate(_bernoulli_even(_TAIL_TERMS), start=1)]


def _compute_dtype(dtype):
    # Half precisions would lose the tail entirely; compute them in float32.
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype


def _euler_maclaurin(s, q, order: int = 0):
    """``d^order/dq^order sum_k (q + k)^-s`` by the Euler–Maclaurin formula, undefended (the
    analytic continuation to every s != 1 where the terms are defined):
    ``(-1)^n [(s)_n (D(s + n) + w^-(s+n) (1/2 + (s + n) / w h(s + n))) + (s)_(n-1) w^(1-s-n)]``
    with ``(s)_n`` the rising factorial, ``D`` the first terms summed directly, ``w`` the
    next shift and ``h`` the Bernoulli correction; for n = 0 the last term is
    ``w^(1-s) / (s - 1)``. Writing the n-th derivative of that integral term as a power of w
    (not ``s/s`` times the next one's) keeps it finite at s = 0, where jax's is -1."""

    def c(v):
        return const(s, v)

    rising = c(1.0)  # (s)_n
    for j in range(order):
        rising = ew.mul(rising, ew.add(s, c(j)))
    e = ew.add(s, c(order))  # the exponent of the derivative's sum
    neg_e = ew.neg(e)
    direct = ew.pow(q, neg_e)
    for k in range(1, _DIRECT_TERMS):
        direct = ew.add(direct, ew.pow(ew.add(q, c(k)), neg_e))
    w = ew.add(q, c(_DIRECT_TERMS))
    w_pow = ew.pow(w, neg_e)
    u = ew.div(c(1), ew.mul(w, w))
    # sum_j c_j e(e+1)...(e+2j-2) w^(-e-2j+1), nested so each step adds two rising factors.
    h = c(_TAIL_COEFFS[-1])
    for j in range(_TAIL_TERMS - 1, 0, -1):
        rise = ew.mul(ew.add(e, c(2 * j - 1)), ew.add(e, c(2 * j)))
        h = ew.add(c(_TAIL_COEFFS[j - 1]), ew.mul(ew.mul(u, rise), h))
    # An underflowed w^-e means a negligible correction (and would turn an overflowed h to NaN).
    correction = ew.mul(w_pow, ew.add(c(0.5), ew.mul(ew.div(e, w), h)))
    sums = ew.add(direct, ew.select(ew.eq(w_pow, c(0)), c(0.0), correction))
    integral_power = ew.pow(w, ew.sub(c(1.0 - order), s))  # w^(1-s-n)
    if order == 0:
        integral = ew.div(integral_power, ew.sub(s, c(1)))
    else:
        previous = c(1.0)  # (s)_(n-1)
        for j in range(order - 1):
            previous = ew.mul(previous, ew.add(s, c(j)))
        integral = ew.mul(previous, integral_power)
    # A vanishing sum or power stays 0 next to an overflowed rising factorial (s = 1e30).
    zero = c(0.0)
    value = ew.add(ew.select(ew.eq(sums, zero), zero, ew.mul(rising, sums)),
                   ew.select(ew.eq(integral_power, zero), zero, integral))
    # A negative base to a non-integer power is NaN, but pow(-inf, y) is 0 or inf: q = -inf
    # takes the NaN of every other negative q (d2/dq2 zeta(-1.5, q) was -inf there).
    value = ew.select(ew.bitwise_and(ew.eq(q, c(-np.inf)), ew.ne(s, ew.floor(s))),
                      c(np.nan), value)
    return ew.neg(value) if order % 2 else value


def _zeta_impl(s, q):
    dtype = core.get_aval(s).dtype
    s, q = (ew.convert_element_type(v, _compute_dtype(dtype)) for v in (s, q))
    return ew.convert_element_type(_zeta_domain(s, q, _euler_maclaurin(s, q)), dtype)


def _zeta_domain(s, q, value):
    """JAX's special values: +inf at s = 1, NaN for s < 1 and for q <= 0 with non-integer s;
    at the poles (q a non-positive integer) +inf for even s, NaN for odd s."""
    nan, inf, zero = const(s, np.nan), const(s, np.inf), const(s, 0)
    s_int = ew.eq(s, ew.floor(s))
    q_nonpos = ew.le(q, zero)
    value = ew.select(ew.lt(s, const(s, 1)), nan, value)
    value = ew.select(ew.bitwise_and(q_nonpos, ew.bitwise_not(s_int)), nan, value)
    s_even = ew.bitwise_and(s_int, ew.eq(ew.rem(s, const(s, 2)), zero))
    at_pole = ew.bitwise_and(q_nonpos, ew.eq(q, ew.floor(q)))
    value = ew.select(at_pole, ew.select(s_even, inf, nan), value)
    return ew.select(ew.eq(s, const(s, 1)), inf, value)


def _zeta_partial_impl(s_order: int, q_order: int):
    def impl(s, q):
        dtype = core.get_aval(s).dtype
        s, q = (ew.convert_element_type(v, _compute_dtype(dtype)) for v in (s, q))

        def partial(s_, order=s_order):
            if order == 0:
                return _euler_maclaurin(s_, q, q_order)
            _, _, (tangent,) = ad.jvp_flat(lambda u: partial(u, order - 1), [s_], [const(s_, 1.0)])
            return ad.instantiate(tangent)

        value = partial(s)
        if s_order and s_order % 2 == 0:
            # zeta ~ 1/(s - 1) at the pole: its even s-derivatives tend to +inf on one side
            # and -inf on the other, so have no value there (the odd ones are -inf).
            value = ew.select(ew.eq(s, const(s, 1.0)), const(s, np.nan), value)
        return ew.convert_element_type(value, dtype)

    return impl


@functools.cache
def _zeta_partial_p(s_order: int, q_order: int) -> core.Primitive:
    """``d^s_order/ds^s_order d^q_order/dq^q_order zeta(s, q)``: the Euler–Maclaurin sum
    differentiated term by term (in q by formula, in s by forward mode), as jax's rule, the
    derivative of its series. It is the analytic continuation, defined where lax.zeta's
    value is NaN by convention (s < 1, q <= 0): d/dq zeta(0, q) = -1."""
    prim = composite_primitives.binary(f"zeta_partial_{s_order}_{q_order}",
                                       _zeta_partial_impl(s_order, q_order))
    ad.defjvp(prim, lambda t, s, q: ew.mul(t, _zeta_partial_p(s_order + 1, q_order).bind(s, q)),
              lambda t, s, q: ew.mul(t, _zeta_partial_p(s_order, q_order + 1).bind(s, q)))
    return prim


def _polygamma_impl(m, x):
    dtype = core.get_aval(x).dtype
    m, x = (ew.convert_element_type(v, _compute_dtype(dtype)) for v in (m, x))
    one, zero = const(m, 1), const(m, 0)
    s = ew.add(m, one)
    # (-1)^(m+1) m! zeta(m+1, x); m! as exp(lgamma) since m is an array.
    sign = ew.select(ew.eq(ew.rem(m, const(m, 2)), zero), const(m, -1), one)
    value = ew.mul(ew.mul(sign, ew.exp(lgamma(s))), _zeta_impl(s, x))
    value = ew.select(ew.eq(m, zero), digamma(x), value)
    valid = ew.bitwise_and(ew.eq(m, ew.floor(m)), ew.ge(m, zero))
    value = ew.select(valid, value, const(m, np.nan))
    return ew.convert_element_type(value, dtype)


zeta_p = composite_primitives.binary("zeta", _zeta_impl)
polygamma_p = composite_primitives.binary("polygamma", _polygamma_impl)


def _prepare(a, b):
    """Python scalars take the other operand's dtype (weakly), as in lax's binary ops."""
    if dtypes.is_python_scalar(a) and not dtypes.is_python_scalar(b):
        a = ew.convert_element_type(a, core.get_aval(b).dtype, weak_type=True)
    elif dtypes.is_python_scalar(b) and not dtypes.is_python_scalar(a):
        b = ew.convert_element_type(b, core.get_aval(a).dtype, weak_type=True)
    return a, b


def zeta(x, q):
    """Hurwitz zeta: ``sum_{k>=0} (q + k)^-x`` (x > 1; operands of one float dtype)."""
    return zeta_p.bind(*_prepare(x, q))


def polygamma(m, x):
    """The m-th derivative of digamma at x (m a non-negative integer value of x's dtype)."""
    return polygamma_p.bind(*_prepare(m, x))


def _no_tangent(what):
    def fn(t, *primals):
        raise NotImplementedError(f"differentiation of {what} is not supported (as in JAX)")

    return fn


ad.defjvp(zeta_p, lambda t, x, q: ew.mul(t, _zeta_partial_p(1, 0).bind(x, q)),
          lambda t, x, q: ew.mul(t, _zeta_partial_p(0, 1).bind(x, q)))
ad.defjvp(polygamma_p, _no_tangent("polygamma with respect to m"),
          lambda t, m, x: ew.mul(t, polygamma(ew.add(m, const(m, 1)), x)))
