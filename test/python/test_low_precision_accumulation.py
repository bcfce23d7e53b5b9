"""16-bit float reductions, contractions, scans and windows accumulate in float32.

Rounding a bfloat16 sum after every addition drifts by log2(n) bits: 300
additions of 1.01 gave 312 where jax gives 302. numlir.numpy's sum, prod,
mean, var and std compute in float32 as jax does (`_upcast_f16`), and the
`hlo-widen-accumulation` pass (test/Transforms/hlo-widen-accumulation.mlir)
widens the lax-level ops. Each case is compared with jax, eager and jitted.
"""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

RNG = np.random.default_rng(16)

# name -> (function of (numpy-like module, lax-like module, x), input).
# The functions reduce their input directly: XLA keeps excess precision
# between fused elementwise ops, so a 16-bit elementwise chain before the
# reduction would compare rounding policies, not accumulation.
FULL = np.full((300,), 1.01, np.float32)
NEAR_ONE = RNG.uniform(0.99, 1.03, (64, 2)).astype(np.float32)


def _uniform(*shape):
    return RNG.uniform(0.5, 1.5, shape).astype(np.float32)


CASES = {
    "sum_of_constant_run": (lambda np_, lx, x: np_.sum(x), FULL),
    "sum_axis": (lambda np_, lx, x: np_.sum(x, axis=0), _uniform(257, 3)),
    "sum_with_initial": (lambda np_, lx, x: np_.sum(x, initial=100.0), _uniform(300)),
    "prod": (lambda np_, lx, x: np_.prod(x, axis=0), NEAR_ONE),
    "mean": (lambda np_, lx, x: np_.mean(x, axis=1), _uniform(3, 301)),
    "var_of_equal_values": (lambda np_, lx, x: np_.var(x), np.full((3,), 1.3, np.float32)),
    "var": (lambda np_, lx, x: np_.var(x, axis=0), _uniform(200, 2)),
    "std_keepdims": (lambda np_, lx, x: np_.std(x, axis=0, keepdims=True), _uniform(200, 2)),
    "cumsum_last": (lambda np_, lx, x: np_.cumsum(x)[-1], FULL),
    "matmul": (lambda np_, lx, x: x @ x, FULL),
    "einsum": (lambda np_, lx, x: np_.einsum("ij,ij->j", x, x), _uniform(256, 3)),
    "lax_reduce_window_sum": (
        lambda np_, lx, x: lx.reduce_window(x, 0.0, lx.add, (300,), (1,), "VALID"), FULL),
    "conv": (
        lambda np_, lx, x: lx.conv_general_dilated(
            x.reshape(1, 1, 300), x.reshape(1, 1, 300), (1,), "VALID"), FULL),
}


def _run(fn, x, mode):
    if mode == "jit":
        return numlir.jit(lambda v: fn(jnp, lax, v))(x)
    return fn(jnp, lax, x)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_sixteen_bit_float_accumulates_like_jax(name, mode, dtype):
    fn, x = CASES[name]
    got = _run(fn, jnp.asarray(x).astype(getattr(jnp, dtype)), mode)
    want = jax.jit(lambda v: fn(jjnp, jax.lax, v))(jjnp.asarray(x).astype(getattr(jjnp, dtype)))
    assert str(got.dtype) == str(want.dtype)
    got64, want64 = np.asarray(got).astype(np.float64), np.asarray(want).astype(np.float64)
    # One rounding of a float32 accumulation: within 2 ulps of the 16-bit
    # type (jax's scans use a different association), far from the drift of
    # 16-bit steps.
    ulp = 2.0 ** -7 if dtype == "bfloat16" else 2.0 ** -10
    np.testing.assert_allclose(got64, want64, rtol=2 * ulp, atol=1e-6)


def test_bfloat16_sum_of_300_values_is_302():
    x = jnp.full((300,), 1.01).astype(jnp.bfloat16)
    assert float(jnp.sum(x)) == 302.0
    assert float(numlir.jit(jnp.sum)(x)) == 302.0


def test_var_with_more_degrees_of_freedom_than_elements_is_nan():
    x = np.ones((3, 2), np.float32)
    got = jnp.var(jnp.asarray(x), axis=0, ddof=4)
    want = jjnp.var(jjnp.asarray(x), axis=0, ddof=4)
    np.testing.assert_array_equal(np.isnan(np.asarray(got)), np.isnan(np.asarray(want)))
    assert np.isnan(np.asarray(got)).all()


def test_explicit_dtype_keeps_the_computation_in_that_dtype():
    # jax widens only when the caller leaves the dtype to it; the result
    # dtype still follows `dtype=`.
    x = jnp.full((300,), 1.01).astype(jnp.bfloat16)
    got = jnp.mean(x, dtype=jnp.float32)
    assert got.dtype == jnp.float32
    np.testing.assert_allclose(float(got), 1.0078125, rtol=1e-6)
