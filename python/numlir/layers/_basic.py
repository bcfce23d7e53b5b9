"""Linear, Sequential and Flatten."""

from __future__ import annotations

import math
from typing import Callable, Iterable

import numpy as np

import numlir.numpy as jnp
from numlir.layers import initializers
from numlir.layers._module import Module
from numlir.layers._transform import get_parameter


class Linear(Module):
    """``x @ w + b``; ``w`` defaults to a truncated normal of stddev ``1/sqrt(fan_in)``."""

    def __init__(self, output_size: int, with_bias: bool = True, w_init: Callable | None = None,
                 b_init: Callable | None = None, name: str | None = None):
        super().__init__(name=name)
        self.input_size = None
        self.output_size = output_size
        self.with_bias = with_bias
        self.w_init = w_init
        self.b_init = b_init or jnp.zeros

    def __call__(self, inputs, *, precision=None):
        if not inputs.shape:
            raise ValueError("Input must not be scalar.")
        input_size = self.input_size = inputs.shape[-1]
        dtype = inputs.dtype
        w_init = self.w_init or initializers.TruncatedNormal(1.0 / math.sqrt(input_size))
        w = get_parameter("w", [input_size, self.output_size], dtype, init=w_init)
        out = jnp.dot(inputs, w)
        if self.with_bias:
            b = get_parameter("b", [self.output_size], dtype, init=self.b_init)
            out = out + jnp.broadcast_to(b, out.shape)
        return out


class Sequential(Module):
    """Calls its layers in turn; extra arguments go to the first one only."""

    def __init__(self, layers: Iterable[Callable], name: str | None = None):
        super().__init__(name=name)
        self.layers = tuple(layers)

    def __call__(self, inputs, *args, **kwargs):
        out = inputs
        for i, layer in enumerate(self.layers):
            out = layer(out, *args, **kwargs) if i == 0 else layer(out)
        return out


class Flatten(Module):
    """Flattens all dimensions after the first ``preserve_dims``."""

    def __init__(self, preserve_dims: int = 1, name: str | None = None):
        super().__init__(name=name)
        self.preserve_dims = preserve_dims

    def __call__(self, inputs):
        if inputs.ndim <= self.preserve_dims:
            return inputs
        kept = inputs.shape[:self.preserve_dims]
        return jnp.reshape(inputs, kept + (int(np.prod(inputs.shape[self.preserve_dims:])),))
