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
