"""complex64 and complex128 end to end, against jax: transfers, the parts (real, imag, complex,
conj), arithmetic, the transcendental functions, reductions and contractions, sorting,
promotion with Python complex scalars, and the derivative conventions (grad of a real function
of complex inputs is the conjugate gradient; holomorphic=True gives f'(z)); eager, under jit and
under vmap, with x64 off (complex128 canonicalized to complex64) and on.
"""

import warnings

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

C64, C128 = np.complex64, np.complex128


def _tol(dtype):
    return 1e-12 if np.dtype(dtype) in (np.dtype(C128), np.dtype(np.float64)) else 3e-6


def _crand(shape, dtype=C64, seed=0, scale=2.0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-scale, scale, shape) + 1j * rng.uniform(-scale, scale, shape)).astype(dtype)


def _check(fn, ref_fn, *args, tol=None, modes=("eager", "jit", "vmap")):
    """``fn`` equals jax's ``ref_fn`` in dtype, shape and value: eagerly, jitted and vmapped over
    the leading axis of every argument."""
    want = np.asarray(ref_fn(*[jnp_ref.asarray(a) for a in args]))
    t = _tol(want.dtype) if tol is None else tol
    runs = {"eager": lambda: fn(*[jnp.asarray(a) for a in args]),
            "jit": lambda: numlir.jit(fn)(*args),
            "vmap": lambda: numlir.vmap(fn)(*args)}
    for mode in modes:
        if mode == "vmap":
            want = np.asarray(jax.vmap(ref_fn)(*[jnp_ref.asarray(a) for a in args]))
        got = np.asarray(runs[mode]())
        assert (got.dtype, got.shape) == (want.dtype, want.shape), (mode, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=t, atol=t, equal_nan=True, err_msg=mode)


# --- Values in and out ----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (0, 4)])
def test_complex64_arrays_round_trip_eagerly_and_through_jit(shape):
    x = _crand(shape)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x)), x)
    out = numlir.jit(lambda a: a)(x)
    assert out.dtype == C64
    np.testing.assert_array_equal(np.asarray(out), x)
    # A closed-over complex constant, large enough for the hex form, keeps every bit.
    big = _crand((40,), seed=3)
    big[3] = complex(np.inf, np.nan)
    np.testing.assert_array_equal(np.asarray(numlir.jit(lambda: jnp.asarray(big))()), big)


def test_complex128_needs_x64_and_keeps_double_precision_with_it(x64):
    x = np.array([1 / 3 + 1j / 7, -2.5e300 + 1e-300j], C128)
    out = numlir.jit(lambda a: a * 1)(x)
    assert out.dtype == C128
    np.testing.assert_array_equal(np.asarray(out), x)


def test_python_complex_scalars_are_weak():
    x = np.ones(3, np.float32)
    _check(lambda a: a + 1j, lambda a: a + 1j, x)
    _check(lambda a: a * (2 - 1j), lambda a: a * (2 - 1j), _crand((3,)))
    assert jnp.asarray(1j).dtype == C64 and jnp.asarray(1j).weak_type


# --- The parts --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["real", "imag", "conj"])
def test_lax_parts_match_jax(name):
    _check(getattr(lax, name), getattr(jax.lax, name), _crand((4, 3)))


def test_lax_complex_builds_from_two_floats_and_broadcasts_a_scalar():
    re, im = np.float32([1, -2, 3]), np.float32([0.5, 0, -4])
    _check(lax.complex, jax.lax.complex, re, im)
    _check(lambda a: lax.complex(a, np.float32(2)), lambda a: jax.lax.complex(a, np.float32(2)), re)


def test_lax_conj_of_a_real_array_is_complex_as_in_jax():
    _check(lax.conj, jax.lax.conj, np.float32([1, -2]))


