"""The host CPU backend: hlo → linalg → LLVM → object → shared library.

Each stage is one call into the native compiler: the pipelines through the
generic ``numlir._compiler``, LLVM IR, the object and the link through the
CPU's own ``numlir._compiler_cpu``. The last links the object into a shared
library (with lld in process, or the C compiler driver NUMLIR_CC names) and
wraps it in the runtime's image format (a header with the size
and checksums, docs/runtime.md), which the runtime (``numlir._runtime``)
verifies and loads. Executables follow the runtime's C ABI:
``void numlir_entry(void **buffers)``. NUMLIR_DUMP_DIR gets the image
(``.nlx``, loadable with ``_runtime.Device().load_file``) and the bare shared
library (``.so``, for nm and objdump).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import platform
import re
import shutil
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from numlir import _runtime
from numlir._src import config, distributed, dtypes
from numlir._src.backends import cpu_libraries, host_cpu
from numlir._src.backends.base import (
    Backend,
    BufferSpec,
    CompileError,
    Device,
    Executable,
    Stage,
    WithExtras,
    format_bytes,
    out_of_memory,
)
from numlir._src.backends.pipelines import Pipeline

ENTRY = "numlir_entry"


def _native_compiler():
    # optional dependency: the compiler extension (libMLIR, libLLVM) loads on the first
    # compilation, so running saved executables and `import numlir` do not pay for it.
    from numlir import _compiler

    return _compiler


def _native_cpu_compiler():
    """The CPU backend's own calls (LLVM IR, object code, linking, the host target):
    ``numlir._compiler_cpu``, which raises ``_compiler.CompileError`` too."""
    from numlir import _compiler_cpu

    return _compiler_cpu


#: The linker option that means lld inside the compiler library (the default);
#: any other value names a C compiler driver run as a process (NUMLIR_CC).
BUILTIN_LINKER = "lld"


@dataclasses.dataclass(frozen=True)
class CpuOptions:
    """Options of the cpu backend; part of the compilation cache key."""

    opt_level: int = 3
    linker: str = "lld"
    llvm_unroll: bool = False
    #: Chunks a large op is split into for the OpenMP threads (cpu-parallelize-loops):
    #: NUMLIR_NUM_THREADS, or 0 for the compiling host's cores; 1 splits nothing.
    threads: int = 0
    #: The smallest op split across threads, and the shortest reduction split into
    #: partials, in loop iterations (config.cpu_parallel_min_iterations).
    parallel_min_iterations: int = 131072
    #: Functions of this many LLVM instructions or more have their loop nests outlined,
    #: and modules of twice that compile on `threads` threads
    #: (config.cpu_outline_min_instructions). Smaller functions cost LLVM little, and
    #: their loops keep seeing that the buffers they allocate are distinct.
    outline_min_instructions: int = 2000
    #: The smallest run of row-local ops (softmax, layer norm) run row tile by row tile,
    #: in bytes of the buffers it reads and writes by rows; -1 turns that off
    #: (config.cpu_row_fusion_min_bytes).
    row_fusion_min_bytes: int = 1 << 20
    #: The largest temporary given an offset in the function's arena (assign-buffers);
    #: 0 places none (config.cpu_arena_max_buffer_bytes).
    arena_max_buffer_bytes: int = 64 << 20


@functools.cache
def _num_threads() -> int:
    """NUMLIR_NUM_THREADS, read once, as the runtime reads it once (0 when unset)."""
    text = os.environ.get("NUMLIR_NUM_THREADS", "").strip()
    if not text:
        return 0
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ValueError(f"NUMLIR_NUM_THREADS must be a positive thread count, got {text!r}")
    return count


#: Mapped files whose build determines what the cpu backend produces: numlir's
#: compiler and runtime, and the MLIR and LLVM libraries they link.
_TOOLCHAIN_FILES = re.compile(
    r"^(_compiler\.|_compiler_cpu\.|_runtime\.|libNumlirCompiler|libnlrt|libMLIR|libLLVM)")


def _file_identity(path: str) -> str:
    info = os.stat(path)
    return f"{os.path.realpath(path)}:{info.st_size}:{info.st_mtime_ns}"  # stat follows links


@functools.cache
def _toolchain_identity() -> str:
    """The compiler and runtime builds and the host CPU; a rebuild or an upgrade of any
    library (a new size or mtime) makes every earlier cache entry unreachable."""
    compiler = _native_cpu_compiler()
    triple, cpu, features = compiler.host_target()
    paths = {_native_compiler().__file__, compiler.__file__, _runtime.__file__}
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split(maxsplit=5)
                path = fields[5].strip() if len(fields) == 6 else ""
                if path.startswith("/") and _TOOLCHAIN_FILES.match(os.path.basename(path)):
                    paths.add(path)
    except OSError:  # no procfs: the extension modules themselves still count
        pass
    files = sorted({_file_identity(p) for p in paths if os.path.exists(p)})
    return "\n".join([triple, cpu, features, f"abi {_runtime.ABI_VERSION} image {_runtime.IMAGE_FORMAT_VERSION}", *files])


def _run_external_hlo_opt(hlo_opt: str, text: str, pipeline: Pipeline) -> str:
    result = subprocess.run(
        [hlo_opt, pipeline.flag, "--mlir-print-debuginfo", "-"],
        input=text, capture_output=True, text=True,
    )
    if result.returncode != 0:
        raise CompileError(f"pipeline '{pipeline.text}' failed in {hlo_opt}:\n{result.stderr}")
    return result.stdout


def _pipeline(name: str, options: CpuOptions) -> Pipeline:
    """The named pipeline with the options' settings of it (Pipelines.h has their meaning):
    how many chunks ops and row tiles are split into, the smallest op split across threads
    and the shortest reduction split into partials, the smallest run of row-local ops
    fused, and the largest buffer placed in the arena."""
    if name == "hlo-cpu-to-linalg":
        return Pipeline.of(name, min_iterations=options.parallel_min_iterations)
    if name == "hlo-cpu-to-llvm":
        return Pipeline.of(name, threads=options.threads,
                           min_iterations=options.parallel_min_iterations,
                           row_fusion_min_bytes=options.row_fusion_min_bytes,
                           arena_max_buffer_bytes=options.arena_max_buffer_bytes)
    return Pipeline(name)


def _binary_boundaries() -> bool:
    """Whether the stages hand each other MLIR bytecode and LLVM bitcode instead of text.

    They do unless someone reads the text: a dump (NUMLIR_DUMP_DIR) or an external
    hlo-opt (NUMLIR_HLO_OPT). W7's LLVM-dialect module is 3 MB of text, and printing
    and parsing it and its LLVM IR took a tenth of its compile time."""
    return not config.flags.dump_dir and not config.flags.hlo_opt


def _pipeline_stage(name: str, pipeline: Pipeline) -> Stage:
    def run(module: str | bytes, options: CpuOptions) -> str | bytes:
        if config.flags.hlo_opt:
            return _run_external_hlo_opt(config.flags.hlo_opt, module, pipeline)
        compiler = _native_compiler()
        try:
            return compiler.run_pipeline(module, pipeline.anchored, name,
                                         bytecode=_binary_boundaries())
        except compiler.CompileError as error:
            raise CompileError(str(error)) from None

    return Stage(name, ".mlir", run, replay=pipeline.replay)


def _translate(module: str | bytes, options: CpuOptions) -> str | bytes:
    compiler = _native_cpu_compiler()
    try:
        return compiler.translate_to_llvm_ir(module, bitcode=_binary_boundaries())
    except compiler.CompileError as error:
        raise CompileError(str(error)) from None


def _emit_object(ir: str | bytes, options: CpuOptions) -> WithExtras:
    compiler = _native_cpu_compiler()
    try:
        optimized, obj = compiler.compile_llvm_ir_for_host(
            ir, options.opt_level, options.llvm_unroll, threads=options.threads,
            print_optimized_ir=bool(config.flags.dump_dir),
            outline_min_instructions=options.outline_min_instructions)
    except compiler.CompileError as error:
        raise CompileError(str(error)) from None
    return WithExtras(obj, {".opt.ll": optimized} if optimized else {})


def _no_temporary_directory(error: OSError) -> CompileError:
    tmpdir = os.environ.get("TMPDIR")
    setting = f"TMPDIR={tmpdir!r}" if tmpdir else "TMPDIR is unset"
    return CompileError(
        "the cpu backend links each executable in a temporary directory and cannot use one "
        f"({setting}; Python's tempfile picked {tempfile.gettempdir()!r}): {error}. "
        "Set TMPDIR to a writable directory"
    )


def _link_with_driver(linker_name: str, obj_path: str, so_path: str, tmp: str) -> None:
    linker = shutil.which(linker_name)
    if linker is None:
        raise CompileError(
            f"NUMLIR_CC names {linker_name!r} as the linker driver, and it is not on PATH; "
            "install it or unset NUMLIR_CC to link with the built-in lld"
        )
    # Parallel loops call the OpenMP runtime, which the built-in lld links by the file
    # this process loaded; a driver finds it by its soname.
    with open(obj_path, "rb") as f:
        openmp = ["-l:libomp.so.5"] if b"__kmpc_fork_call" in f.read() else []
    result = subprocess.run(
        # A large module arrives as an archive of one object per compile thread.
        [linker, "-shared", "-o", so_path, "-Wl,--whole-archive", obj_path,
         "-Wl,--no-whole-archive", "-lm", *openmp],
        capture_output=True,
        text=True,
        env={**os.environ, "TMPDIR": tmp},
    )
    if result.returncode != 0:
        raise CompileError(f"linking the cpu executable failed:\n{result.stderr}")


def _link(obj: bytes, options: CpuOptions) -> WithExtras:
    # Python's tempfile skips an unusable TMPDIR for the next candidate (/tmp,
    # /var/tmp, the working directory); an external linker runs with TMPDIR
    # set to the directory it found, so its own temporary files land there too.
    try:
        scratch = tempfile.TemporaryDirectory(prefix="numlir-link-")
    except OSError as error:
        raise _no_temporary_directory(error) from None
    with scratch as tmp:
        obj_path = os.path.join(tmp, "module.o")
        so_path = os.path.join(tmp, "module.so")
        try:
            with open(obj_path, "wb") as f:
                f.write(obj)
        except OSError as error:
            raise _no_temporary_directory(error) from None
        if options.linker == BUILTIN_LINKER:
            compiler = _native_cpu_compiler()
            try:
                compiler.link_shared_object(obj_path, so_path)
            except compiler.CompileError as error:
                raise CompileError(str(error)) from None
        else:
            _link_with_driver(options.linker, obj_path, so_path, tmp)
        with open(so_path, "rb") as f:
            shared_object = f.read()
    return WithExtras(_runtime.wrap_image(shared_object, "cpu"), {".so": shared_object})


#: Outputs this large come from the runtime's allocator, which keeps freed
#: blocks for reuse (smaller ones come from malloc's free lists without page
#: faults anyway); the threshold is the runtime's NLRT_CACHE_MIN_BYTES.
POOLED_OUTPUT_BYTES = 64 << 10


def _empty(spec: BufferSpec, size: int) -> np.ndarray:
    if size < POOLED_OUTPUT_BYTES:
        return np.empty(spec.shape, spec.dtype)
    return _runtime.host_buffer(size).view(spec.dtype).reshape(spec.shape)


def _describe(spec: BufferSpec) -> str:
    return f"{spec.dtype.name}[{','.join(map(str, spec.shape))}]"


class CpuExecutable(Executable):
    """A loaded shared library; outputs are fresh numpy arrays."""

    def __init__(self, native: Any, device: "CpuDevice"):
        self._native = native
        self.device = device
        self.input_specs = [BufferSpec(dtypes.from_mlir_element_type(d), tuple(s)) for d, s in native.input_specs]
        self.output_specs = [BufferSpec(dtypes.from_mlir_element_type(d), tuple(s)) for d, s in native.output_specs]

    def execute(self, args: Sequence[np.ndarray],
                given: dict[int, np.ndarray] | None = None) -> list[np.ndarray]:
        """Runs on ``args``; outputs are fresh arrays, or the buffers ``given`` for them."""
        outputs = self.fresh_outputs(given)
        try:
            self._native.execute([*args, *outputs])
        except MemoryError as error:  # _runtime.OutOfMemoryError: a temporary buffer
            # "OUT_OF_MEMORY: 'numlir_entry' (f32[]->f32[]) ran out of memory: <detail>"
            detail = str(error).partition(" ran out of memory: ")[2] or str(error)
            raise out_of_memory(self.name, detail) from None
        return outputs

    def fresh_outputs(self, given: dict[int, np.ndarray] | None = None) -> list[np.ndarray]:
        """One new array per output (or the buffer ``given`` for it)."""
        outputs = []
        for index, spec in enumerate(self.output_specs):
            if given and index in given:
                outputs.append(given[index])
                continue
            size = math.prod(spec.shape) * spec.dtype.itemsize
            try:
                outputs.append(_empty(spec, size))
            except (MemoryError, ValueError, OverflowError):  # more bytes than can be indexed
                raise out_of_memory(
                    self.name,
                    f"allocating its output {index}, a {_describe(spec)} array of {size} bytes "
                    f"({format_bytes(size)}), failed",
                ) from None
        return outputs


class CpuDevice(Device):
    """One of the host's CPU devices: buffers are C-contiguous numpy arrays in host memory,
    and its executables' parallel loops run on a thread team of its own, ``num_threads``
    strong (0: the OpenMP default)."""

    name = "cpu"
    host_memory = True

    def __init__(self, id: int = 0, num_threads: int = 0,  # noqa: A002 - jax's name
                 process_index: int = 0, local_ordinal: int | None = None) -> None:
        self.id = id
        self.num_threads = num_threads
        #: With several processes (numlir.distributed), ids count every process's devices;
        #: the runtime opens this process's by their local ordinal.
        self.process_index = process_index
        self.local_ordinal = id if local_ordinal is None else local_ordinal
        self._native = None
        self._lock = threading.Lock()

    def _runtime_device(self) -> Any:
        if self._native is None:
            if not self.is_available():
                raise RuntimeError(
                    f"{self} belongs to process {self.process_index}; this is process "
                    f"{distributed.state.process_index}, which can only use its own devices "
                    "(numlir.local_devices())")
            with self._lock:  # two threads loading their first executables at once
                if self._native is None:
                    self._native = _runtime.Device("cpu", self.local_ordinal,
                                                   num_threads=self.num_threads)
        return self._native

    def is_available(self) -> bool:
        return self.process_index == distributed.state.process_index

    def put(self, value: np.ndarray) -> np.ndarray:
        return np.array(value, order="C", copy=True)

    def get(self, buffer: np.ndarray) -> np.ndarray:
        return buffer

    def copy_from(self, buffer: Any, source: Device) -> np.ndarray:
        return np.array(source.get(buffer), order="C", copy=True)

    def accepts(self, buffer: Any, source: Device | None) -> bool:
        # Every cpu device reads host memory: another cpu device's buffer (immutable) or
        # host data needs no copy to be read here.
        return type(buffer) is np.ndarray

    def load(self, executable: bytes) -> CpuExecutable:
        return CpuExecutable(self._runtime_device().load(executable, ENTRY), self)

    def target_mismatch(self, target: dict) -> str | None:
        triple, features = target.get("triple", ""), target.get("features", "")
        if not host_cpu.architecture_matches(triple):
            return (f"compiled for {triple or 'an unknown target'}; this machine is "
                    f"{platform.machine()}")
        missing = host_cpu.missing_features(triple, features)
        if missing:
            return (f"compiled for a {target.get('cpu', '?')} CPU with {', '.join(missing)}, "
                    f"which this CPU lacks; compile it again on this machine")
        return None


#: Eager ops whose work grows faster than their buffers: they keep the usual opt level.
_WORK_HEAVY_PRIMITIVES = frozenset({"dot_general", "conv_general_dilated"})


def _available_cores() -> int:
    """The cores this process may run on (its affinity mask), as libomp counts them."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def device_threads(count: int) -> int:
    """The thread team of each of ``count`` cpu devices: an equal share (at least one) of
    NUMLIR_NUM_THREADS or the available cores; 0 (the OpenMP default) for one device."""
    if count == 1:
        return 0
    return max(1, (_num_threads() or _available_cores()) // count)


#: How many cpu devices exist once the first are made: the count cannot change after.
_created_count: int | None = None


def _check_device_count(count: int) -> None:
    if _created_count is not None and count != _created_count:
        raise RuntimeError(
            f"jax_num_cpu_devices (num_cpu_devices) must be set before the cpu devices are "
            f"first used: this process has {_created_count} already, and {count} cannot "
            "replace them. Set it right after importing numlir, or with "
            "NUMLIR_NUM_CPU_DEVICES")


config.on_validate("num_cpu_devices", _check_device_count)


#: Every CpuBackend alive (the registered one; tests make more), for release_communicators.
_backends: weakref.WeakSet = weakref.WeakSet()


def release_communicators() -> None:
    for backend in _backends:
        backend.release_communicators()


class CpuBackend(Backend):
    """numlir's own CPU target, registered like any plugin: ``config.flags.num_cpu_devices``
    devices (JAX's jax_num_cpu_devices), made on first use."""

    name = "cpu"
    #: What its devices are (a device's name is its backend's: dispatch finds one by the other).
    device_class = CpuDevice

    def __init__(self) -> None:
        self._devices: list[CpuDevice] | None = None
        self._global_devices: list[CpuDevice] = []
        # One communicator (a persistent thread per device) per set of devices pmap runs on
        # and replica count.
        self._communicators: dict[tuple, Any] = {}
        self._communicators_lock = threading.Lock()
        _backends.add(self)

    def release_communicators(self) -> None:
        """Drops the communicators (their threads end; those spanning processes free
        their MPI communicator, as MPI_Finalize requires)."""
        with self._communicators_lock:
            self._communicators.clear()

    @property
    def devices(self) -> list[CpuDevice]:
        """This process's devices."""
        if self._devices is None:
            global _created_count
            count = config.flags.num_cpu_devices
            threads = device_threads(count)
            # Every process has `count` (the runtime checks it when they first meet).
            here, processes = distributed.state.process_index, distributed.state.process_count
            self._global_devices = [self.device_class(p * count + i, threads, p, i)
                                    for p in range(processes) for i in range(count)]
            self._devices = self._global_devices[here * count:(here + 1) * count]
            _created_count = count
        return self._devices

    @property
    def global_devices(self) -> list[CpuDevice]:
        self.devices  # noqa: B018 - made together
        return self._global_devices

    @property
    def device(self) -> CpuDevice:
        return self.devices[0]

    def parse_options(self, *, opt_level: int | None = None, linker: str | None = None,
                      llvm_unroll: bool | None = None) -> CpuOptions:
        level = config.flags.cpu_opt_level if opt_level is None else opt_level
        if level not in (0, 1, 2, 3):
            raise ValueError(f"cpu opt_level must be 0, 1, 2 or 3, got {level!r}")
        unroll = config.flags.cpu_llvm_unroll if llvm_unroll is None else bool(llvm_unroll)
        return CpuOptions(opt_level=level, linker=linker or config.flags.linker or BUILTIN_LINKER,
                          llvm_unroll=unroll, threads=self._compile_threads(),
                          parallel_min_iterations=config.flags.cpu_parallel_min_iterations,
                          outline_min_instructions=config.flags.cpu_outline_min_instructions,
                          row_fusion_min_bytes=config.flags.cpu_row_fusion_min_bytes,
                          arena_max_buffer_bytes=config.flags.cpu_arena_max_buffer_bytes)

    def execute_spmd(self, executables: Sequence[CpuExecutable],
                     args: Sequence[Sequence[np.ndarray]],
                     given: Sequence[dict[int, np.ndarray]] | None = None,
                     num_replicas: int | None = None) -> list[list[np.ndarray]]:
        """Runs each executable (one SPMD module, loaded once per device) on its device's
        arguments, all at once on the devices' own threads; their collectives meet in the
        runtime's communicator (across processes through MPI, where ``num_replicas``
        exceeds the executables). ``given[i]`` names buffers for device i's outputs."""
        devices = tuple(exe.device for exe in executables)
        communicator = self.communicator(devices, num_replicas or len(devices))
        outputs = [exe.fresh_outputs(given[i] if given else None)
                   for i, exe in enumerate(executables)]
        communicator.execute([exe._native for exe in executables],
                             [[*a, *o] for a, o in zip(args, outputs)])
        return outputs

    def communicator(self, devices: Sequence[CpuDevice], total: int) -> "_runtime.Communicator":
        """The runtime communicator of SPMD launches on ``devices`` (made on first use), of
        ``total`` replicas in all processes."""
        key = (tuple(device.id for device in devices), total)
        with self._communicators_lock:
            communicator = self._communicators.get(key)
            if communicator is None:
                # Spanning processes, every process creates it here, in the same order
                # (its first pmap of this shape), and the runtime checks they agree.
                spanning = {} if total == len(devices) else {
                    "first_replica": distributed.state.process_index * len(devices),
                    "num_replicas": total}
                communicator = _runtime.Communicator(
                    [device._runtime_device() for device in devices],
                    timeout_ms=min(int(config.flags.collective_timeout * 1000), 2**32 - 1),
                    **spanning)
                self._communicators[key] = communicator
        return communicator

    def _compile_threads(self) -> int:
        """The chunks parallel loops are split into: one per thread of a device's team."""
        devices = self.devices
        return devices[0].num_threads if len(devices) > 1 else _num_threads()

    def library_routines(self) -> frozenset[str]:
        if not config.flags.cpu_library_calls:
            return frozenset()
        return cpu_libraries.available_routines()

    def eager_options(self, prim_name: str, in_avals, out_avals) -> CpuOptions | None:
        level = config.flags.cpu_small_eager_opt_level
        if level < 0 or level == config.flags.cpu_opt_level or prim_name in _WORK_HEAVY_PRIMITIVES:
            return None
        limit = config.flags.cpu_small_eager_bytes
        if any(math.prod(a.shape) * a.dtype.itemsize > limit for a in (*in_avals, *out_avals)):
            return None
        return self.parse_options(opt_level=level)

    def describe_target(self) -> dict:
        triple, cpu, features = _native_cpu_compiler().host_target()
        return {"triple": triple, "cpu": cpu, "features": features}

    def cache_identity(self, options: CpuOptions) -> str | None:
        if config.flags.hlo_opt:
            return None  # a development hlo-opt: its build is not part of the key
        linker = options.linker
        if linker != BUILTIN_LINKER:
            found = shutil.which(linker)
            linker = _file_identity(found) if found else linker
        return f"{_toolchain_identity()}\n{options!r}\nlinker {linker}"

    def stages(self, options: CpuOptions) -> list[Stage]:
        return [
            _pipeline_stage("hlo-opt", _pipeline("hlo-optimize", options)),
            _pipeline_stage("linalg", _pipeline("hlo-cpu-to-linalg", options)),
            _pipeline_stage("llvm", _pipeline("hlo-cpu-to-llvm", options)),
            Stage("llvm-ir", ".ll", _translate),
            Stage("object", ".o", _emit_object),
            Stage("executable", ".nlx", _link),
        ]
