"""Reductions long enough for LLVM's vector loops keep jax's semantics.

Two codegen decisions make these loops vector code: float max/min stay
`llvm.maximum`/`minimum` (the `cpu-expand-arith` pass; arith-expand's
compare-and-select chains kept them scalar), and an elementwise producer fuses
into the linalg.reduce after it (`cpu-fuse-elementwise-ops` generalizes the
reduce). Lengths cover the vector body, the interleaved tail and the scalar
remainder; NaN and signed zeros sit in each of those places.

NaN propagation is checked against NumPy, not jax: jax 0.10.2's XLA:CPU drops
NaNs from row max/min reductions of 64 and more columns (a row of normals
with one NaN in its last column gave -inf), where jnp.max documents that NaN
propagates.
"""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

RNG = np.random.default_rng(2026)
LENGTHS = [1, 15, 16, 17, 63, 64, 65, 1000, 4099]


def _compare(fn, *args, oracle=None):
    got = np.asarray(numlir.jit(fn(jnp))(*args))
    want = np.asarray(jax.jit(fn(jjnp))(*args) if oracle is None else oracle(*args))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=0)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_reductions_propagate_nan_at_every_position(op, n):
    x = RNG.normal(size=(n + 1, n)).astype(np.float32)
    for row, col in enumerate(range(0, n, max(1, n // 7))):
        x[row, col] = np.nan  # one NaN per row, at a different column each time
    _compare(lambda m: lambda a: getattr(m, op)(a, axis=1), x,
             oracle=lambda a: getattr(np, op)(a, axis=1))
    assert np.isnan(np.asarray(numlir.jit(lambda a: getattr(jnp, op)(a))(x)))


@pytest.mark.parametrize("n", [16, 65, 1000])
def test_max_min_reductions_order_signed_zeros(n):
    x = np.where(RNG.random((4, n)) < 0.5, np.float32(0.0), np.float32(-0.0))
    x[0], x[1] = 0.0, -0.0
    for op in ("max", "min"):
        _compare(lambda m: lambda a: getattr(m, op)(a, axis=1), x)


@pytest.mark.parametrize("n", LENGTHS)
def test_sum_of_fused_square_matches_jax(n):
    x = RNG.uniform(0.5, 1.5, size=(3, n)).astype(np.float32)
    _compare(lambda m: lambda a: m.sum(a * a, axis=1), x)
    _compare(lambda m: lambda a: m.sum(a * a), x)


@pytest.mark.parametrize("dtype", [np.float64, jjnp.bfloat16, np.int32])
def test_fused_reductions_across_dtypes(x64, dtype):
    x = (RNG.normal(size=(5, 300)) * 4).astype(dtype)
    _compare(lambda m: lambda a: m.max(a * 2 + 1, axis=1), x)
    _compare(lambda m: lambda a: m.min(a - 3, axis=0), x)
    if dtype != jjnp.bfloat16:  # bf16 sums round differently from XLA's fused f32
        _compare(lambda m: lambda a: m.sum(a * a, axis=1), x)


def test_softmax_rows_match_jax():
    x = RNG.normal(size=(64, 1024)).astype(np.float32) * 5
    x[3, 100] = np.inf
    _compare(lambda m: lambda a: (numlir.nn if m is jnp else jax.nn).softmax(a, axis=1), x)
