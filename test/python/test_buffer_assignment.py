"""assign-buffers on whole programs: temporaries at offsets in one arena.

The lit tests (test/Bufferization/assign-buffers.mlir) pin which buffers
go into the arena and where. Here whole jitted programs must compute the
same bits with the arena as without it (it moves buffers, never arithmetic),
their executables must use one, and running out of memory for an arena must
name the user's lines.
"""

from __future__ import annotations

import dataclasses
import inspect
import os

import jax
import numpy as np
import pytest

import fuzzer_modules
from executable_images import image_of
import numlir
import numlir.numpy as jnp
from numlir import _runtime, nn
from numlir._src import backends, config

HERE = os.path.abspath(__file__)
OFF, DEFAULT, EVERYTHING = 0, 64 << 20, 1 << 62  # max-buffer-bytes


def _compile(text: str, max_buffer_bytes: int, name: str):
    backend = backends.get_backend("cpu")
    options = dataclasses.replace(backend.parse_options(), arena_max_buffer_bytes=max_buffer_bytes)
    return backend.compile(text, options=options, name=name)


def _sites(fun, *args) -> bytes:
    """The allocation-sites text around the arena's line in jit(fun)(*args)'s executable."""
    shared_object = _runtime.unwrap_image(image_of(fun, *args))[1]
    start = shared_object.find(b"arena[")
    return shared_object[max(0, start - 40):start + 200] if start >= 0 else b""


def _mlp_step(np_, nn_):
    def loss(params, x, y):
        w1, b1, w2, b2 = params
        h = nn_.relu(x @ w1 + b1)
        return -(nn_.log_softmax(h @ w2 + b2) * y).sum() / x.shape[0]

    def step(params, x, y):
        value, grads = (numlir if np_ is jnp else jax).value_and_grad(loss)(params, x, y)
        return value, [p - 0.1 * g for p, g in zip(params, grads)]
    return step


def test_a_training_step_uses_an_arena_and_matches_jax():
    r = np.random.default_rng(0)
    params = [r.normal(size=(32, 64)).astype(np.float32) * 0.2, np.zeros(64, np.float32),
              r.normal(size=(64, 10)).astype(np.float32) * 0.2, np.zeros(10, np.float32)]
    x = r.normal(size=(16, 32)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[r.integers(0, 10, 16)]
    got = numlir.jit(_mlp_step(jnp, nn))(params, x, y)
    want = jax.jit(_mlp_step(jax.numpy, jax.nn))(params, x, y)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)
    assert b"arena[" in _sites(_mlp_step(jnp, nn), params, x, y)


FUZZ_SEED, FUZZ_PROGRAMS = 41, 40


def test_fuzzer_programs_give_the_same_bits_with_and_without_an_arena():
    """The arena moves buffers, never arithmetic: the fuzzer's programs, jitted and
    jitted through vmap of grad, give identical bits with every buffer in the arena,
    with the default limit and with none."""
    compared = 0
    for where, text, arrays in fuzzer_modules.lowered_programs(FUZZ_SEED, range(FUZZ_PROGRAMS)):
        want = _compile(text, OFF, "separate").execute(arrays)
        for limit in (DEFAULT, EVERYTHING):
            got = _compile(text, limit, f"arena{limit}").execute(arrays)
            assert len(got) == len(want), where
            for g, w in zip(got, want):
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=where)
        compared += 1
    assert compared >= FUZZ_PROGRAMS


def test_buffers_with_disjoint_lives_reuse_bytes_in_a_long_chain():
    """Twenty temporaries of 1 MiB, each dead once the next exists: the values stay
    right while their bytes are reused (a wrong offset would mix two of them)."""
    x = np.linspace(-1, 1, 512 * 512, dtype=np.float32).reshape(512, 512)

    def chain(np_):
        def f(x):
            h = x
            for i in range(20):
                h = np_.sin(h @ x * 0.01 + i) if i % 5 == 0 else np_.cos(h * 0.5 + i)
            return h
        return f

    got = numlir.jit(chain(jnp))(x)
    want = jax.jit(chain(jax.numpy))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)


def test_running_out_of_memory_for_an_arena_names_the_lines(monkeypatch):
    """With every buffer allowed in the arena, the huge temporary makes the arena
    itself too large: the error names it and the user's lines."""
    monkeypatch.setattr(config.flags, "cpu_arena_max_buffer_bytes", EVERYTHING)
    huge = (10**9, 10**9)

    def f(x):
        big = jnp.broadcast_to(x, huge) * 2.0
        other = jnp.broadcast_to(x, (1000,)) * 3.0
        return big.sum() + jnp.sort(other)[0]

    line = inspect.getsourcelines(f)[1]
    with pytest.raises(numlir.OutOfMemoryError) as info:
        numlir.jit(f)(jnp.ones(()))
    message = str(info.value)
    assert "allocating a temporary arena[" in message, message
    assert f"{HERE}:{line + 1}:" in message or f"{HERE}:{line + 2}:" in message, message
