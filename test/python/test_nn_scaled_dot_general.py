"""numlir.nn.scaled_dot_general (mxfp8 and nvfp4 block quantization) against jax.nn's.

jax's scaled matmul kernel has no CPU lowering, so the reference is jax's own
scaled_dot_general (its quantizer, custom VJP and transposes, run by XLA on the CPU)
with only the kernel swapped for its documented definition: dequantize, then
einsum('BMK,BNK->BMN') in float32.
"""

import jax
import jax._src.cudnn.scaled_matmul_stablehlo as jax_scaled
import jax.numpy as jnp_ref
import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import nn
from numlir._src.nn import block_quantization as bq

F32 = np.float32


def _reference_scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    def dequantized(x, scales):
        block = x.shape[-1] // scales.shape[-1]
        return x.astype(F32) * jnp_ref.repeat(scales.astype(F32), block, axis=-1)
    out = jnp_ref.einsum("BMK,BNK->BMN", dequantized(lhs, lhs_scales), dequantized(rhs, rhs_scales),
                         precision=jax.lax.Precision.HIGHEST)
    return out.astype(preferred_element_type)


@pytest.fixture
def jax_on_cpu(monkeypatch):
    monkeypatch.setattr(jax_scaled, "scaled_matmul_wrapper", _reference_scaled_matmul)


def _configs(framework, mode, global_scale=None):
    scale = None if global_scale is None else np.asarray([global_scale], F32)
    return [framework.nn.get_scaled_dot_general_config(mode, scale)] * 3


# --- rounding to the narrow formats ----------------------------------------------------

@pytest.mark.parametrize("fmt", [ml_dtypes.float8_e4m3fn, ml_dtypes.float4_e2m1fn,
                                 ml_dtypes.float8_e5m2], ids=lambda f: np.dtype(f).name)
def test_rounding_to_a_narrow_format_gives_the_values_of_ml_dtypes_casts(fmt):
    info = ml_dtypes.finfo(fmt)
    rng = np.random.default_rng(0)
    # Every representable value, the midpoints between neighbours (ties to even) and
    # random values over the whole range, subnormals included.
    grid = np.unique(np.arange(256, dtype=np.uint8).view(fmt).astype(F32)) if info.bits == 8 else \
        np.unique(np.arange(16, dtype=np.uint8).astype(fmt).astype(F32))
    grid = grid[np.isfinite(grid)]
    mids = (grid[1:] + grid[:-1]) / 2
    wide = rng.uniform(-1, 1, 500).astype(F32) * np.exp2(rng.uniform(np.log2(float(info.smallest_subnormal)) - 1,
                                                                      np.log2(float(info.max)), 500)).astype(F32)
    x = np.clip(np.concatenate([grid, mids, wide]).astype(F32), -float(info.max), float(info.max))
    want = x.astype(fmt).astype(F32)
    for fn in (lambda v: bq.round_to_format(v, fmt), numlir.jit(lambda v: bq.round_to_format(v, fmt))):
        got = np.asarray(fn(jnp.asarray(x)))
        np.testing.assert_array_equal(got, want)


def test_e8m0_scales_round_up_to_a_power_of_two_as_jaxs_quantizer():
    x = np.array([0.0, 1e-45, 2.0**-127, 2.0**-126, 3e-39, 0.3, 0.5, 0.75, 1.0, 1.0 + 2**-23,
                  3.0, 2.0**126, 1.5 * 2.0**126, 2.0**127, 3e38], F32)
    want = np.asarray(jax_scaled.cast_to_e8m0_with_rounding_up(jnp_ref.asarray(x)))
    got = np.asarray(numlir.jit(bq.e8m0_scale_exponent)(x))
    np.testing.assert_array_equal(got, want.astype(np.int32))
    values = np.asarray(bq.e8m0_value(jnp.asarray(got)))
    np.testing.assert_array_equal(values, want.view(ml_dtypes.float8_e8m0fnu).astype(F32))


@pytest.mark.parametrize("mode", ["mxfp8", "nvfp4"])
def test_quantized_values_and_scales_are_jaxs(mode):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((2, 3, 64)) * np.exp(rng.uniform(-4, 4, (2, 3, 1)))).astype(F32)
    gs = 0.25 if mode == "nvfp4" else None
    want_q, want_s = jax_scaled.quantize(jnp_ref.asarray(x), _configs(jax, mode, gs)[0])
    got_q, got_s = bq.quantize(jnp.asarray(x), _configs(numlir, mode, gs)[0])
    np.testing.assert_array_equal(np.asarray(got_s), np.asarray(want_s).astype(F32))
    np.testing.assert_array_equal(np.asarray(got_q), np.asarray(want_q).astype(F32))


