"""numlir's PJRT backends (docs/pjrt.md): numlir programs as StableHLO, compiled and run by
jaxlib's PJRT clients. ``tpu`` runs on TPUs through libtpu; ``pjrt_cpu`` on jaxlib's CPU
client, which is how CI tests this package."""

from numlir_pjrt.backend import PjrtBackend, PjrtCpuBackend, PjrtOptions, TpuBackend
from numlir_pjrt.device import PjrtDevice, PjrtExecutable

__all__ = ["PjrtBackend", "PjrtCpuBackend", "PjrtDevice", "PjrtExecutable", "PjrtOptions",
           "TpuBackend"]
