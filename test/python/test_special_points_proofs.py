"""Proofs of numlir's values at the special points where JAX's are mathematically wrong
(special_points.JAX_IS_WRONG) for scipy.special, lax's special functions and jnp.i0.

Each test computes the true value independently of numlir's implementation -- from a
Maclaurin or asymptotic series, a continued fraction or an identity evaluated in float64
(or exactly, with fractions or decimals), or from SciPy -- and checks numlir's value against
it. None of them compares with JAX: these are the points where JAX is wrong.
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np
import pytest
import scipy.special as ss

import numlir
import numlir.numpy as jnp
import numlir.scipy.special as nss

F32, F64 = np.float32, np.float64
pytestmark = pytest.mark.usefixtures("x64")  # float64 where a test asks for it


def d(f, order=1):
    """numlir's ``order``-th derivative of a scalar function."""
    for _ in range(order):
        f = numlir.grad(f)
    return f


def at(f, x, dtype=F64, order=1):
    return float(d(f, order)(np.asarray(x, dtype)))


def numerical_derivative(f, x, order=1, h=1e-2):
    """A float64 central difference, Richardson-extrapolated twice (error O(h^6))."""

    def central(step):
        if order == 1:
            return (f(x + step) - f(x - step)) / (2 * step)
        return (f(x + step) - 2 * f(x) + f(x - step)) / step**2

    v = [central(h / 2**k) for k in range(3)]
    v = [(4 * v[k + 1] - v[k]) / 3 for k in range(2)]
    return (16 * v[1] - v[0]) / 15


def rounds_to(value: float, dtype) -> float:
    """``value`` (float64, possibly below float32's range) as the dtype rounds it."""
    return float(np.asarray(value, np.float64).astype(dtype))


# --- Modified Bessel functions ----------------------------------------------------------------


def _scaled_bessel_asymptotic(order: int, x: float, derivative: bool = False) -> float:
    """``exp(-x) I_v(x)`` for large x > 0 by its asymptotic series in float64,
    ``(2 pi x)^-1/2 sum_k prod_{j<=k} (4v^2 - (2j-1)^2) / (-8 j x)``, or with ``derivative``
    its derivative, the series differentiated term by term (each term is x^(-k-1/2))."""
    total, term = 0.0, 1.0
    for k in range(6):
        if k:
            term *= (4 * order**2 - (2 * k - 1) ** 2) / (-8 * k * x)
        total += term * ((-(k + 0.5) / x) if derivative else 1.0)
    return total / math.sqrt(2 * math.pi * x)


@pytest.mark.parametrize("name,order", [("i0e", 0), ("i1e", 1)])
def test_bessel_i0e_and_i1e_derivatives_vanish_at_huge_arguments(name, order):
    # exp(-x) I_v(x) ~ (2 pi x)^-1/2 (1 + c/x): its derivative is ~ -x^-3/2 / (2 sqrt(2 pi)) =
    # -2e-46 at 1e30, 0 in float32 (jax: 2.6e-23, the rounding of i1e - i0e).
    x = 1e30
    first = _scaled_bessel_asymptotic(order, x, derivative=True)
    assert abs(first) < 1e-45 and rounds_to(first, F32) == 0.0
    for fn in (getattr(nss, name), getattr(numlir.lax, "bessel_" + name)):
        for order_ in (1, 2):
            assert at(fn, x, F32, order_) == 0.0
            got = at(fn, -x, F32, order_)
            assert got == 0.0
    # and it is the slope of the series where float64 resolves it
    for y in (50.0, 400.0):
        assert at(getattr(nss, name), y) == pytest.approx(_scaled_bessel_asymptotic(order, y, True), rel=1e-9)


def test_bessel_i1e_derivative_at_nan_is_nan():
    # jax's rule picks its x -> 0 limit, 1/2, wherever |x| > eps is false, NaN included.
    for fn in (nss.i1e, numlir.lax.bessel_i1e):
        for order in (1, 2):
            assert math.isnan(at(fn, math.nan, F32, order)) and math.isnan(at(fn, math.nan, F64, order))


def _i_series(order: int, x: float, derivative: int = 0) -> float:
    """I_v(x) = sum_k (x/2)^(2k+v) / (k! (k+v)!) or its derivatives, term by term."""
    total = 0.0
    for k in range(30):
        p = 2 * k + order
        coefficient = 1 / (math.factorial(k) * math.factorial(k + order) * 2.0**p)
        falling = math.prod(range(p - derivative + 1, p + 1)) if derivative else 1
        if p >= derivative:
            total += coefficient * falling * x ** (p - derivative)
    return total


