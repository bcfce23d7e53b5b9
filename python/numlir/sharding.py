"""Shardings, as ``jax.sharding``: how an array is laid out over devices."""

from numlir._src.sharding import Sharding, SingleDeviceSharding

__all__ = ["Sharding", "SingleDeviceSharding"]
