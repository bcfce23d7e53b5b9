"""Numerics of hlo.reduce_window and hlo.convolution through the CPU pipeline.

Each case writes an hlo module by hand, compiles it with `hlo-to-cpu` and
compares the result with jax.lax run with the same window parameters, so the
lowering (padding, dilation, strides, groups, dimension numbers) is checked
against XLA, not against a second implementation of our own.
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hlo_testing import compile_hlo

from numlir._src import dtypes


def ttype(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtypes.mlir_element_type(dtype) + ">"


def pairs(padding):
    return "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + "]"


# --- reduce_window ---------------------------------------------------------------

def lax_reduce_window(x, kind, window, strides, padding, base_dilation, window_dilation):
    dtype = x.dtype
    if dtype == np.bool_:
        init, op = {"max": (False, jax.lax.bitwise_or), "or": (False, jax.lax.bitwise_or),
                    "min": (True, jax.lax.bitwise_and), "and": (True, jax.lax.bitwise_and)}[kind]
    elif np.issubdtype(dtype, np.floating):
        init, op = {"sum": (0, jax.lax.add), "prod": (1, jax.lax.mul),
                    "max": (-np.inf, jax.lax.max), "min": (np.inf, jax.lax.min)}[kind]
    else:
        info = np.iinfo(dtype)
        init, op = {"sum": (0, jax.lax.add), "prod": (1, jax.lax.mul),
                    "max": (info.min, jax.lax.max), "min": (info.max, jax.lax.min),
                    "and": (-1 if info.min < 0 else info.max, jax.lax.bitwise_and),
                    "or": (0, jax.lax.bitwise_or)}[kind]
    return np.asarray(jax.lax.reduce_window(
        jnp.asarray(x), np.array(init, dtype), op, window, strides, padding,
        base_dilation, window_dilation))


def reduce_window_module(shape, dtype, kind, window, strides, padding, base_dilation,
                         window_dilation, out_shape):
    return f"""
func.func @main(%x: {ttype(shape, dtype)}) -> {ttype(out_shape, dtype)} {{
  %0 = hlo.reduce_window {kind} %x, window = {list(window)}, strides = {list(strides)},
         padding = {pairs(padding)}, base_dilations = {list(base_dilation)},
         window_dilations = {list(window_dilation)}
       : {ttype(shape, dtype)} -> {ttype(out_shape, dtype)}
  return %0 : {ttype(out_shape, dtype)}
}}"""


def random_array(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    if dtype == np.uint8:
        return rng.integers(0, 255, shape).astype(dtype)
    return rng.integers(-20, 20, shape).astype(dtype)


def check_reduce_window(shape, dtype, kind, window, strides=None, padding=None,
                        base_dilation=None, window_dilation=None, x64=False):
    rank = len(shape)
    strides = strides or (1,) * rank
    padding = padding or ((0, 0),) * rank
    base_dilation = base_dilation or (1,) * rank
    window_dilation = window_dilation or (1,) * rank
    x = random_array(np.random.default_rng(0), shape, dtype)
    expected = lax_reduce_window(x, kind, window, strides, padding, base_dilation, window_dilation)
    run = compile_hlo(reduce_window_module(shape, dtype, kind, window, strides, padding,
                                           base_dilation, window_dilation, expected.shape))
    (out,) = run([x])
    assert out.shape == expected.shape
    if np.issubdtype(dtype, np.floating):
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("kind", ["sum", "max", "min", "prod"])
def test_reduce_window_max_pool_2d_nhwc(kind):
    check_reduce_window((2, 5, 6, 3), np.float32, kind, (1, 2, 2, 1), (1, 2, 2, 1),
                        ((0, 0), (0, 1), (1, 1), (0, 0)))


@pytest.mark.parametrize("window,strides,padding,base_dilation,window_dilation", [
    ((3,), (1,), ((2, 0),), (1,), (1,)),          # cumulative-sum pattern
    ((3,), (2,), ((1, 2),), (2,), (1,)),          # base dilation
    ((2,), (1,), ((0, 0),), (1,), (3,)),          # window dilation
    ((3,), (1,), ((-1, -2),), (1,), (1,)),        # negative padding cuts
    ((2,), (3,), ((-2, 3),), (2,), (2,)),         # everything at once
    ((9,), (1,), ((0, 0),), (1,), (1,)),          # window larger than input: empty
])
def test_reduce_window_1d_parameters(window, strides, padding, base_dilation, window_dilation):
    check_reduce_window((7,), np.float32, "sum", window, strides, padding, base_dilation,
                        window_dilation)
    check_reduce_window((7,), np.float32, "max", window, strides, padding, base_dilation,
                        window_dilation)


def test_reduce_window_3d_with_dilations():
    check_reduce_window((3, 6, 5), np.float32, "max", (2, 3, 2), (1, 2, 1),
                        ((1, 0), (1, 2), (0, 1)), (1, 1, 2), (1, 2, 1))


@pytest.mark.parametrize("dtype,kind", [
    (np.int32, "sum"), (np.int32, "max"), (np.int32, "min"), (np.int32, "prod"),
    (np.int32, "and"), (np.int32, "or"), (np.uint8, "max"), (np.uint8, "min"),
    (np.bool_, "or"), (np.bool_, "and"), (np.bool_, "max"),
])
def test_reduce_window_integer_and_pred_identities(dtype, kind):
    # Padding and base dilation show the identity of each kind and type.
    check_reduce_window((4, 5), dtype, kind, (2, 3), (1, 2), ((1, 1), (2, 1)), (2, 1))


def test_reduce_window_f64(x64):
    check_reduce_window((3, 4), np.float64, "sum", (2, 2), (1, 1), ((1, 1), (0, 1)))


def test_reduce_window_empty_operand():
    check_reduce_window((0, 3), np.float32, "max", (1, 2), (1, 1), ((1, 0), (0, 0)))


def test_reduce_window_nan_propagates():
    text = reduce_window_module((4,), np.float32, "max", (2,), (1,), ((0, 0),), (1,), (1,), (3,))
    (out,) = compile_hlo(text)([np.array([1, np.nan, 2, 3], np.float32)])
    np.testing.assert_array_equal(out, [np.nan, np.nan, 3])


# --- convolution -------------------------------------------------------------------

def spec_labels(spec, letters):
    """jax's (dim of letters[0], dim of letters[1], spatial...) as `[b, 0, 1, f]`."""
    rank = len(spec)
    labels = [None] * rank
    labels[spec[0]] = letters[0]
    labels[spec[1]] = letters[1]
    for i, d in enumerate(spec[2:]):
        labels[d] = str(i)
    return "[" + ", ".join(labels) + "]"


