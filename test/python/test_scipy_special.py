"""numlir.scipy.special against jax.scipy.special (and SciPy for accuracy in the tails):
values over dtypes, eager and jit, gradients, and the special values at the edges."""

import jax
import jax.scipy.special as jss
import numpy as np
import pytest
import scipy.special as ss

import numlir
import numlir.scipy.special as nss
from jax_comparison import assert_same

R = np.random.default_rng(41)
POS = np.abs(R.standard_normal(12)).astype(np.float32) * 3 + 0.05
ANY = (R.standard_normal(12) * 3).astype(np.float32)
UNIT = R.uniform(0.01, 0.99, 12).astype(np.float32)
EDGE = np.array([0.0, -1.0, 2.0, 0.5, np.inf], np.float32)

CASES = {
    "expit": (lambda s, x: s.expit(x), (ANY,)),
    "logit": (lambda s, x: s.logit(x), (UNIT,)),
    "xlogy": (lambda s, x, y: s.xlogy(x, y), (np.concatenate([[0.0, 0.0], UNIT[2:]]).astype(np.float32), POS)),
    "xlog1py": (lambda s, x, y: s.xlog1py(x, y), (np.concatenate([[0.0], UNIT[1:]]).astype(np.float32), ANY)),
    "entr": (lambda s, x: s.entr(x), (np.concatenate([EDGE, UNIT]).astype(np.float32),)),
    "rel_entr": (lambda s, p, q: s.rel_entr(p, q), (EDGE[:4], np.array([1.0, 2.0, 0.0, 0.5], np.float32))),
    "kl_div": (lambda s, p, q: s.kl_div(p, q), (EDGE[:4], np.array([1.0, 2.0, 0.0, 0.5], np.float32))),
    "gammaln": (lambda s, x: s.gammaln(x), (POS,)),
    "gammasgn": (lambda s, x: s.gammasgn(x), (np.array([2.5, -0.5, -1.5, -2.5, -1.0, 0.0, np.nan], np.float32),)),
    "gamma": (lambda s, x: s.gamma(x), (np.concatenate([POS, [-0.5, -1.5, -2.25]]).astype(np.float32),)),
    "digamma": (lambda s, x: s.digamma(x), (POS,)),
    "polygamma": (lambda s, x: s.polygamma(2, x), (POS,)),
    "zeta": (lambda s, x: s.zeta(x + 1.5, 2.0), (POS,)),
    "multigammaln": (lambda s, x: s.multigammaln(x + 2.0, 3), (POS,)),
    "factorial": (lambda s, x: s.factorial(x), (np.array([0.0, 1.0, 4.0, 5.5, -1.0], np.float32),)),
    "poch": (lambda s, z, m: s.poch(z, m), (POS, UNIT * 3)),
    "erf": (lambda s, x: s.erf(x), (ANY,)),
    "erfinv": (lambda s, x: s.erfinv(x * 2 - 1), (UNIT,)),
    "erfc": (lambda s, x: s.erfc(x), (np.concatenate([ANY, [0.99, 1.0, 1.01, 5.0, 9.0, -9.0]]).astype(np.float32),)),
    "erfcx": (lambda s, x: s.erfcx(x), (np.concatenate([ANY, [0.99, 1.0, 30.0, -2.0]]).astype(np.float32),)),
    "ndtr": (lambda s, x: s.ndtr(x), (np.concatenate([ANY, [-12.0, 12.0]]).astype(np.float32),)),
    "softmax": (lambda s, x: s.softmax(x), (ANY.reshape(3, 4),)),
    "softmax_axis": (lambda s, x: s.softmax(x, axis=1), (ANY.reshape(3, 4),)),
    "log_softmax": (lambda s, x: s.log_softmax(x, axis=0), (ANY.reshape(3, 4),)),
    "logsumexp_where": (lambda s, x: s.logsumexp(x, axis=1, where=x > -1), (ANY.reshape(3, 4),)),
}


