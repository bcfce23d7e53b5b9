"""numlir.scipy.stats' distributions against jax.scipy.stats (values, eager and jit,
gradients) and SciPy in the tails."""

import jax
import jax.scipy.stats as jst
import numpy as np
import pytest
import scipy.stats as sst

import numlir
import numlir.scipy.stats as nst
from jax_comparison import assert_same

X = np.array([-30.0, -5.0, -1.5, -0.2, 0.0, 0.3, 1.0, 2.5, 7.0, 40.0], np.float32)
Q = np.array([0.0, 1e-6, 0.1, 0.5, 0.9, 0.999, 1.0, 1.5, -0.1], np.float32)
FUNCS = {d: [f for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf") if hasattr(getattr(nst, d), f)]
         for d in ("norm", "expon", "uniform", "laplace", "logistic", "cauchy", "gumbel_r", "gumbel_l")}
CASES = [(d, f) for d, fs in FUNCS.items() for f in fs]


def _args(f):
    return (Q,) if f in ("ppf", "isf") else (X,)


@pytest.mark.parametrize("dist,fn", CASES, ids=[f"{d}.{f}" for d, f in CASES])
def test_matches_jax(dist, fn):
    (x,) = _args(fn)
    if fn in ("ppf", "isf"):
        # jax's ppfs lose the tails (tan(pi (q - 1/2)) in float32) and give NaN at the
        # ends where SciPy gives +-inf: those are compared with SciPy below.
        x = x[2:6]
    ours, theirs = getattr(getattr(nst, dist), fn), getattr(getattr(jst, dist), fn)
    for loc, scale in ((0.0, 1.0), (0.5, 2.0)):
        want = theirs(x, loc, scale)
        assert_same(ours(x, loc, scale), want, tol=2e-5)
        assert_same(numlir.jit(lambda v: ours(v, loc, scale))(x), want, tol=2e-5)


@pytest.mark.parametrize("dist,fn", [c for c in CASES if c[1] in ("logcdf", "logsf", "cdf", "sf", "logpdf")],
                         ids=lambda c: str(c))
def test_tails_match_scipy_in_float64(dist, fn, x64):
    x = X.astype(np.float64)
    got = np.asarray(getattr(getattr(nst, dist), fn)(x))
    want = getattr(getattr(sst, dist), fn)(x)
    finite = np.isfinite(want)
    np.testing.assert_array_equal(np.isfinite(got), finite)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("dist,fn", [c for c in CASES if c[1] in ("ppf", "isf")], ids=lambda c: str(c))
def test_quantiles_match_scipy(dist, fn, x64):
    q = Q.astype(np.float64)
    got = np.asarray(getattr(getattr(nst, dist), fn)(q, 0.5, 2.0))
    want = getattr(getattr(sst, dist), fn)(q, 0.5, 2.0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dist,fn", [("norm", "logpdf"), ("norm", "logcdf"), ("cauchy", "cdf"),
                                     ("logistic", "logpdf"), ("gumbel_r", "logpdf"), ("laplace", "cdf")])
def test_gradients_match_jax(dist, fn, x64):
    x = X[1:-1].astype(np.float64) + 0.01
    w = np.cos(np.arange(x.size))
    got = numlir.grad(lambda v: (getattr(getattr(nst, dist), fn)(v, 0.5, 1.5) * w).sum())(x)
    want = jax.jit(jax.grad(lambda v: (getattr(getattr(jst, dist), fn)(v, 0.5, 1.5) * w).sum()))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-9, atol=1e-12)
