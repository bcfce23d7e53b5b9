"""jax.nn's remaining activations on numlir, against jax: values over dtypes and shapes,
eager and jit, and gradients (numerically checked in float64)."""

import zlib

import jax
import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import nn

NAMES = ["glu", "hard_sigmoid", "hard_silu", "hard_swish", "identity", "log1mexp", "logmeanexp",
         "mish", "soft_sign", "sparse_plus", "sparse_sigmoid", "squareplus"]


def _input(name, shape, dtype):
    # Seeded per call site, not from a shared stream: the values must not depend on which
    # tests ran before in this worker (squareplus cancels for negative x, so its relative
    # error depends on the draw).
    rng = np.random.default_rng(zlib.crc32(f"{name}{shape}".encode()))
    x = rng.uniform(-4, 4, size=shape)
    if name == "log1mexp":
        x = np.abs(x) + 1e-3  # defined for x >= 0; both sides of the split at log 2
    return x.astype(dtype)


def _tol(dtype):
    return {np.float32: 2e-6, np.float64: 1e-13, ml_dtypes.bfloat16: 2e-2}[dtype]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(6,), (2, 3, 6)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16], ids=["f32", "bf16"])
def test_activation_matches_jax(name, shape, dtype):
    x = _input(name, shape, dtype)
    want = np.asarray(getattr(jax.nn, name)(x))
    for fn in (getattr(nn, name), numlir.jit(getattr(nn, name))):
        got = np.asarray(fn(jnp.asarray(x)))
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("name", [n for n in NAMES if n != "identity"])
def test_activation_gradient_matches_jax_and_finite_differences(name, x64):
    x = _input(name, (2, 4), np.float64)
    x = np.where(np.abs(np.abs(x) - 1) < 1e-2, x + 0.05, x)  # away from sparse_plus's kinks

    def loss(lib_nn):
        return lambda v: (lib_nn(v) * np.arange(1.0, 1.0 + lib_nn(x).size).reshape(np.shape(lib_nn(x)))).sum()

    got = np.asarray(numlir.jit(numlir.grad(loss(getattr(nn, name))))(x))
    want = np.asarray(jax.grad(loss(getattr(jax.nn, name)))(x))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    f = loss(getattr(nn, name))
    eps = 1e-6
    for idx in [(0, 0), (1, 3)]:
        step = np.zeros_like(x)
        step[idx] = eps
        numeric = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
        np.testing.assert_allclose(got[idx], numeric, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_glu_splits_the_chosen_axis(axis):
    x = _input("glu", (4, 6), np.float32)
    np.testing.assert_allclose(np.asarray(nn.glu(x, axis=axis)), np.asarray(jax.nn.glu(x, axis=axis)),
                               rtol=1e-6, atol=1e-6)


def test_glu_of_an_odd_axis_names_it():
    with pytest.raises(ValueError, match="axis -1 has size 5"):
        nn.glu(np.ones((2, 5), np.float32))


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, True), ((0, 2), False), (-1, False)])
def test_logmeanexp_with_and_without_where(axis, keepdims):
    x = _input("logmeanexp", (3, 4, 5), np.float32)
    where = np.random.default_rng(3).uniform(size=(3, 4, 5)) > 0.3
    for w in (None, where):
        got = np.asarray(numlir.jit(lambda v, m=w: nn.logmeanexp(v, axis=axis, where=m, keepdims=keepdims))(x))
        want = np.asarray(jax.nn.logmeanexp(x, axis=axis, where=w, keepdims=keepdims))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("b", [0.5, 4.0, np.float32(9.0)])
def test_squareplus_smoothness(b):
    x = _input("squareplus", (7,), np.float32)
    np.testing.assert_allclose(np.asarray(nn.squareplus(x, b)), np.asarray(jax.nn.squareplus(x, b)),
                               rtol=1e-6, atol=1e-6)


def test_log1mexp_is_accurate_at_both_ends(x64):
    x = np.array([1e-10, 1e-3, 0.69, 0.7, 5.0, 40.0])
    got = np.asarray(nn.log1mexp(x))
    np.testing.assert_allclose(got[:5], np.log(-np.expm1(-x[:5])), rtol=1e-14)
    # log(1 - e^-40) = -e^-40 - e^-80 / 2 - ...; the direct formula rounds it to 0.
    np.testing.assert_allclose(got[5], -np.exp(-40.0), rtol=1e-14)
    np.testing.assert_allclose(got, np.asarray(jax.nn.log1mexp(x)), rtol=1e-15)
