"""Convolutions and transposed convolutions over N spatial dimensions (Haiku's ConvND).

Weights are ``kernel_shape + (in_channels // groups, out_channels)`` (HWIO) for a
convolution and ``kernel_shape + (out_channels, in_channels)`` for a transposed one; the
default initializer is a truncated normal of stddev ``1/sqrt(fan_in)``.
"""

from __future__ import annotations

import math
from typing import Callable

import numlir.numpy as jnp
from numlir import lax
from numlir.layers import initializers
from numlir.layers._module import Module
from numlir.layers._transform import get_parameter


def _replicate(value, n: int, what: str) -> tuple:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise TypeError(f"{what} must be a scalar or sequence of length 1 or {n}, got {value}")
    return value


def _dimension_numbers(n: int, channels_last: bool, transpose: bool) -> lax.ConvDimensionNumbers:
    dims = n + 2
    spatial = tuple(range(1, dims - 1)) if channels_last else tuple(range(2, dims))
    image = (0, dims - 1) + spatial if channels_last else (0, 1) + spatial
    kernel_features = (dims - 2, dims - 1) if transpose else (dims - 1, dims - 2)
    kernel = kernel_features + tuple(range(dims - 2))
    return lax.ConvDimensionNumbers(lhs_spec=image, rhs_spec=kernel, out_spec=image)


def _padding(padding, n: int):
    if isinstance(padding, str):
        return padding.upper()
    pairs = tuple(tuple(p) for p in padding)
    return pairs * n if len(pairs) == 1 else pairs


def _adjusted_padding(input_size: int, output_size: int, kernel: int, stride: int,
                      padding: str) -> tuple[int, int]:
    """The explicit (before, after) padding that makes a transposed convolution of
    ``input_size`` produce exactly ``output_size`` (for the given SAME/VALID convention)."""
    if padding == "VALID":
        expected = (output_size - kernel + stride) // stride
        before = 0
    elif padding == "SAME":
        expected = (output_size + stride - 1) // stride
        before = max(0, (input_size - 1) * stride + kernel - output_size) // 2
    else:
        raise ValueError(f"`padding` must be 'VALID' or 'SAME'. Passed: {padding}.")
    if input_size != expected:
        raise ValueError(f"The expected input size with the current set of input parameters is "
                         f"{expected} which doesn't match the actual input size {input_size}.")
    pad_before = kernel - 1 - before
    pad_after = output_size + kernel - 1 - ((input_size - 1) * stride + 1) - pad_before
    return pad_before, pad_after


class _ConvBase(Module):
    def __init__(self, num_spatial_dims: int, output_channels: int, kernel_shape, stride,
                 padding, with_bias: bool, w_init, b_init, data_format: str, mask, name):
        super().__init__(name=name)
        if num_spatial_dims <= 0:
            raise ValueError("We only support convolution operations for `num_spatial_dims` "
                             f"greater than 0, received num_spatial_dims={num_spatial_dims}.")
        self.num_spatial_dims = num_spatial_dims
        self.output_channels = output_channels
        self.kernel_shape = _replicate(kernel_shape, num_spatial_dims, "kernel_shape")
        self.stride = _replicate(stride, num_spatial_dims, "strides")
        self.padding = _padding(padding, num_spatial_dims)
        self.with_bias = with_bias
        self.w_init = w_init
        self.b_init = b_init or jnp.zeros
        self.mask = mask
        self.data_format = data_format
        self.channel_index = 1 if data_format.startswith("NC") else -1

    def _batched(self, inputs):
        inputs = jnp.asarray(inputs)
        rank = self.num_spatial_dims + 1
        if inputs.ndim not in (rank, rank + 1):
            raise ValueError(f"Input to {type(self).__name__} needs to have rank in "
                             f"{[rank, rank + 1]}, but input has shape {inputs.shape}.")
        unbatched = inputs.ndim == rank
        return (jnp.expand_dims(inputs, 0) if unbatched else inputs), unbatched

    def _weights(self, w_shape, fan_in: int, dtype):
        if self.mask is not None and tuple(self.mask.shape) != tuple(w_shape):
            raise ValueError("Mask needs to have the same shape as weights. "
                             f"Shapes are: {self.mask.shape}, {w_shape}")
        w_init = self.w_init or initializers.TruncatedNormal(1.0 / math.sqrt(fan_in))
        w = get_parameter("w", w_shape, dtype, init=w_init)
        return w if self.mask is None else w * self.mask

    def _finish(self, out, unbatched: bool, dtype):
        if self.with_bias:
            shape = ((self.output_channels,) if self.channel_index == -1
                     else (self.output_channels,) + (1,) * self.num_spatial_dims)
            b = get_parameter("b", shape, dtype, init=self.b_init)
            out = out + jnp.broadcast_to(b, out.shape)
        return jnp.squeeze(out, 0) if unbatched else out


