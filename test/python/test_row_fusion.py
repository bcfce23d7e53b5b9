"""cpu-fuse-row-loops on whole programs: row tiles give the same bits as whole ops.

The pass runs each run of row-local ops (softmax, layer norm, their gradients)
a few rows at a time. Every element is still computed by the same operations
in the same order, so a program compiled with the pass on every run
(min-bytes 0) must give what it gives with the pass off, for any thread count,
ragged row counts included: integers exactly, floats to a few ulps of the
output's scale, because float sums marked `reassoc` (as hlo.reduce's are) may
be vectorized by LLVM in another order once their loops are tiles (seed 22,
program 39 differs in the last bit). The lit tests
(test/Backends/CPU/cpu-fuse-row-loops.mlir) pin which ops join a run.
"""

from __future__ import annotations

import dataclasses
import re

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import _compiler, nn
from numlir._src import backends

import fuzzer_modules

ON, OFF = 0, -1  # min-bytes: fuse every run, fuse none


def _rng(seed):
    return np.random.default_rng(seed)


def _layer_norm(np_):
    def loss(x, g, b):
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        y = (x - mean) * (1.0 / np_.sqrt(var + 1e-5)) * g + b
        return (y * np_.sin(y)).sum()
    return loss


def softmax_rows(np_, nn_):
    x = _rng(0).normal(size=(67, 33)).astype(np.float32)  # 67 rows: ragged chunks
    return (lambda x: nn_.softmax(x, axis=1)), (x,)


def log_softmax_cross_entropy(np_, nn_):
    r = _rng(1)
    logits = r.normal(size=(40, 17)).astype(np.float32)
    labels = np.eye(17, dtype=np.float32)[r.integers(0, 17, 40)]

    def loss(logits, labels):
        return -(labels * nn_.log_softmax(logits)).sum(axis=1)
    return loss, (logits, labels)


def layer_norm_with_gradients(np_, nn_):
    r = _rng(2)
    x = r.normal(size=(30, 24)).astype(np.float32)
    g, b = r.normal(size=24).astype(np.float32), r.normal(size=24).astype(np.float32)
    grad = numlir.value_and_grad if np_ is jnp else jax.value_and_grad
    return grad(_layer_norm(np_), argnums=(0, 1, 2)), (x, g, b)


def layer_norm_float64(np_, nn_):
    r = _rng(3)
    x = r.normal(size=(9, 50))
    g, b = r.normal(size=50), r.normal(size=50)
    return _layer_norm(np_), (x, g, b)


def attention_softmax_with_gradients(np_, nn_):
    r = _rng(4)
    q, k, v = (r.normal(size=(5, 8, 16)).astype(np.float32) for _ in range(3))

    def loss(q, k, v):
        scores = np_.einsum("bqd,bkd->bqk", q, k) / 4.0
        return (np_.einsum("bqk,bkd->bqd", nn_.softmax(scores, axis=-1), v) ** 2).sum()
    grad = numlir.grad if np_ is jnp else jax.grad
    return grad(loss, argnums=(0, 1, 2)), (q, k, v)


def standardize_then_bias_and_tanh(np_, nn_):
    r = _rng(5)
    x = r.normal(size=(21, 31)).astype(np.float32)
    b = r.normal(size=31).astype(np.float32)

    def f(x, b):
        centred = x - x.max(axis=1, keepdims=True)
        scaled = centred / (np_.abs(centred).sum(axis=1, keepdims=True) + 1.0)
        return np_.tanh(scaled + b), np_.exp(scaled).sum(axis=1)
    return f, (x, b)


def integer_row_ops(np_, nn_):
    r = _rng(6)
    a = r.integers(-1000, 1000, size=(13, 19)).astype(np.int32)

    def f(a):
        shifted = a - a.min(axis=1, keepdims=True)
        return shifted * 3 // (shifted.max(axis=1, keepdims=True) + 1), (shifted % 5).sum(axis=1)
    return f, (a,)


def bfloat16_softmax(np_, nn_):
    x = _rng(7).normal(size=(12, 40)).astype(np.float32)
    return (lambda x: nn_.softmax(x.astype(np_.bfloat16), axis=-1).astype(np_.float32)), (x,)


PROGRAMS = {f.__name__: f for f in (softmax_rows, log_softmax_cross_entropy,
                                    layer_norm_with_gradients, layer_norm_float64,
                                    attention_softmax_with_gradients,
                                    standardize_then_bias_and_tanh, integer_row_ops,
                                    bfloat16_softmax)}

X64_PROGRAMS = {"layer_norm_float64"}


def _compile(text, threads, min_bytes, name):
    backend = backends.get_backend("cpu")
    options = dataclasses.replace(backend.parse_options(), threads=threads,
                                  row_fusion_min_bytes=min_bytes)
    return backend.compile(text, options=options, name=name)


