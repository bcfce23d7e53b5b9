"""numlir.nn.initializers: jax.nn.initializers' names and values (Flax uses the same ones).

An initializer is ``init(key, shape, dtype=float32) -> Array``; the factories
(``normal(stddev)``, ``variance_scaling(...)``, ``glorot_uniform()``...) return one.

Example::

    >>> init = numlir.nn.initializers.glorot_uniform()
    >>> w = init(numlir.random.PRNGKey(0), (784, 128))
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numlir.numpy as jnp
from numlir import random
from numlir._src import dtypes

Initializer = Callable[..., "jnp.ndarray"]

__all__ = [
    "Initializer", "constant", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
    "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones",
    "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
    "orthogonal", "delta_orthogonal",
]


def _dtype(dtype):
    return dtypes.default_float_dtype() if dtype is None else dtype


def zeros(key, shape: Sequence[int], dtype=None):
    """An initializer returning zeros: ``zeros(key, (2, 3))``."""
    return jnp.zeros(shape, _dtype(dtype))


def ones(key, shape: Sequence[int], dtype=None):
    """An initializer returning ones: ``ones(key, (2, 3))``."""
    return jnp.ones(shape, _dtype(dtype))


def constant(value, dtype=None) -> Initializer:
    """An initializer filling with ``value``: ``constant(0.1)(key, (3,))``."""

    def init(key, shape: Sequence[int], dtype=dtype):
        return jnp.full(shape, value, dtype=_dtype(dtype))

    return init


def uniform(scale=1e-2, dtype=None) -> Initializer:
    """Uniform in ``[0, scale)``: ``uniform(0.1)(key, (3, 4))``."""

    def init(key, shape: Sequence[int], dtype=dtype):
        dtype = _dtype(dtype)
        return random.uniform(key, shape, dtype) * jnp.array(scale, dtype)

    return init


def normal(stddev=1e-2, dtype=None) -> Initializer:
    """Normal with mean 0 and ``stddev``: ``normal(0.02)(key, (3, 4))``."""

    def init(key, shape: Sequence[int], dtype=dtype):
        dtype = _dtype(dtype)
        return random.normal(key, shape, dtype) * jnp.array(stddev, dtype)

    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0) -> Initializer:
    """``stddev`` times a standard normal truncated to ``(lower, upper)``.

    Example::

        >>> truncated_normal(0.02)(key, (3, 4))
    """

    def init(key, shape: Sequence[int], dtype=dtype):
        dtype = _dtype(dtype)
        return random.truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev, dtype)

    return init


def _axis_size(shape, axis) -> int:
    if isinstance(axis, int):
        return shape[axis]
    return math.prod(shape[i] for i in axis)


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()) -> tuple[float, float]:
    """(fan_in, fan_out): the in/out axis sizes times the receptive field (the other axes)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                         "weights tensor with default in_axis. Must be at least 2D or specify "
                         "in_axis explicitly.")
    in_size = _axis_size(shape, in_axis)
    out_size = _axis_size(shape, out_axis)
    batch_size = _axis_size(shape, batch_axis)
    receptive_field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field, out_size * receptive_field


def variance_scaling(scale, mode: str, distribution: str, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None) -> Initializer:
    """Samples with variance ``scale / n``, ``n`` from ``mode`` (fan_in, fan_out, fan_avg, fan_geo_avg).

    ``distribution`` is "truncated_normal" (truncated to 2 stddevs and rescaled),
    "normal" or "uniform".

    Example::

        >>> init = variance_scaling(2.0, "fan_in", "truncated_normal")   # he_normal
        >>> w = init(numlir.random.PRNGKey(0), (3, 3, 16, 32))
    """
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    def init(key, shape: Sequence[int], dtype=dtype):
        shape = tuple(shape)
        dtype = _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                       "fan_geo_avg": (fan_in * fan_out) ** 0.5}.get(mode)
        if denominator is None:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / denominator, dtype=dtype)
        if distribution == "truncated_normal":
            # .8796... is the stddev of a standard normal truncated to (-2, 2)
            stddev = jnp.sqrt(variance) / jnp.array(0.87962566103423978, dtype)
            return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)

    return init


def _preset(scale: float, mode: str, distribution: str, name: str, doc: str):
    def factory(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                                batch_axis=batch_axis, dtype=dtype)

    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = f"{doc}: ``variance_scaling({scale}, {mode!r}, {distribution!r})``.\n\n" \
                      f"Example::\n\n    >>> w = {name}()(numlir.random.PRNGKey(0), (64, 32))\n"
    return factory


glorot_uniform = _preset(1.0, "fan_avg", "uniform", "glorot_uniform", "Glorot/Xavier uniform")
glorot_normal = _preset(1.0, "fan_avg", "truncated_normal", "glorot_normal", "Glorot/Xavier normal")
lecun_uniform = _preset(1.0, "fan_in", "uniform", "lecun_uniform", "LeCun uniform")
lecun_normal = _preset(1.0, "fan_in", "truncated_normal", "lecun_normal", "LeCun normal")
he_uniform = _preset(2.0, "fan_in", "uniform", "he_uniform", "He/Kaiming uniform")
he_normal = _preset(2.0, "fan_in", "truncated_normal", "he_normal", "He/Kaiming normal")
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale=1.0, column_axis: int = -1, dtype=None) -> Initializer:
    """Uniformly distributed orthogonal matrices (``random.orthogonal``) times ``scale``: the
    ``column_axis`` against all other axes flattened.

    Example::

        >>> w = orthogonal()(numlir.random.PRNGKey(0), (4, 3))   # w.T @ w == I
    """

    def init(key, shape: Sequence[int], dtype=dtype):
        shape = tuple(shape)
        dtype = _dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if 0 in shape:
            return jnp.zeros(shape, dtype)
        columns = shape[column_axis]
        rows = math.prod(shape) // columns
        q = random.orthogonal(key, rows, (), dtype, columns)
        others = tuple(d for i, d in enumerate(shape) if i != column_axis % len(shape))
        q = jnp.moveaxis(jnp.reshape(q, others + (columns,)), -1, column_axis)
        return jnp.array(scale, dtype) * q

    return init


def delta_orthogonal(scale=1.0, column_axis: int = -1, dtype=None) -> Initializer:
    """Convolution kernels (3-D to 5-D) that are an orthogonal matrix at the spatial centre
    and zero elsewhere (Xiao et al. 2018), as ``jax.nn.initializers.delta_orthogonal``."""

    def init(key, shape: Sequence[int], dtype=dtype):
        shape = tuple(shape)
        dtype = _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype).at[centre].set(matrix)

    return init

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
