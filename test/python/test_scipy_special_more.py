"""numlir.scipy.special's integrals, hypergeometric functions, bessel_jn, spence, comb,
boxcox and bernoulli against jax.scipy.special (float32, where jax is accurate) and
SciPy (float64, over wider domains, where jax is not): values eager and under jit,
shapes (0-d, empty, broadcast), vmap, gradients (against jax.grad and finite
differences), and the edge values and errors."""

import inspect
import math
from fractions import Fraction

import jax
import jax.scipy.special as jss
import numpy as np
import pytest
import scipy.special as ss

import numlir
import numlir.numpy as jnp
import numlir.scipy.special as nss
from jax_comparison import assert_same

R = np.random.default_rng(7)


def _f32(*arrays):
    return [np.asarray(a, np.float32) for a in arrays]


X_POS = np.concatenate([[0.1, 0.5, 0.99, 1.0, 1.01, 2.0, 7.5], R.uniform(0.1, 30, 9)])
X_ANY = np.concatenate([X_POS, -X_POS])

# name -> (call, float32 arguments where jax is accurate, tolerance)
JAX_CASES = {
    "expn": (lambda s, n, x: s.expn(n, x), _f32(np.array([[0.0], [1.0], [2.0], [5.0]]), X_POS), 2e-5),
    "exp1": (lambda s, x: s.exp1(x), _f32(X_POS), 2e-5),
    "expi": (lambda s, x: s.expi(x), _f32(np.concatenate([X_ANY[np.abs(X_ANY) > 0.5], [-25.0, 40.0]])), 2e-5),
    "sici": (lambda s, x: s.sici(x), _f32(np.concatenate([X_ANY, [50.0, 300.0, 1e5]])), 2e-5),
    "fresnel": (lambda s, x: s.fresnel(x), _f32(np.concatenate([X_ANY / 3, [1.59, 1.61, 40.0]])), 2e-5),
    "dawsn": (lambda s, x: s.dawsn(x), _f32(np.concatenate([X_ANY / 2, [4.9, 5.1, 100.0]])), 2e-5),
    "owens_t": (lambda s, h, a: s.owens_t(h, a),
                _f32(R.uniform(-3, 3, (6, 1)), np.array([-5.0, -1.0, -0.3, 0.0, 0.7, 1.0, 2.5])), 2e-5),
    "spence": (lambda s, x: s.spence(x), _f32(np.concatenate([[0.0, 0.25, 0.5, 1.0, 2.0, 2.5], X_POS])), 2e-5),
    "hyp1f1": (lambda s, a, b, x: s.hyp1f1(a, b, x),
               _f32([[0.5], [1.0], [2.5]], [[[0.7]], [[1.5]]], np.array([0.0, 0.3, 2.0, 9.0, 20.0])), 1e-4),
    "hyp2f1": (lambda s, a, b, c, x: s.hyp2f1(a, b, c, x),
               _f32([[0.5], [2.0]], [[[0.3]], [[1.5]]], 2.7, np.array([-0.5, 0.0, 0.3, 0.8, 0.95])), 1e-4),
    "bessel_jn": (lambda s, z: s.bessel_jn(z, v=3), _f32(np.array([5.0, 7.5, 12.0, -9.0, 20.0])), 2e-5),
    "boxcox": (lambda s, x, l: s.boxcox(x, l), _f32(X_POS[:6], np.array([[-1.5], [0.0], [0.5], [2.0]])), 2e-5),
    "boxcox1p": (lambda s, x, l: s.boxcox1p(x, l), _f32(X_POS[:6] - 0.5, np.array([[-1.0], [0.0], [1.5]])), 2e-5),
    "comb": (lambda s, n, k: s.comb(n, k), _f32(np.array([[0.0], [3.0], [7.5], [12.0]]), [-1.0, 0.0, 2.0, 3.0, 9.0]),
             2e-5),
    "comb_repetition": (lambda s, n, k: s.comb(n, k, repetition=True),
                        _f32(np.array([[0.0], [3.0], [7.0]]), [0.0, 1.0, 4.0]), 2e-5),
}


@pytest.mark.parametrize("name", JAX_CASES)
def test_float32_values_match_jax_eager_and_under_jit(name):
    fn, args, tol = JAX_CASES[name]
    want = jax.jit(lambda *a: fn(jss, *a))(*args)
    assert_same(fn(nss, *[jnp.asarray(a) for a in args]), want, tol=tol)
    assert_same(numlir.jit(lambda *a: fn(nss, *a))(*args), want, tol=tol)


