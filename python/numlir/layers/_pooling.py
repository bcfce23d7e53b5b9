"""max_pool and avg_pool (functions and modules), over windows of the whole shape."""

from __future__ import annotations

import numlir.numpy as jnp
from numlir import lax
from numlir.layers._module import Module


def _window(value, size, channel_axis, what: str) -> tuple[int, ...]:
    """A per-dimension window or stride (Haiku's rule): an int covers every dimension but the
    first (batch) and the channel axis; a shorter sequence covers the trailing dimensions."""
    if isinstance(size, int):
        if channel_axis and not 0 <= abs(channel_axis) < value.ndim:
            raise ValueError(f"Invalid channel axis {channel_axis} for {value.shape}")
        axis = channel_axis % value.ndim if channel_axis else None
        return (1,) + tuple(1 if d == axis else size for d in range(1, value.ndim))
    size = tuple(size)
    if len(size) < value.ndim:
        return (1,) * (value.ndim - len(size)) + size
    if len(size) != value.ndim:
        raise ValueError(f"{what} {size} has more entries than the input {value.shape} has "
                         "dimensions")
    return size


def max_pool(value, window_shape, strides, padding: str, channel_axis=-1):
    """The maximum over each window."""
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Invalid padding '{padding}', must be 'SAME' or 'VALID'.")
    window = _window(value, window_shape, channel_axis, "window_shape")
    stride = _window(value, strides, channel_axis, "strides")
    return lax.reduce_window(value, -jnp.inf, lax.max, window, stride, padding)


def avg_pool(value, window_shape, strides, padding: str, channel_axis=-1):
    """The mean over each window; with SAME padding, only the window's real elements count."""
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"Invalid padding '{padding}', must be 'SAME' or 'VALID'.")
    window = _window(value, window_shape, channel_axis, "window_shape")
    stride = _window(value, strides, channel_axis, "strides")
    sums = lax.reduce_window(value, 0.0, lax.add, window, stride, padding)
    if padding == "VALID":
        count = 1
        for w in window:
            count *= w
        return sums / count
    counts = lax.reduce_window(jnp.ones(value.shape, value.dtype), 0.0, lax.add, window, stride,
                               padding)
    return sums / counts


class MaxPool(Module):
    def __init__(self, window_shape, strides, padding: str, channel_axis=-1, name=None):
        super().__init__(name=name)
        self.window_shape, self.strides = window_shape, strides
        self.padding, self.channel_axis = padding, channel_axis

    def __call__(self, value):
        return max_pool(value, self.window_shape, self.strides, self.padding, self.channel_axis)


class AvgPool(Module):
    def __init__(self, window_shape, strides, padding: str, channel_axis=-1, name=None):
        super().__init__(name=name)
        self.window_shape, self.strides = window_shape, strides
        self.padding, self.channel_axis = padding, channel_axis

    def __call__(self, value):
        return avg_pool(value, self.window_shape, self.strides, self.padding, self.channel_axis)
