"""numlir.scipy.special's complex-valued functions, wofz (the Faddeeva function) and
sph_harm_y (spherical harmonics), against SciPy (accuracy, over regions of the plane and
of the sphere) and jax.scipy.special (dtypes, shapes, conventions, errors, derivatives):
eager, under jit and vmap."""

import jax
import jax.scipy.special as jss
import numpy as np
import pytest
import scipy.special as ss
from jax_comparison import assert_same

import numlir
import numlir.numpy as jnp
import numlir.scipy.special as nss


def _region_points(seed: int) -> dict[str, np.ndarray]:
    """Complex points by region of the plane, 60 each."""
    r = np.random.default_rng(seed)
    u = lambda lo, hi: r.uniform(lo, hi, 60)
    return {
        "near 0": u(-1, 1) + 1j * u(-1, 1),
        "tiny": 1e-9 * (u(-1, 1) + 1j * u(-1, 1)),
        "upper half": u(-8, 8) + 1j * u(0, 8),
        "large |z|": 10 ** u(1, 8) * np.exp(1j * u(0, np.pi)),
        "near the real axis": u(-30, 30) + 1j * 10 ** u(-12, -1),
        "real axis": u(-30, 30) + 0j,
        "lower half": u(-6, 6) - 1j * u(0, 6),
        "far lower half": u(-25, 25) - 1j * u(6, 25),
    }


def _relative_errors(got, want) -> np.ndarray:
    return np.abs(np.asarray(got) - want) / np.abs(want)


# --- wofz: accuracy ---------------------------------------------------------------------------


def test_wofz_complex128_is_within_1e13_of_scipy_everywhere(x64):
    regions = _region_points(0)
    z = np.concatenate(list(regions.values()))
    want = ss.wofz(z)
    got = nss.wofz(z)
    assert got.dtype == np.complex128
    errors = _relative_errors(got, want).reshape(len(regions), -1)
    # SciPy's own error reaches 2e-14 in the upper half-plane and 1e-13 far below the axis
    # (against mpmath numlir stays within 1.1e-15 in each region)
    for name, worst in zip(regions, errors.max(axis=1)):
        assert worst < (2e-13 if name == "far lower half" else 5e-14), (name, worst)
    np.testing.assert_array_equal(np.asarray(numlir.jit(nss.wofz)(z)), np.asarray(got))


def test_wofz_complex64_is_within_a_few_float32_ulps_of_scipy():
    regions = _region_points(1)
    del regions["far lower half"]  # beyond float32's range
    z = np.concatenate(list(regions.values())).astype(np.complex64)
    want = ss.wofz(z.astype(np.complex128))  # at the rounded inputs
    got = nss.wofz(z)
    assert got.dtype == np.complex64
    assert _relative_errors(got, want).max() < 2e-6


def test_wofz_on_the_real_axis_has_real_part_exp_minus_x_squared(x64):
    x = np.array([0.0, 0.5, -1.0, 3.0, 10.0, -26.0, 27.5, 40.0])
    got = np.asarray(nss.wofz(x))
    np.testing.assert_allclose(got.real, np.exp(-x * x), rtol=2e-16, atol=0)
    np.testing.assert_allclose(got.imag, 2 / np.sqrt(np.pi) * ss.dawsn(x), rtol=2e-15, atol=0)


def test_wofz_special_values_are_jaxs(x64):
    z = np.array([0, 1e300j, 1e300 + 1e300j, -1e300 + 1e300j, 1e10, 1e20 + 1j, 30 - 30j,
                  np.inf, -np.inf, complex(0, np.inf), complex(0, -np.inf), np.nan, complex(np.nan, 1)])
    got = np.asarray(nss.wofz(z))
    want = np.asarray(jss.wofz(z))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, equal_nan=True)
    assert got[0] == 1
    assert np.all(np.isnan(got[7:].real) & np.isnan(got[7:].imag))  # SciPy: 0 at +-inf


# --- wofz: dtypes, shapes and transformations, against jax ------------------------------------

WOFZ_INPUTS = [1.25, 1 - 2j, 2, np.array([True, False]), np.array([-3, 0, 2], np.int32),
               np.array([1, 7], np.uint8), np.array([0.5, -4.0], np.float16), np.array([[0.3], [-9.0]], np.float32),
               np.array([0.5 + 0.5j, -2 - 3j, 6 + 1e-3j, 1e4 - 1e4j], np.complex64)]


