"""Shardings, as ``jax.sharding``: how an array is laid out over devices."""

from numlir._src.sharding import (Mesh, NamedSharding, PartitionSpec, Sharding,
                                  SingleDeviceSharding)

__all__ = ["Mesh", "NamedSharding", "PartitionSpec", "Sharding", "SingleDeviceSharding"]