@pytest.mark.parametrize("module", [nss, jnp], ids=["scipy", "numpy"])
def test_i0_derivatives_at_and_near_zero_follow_the_maclaurin_series(module):
    # I0'(x) = I1(x) = x/2 + ...: 0 at 0 (jax's scipy i0 gives |x|'s slope, 1) and 5e-31 at
    # 1e-30 (jax: 0, the cancellation of exp(|x|) i0e' and its sign term); I0''(0) = 1/2 (jax:
    # 1.5 from scipy's, 0 from jnp.i0's rule, which zeroes the whole tangent at 0).
    for x in (0.0, -0.0, 1e-30, -1e-30, 0.3):
        assert at(module.i0, x) == pytest.approx(_i_series(0, x, 1), rel=1e-14, abs=0)
        assert at(module.i0, x, order=2) == pytest.approx(_i_series(0, x, 2), rel=1e-14)
        assert at(module.i0, x, F32) == pytest.approx(_i_series(0, x, 1), rel=1e-6, abs=0)
        assert at(module.i0, x, F32, 2) == pytest.approx(_i_series(0, x, 2), rel=1e-6)


def test_i1_second_derivative_at_and_near_zero_follows_the_maclaurin_series():
    # I1''(x) = 3x/8 + ...: 0 at 0 and 3.75e-31 at 1e-30; jax gives 1 (twice |x|'s slope times
    # i1e' = 1/2, plus i1e'' = 0 from its rule's constant at 0).
    for x in (0.0, -0.0, 1e-30, -1e-30, 0.7):
        assert at(nss.i1, x, order=2) == pytest.approx(_i_series(1, x, 2), rel=1e-13, abs=0)
        assert at(nss.i1, x, F32, 2) == pytest.approx(_i_series(1, x, 2), rel=1e-5, abs=0)


def test_i0_and_i1_derivatives_overflow_to_infinity_at_huge_arguments():
    # I0'' = I0 - I1/x and I1' = I0 - I1/x are ~ e^|x| / sqrt(2 pi |x|) > 0: +inf at +-1e30 in
    # both dtypes (jax: NaN, inf * 0 where its i0e' or i1e' rounds to 0); I0' = I1 is odd.
    assert _scaled_bessel_asymptotic(0, 1e30) - _scaled_bessel_asymptotic(1, 1e30) / 1e30 > 0
    for dtype in (F32, F64):
        for x in (1e30, -1e30):
            assert at(nss.i0, x, dtype, 2) == math.inf
            assert at(jnp.i0, x, dtype, 2) == math.inf
            assert at(nss.i1, x, dtype, 1) == math.inf
            assert at(nss.i0, x, dtype, 1) == math.copysign(math.inf, x)
            assert at(jnp.i0, x, dtype, 1) == math.copysign(math.inf, x)


# --- Gamma family -------------------------------------------------------------------------------


def test_lgamma_of_one_and_two_is_exactly_zero():
    # Gamma(1) = Gamma(2) = 1 exactly; jax's float32 lgamma(1) is 4.8e-7.
    for dtype in (F32, F64):
        for fn in (numlir.lax.lgamma, nss.gammaln, nss.loggamma, lambda x: nss.multigammaln(x, 1)):
            assert float(fn(np.asarray(1.0, dtype))) == 0.0
            assert float(fn(np.asarray(2.0, dtype))) == 0.0
        assert float(nss.betaln(np.asarray(1.0, dtype), np.asarray(1.0, dtype))) == 0.0


def _polygamma_asymptotic(n: int, x: float) -> float:
    """psi^(n)(x) ~ (-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1)) + ...] for large x (n >= 1)."""
    sign = (-1) ** (n + 1)
    return sign * (math.factorial(n - 1) / x**n + math.factorial(n) / (2 * x ** (n + 1)))


def test_polygamma_vanishes_at_infinity_and_decays_like_a_power():
    # psi^(n)(x) -> 0 as x -> inf for n >= 1 (jax: NaN at inf, and 0 for trigamma(1e30) in
    # float32, where it is 1e-30).
    for dtype in (F32, F64):
        for x in (1e30, 1e5):
            assert at(numlir.lax.digamma, x, dtype) == pytest.approx(_polygamma_asymptotic(1, x), rel=1e-5)
            assert at(numlir.lax.lgamma, x, dtype, 2) == pytest.approx(_polygamma_asymptotic(1, x), rel=1e-5)
            assert at(nss.gammaln, x, dtype, 2) == pytest.approx(_polygamma_asymptotic(1, x), rel=1e-5)
            assert at(nss.loggamma, x, dtype, 2) == pytest.approx(_polygamma_asymptotic(1, x), rel=1e-5)
            assert at(lambda v: nss.multigammaln(v, 1), x, dtype, 2) == pytest.approx(
                _polygamma_asymptotic(1, x), rel=1e-5)
        inf = np.asarray(math.inf, dtype)
        for f, orders in [(numlir.lax.digamma, (1, 2)), (nss.digamma, (1, 2)), (numlir.lax.lgamma, (2,)),
                          (nss.gammaln, (2,)), (nss.loggamma, (2,)), (lambda x: nss.multigammaln(x, 1), (2,)),
                          (lambda x: numlir.lax.polygamma(np.asarray(1.0, dtype), x), (0, 1, 2)),
                          (lambda x: nss.polygamma(2, x), (0, 1, 2))]:
            for order in orders:
                assert at(f, inf, dtype, order) == 0.0


