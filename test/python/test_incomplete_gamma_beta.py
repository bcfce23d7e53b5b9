"""The incomplete gamma and beta functions (lax.igamma, igammac, igamma_grad_a,
random_gamma_grad, betainc) and scipy.special's gammainc, gammaincc, betainc, beta and
betaln: against SciPy in float64 over a grid that crosses the series/fraction switch,
against jax in both dtypes, with derivatives against finite differences."""

import jax
import numpy as np
import pytest
import scipy.special as sp

import numlir
from jax_comparison import assert_same
from numlir import lax

A = np.array([0.01, 0.1, 0.5, 1.0, 1.5, 3.0, 10.0, 50.0, 200.0])
X = np.array([0.0, 1e-8, 0.01, 0.3, 1.0, 2.0, 5.0, 9.0, 11.0, 30.0, 60.0, 250.0, np.inf])
GRID_A, GRID_X = np.meshgrid(A, X, indexing="ij")


@pytest.mark.parametrize("name, reference", [("igamma", sp.gammainc), ("igammac", sp.gammaincc)])
def test_igamma_matches_scipy_in_float64(name, reference, x64):
    got = np.asarray(getattr(lax, name)(GRID_A, GRID_X))
    np.testing.assert_allclose(got, reference(GRID_A, GRID_X), rtol=1e-10, atol=1e-300)
    jitted = np.asarray(numlir.jit(getattr(lax, name))(GRID_A, GRID_X))
    np.testing.assert_array_equal(jitted, got)


@pytest.mark.parametrize("name", ["igamma", "igammac", "igamma_grad_a"])
def test_igamma_family_matches_jax_in_float32(name):
    a, x = GRID_A[GRID_A <= 50].astype(np.float32), GRID_X[GRID_A <= 50].astype(np.float32)
    got, want = np.asarray(getattr(lax, name)(a, x)), np.asarray(getattr(jax.lax, name)(a, x))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=2e-4, atol=1e-6)


def test_special_values_match_jax(x64):
    a = np.array([-1.0, 0.0, 2.0, 2.0, 2.0, np.nan, 2.0, 0.0, 0.0])
    x = np.array([1.0, 1.0, -1.0, 0.0, np.inf, 1.0, np.nan, 0.0, 3.0])
    for name in ("igamma", "igammac", "random_gamma_grad"):
        assert_same(getattr(lax, name)(a, x), getattr(jax.lax, name)(a, x))
    # dP/da is 0 where P is 1 for every a (jax gives NaN at x = inf)
    got = np.asarray(lax.igamma_grad_a(a, x))
    want = np.asarray(jax.lax.igamma_grad_a(a, x))
    np.testing.assert_array_equal(got[np.isfinite(x)], want[np.isfinite(x)])
    assert got[4] == 0
    # P(0, x) = 1 for x > 0 below x = 1 too, where jax's series gives NaN (its igammac gives 0)
    np.testing.assert_array_equal(np.asarray(lax.igamma(0.0, np.array([1e-5, 0.5]))), [1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(jax.lax.igammac(0.0, np.array([1e-5, 0.5]))), [0.0, 0.0])


def test_igamma_grad_a_is_the_derivative_of_igamma_in_a(x64):
    h = 1e-6
    inner = (GRID_X > 0) & np.isfinite(GRID_X) & (GRID_A >= 0.5)
    a, x = GRID_A[inner], GRID_X[inner]
    numeric = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    np.testing.assert_allclose(np.asarray(lax.igamma_grad_a(a, x)), numeric, rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(
        np.asarray(numlir.vmap(numlir.grad(lax.igamma))(a, x)),
        np.asarray(numlir.vmap(lax.igamma_grad_a)(a, x)),
        rtol=1e-14,
    )
    dx = numlir.vmap(numlir.grad(lax.igammac, argnums=1))(a, x)
    np.testing.assert_allclose(
        np.asarray(dx), -np.exp((a - 1) * np.log(x) - x - sp.gammaln(a)), rtol=1e-12
    )


def test_random_gamma_grad_is_the_derivative_of_the_inverse_cdf(x64):
    # d x / da at fixed u = P(a, x), by differences of SciPy's inverse, where u is representable
    cases = np.array([(1.0, 2.0), (10.0, 3.0), (50.0, 2.0), (0.5, 0.2), (3.0, 9.0), (200.0, 210.0)])
    a, x = cases[:, 0], cases[:, 1]
    u = sp.gammainc(a, x)
    h = 1e-5 * a
    numeric = (sp.gammaincinv(a + h, u) - sp.gammaincinv(a - h, u)) / (2 * h)
    np.testing.assert_allclose(np.asarray(lax.random_gamma_grad(a, x)), numeric, rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(lax.random_gamma_grad(a, x)),
        np.asarray(jax.lax.random_gamma_grad(a, x)),
        rtol=1e-9,
    )


BETA_A = np.array([0.1, 0.5, 1.0, 2.5, 10.0, 100.0])
BETA_B = np.array([0.2, 1.0, 3.0, 50.0])
BETA_X = np.array([0.0, 1e-6, 0.1, 0.3, 0.5, 0.7, 0.95, 1 - 1e-9, 1.0, -0.1, 1.1])


def test_betainc_matches_scipy_and_jax(x64):
    a, b, x = np.meshgrid(BETA_A, BETA_B, BETA_X, indexing="ij")
    got = np.asarray(lax.betainc(a, b, x))
    np.testing.assert_allclose(got, sp.betainc(a, b, x), rtol=1e-11, atol=1e-14)
    assert_same(got, jax.lax.betainc(a, b, x), 1e-11)
    np.testing.assert_array_equal(np.asarray(numlir.jit(lax.betainc)(a, b, x)), got)


def test_betainc_float32_and_derivative_in_x(x64):
    a, b, x = np.float32(2.5), np.float32(3.0), np.linspace(0.05, 0.95, 7).astype(np.float32)
    got = np.asarray(lax.betainc(a, b, x))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, sp.betainc(2.5, 3.0, x.astype(np.float64)), rtol=1e-5)
    slope = np.asarray(
        numlir.vmap(numlir.grad(lambda v: lax.betainc(2.5, 3.0, v)))(x.astype(np.float64))
    )
    np.testing.assert_allclose(
        slope,
        np.asarray(
            jax.jit(jax.vmap(jax.grad(lambda v: jax.lax.betainc(2.5, 3.0, v))))(x.astype(np.float64))
        ),
        rtol=1e-12,
    )
    with pytest.raises(NotImplementedError, match="betainc with respect to a"):
        numlir.grad(lambda s: lax.betainc(s, 3.0, 0.5))(2.0)


def test_scipy_special_additions_match_jax(x64):
    a = np.array([-0.5, 0.3, 1.0, 3.0, 7.5])
    b = np.array([2.0, 0.7, 4.0, 1.5, 2.0])
    for name, args in (
        ("beta", (a, b)),
        ("betaln", (a, b)),
        ("gammainc", (np.abs(a), b)),
        ("gammaincc", (np.abs(a), 3.0)),
        ("betainc", (np.abs(a) + 0.1, b, 0.4)),
    ):
        assert_same(
            getattr(numlir.scipy.special, name)(*args),
            getattr(jax.scipy.special, name)(*args),
            1e-10,
        )
    assert np.asarray(numlir.scipy.special.gammainc(2, 3)).dtype == np.float64
