"""More jax.numpy functions against jax: data-dependent sizes (eager, and under jit with
size=), sets, polynomials, index arithmetic, histograms, gradient, unwrap, vectorize,
dtype queries and host I/O."""

import io

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
from jax_comparison import assert_same as _assert_same
from jax_comparison import leaves as _leaves
import numlir.numpy as jnp

R = np.random.default_rng(23)
F = R.standard_normal((3, 4)).astype(np.float32)
F1 = R.standard_normal(9).astype(np.float32)
M = np.array([[0, 2, 0], [3, 0, 0], [0, 0, 5]], np.int32)
A = np.array([5, 1, 3, 3, 7, 1, 9], np.int32)
B = np.array([3, 4, 9, 9, 0], np.int32)

EAGER = {
    "nonzero": lambda np_: np_.nonzero(M),
    "flatnonzero": lambda np_: np_.flatnonzero(M),
    "argwhere": lambda np_: np_.argwhere(M),
    "compress": lambda np_: np_.compress(np.array([True, False, True]), F, axis=0),
    "compress_flat_short": lambda np_: np_.compress(np.array([False, True, True]), F),
    "extract": lambda np_: np_.extract(F > 0, F),
    "unique_values": lambda np_: np_.unique_values(A),
    "unique_counts": lambda np_: tuple(np_.unique_counts(A)),
    "unique_inverse": lambda np_: tuple(np_.unique_inverse(A.reshape(7, 1))),
    "unique_all": lambda np_: tuple(np_.unique_all(A)),
    "union1d": lambda np_: np_.union1d(A, B),
    "intersect1d": lambda np_: np_.intersect1d(A, B),
    "setdiff1d": lambda np_: np_.setdiff1d(A, B),
    "setxor1d": lambda np_: np_.setxor1d(A, B),
    "trim_zeros": lambda np_: np_.trim_zeros(np.array([0, 0, 1, 0, 2, 0])),
    "trim_zeros_front": lambda np_: np_.trim_zeros(np.array([0, 0, 1, 0, 2, 0]), "f"),
    "trim_zeros_all": lambda np_: np_.trim_zeros(np.zeros(3)),
}

JIT_SIZED = {
    "nonzero": (lambda np_, m: np_.nonzero(m, size=5, fill_value=-1), (M,)),
    "nonzero_truncated": (lambda np_, m: np_.nonzero(m, size=2), (M,)),
    "flatnonzero": (lambda np_, m: np_.flatnonzero(m, size=4), (M,)),
    "argwhere": (lambda np_, m: np_.argwhere(m, size=4, fill_value=9), (M,)),
    "compress": (lambda np_, c, x: np_.compress(c, x, axis=1, size=3, fill_value=-7.0), (np.array([1, 0, 1, 1]), F)),
    "extract": (lambda np_, x: np_.extract(x > 0, x, size=6), (F,)),
    "unique_values": (lambda np_, a: np_.unique_values(a, size=6, fill_value=0), (A,)),
    "unique_counts": (lambda np_, a: tuple(np_.unique_counts(a, size=5)), (A,)),
    "union1d": (lambda np_, a, b: np_.union1d(a, b, size=9, fill_value=-1), (A, B)),
    "setdiff1d": (lambda np_, a, b: np_.setdiff1d(a, b, size=4, fill_value=-1), (A, B)),
    "intersect1d": (lambda np_, a, b: np_.intersect1d(a, b, size=3, fill_value=-1), (A, B)),
}