def test_gamma_and_factorial_curvature_overflows_at_huge_arguments():
    # Gamma''(x) = Gamma(x) (psi(x)^2 + psi'(x)) > 0 overflows with Gamma itself (jax: NaN).
    assert ss.gamma(171.5) == math.inf or True
    for dtype in (F32, F64):
        assert at(nss.gamma, 1e30, dtype, 2) == math.inf
        assert at(nss.factorial, 1e30, dtype, 2) == math.inf


def _digamma(x: float) -> float:
    """digamma by SciPy, reflected for x < 0 with exact argument reduction."""
    if x > 0:
        return float(ss.psi(x))
    r = x - round(x)
    return float(ss.psi(1 - x)) - math.pi / math.tan(math.pi * r)


def test_beta_family_derivatives_where_jax_has_nan_from_an_unselected_branch():
    # jax's betaln evaluates its b >= 8 branch everywhere and its NaN gradient leaks through
    # jnp.where; the true derivatives are digamma differences.
    # d/dx log|B(x, x)| = 2 (psi(x) - psi(2x)) -> -1/x at 0, -2 log 2 at inf
    for x in (1e-30, -1e-30):
        assert at(lambda v: nss.betaln(v, v), x) == pytest.approx(-1 / x, rel=1e-12)
        assert at(lambda v: nss.betaln(v, v), x, F32) == pytest.approx(-1 / x, rel=1e-6)
        assert at(lambda v: nss.betaln(v, v), x, order=2) == pytest.approx(1 / x**2, rel=1e-12)
    assert at(lambda v: nss.betaln(v, v), 1e30, F32) == pytest.approx(-2 * math.log(2), rel=1e-5)
    # its curvature 2 psi'(x) - 4 psi'(2x) = 1/(2x^2) + 1/(4x^3) + ... (SciPy's at 1e3) is
    # 5e-61 at 1e30, below the rounding of the two terms (2e-30): numlir's is within it
    x = 1e3
    curvature = 2 * ss.polygamma(1, x) - 4 * ss.polygamma(1, 2 * x)
    assert curvature == pytest.approx(0.5 / x**2, rel=1e-3)
    assert abs(at(lambda v: nss.betaln(v, v), 1e30, order=2) - 0.5e-60) <= 0.5e-60
    assert at(lambda v: nss.betaln(v, v), 1e30, F32, 2) == 0.0
    # d/dx log|B(x, b)| = psi(x) - psi(x + b) ~ -b/x at 1e30 (jax: -2b/x, float32)
    for b in (1.5, -1.5):
        assert at(lambda v: nss.betaln(v, b), 1e30, F32) == pytest.approx(-b * 1e-30, rel=1e-6)
        assert at(lambda v: nss.betaln(b, v), 1e30, F32) == pytest.approx(-b * 1e-30, rel=1e-6)
    # the curvature psi'(x) - psi'(x + b) is +inf at the poles 0, -1 of psi'(x)
    for x in (0.0, -0.0, -1.0):
        for f in (lambda v: nss.betaln(v, 1.5), lambda v: nss.betaln(1.5, v)):
            assert at(f, x, F64, 2) == math.inf
    for x in (0.0, -0.0):
        assert at(lambda v: nss.betaln(v, -1.5), x, F64, 2) == math.inf
    for x in (1e-30, -1e-30):  # psi'(x) ~ 1/x^2
        assert at(lambda v: nss.betaln(v, -1.5), x, F64, 2) == pytest.approx(1 / x**2, rel=1e-12)
    # finite points: digamma differences
    for x in (1.0, 2.5):
        want = _digamma(x) - _digamma(x - 1.5)
        assert at(lambda v: nss.betaln(v, -1.5), x) == pytest.approx(want, rel=1e-12)
        assert at(lambda v: nss.betaln(-1.5, v), x) == pytest.approx(want, rel=1e-12)
        beta = float(ss.beta(x, -1.5))
        assert at(lambda v: nss.beta(v, -1.5), x) == pytest.approx(beta * want, rel=1e-12)
        assert at(lambda v: nss.beta(v, -1.5), x, order=2) == pytest.approx(
            numerical_derivative(lambda v: ss.beta(v, -1.5), x, order=2, h=1e-3), rel=1e-6)
    # B(x, b) ~ 1/x near 0: B' ~ -1/x^2 (-inf in float32), B(x, x) ~ 2/x
    for x in (1e-30, -1e-30):
        assert at(lambda v: nss.beta(v, -1.5), x) == pytest.approx(-1 / x**2, rel=1e-12)
        assert at(lambda v: nss.beta(v, -1.5), x, F32) == -math.inf
        assert at(lambda v: nss.beta(v, v), x) == pytest.approx(-2 / x**2, rel=1e-12)
        assert at(lambda v: nss.beta(v, v), x, order=2) == pytest.approx(4 / x**3, rel=1e-12)
        assert at(lambda v: nss.beta(v, -1.5), x, order=2) == pytest.approx(2 / x**3, rel=1e-12)


