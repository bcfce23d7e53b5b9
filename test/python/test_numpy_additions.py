"""jax.numpy functions added for API coverage, against jax.numpy: insert, put,
put_along_axis, place, packbits/unpackbits, i0 and kaiser, fromfunction,
mask_indices, fromfile, histogramdd/histogram2d, polydiv, the ufunc class and
frompyfunc; and the index dtypes and one-argument where that the same sweep found
wrong. Values, dtypes and shapes, eager and under jit where the function allows it."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from jax_comparison import assert_same

R = np.random.default_rng(7)
M = np.arange(12.0).reshape(3, 4).astype(np.float32)


def _both(fn, *args, tol=1e-6, jit=True):
    want = fn(jjnp, *args)
    assert_same(fn(jnp, *args), want, tol)
    if jit:
        assert_same(numlir.jit(lambda *a: fn(jnp, *a))(*args), want, tol)


INSERT_CASES = {
    "indices_with_repeats": (np.arange(6), np.array([1, 1, 5, -1]), np.array([9, 8, 7, 6]), None),
    "slice": (np.arange(6), slice(1, 4), 0, None),
    "flattened_scalar": (np.arange(6).reshape(2, 3), 1, 5, None),
    "block_of_columns": (M, 3, np.array([[1.0, 2, 3], [4, 5, 6]]), 1),
    "one_column_from_indices": (M, np.array([4]), np.array([[1.0, 2, 3]]).T, 1),
    "row": (M, 0, np.array([7.0, 8, 9, 10]), 0),
    "negative_axis_and_position": (M, -1, 2.5, -1),
    "two_positions": (M, np.array([0, 2]), np.array([[1.0], [2.0], [3.0]]), 1),
}


@pytest.mark.parametrize("name", INSERT_CASES)
def test_insert_matches_jax(name):
    arr, obj, values, axis = INSERT_CASES[name]
    _both(lambda m, a, v: m.insert(a, obj, v, axis=axis), arr, np.asarray(values))


def test_insert_errors():
    with pytest.raises(IndexError, match="out of bounds"):
        jnp.insert(np.arange(3), 5, 1)
    with pytest.raises(TypeError, match="concrete"):
        numlir.jit(lambda i: jnp.insert(np.arange(3), i, 1))(1)


@pytest.mark.parametrize("mode", [None, "clip", "wrap"])
def test_put_matches_jax(mode):
    _both(
        lambda m, a: m.put(
            a, np.array([1, 9, -1]), np.array([10.0, 20.0]), mode=mode, inplace=False
        ),
        np.arange(6.0),
    )
    _both(lambda m, a: m.put(a, np.array([[1], [4]]), 7, mode=mode, inplace=False), M)


def test_put_along_axis_and_place_match_jax():
    _both(
        lambda m, a: m.put_along_axis(a, np.array([[2], [0], [1]]), 9.0, axis=1, inplace=False), M
    )
    _both(lambda m, a: m.put_along_axis(a, np.array([5, 0]), 9.0, axis=None, inplace=False), M)
    cube = np.arange(24.0).reshape(2, 3, 4)
    _both(
        lambda m, a: m.put_along_axis(
            a,
            np.array([[[1, 3]], [[0, 0]]]),
            np.arange(4.0).reshape(2, 1, 2),
            axis=2,
            inplace=False,
        ),
        cube,
    )
    mask = np.array([[0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 0, 1]], bool)
    _both(lambda m, a, k: m.place(a, k, np.array([7.0, 8.0]), inplace=False), M, mask)
    _both(
        lambda m, a: m.place(a, a > 2, np.array([-1, -2, -3]), inplace=False),
        np.arange(6).reshape(2, 3),
    )


@pytest.mark.parametrize("fn", ["put", "put_along_axis", "place"])
def test_in_place_writers_refuse_inplace(fn):
    args = {
        "put": (M, 0, 1.0),
        "put_along_axis": (M, np.zeros((3, 1), int), 1.0, 1),
        "place": (M, M > 1, 1.0),
    }[fn]
    with pytest.raises(ValueError, match="inplace=False"):
        getattr(jnp, fn)(*args)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits_and_unpackbits_match_jax(axis, bitorder):
    bits = R.integers(0, 2, (3, 13)).astype(bool)
    _both(lambda m, b: m.packbits(b, axis=axis, bitorder=bitorder), bits)
    _both(lambda m, b: m.packbits(b, axis=axis, bitorder=bitorder), bits.astype(np.int32) * 3)
    words = R.integers(0, 256, (3, 4)).astype(np.uint8)
    for count in (None, 5, -3, 40, 0):
        _both(lambda m, w: m.unpackbits(w, axis=axis, count=count, bitorder=bitorder), words)
    roundtrip = jnp.unpackbits(
        jnp.packbits(bits, axis=axis, bitorder=bitorder),
        axis=axis,
        bitorder=bitorder,
        count=bits.size if axis is None else bits.shape[axis],
    )
    np.testing.assert_array_equal(
        np.asarray(roundtrip), bits.astype(np.uint8).reshape(np.asarray(roundtrip).shape)
    )


def test_bit_packing_rejects_other_dtypes():
    with pytest.raises(TypeError, match="packbits"):
        jnp.packbits(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="unpackbits"):
        jnp.unpackbits(np.ones(3, np.int32))


def test_i0_kaiser_fromfunction_and_mask_indices_match_jax(x64):
    _both(lambda m, x: m.i0(x), np.linspace(-30, 30, 61), tol=1e-12)
    _both(lambda m, x: m.i0(x), np.arange(5), tol=1e-12)
    for points in (0, 1, 2, 7, 12):
        assert_same(jnp.kaiser(points, 5.0), jjnp.kaiser(points, 5.0), 1e-12)
    assert_same(
        jnp.fromfunction(lambda i, j: i * 10 + j, (3, 4)),
        jjnp.fromfunction(lambda i, j: i * 10 + j, (3, 4)),
    )
    assert_same(
        jnp.fromfunction(lambda i: i * 2, (4,), dtype=int),
        jjnp.fromfunction(lambda i: i * 2, (4,), dtype=int),
    )
    for k in (0, 1, -1):
        assert_same(jnp.mask_indices(4, jnp.triu, k), jjnp.mask_indices(4, jjnp.triu, k))
        assert_same(jnp.mask_indices(4, jnp.tril, k), jjnp.mask_indices(4, jjnp.tril, k))
    np.testing.assert_allclose(
        np.asarray(numlir.grad(lambda x: jnp.i0(x))(1.5)),
        np.asarray(jax.jit(jax.grad(jjnp.i0))(1.5)),
        rtol=1e-12,
    )


def test_fromfile_reads_on_the_host(tmp_path):
    path = tmp_path / "values.bin"
    np.arange(6.0, dtype=np.float32).tofile(path)
    got = jnp.fromfile(path, dtype=np.float32)
    assert isinstance(got, jnp.ndarray)
    np.testing.assert_array_equal(np.asarray(got), np.arange(6.0, dtype=np.float32))


SAMPLE = R.standard_normal((50, 3)).astype(np.float32)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(bins=(3, 4, 2)),
        dict(bins=[np.array([-1.0, 0, 1]), 3, 2], range=[None, (-2, 2), None], density=True),
        dict(bins=4, weights=SAMPLE[:, 0]),
    ],
)
def test_histogramdd_matches_jax(kwargs):
    _both(lambda m, s: m.histogramdd(s, **kwargs), SAMPLE)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(bins=5, weights=SAMPLE[:, 2]),
        dict(bins=[3, 6], density=True),
        dict(bins=np.linspace(-2, 2, 5)),
        dict(bins=[np.linspace(-2, 2, 5), 4], range=[None, [-1, 1]]),
    ],
)
def test_histogram2d_matches_jax(kwargs):
    _both(lambda m, x, y: m.histogram2d(x, y, **kwargs), SAMPLE[:, 0], SAMPLE[:, 1])


@pytest.mark.parametrize(
    "u, v, trim",
    [
        ([1.0, 2, 3, 4], [2.0, 1], False),
        ([1.0, 2, 3, 4], [2.0, 1], True),
        ([1, 2, 3], [1.0, 2, 3, 4, 5], False),
        ([1, 3, 3, 1], [1, 1], True),
        ([6.0, 5, 1], [3.0], False),
        ([1.0, 1e-5, 3, 1], [1, 0, 1], True),
    ],
)
def test_polydiv_matches_jax(u, v, trim):
    _both(
        lambda m, a, b: m.polydiv(a, b, trim_leading_zeros=trim),
        np.array(u),
        np.array(v),
        jit=not trim,
    )


# --- ufunc and frompyfunc -------------------------------------------------------------------


def _muladd(m):
    return m.frompyfunc(lambda a, b: a * b + 1, 2, 1)


def _weighted(m):
    return m.frompyfunc(lambda a, b: a + 2 * b, 2, 1, identity=0)


def _square_less_one(m):
    return m.frompyfunc(lambda a: a * a - 1, 1, 1)


X = np.arange(1.0, 5.0, dtype=np.float32)

UFUNC_CASES = {
    "call": lambda m, x, a: _muladd(m)(x, 2.0),
    "call_unary": lambda m, x, a: _square_less_one(m)(a),
    "reduce": lambda m, x, a: _muladd(m).reduce(x),
    "reduce_axis1": lambda m, x, a: _muladd(m).reduce(a, axis=1),
    "reduce_all_with_identity": lambda m, x, a: _weighted(m).reduce(a, axis=None),
    "reduce_keepdims_initial": lambda m, x, a: _weighted(m).reduce(
        a, axis=0, keepdims=True, initial=5.0
    ),
    "reduce_where": lambda m, x, a: _weighted(m).reduce(a, axis=1, where=a > 3),
    "accumulate": lambda m, x, a: _muladd(m).accumulate(x),
    "accumulate_axis1": lambda m, x, a: _muladd(m).accumulate(a, axis=1),
    "outer": lambda m, x, a: _muladd(m).outer(x[:2], a),
    "at_repeated_indices": lambda m, x, a: _muladd(m).at(
        x, np.array([0, 0, 1]), 3.0, inplace=False
    ),
    "at_rows": lambda m, x, a: _muladd(m).at(a, np.array([2, 0, 2]), np.float32(3), inplace=False),
    "at_unary": lambda m, x, a: _square_less_one(m).at(
        a, (np.array([0, 0, 2]), np.array([1, 1, 3])), inplace=False
    ),
}


@pytest.mark.parametrize("name", UFUNC_CASES)
def test_ufunc_methods_match_jax(name):
    _both(UFUNC_CASES[name], X, M)


def test_ufunc_reduceat_and_attributes_match_jax():
    for m_args in ((X, np.array([0, 2])), (M, np.array([0, 2, 1]), 1)):
        assert_same(_muladd(jnp).reduceat(*m_args), _muladd(jjnp).reduceat(*m_args))
    for attr in ("nin", "nout", "nargs", "identity"):
        assert getattr(_weighted(jnp), attr) == getattr(_weighted(jjnp), attr), attr
    assert repr(_muladd(jnp)) == "<jnp.ufunc '<lambda>'>"
    with pytest.raises(ValueError, match="binary ufuncs"):
        _square_less_one(jnp).reduce(X)
    with pytest.raises(ValueError, match="no identity"):
        _muladd(jnp).reduce(np.zeros((0,), np.float32))
    with pytest.raises(NotImplementedError, match="inplace=False"):
        _muladd(jnp).at(X, 0, 1.0)


# --- found on the way: index dtypes and the one-argument where ----------------------------------

A = np.array([[0, 3, 1], [2, 0, 5]])
INDEX_CASES = {
    "nonzero": lambda m: m.nonzero(A),
    "argwhere": lambda m: m.argwhere(A),
    "flatnonzero": lambda m: m.flatnonzero(A),
    "nonzero_sized": lambda m: m.nonzero(A, size=6, fill_value=-1),
    "tril_indices": lambda m: m.tril_indices(3),
    "triu_indices_from": lambda m: m.triu_indices_from(A),
    "diag_indices": lambda m: m.diag_indices(3),
    "where_one_argument": lambda m: m.where(A),
    "where_one_argument_sized": lambda m: m.where(A > 1, size=5),
    "histogram_counts_of_floats": lambda m: m.histogram(A.astype(np.float32)),
    "histogram_counts_of_ints": lambda m: m.histogram(A),
    "tri": lambda m: m.tri(3),
}


@pytest.mark.parametrize("name", INDEX_CASES)
@pytest.mark.parametrize("x64_enabled", [False, True])
def test_index_results_have_jax_dtypes(name, x64_enabled, request):
    if x64_enabled:
        request.getfixturevalue("x64")
    assert_same(INDEX_CASES[name](jnp), INDEX_CASES[name](jjnp))


def test_three_argument_where_takes_no_size():
    with pytest.raises(ValueError, match="size and fill_value"):
        jnp.where(A > 0, 1, 2, size=3)
    with pytest.raises(TypeError, match="both x and y"):
        jnp.where(A > 0, 1)


def test_shift_operators_on_arrays_match_jax():
    a = np.array([5, -8, 3, 40], np.int32)
    for expression in ("x >> 1", "x << 2", "3 << x % 4", "16 >> (x % 3 + 3)", "x >> np.int32(2)"):
        got = eval(expression, {"x": jnp.asarray(a), "np": np})
        want = eval(expression, {"x": jjnp.asarray(a), "np": np})
        assert_same(got, want)
