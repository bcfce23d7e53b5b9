"""``cuda_emulated``: the CUDA backend's kernels, run on the host (a test path).

No GPU is within reach of numlir's tests, so the kernels the ``cuda`` backend
writes are checked here: the same stage that lowers hlo to one ``gpu.launch`` per
fusion (``hlo-cuda-to-launches``), then ``cuda-emulate-on-host``, which runs each
launch's blocks and threads as loops (barriers and block reductions with their
meaning), then the CPU backend's stages to machine code. Its devices are CPU
devices of its own. What this tests is numlir's grid mapping, indexing, row and
reduction logic; what it cannot test (LLVM's NVPTX code generation, the driver's
launches) docs/cuda-backend.md names. Not a user backend: it is slow by design
(a block's threads run one after another).
"""

from __future__ import annotations

import dataclasses

from numlir._src.backends import cpu, cuda
from numlir._src.backends.base import Stage
from numlir._src.backends.pipelines import Pipeline


@dataclasses.dataclass(frozen=True)
class CudaEmulatedOptions(cpu.CpuOptions):
    """The CPU backend's options, plus the kernels' threads per block and the side of a
    contraction's output tiles (0: untiled)."""

    block_size: int = 256
    tile_size: int = 16


class CudaEmulatedDevice(cpu.CpuDevice):
    """A CPU device that runs the emulated kernels; host memory, like the cpu backend's."""

    name = "cuda_emulated"


class CudaEmulatedBackend(cpu.CpuBackend):
    name = "cuda_emulated"
    device_class = CudaEmulatedDevice

    def parse_options(self, *, block_size: int = 256, tile_size: int = 16,
                      **cpu_options) -> CudaEmulatedOptions:
        cuda.check_launch_options(block_size, tile_size)
        base = super().parse_options(**cpu_options)
        return CudaEmulatedOptions(**dataclasses.asdict(base), block_size=block_size,
                                   tile_size=tile_size)

    def eager_options(self, prim_name: str, in_avals, out_avals) -> None:
        return None

    def library_routines(self) -> frozenset[str]:
        # The emulated kernels are the cuda backend's, which has no library calls.
        return frozenset()

    def cache_identity(self, options: CudaEmulatedOptions) -> str | None:
        identity = super().cache_identity(options)
        return None if identity is None else f"{identity}\ncuda_emulated"

    def stages(self, options: CudaEmulatedOptions) -> list[Stage]:
        return [
            cpu._pipeline_stage("launches", Pipeline.of("hlo-cuda-to-launches",
                                                        block_size=options.block_size,
                                                        tile_size=options.tile_size)),
            cpu._pipeline_stage("host-loops", Pipeline("cuda-emulate-on-host")),
            cpu._pipeline_stage("llvm", cpu._pipeline("hlo-cpu-to-llvm", options)),
            Stage("llvm-ir", ".ll", cpu._translate),
            Stage("object", ".o", cpu._emit_object),
            Stage("executable", ".nlx", cpu._link),
        ]
