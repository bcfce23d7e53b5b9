"""An example numlir backend from outside numlir: see README.md."""

from numlir_pool_backend.backend import PoolBackend, PoolBuffer, PoolDevice, PoolOptions

__all__ = ["PoolBackend", "PoolBuffer", "PoolDevice", "PoolOptions"]
