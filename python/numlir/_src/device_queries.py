"""What devices and processes there are, as jax.devices, jax.device_count and friends say.

One process (index 0) unless numlir.distributed joined several: then ``devices()`` lists
every process's devices and ``local_devices()`` this process's. The default backend is
``config.flags.backend``; the cpu backend has ``jax_num_cpu_devices`` devices per process.
"""

from __future__ import annotations

from numlir._src import backends, dispatch, distributed


def _backend(backend: str | None):
    return dispatch.get_backend() if backend is None else backends.get_backend(backend)


def default_backend() -> str:
    """The name of the backend jit compiles for ("cpu")."""
    return dispatch.get_backend().name


def devices(backend: str | None = None) -> list:
    """Every process's devices of ``backend`` (the default backend when None)."""
    return list(_backend(backend).global_devices)


def local_devices(process_index: int | None = None, backend: str | None = None) -> list:
    """The devices of process ``process_index`` (this one when None)."""
    if process_index is None:
        return list(_backend(backend).devices)
    count = distributed.state.process_count
    if not 0 <= process_index < count:
        raise ValueError(f"process_index {process_index} out of range: numlir runs in "
                         f"{count} process{'' if count == 1 else 'es'}")
    return [d for d in devices(backend) if d.process_index == process_index]


def device_count(backend: str | None = None) -> int:
    return len(devices(backend))


def local_device_count(backend: str | None = None) -> int:
    return len(local_devices(backend=backend))


def process_index(backend: str | None = None) -> int:
    return distributed.state.process_index


def process_count(backend: str | None = None) -> int:
    return distributed.state.process_count


def process_indices(backend: str | None = None) -> list[int]:
    return list(range(distributed.state.process_count))


# jax's older names.
host_id = process_index
host_count = process_count
host_ids = process_indices