CASES = {
    "polyval": (lambda np_, p, x: np_.polyval(p, x), (F1[:4], F1)),
    "polyadd": (lambda np_, p, q: np_.polyadd(p, q), (F1[:4], F1[:2])),
    "polysub": (lambda np_, p, q: np_.polysub(p, q), (F1[:2], F1[:5])),
    "polymul": (lambda np_, p, q: np_.polymul(p, q), (F1[:3], F1[3:5])),
    "polyder": (lambda np_, p: np_.polyder(p, 2), (F1[:5],)),
    "polyint": (lambda np_, p: np_.polyint(p, 2, k=np.array([1.0, -2.0], np.float32)), (F1[:3],)),
    "poly": (lambda np_, r: np_.poly(r), (F1[:4],)),
    "ix_": (lambda np_, a, b: np_.ix_(a, b), (A, B)),
    "ravel_multi_index_wrap": (lambda np_, i, j: np_.ravel_multi_index((i, j), (4, 6), mode="wrap"), (A[:5], B)),
    "ravel_multi_index_clip_F": (lambda np_, i, j: np_.ravel_multi_index((i, j), (4, 6), mode="clip", order="F"),
                                 (A[:5], B)),
    "unravel_index": (lambda np_, i: np_.unravel_index(i, (3, 4)), (np.array([0, 5, 11, -1, 40, -30], np.int32),)),
    "resize": (lambda np_, a: np_.resize(a, (4, 5)), (F,)),
    "block": (lambda np_, a, b: np_.block([[a, b], [b, a]]), (F[:2, :2], F[:2, 2:])),
    "block_1d": (lambda np_, a, b: np_.block([a, b]), (F1, F1[:2])),
    "choose_wrap": (lambda np_, i, x: np_.choose(i, [x, 2 * x, -x], mode="wrap"), (np.array([0, 4, 2, -1]), F1[:4])),
    "choose_clip_broadcast": (lambda np_, i: np_.choose(i, [np.arange(3), 10], mode="clip"), (np.array([[0], [1], [5]]),)),
    "piecewise": (lambda np_, x: np_.piecewise(x, [x < 0, x > 1], [lambda v: -v, 5.0, lambda v: v * v]), (F1,)),
    "gradient": (lambda np_, f: np_.gradient(f), (F,)),
    "gradient_axis_spacing": (lambda np_, f: np_.gradient(f, 0.5, axis=1), (F,)),
    "gradient_coordinates": (lambda np_, f: np_.gradient(f, np.array([0.0, 0.5, 2.0, 2.5], np.float32), axis=-1), (F,)),
    "unwrap": (lambda np_, p: np_.unwrap(p), (np.cumsum(np.abs(F1) * 2).astype(np.float32),)),
    "unwrap_period": (lambda np_, p: np_.unwrap(p, period=4.0, discont=1.5), (np.cumsum(F1 * 3).astype(np.float32),)),
    "histogram_bin_edges": (lambda np_, a: np_.histogram_bin_edges(a, 5), (F1,)),
    "histogram": (lambda np_, a: np_.histogram(a, 4, range=(-2.0, 2.0)), (F1,)),
    "histogram_weights_density": (lambda np_, a, w: np_.histogram(a, 3, weights=w, density=True), (F1, np.abs(F1))),
    "histogram_edges": (lambda np_, a: np_.histogram(a, np.array([-3.0, -1.0, 0.0, 3.0], np.float32)), (F1,)),
    "vectorize": (lambda np_, a, b: np_.vectorize(lambda x, y: np_.where(x > y, x, y * 2))(a, b), (F, F1[:4])),
    "vectorize_signature": (lambda np_, a: np_.vectorize(lambda v: (v.sum(), v.max()), signature="(n)->(),()")(a), (F,)),
    "apply_along_axis": (lambda np_, a: np_.apply_along_axis(lambda v: v.cumsum()[::-1], 0, a), (F,)),
    "apply_along_axis_last": (lambda np_, a: np_.apply_along_axis(lambda v: v @ v, 1, a), (np.stack([F, F]),)),
    "apply_over_axes": (lambda np_, a: np_.apply_over_axes(np_.sum, a, [0, 2]), (np.stack([F, F]),)),
}


@pytest.mark.parametrize("name", EAGER)
def test_data_dependent_size_eagerly(name):
    _assert_same(EAGER[name](jnp), EAGER[name](jjnp))


@pytest.mark.parametrize("name", JIT_SIZED)
def test_static_size_under_jit(name):
    fn, args = JIT_SIZED[name]
    _assert_same(numlir.jit(lambda *a: fn(jnp, *a))(*args), jax.jit(lambda *a: fn(jjnp, *a))(*args))


def test_a_traced_size_without_size_names_the_fix():
    with pytest.raises(numlir.ConcretizationTypeError, match="pass size="):
        numlir.jit(jnp.nonzero)(M)
    with pytest.raises(numlir.ConcretizationTypeError, match="pass size="):
        numlir.jit(lambda a, b: jnp.setdiff1d(a, b))(A, B)