@pytest.mark.parametrize("name", CASES)
def test_matches_jax(name):
    fn, args = CASES[name]
    want = fn(jss, *args)
    assert_same(fn(nss, *[numlir.numpy.asarray(a) for a in args]), want, tol=2e-5)
    assert_same(numlir.jit(lambda *a: fn(nss, *a))(*args), want, tol=2e-5)


def test_erfc_and_erfcx_are_accurate_in_the_tail(x64):
    x = np.concatenate([np.linspace(-3, 3, 61), [1.999, 2.0, 2.001, 4.0, 10.0, 26.0]])
    np.testing.assert_allclose(np.asarray(nss.erfc(x)), ss.erfc(x), rtol=3e-14, atol=0)
    np.testing.assert_allclose(np.asarray(nss.erfcx(x)), ss.erfcx(x), rtol=3e-14, atol=0)
    xf = x[x < 9].astype(np.float32)  # past 9, float32's erfc is subnormal or 0
    np.testing.assert_allclose(np.asarray(nss.erfc(xf)), ss.erfc(xf.astype(np.float64)), rtol=3e-6, atol=0)


@pytest.mark.parametrize("name", ["expit", "logit", "xlogy", "entr", "gammaln", "erfc", "erfcx", "ndtr",
                                  "softmax_axis", "multigammaln", "poch"])
def test_gradients_match_jax(name, x64):
    fn, args = CASES[name]
    args = [a.astype(np.float64) for a in args]
    if name == "entr":  # away from 0 and the negatives, where the derivative is a convention
        args = [UNIT.astype(np.float64)]
    weights = np.cos(np.arange(np.asarray(fn(jss, *args)).size) + 0.5).reshape(np.shape(fn(jss, *args)))

    def loss(s):
        return lambda x: (fn(s, x, *args[1:]) * weights).sum()

    got = np.asarray(numlir.grad(loss(nss))(args[0]))
    want = np.asarray(jax.jit(jax.grad(loss(jss)))(args[0]))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_xlogy_has_a_finite_gradient_at_zero():
    g = numlir.grad(lambda x: nss.xlogy(x, 0.0 * x + 2.0))(0.0)
    assert np.isfinite(float(g)) and float(g) == pytest.approx(float(jax.jit(jax.grad(lambda x: jss.xlogy(x, 2.0)))(0.0)))


def test_riemann_zeta_without_q_is_refused():
    with pytest.raises(NotImplementedError, match="pass q=1.0"):
        nss.zeta(2.0)


# --- Values and derivatives at special points (issue 39) ------------------------------------


def _derivative(f, order, lib):
    """The ``order``-th derivative of scalar ``f`` by ``lib``'s grad (jax's jitted)."""
    for _ in range(order):
        f = lib.grad(f)
    return jax.jit(f) if lib is jax else f


def _at(f, order, lib, points, dtype):
    d = _derivative(f, order, lib)
    return np.array([float(d(np.asarray(p, dtype))) for p in points])


def _both(f_of, order, points, dtype=np.float32):
    """(numlir's, jax's) ``order``-th derivatives of ``f_of(module)`` at ``points``."""
    return (_at(f_of(nss), order, numlir, points, dtype), _at(f_of(jss), order, jax, points, dtype))


def numerical_derivative(f, x, order=1, h=None):
    """A float64 central difference of ``f`` at ``x``, Richardson-extrapolated twice
    (error O(h^6)), for orders 1 and 2."""
    h = h or (1e-3 if order == 1 else 1e-2)

    def central(step):
        if order == 1:
            return (f(x + step) - f(x - step)) / (2 * step)
        return (f(x + step) - 2 * f(x) + f(x - step)) / step**2

    d = [central(h / 2**k) for k in range(3)]
    d = [(4 * d[k + 1] - d[k]) / 3 for k in range(2)]
    return (16 * d[1] - d[0]) / 15


