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


@functools.cache
def _entry_points() -> dict[str, metadata.EntryPoint]:
    found = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    if "cpu" not in found:
        # Running from a source tree that was never pip-installed has no
        # package metadata; numlir's own backend must still be reachable.
        found["cpu"] = metadata.EntryPoint(
            "cpu", "numlir._src.backends.cpu:CpuBackend", ENTRY_POINT_GROUP
        )
    return found


def available_backends() -> list[str]:
    """Names of every registered backend."""
    return sorted(_entry_points())


def get_backend(name: str | None = None) -> Backend:
    """The backend called ``name`` (default: ``config.flags.backend``, i.e. "cpu")."""
    return _load_backend(name or config.flags.backend)


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