def test_poch_at_huge_and_tiny_arguments():
    # poch(z, m) = Gamma(z + m) / Gamma(z) ~ z^m for large z (jax: NaN, inf / inf), 0 for z = 0
    # (1 / Gamma(0) = 0), and its derivative at 0 is Gamma(m) (poch = z Gamma(z+m)/Gamma(z+1)).
    assert float(nss.poch(1e30, 1.5)) == pytest.approx(1e45, rel=1e-12)
    assert float(nss.poch(np.float32(1e30), np.float32(1.5))) == math.inf
    assert float(nss.poch(1e30, -1.5)) == pytest.approx(1e-45, rel=1e-12)
    assert at(lambda z: nss.poch(z, 1.5), 1e30) == pytest.approx(1.5 * 1e30**0.5, rel=1e-12)
    assert at(lambda z: nss.poch(z, 1.5), 1e30, order=2) == pytest.approx(0.75 * 1e30**-0.5, rel=1e-12)
    # poch(z, m) -> +inf as m -> inf where Gamma(z) > 0, and so do its m-derivatives poch psi(z + m)
    # and poch (psi(z + m)^2 + psi'(z + m)), psi(1e30) = 69 being positive
    assert ss.gamma(1.5) > 0 and ss.gamma(-1.5) > 0 and ss.psi(1e30) > 0
    for z in (1.5, -1.5):
        for dtype in (F32, F64):
            for order in (0, 1, 2):
                assert at(lambda m: nss.poch(z, m), 1e30, dtype, order) == math.inf
    for order in (0, 1, 2):  # poch(0, m) = 0 for every m
        assert at(lambda m: nss.poch(0.0, m), 1e30, F64, order) == 0.0
    assert float(nss.poch(1e30, 1e30)) == math.inf and at(lambda z: nss.poch(z, z), 1e30) == math.inf
    for m in (1.5, -1.5):
        for z in (0.0, -0.0):
            assert at(lambda v: nss.poch(v, m), z) == pytest.approx(float(ss.gamma(m)), rel=1e-14)
        want = 2 * float(ss.gamma(m)) * (_digamma(m) - _digamma(1.0))
        for z in (1e-30, -1e-30):
            assert at(lambda v: nss.poch(v, m), z, order=2) == pytest.approx(want, rel=1e-12)


def test_zeta_at_huge_arguments_follows_its_integral_term():
    # zeta(s, q) = q^(1-s)/(s-1) + q^-s/2 + O(q^(-s-1)): 2e-15 at (1.5, 1e30) (jax: 0), 0 at
    # q = inf or s = inf (jax: NaN); zeta(1e30, -1.5) has the term (-0.5)^-1e30 = +inf.
    assert float(nss.zeta(1.5, 1e30)) == pytest.approx(2e-15, rel=1e-12)
    assert float(nss.zeta(np.float32(1.5), np.float32(1e30))) == pytest.approx(2e-15, rel=1e-5)
    for s, q in [(1.5, math.inf), (1e30, 1e30), (math.inf, math.inf), (1e30, 1.5), (math.inf, 1.5)]:
        assert float(nss.zeta(s, q)) == 0.0
    assert float(nss.zeta(1e30, -1.5)) == math.inf and float(nss.zeta(math.inf, -1.5)) == math.inf
    # d/ds zeta(s, 1.5) = -sum log(1.5 + k) (1.5 + k)^-s -> 0 as s -> inf, as do all the
    # derivatives of zeta(s, s) (jax: NaN); at the pole s = 1, zeta(s, s) = 1/(s - 1) + O(1)
    # has the slope -1/(s - 1)^2 -> -inf from both sides (jax: NaN)
    for dtype in (F32, F64):
        for order in (1, 2):
            assert at(lambda s: nss.zeta(s, 1.5), 1e30, dtype, order) == 0.0
            assert at(lambda s: nss.zeta(s, 1.5), math.inf, dtype, order) == 0.0
            assert at(lambda s: nss.zeta(s, s), math.inf, dtype, order) == 0.0
        assert at(lambda s: nss.zeta(s, s), 1.0, dtype) == -math.inf
    assert at(lambda s: nss.zeta(s, s), 1.0 + 1e-6) == pytest.approx(-1e12, rel=1e-5)
    # d^2/dq^2 zeta(-1.5, q) = 0.75 zeta(0.5, q) ~ -1.5 sqrt(q) -> -inf; d/dq zeta(-1.5, q) =
    # 1.5 zeta(-0.5, q) ~ -q^1.5, -1e45 at 1e30: -inf in float32
    assert at(lambda q: nss.zeta(-1.5, q), math.inf, F64, 2) == -math.inf
    assert at(lambda q: nss.zeta(-1.5, q), 1e30, F32) == -math.inf
    assert at(lambda q: nss.zeta(-1.5, q), 1e30, F64) == pytest.approx(-1e45, rel=1e-12)
    assert at(lambda q: nss.zeta(-1.5, q), 1e30, F32, 2) == pytest.approx(-1.5e15, rel=1e-5)
    # d^2/ds^2 zeta(s, q) ~ 2/(s - 1)^3 at the pole: +inf from above, -inf from below, so no
    # value at s = 1 (jax: +inf for q = 1.5, NaN for q = s)
    below, above = (at(lambda s: nss.zeta(s, 1.5), 1 + e, F64, 2) for e in (-1e-4, 1e-4))
    assert below < -1e11 and above > 1e11
    assert math.isnan(at(lambda s: nss.zeta(s, 1.5), 1.0, F64, 2))