def test_bernoulli_is_exact_and_in_the_default_float_dtype(x64):
    assert_same(nss.bernoulli(0), np.array([1.0]))
    assert_same(nss.bernoulli(1), np.array([1.0, -0.5]))
    b = np.asarray(nss.bernoulli(300))
    exact = [Fraction(1)]  # sum_{k<=n} C(n+1, k) B_k = 0
    for n in range(1, 31):
        exact.append(-sum(math.comb(n + 1, k) * exact[k] for k in range(n)) / (n + 1))
    assert b[:31].tolist() == [float(v) for v in exact]
    np.testing.assert_allclose(b[:259], ss.bernoulli(258), rtol=1e-11, atol=0)  # SciPy's are inexact
    assert np.all(np.isinf(b[260::2])) and b[260] < 0 and b[262] > 0 and np.all(b[261::2] == 0)


def test_bernoulli_float32_and_its_errors():
    want = jss.bernoulli(12)
    got = nss.bernoulli(12)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), ss.bernoulli(12), rtol=1e-7)
    with pytest.raises(ValueError, match="non-negative"):
        nss.bernoulli(-1)
    with pytest.raises(TypeError):
        nss.bernoulli(2.5)


# name -> (numlir call, scipy call, float64 arguments, relative tolerance)
SCIPY_CASES = {
    # SciPy is 7e-15 off at n = 80, x = 43 (against mpmath; ours, 2e-16)
    "expn": (lambda n, x: nss.expn(n, x), ss.expn,
             (np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [80.0]]),
              np.concatenate([[0.0, 1e-300, 1e-8, 0.3725, 1.0], np.geomspace(0.01, 700, 25), [np.inf]])), 1e-14),
    # SciPy's expi is 2.6e-14 off near x = 40 (against mpmath; ours, 1.4e-15)
    "expi": (lambda x: nss.expi(x), ss.expi,
             (np.concatenate([np.linspace(-60, 60, 61), np.geomspace(1e-8, 700, 30), [-np.inf, np.inf]]),), 3e-14),
    "sici": (lambda x: nss.sici(x), ss.sici,
             (np.concatenate([np.linspace(-40, 40, 81), np.geomspace(1e-8, 1e12, 30)]),), 3e-14),
    "fresnel": (lambda x: nss.fresnel(x), ss.fresnel,
                (np.concatenate([np.linspace(-10, 10, 81), np.geomspace(1e-8, 10, 20), [np.inf, -np.inf]]),), 1e-14),
    # past 10, SciPy's own error reaches 6e-9 (against mpmath; ours stays below 5e-16)
    "fresnel_far": (lambda x: nss.fresnel(x), ss.fresnel, (np.geomspace(10, 1e7, 20),), 1e-8),
    "dawsn": (lambda x: nss.dawsn(x), ss.dawsn,
              (np.concatenate([np.linspace(-12, 12, 97), np.geomspace(1e-8, 1e12, 30)]),), 3e-14),
    "owens_t": (lambda h, a: nss.owens_t(h, a), ss.owens_t,
                (np.array([[0.0], [0.3], [-1.0], [2.0], [5.0], [9.0], [30.0], [np.inf]]),
                 np.array([-np.inf, -4.0, -1.0, -0.2, 0.0, 0.01, 0.6, 1.0, 1.5, 30.0, np.inf])), 2e-13),
    "spence": (lambda x: nss.spence(x), ss.spence,
               (np.concatenate([np.linspace(0, 5, 51), np.geomspace(1e-10, 1e12, 30), [-1.0]]),), 3e-15),
    "hyp1f1": (lambda a, b, x: nss.hyp1f1(a, b, x), ss.hyp1f1,
               (np.array([[[1.0]], [[0.5]], [[2.5]], [[-1.5]], [[-3.0]]]), np.array([[2.0], [1.5], [4.5], [12.0]]),
                np.array([-200.0, -60.0, -10.0, -1.0, 0.0, 0.3, 1.0, 10.0, 49.0, 51.0, 120.0])), 1e-12),
    "hyp2f1": (lambda a, b, c, x: nss.hyp2f1(a, b, c, x), ss.hyp2f1,
               (np.array([[[[1.0]]], [[[0.5]]], [[[1.5]]], [[[-3.0]]]]), np.array([[[2.5]], [[0.3]], [[-1.25]]]),
                np.array([[1.7], [4.0], [9.0]]),
                np.array([-50.0, -3.0, -1.0, -0.5, 0.0, 0.3, 0.6, 0.9, 0.95, 0.999, 1.0])), 1e-12),
    "comb": (lambda n, k: nss.comb(n, k), ss.comb,
             (np.array([[0.0], [5.0], [30.0], [7.5]]), np.array([0.0, 2.0, 3.0, 15.0, -1.0])), 1e-13),
}