def test_lax_parts_refuse_real_arrays_and_complex_refuses_mixed_or_complex_parts():
    with pytest.raises(TypeError, match="real does not accept dtype float32"):
        lax.real(np.float32([1]))
    with pytest.raises(TypeError, match="same dtypes"):
        lax.complex(np.float32([1]), np.float64([1]).astype(np.float16))
    with pytest.raises(TypeError, match="complex does not accept dtype int32"):
        lax.complex(np.int32([1]), np.int32([1]))


@pytest.mark.parametrize("name", ["real", "imag", "conjugate", "conj", "angle", "abs", "absolute",
                                  "isreal", "iscomplex"])
@pytest.mark.parametrize("dtype", [C64, np.float32, np.int32])
def test_numpy_part_functions_match_jax(name, dtype):
    x = _crand((6,)) if dtype == C64 else np.float32([1.5, -2, 0, 3, -0.0, 7]).astype(dtype)
    if dtype == C64:
        x[1] = 2 + 0j  # real elements for isreal/iscomplex
    _check(getattr(jnp, name), getattr(jnp_ref, name), x, modes=("eager", "jit"))


def test_angle_in_degrees():
    _check(lambda z: jnp.angle(z, deg=True), lambda z: jnp_ref.angle(z, deg=True), _crand((5,)),
           tol=2e-4)


# --- Arithmetic and functions ---------------------------------------------------------------------


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "power"])
def test_binary_arithmetic_matches_jax(op):
    x, y = _crand((3, 4), seed=1), _crand((3, 4), seed=2)
    _check(getattr(jnp, op), getattr(jnp_ref, op), x, y, tol=2e-5)


def test_mixed_real_and_complex_operands_promote():
    x, y = np.float32([1, 2, 3]), _crand((3,))
    _check(lambda a, b: a * b - a / b, lambda a, b: a * b - a / b, x, y, tol=1e-5)


@pytest.mark.parametrize("name", ["negative", "exp", "log", "sqrt", "sin", "cos", "tan", "tanh",
                                  "log1p", "expm1", "sign", "square", "reciprocal"])
def test_unary_functions_match_jax(name):
    z = _crand((4, 5), scale=1.5)
    _check(getattr(jnp, name), getattr(jnp_ref, name), z, tol=2e-5)


def test_rsqrt_matches_jax():
    _check(lax.rsqrt, jax.lax.rsqrt, _crand((7,)), tol=2e-5)


def test_unary_functions_in_double_precision(x64):
    z = _crand((9,), C128, scale=3.0)
    for name in ("exp", "log", "sqrt", "sin", "cos", "tanh", "abs"):
        _check(getattr(jnp, name), getattr(jnp_ref, name), z, tol=1e-12, modes=("jit",))


def test_equality_compares_both_parts():
    x = np.array([1 + 1j, 1 + 2j, 3 + 0j], C64)
    y = np.array([1 + 1j, 1 - 2j, 3 + 0j], C64)
    _check(jnp.equal, jnp_ref.equal, x, y)
    _check(jnp.not_equal, jnp_ref.not_equal, x, y)


def test_ordered_comparisons_and_extrema_refuse_complex_with_a_clear_error():
    z = jnp.asarray(_crand((3,)))
    with pytest.raises(TypeError, match="lt does not accept dtype complex64"):
        lax.lt(z, z)
    with pytest.raises(TypeError, match="floor does not accept dtype complex64"):
        lax.floor(z)


# --- Reductions, contractions, sorting --------------------------------------------------------------


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "cumsum", "cumprod"])
def test_reductions_match_jax(name):
    _check(lambda z: getattr(jnp, name)(z, axis=-1), lambda z: getattr(jnp_ref, name)(z, axis=-1),
           _crand((3, 6), scale=1.0), tol=2e-5)


@pytest.mark.parametrize("shapes", [((4, 5), (5, 3)), ((5,), (5,)), ((2, 3, 4), (2, 4, 6))])
def test_matmul_matches_jax(shapes):
    a, b = _crand(shapes[0], seed=4), _crand(shapes[1], seed=5)
    _check(jnp.matmul, jnp_ref.matmul, a, b, tol=2e-5, modes=("eager", "jit"))