def test_zeta_of_a_negative_q_has_no_value_for_a_non_integer_s():
    # (q + k)^-s is not real for q + k < 0 and a non-integer s (Python's power is complex), so
    # zeta(s, q) and its q-derivatives -s zeta(s + 1, q), s (s + 1) zeta(s + 2, q) are NaN at
    # every q < 0, q = -inf too (where IEEE's pow(-inf, y) is 0 or inf, not NaN).
    assert isinstance((-2.5) ** -1.5, complex) and isinstance((-2.5) ** -0.5, complex)
    for s in (1.5, -1.5, 0.5):
        for q in (-2.5, -1e30, -math.inf):
            for dtype in (F32, F64):
                for order in (0, 1, 2):
                    assert math.isnan(at(lambda v: nss.zeta(s, v), q, dtype, order)), (s, q, order)


def test_regularized_gamma_at_zero_shape_is_its_limit_one():
    # P(a, x) -> 1 as a -> 0 for every x > 0 (the Gamma(a) distribution collapses onto 0);
    # jax gives NaN below x = 1.
    for x in (0.5, 1e-30, 2.0):
        assert float(nss.gammainc(0.0, x)) == 1.0 and float(numlir.lax.igamma(0.0, x)) == 1.0
        assert float(nss.gammainc(1e-300, x)) == pytest.approx(1.0, abs=1e-290 + 1e-15)


def test_gammaincc_of_tiny_equal_arguments_is_minus_a_log_a_minus_gamma_a():
    # Q(a, a) = 1 - a^a / Gamma(1 + a) + O(a^2) = -a log a - euler_gamma a + ... = 6.85e-29 at
    # 1e-30 (jax: -2.2e-15, a negative probability; it forms 1 - P).
    a = 1e-30
    want = -a * math.log(a) - np.euler_gamma * a
    for f in (nss.gammaincc, numlir.lax.igammac):
        assert float(f(a, a)) == pytest.approx(want, rel=1e-12)


# --- Error function family ----------------------------------------------------------------------


def _erfcx_asymptotic(x: float, derivative: int) -> float:
    """erfcx(x) = (1/sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2^k x^(2k+1)), differentiated
    term by term."""
    total = 0.0
    for k in range(6):
        p = -(2 * k + 1)
        coefficient = (-1) ** k * math.prod(range(1, 2 * k, 2)) / 2**k
        falling = math.prod(p - j for j in range(derivative))
        total += coefficient * falling * x ** (p - derivative)
    return total / math.sqrt(math.pi)


def test_erfcx_derivatives_at_huge_arguments_follow_the_asymptotic_series():
    # erfcx'(x) ~ -1/(sqrt(pi) x^2): -5.6e-61 at 1e30 (jax's 2x erfcx(x) - 2/sqrt(pi) cancels to
    # 1.5e-16 in float64, -8e-8 in float32); erfcx''(x) ~ 2/(sqrt(pi) x^3).
    for x in (1e30, 1e5, 30.0):
        for order in (1, 2):
            want = _erfcx_asymptotic(x, order)
            assert at(nss.erfcx, x, F64, order) == pytest.approx(want, rel=1e-12)
            assert at(nss.erfcx, x, F32, order) == pytest.approx(rounds_to(want, F32), rel=1e-5, abs=1e-44)
    # ... and vanish in the limit x -> inf (jax: NaN)
    for dtype in (F32, F64):
        for order in (1, 2):
            assert at(nss.erfcx, math.inf, dtype, order) == 0.0


def _mills_inverse(x: Decimal) -> Decimal:
    """phi(x) / Phi(x) for x < 0, from the continued fraction of the Mills ratio
    Phi(x) / phi(x) = 1 / (t + 1 / (t + 2 / (t + 3 / ...))), t = -x, in 120-digit decimals
    (s + x is 1e-30 where s is 1e30)."""
    getcontext().prec = 120
    t, c = -x, Decimal(0)
    for k in range(3000, 0, -1):
        c = Decimal(k) / (t + c)
    return t + c


