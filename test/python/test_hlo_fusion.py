"""hlo-fusion on whole programs: the groups it makes compute what the program did.

The lit tests (test/Transforms/hlo-fusion.mlir) pin the decisions on small
functions. Here real programs, traced by numlir with their gradients, go
through `hlo-fusion`; the fused module must verify, hold the fusion kinds the
program calls for, and compile (the CPU pipeline inlines the fusions) to the
same numbers as the module it came from.
"""

from __future__ import annotations


import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import _compiler, lax, nn
from numlir._src import backends

import fuzzer_modules

FUSION = "builtin.module(func.func(hlo-fusion))"


def _rng(seed=0):
    return np.random.default_rng(seed)


def softmax_rows():
    x = _rng().normal(size=(64, 33)).astype(np.float32)
    return (lambda x: nn.softmax(x, axis=1)), (x,), {"input": 1}


def layer_norm_with_gradients():
    r = _rng(1)
    x = r.normal(size=(16, 24)).astype(np.float32)
    g, b = r.normal(size=24).astype(np.float32), r.normal(size=24).astype(np.float32)

    def loss(x, g, b):
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        y = (x - mean) * lax.rsqrt(var + 1e-5) * g + b
        return (y * jnp.sin(y)).sum()

    return numlir.value_and_grad(loss, argnums=(0, 1, 2)), (x, g, b), {"input": 1}


def mlp_training_step():
    r = _rng(2)
    x = r.normal(size=(32, 20)).astype(np.float32)
    labels = np.eye(5, dtype=np.float32)[r.integers(0, 5, 32)]
    w1, b1 = (r.normal(size=(20, 16)) * 0.3).astype(np.float32), np.zeros(16, np.float32)
    w2, b2 = (r.normal(size=(16, 5)) * 0.3).astype(np.float32), np.zeros(5, np.float32)

    def loss(params, x, labels):
        (w1, b1), (w2, b2) = params
        h = nn.relu(x @ w1 + b1)
        logits = h @ w2 + b2
        return -(labels * nn.log_softmax(logits)).sum(axis=1).mean()

    def step(params, x, labels):
        value, grads = numlir.value_and_grad(loss)(params, x, labels)
        new = numlir.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
        return value, new

    return step, (((w1, b1), (w2, b2)), x, labels), {"output": 1, "input": 1}


def _conv_layer_inputs(seed):
    r = _rng(seed)
    x = r.normal(size=(2, 9, 9, 3)).astype(np.float32)
    k = (r.normal(size=(3, 3, 3, 4)) * 0.3).astype(np.float32)
    return x, k, r.normal(size=4).astype(np.float32)


def _conv_bias_relu(x, k, b):
    y = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return nn.relu(y + b)


def conv_bias_relu():
    return _conv_bias_relu, _conv_layer_inputs(7), {"output": 1}


def conv_bias_relu_with_gradients():
    def loss(x, k, b):
        return (_conv_bias_relu(x, k, b) ** 2).sum()

    # The loss's reduction roots the forward's group, so the convolution stays
    # apart and its bias, relu and square go into the sum (input fusion).
    return numlir.value_and_grad(loss, argnums=(0, 1, 2)), _conv_layer_inputs(3), {"input": 2}


def attention_with_gradients():
    r = _rng(4)
    q, k, v = (r.normal(size=(2, 8, 16)).astype(np.float32) for _ in range(3))

    def loss(q, k, v):
        scores = jnp.einsum("bqd,bkd->bqk", q, k) / 4.0
        return (jnp.einsum("bqk,bkd->bqd", nn.softmax(scores, axis=-1), v) ** 2).sum()

    return numlir.grad(loss, argnums=(0, 1, 2)), (q, k, v), {"input": 1}