def test_an_all_zero_mxfp8_block_quantizes_to_zeros():
    # jax divides such a block by 2**-127, a float32 subnormal that XLA's CPU flushes to
    # zero, and gets 0/0 = NaN there; numlir keeps subnormals and gets the zeros meant.
    x = np.zeros((1, 2, 64), F32)
    x[0, 1, 32:] = np.linspace(-1, 1, 32)
    values, scales = numlir.jit(lambda v: bq.quantize(v, nn.get_scaled_dot_general_config("mxfp8")))(x)
    np.testing.assert_array_equal(np.asarray(values)[0, :, :32], 0)
    assert np.asarray(scales)[0, 0, 0] == 2.0**-127


# --- the product and its gradient ------------------------------------------------------

CASES = [
    # lhs shape, rhs shape, ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)). In
    # mxfp8 the gradient quantizes along the non-contracting axes too: all multiples of 32.
    ((2, 32, 64), (2, 32, 64), (((2,), (2,)), ((0,), (0,)))),
    ((64, 32), (32, 64), (((0,), (1,)), ((), ()))),
    ((2, 32, 8, 4), (8, 4, 32, 2), (((2, 3), (0, 1)), ((0,), (3,)))),
]


@pytest.mark.parametrize("mode", ["mxfp8", "nvfp4"])
@pytest.mark.parametrize("lhs_shape,rhs_shape,dims", CASES, ids=[str(c[2]) for c in CASES])
def test_scaled_dot_general_and_its_gradient_are_jaxs(jax_on_cpu, mode, lhs_shape, rhs_shape, dims):
    rng = np.random.default_rng(2)
    lhs = rng.standard_normal(lhs_shape).astype(F32)
    rhs = (rng.standard_normal(rhs_shape) * 3).astype(F32)
    gs = 0.5 if mode == "nvfp4" else None
    weights = rng.standard_normal(jax.eval_shape(
        lambda a, b: jax.lax.dot_general(a, b, dims), lhs, rhs).shape).astype(F32)

    def loss(framework, a, b):
        out = framework.nn.scaled_dot_general(a, b, dims, configs=_configs(framework, mode, gs))
        return (out * weights).sum()

    # jax runs its reference jitted: op by op, its dispatch takes seconds here.
    want = jax.jit(lambda a, b: jax.nn.scaled_dot_general(a, b, dims, configs=_configs(jax, mode, gs)))(lhs, rhs)
    want_grads = jax.jit(jax.grad(lambda a, b: loss(jax, a, b), argnums=(0, 1)))(lhs, rhs)
    # Eager mode compiles each op on its own, so only the quantizer runs eagerly (above).
    got = numlir.jit(lambda a, b: nn.scaled_dot_general(a, b, dims, configs=_configs(numlir, mode, gs)))(lhs, rhs)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-4)
    grads = numlir.jit(numlir.grad(lambda a, b: loss(numlir, a, b), argnums=(0, 1)))(lhs, rhs)
    for grad, ref in zip(grads, want_grads):
        assert grad.shape == ref.shape and grad.dtype == ref.dtype
        np.testing.assert_allclose(np.asarray(grad), np.asarray(ref), rtol=1e-5, atol=1e-4)
    # Quantization is lossy: the product is close to the exact one, not equal to it.
    exact = jax.lax.dot_general(lhs, rhs, dims, precision=jax.lax.Precision.HIGHEST)
    error = float(np.max(np.abs(np.asarray(got) - np.asarray(exact))) / np.max(np.abs(exact)))
    assert 0 < error < (0.1 if mode == "mxfp8" else 0.3)


