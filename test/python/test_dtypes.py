"""Type promotion: the lattice, weak types and canonicalization, checked against jax."""

import itertools

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir._src import dtypes

ALL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64, np.float16, dtypes.bfloat16, np.float32, np.float64, np.complex64,
              np.complex128]


def _out_aval(fn, *args):
    return numlir.make_graph(fn)(*args).out_avals[0]


@pytest.mark.parametrize("enable_x64", [False, True])
def test_promote_types_matches_jax_for_every_pair(enable_x64, request):
    if enable_x64:
        request.getfixturevalue("x64")
    for a, b in itertools.product(ALL_DTYPES, repeat=2):
        assert dtypes.promote_types(a, b) == jnp_ref.promote_types(a, b), (a, b)


def test_promote_types_is_exported_from_numpy_namespace():
    assert jnp.promote_types(np.int8, np.uint8) == np.int16
    assert jnp.promote_types(np.float16, dtypes.bfloat16) == np.float32


STRONG = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.float16, dtypes.bfloat16,
          np.float32, np.complex64]
SCALARS = [True, 3, 2.5, 1.5 - 2j]


@pytest.mark.parametrize("dtype", STRONG, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("scalar", SCALARS, ids=lambda s: type(s).__name__)
def test_python_scalars_are_weak_and_do_not_upcast_arrays(dtype, scalar):
    x = np.ones((2,), dtype)
    ref = jnp_ref.add(jnp_ref.asarray(x), scalar)
    got = _out_aval(lambda a: jnp.add(a, scalar), x)
    assert (got.dtype, got.weak_type) == (ref.dtype, ref.weak_type)


@pytest.mark.parametrize("a,b", list(itertools.product(STRONG, repeat=2)),
                         ids=lambda d: np.dtype(d).name)
def test_array_promotion_matches_jax_results(a, b):
    x, y = np.ones((2,), a), np.ones((2,), b)
    ref = jnp_ref.add(jnp_ref.asarray(x), jnp_ref.asarray(y))
    got = _out_aval(jnp.add, x, y)
    assert (got.dtype, got.weak_type) == (ref.dtype, ref.weak_type)


def test_weak_type_survives_scalar_only_arithmetic():
    got = _out_aval(lambda: jnp.asarray(1.0) * 2)
    ref = jnp_ref.asarray(1.0) * 2
    assert (got.dtype, got.weak_type) == (ref.dtype, ref.weak_type) == (np.float32, True)


def test_weak_float_with_int_array_gives_weak_float32():
    got = _out_aval(lambda x: x + 1.0, np.arange(3, dtype=np.int32))
    ref = jnp_ref.arange(3) + 1.0
    assert (got.dtype, got.weak_type) == (ref.dtype, ref.weak_type)


def test_64_bit_inputs_are_canonicalized_to_32_bit_without_x64():
    avals = numlir.make_graph(lambda *a: a)(np.ones(2), np.ones(2, np.int64), np.ones(2, np.uint64)).in_avals
    assert [a.dtype for a in avals] == [np.float32, np.int32, np.uint32]
    assert _out_aval(lambda: jnp.asarray(1.5)).dtype == np.float32


def test_x64_keeps_64_bit_types(x64):
    avals = numlir.make_graph(lambda *a: a)(np.ones(2), np.ones(2, np.int64)).in_avals
    assert [a.dtype for a in avals] == [np.float64, np.int64]
    assert _out_aval(lambda: jnp.asarray(1.5)).dtype == np.float64
    assert _out_aval(lambda x: x + 1, np.ones(2, np.int32)).dtype == np.int32


def test_x64_is_switched_by_the_jax_flag_name():
    assert not numlir.config.flags.enable_x64
    numlir.config.update("jax_enable_x64", True)
    try:
        assert dtypes.default_float_dtype() == np.float64
    finally:
        numlir.config.update("jax_enable_x64", False)
    assert dtypes.default_float_dtype() == np.float32


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.bool_, np.float32],
                         ids=lambda d: np.dtype(d).name)
def test_true_divide_of_ints_gives_float(dtype):
    x = np.ones((2,), dtype)
    ref = jnp_ref.true_divide(x, x)
    assert _out_aval(jnp.true_divide, x, x).dtype == ref.dtype


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.float16],
                         ids=lambda d: np.dtype(d).name)
def test_sum_and_mean_accumulator_dtypes_match_jax(dtype):
    x = np.ones((3,), dtype)
    assert _out_aval(jnp.sum, x).dtype == jnp_ref.sum(x).dtype
    assert _out_aval(jnp.mean, x).dtype == jnp_ref.mean(x).dtype


