"""ExponentialMovingAverage and BatchNorm, whose running statistics are module state."""

from __future__ import annotations

from typing import Callable

import numlir.numpy as jnp
from numlir import lax
from numlir.layers._module import Module
from numlir.layers._transform import get_parameter, get_state, set_state


class ExponentialMovingAverage(Module):
    """A zero-debiased moving average kept in the state (``counter``, ``hidden``,
    ``average``)."""

    def __init__(self, decay, zero_debias: bool = True, warmup_length: int = 0,
                 name: str | None = None):
        super().__init__(name=name)
        if warmup_length < 0:
            raise ValueError(f"`warmup_length` is {warmup_length}, but should be non-negative.")
        if warmup_length and zero_debias:
            raise ValueError("Zero debiasing does not make sense when warming up the value of "
                             "the average to an initial value. Set zero_debias=False if setting "
                             "warmup_length to a non-zero value.")
        self.decay, self.zero_debias, self.warmup_length = decay, zero_debias, warmup_length

    def __call__(self, value, update_stats: bool = True):
        value = jnp.asarray(value)
        counter = get_state("counter", (), jnp.int32,
                            init=lambda shape, dtype: jnp.full(shape, -self.warmup_length, dtype))
        counter = counter + 1
        decay = jnp.asarray(self.decay, value.dtype)
        if self.warmup_length > 0:
            decay = jnp.where(counter <= 0, jnp.zeros((), value.dtype), decay)
        one = jnp.ones([], value.dtype)
        hidden = get_state("hidden", value.shape, value.dtype, init=jnp.zeros)
        hidden = hidden * decay + value * (one - decay)
        average = hidden
        if self.zero_debias:
            average = average / (one - jnp.power(decay, counter))
        if update_stats:
            set_state("counter", counter)
            set_state("hidden", hidden)
            set_state("average", average)
        return average

    @property
    def average(self):
        return get_state("average")


class BatchNorm(Module):
    """Normalizes with the batch's statistics while training and with their moving
    averages otherwise; ``is_training`` updates the averages."""

    def __init__(self, create_scale: bool, create_offset: bool, decay_rate: float,
                 eps: float = 1e-5, scale_init: Callable | None = None,
                 offset_init: Callable | None = None, axis=None, cross_replica_axis=None,
                 cross_replica_axis_index_groups=None, data_format: str = "channels_last",
                 name: str | None = None):
        super().__init__(name=name)
        if not create_scale and scale_init is not None:
            raise ValueError("Cannot set `scale_init` if `create_scale=False`")
        if not create_offset and offset_init is not None:
            raise ValueError("Cannot set `offset_init` if `create_offset=False`")
        if cross_replica_axis is None and cross_replica_axis_index_groups is not None:
            raise ValueError("`cross_replica_axis` name must be specified if "
                             "`cross_replica_axis_index_groups` are used.")
        # statistics are averaged over the named axis (a vmap's, lax/collectives.py)
        self.cross_replica_axis = cross_replica_axis
        self.cross_replica_axis_index_groups = cross_replica_axis_index_groups
        self.create_scale, self.create_offset = create_scale, create_offset
        self.eps = eps
        self.scale_init = scale_init or jnp.ones
        self.offset_init = offset_init or jnp.zeros
        self.axis = axis
        self.channel_index = 1 if data_format.startswith("NC") or data_format == "channels_first" else -1
        self.mean_ema = ExponentialMovingAverage(decay_rate, name="mean_ema")
        self.var_ema = ExponentialMovingAverage(decay_rate, name="var_ema")

    def __call__(self, inputs, is_training: bool, test_local_stats: bool = False, scale=None,
                 offset=None):
        if self.create_scale and scale is not None:
            raise ValueError("Cannot pass `scale` at call time if `create_scale=True`.")
        if self.create_offset and offset is not None:
            raise ValueError("Cannot pass `offset` at call time if `create_offset=True`.")
        channel = self.channel_index % inputs.ndim
        axis = (tuple(a % inputs.ndim for a in self.axis) if self.axis is not None
                else tuple(i for i in range(inputs.ndim) if i != channel))
        if is_training or test_local_stats:
            mean = jnp.mean(inputs, axis, keepdims=True)
            mean_of_squares = jnp.mean(inputs * inputs, axis, keepdims=True)
            if self.cross_replica_axis is not None:
                groups = self.cross_replica_axis_index_groups
                mean = lax.pmean(mean, self.cross_replica_axis, axis_index_groups=groups)
                mean_of_squares = lax.pmean(mean_of_squares, self.cross_replica_axis,
                                            axis_index_groups=groups)
            var = mean_of_squares - mean * mean
        else:
            mean = self.mean_ema.average.astype(inputs.dtype)
            var = self.var_ema.average.astype(inputs.dtype)
        if is_training:
            self.mean_ema(mean)
            self.var_ema(var)
        w_shape = [1 if i in axis else inputs.shape[i] for i in range(inputs.ndim)]
        if self.create_scale:
            scale = get_parameter("scale", w_shape, inputs.dtype, init=self.scale_init)
        elif scale is None:
            scale = jnp.ones([], inputs.dtype)
        if self.create_offset:
            offset = get_parameter("offset", w_shape, inputs.dtype, init=self.offset_init)
        elif offset is None:
            offset = jnp.zeros([], inputs.dtype)
        inv = scale * lax.rsqrt(var + jnp.asarray(self.eps, var.dtype))
        return (inputs - mean) * inv + offset
