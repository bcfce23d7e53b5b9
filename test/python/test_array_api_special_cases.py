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
    ("asinh", (NAN, 1.0), (NAN, NAN)),
    ("asinh", (NAN, 3e38), (NAN, NAN)),  # the expansion's large-|z| branch gave 89.29 + NaN j
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


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.float32, np.float64])
def test_sign_of_a_float_zero_is_plus_zero_as_numpy_and_the_standard_say(dtype, mode, request):
    # The standard: "If x_i is -0 or +0, the result is 0", which its suite reads as +0;
    # NumPy agrees, jax keeps -0 (the fuzzer's reference, jax_numpy_as_standard, too).
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x = jnp.asarray(np.array([-0.0, 0.0, -2.0, 3.0, -np.inf, np.inf, np.nan], np.float32),
                    dtype=dtype)
    f = numlir.jit(jnp.sign) if mode == "jit" else jnp.sign
    got = np.asarray(f(x)).astype(np.float32)
    assert f(x).dtype == dtype
    np.testing.assert_array_equal(got, [0.0, 0.0, -1.0, 1.0, -1.0, 1.0, np.nan])
    assert not np.signbit(got[:2]).any()
    assert float(numlir.grad(lambda v: jnp.sign(v) * 3.0)(np.float32(-0.0))) == 0.0


# Floor division and remainder of floats: the standard's special cases where jax keeps
# Python's divmod. (x, y, floor_divide, remainder); each float compared with its sign.
REAL_DIVISION_CASES = [
    (0.0, 2.0, 0.0, 0.0),
    (-0.0, 2.0, -0.0, 0.0),
    (0.0, -2.0, -0.0, -0.0),
    (-0.0, -2.0, 0.0, -0.0),
    (INF, 1.5, INF, NAN),
    (INF, -1.5, -INF, NAN),
    (-INF, 1.5, -INF, NAN),
    (-INF, -1.5, INF, NAN),
    (1.0, INF, 0.0, 1.0),
    (1.0, -INF, -0.0, -INF),
    (-1.0, INF, -0.0, INF),
    (-1.0, -INF, 0.0, -1.0),
    (INF, INF, NAN, NAN),
    (0.0, 0.0, NAN, NAN),
    (5.0, 0.0, INF, NAN),
    (5.0, -0.0, -INF, NAN),
    (-5.0, 0.0, -INF, NAN),
    (NAN, 2.0, NAN, NAN),
    (-1.0, -3.0, 0.0, -1.0),  # same signs, |x| < |y|: +0 (jax -0)
    (1.0, 3.0, 0.0, 1.0),
    (-4.0, 2.0, -2.0, 0.0),  # an exact multiple: the remainder takes y's sign (jax -0)
    (4.0, -2.0, -2.0, -0.0),
    (1.0, 0.1, 9.0, None),  # Python's, as jax and NumPy (floor(1 / 0.1) is 10)
    (-7.0, 2.0, -4.0, 1.0),
]


def _same_float(got, want, what):
    if np.isnan(want):
        assert np.isnan(got), what
    else:
        assert got == want and np.signbit(got) == np.signbit(want), what


@pytest.mark.parametrize("mode", ["function", "operator", "jit"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_floor_division_and_remainder_take_the_standards_special_values(dtype, mode,
                                                                              request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    x = np.array([c[0] for c in REAL_DIVISION_CASES], dtype)
    y = np.array([c[1] for c in REAL_DIVISION_CASES], dtype)
    funs = {"function": (jnp.floor_divide, jnp.remainder),
            "operator": (lambda a, b: a // b, lambda a, b: a % b),
            "jit": (numlir.jit(jnp.floor_divide), numlir.jit(jnp.mod))}[mode]
    xs, ys = jnp.asarray(x), jnp.asarray(y)
    quotients, remainders = (np.asarray(f(xs, ys)) for f in funs)
    q_divmod, r_divmod = (np.asarray(v) for v in jnp.divmod(xs, ys))
    assert quotients.dtype == remainders.dtype == dtype
    for i, (a, b, q, r) in enumerate(REAL_DIVISION_CASES):
        _same_float(float(quotients[i]), q, f"{a} // {b} = {quotients[i]}")
        _same_float(float(q_divmod[i]), q, f"divmod({a}, {b})[0] = {q_divmod[i]}")
        if r is not None:
            _same_float(float(remainders[i]), r, f"{a} % {b} = {remainders[i]}")
            _same_float(float(r_divmod[i]), r, f"divmod({a}, {b})[1] = {r_divmod[i]}")


def test_remainder_keeps_jaxs_derivatives_where_its_zero_takes_the_divisors_sign(x64):
    # The sign fix of a zero remainder must not cut the derivative there: 1 in x and
    # -trunc(x / y) (plus 1 where jax's fix adds y) in y, as jax.
    import jax

    def grads(lib, np_like, x, y):
        return tuple(float(g) for g in lib.grad(lambda a, b: np_like.remainder(a, b),
                                                argnums=(0, 1))(x, y))

    for x, y in [(4.0, 2.0), (-4.0, 2.0), (4.0, -2.0), (0.0, -2.0), (-0.0, 2.0), (3.0, 2.0),
                 (-3.0, 2.0), (1.0, np.inf)]:
        got = grads(numlir, jnp, np.float64(x), np.float64(y))
        with jax.enable_x64(True):
            want = grads(jax, jax_jnp, np.float64(x), np.float64(y))
        assert got == want, (x, y)
    assert float(numlir.grad(lambda a: jnp.floor_divide(a, 2.0))(np.float64(-0.0))) == 0.0
