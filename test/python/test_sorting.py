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


# --- searchsorted, lexsort, partition, quantiles, unique -----------------------------------------
# jnp.searchsorted / unique / quantile family / lexsort / partition against jax and NumPy.


F32_NAN = np.array([-np.inf, -2.5, -0.0, 0.0, 1.0, 1.0, 3.0, np.inf, np.nan, np.nan], np.float32)


def check_leaves(got, want, exact=True):
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        if exact or g.dtype.kind != "f":
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=2e-6 if g.dtype == np.float32 else 1e-14, atol=0)


def both_modes(f_numlir, f_jax, *args, exact=True):
    check_leaves(f_numlir(*args), f_jax(*args), exact)
    check_leaves(numlir.jit(f_numlir)(*args), jax.jit(f_jax)(*args), exact)


# --- searchsorted ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["scan", "scan_unrolled", "compare_all"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_nan_last_signed_zero_and_ties(side, method):
    v = np.array([[np.nan, 1.0, -0.0], [0.0, -np.inf, 7.0]], np.float32)
    both_modes(lambda a, v: jnp.searchsorted(a, v, side=side, method=method),
         lambda a, v: jnp_ref.searchsorted(a, v, side=side, method=method), F32_NAN, v)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 64])
def test_searchsorted_sizes_and_scalar_query_match_numpy(n):
    a = np.sort(np.random.default_rng(n).integers(-5, 5, n)).astype(np.int32)
    v = np.arange(-6, 7, dtype=np.int32)
    for side in ("left", "right"):
        both_modes(lambda a, v: jnp.searchsorted(a, v, side=side),
             lambda a, v: jnp_ref.searchsorted(a, v, side=side), a, v)
        check_leaves(jnp.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side).astype(np.int32))
    check_leaves(jnp.searchsorted(a, 3), jnp_ref.searchsorted(a, 3))  # 0-d query, weak Python scalar


def test_searchsorted_sorter_and_empty_query():
    a = np.array([3.0, 1.0, 2.0, 5.0], np.float32)
    sorter = np.argsort(a).astype(np.int32)
    v = np.array([2.0, 4.0], np.float32)
    both_modes(lambda a, v, s: jnp.searchsorted(a, v, sorter=s),
         lambda a, v, s: jnp_ref.searchsorted(a, v, sorter=s), a, v, sorter)
    check_leaves(jnp.searchsorted(a, np.zeros((0, 3), np.float32)),
          jnp_ref.searchsorted(a, np.zeros((0, 3), np.float32)))


def test_searchsorted_f64_and_mixed_dtypes(x64):
    a = np.sort(np.random.default_rng(1).standard_normal(33))
    v = np.random.default_rng(2).standard_normal((3, 4))
    both_modes(jnp.searchsorted, jnp_ref.searchsorted, a, v)
    ints = np.arange(10, dtype=np.int32)
    both_modes(jnp.searchsorted, jnp_ref.searchsorted, ints, np.array([2.5, -1.0, 9.0]))


def test_searchsorted_rejects_2d():
    with pytest.raises(ValueError, match="1-dimensional"):
        jnp.searchsorted(np.zeros((2, 2)), 1.0)


# --- unique ---------------------------------------------------------------------------------


def _unique_fns(**kw):
    flags = dict(return_index=True, return_inverse=True, return_counts=True)
    return (lambda x: jnp.unique(x, **flags, **kw)), (lambda x: jnp_ref.unique(x, **flags, **kw))


@pytest.mark.parametrize("equal_nan", [True, False])
def test_unique_eager_floats_with_nans(equal_nan):
    x = np.random.default_rng(3).choice(F32_NAN, (3, 5))
    f, g = _unique_fns(equal_nan=equal_nan)
    check_leaves(f(x), g(x))


@pytest.mark.parametrize("dtype", [np.int32, np.bool_])
def test_unique_eager_ints_matches_numpy(dtype):
    x = np.random.default_rng(4).integers(0, 4, 17).astype(dtype)
    f, g = _unique_fns()
    check_leaves(f(x), g(x))
    want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for got, w in zip(f(x), want):
        np.testing.assert_array_equal(np.asarray(got), w)
    check_leaves(jnp.unique(x), g(x)[0])


@pytest.mark.parametrize("size,fill_value", [(3, None), (8, None), (8, -1)])
def test_unique_under_jit_with_size(size, fill_value):
    x = np.array([4, 1, 4, 2, 2, 7], np.int32)
    both_modes(*_unique_fns(size=size, fill_value=fill_value), x)


def test_unique_rows_along_axis(x64):
    x = np.array([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0], [0.0, 1.0]])
    for axis in (0, 1):
        f, g = _unique_fns(axis=axis)
        check_leaves(f(x), g(x))
    both_modes(*_unique_fns(axis=0, size=5, fill_value=9.0), x)


def test_unique_empty_and_scalar():
    f, g = _unique_fns()
    check_leaves(f(np.zeros((0,), np.float32)), g(np.zeros((0,), np.float32)))
    check_leaves(jnp.unique(np.float32(2.0)), jnp_ref.unique(np.float32(2.0)))
    check_leaves(jnp.unique(np.zeros((0,), np.int32), size=2, fill_value=5),
          jnp_ref.unique(np.zeros((0,), np.int32), size=2, fill_value=5))