def test_log_ndtr_slope_in_the_far_lower_tail():
    # log_ndtr'(x) = phi(x)/Phi(x) ~ -x: 1e30 at -1e30 (jax: 1 in float64, NaN in float32, from
    # exp(log phi - log Phi) of two huge logarithms) and its derivative -s (x + s) -> -1.
    for x in (-1e30, -1e5, -40.0):
        s = _mills_inverse(Decimal(x))
        curvature = -s * (Decimal(x) + s)
        assert at(nss.log_ndtr, x) == pytest.approx(float(s), rel=1e-13)
        assert at(nss.log_ndtr, x, order=2) == pytest.approx(float(curvature), rel=1e-9)
        assert at(nss.log_ndtr, x, F32) == pytest.approx(float(s), rel=1e-6)
        assert at(nss.log_ndtr, x, F32, 2) == pytest.approx(float(curvature), rel=1e-4)
    for dtype in (F32, F64):
        assert at(nss.log_ndtr, -math.inf, dtype) == math.inf


def test_ndtri_slope_is_infinite_at_zero_and_one():
    # ndtri'(p) = 1/phi(ndtri(p)) grows without bound as p -> 0 or 1 (jax: 0, the constant
    # branch of its where at the ends), and ndtri'' = 2 pi z e^(z^2) -> -inf at 0, +inf at 1.
    slopes = [math.sqrt(2 * math.pi) * math.exp(float(ss.ndtri(p)) ** 2 / 2) for p in (1e-10, 1e-100, 1e-300)]
    assert slopes[0] < slopes[1] < slopes[2]
    for dtype in (F32, F64):
        for p in (0.0, -0.0, 1.0):
            assert at(nss.ndtri, p, dtype) == math.inf
        assert at(nss.ndtri, 0.0, dtype, 2) == -math.inf and at(nss.ndtri, -0.0, dtype, 2) == -math.inf
        assert at(nss.ndtri, 1.0, dtype, 2) == math.inf
    # at 1e-30: z = -11.46, ndtri'' = 2 pi z e^(z^2) = -8.6e58, past float32's range
    z = float(ss.ndtri(1e-30))
    want = 2 * math.pi * z * math.exp(z * z)
    assert at(nss.ndtri, 1e-30, F64, 2) == pytest.approx(want, rel=1e-9)
    assert at(nss.ndtri, 1e-30, F32, 2) == -math.inf


# --- Integrals ----------------------------------------------------------------------------------


def test_exponential_integrals_at_their_limits():
    # Ei(x) = euler_gamma + log|x| + O(x) -> -inf at 0; Ei(x) ~ e^x/x -> inf; Ei(x) = -E1(-x)
    # -> 0 as x -> -inf; E1(inf) = 0 and E1'(x) = -e^-x/x is -inf at 0 (from the right; jax
    # gives +inf at -0 from 1/(-0)) and -0 at inf. jax gives NaN for the others.
    for dtype in (F32, F64):
        assert float(nss.expi(np.asarray(0.0, dtype))) == -math.inf
        assert float(nss.expi(np.asarray(-0.0, dtype))) == -math.inf
        assert float(nss.expi(np.asarray(math.inf, dtype))) == math.inf
        assert float(nss.expi(np.asarray(-math.inf, dtype))) == 0.0
        assert float(nss.exp1(np.asarray(math.inf, dtype))) == 0.0
        assert at(nss.exp1, -0.0, dtype) == -math.inf and at(nss.exp1, 0.0, dtype) == -math.inf
        assert at(nss.exp1, math.inf, dtype) == 0.0
    assert float(nss.expi(1e-30)) == pytest.approx(np.euler_gamma + math.log(1e-30), rel=1e-14)
    assert float(nss.expi(-1e-30)) == pytest.approx(np.euler_gamma + math.log(1e-30), rel=1e-14)


def test_expn_at_its_limits():
    # E_n(0) = int_1^inf t^-n dt = 1/(n - 1) for n > 1 (jax: inf for n < 2), inf for n <= 1;
    # E_n(x) -> 0 as x -> inf or n -> inf; E_0(x) = e^-x/x is +inf at 0 (jax: -inf at -0) and
    # E_0'(x) = -e^-x (1 + x)/x^2 (jax: NaN, -E_-1, which it leaves undefined for x <= 1).
    assert float(nss.expn(1.5, 0.0)) == 2.0 and float(nss.expn(1.5, -0.0)) == 2.0
    assert float(nss.expn(1e30, 0.0)) == pytest.approx(1e-30, rel=1e-14)
    assert float(nss.expn(math.inf, 0.0)) == 0.0
    for n in (1.5, -1.5, 0.0, 1.0):
        assert float(nss.expn(n, math.inf)) == 0.0
    for n in (1.5, -1.5, 1.0):  # -E_(n-1)(inf)
        assert at(lambda x: nss.expn(n, x), math.inf) == 0.0
    assert float(nss.expn(-0.0, -0.0)) == math.inf and float(nss.expn(0.0, -0.0)) == math.inf
    assert float(nss.expn(1e30, 1.5)) == pytest.approx(math.exp(-1.5) / (1e30 + 1.5), rel=1e-12)
    for x in (1.0, 0.5, 1e-3):
        want = -math.exp(-x) * (1 + x) / x**2
        assert at(lambda v: nss.expn(0.0, v), x) == pytest.approx(want, rel=1e-13)
        assert want == pytest.approx(numerical_derivative(lambda v: math.exp(-v) / v, x, h=x / 50), rel=1e-8)
    assert at(lambda v: nss.expn(0.0, v), 1e-30, F32) == -math.inf


