"""LayerNorm: normalization over chosen axes with a learned scale and offset."""

from __future__ import annotations

from typing import Callable

import numpy as np

import numlir.numpy as jnp
from numlir import lax
from numlir.layers._module import Module
from numlir.layers._transform import get_parameter


def _abs_axes(axis, ndim: int) -> tuple[int, ...]:
    if isinstance(axis, slice):
        return tuple(range(ndim)[axis])
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(sorted(a % ndim for a in axes))


class LayerNorm(Module):
    """``scale * (x - mean) / sqrt(var + eps) + offset`` with statistics over ``axis``;
    scale and offset have the size of ``param_axis`` (the last axis by default)."""

    def __init__(self, axis, create_scale: bool, create_offset: bool, eps: float = 1e-5,
                 scale_init: Callable | None = None, offset_init: Callable | None = None,
                 use_fast_variance: bool = False, name: str | None = None, *, param_axis=None):
        super().__init__(name=name)
        if not create_scale and scale_init is not None:
            raise ValueError("Cannot set `scale_init` if `create_scale=False`.")
        if not create_offset and offset_init is not None:
            raise ValueError("Cannot set `offset_init` if `create_offset=False`.")
        self.axis = axis
        self.create_scale, self.create_offset = create_scale, create_offset
        self.eps = eps
        self.scale_init = scale_init or jnp.ones
        self.offset_init = offset_init or jnp.zeros
        self.use_fast_variance = use_fast_variance
        self._param_axis_given = param_axis is not None
        self.param_axis = -1 if param_axis is None else param_axis

    def __call__(self, inputs, scale=None, offset=None):
        inputs = jnp.asarray(inputs)
        if self.create_scale and scale is not None:
            raise ValueError("Cannot pass `scale` at call time if `create_scale=True`.")
        if self.create_offset and offset is not None:
            raise ValueError("Cannot pass `offset` at call time if `create_offset=True`.")
        axis = _abs_axes(self.axis, inputs.ndim)
        mean = jnp.mean(inputs, axis=axis, keepdims=True)
        if self.use_fast_variance:
            variance = jnp.mean(inputs * inputs, axis=axis, keepdims=True) - mean * mean
        else:
            variance = jnp.var(inputs, axis=axis, keepdims=True)
        if ((self.create_scale or self.create_offset) and not self._param_axis_given
                and axis != (inputs.ndim - 1,)):
            raise ValueError("When axis is not the final dimension we require you to also pass "
                             f"`param_axis` in the ctor. axis={axis} ndim={inputs.ndim}")
        param_axis = _abs_axes(self.param_axis, inputs.ndim)
        if param_axis == (inputs.ndim - 1,):
            param_shape = (inputs.shape[-1],)
        else:
            param_shape = tuple(inputs.shape[i] if i in param_axis else 1 for i in range(inputs.ndim))
        if self.create_scale:
            scale = get_parameter("scale", param_shape, inputs.dtype, init=self.scale_init)
        elif scale is None:
            scale = np.array(1.0, dtype=inputs.dtype)
        if self.create_offset:
            offset = get_parameter("offset", param_shape, inputs.dtype, init=self.offset_init)
        elif offset is None:
            offset = np.array(0.0, dtype=inputs.dtype)
        eps = jnp.asarray(self.eps, dtype=variance.dtype)
        inv = scale * lax.rsqrt(variance + eps)
        return inv * (inputs - mean) + offset
