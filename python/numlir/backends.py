"""Writing a numlir backend: the interface numlir's own cpu backend implements, and what a
backend from another package needs (docs/backends.md).

A backend registers under the ``numlir.backends`` entry-point group::

    [project.entry-points."numlir.backends"]
    pool = "numlir_pool_backend:PoolBackend"
"""

from numlir._src.backends import (Backend, BufferSpec, CompileError, Device, Executable,
                                  OutOfMemoryError, Stage, WithExtras, available_backends,
                                  get_backend)
from numlir._src.backends.cpu import CpuBackend, CpuOptions
from numlir._src.backends.plugins import (BackendUnavailableError, drivers, load_driver,
                                          runtime_include_dir)

__all__ = ["Backend", "BackendUnavailableError", "BufferSpec", "CompileError", "CpuBackend",
           "CpuOptions", "Device", "Executable", "OutOfMemoryError", "Stage", "WithExtras",
           "available_backends", "drivers", "get_backend", "load_driver", "runtime_include_dir"]
