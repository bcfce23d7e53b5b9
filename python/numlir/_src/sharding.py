"""Shardings: where the pieces of an array live. numlir has JAX's one-device case.

``SingleDeviceSharding(device)`` is what ``Array.sharding`` returns and what
``device_put`` accepts in place of a device, as in JAX.
"""

from __future__ import annotations


class Sharding:
    """How an array is laid out over devices (jax.sharding.Sharding)."""

    @property
    def device_set(self) -> set:
        raise NotImplementedError


class SingleDeviceSharding(Sharding):
    """The whole array on one device."""

    __slots__ = ("_device", "memory_kind")

    def __init__(self, device, *, memory_kind: str | None = None):
        self._device = device
        self.memory_kind = memory_kind or "device"

    @property
    def device_set(self) -> set:
        return {self._device}

    @property
    def num_devices(self) -> int:
        return 1

    def __eq__(self, other):
        return (isinstance(other, SingleDeviceSharding) and other._device == self._device
                and other.memory_kind == self.memory_kind)

    def __hash__(self):
        return hash((SingleDeviceSharding, self._device, self.memory_kind))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"
