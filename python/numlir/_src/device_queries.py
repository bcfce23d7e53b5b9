"""What devices and processes there are, as jax.devices, jax.device_count and friends say.

numlir runs in one process (index 0). The default backend is
``config.flags.backend``; the cpu backend has ``jax_num_cpu_devices`` devices.
"""

from __future__ import annotations

from numlir._src import backends, dispatch


def _backend(backend: str | None):
    return dispatch.get_backend() if backend is None else backends.get_backend(backend)


def default_backend() -> str:
    """The name of the backend jit compiles for ("cpu")."""
    return dispatch.get_backend().name


def devices(backend: str | None = None) -> list:
    """The devices of ``backend`` (the default backend when None)."""
    return list(_backend(backend).devices)


def local_devices(process_index: int | None = None, backend: str | None = None) -> list:
    """The devices this process can address: all of them."""
    if process_index not in (None, 0):
        raise ValueError(f"process_index {process_index} out of range: numlir runs in 1 process")
    return devices(backend)


def device_count(backend: str | None = None) -> int:
    return len(devices(backend))


def local_device_count(backend: str | None = None) -> int:
    return len(local_devices(backend=backend))


def process_index(backend: str | None = None) -> int:
    return 0


def process_count(backend: str | None = None) -> int:
    return 1


def process_indices(backend: str | None = None) -> list[int]:
    return [0]


# jax's older names.
host_id = process_index
host_count = process_count
host_ids = process_indices
