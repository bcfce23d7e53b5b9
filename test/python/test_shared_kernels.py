"""cpu-share-kernels on whole programs: repeated loop nests run one shared function.

The lit tests (test/Backends/CPU/cpu-share-kernels.mlir) pin which ops share a
kernel. Here jitted programs that repeat a matmul or a convolution on
different buffers, as a GAN's discriminator does on real and generated
images, must compile to one kernel per distinct contraction and compute what
JAX computes.
"""

from __future__ import annotations

import collections
import re

import jax
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax
from numlir._src import config


def _shared_kernels_in_llvm_ir(tmp_path) -> int:
    """How many kernels the LLVM IR calls from more than one place (every linalg op
    becomes a kernel; the repeated ones share theirs)."""
    (ll,) = tmp_path.glob("*.04.llvm-ir.ll")
    calls = collections.Counter(re.findall(r"call void @(numlir_kernel[_0-9]*)\(", ll.read_text()))
    return sum(1 for count in calls.values() if count > 1)


def _conv(lax_, x, k):
    return lax_.conv_general_dilated(x, k, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))


def twice_the_same_layer(lax_, np_):
    def f(real, fake, k, w):
        a = np_.tanh(_conv(lax_, real, k)).reshape(real.shape[0], -1) @ w
        b = np_.tanh(_conv(lax_, fake, k)).reshape(fake.shape[0], -1) @ w
        return a - b, (a * b).sum()
    return f


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_layer_applied_twice_compiles_its_kernels_once(tmp_path, monkeypatch, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    monkeypatch.setattr(config.flags, "dump_dir", str(tmp_path))
    r = np.random.default_rng(0)
    real, fake = (r.normal(size=(2, 6, 6, 3)).astype(dtype) for _ in range(2))
    k = (r.normal(size=(3, 3, 3, 4)) * 0.3).astype(dtype)
    w = (r.normal(size=(6 * 6 * 4, 5)) * 0.1).astype(dtype)
    got = numlir.jit(twice_the_same_layer(lax, jnp))(real, fake, k, w)
    want = jax.jit(twice_the_same_layer(jax.lax, jax.numpy))(real, fake, k, w)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=tol, atol=tol)
    # one padded copy (SAME), one convolution, one tanh and one matmul kernel, each
    # called twice
    assert _shared_kernels_in_llvm_ir(tmp_path) == 4


def test_gradients_through_shared_kernels_match_jax(tmp_path, monkeypatch):
    """The backward pass repeats the forward's shapes (and adds its own repeats)."""
    monkeypatch.setattr(config.flags, "dump_dir", str(tmp_path))
    r = np.random.default_rng(1)
    real, fake = (r.normal(size=(2, 6, 6, 3)).astype(np.float32) for _ in range(2))
    k = (r.normal(size=(3, 3, 3, 4)) * 0.3).astype(np.float32)
    w = (r.normal(size=(6 * 6 * 4, 5)) * 0.1).astype(np.float32)

    def loss(np_, lax_):
        f = twice_the_same_layer(lax_, np_)
        return lambda k, w, real, fake: (f(real, fake, k, w)[0] ** 2).sum()

    got = numlir.jit(numlir.grad(loss(jnp, lax), argnums=(0, 1)))(k, w, real, fake)
    want = jax.jit(jax.grad(loss(jax.numpy, jax.lax), argnums=(0, 1)))(k, w, real, fake)
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=2e-5, atol=2e-5)
    assert _shared_kernels_in_llvm_ir(tmp_path) >= 2


def test_matmuls_repeated_inside_a_loop_body_stay_in_it():
    """Only top-level contractions are shared; the two matmuls of a fori_loop's body
    (over a buffer the loop carries, whose origin the pass cannot see) stay there."""
    x = np.linspace(-1, 1, 16 * 16, dtype=np.float32).reshape(16, 16)

    def f(x):
        return lax.fori_loop(0, 3, lambda i, h: h @ h * 0.5 + x @ x, x)

    got = numlir.jit(f)(x)
    h = x.astype(np.float64)
    for _ in range(3):
        h = h @ h * 0.5 + x.astype(np.float64) @ x
    np.testing.assert_allclose(np.asarray(got), h, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", [4, 33])
def test_a_kernel_first_seen_with_one_buffer_twice_reads_each_calls_own_operands(
        tmp_path, monkeypatch, n):
    """``s @ (s @ s + 3 I)``: the first matmul passes ``s`` twice and the second ``s`` and
    another buffer. The shared kernel once took its body from the first with both
    inputs bound to one argument, so the second computed ``w @ w`` (expm under jit
    returned the identity)."""
    monkeypatch.setattr(config.flags, "dump_dir", str(tmp_path))
    s = (np.random.default_rng(2).normal(size=(n, n)) * 0.3).astype(np.float32)

    def f(np_):
        return lambda s: s @ (s @ s + 3.0 * np_.eye(n, dtype=s.dtype))

    got = numlir.jit(f(jnp))(s)
    s64 = s.astype(np.float64)
    np.testing.assert_allclose(np.asarray(got), s64 @ (s64 @ s64 + 3 * np.eye(n)),
                               rtol=1e-4, atol=1e-4)
    assert _shared_kernels_in_llvm_ir(tmp_path) == 1


def test_expm_under_jit_matches_jax():
    """The program that showed the shared-kernel bug: scaling and squaring's Pade
    approximant squares ``A`` and then multiplies ``A`` by a sum of its powers."""
    import jax.scipy.linalg as jsl

    from numlir.scipy import linalg as nsl
    a = (np.random.default_rng(0).normal(size=(4, 4)) * 1.5).astype(np.float32)
    np.testing.assert_allclose(np.asarray(numlir.jit(nsl.expm)(a)), np.asarray(jsl.expm(a)),
                               rtol=2e-4, atol=2e-4)