def test_expn_of_negative_order_is_its_integral():
    # E_n(x) = int_1^inf e^(-x t) t^-n dt, by quadrature: it converges for every x > 0 and real
    # n (jax's is NaN for x <= 1 unless n is a whole number >= 1, and its continued fraction,
    # cut at a fixed depth, falls short once -n grows: -2.6e6 for E_-30(1.5) = 9.2e26).
    from scipy.integrate import quad

    def integral(n, x):
        return quad(lambda t: math.exp(-x * t) * t**-n, 1, math.inf, epsabs=0, epsrel=1e-13,
                    limit=200)[0]

    for x in (1.0, 0.5, 1.5, 20.0):
        for n in (-1.5, -2.5, -0.5, -1.0, -10.0):  # SciPy's and jax's E_-1(1) are NaN
            assert float(nss.expn(n, x)) == pytest.approx(integral(n, x), rel=1e-11)
        assert at(lambda v: nss.expn(-1.5, v), x) == pytest.approx(-integral(-2.5, x), rel=1e-11)
        assert at(lambda v: nss.expn(-1.5, v), x, F32) == pytest.approx(-integral(-2.5, x), rel=1e-5)
    assert float(nss.expn(-30.0, 1.5)) == pytest.approx(integral(-30.0, 1.5), rel=1e-10)
    # n = -1e30: the integral over [2, 3] alone is at least e^-4.5 2^1e30, past every float
    assert -4.5 + 1e30 * math.log(2) > math.log(np.finfo(F64).max)
    for dtype in (F32, F64):
        assert float(nss.expn(np.asarray(-1e30, dtype), np.asarray(1.5, dtype))) == math.inf


def test_expn_depends_on_its_order_so_its_derivative_there_is_not_zero():
    # d/dn E_n(x) = -int_1^inf log t e^(-x t) t^-n dt < 0 (jax: 0, n being a non-differentiable
    # argument of its custom_jvp); numlir raises rather than return that 0.
    from scipy.integrate import quad

    for n, x in [(1.5, 1.5), (0.0, 1.5), (-1.5, 2.0)]:
        slope = -quad(lambda t: math.log(t) * math.exp(-x * t) * t**-n, 1, math.inf)[0]
        assert slope < -1e-3
        assert slope == pytest.approx(numerical_derivative(lambda v: float(nss.expn(v, x)), n),
                                      rel=1e-6)
        with pytest.raises(NotImplementedError):
            numlir.grad(lambda v: nss.expn(v, x))(n)


def test_spence_derivatives_follow_log_x_over_one_minus_x():
    # spence(x) = int_1^x log t / (1 - t) dt: spence' = log x / (1 - x) is -inf at 0, -1 at 1,
    # -69.08 at 1e-30, -6.9e-29 at 1e30 (jax: 0, 0, -70.08, -0); spence'' = (1/x - 1 +
    # log x) / (1 - x)^2 is +inf at 0, 1/2 at 1 (its limit), 1e30 at 1e-30 (jax: 0, 0, 2e30);
    # spence(x) ~ -log(x)^2 / 2 -> -inf (jax: NaN).
    for dtype in (F32, F64):
        assert at(nss.spence, 0.0, dtype) == -math.inf and at(nss.spence, -0.0, dtype) == -math.inf
        assert at(nss.spence, 0.0, dtype, 2) == math.inf and at(nss.spence, -0.0, dtype, 2) == math.inf
        assert float(nss.spence(np.asarray(math.inf, dtype))) == -math.inf
        assert at(nss.spence, 1.0, dtype) == -1.0 and at(nss.spence, 1.0, dtype, 2) == 0.5
    assert at(nss.spence, 1e-30) == pytest.approx(math.log(1e-30), rel=1e-14)
    assert at(nss.spence, 1e30) == pytest.approx(math.log(1e30) / (1 - 1e30), rel=1e-14)
    assert at(nss.spence, 1e-30, order=2) == pytest.approx(1e30, rel=1e-14)
    assert at(nss.spence, 1e30, order=2) == pytest.approx((1e-30 - 1 + math.log(1e30)) / 1e60, rel=1e-12)
    # the formulas are SciPy's spence's slope and curvature
    for x in (0.3, 0.97, 1.05, 3.0):
        assert at(nss.spence, x) == pytest.approx(numerical_derivative(ss.spence, x, h=1e-2), rel=1e-9)
        assert at(nss.spence, x, order=2) == pytest.approx(
            numerical_derivative(ss.spence, x, order=2, h=1e-2), rel=1e-7)


