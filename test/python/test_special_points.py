"""The special-point sweep against JAX (special_points.py: values and first and second
derivatives at zeros, ±1, ±0.5, tiny and huge magnitudes, infinities, NaN and each
function's kinks; eagerly, under jit and under vmap; float32 and float64), the proofs of
the points where JAX is wrong, and regression tests of the bugs the sweep found."""

from __future__ import annotations

import inspect
import math
import os
import warnings

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.nn as nn
import numlir.numpy as jnp
import special_points as sp

CASES = sp.all_cases()
CHUNKS = 24  # spread over pytest-xdist's workers
#: ``make special-points`` sweeps every case in both dtypes, all three modes and all three
#: orders. ``make test`` sweeps every case in one dtype and one mode, rotating down the list
#: (so each of the six combinations meets a sixth of the functions), to keep within its
#: time. The special functions, whose references compile for about a second an order and
#: whose eager runs are a thousand ops a point, in one order too (the chunk's, so that
#: neighbouring cases of a function take different ones) and under jit or vmap.
FULL = os.environ.get("NUMLIR_SPECIAL_POINTS") == "full"
SPECIAL_FUNCTIONS = ("scipy.special.", "lax.digamma", "lax.lgamma", "lax.bessel_i", "lax.igamma",
                     "lax.polygamma", "lax.erf", "numpy.i0")