@pytest.mark.parametrize("name", CASES)
def test_function_matches_jax(name):
    fn, args = CASES[name]
    want = fn(jjnp, *args)
    _assert_same(fn(jnp, *[jnp.asarray(a) for a in args]), want)
    _assert_same(numlir.jit(lambda *a: fn(jnp, *a))(*args), want)


@pytest.mark.parametrize("name", ["polyval", "polymul", "poly", "gradient_coordinates", "piecewise", "unwrap",
                                  "block", "resize", "apply_along_axis", "vectorize_signature"])
def test_gradients_match_jax(name, x64):
    fn, args = CASES[name]
    args = [a.astype(np.float64) if a.dtype == np.float32 else a for a in args]
    weights = [np.sin(np.arange(w.size) + 1.0).reshape(w.shape) for w in _leaves(fn(jjnp, *args))]

    def loss(np_):
        return lambda x: sum((o * w).sum() for o, w in zip(jax.tree_util.tree_leaves(fn(np_, x, *args[1:])), weights))

    np.testing.assert_allclose(np.asarray(numlir.grad(loss(jnp))(args[0])),
                               np.asarray(jax.grad(loss(jjnp))(args[0])), rtol=1e-9, atol=1e-10)


def test_extract_and_compress_are_differentiable_in_the_values():
    got = numlir.grad(lambda x: (jnp.extract(x > 0, x, size=5) ** 2).sum())(F)
    want = jax.grad(lambda x: (jjnp.extract(x > 0, x, size=5) ** 2).sum())(F)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_dtype_aliases_and_queries_match_jax():
    for name in ("double", "single", "float_", "int_", "uint"):
        assert np.dtype(getattr(jnp, name)) == np.dtype(getattr(jjnp, name)), name
    for name in ("character", "flexible", "object_"):
        assert getattr(jnp, name) is getattr(jjnp, name)
    for dtype in (np.int8, np.uint32, np.float32, np.bool_):
        for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating", "numeric",
                     ("bool", "real floating"), np.float32):
            assert jnp.isdtype(dtype, kind) == jjnp.isdtype(dtype, kind), (dtype, kind)
    for a, b in [(np.int32, np.float32), (np.int8, np.int16), (np.float32, np.int32), (np.float64, np.float32)]:
        assert jnp.can_cast(a, b) == jjnp.can_cast(a, b)
    assert jnp.can_cast(np.float64, np.float32, casting="same_kind")


def test_host_io_round_trips(tmp_path):
    x = jnp.asarray(F)
    path = tmp_path / "x.npy"
    jnp.save(path, x)
    np.testing.assert_array_equal(np.asarray(jnp.load(path)), F)
    buf = io.BytesIO()
    jnp.savez(buf, a=x, b=jnp.arange(3))
    buf.seek(0)
    with np.load(buf) as archive:
        np.testing.assert_array_equal(archive["a"], F)
    np.testing.assert_array_equal(np.asarray(jnp.frombuffer(F.tobytes(), dtype=np.float32)), F.ravel())
    np.testing.assert_array_equal(np.asarray(jnp.fromstring("1 2 3", dtype=np.int32, sep=" ")), [1, 2, 3])
    np.testing.assert_array_equal(np.asarray(jnp.fromiter(range(4), np.int32)), np.arange(4))
    assert jnp.array_repr(jnp.arange(3)).startswith("Array([0, 1, 2]")
    assert jnp.array_str(jnp.arange(3)) == "[0 1 2]"
    with jnp.printoptions(precision=2):
        assert jnp.get_printoptions()["precision"] == 2
    path_ = jnp.einsum_path("ij,jk,kl->il", np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5)))
    assert path_[0][0] == "einsum_path"


def test_bad_arguments():
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        jnp.ravel_multi_index((np.array([5]), np.array([0])), (4, 6))
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        jnp.choose(np.array([3]), [np.zeros(1), np.ones(1)])
    with pytest.raises(ValueError, match="either 2 or 3 functions"):
        jnp.piecewise(F1, [F1 > 0, F1 < 0], [1.0])
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        jnp.vectorize(lambda v: v, signature="n->()")