def test_wofz_dtypes_and_values_match_jax():
    for z in WOFZ_INPUTS:
        got, want = numlir.eval_shape(nss.wofz, z), jax.eval_shape(jss.wofz, z)
        assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type), z
    for z in WOFZ_INPUTS[-2:]:
        want = jss.wofz(z)
        assert_same(nss.wofz(z), want, tol=2e-6)
        assert_same(numlir.jit(nss.wofz)(z), want, tol=2e-6)


def test_wofz_dtypes_match_jax_under_x64(x64):
    for z in [1.25, 3, 1 - 2j, np.float64(-0.5), np.int64(4), np.int32(4), np.float32(2.0),
              np.float16(1.0), np.array([1 + 1j, -7 - 0.5j], np.complex64)]:
        got, want = numlir.eval_shape(nss.wofz, z), jax.eval_shape(jss.wofz, z)
        assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type), z
    z = np.array([1.25, 1 - 2j, -7 - 0.5j])
    assert_same(nss.wofz(z), jss.wofz(z), tol=1e-12)  # jax's own error is 3e-13


def test_wofz_broadcasts_over_shapes_and_vmaps():
    z = (np.linspace(-3, 3, 12) + 1j * np.linspace(-2, 2, 12)).reshape(3, 4).astype(np.complex64)
    want = jss.wofz(z)
    assert_same(nss.wofz(z), want, tol=2e-6)
    assert_same(numlir.vmap(nss.wofz)(z), want, tol=2e-6)
    assert nss.wofz(np.zeros((0, 2), np.complex64)).shape == (0, 2)
    assert nss.wofz(jnp.asarray(1j)).shape == ()
    with pytest.raises(TypeError):
        nss.wofz([1.0, 2.0])


# --- wofz: derivatives ------------------------------------------------------------------------


def test_wofz_derivative_is_holomorphic_and_matches_finite_differences(x64):
    points = [0.3 + 0.2j, -1.5 + 2j, 2 - 1j, 8 + 0.01j, -0.5 - 3j]
    grad = numlir.grad(nss.wofz, holomorphic=True)
    h = 1e-6
    for z in points:
        numeric = (ss.wofz(z + h) - ss.wofz(z - h)) / (2 * h)
        along_imaginary = (ss.wofz(z + 1j * h) - ss.wofz(z - 1j * h)) / (2j * h)  # Cauchy-Riemann
        got = complex(grad(complex(z)))
        # the differences' error: SciPy's (up to 2e-14 |w|) over h
        np.testing.assert_allclose(got, numeric, rtol=1e-8, atol=1e-9)
        np.testing.assert_allclose(got, along_imaginary, rtol=1e-8, atol=1e-9)
        jaxs = complex(jax.jit(jax.grad(jss.wofz, holomorphic=True))(complex(z)))
        np.testing.assert_allclose(got, jaxs, rtol=1e-11, atol=1e-12)  # jax's w is within 3e-13


def test_wofz_derivatives_of_real_input_match_jax(x64):
    x = np.array([-2.0, 0.0, 0.7, 5.0])
    assert_same(numlir.jvp(nss.wofz, (x,), (np.ones_like(x),)), jax.jvp(jss.wofz, (x,), (np.ones_like(x),)),
                tol=1e-12)
    # real input is made complex first, so grad of the real part is Re w'(x) = -2x e^(-x^2)
    np.testing.assert_allclose(numlir.grad(lambda v: nss.wofz(v).real.sum())(x), -2 * x * np.exp(-x * x),
                               rtol=1e-14, atol=1e-16)


# --- sph_harm_y: accuracy ---------------------------------------------------------------------


def _harmonic_arguments(seed: int, count: int, largest: int):
    r = np.random.default_rng(seed)
    n = r.integers(0, largest + 1, count)
    m = r.integers(-largest, largest + 1, count) % (n + 1) * r.choice([-1, 1], count)  # |m| <= n
    return n, m, r.uniform(0, np.pi, count), r.uniform(0, 2 * np.pi, count)