def test_nvfp4_gradient_is_zero_where_the_forward_pass_clipped(jax_on_cpu):
    rng = np.random.default_rng(3)
    lhs = rng.standard_normal((2, 32)).astype(F32)
    lhs[0, 3] = 5000.0  # beyond global_scale * 6 * 448 = 1344
    rhs = rng.standard_normal((3, 32)).astype(F32)
    dims = (((1,), (1,)), ((), ()))

    def loss(framework, a, b):
        return framework.nn.scaled_dot_general(a, b, dims, configs=_configs(framework, "nvfp4", 0.5)).sum()

    got = numlir.jit(numlir.grad(lambda a, b: loss(numlir, a, b)))(lhs, rhs)
    want = jax.jit(jax.grad(lambda a, b: loss(jax, a, b)))(lhs, rhs)
    assert float(got[0, 3]) == 0.0
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_scaled_dot_general_under_vmap_maps_each_example(jax_on_cpu):
    rng = np.random.default_rng(4)
    lhs, rhs = rng.standard_normal((3, 4, 32)).astype(F32), rng.standard_normal((3, 5, 32)).astype(F32)
    dims = (((1,), (1,)), ((), ()))
    fn = lambda a, b: nn.scaled_dot_general(a, b, dims, configs=_configs(numlir, "mxfp8"))
    got = numlir.jit(numlir.vmap(fn))(lhs, rhs)
    want = jax.jit(jax.vmap(lambda a, b: jax.nn.scaled_dot_general(
        a, b, dims, configs=_configs(jax, "mxfp8"))))(lhs, rhs)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(got[1]), np.asarray(numlir.jit(fn)(lhs[1], rhs[1])),
                               rtol=1e-6, atol=1e-6)


def test_scaled_dot_general_takes_and_gives_bfloat16(jax_on_cpu):
    rng = np.random.default_rng(5)
    lhs = rng.standard_normal((4, 64)).astype(ml_dtypes.bfloat16)
    rhs = rng.standard_normal((3, 64)).astype(ml_dtypes.bfloat16)
    dims = (((1,), (1,)), ((), ()))
    want = jax.jit(lambda a, b: jax.nn.scaled_dot_general(
        a, b, dims, ml_dtypes.bfloat16, configs=_configs(jax, "mxfp8")))(lhs, rhs)
    got = numlir.jit(lambda a, b: nn.scaled_dot_general(
        a, b, dims, ml_dtypes.bfloat16, configs=_configs(numlir, "mxfp8")))(lhs, rhs)
    assert got.dtype == want.dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(np.asarray(got, F32), np.asarray(want, F32), rtol=1e-2, atol=1e-2)


def test_scaled_dot_general_without_configs_is_dot_general():
    rng = np.random.default_rng(6)
    lhs, rhs = rng.standard_normal((3, 7)).astype(F32), rng.standard_normal((7, 2)).astype(F32)
    dims = (((1,), (0,)), ((), ()))
    np.testing.assert_allclose(np.asarray(nn.scaled_dot_general(lhs, rhs, dims)),
                               np.asarray(jax.nn.scaled_dot_general(lhs, rhs, dims)), rtol=1e-5)


def test_configs_are_jaxs():
    for mode in ("mxfp8", "nvfp4"):
        got, want = nn.get_scaled_dot_general_config(mode), jax.nn.get_scaled_dot_general_config(mode)
        assert (got.mode, got.block_size, got.infer_only) == (want.mode, want.block_size, want.infer_only)
        assert np.dtype(got.data_type) == np.dtype(want.data_type)
        assert np.dtype(got.scale_type) == np.dtype(want.scale_type)
    assert np.asarray(nn.get_scaled_dot_general_config("nvfp4").global_scale).tolist() == [1.0]
    with pytest.raises(ValueError, match="Unsupported mode"):
        nn.get_scaled_dot_general_config("int8")


def test_scaled_dot_general_rejects_bad_input_clearly():
    x, y = np.ones((4, 48), F32), np.ones((3, 48), F32)
    dims = (((1,), (1,)), ((), ()))
    configs = _configs(numlir, "mxfp8")
    with pytest.raises(ValueError, match="multiple of the mxfp8 block size 32"):
        nn.scaled_dot_general(x, y, dims, configs=configs)
    ok = np.ones((4, 32), F32)
    with pytest.raises(ValueError, match="gradient.*size 4 must be a positive multiple"):
        numlir.grad(lambda a: nn.scaled_dot_general(a, ok, dims, configs=configs).sum())(ok)
    with pytest.raises(TypeError, match="preferred_element_type"):
        nn.scaled_dot_general(x, y, dims, np.int32, configs=configs)
    with pytest.raises(TypeError, match="differ in size"):
        nn.scaled_dot_general(np.ones((4, 32), F32), np.ones((3, 64), F32), dims, configs=configs)
    with pytest.raises(TypeError, match="floating point"):
        nn.scaled_dot_general(np.ones((4, 32), np.int32), np.ones((3, 32), F32), dims, configs=configs)
    with pytest.raises(ValueError, match="3 configs"):
        nn.scaled_dot_general(x, y, dims, configs=configs[:2])
    with pytest.raises(ValueError, match="mode 'int8'"):
        bad = nn.get_scaled_dot_general_config("mxfp8")
        bad.mode = "int8"
        nn.scaled_dot_general(x, y, dims, configs=[bad] * 3)