def _cases(chunk: int, dtype: str):
    """(case, modes, orders) for one test: the chunk's cases in this dtype."""
    for i, case in enumerate(CASES):
        if i % CHUNKS != chunk:
            continue
        if FULL:
            yield case, sp.MODES, sp.ORDERS
        elif case.name in sp.KNOWN_MISMATCHES:
            continue  # open: `make special-points` reports it
        elif (i // CHUNKS) % 2 == (dtype == "float64"):
            if case.name.startswith(SPECIAL_FUNCTIONS):
                yield case, (("jit", "vmap")[(i // (2 * CHUNKS)) % 2],), (chunk % 3,)
            else:
                yield case, (sp.MODES[(i // (2 * CHUNKS)) % 3],), sp.ORDERS


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_values_and_derivatives_at_special_points_match_jax(chunk, dtype, request):
    if dtype == "float64":
        request.getfixturevalue("x64")
    lines, known = [], []
    for case, modes, orders in _cases(chunk, dtype):
        found = [line for order in orders
                 for line in sp.sweep_one(case, order, np.dtype(dtype), modes)]
        if case.name in sp.KNOWN_MISMATCHES:
            known += found
        else:
            lines += found
    for line in known:
        warnings.warn(f"known mismatch: {line}")
    assert not lines, "\n".join(lines)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(sp.TIE_FUNCTIONS))
def test_ties_in_reductions_and_selections_split_or_choose_as_jax(name, dtype, request):
    if dtype == "float64":
        request.getfixturevalue("x64")
    lines = sp.sweep_ties(name, np.dtype(dtype))
    assert not lines, "\n".join(lines)


def _abstractly(f, *args):
    """``f(*args)``'s shape and dtype, traced without compiling (a minute less for the whole
    discovery), or computed where ``f`` needs concrete values (``pad``'s widths)."""
    try:
        return jax.eval_shape(f, *args)
    except Exception:  # noqa: BLE001 - the concrete call decides
        return f(*args)


def _jax_scalar_functions():
    """What the sweep's discovery rule finds in JAX's namespaces: public functions that
    map float32 scalars to a float scalar and have a gradient (arity 1 or 2)."""
    import jax.scipy.special  # noqa: F401
    namespaces = {"numpy": jax.numpy, "nn": jax.nn, "lax": jax.lax,
                  "scipy.special": jax.scipy.special}
    io = {"save", "savez", "load", "fromfile", "frombuffer", "fromstring", "loadtxt",
          "savetxt", "printoptions", "set_printoptions", "get_printoptions", "show_config",
          "fromfunction", "vectorize", "frompyfunc", "piecewise", "apply_along_axis",
          "apply_over_axes", "from_dlpack", "array_str", "array_repr", "array2string",
          "can_cast"}  # (a question about dtypes; jax.eval_shape of it crashes jax 0.10.2)
    found = {1: set(), 2: set()}
    for ns, module in namespaces.items():
        for name in dir(module):
            f = getattr(module, name)
            if name.startswith("_") or name in io or inspect.isclass(f) or not callable(f):
                continue
            for arity in (1, 2):
                args = [jjnp.float32(0.5), jjnp.float32(0.25)][:arity]
                try:
                    y = _abstractly(f, *args)
                    if not (isinstance(y, (jax.Array, jax.ShapeDtypeStruct)) and y.shape == ()
                            and jjnp.issubdtype(y.dtype, jjnp.floating)):
                        continue
                    _abstractly(jax.grad(f, argnums=tuple(range(arity))), *args)
                except Exception:  # noqa: BLE001 - not a scalar function of this arity
                    continue
                found[arity].add(f"{ns}.{name}")
                break
    return found


def test_the_sweep_covers_every_differentiable_scalar_function_jax_has():
    found = _jax_scalar_functions()
    missing = (found[1] - set(sp.UNARY)) | (found[2] - set(sp.BINARY))
    assert not missing - set(sp.NOT_SWEPT), sorted(missing - set(sp.NOT_SWEPT))


def test_every_listed_jax_error_has_its_proof():
    import importlib.util
    modules = [globals()]
    if importlib.util.find_spec("test_special_points_proofs"):
        modules.append(vars(importlib.import_module("test_special_points_proofs")))
    for wrong in sp.JAX_IS_WRONG:
        assert any(wrong.proof in m for m in modules), wrong.proof
        assert wrong.reason and wrong.cases
    for name, (reason, proof) in sp.NO_DERIVATIVE.items():
        assert any(proof in m for m in modules) and reason, name


def test_the_comparison_flags_a_misplaced_nan_or_infinity():
    f32 = np.float32
    want = np.array([1.0, np.nan, np.inf, -np.inf, 0.0], f32)
    assert not sp.disagreements(want.copy(), want, f32).any()
    for i, wrong in [(0, np.nan), (1, 1.0), (2, -np.inf), (3, 3e38), (4, np.inf)]:
        got = want.copy()
        got[i] = wrong
        assert list(np.flatnonzero(sp.disagreements(got, want, f32))) == [i]


# --- Where JAX is wrong: numlir's values, proved by series in float64 -----------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sinc_derivatives_near_zero_follow_the_maclaurin_series(dtype, request):
    # sinc(x) = 1 - (pi x)^2/6 + (pi x)^4/120 - ..., so sinc'(x) = -(pi^2/3) x + O(x^3)
    # and sinc''(x) = -pi^2/3 + O(x^2); at 1e-30 the O() terms are below any rounding.
    if dtype == "float64":
        request.getfixturevalue("x64")
    for x in (1e-30, -1e-30, 1e-12):
        d1 = numlir.grad(jnp.sinc)(np.asarray(x, dtype))
        d2 = numlir.grad(numlir.grad(jnp.sinc))(np.asarray(x, dtype))
        np.testing.assert_allclose(float(d1), -math.pi ** 2 / 3 * x, rtol=1e-6)
        np.testing.assert_allclose(float(d2), -math.pi ** 2 / 3, rtol=1e-6)


@pytest.mark.parametrize("f", [jnp.tanh, numlir.lax.tanh, nn.tanh])
def test_tanh_second_derivative_at_tiny_arguments_is_minus_two_x(f, x64):
    # tanh(x) = x - x^3/3 + ..., so tanh''(x) = -2x + O(x^3).
    for x in (1e-30, -1e-30, 1e-20):
        d2 = numlir.grad(numlir.grad(f))(np.float64(x))
        np.testing.assert_allclose(float(d2), -2 * x, rtol=1e-12)
    np.testing.assert_allclose(float(numlir.grad(numlir.grad(f))(np.float32(1e-30))),
                               -2e-30, rtol=1e-6)


def test_soft_sign_derivative_at_huge_arguments_is_one_over_x_squared(x64):
    # soft_sign'(x) = 1/(1 + |x|)^2: 1e-60 at 1e30, which float32 rounds to 0.
    for x in (1e30, -1e30):
        assert float(numlir.grad(nn.soft_sign)(np.float32(x))) == np.float32(1e-60) == 0
        # float64 holds 1e-60, but the quotient rule subtracts two terms of 1e-30: the
        # result is right to their rounding
        d = float(numlir.grad(nn.soft_sign)(np.float64(x)))
        assert abs(d - 1 / (1 + abs(x)) ** 2) <= 1e-30 * np.finfo(np.float64).eps


def test_quotients_and_hypot_at_tiny_and_huge_arguments(x64):
    # x/x = 1 and 0/x = 0 away from 0: every derivative is 0; hypot(x, 0) = |x| and
    # hypot(x, x) = sqrt(2)|x|: first derivatives sign(x) and sqrt(2) sign(x), second 0.
    # numlir's values in float32, against these identities.
    for x in (1e-30, -1e-30, 1e30, -1e30):
        x32 = np.float32(x)
        assert _grads(lambda v: v / v, x32) == 0.0
        assert _grads(lambda v: v / v, np.float64(x), 2) == 0.0
        assert _grads(lambda v: numlir.lax.div(v, v), x32) == 0.0
        np.testing.assert_allclose(_grads(lambda v: jnp.hypot(v, v), x32),
                                   math.sqrt(2) * math.copysign(1, x), rtol=1e-6)
        assert _grads(lambda v: jnp.hypot(v, v), x32, 2) == 0.0
    for x in (1e-30, -1e-30):
        x32 = np.float32(x)
        assert _grads(lambda v: 0.0 / v, x32) == 0.0
        assert _grads(lambda v: 0.0 / v, x32, 2) == 0.0
        for f in (lambda v: jnp.hypot(v, 0.0), lambda v: jnp.hypot(0.0, v)):
            assert _grads(f, x32) == math.copysign(1, x)
            assert _grads(f, x32, 2) == 0.0


@pytest.mark.parametrize("x64", [False, True])
def test_quotient_derivative_in_the_divisor_at_an_infinite_dividend_is_infinite(x64):
    # fuzz seed 146, program 3117: d(x / y)/dy = -x / y**2 at x = inf and a y whose square
    # overflows is -inf (jax's -x * y**-2 is inf * 0 = NaN there); at a finite x it is -0
    dtype = np.float64 if x64 else np.float32
    huge = dtype(1.2e300 if x64 else 1e30)
    with numlir.enable_x64(x64):
        dy = numlir.grad(lambda x, y: x / y, argnums=1)
        for fn in (dy, numlir.jit(dy)):
            assert fn(dtype(np.inf), huge) == -np.inf
            assert fn(dtype(-np.inf), huge) == np.inf
            got = fn(dtype(2.0), huge)
            assert got == 0.0 and np.signbit(got)


def test_max_of_one_element_is_the_identity_even_at_nan():
    for f in (jnp.max, jnp.min, jnp.amax, jnp.amin):
        assert _grads(f, np.float32(np.nan)) == 1.0
        assert np.isnan(float(f(np.float32(np.nan))))


# --- Regression tests of the bugs the sweep found ------------------------------------


def _grads(f, x, order=1, lib=numlir):
    for _ in range(order):
        f = lib.grad(f)
    return float(f(x))


def test_softplus_derivative_at_zero_is_one_half():
    assert _grads(nn.softplus, 0.0) == 0.5 == _grads(jax.nn.softplus, 0.0, lib=jax)
    assert _grads(nn.softplus, -0.0) == 0.5


def test_log_sigmoid_derivative_at_zero_is_one_half():
    assert _grads(nn.log_sigmoid, 0.0) == 0.5 == _grads(jax.nn.log_sigmoid, 0.0, lib=jax)


def test_mish_second_derivative_at_zero_matches_jax():
    np.testing.assert_allclose(_grads(nn.mish, 0.0, 2), _grads(jax.nn.mish, 0.0, 2, jax),
                               rtol=1e-6)
    assert abs(_grads(nn.mish, 0.0, 2) - 0.64) < 1e-6


@pytest.mark.parametrize("f, kinks", [("relu", (0.0,)), ("relu6", (0.0, 6.0))])
def test_relu_derivative_at_its_kinks_is_zero_as_jax(f, kinks):
    for x in kinks:
        assert _grads(getattr(nn, f), x) == 0.0 == _grads(getattr(jax.nn, f), x, lib=jax)


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_ties_give_the_derivative_to_the_second_argument(name):
    f = getattr(jnp, name)
    assert _grads(lambda x: f(x, 0.0), 0.0) == 0.0
    assert _grads(lambda x: f(0.0, x), 0.0) == 1.0
    assert _grads(lambda x: f(x, x), 1.0) == 1.0


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_hard_tanh_derivative_at_plus_minus_one_is_one(x):
    assert _grads(nn.hard_tanh, x) == 1.0 == _grads(jax.nn.hard_tanh, x, lib=jax)


@pytest.mark.parametrize("name", ["hard_silu", "hard_swish"])
def test_hard_silu_derivative_at_infinities_is_finite(name):
    assert _grads(getattr(nn, name), math.inf) == 1.0
    assert _grads(getattr(nn, name), -math.inf) == 0.0


def test_log1mexp_derivative_is_one_over_expm1_everywhere():
    for x in (0.0, -0.0, 1e-30, -1e30, -math.inf, 3.0):
        want = _grads(jax.nn.log1mexp, x, lib=jax)
        assert _grads(nn.log1mexp, x) == pytest.approx(want, rel=1e-6, nan_ok=True), x


@pytest.mark.parametrize("f", [jnp.reciprocal, numlir.lax.reciprocal, lambda x: 1.5 / x])
def test_second_derivative_of_a_reciprocal_at_zero_is_infinite(f):
    assert _grads(f, 0.0, 2) == math.inf
    assert _grads(f, -0.0, 2) == -math.inf
    assert _grads(f, math.inf, 2) == 0.0


def test_cbrt_second_derivative_at_zero_is_infinite():
    assert _grads(jnp.cbrt, 0.0, 2) == -math.inf
    assert _grads(jnp.cbrt, -0.0, 2) == math.inf
    assert _grads(jnp.cbrt, math.inf, 2) == 0.0


def test_sinc_derivative_at_huge_arguments_is_finite():
    for x in (1e30, -1e30):
        want = _grads(jjnp.sinc, x, lib=jax)
        assert _grads(jnp.sinc, x) == pytest.approx(want, rel=1e-5)


def test_logistic_regression_from_zero_initialisation_learns_what_jax_learns():
    # The user's program that found softplus's derivative at 0 (issue 39): gradient
    # descent on mean(softplus(z) - y z) from w = 0, under jit.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5]) > 0).astype(np.float32)

    def train(lib, nnlib):
        def loss(w):
            z = x @ w
            return (nnlib.softplus(z) - y * z).mean()

        step = lib.jit(lambda w: w - 0.5 * lib.grad(loss)(w))
        w = np.zeros(3, np.float32)
        for _ in range(20):
            w = step(w)
        return np.asarray(w)

    np.testing.assert_allclose(train(numlir, nn), train(jax, jax.nn), rtol=1e-5, atol=1e-6)


def test_cummax_ties_split_the_gradient_as_jax():
    x = np.array([2.0, 2.0, 2.0, 2.0], np.float32)
    f = lambda L: lambda v: (L.lax.cummax(v) * np.arange(1.0, 5.0, dtype=np.float32)).sum()  # noqa: E731
    np.testing.assert_allclose(numlir.grad(f(numlir))(x), [3.75, 2.75, 2.5, 1.0])
    np.testing.assert_allclose(numlir.grad(f(numlir))(x), jax.grad(f(jax))(x))


def test_top_k_orders_positive_zero_before_negative_zero():
    values, indices = numlir.lax.top_k(jnp.array([0.0, -0.0, 0.0, -1.0]), 4)
    assert list(np.asarray(indices)) == [0, 2, 1, 3]
    assert list(np.signbit(np.asarray(values))) == [False, False, True, True]


@pytest.mark.parametrize("dtype", [np.float32, jjnp.bfloat16])
def test_top_k_ranks_a_negative_nan_last_as_jax(dtype):
    x = np.array([np.nan, 1, -np.nan, 2, np.inf, -0.0, 0.0, -np.inf], dtype)
    got, want = numlir.lax.top_k(x, 8), jax.lax.top_k(x, 8)
    np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(want[1]))
    assert list(np.asarray(got[1])) == [0, 4, 3, 1, 6, 5, 7, 2]


def test_max_pool_gradient_with_nan_goes_where_jax_sends_it():
    x = np.array([np.nan, 1.0, np.nan, 1.0], np.float32)

    def f(L):
        return lambda v: (L.lax.reduce_window(v, -np.inf, L.lax.max, (2,), (1,), "VALID")
                          * np.arange(1.0, 4.0, dtype=np.float32)).sum()

    np.testing.assert_array_equal(numlir.grad(f(numlir))(x), [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(numlir.grad(f(numlir))(x), jax.grad(f(jax))(x))


def test_float_floor_divide_follows_python_at_finite_operands_and_inexact_quotients():
    # Where the quotient is nonzero and the operands finite, Python's divmod, as jax (the
    # standard's special cases elsewhere: test_array_api_special_cases.py).
    a = np.array([1.0, -7.0, 7.0, -1.5, 1e-30, -1e-30, 3.0, -3.0], np.float32)
    b = np.array([0.1, 2.0, -2.0, 0.25, 1e30, 1e30, -0.5, -0.5], np.float32)
    want = np.asarray(jjnp.floor_divide(a, b))
    np.testing.assert_array_equal(np.asarray(jnp.floor_divide(a, b)), want)
    np.testing.assert_array_equal(np.asarray(numlir.jit(jnp.floor_divide)(a, b)), want)
    assert float(jnp.floor_divide(np.float32(1.0), np.float32(0.1))) == 9.0 == 1.0 // 0.1
    assert float(jnp.floor_divide(np.float32(-1e-30), np.float32(1e30))) == -1.0


def test_float_floor_divide_at_infinities_is_the_floor_of_the_quotient():
    # The standard's floor(x / y) where an operand is infinite (numlir follows the
    # standard where jax keeps Python's divmod; test_array_api_special_cases.py has the
    # whole table).
    for x, y in [(np.inf, 1.5), (-np.inf, 1.5), (np.inf, -1.5), (-np.inf, -1.5),
                 (1.5, np.inf), (1.5, -np.inf), (-1.5, np.inf), (-1.5, -np.inf)]:
        for dtype in (np.float32, np.float64):
            want = np.floor(np.divide(dtype(x), dtype(y)))
            got = np.asarray(jnp.floor_divide(dtype(x), dtype(y)))
            assert got == want and np.signbit(got) == np.signbit(want), (x, y, got)


@pytest.mark.parametrize("n", [-1, -2, -3])
def test_negative_integer_power_derivatives_at_zero_and_infinity_match_jax(n):
    for x in (0.0, -0.0, math.inf, -math.inf, 1e-30):
        for order in (1, 2):
            want = _grads(lambda v: jax.lax.integer_pow(v, n), np.float32(x), order, jax)
            got = _grads(lambda v: numlir.lax.integer_pow(v, n), np.float32(x), order)
            assert got == pytest.approx(want, nan_ok=True), (x, order)
            assert _grads(lambda v: v ** n, np.float32(x), order) == pytest.approx(want,
                                                                                  nan_ok=True)


def test_nanmedian_of_an_all_nan_slice_sends_no_gradient():
    for x in (np.float32(np.nan), np.array([np.nan, np.nan], np.float32),
              np.array([[np.nan, 1.0], [np.nan, np.nan]], np.float32)):
        f = lambda L: lambda v: L.numpy.nanmedian(v, axis=-1 if np.ndim(v) == 2 else None).sum()  # noqa: E731
        np.testing.assert_array_equal(numlir.grad(f(numlir))(x), jax.grad(f(jax))(x))


@pytest.mark.parametrize("f", [jnp.arctan2, numlir.lax.atan2])
def test_atan2_of_equal_arguments_has_zero_derivatives_at_tiny_and_huge_arguments(f, x64):
    # atan2(x, x) is the constant pi/4 (or -3pi/4): its derivatives are 0. Two quotients
    # y/(x^2 + y^2) and -x/(x^2 + y^2), one per operand, left the rounding of terms of
    # 1/x^2 = 1e60 in the second derivative (8.9e43 at 1e-30; jax: 0).
    for x in (1e-30, -1e-30, 1e30, -1e30, 1.0):
        assert _grads(lambda v: f(v, v), np.float64(x)) == 0.0
        assert _grads(lambda v: f(v, v), np.float64(x), 2) == 0.0
        assert _grads(lambda v: jjnp.arctan2(v, v), np.float64(x), 2, jax) == 0.0
    for x in (1.0, -1.0, 1e10):  # in float32 x^2 underflows at 1e-30 (0/0) as in jax
        assert _grads(lambda v: f(v, v), np.float32(x), 2) == 0.0
    # the slope of each operand alone is unchanged: y/(x^2 + y^2) and -x/(x^2 + y^2)
    assert _grads(lambda v: f(v, 2.0), np.float64(1.0)) == pytest.approx(0.4, rel=1e-15)
    assert _grads(lambda v: f(1.0, v), np.float64(2.0)) == pytest.approx(-0.2, rel=1e-15)


def test_logaddexp2_is_the_max_exactly_when_the_other_term_is_negligible():
    # fuzz seed 101, program 104: logaddexp2(0.345, 1.06e30) was an ulp below 1.06e30, so
    # its derivative exp2(y - out) overflowed to inf (jax: 1)
    for a, b in [(0.345, 1.0632719e30), (1.0, 3e38), (-2.0, 1e20)]:
        a32, b32 = np.float32(a), np.float32(b)
        assert float(jnp.logaddexp2(a32, b32)) == b32
        assert float(numlir.grad(jnp.logaddexp2, argnums=1)(a32, b32)) == 1.0
