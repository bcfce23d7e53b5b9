"""The distributions of jax.scipy.stats added for API coverage, against jax (and SciPy,
where jax's own values are less accurate): values in float64 across the support and
outside it, float32, jit, and derivatives of a few log densities."""

import jax
import jax.scipy.stats as js
import numpy as np
import pytest
import scipy.special
import scipy.stats

import numlir
import numlir.scipy.stats as ns

R = np.random.default_rng(0)
k = np.array([-1.0, 0, 1, 2, 3, 2.5, 7, 10])
x = np.array([-0.5, 0.0, 0.1, 0.5, 0.9, 1.0, 1.7, 3.0, 12.0])
r = R
CASES = [
    ("bernoulli", "logpmf", (k, 0.3)),
    ("bernoulli", "pmf", (k, 0.3, 1)),
    ("bernoulli", "cdf", (x, 0.3)),
    ("bernoulli", "ppf", (np.array([0, 0.5, 0.7, 0.71, 1, -0.1]), 0.3)),
    ("binom", "logpmf", (k, 7, 0.3)),
    ("binom", "pmf", (k, 7.0, 0.3, 1)),
    ("geom", "logpmf", (k, 0.3)),
    ("geom", "pmf", (k, 0.3, -1)),
    ("nbinom", "logpmf", (k, 3, 0.4)),
    ("nbinom", "pmf", (k, 2.5, 0.4, 1)),
    ("poisson", "logpmf", (k, 2.5)),
    ("poisson", "pmf", (k, 2.5, 1)),
    ("poisson", "cdf", (k, 2.5)),
    ("poisson", "cdf", (x, 2.5, 1)),
    ("multinomial", "logpmf", (np.array([1, 2, 3]), 6, np.array([0.2, 0.3, 0.5]))),
    ("multinomial", "pmf", (np.array([1, 2, 2]), 6, np.array([0.2, 0.3, 0.5]))),
    ("beta", "logpdf", (x, 2.0, 3.0)),
    ("beta", "pdf", (x, 0.5, 0.5)),
    ("beta", "cdf", (x, 2.0, 3.0)),
    ("beta", "sf", (x, 2.0, 3.0)),
    ("beta", "logcdf", (x, 2.0, 3.0)),
    ("beta", "logsf", (x, 2.0, 3.0)),
    ("beta", "cdf", (x, 2.0, 3.0, 0.1, 2.0)),
    ("gamma", "logpdf", (x, 2.0)),
    ("gamma", "pdf", (x, 0.5, 0.1, 2.0)),
    ("gamma", "cdf", (x, 2.0)),
    ("gamma", "sf", (x, 2.0)),
    ("gamma", "logcdf", (x, 2.0)),
    ("gamma", "logsf", (x, 2.0)),
    ("chi2", "logpdf", (x, 3.0)),
    ("chi2", "pdf", (x, 3.0)),
    ("chi2", "cdf", (x, 3.0)),
    ("chi2", "sf", (x, 3.0, 0.1, 2.0)),
    ("chi2", "logcdf", (x, 3.0)),
    ("chi2", "logsf", (x, 3.0)),
    ("gennorm", "logpdf", (x, 1.5)),
    ("gennorm", "pdf", (x, 2.0)),
    ("gennorm", "cdf", (x - 1, 1.5)),
    ("pareto", "logpdf", (x, 2.0)),
    ("pareto", "pdf", (x, 2.0, 0.1, 0.5)),
    ("pareto", "cdf", (x, 2.0)),
    ("pareto", "sf", (x, 2.0)),
    ("pareto", "logcdf", (x, 2.0)),
    ("pareto", "logsf", (x, 2.0)),
    ("pareto", "ppf", (np.array([0, 0.3, 0.9, 1]), 2.0)),
    ("t", "logpdf", (x, 3.0)),
    ("t", "pdf", (x, 1.5, 0.5, 2.0)),
    ("truncnorm", "logpdf", (x, -0.2, 1.5)),
    ("truncnorm", "pdf", (x, 0.5, 9.0)),
    ("truncnorm", "cdf", (x, -0.2, 1.5)),
    ("truncnorm", "sf", (x, -0.2, 1.5)),
    ("truncnorm", "logcdf", (x, 0.5, 9.0)),
    ("truncnorm", "logsf", (x, 0.5, 9.0)),
    ("truncnorm", "logpdf", (x * 3 + 8, 8.0, 20.0)),
    ("truncnorm", "cdf", (x * 3 + 8, 8.0, 20.0)),
    ("vonmises", "logpdf", (x, 2.0)),
    ("vonmises", "pdf", (x, 500.0)),
    ("wrapcauchy", "logpdf", (x, 0.3)),
    ("wrapcauchy", "pdf", (x * 3, 0.7)),
    ("dirichlet", "logpdf", (np.array([0.2, 0.3, 0.5]), np.array([1.0, 2.0, 3.0]))),
    ("dirichlet", "pdf", (np.array([0.2, 0.3]), np.array([1.0, 2.0, 3.0]))),
    (
        "dirichlet",
        "logpdf",
        (np.array([[0.2, 0.1], [0.3, 0.6], [0.5, 0.3]]), np.array([1.0, 2.0, 3.0])),
    ),
    ("norm", "ppf", (np.array([1e-300, 1e-10, 0.3, 0.5, 0.9, 1 - 1e-12]),)),
    ("norm", "isf", (np.array([0.2, 0.5]), 1.0, 3.0)),
    (
        "multivariate_normal",
        "logpdf",
        (
            r.standard_normal((4, 3)),
            np.zeros(3),
            np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]]),
        ),
    ),
    ("multivariate_normal", "pdf", (r.standard_normal((4, 3)), np.ones(3), np.eye(3) * 2)),
    ("multivariate_normal", "logpdf", (r.standard_normal((4, 3)), np.ones(3), 2.0)),
    ("multivariate_normal", "logpdf", (r.standard_normal(5), 0.5, 2.0)),
]


