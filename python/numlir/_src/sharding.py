"""Shardings: where the pieces of an array live.

``SingleDeviceSharding(device)`` is what ``Array.sharding`` returns and what
``device_put`` accepts in place of a device, as in JAX. ``Mesh``, ``PartitionSpec`` and
``NamedSharding`` describe how shard_map splits arrays over a mesh of devices.
"""

from __future__ import annotations

import collections
import math

import numpy as np


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


class Shard:
    """One device's block of an array (jax.Shard): where it is, which slices of the global
    array, and the block itself."""

    __slots__ = ("device", "index", "data", "replica_id")

    def __init__(self, device, index: tuple, data, replica_id: int = 0):
        self.device, self.index, self.data, self.replica_id = device, index, data, replica_id

    def __repr__(self):
        return f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id})"


class PartitionSpec(tuple):
    """How each dimension of an array splits over mesh axes (jax.sharding.PartitionSpec,
    ``P``): per dimension a mesh axis name, a tuple of names (split over their product,
    the first outermost), or None (not split). Missing trailing entries are None."""

    def __new__(cls, *entries):
        for entry in entries:
            names = entry if isinstance(entry, tuple) else (entry,)
            if entry is not None and not all(isinstance(n, str) for n in names):
                raise TypeError(f"a PartitionSpec entry is a mesh axis name, a tuple of names "
                                f"or None, got {entry!r}")
        return super().__new__(cls, entries)

    def __repr__(self):
        return "P(" + ", ".join(repr(e) for e in self) + ")"

    def names_of(self, dim: int) -> tuple[str, ...]:
        """The mesh axes dimension ``dim`` splits over, outermost first."""
        entry = self[dim] if dim < len(self) else None
        return () if entry is None else entry if isinstance(entry, tuple) else (entry,)

    def axis_names(self) -> set[str]:
        return {n for d in range(len(self)) for n in self.names_of(d)}


P = PartitionSpec


class Mesh:
    """Devices in an n-dimensional array with a name per axis (jax.sharding.Mesh)."""

    def __init__(self, devices, axis_names, axis_types=None):
        self.devices = np.asarray(devices, dtype=object)
        self.axis_names = tuple(axis_names) if isinstance(axis_names, (tuple, list)) \
            else (axis_names,)
        if self.devices.ndim != len(self.axis_names):
            raise ValueError(f"Mesh has {self.devices.ndim} device axes but "
                             f"{len(self.axis_names)} axis names {self.axis_names}")
        if len(set(self.axis_names)) != len(self.axis_names):
            raise ValueError(f"Mesh axis names must be distinct, got {self.axis_names}")
        flat = list(self.devices.flat)
        if len({id(d) for d in flat}) != len(flat):
            raise ValueError("Mesh lists a device twice")
        del axis_types  # numlir's arrays carry no sharding types: every axis is "Auto"

    @property
    def shape(self) -> dict:
        return collections.OrderedDict(zip(self.axis_names, self.devices.shape))

    @property
    def axis_sizes(self) -> tuple[int, ...]:
        return tuple(self.devices.shape)

    @property
    def size(self) -> int:
        return int(self.devices.size)

    @property
    def device_ids(self):
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    def coordinates(self, position: int) -> dict[str, int]:
        """Mesh coordinates of the device at row-major ``position`` in ``devices``."""
        return dict(zip(self.axis_names,
                        (int(i) for i in np.unravel_index(position, self.devices.shape))))

    def __eq__(self, other):
        return (isinstance(other, Mesh) and self.axis_names == other.axis_names
                and self.devices.shape == other.devices.shape
                and all(a is b for a, b in zip(self.devices.flat, other.devices.flat)))

    def __hash__(self):
        return hash((self.axis_names, self.devices.shape, tuple(id(d) for d in self.devices.flat)))

    def __repr__(self):
        sizes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
        return f"Mesh({sizes})"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def block_index(spec: PartitionSpec, mesh: Mesh, dim: int, coords: dict[str, int]) -> tuple[int, int]:
    """(which block, how many blocks) of dimension ``dim`` the device at ``coords`` holds:
    the mixed-radix number of its coordinates on the dimension's axes, outermost first."""
    index, count = 0, 1
    for name in spec.names_of(dim):
        size = mesh.shape[name]
        index, count = index * size + coords[name], count * size
    return index, count


class NamedSharding(Sharding):
    """An array split over a mesh by a PartitionSpec (jax.sharding.NamedSharding)."""

    def __init__(self, mesh: Mesh, spec: PartitionSpec, *, memory_kind: str | None = None):
        self.mesh = mesh
        self.spec = spec if isinstance(spec, PartitionSpec) else PartitionSpec(*spec)
        self.memory_kind = memory_kind or "device"
        unknown = self.spec.axis_names() - set(mesh.axis_names)
        if unknown:
            raise ValueError(f"{self.spec} names mesh axes {sorted(unknown)} that the mesh "
                             f"{mesh} does not have")

    @property
    def device_set(self) -> set:
        return set(self.mesh.devices.flat)

    @property
    def num_devices(self) -> int:
        return self.mesh.size

    @property
    def is_fully_replicated(self) -> bool:
        return not self.spec.axis_names()

    def shard_shape(self, global_shape) -> tuple[int, ...]:
        shape = []
        for dim, size in enumerate(global_shape):
            _, count = block_index(self.spec, self.mesh, dim,
                                   dict.fromkeys(self.mesh.axis_names, 0))
            if size % count:
                raise ValueError(f"dimension {dim} of size {size} does not split into "
                                 f"{count} equal blocks ({self.spec} over {self.mesh})")
            shape.append(size // count)
        return tuple(shape)

    def devices_indices_map(self, global_shape) -> dict:
        """{device: the tuple of slices of the global array it holds}."""
        block = self.shard_shape(global_shape)
        out = {}
        for position, device in enumerate(self.mesh.devices.flat):
            coords = self.mesh.coordinates(position)
            slices = []
            for dim, size in enumerate(block):
                index, count = block_index(self.spec, self.mesh, dim, coords)
                slices.append(slice(None) if count == 1 else
                              slice(index * size, (index + 1) * size))
            out[device] = tuple(slices)
        return out

    def __eq__(self, other):
        return (isinstance(other, NamedSharding) and other.mesh == self.mesh
                and tuple(other.spec) == tuple(self.spec))

    def __hash__(self):
        return hash((NamedSharding, self.mesh, tuple(self.spec)))

    def __repr__(self):
        return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r}, memory_kind={self.memory_kind})"


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None) -> Mesh:
    """A mesh of the first prod(axis_shapes) devices (this process's unless ``devices``),
    in order, reshaped (jax.make_mesh; on CPUs no order is faster than another)."""
    from numlir._src import device_queries

    chosen = list(devices) if devices is not None else device_queries.devices()
    need = math.prod(axis_shapes)
    if need > len(chosen):
        raise ValueError(f"make_mesh{tuple(axis_shapes)} needs {need} devices, but there are "
                         f"{len(chosen)}. Set numlir.config.update('jax_num_cpu_devices', N) "
                         "before the first computation for more CPU devices")
    array = np.empty(need, dtype=object)
    array[:] = chosen[:need]
    return Mesh(array.reshape(tuple(axis_shapes)), axis_names, axis_types)