def _same_special(got, want):
    """NaN and infinities in the same places with the same signs; finite values close."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.where(np.isinf(want), want, 0), np.where(np.isinf(got), got, 0))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=2e-5, atol=0)


def test_erfcx_derivative_at_one_matches_two_x_erfcx_minus_two_over_sqrt_pi(x64):
    # numlir's was half of it (-0.1366), from differentiating through the branch at x = 1.
    for dtype in (np.float32, np.float64):
        got, want = _both(lambda s: s.erfcx, 1, [1.0, 0.5, 2.5, 10.0], dtype)
        np.testing.assert_allclose(got, want, rtol=2e-5 if dtype == np.float32 else 1e-9)
    x = 1.0
    truth = 2 * x * ss.erfcx(x) - 2 / np.sqrt(np.pi)
    assert float(numlir.grad(nss.erfcx)(x)) == pytest.approx(truth, rel=1e-14)
    assert float(numlir.grad(nss.erfcx)(x)) == pytest.approx(numerical_derivative(ss.erfcx, x), rel=1e-10)


def test_erfcx_second_derivative_at_one_and_infinite_slopes_at_minus_huge(x64):
    for x in (1.0, 2.0, 3.0):
        got = float(numlir.grad(numlir.grad(nss.erfcx))(x))
        assert got == pytest.approx(numerical_derivative(ss.erfcx, x, order=2), rel=1e-8)
        assert got == pytest.approx(float(jax.grad(jax.grad(jss.erfcx))(x)), rel=1e-12)
    for order in (1, 2):
        _same_special(*_both(lambda s: s.erfcx, order, [-1e30, -np.inf, np.nan, -1.0]))


def test_entr_is_nan_at_nan_and_its_derivative_is_minus_log_x_minus_one():
    points = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-30, 1e30, np.inf, -np.inf, np.nan]
    for order in (0, 1, 2):
        _same_special(*_both(lambda s: s.entr, order, points))  # +inf at 0, -1/x after


def test_entr_derivatives_match_finite_differences(x64):
    f = lambda x: -x * np.log(x)  # noqa: E731
    for x in (0.3, 2.0):
        assert float(numlir.grad(nss.entr)(x)) == pytest.approx(numerical_derivative(f, x, h=1e-2), rel=1e-9)
        assert float(numlir.grad(numlir.grad(nss.entr))(x)) == pytest.approx(
            numerical_derivative(f, x, order=2, h=1e-2), rel=1e-8)


@pytest.mark.parametrize("module", [numlir.numpy, nss], ids=["numpy", "scipy"])
def test_i0_derivative_at_zero_is_zero(module, x64):
    # It was 1 (|x|'s slope at 0 times i0e): I0' is I1, which vanishes at 0.
    assert float(numlir.grad(module.i0)(0.0)) == 0.0
    assert float(numlir.grad(module.i0)(-0.0)) == 0.0
    assert float(jax.grad(jax.numpy.i0)(0.0)) == 0.0
    for x in (0.7, -2.5, 30.0):
        assert float(numlir.grad(module.i0)(x)) == pytest.approx(float(ss.i1(x)), rel=1e-13)
        assert float(numlir.grad(module.i0)(x)) == pytest.approx(numerical_derivative(ss.i0, x), rel=1e-9)


def test_i0_derivative_at_huge_arguments_is_infinite():
    # It was NaN (inf * 0 where i0e' underflows); I1(+-1e30) is +-inf, as jax's jnp.i0 says.
    got, want = _both(lambda s: s.i0 if s is nss else jax.numpy.i0, 1, [1e30, -1e30])
    np.testing.assert_array_equal(got, [np.inf, -np.inf])
    np.testing.assert_array_equal(want, [np.inf, -np.inf])
    np.testing.assert_array_equal(_at(numlir.numpy.i0, 1, numlir, [1e30, -1e30], np.float32), [np.inf, -np.inf])


def test_i1_derivative_is_i0_minus_i1_over_x_at_and_near_zero(x64):
    for x in (0.0, 1e-30, 0.011, 1.99, 2.01, 5.0, -3.0):
        want = 0.5 if x == 0 else ss.i0(x) - ss.i1(x) / x
        assert float(numlir.grad(nss.i1)(x)) == pytest.approx(want, rel=1e-13)
    for x in (0.011, 1.0, 1.99, 2.01, 5.0):
        assert float(numlir.grad(numlir.grad(nss.i1))(x)) == pytest.approx(
            numerical_derivative(ss.i1, x, order=2), rel=1e-7)


def test_lgamma_and_digamma_just_below_zero_and_the_negative_integers(x64):
    # x - floor(x) rounds to 1 for x = -1e-30, which made digamma 2.6e16 and lgamma 37.8.
    for fn in ("lgamma", "digamma"):
        for dtype in (np.float32, np.float64):
            x = np.asarray([-1e-30, 1e-30, -0.5, -1.5, -100.5], dtype)
            got, want = getattr(numlir.lax, fn)(x), getattr(jax.lax, fn)(x)
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6)
    x = np.array([-1 - 1e-10, -2 + 1e-9, -3.5, -1e-300, -7.000001])
    np.testing.assert_allclose(np.asarray(numlir.lax.lgamma(x)), ss.gammaln(x), rtol=1e-14)
    # The reflection psi(x) = psi(1 - x) - pi / tan(pi r), with r = x - round(x) exact in
    # float64 (SciPy's psi loses digits next to the poles).
    r = x - np.round(x)
    reflected = ss.psi(1 - x) - np.pi / np.tan(np.pi * r)
    np.testing.assert_allclose(np.asarray(numlir.lax.digamma(x)), reflected, rtol=1e-13)


def test_log_ndtr_derivative_is_zero_at_infinity_and_matches_finite_differences(x64):
    _same_special(*_both(lambda s: s.log_ndtr, 1, [np.inf, 0.0, 1.0, -1.0, np.nan]))
    f = lambda x: ss.log_ndtr(x)  # noqa: E731
    for x in (-30.0, -3.0, -0.5, 0.0, 2.0, 6.0):
        assert float(numlir.grad(nss.log_ndtr)(x)) == pytest.approx(numerical_derivative(f, x, h=1e-2), rel=1e-8)
        assert float(numlir.grad(numlir.grad(nss.log_ndtr))(x)) == pytest.approx(
            numerical_derivative(f, x, order=2, h=1e-2), rel=1e-6)


def test_ndtri_derivative_is_one_over_the_normal_density(x64):
    # It was NaN everywhere (the Newton steps' derivative).
    got, want = _both(lambda s: s.ndtri, 1, [0.5, 1e-30, 0.3, 0.999, -1.0, np.nan])
    _same_special(got, want)
    for p in (0.5, 0.3, 1e-10, 0.999):
        assert float(numlir.grad(nss.ndtri)(p)) == pytest.approx(
            np.sqrt(2 * np.pi) * np.exp(ss.ndtri(p) ** 2 / 2), rel=1e-12)
        assert float(numlir.grad(numlir.grad(nss.ndtri))(p)) == pytest.approx(
            2 * np.pi * ss.ndtri(p) * np.exp(ss.ndtri(p) ** 2), rel=1e-11, abs=1e-12)
    assert float(numlir.grad(nss.ndtri)(0.3)) == pytest.approx(numerical_derivative(ss.ndtri, 0.3, h=1e-2), rel=1e-8)


def test_logit_derivative_is_one_over_x_one_minus_x_at_the_ends():
    points = [0.0, -0.0, 1.0, 0.5, -1.0, np.inf, -np.inf, np.nan, 1e-30]
    for order in (1, 2):
        _same_special(*_both(lambda s: s.logit, order, points))


def test_loggamma_is_nan_at_and_below_zero():
    points = [0.0, -0.0, -1.0, -0.5, -1e-30, 0.5, 3.0, np.inf, -np.inf]
    for order in (0, 1):
        _same_special(*_both(lambda s: s.loggamma, order, points))


def test_gamma_of_minus_zero_is_minus_infinity():
    assert float(nss.gammasgn(-0.0)) == -1.0 == float(jss.gammasgn(-0.0))
    assert float(nss.gamma(-0.0)) == -np.inf == float(jss.gamma(-0.0))
    assert float(nss.beta(-0.0, 1.5)) == -np.inf == float(jss.beta(-0.0, 1.5))


def test_betaln_does_not_cancel_at_huge_arguments(x64):
    # It was lgamma(a) + lgamma(b) - lgamma(a + b): 0 at (1e30, 1.5) in float32, not -103.7.
    got, want = nss.betaln(np.float32(1e30), np.float32(1.5)), jss.betaln(np.float32(1e30), np.float32(1.5))
    assert float(got) == pytest.approx(float(want), rel=1e-6)
    assert float(nss.beta(np.float32(1e30), np.float32(1.5))) == 0.0
    a = np.array([1.5, 0.3, -1.5, 5.0, 20.0, 1e10, 3.0, -7.5])
    b = np.array([1e30, 9.0, 20.0, 12.0, 30.0, 1e10, 300.5, 8.0])
    np.testing.assert_allclose(np.asarray(nss.betaln(a, b)), ss.betaln(a, b), rtol=1e-13)
    for ai, bi in zip(a[1:5], b[1:5]):
        assert float(numlir.grad(nss.betaln, argnums=1)(ai, bi)) == pytest.approx(
            numerical_derivative(lambda v: ss.betaln(ai, v), bi, h=1e-2), rel=1e-8)


def test_poch_is_one_where_m_is_zero_and_does_not_cancel_at_huge_z(x64):
    for z in (0.0, -1.0, 2.5, np.nan):
        assert float(nss.poch(z, 0.0)) == 1.0 == float(jss.poch(z, 0.0))
    assert float(nss.poch(1e30, 1.5)) == pytest.approx(1e45, rel=1e-12)
    z, m = np.array([8.5, 20.0, 1e5, 3.0]), np.array([1.5, -3.2, 2.0, 0.7])
    np.testing.assert_allclose(np.asarray(nss.poch(z, m)), ss.poch(z, m), rtol=1e-12)
    assert float(numlir.grad(nss.poch)(20.0, 1.5)) == pytest.approx(
        numerical_derivative(lambda v: ss.poch(v, 1.5), 20.0, h=1e-2), rel=1e-8)


def test_zeta_derivative_in_q_continues_below_s_one(x64):
    # jax differentiates its series, which holds where lax.zeta's value is NaN by convention:
    # d/dq zeta(0, q) = -1, and zeta(-1.5, q)'s derivatives are finite; numlir's were NaN.
    for s in (0.0, -1.5, 1.5, 3.0):
        for order in (1, 2):
            got, want = _both(lambda m, s=s: (lambda q: m.zeta(s, q)), order, [0.0, 0.5, 1.0, 7.0, 1e-30],
                              np.float64)
            np.testing.assert_allclose(got, want, rtol=1e-9)
    assert float(nss.zeta(1.0, 0.0)) == np.inf == float(jss.zeta(1.0, 0.0))


def test_igamma_derivative_in_a_at_tiny_a_does_not_overflow():
    # The series' first term was 1/a, its derivative -1/a^2: -inf at a = x = 1e-30 in float32.
    x = np.float32(1e-30)
    got = float(numlir.grad(lambda a: numlir.lax.igamma(a, a))(x))
    assert got == pytest.approx(float(jax.grad(lambda a: jax.lax.igamma(a, a))(x)), rel=1e-5)
    assert got == pytest.approx(np.log(1e-30) + np.euler_gamma + 1, rel=1e-5)  # d/da x^a / Gamma(a+1) + 1


def test_xlogy_follows_jax_at_x_zero():
    # 0 for every y but NaN (it was NaN for y < 0); the derivative in x is log(y) there too.
    for y in (-1.0, 0.0, 2.0, np.inf):
        assert float(nss.xlogy(0.0, y)) == 0.0 == float(jss.xlogy(0.0, y))
    assert np.isnan(float(nss.xlogy(0.0, np.nan)))
    _same_special(*_both(lambda s: (lambda x: s.xlogy(x, 0.0)), 1, [0.0, 1.0, -1.0]))
    _same_special(*_both(lambda s: (lambda x: s.xlog1py(x, -1.0)), 1, [0.0, 1.0]))


def test_zeta_derivative_in_s_is_jax_s_series_derivative(x64):
    # It raised NotImplementedError; jax differentiates its Euler-Maclaurin series in s too.
    for s, q in [(2.0, 1.0), (1.5, 0.5), (3.0, 7.0), (0.5, 1.0), (2.0, 1e30)]:
        got = float(numlir.grad(lambda v: nss.zeta(v, q))(s))
        assert got == pytest.approx(float(jax.grad(lambda v: jss.zeta(v, q))(s)), rel=1e-9)
        tie = float(numlir.grad(numlir.grad(lambda v: nss.zeta(v, v)))(s))
        assert tie == pytest.approx(float(jax.grad(jax.grad(lambda v: jss.zeta(v, v)))(s)), rel=1e-9)
    # d/ds zeta(s, 1) = -sum log(k) k^-s, summed directly far enough that the tail is tiny
    k = np.arange(1, 2_000_001, dtype=np.float64)
    assert float(numlir.grad(lambda v: nss.zeta(v, 1.0))(4.0)) == pytest.approx(-np.sum(np.log(k) / k**4), rel=1e-12)


def test_poch_second_derivative_near_zero_does_not_cancel(x64):
    # (digamma(z + m) - digamma(z)) poch differentiated again is -1/z^2 + 1/z^2 at tiny z:
    # 0 (jax: -8.8e14) where poch''(1e-30, 1.5) = 2 Gamma(1.5) (digamma(1.5) - digamma(1)).
    want = 2 * ss.gamma(1.5) * (ss.psi(1.5) - ss.psi(1.0))
    assert float(numlir.grad(numlir.grad(lambda z: nss.poch(z, 1.5)))(1e-30)) == pytest.approx(want, rel=1e-12)
    assert float(numlir.grad(lambda z: nss.poch(z, 1.5))(0.0)) == pytest.approx(ss.gamma(1.5), rel=1e-14)
    for z, m in [(0.3, 1.5), (-0.3, -1.5), (2.0, 1.5)]:
        f = lambda v: ss.poch(v, m)  # noqa: E731
        assert float(numlir.grad(numlir.grad(lambda v: nss.poch(v, m)))(z)) == pytest.approx(
            numerical_derivative(f, z, order=2, h=1e-2), rel=1e-7)


@pytest.mark.parametrize("fn,log", [("boxcox", np.log), ("boxcox1p", np.log1p)])
def test_boxcox_is_smooth_in_lambda_through_zero(fn, log, x64):
    # expm1(l log x) / l cancels for tiny l and jax's branch at l = 0 is constant in l: the
    # derivatives in l there are log(x)^2 / 2 and log(x)^3 / 3.
    f = getattr(nss, fn)
    for x in (1.5, 0.25):
        L = log(x)
        for lam in (0.0, 1e-30, -1e-30, 1e-8):
            assert float(numlir.grad(lambda v: f(x, v))(lam)) == pytest.approx(L**2 / 2, rel=1e-7)
            assert float(numlir.grad(numlir.grad(lambda v: f(x, v)))(lam)) == pytest.approx(L**3 / 3, rel=1e-7)
        assert float(numlir.grad(lambda v: f(x, v))(0.3)) == pytest.approx(
            numerical_derivative(lambda v: getattr(ss, fn)(x, v), 0.3), rel=1e-9)


def test_gammaincc_at_small_a_does_not_cancel(x64):
    # Q = 1 - P lost everything where P is nearly 1: 0 at a = x = 1e-30 (jax: -2.2e-15), and
    # half its digits in float32 at a = 1e-5.
    a = np.array([1e-30, 1e-5, 1e-3, 0.05, 0.099, 1e-8, 0.05])
    x = np.array([1e-30, 0.5, 0.9, 0.3, 1.05, 1e-10, 1e-30])
    np.testing.assert_allclose(np.asarray(nss.gammaincc(a, x)), ss.gammaincc(a, x), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(nss.gammaincc(a.astype(np.float32), x.astype(np.float32))),
                               ss.gammaincc(a, x), rtol=2e-6)
    np.testing.assert_allclose(np.asarray(numlir.lax.igammac(a, x)), ss.gammaincc(a, x), rtol=1e-14)
