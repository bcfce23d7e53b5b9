"""nn.dot_product_attention against jax.nn.dot_product_attention: grouped heads, bias, masks,
causal and windowed attention, padding lengths, the residual, gradients and bad input."""

import jax
import ml_dtypes
import numpy as np
import pytest

import numlir
from numlir import nn

RNG = np.random.default_rng(5)


def _qkv(B=2, T=5, S=6, N=4, K=2, H=8, dtype=np.float32, batched=True):
    shape = lambda L, heads: ((B,) if batched else ()) + (L, heads, H)  # noqa: E731
    return [RNG.standard_normal(shape(L, heads)).astype(dtype) for L, heads in ((T, N), (S, K), (S, K))]


def _compare(kwargs_np, args, tol=2e-5, **extra):
    def call(lib_nn, *a):
        return lib_nn.dot_product_attention(*a, **kwargs_np, **extra)

    want = jax.tree_util.tree_leaves(call(jax.nn, *args))
    for fn in (lambda *a: call(nn, *a), numlir.jit(lambda *a: call(nn, *a))):
        got = jax.tree_util.tree_leaves(fn(*args))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol, atol=tol)


CASES = {
    "plain": {},
    "scale": {"scale": 0.3},
    "causal": {"is_causal": True},
    "window_int": {"local_window_size": 1},
    "window_pair": {"local_window_size": (2, 0)},
    "causal_window": {"is_causal": True, "local_window_size": (1, 1)},
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("heads", [(4, 4), (4, 2), (3, 1)], ids=["mha", "gqa", "mqa"])
def test_attention_matches_jax(name, heads):
    N, K = heads
    _compare(CASES[name], _qkv(N=N, K=K))


def test_bias_and_mask_broadcast_over_batch_and_heads():
    q, k, v = _qkv()
    bias = RNG.standard_normal((1, 4, 5, 6)).astype(np.float32)
    mask = RNG.uniform(size=(2, 1, 5, 6)) > 0.3
    mask[:, :, :, 0] = True  # no fully masked row
    _compare({}, (q, k, v, bias, mask))
    _compare({}, (q, k, v, RNG.standard_normal((2, 4, 5, 6)).astype(np.float32)))


def test_sequence_lengths_mask_padding_and_zero_padded_query_rows():
    q, k, v = _qkv()
    lengths = {"query_seq_lengths": np.array([3, 5], np.int32),
               "key_value_seq_lengths": np.array([6, 2], np.int32)}
    _compare(lengths, (q, k, v))
    _compare({"key_value_seq_lengths": np.array([1, 4], np.int32)}, (q, k, v), is_causal=True)


def test_unbatched_inputs_and_the_residual():
    _compare({}, _qkv(batched=False))
    _compare({"return_residual": True}, _qkv(), is_causal=True)
    _compare({"return_residual": True}, _qkv(batched=False))


def test_bfloat16_computes_the_softmax_in_float32():
    _compare({}, _qkv(dtype=ml_dtypes.bfloat16), tol=3e-2)
    _compare({"is_causal": True}, _qkv(dtype=ml_dtypes.bfloat16, N=4, K=1), tol=3e-2)


def test_float64_under_x64(x64):
    # float64 logits, but the softmax runs in float32, in jax as here.
    _compare({"is_causal": True, "scale": 0.2}, _qkv(dtype=np.float64), tol=2e-6)


def test_gradients_match_jax():
    q, k, v = _qkv(N=4, K=2)
    bias = RNG.standard_normal((1, 1, 5, 6)).astype(np.float32)
    weights = RNG.standard_normal((2, 5, 4, 8)).astype(np.float32)

    def loss(lib_nn):
        return lambda q, k, v, b: (lib_nn.dot_product_attention(q, k, v, b, is_causal=True) * weights).sum()

    got = numlir.jit(numlir.grad(loss(nn), argnums=(0, 1, 2, 3)))(q, k, v, bias)
    want = jax.jit(jax.grad(loss(jax.nn), argnums=(0, 1, 2, 3)))(q, k, v, bias)
    # The float32 softmax bounds the agreement (and rules out finite differences).
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)


def test_vmap_over_a_leading_axis():
    q, k, v = (np.stack([t, t * 0.5]) for t in _qkv())
    got = numlir.vmap(lambda a, b, c: nn.dot_product_attention(a, b, c, is_causal=True))(q, k, v)
    want = jax.jit(jax.vmap(lambda a, b, c: jax.nn.dot_product_attention(a, b, c, is_causal=True)))(q, k, v)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("change,message", [
    (lambda q, k, v: (q, k[:, :4], v), "key .* and value .* must have the same shape"),
    (lambda q, k, v: (q[..., :3, :], k, v), "3 query heads are not a multiple of 2"),
    (lambda q, k, v: (q[0], k, v), "rank 3"),
    (lambda q, k, v: (q, k.astype(np.float16), v), "same dtype"),
])
def test_bad_shapes_are_named(change, message):
    with pytest.raises(ValueError, match=message):
        nn.dot_product_attention(*change(*_qkv()))


def test_bad_options_are_named():
    q, k, v = _qkv()
    with pytest.raises(ValueError, match="implementation='cudnn'"):
        nn.dot_product_attention(q, k, v, implementation="cudnn")
    with pytest.raises(ValueError, match="mask must be boolean"):
        nn.dot_product_attention(q, k, v, mask=np.ones((2, 4, 5, 6), np.float32))
    with pytest.raises(ValueError, match=r"query_seq_lengths must be an integer array of shape \(2,\)"):
        nn.dot_product_attention(q, k, v, query_seq_lengths=np.array([1, 2, 3]))