def test_unsupported_dtype_is_a_clear_type_error():
    with pytest.raises(TypeError, match="longdouble|float128"):
        numlir.make_graph(lambda x: x)(np.ones(2, np.longdouble))


@pytest.mark.parametrize("enable_x64", [False, True])
def test_weak_python_complex_promotes_as_in_jax(enable_x64, request):
    if enable_x64:
        request.getfixturevalue("x64")
    for dtype in ALL_DTYPES:
        x = np.ones((2,), dtype)
        for scalar in (1j, 2.0, 3):
            ref = jnp_ref.add(jnp_ref.asarray(x), scalar)
            got = _out_aval(lambda a: jnp.add(a, scalar), x)
            assert (got.dtype, got.weak_type) == (ref.dtype, ref.weak_type), (dtype, scalar)
        ref = jnp_ref.asarray(1j) * 2.0
        got = _out_aval(lambda: jnp.asarray(1j) * 2.0)
        assert (got.dtype, got.weak_type) == (ref.dtype, ref.weak_type)


def test_complex128_is_canonicalized_to_complex64_without_x64():
    assert dtypes.canonicalize_dtype(np.complex128) == np.complex64
    assert _out_aval(lambda x: x, np.ones(2, np.complex128)).dtype == np.complex64


def test_jax_is_the_oracle_with_x64_off():
    assert not jax.config.jax_enable_x64


def test_numlir_enable_x64_environment_variable():
    import os
    import subprocess
    import sys

    code = ("import numpy as np, numlir, numlir.numpy as jnp;"
            "print(numlir.make_graph(lambda: jnp.asarray(1.5))().out_avals[0].dtype)")
    env = dict(os.environ, NUMLIR_ENABLE_X64="1", PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "float64", out.stderr



# --- integer -> float promotion by width, and index dtypes, under x64 (found by the fuzzer) ---


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64",
                                   "uint64", "float16", "bfloat16"])
def test_x64_integer_to_inexact_promotion_follows_width_as_in_jax(x64, dtype):
    a_np = np.ones(3, dtype=np.dtype(getattr(jnp_ref, dtype)))
    for name, fn in {
        "true_divide": lambda m, a: a / a,
        "sqrt": lambda m, a: m.sqrt(a),
        "mean": lambda m, a: m.mean(a),
        "var": lambda m, a: m.var(a),
        "sin": lambda m, a: m.sin(a),
        "scalar_multiply": lambda m, a: a * 1.0,
    }.items():
        got = fn(jnp, jnp.asarray(a_np)).dtype
        expected = fn(jnp_ref, jnp_ref.asarray(a_np)).dtype
        assert got == expected, (name, dtype, got, expected)


def test_x64_argsort_returns_the_default_int_as_in_jax(x64):
    x = np.array([3.0, 1.0, 2.0])
    assert jnp.argsort(jnp.asarray(x)).dtype == jnp_ref.argsort(x).dtype == np.int64


def test_jnp_bool_names_the_bool_dtype_as_in_jax():
    x = jnp.asarray(np.array([0.0, 2.0], np.float32))
    assert jnp.bool is jnp.bool_
    assert x.astype(jnp.bool).dtype == jnp_ref.asarray(np.array([0.0, 2.0])).astype(jnp_ref.bool).dtype
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x, dtype=jnp.bool)), [False, True])


@pytest.mark.parametrize("enable_x64", [False, True])
@pytest.mark.parametrize("int_dtype", [np.int8, np.uint8, np.int32])
def test_power_of_a_float_to_a_strong_integer_array_is_strong_as_in_jax(enable_x64, int_dtype,
                                                                         request):
    """jax raises an inexact base to an integer array without promoting the exponent, so the
    result is weakly typed only where both operands are (found by scipy.special.sph_harm_y,
    whose (-1.0) ** |m| was a weak float64 under x64)."""
    if enable_x64:
        request.getfixturevalue("x64")
    n = np.array([1, 2, 3], int_dtype)
    cases = [lambda m: (-1.0) ** m.asarray(n), lambda m: m.power(2.0, m.asarray(n)),
             lambda m: m.power(m.asarray(np.float16(2)), m.asarray(n)),
             lambda m: m.asarray(n) ** 2.0, lambda m: m.power(2.5, 3)]
    for case in cases:
        got, want = case(jnp), case(jnp_ref)
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