class ConvND(_ConvBase):
    """A convolution over ``num_spatial_dims`` dimensions (NHWC-style by default)."""

    def __init__(self, num_spatial_dims: int, output_channels: int, kernel_shape, stride=1,
                 rate=1, padding="SAME", with_bias: bool = True, w_init: Callable | None = None,
                 b_init: Callable | None = None, data_format: str = "channels_last", mask=None,
                 feature_group_count: int = 1, name: str | None = None):
        super().__init__(num_spatial_dims, output_channels, kernel_shape, stride, padding,
                         with_bias, w_init, b_init, data_format, mask, name)
        self.kernel_dilation = _replicate(rate, num_spatial_dims, "kernel_dilation")
        self.feature_group_count = feature_group_count
        self.dimension_numbers = _dimension_numbers(num_spatial_dims, self.channel_index == -1,
                                                    transpose=False)

    def __call__(self, inputs, *, precision=None):
        inputs, unbatched = self._batched(inputs)
        channels = inputs.shape[self.channel_index]
        if channels % self.feature_group_count:
            raise ValueError(f"Inputs channels {channels} should be a multiple of "
                             f"feature_group_count {self.feature_group_count}")
        w_shape = self.kernel_shape + (channels // self.feature_group_count, self.output_channels)
        w = self._weights(w_shape, math.prod(w_shape[:-1]), inputs.dtype)
        out = lax.conv_general_dilated(inputs, w, window_strides=self.stride, padding=self.padding,
                                       rhs_dilation=self.kernel_dilation,
                                       dimension_numbers=self.dimension_numbers,
                                       feature_group_count=self.feature_group_count)
        return self._finish(out, unbatched, inputs.dtype)


class ConvNDTranspose(_ConvBase):
    """A transposed convolution (the gradient of a strided convolution)."""

    def __init__(self, num_spatial_dims: int, output_channels: int, kernel_shape, stride=1,
                 output_shape=None, padding="SAME", with_bias: bool = True,
                 w_init: Callable | None = None, b_init: Callable | None = None,
                 data_format: str = "channels_last", mask=None, name: str | None = None):
        if output_shape is not None and not isinstance(padding, str):
            raise ValueError("When specifying `output_shape`, ensure that paddding is 'VALID' "
                             "or 'SAME'.")
        super().__init__(num_spatial_dims, output_channels, kernel_shape, stride, padding,
                         with_bias, w_init, b_init, data_format, mask, name)
        self.output_shape = (None if output_shape is None
                             else _replicate(output_shape, num_spatial_dims, "output_shape"))
        self.dimension_numbers = _dimension_numbers(num_spatial_dims, self.channel_index == -1,
                                                    transpose=True)

    def __call__(self, inputs, *, precision=None):
        inputs, unbatched = self._batched(inputs)
        channels = inputs.shape[self.channel_index]
        w_shape = self.kernel_shape + (self.output_channels, channels)
        w = self._weights(w_shape, math.prod(self.kernel_shape) * channels, inputs.dtype)
        padding = self.padding
        if self.output_shape is not None:
            spatial = inputs.shape[2:] if self.channel_index == 1 else inputs.shape[1:-1]
            padding = tuple(_adjusted_padding(i, o, k, s, self.padding) for i, o, k, s in
                            zip(spatial, self.output_shape, self.kernel_shape, self.stride))
        out = lax.conv_transpose(inputs, w, strides=self.stride, padding=padding,
                                 dimension_numbers=self.dimension_numbers)
        return self._finish(out, unbatched, inputs.dtype)


class Conv1D(ConvND):
    """One-dimensional convolution (NWC by default)."""

    def __init__(self, output_channels: int, kernel_shape, stride=1, rate=1, padding="SAME",
                 with_bias: bool = True, w_init=None, b_init=None, data_format: str = "NWC",
                 mask=None, feature_group_count: int = 1, name: str | None = None):
        super().__init__(1, output_channels, kernel_shape, stride, rate, padding, with_bias,
                         w_init, b_init, data_format, mask, feature_group_count, name)


class Conv2D(ConvND):
    """Two-dimensional convolution (NHWC by default)."""

    def __init__(self, output_channels: int, kernel_shape, stride=1, rate=1, padding="SAME",
                 with_bias: bool = True, w_init=None, b_init=None, data_format: str = "NHWC",
                 mask=None, feature_group_count: int = 1, name: str | None = None):
        super().__init__(2, output_channels, kernel_shape, stride, rate, padding, with_bias,
                         w_init, b_init, data_format, mask, feature_group_count, name)


class Conv1DTranspose(ConvNDTranspose):
    """One-dimensional transposed convolution (NWC by default)."""

    def __init__(self, output_channels: int, kernel_shape, stride=1, output_shape=None,
                 padding="SAME", with_bias: bool = True, w_init=None, b_init=None,
                 data_format: str = "NWC", mask=None, name: str | None = None):
        super().__init__(1, output_channels, kernel_shape, stride, output_shape, padding,
                         with_bias, w_init, b_init, data_format, mask, name)


class Conv2DTranspose(ConvNDTranspose):
    """Two-dimensional transposed convolution (NHWC by default)."""

    def __init__(self, output_channels: int, kernel_shape, stride=1, output_shape=None,
                 padding="SAME", with_bias: bool = True, w_init=None, b_init=None,
                 data_format: str = "NHWC", mask=None, name: str | None = None):
        super().__init__(2, output_channels, kernel_shape, stride, output_shape, padding,
                         with_bias, w_init, b_init, data_format, mask, name)