def _id(case):
    return f"{case[0]}.{case[1]}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_matches_jax_in_float64(case, x64):
    dist, fn, args = case
    # jax's reference jitted: op by op, it compiles each primitive of the density on its own
    want = np.asarray(jax.jit(getattr(getattr(js, dist), fn))(*args))
    got = np.asarray(getattr(getattr(ns, dist), fn)(*args))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize(
    "dist, fn",
    [
        ("gamma", "cdf"),
        ("beta", "logpdf"),
        ("t", "pdf"),
        ("truncnorm", "logcdf"),
        ("poisson", "logpmf"),
        ("norm", "ppf"),
    ],
)
def test_float32_and_jit_match_jax(dist, fn):
    (args,) = [a for d, f, a in CASES if (d, f) == (dist, fn)][:1]
    args = [np.asarray(a, np.float32) if np.asarray(a).dtype == np.float64 else a for a in args]
    want = np.asarray(getattr(getattr(js, dist), fn)(*args))
    got = np.asarray(numlir.jit(getattr(getattr(ns, dist), fn))(*args))
    assert got.dtype == np.float32
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=2e-5, atol=1e-6)
    np.testing.assert_array_equal(np.isfinite(got), finite)


def test_betabinom_and_poisson_entropy_match_scipy(x64):
    # jax's own betabinom and poisson entropy are off in the 7th digit here; SciPy is the reference
    ks = np.arange(0.0, 8.0)
    np.testing.assert_allclose(
        np.asarray(ns.betabinom.logpmf(ks, 7, 2.0, 3.0)),
        scipy.stats.betabinom.logpmf(ks, 7, 2.0, 3.0),
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        np.asarray(ns.betabinom.pmf(ks, 7, 0.5, 1.5, 1)),
        scipy.stats.betabinom.pmf(ks, 7, 0.5, 1.5, loc=1),
        rtol=1e-12,
    )
    mu = np.array([0.0, 0.1, 1, 5, 9.9, 10, 50, 99, 100, 500, 999, 1000])
    np.testing.assert_allclose(np.asarray(ns.poisson.entropy(mu)), scipy.stats.poisson.entropy(mu), rtol=1e-12)
    # Past 1000 (the asymptotic expansion) SciPy's sum drifts; sum the mass within 14 sd here
    # (each term's log carries m * 1e-16 of rounding, hence the tolerances)
    for m, rtol in ((5000.0, 1e-10), (1e6, 1e-8)):
        ks = np.arange(np.floor(m - 14 * np.sqrt(m)), np.ceil(m + 14 * np.sqrt(m)))
        log_mass = ks * np.log(m) - m - scipy.special.gammaln(ks + 1)
        reference = -np.sum(np.exp(log_mass) * log_mass)
        np.testing.assert_allclose(float(ns.poisson.entropy(m)), reference, rtol=rtol)


def test_log_density_gradients_match_jax(x64):
    y = np.array([0.2, 0.5, 0.8])
    for fn, jfn, args in (
        (ns.beta.logpdf, js.beta.logpdf, (2.0, 3.0)),
        (ns.gamma.logpdf, js.gamma.logpdf, (2.5,)),
        (ns.t.logpdf, js.t.logpdf, (3.0,)),
        (ns.gamma.cdf, js.gamma.cdf, (2.5,)),
        (ns.truncnorm.logpdf, js.truncnorm.logpdf, (-1.0, 2.0)),
    ):
        got = numlir.grad(lambda v: fn(v, *args).sum())(y)
        want = jax.jit(jax.grad(lambda v: jfn(v, *args).sum()))(y)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10)


def test_errors():
    with pytest.raises(ValueError, match="integer type"):
        ns.multinomial.logpmf(np.array([1.0, 2.0]), 3, np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="one-dimensional"):
        ns.dirichlet.logpdf(np.array([0.5, 0.5]), np.ones((2, 2)))
    with pytest.raises(ValueError, match="incompatible shapes"):
        ns.multivariate_normal.logpdf(np.zeros(3), np.zeros(3), np.eye(2))