def test_dot_of_complex_and_real_operands():
    a, b = _crand((3, 4)), np.random.default_rng(0).standard_normal((4, 2)).astype(np.float32)
    _check(jnp.dot, jnp_ref.dot, a, b, tol=2e-5, modes=("eager", "jit"))


def test_sort_and_sort_complex_order_lexicographically():
    z = np.array([2 + 1j, 1 + 5j, 2 - 1j, 1 + 0j, -3 + 9j], C64)
    _check(jnp.sort, jnp_ref.sort, z, modes=("eager", "jit"))
    _check(jnp.sort_complex, jnp_ref.sort_complex, z, modes=("eager", "jit"))
    _check(jnp.sort_complex, jnp_ref.sort_complex, np.float32([3, 1, 2]), modes=("eager", "jit"))


# --- Conversions ------------------------------------------------------------------------------------


def test_real_to_complex_conversion_and_back_with_numpys_warning():
    x = np.float32([1.5, -2, 0])
    _check(lambda a: a.astype(C64), lambda a: a.astype(C64), x)
    z = _crand((4,))
    with pytest.warns(np.exceptions.ComplexWarning, match="discards the imaginary part"):
        got = lax.convert_element_type(jnp.asarray(z), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = jax.lax.convert_element_type(z, np.float32)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_complex64_to_complex128_and_back(x64):
    z = _crand((5,))
    _check(lambda a: a.astype(C128), lambda a: a.astype(C128), z)
    _check(lambda a: a.astype(C128).astype(C64), lambda a: a.astype(C128).astype(C64), z)


# --- Derivatives ------------------------------------------------------------------------------------


def test_grad_of_a_real_function_of_complex_input_is_jaxs_conjugate_gradient():
    f = lambda z: jnp.abs(z) ** 2  # noqa: E731
    g = numlir.grad(f)(jnp.asarray(3 + 4j, C64))
    assert g.dtype == C64
    np.testing.assert_allclose(np.asarray(g), 6 - 8j, rtol=1e-6)
    z = _crand((5,), seed=7)
    for fn, ref in [(lambda z: jnp.sum(jnp.real(z * jnp.conj(z) * (1 + 2j))),
                     lambda z: jnp_ref.sum(jnp_ref.real(z * jnp_ref.conj(z) * (1 + 2j)))),
                    (lambda z: jnp.sum(jnp.abs(jnp.exp(z) / (z + 3))),
                     lambda z: jnp_ref.sum(jnp_ref.abs(jnp_ref.exp(z) / (z + 3)))),
                    (lambda z: jnp.sum(jnp.imag(jnp.sqrt(z)) + jnp.angle(z)),
                     lambda z: jnp_ref.sum(jnp_ref.imag(jnp_ref.sqrt(z)) + jnp_ref.angle(z)))]:
        _check(numlir.grad(fn), jax.grad(ref), z, tol=2e-5, modes=("eager", "jit"))


def test_holomorphic_grad_is_the_complex_derivative():
    g = numlir.grad(lambda z: z * z, holomorphic=True)(jnp.asarray(3 + 4j, C64))
    np.testing.assert_allclose(np.asarray(g), 6 + 8j, rtol=1e-6)
    f = lambda z: jnp.sum(jnp.sin(z) * jnp.exp(2 * z))  # noqa: E731
    z = _crand((4,), seed=8, scale=1.0)
    _check(numlir.grad(f, holomorphic=True), jax.grad(f_ref := (
        lambda z: jnp_ref.sum(jnp_ref.sin(z) * jnp_ref.exp(2 * z))), holomorphic=True), z,
        tol=2e-5, modes=("eager", "jit"))
    del f_ref


def test_grad_of_a_real_input_through_complex_intermediates():
    f = lambda x: jnp.real(jnp.exp(1j * x) * (2 - 1j))  # noqa: E731
    f_ref = lambda x: jnp_ref.real(jnp_ref.exp(1j * x) * (2 - 1j))  # noqa: E731
    x = np.float32([0.3, -1.2, 2.0])
    _check(numlir.vmap(numlir.grad(f)), jax.vmap(jax.grad(f_ref)), x, tol=2e-5,
           modes=("eager", "jit"))


def test_vjp_and_jvp_follow_jaxs_conventions():
    z, t = _crand((3,), seed=9), _crand((3,), seed=10)
    fn = lambda z: jnp.exp(z) * jnp.conj(z)  # noqa: E731
    ref = lambda z: jnp_ref.exp(z) * jnp_ref.conj(z)  # noqa: E731
    out, tangent = numlir.jvp(fn, (z,), (t,))
    want_out, want_tangent = jax.jvp(ref, (z,), (t,))
    np.testing.assert_allclose(np.asarray(tangent), np.asarray(want_tangent), rtol=2e-5, atol=2e-5)
    _, pullback = numlir.vjp(fn, z)
    _, ref_pullback = jax.vjp(ref, z)
    np.testing.assert_allclose(np.asarray(pullback(t)[0]), np.asarray(ref_pullback(t)[0]),
                               rtol=2e-5, atol=2e-5)


def test_jacobians_of_complex_functions():
    z = _crand((3,), seed=11, scale=1.0)
    f = lambda z: jnp.sin(z) * z  # noqa: E731
    f_ref = lambda z: jnp_ref.sin(z) * z  # noqa: E731
    for jac, jac_ref in [(numlir.jacfwd, jax.jacfwd), (numlir.jacrev, jax.jacrev)]:
        got = jac(f, holomorphic=True)(z)
        np.testing.assert_allclose(np.asarray(got), np.asarray(jac_ref(f_ref, holomorphic=True)(z)),
                                   rtol=2e-5, atol=2e-5)
    g = lambda z: jnp.abs(z) ** 2  # noqa: E731
    np.testing.assert_allclose(np.asarray(numlir.jacrev(g)(z)),
                               np.asarray(jax.jacrev(lambda z: jnp_ref.abs(z) ** 2)(z)),
                               rtol=2e-5, atol=2e-5)


def test_derivative_dtype_errors_are_jaxs():
    z = jnp.asarray(1 + 1j, C64)
    with pytest.raises(TypeError, match="grad requires real-valued outputs .* pass holomorphic=True"):
        numlir.grad(lambda z: z * z)(z)
    with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex dtype"):
        numlir.grad(lambda x: x * x, holomorphic=True)(1.0)
    with pytest.raises(TypeError, match="holomorphic=True requires outputs with complex dtype"):
        numlir.grad(lambda z: jnp.abs(z), holomorphic=True)(z)
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs"):
        numlir.jacfwd(lambda z: z)(jnp.asarray([1j]))


# --- numpy functions whose real-only shortcuts would be wrong for complex numbers -----------------


_SPECIAL = np.array([1 + 2j, complex(np.inf, 0), complex(np.nan, 1), 3 - 1j,
                     complex(0, -np.inf), 2.5 + 0.5j], C64)


@pytest.mark.parametrize("name", ["isinf", "isfinite", "isnan", "round", "rint", "nan_to_num"])
def test_elementwise_predicates_and_rounding_treat_both_parts(name):
    _check(getattr(jnp, name), getattr(jnp_ref, name), _SPECIAL, modes=("eager", "jit"))


def test_isclose_uses_the_modulus():
    a = np.array([1 + 1j, 1 + 1j, complex(np.nan, 0), complex(np.inf, 1)], C64)
    b = np.array([1 + 1.000001j, 1 + 1.1j, complex(np.nan, 0), complex(np.inf, 1)], C64)
    for equal_nan in (False, True):
        _check(lambda x, y: jnp.isclose(x, y, equal_nan=equal_nan),
               lambda x, y: jnp_ref.isclose(x, y, equal_nan=equal_nan), a, b, modes=("eager", "jit"))


@pytest.mark.parametrize("name", ["var", "std", "mean", "nansum", "nanmean"])
def test_statistics_of_complex_arrays(name):
    z = _crand((3, 5), seed=12)
    z[1, 2] = complex(np.nan, 1) if name.startswith("nan") else z[1, 2]
    _check(lambda a: getattr(jnp, name)(a, axis=-1), lambda a: getattr(jnp_ref, name)(a, axis=-1),
           z, tol=2e-5)


@pytest.mark.parametrize("name", ["vdot", "vecdot", "vecmat", "inner", "outer", "kron"])
def test_products_conjugate_where_numpy_does(name):
    a, b = _crand((4,), seed=13), _crand((4,) if name != "vecmat" else (4, 3), seed=14)
    _check(getattr(jnp, name), getattr(jnp_ref, name), a, b, tol=2e-5, modes=("eager", "jit"))
    if name == "vecdot":
        _check(jnp.linalg.vecdot, jnp_ref.linalg.vecdot, a, b, tol=2e-5, modes=("eager", "jit"))


def test_cov_and_corrcoef_conjugate():
    m = _crand((2, 6), seed=15)
    _check(jnp.cov, jnp_ref.cov, m, tol=2e-5, modes=("eager", "jit"))
    _check(jnp.corrcoef, jnp_ref.corrcoef, m, tol=2e-5, modes=("eager", "jit"))


@pytest.mark.parametrize("ord", [None, 1, 2, np.inf, 3])
def test_vector_norm_of_complex_vectors(ord):
    _check(lambda z: jnp.linalg.norm(z, ord=ord), lambda z: jnp_ref.linalg.norm(z, ord=ord),
           _crand((6,), seed=16), tol=2e-5, modes=("eager", "jit"))


def test_functions_undefined_for_complex_numbers_raise_as_jax():
    z = jnp.asarray(_crand((3,)))
    with pytest.raises(ValueError, match="signbit is not well defined for complex64"):
        jnp.signbit(z)
    for fn in (jnp.isposinf, jnp.isneginf):
        with pytest.raises(ValueError, match="not well defined for complex types"):
            fn(z)


def test_linspace_between_complex_endpoints():
    got = jnp.linspace(1 + 2j, -3 + 0.5j, 5)
    want = jnp_ref.linspace(1 + 2j, -3 + 0.5j, 5)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_scatter_add_and_multiply_of_complex_numbers_and_the_gradients_of_gathers():
    # Fuzzer finding (complex campaign, seed 7): the gradient of any gather of a complex array
    # (indexing with arrays, take, masks, reflect padding, diagonal) is a scatter-add, which
    # refused complex numbers.
    z, u = _crand((5,), seed=17), _crand((3,), seed=18)
    idx = np.array([0, 3, 0])
    _check(lambda a, b: jnp.asarray(a).at[idx].add(b), lambda a, b: jnp_ref.asarray(a).at[idx].add(b),
           z, u, modes=("eager", "jit"))
    _check(lambda a, b: jnp.asarray(a).at[idx[:2]].multiply(b[:2]),
           lambda a, b: jnp_ref.asarray(a).at[idx[:2]].multiply(b[:2]), z, u, tol=2e-5,
           modes=("eager", "jit"))
    loss = lambda a: jnp.sum(jnp.abs(a[idx] * (1 - 2j)) ** 2 + jnp.real(jnp.diagonal(a.reshape(1, 5))))  # noqa: E731
    loss_ref = lambda a: jnp_ref.sum(jnp_ref.abs(a[idx] * (1 - 2j)) ** 2  # noqa: E731
                                     + jnp_ref.real(jnp_ref.diagonal(a.reshape(1, 5))))
    _check(numlir.grad(loss), jax.grad(loss_ref), z, tol=2e-5, modes=("eager", "jit"))
    with pytest.raises(TypeError, match="scatter_min does not accept dtype complex64"):
        jnp.asarray(z).at[idx].min(u)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_random_normal_of_complex_dtype_draws_jaxs_numbers(dtype, request):
    if dtype == C128:
        request.getfixturevalue("x64")
    key = 7
    got = numlir.random.normal(numlir.random.PRNGKey(key), (4, 3), dtype)
    want = jax.random.normal(jax.random.PRNGKey(key), (4, 3), dtype)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("name", ["median", "quantile", "nanpercentile"])
def test_order_statistics_refuse_complex_input_as_jax(name):
    z = jnp.asarray(_crand((5,)))
    args = (z,) if name == "median" else (z, 0.5 if name == "quantile" else 50.0)
    with pytest.raises(ValueError, match="does not support complex input"):
        getattr(jnp, name)(*args)


def test_complex_to_bool_follows_jax_per_function():
    # Found by the fuzzer (seed 7, program 257): jax's cast keeps the real part only (with a
    # ComplexWarning), so jnp.all/any see -2j as False; astype and the logical functions
    # compare both parts.
    z = np.array([-0.0 - 2j, 1 + 0j, 0j], C64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn, ref in [(jnp.all, jnp_ref.all), (jnp.any, jnp_ref.any),
                        (lambda a: a.astype(bool), lambda a: a.astype(bool)),
                        (jnp.logical_not, jnp_ref.logical_not),
                        (lambda a: lax.convert_element_type(a, bool),
                         lambda a: jax.lax.convert_element_type(a, bool)),
                        (lambda a: jnp.all(jnp.round(a)[None], axis=0),
                         lambda a: jnp_ref.all(jnp_ref.round(a)[None], axis=0))]:
            for x in (z, z[:1]):
                _check(fn, ref, x, modes=("eager", "jit"))
            _check(lambda a: fn(a[None]), lambda a: ref(a[None]), z, modes=("vmap",))


@pytest.mark.parametrize("name", ["softplus", "mish", "logaddexp", "logaddexp2"])
def test_softplus_and_logaddexp_of_complex_numbers_are_jaxs(name):
    # Fuzzer (complex-softplus, complex-logaddexp): softplus and mish applied the real
    # max/abs formula to complex numbers (wrong values); logaddexp raised a TypeError.
    z = np.array([0.3 - 0.6j, -1.2 + 0.4j, 3 + 2j, -0.1 - 3j], C64)
    if name.startswith("logaddexp"):
        fn = lambda a: getattr(jnp, name)(a, a[::-1])  # noqa: E731
        ref = lambda a: getattr(jnp_ref, name)(a, a[::-1])  # noqa: E731
    else:
        fn, ref = getattr(numlir.nn, name), getattr(jax.nn, name)
    _check(fn, ref, z, tol=2e-6, modes=("eager", "jit"))
    loss = lambda f, m: lambda a: m.sum(m.abs(f(a)) ** 2)  # noqa: E731
    _check(numlir.grad(loss(fn, jnp)), jax.grad(loss(ref, jnp_ref)), z, tol=2e-5, modes=("eager",))


def test_converting_a_complex_array_to_bool_keeps_its_real_part_as_jax():
    """jnp.asarray/jnp.array of a numlir array to bool is lax's cast (real part), of a NumPy
    array NumPy's conversion (both parts), and .astype tests both parts: jax's three rules
    (fuzzer, known bug complex-asarray-bool: -2j gave True where jax gives False)."""
    z = np.array([-2j, 1 + 1j, 0.5j, 0], np.complex64)
    cases = [lambda m: m.asarray(m.asarray(z), dtype=bool), lambda m: m.array(m.asarray(z), dtype=bool),
             lambda m: m.asarray(z, dtype=bool), lambda m: m.asarray(z).astype(bool)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        for case in cases:
            np.testing.assert_array_equal(np.asarray(case(jnp)), np.asarray(case(jnp_ref)))
        got = numlir.jit(lambda x: jnp.asarray(x, dtype=bool))(z)
        np.testing.assert_array_equal(np.asarray(got), [False, True, False, False])
