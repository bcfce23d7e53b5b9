"""jax.lax functions added for API coverage, against jax.lax: values, dtypes and shapes,
eager and under jit, gradients where jax has them, and errors."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
from jax_comparison import assert_same as _assert_same
from jax_comparison import leaves as _leaves
from numlir import lax

R = np.random.default_rng(31)
F = R.standard_normal((3, 4)).astype(np.float32)
F1 = R.standard_normal(9).astype(np.float32)
I = R.integers(-50, 50, size=(3, 4)).astype(np.int32)

CASES = {
    "square": (lambda l, x: l.square(x), (F,)),
    "square_int": (lambda l, x: l.square(x), (I,)),
    "reciprocal": (lambda l, x: l.reciprocal(x), (F,)),
    "exp2": (lambda l, x: l.exp2(x), (F,)),
    "integer_pow_3": (lambda l, x: l.integer_pow(x, 3), (F,)),
    "integer_pow_neg": (lambda l, x: l.integer_pow(x, -2), (F,)),
    "integer_pow_0": (lambda l, x: l.integer_pow(x, 0), (I,)),
    "integer_pow_int": (lambda l, x: l.integer_pow(x, 5), (I,)),
    "full_like": (lambda l, x: l.full_like(x, 2.5), (F,)),
    "full_like_dtype_shape": (lambda l, x: l.full_like(x, 7, np.int32, (2, 5)), (F,)),
    "empty": (lambda l, x: l.empty((2, 3), np.float32) * 0 + x[0, 0], (F,)),
    "broadcast_to_rank": (lambda l, x: l.broadcast_to_rank(x, 4), (F,)),
    "collapse": (lambda l, x: l.collapse(x, 1), (np.zeros((2, 3, 4, 5), np.float32),)),
    "collapse_middle": (lambda l, x: l.collapse(x, 1, 3), (np.zeros((2, 3, 4, 5), np.float32),)),
    "tile": (lambda l, x: l.tile(x, (2, 3)), (F,)),
    "split": (lambda l, x: l.split(x, (1, 3), axis=1), (F,)),
    "unstack": (lambda l, x: l.unstack(x, axis=1), (F,)),
    "select_n_bool": (lambda l, x: l.select_n(x > 0, x, -x), (F,)),
    "select_n_int": (lambda l, w, x: l.select_n(w, x, 2 * x, 3 * x), (np.array([[0, 1, 2, 1]] * 3, np.int32), F)),
    "reduce_xor": (lambda l, x: l.reduce_xor(x, (1,)), (I,)),
    "reduce_xor_bool": (lambda l, x: l.reduce_xor(x > 0, (0, 1)), (F,)),
    "index_take": (lambda l, x: l.index_take(x, (np.array([0, 2, 1]), np.array([3, 0, 1])), (0, 1)), (F,)),
    "index_take_one_axis": (lambda l, x: l.index_take(x, (np.array([3, 0]),), (1,)), (F,)),
    "associative_scan_add": (lambda l, x: l.associative_scan(jjnp.add if l is jax.lax else numlir.numpy.add, x), (F1,)),
    "associative_scan_axis_reverse": (lambda l, x: l.associative_scan(
        jjnp.maximum if l is jax.lax else numlir.numpy.maximum, x, reverse=True, axis=1), (F,)),
    "associative_scan_pytree": (lambda l, x: l.associative_scan(
        lambda a, b: (a[0] + b[0], a[1] * b[1]), (x, x + 2.0)), (F1[:6],)),
    "cumlogsumexp": (lambda l, x: l.cumlogsumexp(x * 30), (F1,)),
    "cumlogsumexp_reverse": (lambda l, x: l.cumlogsumexp(x, axis=1, reverse=True), (F,)),
    "map": (lambda l, x: l.map(lambda r: (r.sum(), r * 2), x), (F,)),
    "map_batched": (lambda l, x: l.map(lambda r: r @ r.T, x, batch_size=2), (np.stack([F, F, F * 2]),)),
    "batch_matmul": (lambda l, a, b: l.batch_matmul(a, b), (np.stack([F, F]), np.stack([F.T, 2 * F.T]))),
    "approx_max_k": (lambda l, x: l.approx_max_k(x, 2), (F,)),
    "approx_min_k_dim0": (lambda l, x: l.approx_min_k(x, 2, reduction_dimension=0), (F,)),
    "scatter_sub": (lambda l, x: l.scatter_sub(
        x, np.array([[0], [2], [0]]), l.full_like(x, 1.0),
        l.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                  scatter_dims_to_operand_dims=(0,))), (F,)),
}


@pytest.mark.parametrize("name", CASES)
def test_matches_jax(name):
    fn, args = CASES[name]
    want = fn(jax.lax, *args)
    _assert_same(fn(lax, *[numlir.numpy.asarray(a) for a in args]), want)
    _assert_same(numlir.jit(lambda *a: fn(lax, *a))(*args), want)


@pytest.mark.parametrize("name", ["square", "reciprocal", "exp2", "integer_pow_neg", "select_n_int",
                                  "associative_scan_add", "cumlogsumexp_reverse", "map_batched",
                                  "batch_matmul", "index_take", "tile", "scatter_sub"])
def test_gradients_match_jax(name, x64):
    fn, args = CASES[name]
    args = [a.astype(np.float64) if a.dtype == np.float32 else a for a in args]
    i = next(k for k, a in enumerate(args) if a.dtype == np.float64)
    weights = [np.cos(np.arange(w.size) + 0.5).reshape(w.shape) for w in _leaves(fn(jax.lax, *args))]

    def loss(l):
        def f(x):
            full = list(args)
            full[i] = x
            return sum((o * w).sum() for o, w in zip(jax.tree_util.tree_leaves(fn(l, *full)), weights))
        return f

    # Under jit: eager mode would compile each of a scan's many small ops on its own.
    got = numlir.jit(numlir.grad(loss(lax)))(args[i])
    np.testing.assert_allclose(np.asarray(got), np.asarray(jax.jit(jax.grad(loss(jax.lax)))(args[i])),
                               rtol=1e-9, atol=1e-10)


def test_static_helpers_match_jax():
    assert lax.broadcast_shapes((2, 1), (3,)) == jax.lax.broadcast_shapes((2, 1), (3,))
    with pytest.raises(ValueError, match="Incompatible shapes"):
        lax.broadcast_shapes((2,), (3,))
    assert lax.dtype(1.0) == jax.lax.dtype(1.0) and lax.dtype(np.int8(1)) == np.int8
    assert lax.Precision("highest") is lax.Precision.HIGHEST and lax.Precision.DEFAULT.name == "DEFAULT"
    assert lax.platform_dependent(2.0, cpu=lambda x: x * 3, default=lambda x: x) == 6.0
    assert lax.platform_dependent(2.0, tpu=lambda x: x * 3, default=lambda x: -x) == -2.0
    assert lax.composite(lambda x: x + 1, "my.op")(1) == 2
    assert lax.dce_sink(5) == 5


def test_errors():
    with pytest.raises(ValueError, match="Sum of sizes"):
        lax.split(F, (1, 1), axis=1)
    with pytest.raises(ValueError, match="exactly 2 cases"):
        lax.select_n(F > 0, F, F, F)
    with pytest.raises(TypeError, match="select_n"):
        lax.select_n(F > 0, F, I)
    with pytest.raises(ValueError, match="equal batch dimensions"):
        lax.batch_matmul(np.ones((2, 3, 4), np.float32), np.ones((3, 4, 5), np.float32))
    with pytest.raises(NotImplementedError, match="no branch for platform 'cpu'"):
        lax.platform_dependent(1.0, tpu=lambda x: x)
