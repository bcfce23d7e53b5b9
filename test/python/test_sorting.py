"""lax.sort / sort_key_val / top_k and jnp.sort / argsort against jax, eager and under jit."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

SPECIAL = np.array([0.0, -0.0, np.nan, -np.nan, 1.0, -np.inf, np.inf, -0.0, 2.5, -1.0, np.nan, 1.0],
                   np.float32)


def check(got, want):
    got_leaves = jax.tree_util.tree_leaves(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
        if g.dtype.kind == "f":  # bitwise: -0.0 and NaN sign included
            np.testing.assert_array_equal(g.view(f"u{g.itemsize}"), w.view(f"u{w.itemsize}"))
        else:
            np.testing.assert_array_equal(g, w)


def both(f_numlir, f_jax, *args):
    check(f_numlir(*args), f_jax(*args))
    check(numlir.jit(f_numlir)(*args), jax.jit(f_jax)(*args))


def test_sort_floats_nan_last_and_signed_zeros_stable():
    iota = np.arange(SPECIAL.size, dtype=np.int32)
    both(lambda k, v: lax.sort((k, v), num_keys=1), lambda k, v: jax.lax.sort((k, v), num_keys=1),
         SPECIAL, iota)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_, np.int8, np.float16])
def test_sort_dtypes(dtype):
    rng = np.random.default_rng(0)
    x = (rng.integers(-100, 100, 37) if dtype != np.bool_ else rng.integers(0, 2, 37)).astype(dtype)
    both(lax.sort, jax.lax.sort, x)


@pytest.mark.parametrize("dimension", [0, 1, -1])
def test_sort_along_axes_of_2d(dimension):
    x = np.random.default_rng(1).integers(0, 5, (6, 7)).astype(np.float32)
    both(lambda x: lax.sort(x, dimension=dimension), lambda x: jax.lax.sort(x, dimension=dimension), x)


def test_sort_multiple_keys_and_payload():
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, 40).astype(np.int32)
    b = rng.choice(SPECIAL, 40)
    c = np.arange(40, dtype=np.int32)
    both(lambda a, b, c: lax.sort((a, b, c), num_keys=2),
         lambda a, b, c: jax.lax.sort((a, b, c), num_keys=2), a, b, c)


def test_sort_key_val_ties_keep_order():
    keys = np.array([2, 1, 2, 1, 0, 2], np.int32)
    vals = np.arange(6, dtype=np.float32)
    both(lax.sort_key_val, jax.lax.sort_key_val, keys, vals)


def test_sort_size_0_and_1():
    both(lax.sort, jax.lax.sort, np.zeros((0,), np.float32))
    both(lax.sort, jax.lax.sort, np.ones((3, 1), np.float32))


def test_sort_errors():
    with pytest.raises(TypeError, match="one shape"):
        lax.sort((np.zeros(3), np.zeros(4)))
    with pytest.raises(ValueError, match="num_keys=3"):
        lax.sort((np.zeros(3), np.zeros(3)), num_keys=3)


@pytest.mark.parametrize("k", [0, 1, 4, 6])
def test_top_k_nan_first_ties_by_index(k):
    x = np.array([1.0, np.nan, 3.0, 3.0, -np.inf, 0.0], np.float32)
    both(lambda x: lax.top_k(x, k), lambda x: jax.lax.top_k(x, k), x)


def test_top_k_batched_ints():
    x = np.random.default_rng(3).integers(-5, 5, (3, 8)).astype(np.int32)
    both(lambda x: lax.top_k(x, 3), lambda x: jax.lax.top_k(x, 3), x)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("descending", [False, True])
def test_jnp_sort_and_argsort(axis, descending):
    x = np.random.default_rng(4).choice(SPECIAL, (4, 6))
    both(lambda x: jnp.sort(x, axis=axis, descending=descending),
         lambda x: jnp_ref.sort(x, axis=axis, descending=descending), x)
    both(lambda x: jnp.argsort(x, axis=axis, descending=descending),
         lambda x: jnp_ref.argsort(x, axis=axis, descending=descending), x)


def test_argsort_is_stable_for_ints():
    x = np.array([3, 1, 3, 1, 2, 2, 3], np.int64)
    both(jnp.argsort, jnp_ref.argsort, x)


def test_sort_100k_elements():
    x = np.random.default_rng(5).standard_normal(100_000).astype(np.float32)
    check(jnp.sort(x), np.sort(x))