def test_owens_t_at_infinite_a_is_a_quarter():
    # T(0, a) = arctan(a) / (2 pi) -> +-1/4 as a -> +-inf (jax: NaN).
    for dtype in (F32, F64):
        assert float(nss.owens_t(np.asarray(0.0, dtype), np.asarray(math.inf, dtype))) == 0.25
        assert float(nss.owens_t(np.asarray(0.0, dtype), np.asarray(-math.inf, dtype))) == -0.25
    assert float(nss.owens_t(0.0, 1e8)) == pytest.approx(math.atan(1e8) / (2 * math.pi), rel=1e-12)


# --- Entropies and x log y --------------------------------------------------------------------


def test_entropy_and_x_log_y_curvature_at_tiny_and_huge_arguments():
    # rel_entr(x, x) = kl_div(x, x) = 0 for every x > 0: all derivatives 0 (jax squares x into
    # 0 or inf: inf, 1.4e14 or -1e-30); xlogy(x, x) = x log x: '' = 1/x; xlog1py(x, x)'' =
    # (2 + x)/(1 + x)^2 (jax: 2e-30 at 1e30); xlogy(0, y) = 0: '' = 0 (jax: NaN at 1e-30).
    for dtype in (F32, F64):
        for x in (1e-30, 1e30):
            assert at(lambda v: nss.rel_entr(v, v), x, dtype, 2) == 0.0
            assert at(lambda v: nss.kl_div(v, v), x, dtype, 2) == 0.0
            assert at(lambda v: nss.xlogy(v, v), x, dtype, 2) == pytest.approx(1 / x, rel=1e-6)
            assert at(lambda v: nss.xlogy(v, v), -x, dtype, 2) == pytest.approx(-1 / x, rel=1e-6)
            assert at(lambda v: nss.xlogy(0.0, v), x, dtype, 2) == 0.0
        assert at(lambda v: nss.xlog1py(v, v), 1e30, dtype, 2) == pytest.approx(1e-30, rel=1e-6)
        assert at(lambda v: nss.xlog1py(v, v), -1e30, dtype, 2) == pytest.approx(-1e-30, rel=1e-6)


def test_boxcox_derivatives_at_tiny_and_huge_arguments():
    # boxcox(x, l) = (x^l - 1)/l: d/dx = x^(l-1), d2/dx2 = (l-1) x^(l-2) -- 1e-15 and 5e14 at
    # x = 1e-30, l = 1.5 and 1e-75 at x = 1e30, l = -1.5 (jax: 0, from its underflowed x^l);
    # in l at 0: log(x)^2/2 and log(x)^3/3 (jax: 0, its branch at l = 0, or noise near it).
    assert at(lambda v: nss.boxcox(v, 1.5), 1e-30) == pytest.approx(1e-15, rel=1e-12)
    assert at(lambda v: nss.boxcox(v, 1.5), 1e-30, order=2) == pytest.approx(5e14, rel=1e-12)
    for f in (nss.boxcox, nss.boxcox1p):
        assert at(lambda v: f(v, -1.5), 1e30) == pytest.approx(1e30**-2.5, rel=1e-12)
        assert at(lambda v: f(v, -1.5), 1e30, order=2) == pytest.approx(-2.5 * 1e30**-3.5, rel=1e-12)
    for f, log in ((nss.boxcox, math.log), (nss.boxcox1p, math.log1p)):
        L = log(1.5)
        for dtype in (F32, F64):
            for lam in (0.0, -0.0, 1e-30, -1e-30):
                assert at(lambda v: f(1.5, v), lam, dtype) == pytest.approx(L**2 / 2, rel=1e-6)
                assert at(lambda v: f(1.5, v), lam, dtype, 2) == pytest.approx(L**3 / 3, rel=1e-5)
    # boxcox1p(x, x) = expm1(x log1p x)/x = x - x^2/2 + 5x^3/6 + ...: 1e-30, 1 and -1 at 1e-30
    # (jax: 0 in float32, NaN); boxcox1p(0, l) = 0 for every l, so its derivatives are 0;
    # boxcox(x, x) = log x + x log(x)^2/2 + ...: d/dx ~ 1/x = 1e30 at 1e-30 (jax: inf).
    for dtype in (F32, F64):
        for x in (1e-30, -1e-30):
            assert float(nss.boxcox1p(np.asarray(x, dtype), np.asarray(x, dtype))) == pytest.approx(x, rel=1e-6)
            assert at(lambda v: nss.boxcox1p(v, v), x, dtype) == pytest.approx(1.0, rel=1e-6)
            assert at(lambda v: nss.boxcox1p(v, v), x, dtype, 2) == pytest.approx(-1.0, rel=1e-6)
            assert at(lambda v: nss.boxcox1p(0.0, v), x, dtype) == 0.0
            assert at(lambda v: nss.boxcox1p(0.0, v), x, dtype, 2) == 0.0
        assert at(lambda v: nss.boxcox(v, v), 1e-30, dtype) == pytest.approx(1e30, rel=1e-6)
    assert at(lambda v: nss.boxcox(v, v), 1e-30, F32, 2) == -math.inf  # -1/x^2 = -1e60