def test_unique_under_jit_without_size_raises():
    with pytest.raises(numlir.ConcretizationTypeError,
                       match="specify a concrete value for the size argument"):
        numlir.jit(jnp.unique)(np.arange(3))


# --- quantile family -----------------------------------------------------------------------


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_methods_vector_q(method):
    x = np.random.default_rng(5).standard_normal((4, 7)).astype(np.float32)
    q = np.array([0.0, 0.1, 0.5, 0.77, 1.0], np.float32)
    both_modes(lambda x, q: jnp.quantile(x, q, axis=1, method=method),
         lambda x, q: jnp_ref.quantile(x, q, axis=1, method=method), x, q, exact=False)
    check_leaves(jnp.quantile(x, q, axis=1, method=method),
          np.quantile(x, q, axis=1, method=method).astype(np.float32), exact=False)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (0, True), ((0, 2), False),
                                           ((2, 0), True), (-1, False)])
def test_quantile_axes_keepdims_3d(axis, keepdims):
    x = np.random.default_rng(6).integers(0, 9, (2, 3, 4)).astype(np.int32)
    both_modes(lambda x: jnp.quantile(x, 0.3, axis=axis, keepdims=keepdims),
         lambda x: jnp_ref.quantile(x, 0.3, axis=axis, keepdims=keepdims), x, exact=False)


def test_median_and_nan_variants():
    x = np.random.default_rng(7).choice(F32_NAN[1:-3], (3, 6))
    x[0, 2] = np.nan
    x[2, :] = np.nan
    for f, g in [(jnp.median, jnp_ref.median), (jnp.nanmedian, jnp_ref.nanmedian)]:
        both_modes(lambda x: f(x, axis=1), lambda x: g(x, axis=1), x, exact=False)
    q = np.array([10.0, 50.0, 95.0], np.float32)
    for f, g in [(jnp.percentile, jnp_ref.percentile), (jnp.nanpercentile, jnp_ref.nanpercentile),
                 (jnp.nanquantile, jnp_ref.nanquantile)]:
        qq = q if "percentile" in f.__name__ else q / 100
        both_modes(lambda x, q: f(x, q, axis=-1, method="linear"),
             lambda x, q: g(x, q, axis=-1, method="linear"), x, qq, exact=False)
    check_leaves(jnp.nanmedian(x[:2], axis=1), np.nanmedian(x[:2], axis=1).astype(np.float32), exact=False)


def test_median_scalar_and_f64(x64):
    check_leaves(jnp.median(np.float64(3.0)), jnp_ref.median(np.float64(3.0)))
    x = np.random.default_rng(8).standard_normal((5, 4))
    both_modes(lambda x: jnp.quantile(x, 0.4, axis=0), lambda x: jnp_ref.quantile(x, 0.4, axis=0), x,
         exact=False)
    both_modes(jnp.median, jnp_ref.median, x.astype(np.int32), exact=False)


def test_quantile_bad_method():
    with pytest.raises(ValueError, match="method"):
        jnp.quantile(np.ones(3), 0.5, method="bogus")


# --- lexsort, msort, partition -------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, -1])
def test_lexsort_two_keys_with_nans(axis):
    rng = np.random.default_rng(9)
    k1 = rng.choice(F32_NAN, (4, 5))
    k2 = rng.integers(0, 2, (4, 5)).astype(np.int32)
    both_modes(lambda a, b: jnp.lexsort([a, b], axis=axis),
         lambda a, b: jnp_ref.lexsort([a, b], axis=axis), k1, k2)
    ints = [rng.integers(0, 3, (4, 5)) for _ in range(3)]
    check_leaves(jnp.lexsort(ints, axis=axis), np.lexsort(ints, axis=axis).astype(np.int32))


def test_lexsort_scalar_and_msort(x64):
    check_leaves(jnp.lexsort([np.int32(3)]), jnp_ref.lexsort([np.int32(3)]))
    x = np.random.default_rng(10).standard_normal((4, 3))
    both_modes(jnp.msort, lambda x: jnp_ref.sort(x, axis=0), x)


@pytest.mark.parametrize("kth", [0, 3, -1])
def test_partition_and_argpartition(kth):
    rng = np.random.default_rng(11)
    x = rng.permutation(24).reshape(2, 12).astype(np.float32)
    both_modes(lambda x: jnp.partition(x, kth), lambda x: jnp_ref.partition(x, kth), x)
    both_modes(lambda x: jnp.argpartition(x, kth), lambda x: jnp_ref.argpartition(x, kth), x)
    ints = rng.integers(0, 4, (5, 3)).astype(np.int32)  # ties
    both_modes(lambda x: jnp.partition(x, kth, axis=0), lambda x: jnp_ref.partition(x, kth, axis=0), ints)
    both_modes(lambda x: jnp.argpartition(x, kth, axis=0), lambda x: jnp_ref.argpartition(x, kth, axis=0),
         ints)
