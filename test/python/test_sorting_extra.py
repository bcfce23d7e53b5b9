"""jnp.searchsorted / unique / quantile family / lexsort / partition against jax and NumPy."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

F32_NAN = np.array([-np.inf, -2.5, -0.0, 0.0, 1.0, 1.0, 3.0, np.inf, np.nan, np.nan], np.float32)


def check(got, want, exact=True):
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        if exact or g.dtype.kind != "f":
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=2e-6 if g.dtype == np.float32 else 1e-14, atol=0)


def both(f_numlir, f_jax, *args, exact=True):
    check(f_numlir(*args), f_jax(*args), exact)
    check(numlir.jit(f_numlir)(*args), jax.jit(f_jax)(*args), exact)


# --- searchsorted ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["scan", "scan_unrolled", "compare_all"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_nan_last_signed_zero_and_ties(side, method):
    v = np.array([[np.nan, 1.0, -0.0], [0.0, -np.inf, 7.0]], np.float32)
    both(lambda a, v: jnp.searchsorted(a, v, side=side, method=method),
         lambda a, v: jnp_ref.searchsorted(a, v, side=side, method=method), F32_NAN, v)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 64])
def test_searchsorted_sizes_and_scalar_query_match_numpy(n):
    a = np.sort(np.random.default_rng(n).integers(-5, 5, n)).astype(np.int32)
    v = np.arange(-6, 7, dtype=np.int32)
    for side in ("left", "right"):
        both(lambda a, v: jnp.searchsorted(a, v, side=side),
             lambda a, v: jnp_ref.searchsorted(a, v, side=side), a, v)
        check(jnp.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side).astype(np.int32))
    check(jnp.searchsorted(a, 3), jnp_ref.searchsorted(a, 3))  # 0-d query, weak Python scalar


def test_searchsorted_sorter_and_empty_query():
    a = np.array([3.0, 1.0, 2.0, 5.0], np.float32)
    sorter = np.argsort(a).astype(np.int32)
    v = np.array([2.0, 4.0], np.float32)
    both(lambda a, v, s: jnp.searchsorted(a, v, sorter=s),
         lambda a, v, s: jnp_ref.searchsorted(a, v, sorter=s), a, v, sorter)
    check(jnp.searchsorted(a, np.zeros((0, 3), np.float32)),
          jnp_ref.searchsorted(a, np.zeros((0, 3), np.float32)))


def test_searchsorted_f64_and_mixed_dtypes(x64):
    a = np.sort(np.random.default_rng(1).standard_normal(33))
    v = np.random.default_rng(2).standard_normal((3, 4))
    both(jnp.searchsorted, jnp_ref.searchsorted, a, v)
    ints = np.arange(10, dtype=np.int32)
    both(jnp.searchsorted, jnp_ref.searchsorted, ints, np.array([2.5, -1.0, 9.0]))


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
    check(f(x), g(x))


@pytest.mark.parametrize("dtype", [np.int32, np.bool_])
def test_unique_eager_ints_matches_numpy(dtype):
    x = np.random.default_rng(4).integers(0, 4, 17).astype(dtype)
    f, g = _unique_fns()
    check(f(x), g(x))
    want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for got, w in zip(f(x), want):
        np.testing.assert_array_equal(np.asarray(got), w)
    check(jnp.unique(x), g(x)[0])


@pytest.mark.parametrize("size,fill_value", [(3, None), (8, None), (8, -1)])
def test_unique_under_jit_with_size(size, fill_value):
    x = np.array([4, 1, 4, 2, 2, 7], np.int32)
    both(*_unique_fns(size=size, fill_value=fill_value), x)


def test_unique_rows_along_axis(x64):
    x = np.array([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0], [0.0, 1.0]])
    for axis in (0, 1):
        f, g = _unique_fns(axis=axis)
        check(f(x), g(x))
    both(*_unique_fns(axis=0, size=5, fill_value=9.0), x)


def test_unique_empty_and_scalar():
    f, g = _unique_fns()
    check(f(np.zeros((0,), np.float32)), g(np.zeros((0,), np.float32)))
    check(jnp.unique(np.float32(2.0)), jnp_ref.unique(np.float32(2.0)))
    check(jnp.unique(np.zeros((0,), np.int32), size=2, fill_value=5),
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
    both(lambda x, q: jnp.quantile(x, q, axis=1, method=method),
         lambda x, q: jnp_ref.quantile(x, q, axis=1, method=method), x, q, exact=False)
    check(jnp.quantile(x, q, axis=1, method=method),
          np.quantile(x, q, axis=1, method=method).astype(np.float32), exact=False)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (0, True), ((0, 2), False),
                                           ((2, 0), True), (-1, False)])
def test_quantile_axes_keepdims_3d(axis, keepdims):
    x = np.random.default_rng(6).integers(0, 9, (2, 3, 4)).astype(np.int32)
    both(lambda x: jnp.quantile(x, 0.3, axis=axis, keepdims=keepdims),
         lambda x: jnp_ref.quantile(x, 0.3, axis=axis, keepdims=keepdims), x, exact=False)


def test_median_and_nan_variants():
    x = np.random.default_rng(7).choice(F32_NAN[1:-3], (3, 6))
    x[0, 2] = np.nan
    x[2, :] = np.nan
    for f, g in [(jnp.median, jnp_ref.median), (jnp.nanmedian, jnp_ref.nanmedian)]:
        both(lambda x: f(x, axis=1), lambda x: g(x, axis=1), x, exact=False)
    q = np.array([10.0, 50.0, 95.0], np.float32)
    for f, g in [(jnp.percentile, jnp_ref.percentile), (jnp.nanpercentile, jnp_ref.nanpercentile),
                 (jnp.nanquantile, jnp_ref.nanquantile)]:
        qq = q if "percentile" in f.__name__ else q / 100
        both(lambda x, q: f(x, q, axis=-1, method="linear"),
             lambda x, q: g(x, q, axis=-1, method="linear"), x, qq, exact=False)
    check(jnp.nanmedian(x[:2], axis=1), np.nanmedian(x[:2], axis=1).astype(np.float32), exact=False)


def test_median_scalar_and_f64(x64):
    check(jnp.median(np.float64(3.0)), jnp_ref.median(np.float64(3.0)))
    x = np.random.default_rng(8).standard_normal((5, 4))
    both(lambda x: jnp.quantile(x, 0.4, axis=0), lambda x: jnp_ref.quantile(x, 0.4, axis=0), x,
         exact=False)
    both(jnp.median, jnp_ref.median, x.astype(np.int32), exact=False)


def test_quantile_bad_method():
    with pytest.raises(ValueError, match="method"):
        jnp.quantile(np.ones(3), 0.5, method="bogus")


# --- lexsort, msort, partition -------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, -1])
def test_lexsort_two_keys_with_nans(axis):
    rng = np.random.default_rng(9)
    k1 = rng.choice(F32_NAN, (4, 5))
    k2 = rng.integers(0, 2, (4, 5)).astype(np.int32)
    both(lambda a, b: jnp.lexsort([a, b], axis=axis),
         lambda a, b: jnp_ref.lexsort([a, b], axis=axis), k1, k2)
    ints = [rng.integers(0, 3, (4, 5)) for _ in range(3)]
    check(jnp.lexsort(ints, axis=axis), np.lexsort(ints, axis=axis).astype(np.int32))


def test_lexsort_scalar_and_msort(x64):
    check(jnp.lexsort([np.int32(3)]), jnp_ref.lexsort([np.int32(3)]))
    x = np.random.default_rng(10).standard_normal((4, 3))
    both(jnp.msort, lambda x: jnp_ref.sort(x, axis=0), x)


@pytest.mark.parametrize("kth", [0, 3, -1])
def test_partition_and_argpartition(kth):
    rng = np.random.default_rng(11)
    x = rng.permutation(24).reshape(2, 12).astype(np.float32)
    both(lambda x: jnp.partition(x, kth), lambda x: jnp_ref.partition(x, kth), x)
    both(lambda x: jnp.argpartition(x, kth), lambda x: jnp_ref.argpartition(x, kth), x)
    ints = rng.integers(0, 4, (5, 3)).astype(np.int32)  # ties
    both(lambda x: jnp.partition(x, kth, axis=0), lambda x: jnp_ref.partition(x, kth, axis=0), ints)
    both(lambda x: jnp.argpartition(x, kth, axis=0), lambda x: jnp_ref.argpartition(x, kth, axis=0),
         ints)