def test_sph_harm_y_float64_matches_scipy(x64):
    n, m, theta, phi = _harmonic_arguments(0, 400, 40)
    theta[:4] = [0.0, np.pi, 1e-6, np.pi - 1e-6]
    got = nss.sph_harm_y(n, m, theta, phi)
    assert got.dtype == np.complex128
    np.testing.assert_allclose(np.asarray(got), ss.sph_harm_y(n, m, theta, phi), rtol=0, atol=2e-14)


def test_sph_harm_y_float32_matches_scipy_near_the_poles_where_jax_loses_it():
    n, m = np.array([1, 2, 3, 5]), np.array([1, -2, 1, 4])
    theta = np.array([1e-4, 1e-3, np.pi - 1e-3, 2e-4], np.float32)
    want = ss.sph_harm_y(n, m, theta.astype(np.float64), 0.5)
    got = np.asarray(nss.sph_harm_y(n, m, theta, np.float32(0.5)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-12)
    assert np.asarray(jss.sph_harm_y(n, m, theta, np.float32(0.5)))[0] == 0  # jax's sqrt(1 - cos^2)


# --- sph_harm_y: conventions, dtypes and shapes against jax -----------------------------------

_N, _M = np.array([0, 1, 2, 3]), np.array([0, 1, -2, 2])
_THETA = np.array([0.3, 0.7, 1.1, 2.0], np.float32)
_PHI = np.array([0.1, 0.2, 1.5, 4.0], np.float32)

HARMONIC_CASES = {
    "vectors": ((_N, _M, _THETA, _PHI), {}),
    "scalar theta, phi a column": ((_N, _M, 0.5, _PHI[:3, None]), {}),
    "theta longer than n, n a column": ((np.array([[3], [1]]), np.array([-1, 1]), _THETA, 0.25), {}),
    "theta shorter than n (clipped)": ((_N, _M, _THETA[:2], _PHI), {}),
    "scalar m, 2-D n": ((np.array([[1, 2], [3, 4]]), 1, _THETA[:2], _PHI[:2]), {}),
    "|m| > n, |m| > n_max, n > n_max, n < 0": (
        (np.array([1, 2, 5, -1, -9]), np.array([2, -3, 1, 0, 1]), 0.5, 0.3), {"n_max": 2}),
    "n_max above max(n)": ((_N, _M, _THETA, _PHI), {"n_max": 9}),
    "integer angles": ((_N, _M, np.array([1, 2, 3, 0]), np.array([0, 1, 2, 3])), {}),
    "float16 theta": ((_N, _M, _THETA.astype(np.float16), _PHI), {}),
    "NaN angles": ((_N, _M, np.array([np.nan, 0.5, 0.5, np.inf], np.float32),
                    np.array([0.1, np.nan, np.inf, 0.1], np.float32)), {}),
    "NaN theta, n_max 1": ((np.array([0, 1]), np.array([0, 0]), np.float32(np.nan), 0.1), {}),
    "empty": ((np.zeros(0, int), np.zeros(0, int), np.zeros(0, np.float32), 0.0), {"n_max": 2}),
}


@pytest.mark.parametrize("name", HARMONIC_CASES)
def test_sph_harm_y_matches_jax(name):
    args, kwargs = HARMONIC_CASES[name]
    want = jss.sph_harm_y(*args, **kwargs)
    # jax computes float16 theta's Legendre functions in float16; numlir in float32
    assert_same(nss.sph_harm_y(*args, **kwargs), want, tol=2e-3 if name == "float16 theta" else 2e-6)


def test_sph_harm_y_dtypes_match_jax_under_x64(x64):
    # complex128 from float32 angles (jax's (-1.0) ** |m| is a float64), but complex64 where
    # m is a Python int
    cases = [(_N, _M, _THETA, _PHI), (_N, _M, 0.5, 0.5), (_N, 1, _THETA, _PHI), (_N, 1, 0.5, _PHI),
             (_N, _M.astype(np.int8), _THETA.astype(np.float64), _PHI), (_N, _M, _THETA, np.arange(4))]
    for args in cases:
        f = lambda s: lambda *a: s.sph_harm_y(*a, n_max=3)
        got, want = numlir.eval_shape(f(nss), *args), jax.eval_shape(f(jss), *args)
        assert (got.shape, got.dtype) == (want.shape, want.dtype), args
    assert_same(nss.sph_harm_y(*cases[2]), jss.sph_harm_y(*cases[2]), tol=2e-6)


def test_sph_harm_y_under_jit_and_vmap_with_static_n_max():
    f = lambda s: lambda n, m, t, p: s.sph_harm_y(n, m, t, p, n_max=4)
    want = jax.jit(f(jss))(_N, _M, _THETA, _PHI)
    assert_same(numlir.jit(f(nss))(_N, _M, _THETA, _PHI), want)
    one_by_one = numlir.vmap(lambda n, m, t, p: f(nss)(n[None], m[None], t, p))
    assert_same(one_by_one(_N, _M, _THETA, _PHI), want[:, None])
    with pytest.raises(numlir.ConcretizationTypeError, match="n_max"):
        numlir.jit(nss.sph_harm_y)(_N, _M, _THETA, _PHI)


def test_sph_harm_y_errors_are_jaxs():
    refusals = [
        ((2, 1, 0.5, 0.3), {}, TypeError),  # n must have a length
        ((_N.astype(np.float32), _M, _THETA, _PHI), {}, TypeError),
        ((_N, _M.astype(np.float32), _THETA, _PHI), {}, TypeError),
        ((_N, _M, _THETA.reshape(2, 2), _PHI), {}, ValueError),
        ((_N, _M, np.zeros(0, np.float32), _PHI), {}, TypeError),
        ((np.array([[1], [2], [3], [4]]), np.array([1, 0, -1]), _THETA, 0.3), {}, ValueError),
        ((_N, _M, _THETA, _PHI.astype(np.float16)), {}, TypeError),
        ((_N, _M, _THETA.astype(np.complex64), _PHI), {}, TypeError),
        ((np.zeros(0, int), np.zeros(0, int), _THETA, _PHI), {}, ValueError),
        ((_N, _M, _THETA, _PHI), {"n_max": -1}, IndexError),
        ((_N, _M, _THETA, _PHI), {"diff_n": 1}, NotImplementedError),
    ]
    for args, kwargs, error in refusals:
        with pytest.raises(error):
            jss.sph_harm_y(*args, **kwargs)
        with pytest.raises(error):
            nss.sph_harm_y(*args, **kwargs)


# --- sph_harm_y: derivatives ------------------------------------------------------------------


def test_sph_harm_y_derivatives_match_finite_differences(x64):
    n, m = np.array([0, 1, 2, 3, 5]), np.array([0, 1, -2, 2, -3])
    theta, phi = np.array([0.3, 0.7, 1.1, 2.0, 2.5]), np.array([0.1, 0.2, 1.5, 4.0, 5.0])

    def loss(t, p):
        y = nss.sph_harm_y(n, m, t, p)
        return (y.real * p).sum() + (y.imag ** 2).sum()

    h = 1e-6
    y = ss.sph_harm_y(n, m, theta, phi)
    dy = (ss.sph_harm_y(n, m, theta + h, phi) - ss.sph_harm_y(n, m, theta - h, phi)) / (2 * h)
    dloss = dy.real * phi + 2 * y.imag * dy.imag  # the elements are independent
    d_dphi = 1j * m * y
    dloss_dphi = d_dphi.real * phi + y.real + 2 * y.imag * d_dphi.imag
    got_theta, got_phi = numlir.grad(loss, argnums=(0, 1))(theta, phi)
    np.testing.assert_allclose(got_theta, dloss, rtol=0, atol=1e-8)
    np.testing.assert_allclose(got_phi, dloss_dphi, rtol=0, atol=1e-13)
    tangent = np.ones_like(theta)  # one JVP gives every element's derivative
    dtheta = numlir.jvp(lambda t: nss.sph_harm_y(n, m, t, phi), (theta,), (tangent,))[1]
    np.testing.assert_allclose(np.asarray(dtheta), dy, rtol=0, atol=1e-8)
    dphi = numlir.jvp(lambda p: nss.sph_harm_y(n, m, theta, p), (phi,), (tangent,))[1]
    np.testing.assert_allclose(np.asarray(dphi), d_dphi, rtol=0, atol=1e-13)
