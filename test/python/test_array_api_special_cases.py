"""The array API standard's special cases (2024.12, after C99 Annex G) of the complex
elementwise functions, where numlir follows the standard and jax gives XLA's NaN + NaN j.

Each row is (function, input, expected); ``None`` in an expected part means the standard
leaves its sign open, so only its magnitude (or NaN-ness) is checked. Conjugate inputs
(b -> -b) give the conjugate result, as C99 states for each function. Run eagerly and under
jit, in complex64 and complex128."""

import jax.numpy as jax_jnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

INF, NAN, PI = np.inf, np.nan, np.pi

# (name, (a, b), (re, im)); re/im: a float compared with its sign, or ("any", v): sign open.
CASES = [
    ("exp", (INF, INF), (("any", INF), NAN)),
    ("exp", (INF, NAN), (("any", INF), NAN)),
    ("exp", (-INF, INF), (("any", 0.0), ("any", 0.0))),
    ("exp", (-INF, NAN), (("any", 0.0), ("any", 0.0))),
    ("expm1", (0.0, 0.0), (0.0, 0.0)),
    ("expm1", (-0.0, 0.0), (0.0, 0.0)),
    ("expm1", (INF, INF), (("any", INF), NAN)),
    ("expm1", (INF, NAN), (("any", INF), NAN)),
    ("expm1", (-INF, INF), (-1.0, ("any", 0.0))),
    ("expm1", (-INF, NAN), (-1.0, ("any", 0.0))),
    ("log", (INF, NAN), (INF, NAN)),
    ("log", (-INF, NAN), (INF, NAN)),
    ("log", (NAN, INF), (INF, NAN)),
    ("log1p", (INF, NAN), (INF, NAN)),
    ("log1p", (-INF, NAN), (INF, NAN)),
    ("log1p", (NAN, INF), (INF, NAN)),
    ("log2", (NAN, INF), (INF, NAN)),
    ("log10", (-INF, NAN), (INF, NAN)),
    ("sqrt", (NAN, INF), (INF, INF)),
    ("sqrt", (2.0, INF), (INF, INF)),
    ("sqrt", (-INF, INF), (INF, INF)),
    ("sqrt", (-INF, NAN), (NAN, ("any", INF))),
    ("sqrt", (INF, NAN), (INF, NAN)),
    ("tanh", (0.0, INF), (0.0, NAN)),
    ("tanh", (0.0, NAN), (0.0, NAN)),
    ("tanh", (-0.0, NAN), (-0.0, NAN)),
    ("acos", (0.0, NAN), (PI / 2, NAN)),
    ("acos", (-0.0, NAN), (PI / 2, NAN)),
    ("acosh", (0.0, NAN), (NAN, ("any", PI / 2))),
    ("asinh", (NAN, 0.0), (NAN, 0.0)),
    ("atanh", (0.0, NAN), (0.0, NAN)),
    ("atanh", (-0.0, NAN), (-0.0, NAN)),
    ("atanh", (INF, NAN), (0.0, NAN)),
    ("atanh", (-INF, NAN), (-0.0, NAN)),
    ("atanh", (2.0, NAN), (NAN, NAN)),
    ("atanh", (NAN, 2.0), (NAN, NAN)),
    ("atanh", (NAN, 0.0), (NAN, NAN)),
    ("atanh", (NAN, NAN), (NAN, NAN)),
    ("atanh", (NAN, INF), (("any", 0.0), PI / 2)),
    ("sign", (-0.0, -0.0), (0.0, 0.0)),
    ("sign", (0.0, -0.0), (0.0, 0.0)),
    ("sign", (NAN, 1.0), (NAN, NAN)),
    ("sign", (3.0, -4.0), (0.6, -0.8)),
]


def _conjugate_case(case):
    """The same case at conj(z): C99's f(conj z) == conj f(z)."""
    name, (a, b), (re, im) = case
    if isinstance(im, tuple) or np.isnan(b) or (name == "sign" and b == 0):
        return None  # sign(+-0 +- 0j) is +0 + 0j whatever the zeros' signs
    return name, (a, -b), (re, -im)


NUMPY_NAMES = {"acos": "arccos", "acosh": "arccosh", "asinh": "arcsinh", "atanh": "arctanh"}
ALL = CASES + [c for c in map(_conjugate_case, CASES) if c is not None]


def _check_part(got, want, what):
    if isinstance(want, tuple):  # the standard leaves the sign open
        want = want[1]
        got = abs(got)
    if np.isnan(want):
        assert np.isnan(got), what
        return
    assert got == pytest.approx(want, rel=1e-6), what
    assert np.signbit(got) == np.signbit(want), f"{what}: sign of {got}"


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("case", ALL, ids=lambda c: f"{c[0]}({c[1][0]},{c[1][1]})")
def test_complex_special_values_are_the_standards(case, dtype, mode, request):
    if dtype == np.complex128:
        request.getfixturevalue("x64")
    name, (a, b), (re, im) = case
    fn = getattr(jnp, name)
    if mode == "jit":
        fn = numlir.jit(fn)
    z = np.array([complex(a, b), 1.5 - 0.5j], dtype)
    got = np.asarray(fn(z))
    assert got.dtype == dtype
    what = f"{name}({complex(a, b)}) = {got[0]}"
    _check_part(float(got[0].real), re, what)
    _check_part(float(got[0].imag), im, what)
    # The ordinary element beside it keeps NumPy's value.
    want = getattr(np, NUMPY_NAMES.get(name, name))(np.complex128(1.5 - 0.5j))
    np.testing.assert_allclose(got[1], want, rtol=1e-5)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "acos", "atanh", "sign"])
def test_special_values_leave_finite_inputs_as_jax_computes_them(name):
    """Away from the special points the selections change nothing: a grid of finite values
    gives jax's results to float32 rounding."""
    rng = np.random.default_rng(0)
    z = (rng.uniform(-3, 3, 64) + 1j * rng.uniform(-3, 3, 64)).astype(np.complex64)
    z[:4] = [0j, complex(0.0, -0.0), 1 + 0j, complex(-2.0, 0.0)]
    got = np.asarray(getattr(jnp, name)(z))
    want = np.asarray(getattr(jax_jnp, name)(z))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)


def test_real_inputs_are_untouched_by_the_complex_rules():
    x = np.array([-1.0, -0.0, 0.0, 2.0, np.inf, -np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.sign(x)), np.sign(x))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(np.asarray(jnp.sqrt(x)), np.sqrt(x))
        np.testing.assert_array_equal(np.asarray(jnp.log(x)), np.log(x))
        np.testing.assert_array_equal(np.asarray(jnp.expm1(x)), np.expm1(x))
