"""Linear, Sequential and Flatten."""

from __future__ import annotations

import math
from typing import Callable, Iterable

import numpy as np

import numlir.numpy as jnp
import numlir.random as random
from numlir import lax
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


class Embed(Module):
    """A lookup table of ``vocab_size`` vectors of ``embed_dim`` (parameter ``embeddings``)."""

    def __init__(self, vocab_size: int | None = None, embed_dim: int | None = None,
                 embedding_matrix=None, w_init: Callable | None = None,
                 lookup_style: str = "ARRAY_INDEX", name: str | None = None,
                 precision=lax.Precision.HIGHEST):
        super().__init__(name=name)
        if embedding_matrix is not None:
            vocab_size, embed_dim = np.shape(embedding_matrix)
            w_init = lambda shape, dtype: jnp.asarray(embedding_matrix, dtype)  # noqa: E731
        if vocab_size is None or embed_dim is None:
            raise ValueError("Embed needs vocab_size and embed_dim, or an embedding_matrix")
        if lookup_style not in ("ARRAY_INDEX", "ONE_HOT"):
            raise ValueError(f"lookup_style must be ARRAY_INDEX or ONE_HOT, got {lookup_style!r}")
        self.vocab_size, self.embed_dim = vocab_size, embed_dim
        self.lookup_style = lookup_style
        self.precision = precision
        self.w_init = w_init or initializers.TruncatedNormal()

    @property
    def embeddings(self):
        return get_parameter("embeddings", [self.vocab_size, self.embed_dim], init=self.w_init)

    def __call__(self, ids, lookup_style: str | None = None, precision=None):
        """The vectors of ``ids``; ``lookup_style`` and ``precision`` override the module's.
        ``precision`` is that of the ONE_HOT style's product (indexing has none)."""
        style = lookup_style or self.lookup_style
        table = self.embeddings
        if style == "ONE_HOT":
            one_hot = (jnp.expand_dims(ids, -1) == jnp.arange(self.vocab_size)).astype(table.dtype)
            precision = self.precision if precision is None else precision
            return lax.dot(one_hot, table, precision=precision)
        return table[ids]


def dropout(rng, rate: float, x, broadcast_dims=()):
    """Zeroes each element with probability ``rate`` and scales the rest by ``1/(1-rate)``."""
    if rng is None:
        raise ValueError("dropout needs an rng key (None given)")
    if not 0 <= rate < 1:
        raise ValueError(f"dropout rate must be in [0, 1), got {rate}")
    if rate == 0.0:
        return x
    shape = list(x.shape)
    for dim in broadcast_dims:
        shape[dim] = 1
    keep_rate = 1.0 - rate
    keep = jnp.broadcast_to(random.bernoulli(rng, keep_rate, tuple(shape)), x.shape)
    return keep * x / keep_rate
