"""Backend discovery: targets register under the ``numlir.backends`` entry points.

    >>> from numlir._src import backends
    >>> backends.get_backend().name
    'cpu'
"""

from __future__ import annotations

import functools
from importlib import metadata

from numlir._src import config
from numlir._src.backends.base import (
    Backend,
    BufferSpec,
    CompileError,
    Device,
    Executable,
    OutOfMemoryError,
    Stage,
    WithExtras,
)

__all__ = [
    "Backend",
    "BufferSpec",
    "CompileError",
    "Device",
    "Executable",
    "OutOfMemoryError",
    "Stage",
    "WithExtras",
    "available_backends",
    "get_backend",
]

ENTRY_POINT_GROUP = "numlir.backends"
#: numlir's own backends (pyproject.toml registers the same entry points).
_OWN_BACKENDS = {
    "cpu": "numlir._src.backends.cpu:CpuBackend",
    "cuda": "numlir._src.backends.cuda:CudaBackend",
    "cuda_emulated": "numlir._src.backends.cuda_emulated:CudaEmulatedBackend",
}
#: Other names of backends, as jax's: "gpu" is NVIDIA's here.
_ALIASES = {"gpu": "cuda"}
#: Entry points of callables that name backends only known at run time (the PJRT plugins
#: NUMLIR_PJRT_PLUGINS lists): each returns {name: a callable making that Backend}. numlir
#: calls them when it first looks a backend up, so they should import little.
PROVIDER_GROUP = "numlir.backend_providers"


class _Provided:
    """A backend a provider named: loads, as an entry point, to what makes it."""

    def __init__(self, make):
        self._make = make

    def load(self):
        return self._make


@functools.cache
def _entry_points() -> dict:
    found: dict = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    # Running from a source tree that was never pip-installed has no package
    # metadata; numlir's own backends must still be reachable.
    for name, value in _OWN_BACKENDS.items():
        if name not in found:
            found[name] = metadata.EntryPoint(name, value, ENTRY_POINT_GROUP)
    for provider in metadata.entry_points(group=PROVIDER_GROUP):
        for name, make in provider.load()().items():
            if name in found:
                raise ValueError(f"backend provider {provider.value} names {name!r}, which is "
                                 "already a registered backend")
            found[name] = _Provided(make)
    return found


def available_backends() -> list[str]:
    """Names of every registered backend."""
    return sorted(_entry_points())


def get_backend(name: str | None = None) -> Backend:
    """The backend called ``name`` (default: ``config.flags.backend``, i.e. "cpu")."""
    name = name or config.flags.backend
    return _load_backend(_ALIASES.get(name, name))


@functools.cache
def _load_backend(name: str) -> Backend:
    entry_points = _entry_points()
    if name not in entry_points:
        raise ValueError(
            f"unknown numlir backend {name!r}; registered backends: "
            f"{', '.join(available_backends())}"
        )
    backend_class = entry_points[name].load()
    backend = backend_class()
    if not isinstance(backend, Backend):
        raise TypeError(f"entry point {name!r} did not produce a numlir Backend: {backend!r}")
    return backend
