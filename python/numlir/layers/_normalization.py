"""LayerNorm: normalization over chosen axes with a learned scale and offset."""

from __future__ import annotations

import collections.abc
from typing import Callable

import numpy as np

import numlir.numpy as jnp
from numlir import lax
from numlir.layers._module import Module
from numlir.layers._transform import get_parameter


def _axes_or_slice(axis):
    """``axis`` as a tuple of ints or a slice, checked when the module is built (as Haiku
    does, so a bad axis fails at construction rather than at the first call)."""
    if isinstance(axis, slice):
        return axis
    if isinstance(axis, int):
        return (axis,)
    if isinstance(axis, collections.abc.Iterable) and all(isinstance(a, int) for a in axis):
        return tuple(axis)
    raise ValueError(f"`axis` should be an int, slice or iterable of ints. Got: {axis}")


def _abs_axes(axis, ndim: int) -> tuple[int, ...]:
    """Sorted non-negative axes; an axis named twice (``[1, -2]`` of 3-d) counts once."""
    if isinstance(axis, slice):
        return tuple(range(ndim)[axis])
    return tuple(sorted({a % ndim for a in axis}))


class LayerNorm(Module):
    """``scale * (x - mean) / sqrt(var + eps) + offset`` with statistics over ``axis``;
    scale and offset have the size of ``param_axis`` (the last axis by default).

    ``axis`` and ``param_axis`` are each an int, a sequence of ints or a slice. As in Haiku,
    normalizing over several axes needs no explicit ``param_axis``: the parameters then have
    the last axis's size (Haiku's check for this is switched off)."""

    def __init__(self, axis, create_scale: bool, create_offset: bool, eps: float = 1e-5,
                 scale_init: Callable | None = None, offset_init: Callable | None = None,
                 use_fast_variance: bool = False, name: str | None = None, *, param_axis=None):
        super().__init__(name=name)
        if not create_scale and scale_init is not None:
            raise ValueError("Cannot set `scale_init` if `create_scale=False`.")
        if not create_offset and offset_init is not None:
            raise ValueError("Cannot set `offset_init` if `create_offset=False`.")
        self.axis = _axes_or_slice(axis)
        self.create_scale, self.create_offset = create_scale, create_offset
        self.eps = eps
        self.scale_init = scale_init or jnp.ones
        self.offset_init = offset_init or jnp.zeros
        self.use_fast_variance = use_fast_variance
        self.param_axis = (-1,) if param_axis is None else _axes_or_slice(param_axis)

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