def conv_module(lhs, rhs, out_shape, dn, strides, padding, lhs_dilation, rhs_dilation,
                feature_group_count, batch_group_count):
    # jax's rhs_spec is (out feature, in feature, spatial...).
    kernel = (dn.rhs_spec[1], dn.rhs_spec[0], *dn.rhs_spec[2:])
    dims = (spec_labels(dn.lhs_spec, "bf") + "x" + spec_labels(kernel, "io") + "->"
            + spec_labels(dn.out_spec, "bf"))
    t_lhs, t_rhs, t_out = ttype(lhs.shape, lhs.dtype), ttype(rhs.shape, rhs.dtype), \
        ttype(out_shape, lhs.dtype)
    return f"""
func.func @main(%lhs: {t_lhs}, %rhs: {t_rhs}) -> {t_out} {{
  %0 = hlo.convolution %lhs, %rhs, dims = {dims}, strides = {list(strides)},
         padding = {pairs(padding)}, lhs_dilation = {list(lhs_dilation)},
         rhs_dilation = {list(rhs_dilation)}, feature_group_count = {feature_group_count},
         batch_group_count = {batch_group_count}
       : {t_lhs}, {t_rhs} -> {t_out}
  return %0 : {t_out}
}}"""


def check_conv(lhs_shape, rhs_shape, specs, strides=None, padding=None, lhs_dilation=None,
               rhs_dilation=None, feature_group_count=1, batch_group_count=1, dtype=np.float32):
    n = len(lhs_shape) - 2
    strides = strides or (1,) * n
    padding = padding or ((0, 0),) * n
    lhs_dilation = lhs_dilation or (1,) * n
    rhs_dilation = rhs_dilation or (1,) * n
    rng = np.random.default_rng(1)
    lhs = random_array(rng, lhs_shape, dtype)
    rhs = random_array(rng, rhs_shape, dtype)
    dn = jax.lax.conv_dimension_numbers(lhs_shape, rhs_shape, specs)
    expected = np.asarray(jax.lax.conv_general_dilated(
        lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, dn, feature_group_count,
        batch_group_count, precision=jax.lax.Precision.HIGHEST))
    run = compile_hlo(conv_module(lhs, rhs, expected.shape, dn, strides, padding, lhs_dilation,
                                  rhs_dilation, feature_group_count, batch_group_count))
    (out,) = run([lhs, rhs])
    assert out.shape == expected.shape
    if np.issubdtype(dtype, np.floating):
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    else:
        np.testing.assert_array_equal(out, expected)


NCHW = ("NCHW", "OIHW", "NCHW")
NHWC = ("NHWC", "HWIO", "NHWC")


@pytest.mark.parametrize("specs", [NCHW, NHWC, ("NHWC", "OIHW", "NCHW"), ("CHWN", "IHWO", "HWNC")])
def test_conv_2d_layouts(specs):
    lhs = {"NCHW": (2, 3, 7, 6), "NHWC": (2, 7, 6, 3), "CHWN": (3, 7, 6, 2)}[specs[0]]
    rhs = {"OIHW": (4, 3, 3, 2), "HWIO": (3, 2, 3, 4), "IHWO": (3, 3, 2, 4)}[specs[1]]
    check_conv(lhs, rhs, specs, strides=(2, 1), padding=((1, 1), (0, 1)))