@pytest.mark.parametrize("name", SCIPY_CASES)
def test_float64_values_match_scipy(name, x64):
    ours, theirs, args, rtol = SCIPY_CASES[name]
    got, want = ours(*args), theirs(*args)
    for g, w in zip(*(v if isinstance(v, tuple) else (v,) for v in (got, want))):
        g = np.asarray(g)
        assert g.dtype == np.float64 and g.shape == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-300, equal_nan=True)


def test_bessel_jn_matches_scipy_in_float64_and_stays_finite_near_zero(x64):
    z = np.array([0.0, 1e-6, 0.3, 1.0, 5.0, -7.0, 25.0])
    got = np.asarray(nss.bessel_jn(z, v=6, n_iter=80))
    assert got.shape == (7, 7) and got.dtype == np.float64
    want = np.stack([ss.jv(k, z) for k in range(7)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    small = np.asarray(nss.bessel_jn(np.float32(1e-3), v=2))  # jax's overflows to NaN
    np.testing.assert_allclose(small, ss.jv(np.arange(3), 1e-3), rtol=1e-6)


def test_bessel_jn_shapes_and_arguments():
    assert nss.bessel_jn(jnp.zeros((2, 0)), v=2).shape == (3, 2, 0)
    assert nss.bessel_jn(3.0, v=0).shape == (1,)
    # jax keeps min(v, n_iter) + 1 orders
    assert nss.bessel_jn(np.ones(4), v=30, n_iter=10).shape == jss.bessel_jn(np.ones(4), v=30, n_iter=10).shape
    assert nss.bessel_jn(2, v=1).dtype == np.float32
    with pytest.raises(TypeError):
        nss.bessel_jn(1.0, v=1.5)


def test_special_values_where_scipy_and_jax_agree_on_them():
    inf, nan = np.inf, np.nan
    checks = [
        (nss.expi(np.float32(0.0)), -inf),
        (nss.exp1(np.float32(0.0)), inf),
        (nss.expn(np.float32(3.0), np.float32(0.0)), 0.5),  # 1 / (n - 1) (jax says 1/n)
        (nss.sici(np.float32(0.0))[1], -inf),
        (nss.sici(np.float32(-np.inf))[1], nan),
        (nss.sici(np.float32(np.inf))[0], np.pi / 2),
        (nss.spence(np.float32(-1.0)), nan),
        (nss.spence(np.float32(0.0)), np.pi ** 2 / 6),
        (nss.hyp1f1(0.0, 0.0, 1.0), 1.0),  # jax's convention (SciPy says inf)
        (nss.hyp1f1(1.0, 0.0, 1.0), inf),
        (nss.hyp1f1(1.5, 1.5, 2.0), np.exp(2.0)),
        (nss.hyp1f1(1.0, -2.0, 1.0), inf),
        (nss.hyp2f1(1.0, 2.0, 3.0, 1.5), inf),
        (nss.hyp2f1(1.0, 2.0, 3.0, 1.0), inf),
        (nss.hyp2f1(1.0, 2.0, -2.0, 0.5), inf),
        (nss.hyp2f1(0.0, 2.0, 3.0, 0.5), 1.0),
        (nss.owens_t(0.0, np.inf), 0.25),
        (nss.owens_t(np.inf, 0.5), 0.0),
    ]
    for got, want in checks:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, equal_nan=True)


def test_zero_d_and_empty_shapes_and_half_precision():
    for fn in (nss.exp1, nss.expi, nss.dawsn, nss.spence, lambda x: nss.sici(x)[0], lambda x: nss.fresnel(x)[1]):
        assert fn(jnp.float32(2.0)).shape == ()
        assert fn(jnp.zeros((0, 3), np.float32)).shape == (0, 3)
    assert nss.hyp2f1(1.0, 1.0, 2.0, jnp.zeros((0,))).shape == (0,)
    assert nss.owens_t(jnp.zeros((2, 0)), 1.0).shape == (2, 0)
    assert nss.expn(2, 1).dtype == np.float32  # integers promote to the default float
    half = nss.dawsn(jnp.asarray([0.5, 2.0], np.float16))
    assert half.dtype == np.float16
    np.testing.assert_allclose(np.asarray(half, np.float32), ss.dawsn([0.5, 2.0]), rtol=2e-3)


def test_spence_takes_only_float32_and_float64():
    with pytest.raises(TypeError, match="not supported"):
        nss.spence(1)
    with pytest.raises(TypeError, match="not supported"):
        nss.spence(np.float16(1.0))


def test_vmap_gives_the_unbatched_values():
    x = np.linspace(0.2, 6.0, 12, dtype=np.float32).reshape(3, 4)
    fns = [nss.exp1, nss.expi, nss.dawsn, nss.spence, lambda v: nss.sici(v), lambda v: nss.fresnel(v),
           lambda v: nss.expn(2.0, v), lambda v: nss.owens_t(v, 0.5), lambda v: nss.hyp1f1(0.5, 1.5, v),
           lambda v: nss.hyp2f1(0.5, 1.0, 2.0, -v)]
    for fn in fns:
        assert_same(numlir.vmap(fn)(x), fn(jnp.asarray(x)), tol=1e-6)
    orders = numlir.vmap(lambda v: nss.bessel_jn(v, v=2))(x)  # (row, order, z)
    assert_same(orders, np.moveaxis(np.asarray(nss.bessel_jn(x, v=2)), 0, 1), tol=1e-6)


# Gradients in float64: (function of one array, its derivative from SciPy or NumPy, the
# same function in jax (None where compiling jax's takes seconds), points)
GRAD_CASES = {
    "expn": (lambda x: nss.expn(3.0, x), lambda x: -ss.expn(2, x), None, [0.3, 1.5, 7.0]),
    "exp1": (nss.exp1, lambda x: -np.exp(-x) / x, None, [0.3, 1.5, 7.0]),
    "expi": (nss.expi, lambda x: np.exp(x) / x, None, [-2.0, 0.3, 1.5, 45.0]),
    "si": (lambda x: nss.sici(x)[0], lambda x: np.sin(x) / x, lambda x: jss.sici(x)[0], [-3.0, 0.5, 2.5, 30.0]),
    "ci": (lambda x: nss.sici(x)[1], lambda x: np.cos(x) / x, lambda x: jss.sici(x)[1], [-3.0, 0.5, 2.5, 30.0]),
    "fresnel_s": (lambda x: nss.fresnel(x)[0], lambda x: np.sin(np.pi * x * x / 2), lambda x: jss.fresnel(x)[0],
                  [-3.0, 0.5, 1.7, 12.0]),
    "fresnel_c": (lambda x: nss.fresnel(x)[1], lambda x: np.cos(np.pi * x * x / 2), lambda x: jss.fresnel(x)[1],
                  [-3.0, 0.5, 1.7, 12.0]),
    "dawsn": (nss.dawsn, lambda x: 1 - 2 * x * ss.dawsn(x), jss.dawsn, [-3.0, 0.5, 2.5, 9.0]),
    "spence": (nss.spence, lambda x: np.log(x) / (1 - x), jss.spence, [0.2, 0.8, 3.0]),  # jax's: NaN in [1.5, 2]
    "owens_t_h": (lambda h: nss.owens_t(h, 0.7),
                  lambda h: -np.exp(-h * h / 2) * ss.erf(0.7 * h / np.sqrt(2)) / (2 * np.sqrt(2 * np.pi)),
                  lambda h: jss.owens_t(h, 0.7), [-1.0, 0.4, 2.0]),
    "owens_t_a": (lambda a: nss.owens_t(0.8, a), lambda a: np.exp(-0.32 * (1 + a * a)) / (2 * np.pi * (1 + a * a)),
                  lambda a: jss.owens_t(0.8, a), [-2.0, 0.4, 3.0]),
    "hyp1f1_a": (lambda a: nss.hyp1f1(a, 1.5, 2.0), None, lambda a: jss.hyp1f1(a, 1.5, 2.0), [0.3, 1.2]),
    "hyp1f1_b": (lambda b: nss.hyp1f1(0.7, b, 2.0), None, lambda b: jss.hyp1f1(0.7, b, 2.0), [1.3, 2.2]),
    "hyp1f1_x": (lambda x: nss.hyp1f1(0.7, 1.9, x), lambda x: 0.7 / 1.9 * ss.hyp1f1(1.7, 2.9, x), None,
                 [-4.0, 0.5, 3.0]),
    "hyp2f1_a": (lambda a: nss.hyp2f1(a, 1.5, 2.5, 0.4), None, None, [0.3, 1.2]),
    "hyp2f1_b": (lambda b: nss.hyp2f1(0.5, b, 2.5, 0.4), None, None, [0.3, 1.2]),
    "hyp2f1_c": (lambda c: nss.hyp2f1(0.5, 1.5, c, 0.4), None, None, [2.2, 3.5]),
    "hyp2f1_x": (lambda x: nss.hyp2f1(0.5, 1.5, 2.5, x), lambda x: 0.3 * ss.hyp2f1(1.5, 2.5, 3.5, x), None,
                 [-2.5, 0.4, 0.95]),
    "bessel_jn": (lambda z: nss.bessel_jn(z, v=3)[2], lambda z: (ss.jv(1, z) - ss.jv(3, z)) / 2,
                  lambda z: jss.bessel_jn(z, v=3)[2], [1.5, 6.0]),
    "boxcox": (lambda x: nss.boxcox(x, 0.5), lambda x: x ** -0.5, lambda x: jss.boxcox(x, 0.5), [0.5, 3.0]),
    "boxcox1p": (lambda x: nss.boxcox1p(x, -0.5), lambda x: (1 + x) ** -1.5, lambda x: jss.boxcox1p(x, -0.5),
                 [0.5, 3.0]),
    "comb": (lambda n: nss.comb(n, 3.0), None, lambda n: jss.comb(n, 3.0), [5.0, 7.5]),
}


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradients_match_formulas_jax_and_finite_differences(name, x64):
    ours, derivative, theirs, points = GRAD_CASES[name]
    points = np.asarray(points)
    got = np.asarray(numlir.jit(numlir.vmap(numlir.grad(ours)))(points))
    if derivative is not None:
        np.testing.assert_allclose(got, derivative(points), rtol=1e-13, atol=1e-13)
    if theirs is not None:
        np.testing.assert_allclose(got, jax.jit(jax.vmap(jax.grad(theirs)))(points), rtol=2e-8, atol=1e-12)
    h = 1e-5
    central = (np.asarray(ours(points + h)) - np.asarray(ours(points - h))) / (2 * h)
    np.testing.assert_allclose(got, central, rtol=2e-6, atol=1e-9)


def test_gradients_where_jax_cancels_or_diverges(x64):
    """Kummer's and Pfaff's transformations keep hyp1f1 at negative x and hyp2f1 at x < -1
    (and their derivatives) accurate, where jax's series give garbage."""
    for fn, point, argnum in [(nss.hyp1f1, (1.5, 2.5, -70.0), 0), (nss.hyp1f1, (1.5, 2.5, -70.0), 2),
                              (nss.hyp2f1, (1.2, 2.5, 3.1, -3.0), 1), (nss.hyp2f1, (1.2, 2.5, 3.1, -3.0), 2)]:
        got = float(numlir.grad(fn, argnums=argnum)(*point))
        h = 1e-6 * max(1.0, abs(point[argnum]))
        up, down = list(point), list(point)
        up[argnum] += h
        down[argnum] -= h
        central = (float(fn(*up)) - float(fn(*down))) / (2 * h)
        np.testing.assert_allclose(got, central, rtol=1e-6)


def test_expn_has_no_derivative_in_its_order():
    with pytest.raises(NotImplementedError, match="order"):
        numlir.grad(lambda n: nss.expn(n, 1.0))(2.0)


def test_expn_of_order_zero_has_the_true_derivative(x64):
    got = float(numlir.grad(lambda x: nss.expn(0.0, x))(1.5))
    assert got == pytest.approx(-np.exp(-1.5) * (1 + 1.5) / 1.5 ** 2, rel=1e-12)  # jax says NaN


def test_expn_of_large_order(x64):
    x = np.array([0.0, 0.5, 27.0, 440.0])
    got = np.asarray(nss.expn(6000.0, x))
    # mpmath.expint(6000, x); SciPy's large-n expansion is 4e-15 off at 27
    want = [1 / 5999, 1.0109686661984966e-04, 3.1190299017617355e-16, 1.2635863563957367e-195]
    np.testing.assert_allclose(got, want, rtol=1e-14)


NAMES = ["bernoulli", "bessel_jn", "boxcox", "boxcox1p", "comb", "dawsn", "exp1", "expi", "expn", "fresnel", "hyp1f1",
         "hyp2f1", "owens_t", "sici", "spence"]


def test_signatures_are_jax_s():
    def parameters(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    for name in NAMES:
        assert parameters(getattr(nss, name)) == parameters(getattr(jss, name)), name


def test_python_scalars_give_jax_s_weak_types():
    # jax 0.10.2: comb and the Box-Cox transforms keep a weak type; the rest run under jit
    # or custom_jvp and return a strong one.
    results = {"comb": nss.comb(5.0, 2.0), "boxcox": nss.boxcox(2.0, 0.5), "boxcox1p": nss.boxcox1p(1.0, 0.5),
               "expn": nss.expn(2, 1.0), "exp1": nss.exp1(1.0), "expi": nss.expi(1.0), "dawsn": nss.dawsn(1.0),
               "owens_t": nss.owens_t(0.5, 2.0), "spence": nss.spence(2.0), "hyp1f1": nss.hyp1f1(1.0, 2.0, 1.0),
               "hyp2f1": nss.hyp2f1(1.0, 1.0, 2.0, -1.0), "sici": nss.sici(1.0)[0], "fresnel": nss.fresnel(1.0)[1]}
    for name, value in results.items():
        assert value.dtype == np.float32
        assert value.weak_type == (name in ("comb", "boxcox", "boxcox1p")), name


def test_expn_takes_every_real_order_where_jax_does(x64):
    # As jax: the continued fraction for x > 1 holds for fractional n; the series for x <= 1
    # only for whole n >= 1 (NaN for other n >= 0); E_n(0) is inf for every n <= 1. Negative n
    # take x^(n-1) Gamma(1 - n, x) at every x > 0 (jax: NaN for x <= 1).
    for n in (-1.0, -1.5, 0.5, 1.5, 2.5):
        for x in (1.5, 3.0):
            assert float(nss.expn(n, x)) == pytest.approx(float(jss.expn(n, x)), rel=1e-12)
    # the generalized E_0.5(1.5) = x^-0.5 Gamma(0.5) Q(0.5, x) (SciPy's expn truncates n)
    assert float(nss.expn(0.5, 1.5)) == pytest.approx(1.5**-0.5 * ss.gamma(0.5) * ss.gammaincc(0.5, 1.5), rel=1e-13)
    for n in (-1.0, -0.5, 0.0, 1.0):
        assert float(nss.expn(n, 0.0)) == np.inf == float(jss.expn(n, 0.0))
    assert np.isnan(float(nss.expn(1.5, 0.5)))
    assert float(nss.expn(-1.0, 0.5)) == pytest.approx(np.exp(-0.5) * 1.5 / 0.25, rel=1e-13)
    assert float(nss.expn(1.5, 0.0)) == 2.0  # int_1^inf t^-1.5 dt (jax says inf)
    # the derivative of E_0 is NaN where E_0 is (x < 0), not a finite formula
    assert np.isnan(float(numlir.grad(lambda x: nss.expn(0.0, x))(-0.5)))


def test_owens_t_of_huge_h_is_zero_and_float32_gradients_stay_float32(x64):
    # T(1e30, a) was NaN (h^2 = inf times 0); np.sqrt constants made float32 tangents float64.
    for a in (0.0, 0.5, 1.5, -1.5):
        for h in (1e30, -1e30):
            assert float(nss.owens_t(np.float32(h), np.float32(a))) == 0.0 == float(jss.owens_t(h, a))
    g = numlir.grad(lambda h: nss.owens_t(h, np.float32(1.5)))(np.float32(0.5))
    assert g.dtype == np.float32
    assert float(g) == pytest.approx(float(jax.grad(lambda h: jss.owens_t(h, 1.5))(0.5)), rel=1e-5)
