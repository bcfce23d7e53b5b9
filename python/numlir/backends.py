"""Writing a numlir backend: the interface numlir's own cpu backend implements, and what a
backend from another package needs (docs/backends.md).

``stablehlo_from_hlo`` writes numlir's hlo as StableHLO, for backends whose compiler takes
it (PJRT plugins; docs/stablehlo.md). A backend registers under the ``numlir.backends``
entry-point group::

    [project.entry-points."numlir.backends"]
    pool = "numlir_pool_backend:PoolBackend"
"""

from numlir._src.backends import (Backend, BufferSpec, CompileError, Device, Executable,
                                  OutOfMemoryError, Stage, WithExtras, available_backends,
                                  get_backend)
from numlir._src.backends.cpu import CpuBackend, CpuOptions
from numlir._src.backends.plugins import (BackendUnavailableError, drivers, load_driver,
                                          runtime_include_dir)
from numlir._src.backends.stablehlo import from_hlo as stablehlo_from_hlo

__all__ = ["Backend", "BackendUnavailableError", "BufferSpec", "CompileError", "CpuBackend",
           "CpuOptions", "Device", "Executable", "OutOfMemoryError", "Stage", "WithExtras",
           "available_backends", "drivers", "get_backend", "load_driver", "runtime_include_dir",
           "stablehlo_from_hlo"]