@pytest.mark.parametrize("strides,padding,lhs_dilation,rhs_dilation", [
    ((1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)),
    ((2, 3), ((2, 1), (1, 2)), (1, 1), (1, 1)),
    ((1, 1), ((1, 1), (1, 1)), (2, 2), (1, 1)),    # transposed-conv style
    ((1, 2), ((0, 0), (1, 1)), (1, 1), (2, 3)),    # atrous
    ((2, 1), ((-1, 2), (1, -1)), (3, 1), (1, 2)),  # negative padding, everything
])
def test_conv_2d_window_parameters(strides, padding, lhs_dilation, rhs_dilation):
    check_conv((2, 3, 7, 8), (4, 3, 3, 2), NCHW, strides, padding, lhs_dilation, rhs_dilation)


def test_conv_1d_and_3d():
    check_conv((2, 3, 9), (4, 3, 3), ("NCH", "OIH", "NCH"), (2,), ((1, 2),), (1,), (2,))
    check_conv((1, 5, 6, 4, 2), (3, 2, 2, 2, 3), ("NDHWC", "DHWIO", "NDHWC"), (1, 2, 1),
               ((1, 0), (0, 1), (1, 1)))


def test_conv_feature_groups():
    check_conv((2, 6, 5, 5), (8, 3, 3, 3), NCHW, padding=((1, 1), (1, 1)),
               feature_group_count=2)
    # depthwise: one group per input feature
    check_conv((1, 5, 5, 4), (3, 3, 1, 8), NHWC, feature_group_count=4)


def test_conv_batch_groups():
    check_conv((4, 3, 5, 5), (6, 3, 2, 2), NCHW, batch_group_count=2)
    check_conv((6, 5, 5, 2), (2, 2, 2, 3), NHWC, batch_group_count=3)


def test_conv_integer_and_f64(x64):
    check_conv((1, 2, 5, 5), (3, 2, 2, 2), NCHW, padding=((1, 0), (0, 1)), dtype=np.int32)
    check_conv((2, 3, 6), (2, 3, 3), ("NCH", "OIH", "NCH"), (2,), ((1, 1),), (2,), (1,),
               dtype=np.float64)


def test_conv_zero_sized():
    check_conv((0, 3, 5, 5), (4, 3, 3, 3), NCHW)      # empty batch
    check_conv((2, 3, 2, 2), (4, 3, 3, 3), NCHW)      # window larger than input
    check_conv((2, 0, 4, 4), (4, 0, 3, 3), NCHW)      # no input features: zeros


def test_reduce_window_paddings_near_int64_limits_that_cancel():
    """low = -2^63 and high = 2^63 - 1 crop every element of the operand (the
    padded operand is all zeros); low = 2^63 - 9 with high = -(2^63 - 6)
    puts the first window entirely in the padding. Both must not wrap
    around into reading the unpadded operand (found probing the 2^63 boundaries)."""
    run = compile_hlo("""
    func.func public @main(%x: tensor<8xf32>) -> (tensor<5xf32>, tensor<4xf32>) {
      %0 = hlo.reduce_window sum %x, window = [3], padding = [[-9223372036854775808, 9223372036854775807]] : tensor<8xf32> -> tensor<5xf32>
      %1 = hlo.reduce_window sum %x, window = [2], padding = [[9223372036854775799, -9223372036854775802]] : tensor<8xf32> -> tensor<4xf32>
      return %0, %1 : tensor<5xf32>, tensor<4xf32>
    }""")
    x = np.arange(1, 9, dtype=np.float32)
    cropped, shifted = run([x])
    np.testing.assert_array_equal(cropped, np.zeros(5, np.float32))
    np.testing.assert_array_equal(shifted, np.zeros(4, np.float32))


def test_convolution_with_cancelling_padding_near_int64_min_reads_only_zeros():
    run = compile_hlo("""
    func.func public @main(%c: tensor<1x1x8xf32>, %w: tensor<1x1x3xf32>) -> tensor<1x1x5xf32> {
      %0 = hlo.convolution %c, %w, dims = [b, f, 0]x[i, o, 0]->[b, f, 0], padding = [[-9223372036854775808, 9223372036854775807]] : tensor<1x1x8xf32>, tensor<1x1x3xf32> -> tensor<1x1x5xf32>
      return %0 : tensor<1x1x5xf32>
    }""")
    (out,) = run([np.arange(8, dtype=np.float32).reshape(1, 1, 8), np.ones((1, 1, 3), np.float32)])
    np.testing.assert_array_equal(out, np.zeros((1, 1, 5), np.float32))
