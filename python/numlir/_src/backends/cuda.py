"""The CUDA backend: hlo → one gpu.launch per fusion → NVVM → PTX, and a launch program.

Stages (docs/cuda-backend.md): ``launches`` (``hlo-cuda-to-launches``: each hlo.fusion a
``gpu.launch`` on buffers), ``ptx`` (``cuda-launches-to-ptx``: kernels outlined into one
``gpu.module`` and compiled by upstream's NVVM lowering, linking libdevice), then
``executable``: the entry function's launch program (``numlir._compiler_cuda``) packed with
the PTX into the runtime's ``cuda`` payload (docs/cuda-executable.md). Nothing here needs a
GPU: ``jit(f, backend="gpu").lower(x).compile()`` cross-compiles anywhere, and the
executable runs wherever numlir's runtime and an NVIDIA driver are. The runtime's ``cuda``
driver opens ``libcuda.so.1`` when a device is first used; without it, asking for a GPU
device is a clear RuntimeError and CPU work is unaffected.

``NUMLIR_DUMP_DIR`` receives each stage, the kernels' PTX as ``.ptx`` and the launch
program as ``.json``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from numlir import _runtime
from numlir._src import dtypes
from numlir._src.backends import cpu, cuda_payload, cuda_tools
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
from numlir._src.backends.pipelines import Pipeline

ENTRY = "numlir_entry"

#: The chips CUDA 13's ptxas takes, from Volta on; sm_90 (H100) is the default.
SUPPORTED_CHIPS = ("sm_70", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100",
                   "sm_120")


@dataclasses.dataclass(frozen=True)
class CudaOptions:
    """Options of the cuda backend; part of the compilation cache key."""

    chip: str = "sm_90"
    #: The PTX ISA version the kernels declare (8.0 covers sm_70 to sm_90).
    ptx_version: int = 80
    block_size: int = 256
    #: The side of a contraction's output tiles through shared memory (0: untiled).
    tile_size: int = 16
    opt_level: int = 3
    #: Assemble the PTX into a cubin with ptxas (when found) instead of leaving it to the
    #: driver's JIT.
    cubin: bool = False
    libdevice: str = ""


def _native_cuda_compiler():
    # optional dependency: the compiler extension (libMLIR, libLLVM) loads on the first
    # compilation, so running saved executables does not pay for it.
    from numlir import _compiler_cuda

    return _compiler_cuda


def _launch_program(module: str | bytes, options: CudaOptions) -> WithExtras:
    compiler = _native_cuda_compiler()
    try:
        text, gpu_module, constants = compiler.launch_program(module)
    except compiler.CompileError as error:
        raise CompileError(str(error)) from None
    program = json.loads(text)
    module_format = program["module_format"]
    extras: dict[str, str | bytes] = {".json": json.dumps(program, indent=1)}
    if module_format == "ptx":
        extras[".ptx"] = gpu_module.decode()
        if options.cubin and gpu_module:
            try:
                gpu_module, _ = cuda_tools.assemble(gpu_module.decode(), options.chip)
            except RuntimeError as error:
                raise CompileError(str(error)) from None
            module_format = "cubin"
    try:
        payload = cuda_payload.pack(
            program["signature"], gpu_module, module_format, program["num_inputs"],
            program["num_outputs"],
            [cuda_payload.Buffer(**b) for b in program["buffers"]],
            [cuda_payload.Kernel(**k) for k in program["kernels"]],
            [_step(s) for s in program["steps"]], constants)
    except ValueError as error:
        raise CompileError(f"the cuda launch program is malformed: {error}") from None
    return WithExtras(_runtime.wrap_image(payload, "cuda"), extras)


def _step(step: dict) -> cuda_payload.Step:
    if step["kind"] == "launch":
        return cuda_payload.Launch(step["kernel"], tuple(step["grid"]), tuple(step["block"]),
                                   0, tuple(tuple(a) for a in step["args"]))
    return cuda_payload.Copy(step["source"], step["destination"], step["bytes"])


def check_launch_options(block_size: int, tile_size: int) -> None:
    """Raises ValueError for threads per block or a tile side that no launch can have."""
    if not isinstance(block_size, int) or block_size % 32 or not 32 <= block_size <= 1024:
        raise ValueError(f"block_size must be a multiple of 32 from 32 to 1024, got "
                         f"{block_size!r}")
    if (not isinstance(tile_size, int) or tile_size < 0 or tile_size * tile_size > 1024
            or (tile_size * tile_size) % 32):
        raise ValueError(f"tile_size must be 0 (untiled) or a side whose square is a "
                         f"multiple of 32 up to 1024 (8, 16, 24, 32), got {tile_size!r}")


class CudaBuffer:
    """An array's memory on a GPU: a runtime buffer of the cuda driver, with its dtype and
    shape."""

    __slots__ = ("native", "dtype", "shape")

    def __init__(self, native: Any, dtype: np.dtype, shape: tuple[int, ...]):
        self.native, self.dtype, self.shape = native, dtype, shape

    def __repr__(self) -> str:
        return f"CudaBuffer({self.dtype.name}{list(self.shape)})"


class CudaExecutable(Executable):
    """A cuda image; it is loaded on the GPU at its first run, so that a machine without
    one can compile (and save) it."""

    def __init__(self, image: bytes, device: "CudaDevice"):
        self._image = image
        self._native = None
        self.device = device
        payload = cuda_payload.unpack(_runtime.unwrap_image(image)[1])
        inputs, _, outputs = payload.signature.partition("->")
        self.input_specs = [_spec(s) for s in inputs.split(";") if s]
        self.output_specs = [_spec(s) for s in outputs.split(";") if s]
        #: What a saved executable records: the chip its PTX or cubin is for.
        chip = re.search(rb"\.target (sm_\d+)", payload.module) if payload.module_format == "ptx" else None
        self.target = {"triple": "nvptx64-nvidia-cuda", "format": payload.module_format,
                       "chip": chip.group(1).decode() if chip else ""}
        self._lock = threading.Lock()

    def _loaded(self) -> Any:
        if self._native is None:
            with self._lock:
                if self._native is None:
                    self._native = self.device._runtime_device().load(self._image, ENTRY)
        return self._native

    def execute(self, args: Sequence[CudaBuffer],
                given: dict[int, CudaBuffer] | None = None) -> list[CudaBuffer]:
        native = self._loaded()
        outputs = [given[i] if given and i in given else self.device.allocate(spec)
                   for i, spec in enumerate(self.output_specs)]
        try:
            native.execute_buffers([b.native for b in (*args, *outputs)])
        except MemoryError as error:
            raise OutOfMemoryError(f"{self.name} ran out of memory on {self.device}: "
                                   f"{error}") from None
        return outputs


def _spec(text: str) -> BufferSpec:
    element, _, dims = text.partition("[")
    shape = tuple(int(d) for d in dims.rstrip("]").split(",") if d)
    return BufferSpec(dtypes.from_mlir_element_type(element), shape)


class CudaDevice(Device):
    """One NVIDIA GPU, through the runtime's cuda driver. Its platform is "gpu", as jax's."""

    name = "cuda"
    host_memory = False

    def __init__(self, id: int = 0) -> None:  # noqa: A002 - jax's name
        self.id = id
        self._native = None
        self._lock = threading.Lock()

    @property
    def platform(self) -> str:
        return "gpu"

    @property
    def device_kind(self) -> str:
        return "cuda"

    def _runtime_device(self) -> Any:
        if self._native is None:
            with self._lock:
                if self._native is None:
                    self._native = _runtime.Device("cuda", self.id)
        return self._native

    def is_available(self) -> bool:
        return True

    def load(self, executable: bytes) -> CudaExecutable:
        return CudaExecutable(executable, self)

    def allocate(self, spec: BufferSpec) -> CudaBuffer:
        size = math.prod(spec.shape) * spec.dtype.itemsize
        try:
            native = self._runtime_device().allocate(size)
        except MemoryError as error:
            raise OutOfMemoryError(str(error)) from None
        return CudaBuffer(native, spec.dtype, spec.shape)

    def put(self, value: np.ndarray) -> CudaBuffer:
        value = np.asarray(value, order="C")
        buffer = self.allocate(BufferSpec(value.dtype, value.shape))
        buffer.native.copy_from_host(value.reshape(-1).view(np.uint8))
        return buffer

    def get(self, buffer: CudaBuffer) -> np.ndarray:
        host = np.empty(buffer.shape, buffer.dtype)
        buffer.native.copy_to_host(host.reshape(-1).view(np.uint8))
        host.flags.writeable = False
        return host

    def synchronize(self) -> None:
        if self._native is not None:
            self._native.synchronize()


class CudaBackend(Backend):
    """NVIDIA GPUs through numlir's own code generator. ``device`` is GPU 0 even on a
    machine without one, so that jit(backend="gpu") compiles there; ``devices`` asks the
    driver, and says clearly when there is none."""

    name = "cuda"

    def __init__(self) -> None:
        self._first = CudaDevice(0)
        self._devices: list[CudaDevice] | None = None

    @property
    def device(self) -> CudaDevice:
        return self._first

    @property
    def devices(self) -> list[CudaDevice]:
        if self._devices is None:
            try:
                self._first._runtime_device()
            except RuntimeError as error:
                raise RuntimeError(
                    f"numlir found no GPU: {error}. The cuda backend still compiles here "
                    "(jit(f, backend='gpu').lower(...).compile()), for a machine with an "
                    "NVIDIA driver to run") from None
            self._devices = [self._first, *(CudaDevice(i) for i in range(1, _device_count()))]
        return self._devices

    def has_several_devices(self) -> bool:
        try:
            return len(self.devices) > 1
        except RuntimeError:  # no driver: compiling for GPU 0 only
            return False

    def parse_options(self, *, chip: str | None = None, block_size: int = 256,
                      tile_size: int = 16, opt_level: int = 3,
                      cubin: bool = False) -> CudaOptions:
        chip = chip or "sm_90"
        if chip not in SUPPORTED_CHIPS:
            raise ValueError(f"cuda chip must be one of {', '.join(SUPPORTED_CHIPS)}, got "
                             f"{chip!r}")
        check_launch_options(block_size, tile_size)
        if opt_level not in (0, 1, 2, 3):
            raise ValueError(f"cuda opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
        libdevice = cuda_tools.libdevice_path()
        if libdevice is None:
            raise CompileError(
                "the cuda backend links libdevice.10.bc into its kernels (math functions) and "
                "found none: pip install nvidia-nvvm, install a CUDA toolkit, or set "
                "NUMLIR_LIBDEVICE to its path")
        return CudaOptions(chip=chip, block_size=block_size, tile_size=tile_size,
                           opt_level=opt_level,
                           cubin=bool(cubin), libdevice=libdevice)

    def stages(self, options: CudaOptions) -> list[Stage]:
        return [
            cpu._pipeline_stage("launches", Pipeline.of("hlo-cuda-to-launches",
                                                        block_size=options.block_size,
                                                        tile_size=options.tile_size)),
            cpu._pipeline_stage("ptx", Pipeline.of(
                "cuda-launches-to-ptx", chip=options.chip,
                features=f"+ptx{options.ptx_version}", libdevice=options.libdevice,
                opt_level=options.opt_level)),
            Stage("executable", ".nlx", _launch_program),
        ]

    def describe_target(self) -> dict:
        return {"triple": "nvptx64-nvidia-cuda"}

    def cache_identity(self, options: CudaOptions) -> str | None:
        identity = cpu._toolchain_identity()
        return f"{identity}\ncuda {options!r}\n{cpu._file_identity(options.libdevice)}"


def _device_count() -> int:
    count = 1
    while True:
        try:
            _runtime.Device("cuda", count)
        except (RuntimeError, LookupError, KeyError, ValueError):
            return count
        count += 1