def _fused_prefix(linalg_text: str, threads: int) -> str:
    """The module after bufferization and cpu-fuse-row-loops (fusing every run)."""
    pipeline = _compiler.pipeline_text("hlo-cpu-to-llvm")
    end = re.search(r"cpu-fuse-row-loops(\{[^}]*\})?", pipeline)
    prefix = pipeline[:end.start()] + f"cpu-fuse-row-loops{{threads={threads} min-bytes=0}}"
    prefix += ")" * (prefix.count("(") - prefix.count(")"))  # close the open func.func(
    return _compiler.run_pipeline(linalg_text, f"builtin.module({prefix})")


def _flat(args):
    return [np.asarray(leaf) for leaf in numlir.tree_util.tree_leaves(args)]


def _same_values(got, want, where):
    """Integers and booleans bit for bit; floats to 16 ulps of the output's largest value."""
    assert len(got) == len(want), where
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, where
        if not np.issubdtype(w.dtype, np.inexact) and w.dtype.name != "bfloat16":
            np.testing.assert_array_equal(g, w, err_msg=where)
            continue
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        finite = np.isfinite(w64)
        np.testing.assert_array_equal(np.isnan(g64), np.isnan(w64), err_msg=where)
        np.testing.assert_array_equal(g64[~finite & ~np.isnan(w64)], w64[~finite & ~np.isnan(w64)],
                                      err_msg=where)
        scale = np.abs(w64[finite]).max(initial=0.0)
        eps = float(np.finfo(w.dtype).eps) if w.dtype.name != "bfloat16" else 2.0 ** -7
        np.testing.assert_allclose(g64[finite], w64[finite], rtol=0, atol=16 * eps * scale,
                                   err_msg=where)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_row_tiles_compute_what_whole_ops_do_for_any_thread_count(name, request):
    if name in X64_PROGRAMS:
        request.getfixturevalue("x64")
    fn, args = PROGRAMS[name](jnp, nn)
    text = numlir.jit(fn).lower(*args).as_text()
    inputs = _flat(args)
    want = _compile(text, 1, OFF, f"{name}_unfused").execute(inputs)
    for threads in (1, 2, 3):
        got = _compile(text, threads, ON, f"{name}_fused{threads}").execute(inputs)
        _same_values(got, want, f"{name}, {threads} threads")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fused_programs_agree_with_jax(name, request):
    if name in X64_PROGRAMS:
        request.getfixturevalue("x64")
    fn, args = PROGRAMS[name](jnp, nn)
    text = numlir.jit(fn).lower(*args).as_text()
    got = _compile(text, 2, ON, f"{name}_fused").execute(_flat(args))
    jax_fn, jax_args = PROGRAMS[name](jjnp, jax.nn)
    want = [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(jax.jit(jax_fn)(*jax_args))]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        tol = 2e-2 if name == "bfloat16_softmax" else 1e-5
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_softmax_becomes_one_loop_over_row_tiles():
    x = np.zeros((64, 128), np.float32)
    text = numlir.jit(lambda x: nn.softmax(x, axis=1)).lower(x).as_text()
    linalg = _compiler.run_pipeline(_compiler.run_pipeline(text, "hlo-optimize"), "hlo-cpu-to-linalg")
    fused = _fused_prefix(linalg, threads=2)
    body = fused[fused.index("scf.parallel"):]
    assert body.count("scf.parallel") == 1 and body.count("scf.for") == 1
    # max, exp, sum and divide (with the two fills) all inside the one loop
    loop = body[body.index("scf.for"):body.index("scf.reduce")]
    assert loop.count("linalg.generic") == 4 and loop.count("linalg.fill") == 2
    # the row maxima and sums live in a tile-sized buffer per thread
    assert "memref<64xf32>" not in fused


def test_a_column_reduction_between_row_ops_is_not_fused():
    """Column sums read every row of what the row ops wrote: nothing shares a tile."""
    x = np.zeros((64, 128), np.float32)

    def f(x):
        h = jnp.tanh(x)
        return h / h.sum(axis=0)

    text = numlir.jit(f).lower(x).as_text()
    linalg = _compiler.run_pipeline(_compiler.run_pipeline(text, "hlo-optimize"), "hlo-cpu-to-linalg")
    assert "scf.parallel" not in _fused_prefix(linalg, threads=2)


FUZZ_SEED, FUZZ_PROGRAMS, FUZZ_CHUNK = 22, 90, 30


@pytest.mark.parametrize("chunk", range(FUZZ_PROGRAMS // FUZZ_CHUNK))
def test_fuzzer_programs_compute_the_same_fused(chunk):
    """The differential fuzzer's random programs, jitted and jitted through vmap of grad,
    compiled with every run fused on 3 threads and unfused on 1: the same values."""
    compared = 0
    indices = range(chunk * FUZZ_CHUNK, (chunk + 1) * FUZZ_CHUNK)
    for where, text, arrays in fuzzer_modules.lowered_programs(FUZZ_SEED, indices):
        want = _compile(text, 1, OFF, "unfused").execute(arrays)
        got = _compile(text, 3, ON, "fused").execute(arrays)
        _same_values(got, want, where)
        compared += 1
    assert compared >= FUZZ_CHUNK