def loop_of_dense_layers():
    r = _rng(5)
    x = r.normal(size=(4, 8)).astype(np.float32)
    w = (r.normal(size=(8, 8)) * 0.5).astype(np.float32)
    b = r.normal(size=8).astype(np.float32)

    def run(x, w, b):
        return lax.fori_loop(0, 5, lambda i, h: jnp.tanh(h @ w + b) * (i + 1.0), x)

    return run, (x, w, b), {"output": 1}


def integer_and_boolean_ops():
    r = _rng(6)
    a = r.integers(-50, 50, size=(6, 10)).astype(np.int32)
    m = r.normal(size=(6, 10)).astype(np.float32)

    def f(a, m):
        shifted = jnp.where(m > 0, a * 3 - 1, -a) // 2
        return shifted.sum(axis=0), jnp.abs(shifted).max(axis=1), (shifted % 7).astype(np.float32) * m

    return f, (a, m), {"input": 1}


PROGRAMS = {f.__name__: f for f in (softmax_rows, layer_norm_with_gradients, mlp_training_step,
                                    conv_bias_relu, conv_bias_relu_with_gradients,
                                    attention_with_gradients,
                                    loop_of_dense_layers, integer_and_boolean_ops)}


def _flat(args):
    return [np.asarray(leaf) for leaf in numlir.tree_util.tree_leaves(args)]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fused_programs_compute_what_the_programs_did(name):
    fn, args, kinds = PROGRAMS[name]()
    text = numlir.jit(fn).lower(*args).as_text()
    fused = _compiler.run_pipeline(text, FUSION)
    for kind, least in kinds.items():
        assert fused.count(f"hlo.fusion {kind} ") >= least, fused
    backend = backends.get_backend("cpu")
    inputs = _flat(args)
    expected = backend.compile(text, name="unfused").execute(inputs)
    got = backend.compile(fused, name="fused").execute(inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-6, atol=1e-6)


def test_fusing_twice_changes_nothing_more():
    fn, args, _ = mlp_training_step()
    fused = _compiler.run_pipeline(numlir.jit(fn).lower(*args).as_text(), FUSION)
    assert _compiler.run_pipeline(fused, FUSION) == _compiler.run_pipeline(
        _compiler.run_pipeline(fused, FUSION), FUSION)
    assert _compiler.run_pipeline(fused, FUSION).count("hlo.fusion") == fused.count("hlo.fusion")


def test_inlining_fusions_gives_back_a_module_without_them():
    fn, args, _ = layer_norm_with_gradients()
    fused = _compiler.run_pipeline(numlir.jit(fn).lower(*args).as_text(), FUSION)
    inlined = _compiler.run_pipeline(fused, "builtin.module(func.func(hlo-inline-fusions))")
    assert "hlo.fusion" in fused and "hlo.fusion" not in inlined


FUZZ_SEED, FUZZ_PROGRAMS, FUZZ_CHUNK = 21, 180, 30


@pytest.mark.parametrize("chunk", range(FUZZ_PROGRAMS // FUZZ_CHUNK))
def test_fuzzer_programs_compute_the_same_fused(chunk):
    """The differential fuzzer's random programs, jitted and jitted through vmap of grad,
    compiled fused and unfused: every output the same."""
    backend = backends.get_backend("cpu")
    compared = 0
    indices = range(chunk * FUZZ_CHUNK, (chunk + 1) * FUZZ_CHUNK)
    for where, text, arrays in fuzzer_modules.lowered_programs(FUZZ_SEED, indices):
        fused = _compiler.run_pipeline(text, FUSION)
        want = backend.compile(text, name="unfused").execute(arrays)
        got = backend.compile(fused, name="fused").execute(arrays)
        assert len(got) == len(want), where
        for g, w in zip(got, want):
            g, w = np.asarray(g), np.asarray(w)
            if np.issubdtype(w.dtype, np.inexact):
                np.testing.assert_allclose(g, w, rtol=1e-6, atol=0, equal_nan=True, err_msg=where)
            else:
                np.testing.assert_array_equal(g, w, err_msg=where)
        compared += 1
    assert compared >= FUZZ_CHUNK  # about two modes per program
