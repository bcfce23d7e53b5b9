"""Parameter initializers, called as ``init(shape, dtype)`` (Haiku's names and defaults).

They draw their randomness from ``next_rng_key()``, so they work only inside a
transform's init.
"""

from __future__ import annotations

import abc
import math

import numpy as np

import numlir.numpy as jnp
import numlir.random as random
from numlir.layers._transform import next_rng_key


class Initializer(abc.ABC):
    """``init(shape, dtype) -> array``; subclasses say how the values are drawn."""

    @abc.abstractmethod
    def __call__(self, shape, dtype):
        """An array of ``shape`` and ``dtype``."""


class Constant(Initializer):
    def __init__(self, constant):
        self.constant = constant

    def __call__(self, shape, dtype):
        return jnp.broadcast_to(jnp.asarray(self.constant), shape).astype(dtype)


class RandomNormal(Initializer):
    def __init__(self, stddev=1.0, mean=0.0):
        self.stddev, self.mean = stddev, mean

    def __call__(self, shape, dtype):
        return self.mean + self.stddev * random.normal(next_rng_key(), shape, dtype)


class TruncatedNormal(Initializer):
    """``mean + stddev * z``, z a unit normal cut to ``[lower, upper]`` (in units of the
    untruncated stddev, so the default cuts at two standard deviations)."""

    def __init__(self, stddev=1.0, mean=0.0, lower=-2.0, upper=2.0):
        self.stddev, self.mean = stddev, mean
        self.lower, self.upper = lower, upper

    def __call__(self, shape, dtype):
        unscaled = random.truncated_normal(next_rng_key(), self.lower, self.upper, shape, dtype)
        return self.stddev * unscaled + self.mean


class RandomUniform(Initializer):
    def __init__(self, minval=0.0, maxval=1.0):
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype):
        return random.uniform(next_rng_key(), shape, dtype, self.minval, self.maxval)


def _fans(shape, fan_in_axes=None) -> tuple[float, float]:
    """(fan_in, fan_out) for a dense (in, out) or conv (..., in, out) weight; for a weight of
    rank 3 or more, ``fan_in_axes`` names the input axes and the rest are the output's."""
    if len(shape) < 1:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    if len(shape) > 2 and fan_in_axes is not None:  # Haiku ignores fan_in_axes for rank 2
        fan_in = float(np.prod([shape[i] for i in fan_in_axes]))
        fan_out = float(np.prod([n for i, n in enumerate(shape) if i not in fan_in_axes]))
        return fan_in, fan_out
    receptive = float(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    """Variance ``scale / fan``, with fan from ``mode`` (fan_in, fan_out, fan_avg).

    Fans are those of a conv kernel (all leading axes are input) unless ``fan_in_axes``
    lists the input axes (e.g. of multi-head attention weights).
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal",
                 fan_in_axes=None):
        if scale < 0:
            raise ValueError("`scale` must be a positive float.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("Invalid `mode` argument:", mode)
        distribution = distribution.lower()  # Haiku accepts any case
        if distribution not in ("normal", "truncated_normal", "uniform"):
            raise ValueError("Invalid `distribution` argument:", distribution)
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.fan_in_axes = fan_in_axes

    def __call__(self, shape, dtype):
        fan_in, fan_out = _fans(shape, self.fan_in_axes)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, fan)
        if self.distribution == "truncated_normal":
            # The stddev of a unit normal truncated to [-2, 2].
            stddev = math.sqrt(variance) / 0.87962566103423978
            return TruncatedNormal(stddev)(shape, dtype)
        if self.distribution == "normal":
            return RandomNormal(math.sqrt(variance))(shape, dtype)
        limit = math.sqrt(3.0 * variance)
        return RandomUniform(-limit, limit)(shape, dtype)
