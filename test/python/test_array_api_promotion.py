"""Result types of the array API standard's functions on mixed and narrow integers, and the
empty matrices its linear algebra accepts, against jax.numpy (and the standard where jax
departs from it: cumulative_prod)."""

import jax.numpy as jax_jnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

NARROW = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float16", "float32",
          "complex64"]


@pytest.mark.parametrize("dtype", NARROW)
def test_vecdot_has_the_promoted_type_of_its_operands_not_sums_widened_one(dtype):
    x = np.array([1, 0, 1], dtype)
    got, want = jnp.vecdot(x, x), jax_jnp.vecdot(x, x)
    assert got.dtype == want.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("d1,d2", [("uint8", "int8"), ("uint16", "int8"), ("uint8", "uint16"),
                                   ("int8", "bool"), ("uint32", "int32")])
def test_vecdot_of_mixed_integers_promotes_as_jax(d1, d2):
    x1, x2 = np.ones((2, 3), d1), np.ones((3,), d2)
    got = jnp.vecdot(x1, x2)
    want = jax_jnp.vecdot(x1, x2)
    assert got.dtype == want.dtype
    assert got.shape == (2,)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_vecdot_of_unsigned_wraps_in_its_own_type():
    """uint8 products and sums wrap modulo 256, as jax's: 2 * 200 * 200 = 80000 = 128 mod 256."""
    x = np.full(2, 200, np.uint8)
    assert int(jnp.vecdot(x, x)) == int(jax_jnp.vecdot(x, x)) == 128


def test_vecdot_of_bools_is_any_of_both():
    a, b = np.array([True, False, False]), np.array([False, True, False])
    assert jnp.vecdot(a, b).dtype == np.bool_
    assert not bool(jnp.vecdot(a, b))
    assert bool(jnp.vecdot(a, a | b))


def test_vecdot_conjugates_the_first_operand_and_takes_preferred_element_type():
    x1, x2 = np.array([1 + 2j, 3j], np.complex64), np.array([1j, 1], np.complex64)
    np.testing.assert_allclose(np.asarray(jnp.vecdot(x1, x2)), np.vdot(x1, x2))
    got = jnp.vecdot(np.ones(3, np.int8), np.ones(3, np.int8), preferred_element_type=np.float32)
    assert got.dtype == np.float32 and float(got) == 3.0


@pytest.mark.parametrize("d1,d2", [("uint8", "int8"), ("uint8", "uint8"), ("uint16", "int32"),
                                   ("int8", "int16")])
def test_tensordot_of_mixed_integers_promotes_as_jax(d1, d2):
    a, b = np.ones((2, 3), d1), np.ones((3, 4), d2)
    got, want = jnp.tensordot(a, b, axes=1), jax_jnp.tensordot(a, b, axes=1)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "int32",
                                   "uint32", "float16", "float32"])
@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("n", [0, 3])
def test_cumulative_sum_accumulates_in_sums_type(dtype, include_initial, n):
    """Narrow ints widen to the default int, narrow unsigned ints to the default uint, also
    for an empty input led by the initial 0 (numlir kept uint8 there)."""
    x = np.ones(n, dtype)
    got = jnp.cumulative_sum(x, include_initial=include_initial)
    want = jax_jnp.cumulative_sum(x, include_initial=include_initial)
    assert got.dtype == want.dtype == jnp.sum(x).dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("dtype,want", [("uint8", "uint32"), ("uint16", "uint32"),
                                        ("int8", "int32"), ("bool", "int32"),
                                        ("uint32", "uint32"), ("float16", "float16")])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_prod_accumulates_in_prods_type_as_the_standard_says(dtype, want,
                                                                        include_initial):
    """The standard gives cumulative_prod prod's accumulation type; jax keeps uint8 and int8
    (as its cumprod), so here numlir follows the standard instead of jax."""
    x = np.array([2, 3, 1], dtype) if dtype != "bool" else np.array([True, True, False])
    got = jnp.cumulative_prod(x, include_initial=include_initial)
    assert got.dtype == np.dtype(want) == jnp.prod(x).dtype
    expected = np.cumprod(x.astype(want))
    if include_initial:
        expected = np.concatenate([[1], expected]).astype(want)
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_cumulative_sum_of_uint8_does_not_wrap_at_256():
    x = np.full(3, 200, np.uint8)
    np.testing.assert_array_equal(np.asarray(jnp.cumulative_sum(x, include_initial=True)),
                                  [0, 200, 400, 600])


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 2, 2)])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_inv_solve_and_det_of_empty_matrices_are_jaxs(shape, mode):
    """An empty (0, 0) matrix is its own LU factorization: inv and solve give empty arrays and
    det 1, as jax (the pivot search raised on its empty column)."""
    a = np.zeros(shape, np.float32)
    wrap = numlir.jit if mode == "jit" else (lambda f: f)
    for name, args in (("inv", (a,)), ("solve", (a, a)), ("det", (a,))):
        got = np.asarray(wrap(getattr(jnp.linalg, name))(*args))
        want = np.asarray(getattr(jax_jnp.linalg, name)(*args))
        assert got.shape == want.shape and got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("rtol", [None, 0.9])
def test_matrix_rank_takes_one_rtol_per_matrix_of_a_stack(rtol):
    """An rtol array of the batch shape gives each matrix its own tolerance relative to its
    largest singular value, as the standard and NumPy say (numlir broadcast it against the
    singular values' axis and raised; jax reads rtol as an absolute tolerance)."""
    x = np.random.default_rng(0).normal(size=(5, 3, 5)).astype(np.float32)
    per_matrix = None if rtol is None else np.linspace(0.1, rtol, 5).astype(np.float32)
    got = np.asarray(jnp.linalg.matrix_rank(x, rtol=per_matrix))
    np.testing.assert_array_equal(got, np.linalg.matrix_rank(x, rtol=per_matrix))
    if rtol is not None:
        assert len(set(got.tolist())) > 1  # the tolerances do differ between the matrices
        np.testing.assert_array_equal(np.asarray(jnp.linalg.matrix_rank(x, rtol=rtol)),
                                      np.linalg.matrix_rank(x, rtol=rtol))
