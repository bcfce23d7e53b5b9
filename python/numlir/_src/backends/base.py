"""The backend interface: what a hardware target gives numlir.

numlir's own ``cpu`` backend and any third-party plugin implement the same
two classes and register through the ``numlir.backends`` entry-point group;
the frontend never names a target. A backend is an ordered list of named
:class:`Stage` s (hlo text in, executable bytes out) plus a :class:`Device`
that loads and runs what the stages produced.
"""

from __future__ import annotations

import abc
import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numlir._src import compilation_cache, compile_log, config, core
from numlir._src.backends import dumps

#: The op whose callback ids are process-local: modules with it are never cached on disk.
HOST_CALLBACK_OP = "hlo.host_callback"

_logger = logging.getLogger("numlir")


class CompileError(RuntimeError):
    """A backend rejected a module; the message holds the compiler's diagnostics."""


class OutOfMemoryError(MemoryError):
    """An executable could not allocate a buffer (a temporary or an output).

    The message names the computation, the user's line that called it, the
    buffer and its size; the process and the executable stay usable.
    """


def format_bytes(size: int) -> str:
    """``"3.64 TiB"`` for 4e12: binary units, as the runtime's messages."""
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        value /= 1024
        if value < 1024 or unit == "EiB":
            return f"{value:.2f} {unit}"
    raise AssertionError("unreachable")


def out_of_memory(name: str, detail: str) -> OutOfMemoryError:
    """The error for executable ``name`` running out of memory; ``detail``
    says which buffer. Names the user's line (the first frame outside numlir)."""
    where = core.user_source_info()
    called = f", called at {where}," if where is not None else ""
    return OutOfMemoryError(f"{name}{called} ran out of memory: {detail}")


@dataclasses.dataclass(frozen=True)
class Stage:
    """One step of a backend's compilation.

    ``run(value, options)`` turns the previous stage's output (the hlo text
    for the first stage) into this stage's output: MLIR or LLVM IR text, or
    bytes. ``suffix`` is the file extension of its dump. ``replay`` says how
    to reproduce the stage from the previous one's dump, for the dump header.
    """

    name: str
    suffix: str
    run: Callable[[Any, Any], Any]
    replay: str = ""


@dataclasses.dataclass(frozen=True)
class WithExtras:
    """A stage output plus side products worth dumping (e.g. optimized IR).

    Only ``value`` flows to the next stage; ``extras`` maps a dump-file
    suffix to text or bytes.
    """

    value: Any
    extras: dict[str, str | bytes]


@dataclasses.dataclass(frozen=True)
class BufferSpec:
    """dtype and shape of one executable argument or result."""

    dtype: np.dtype
    shape: tuple[int, ...]


class Executable(abc.ABC):
    """Compiled code loaded on a device.

    ``name`` is the module's name (``jit_f``, or the primitive in eager mode),
    set by :meth:`Backend.compile`, for error messages. ``image`` holds the bytes it
    was loaded from when the compilation asked to keep them (to save it to a file).
    """

    image: bytes | None = None
    #: Calls host callbacks, whose ids only mean something in this process: never saved.
    has_host_callbacks: bool = False

    input_specs: Sequence[BufferSpec]
    output_specs: Sequence[BufferSpec]
    name: str = "executable"
    #: The device it is loaded on; it takes and returns that device's buffers.
    device: "Device | None" = None

    @abc.abstractmethod
    def execute(self, args: Sequence[Any], given: dict[int, Any] | None = None) -> list[Any]:
        """Runs on device buffers (one per input) and returns the output buffers: fresh ones,
        except that ``given[j]`` is output j's (a donated input's buffer, see donation.py)."""


class Device(abc.ABC):
    """Memory and execution on one piece of hardware: JAX's Device, plus the buffer
    operations numlir's arrays use.

    A buffer is whatever the device keeps an array's contents in (a NumPy array for
    the cpu backend, whose memory is the host's). ``put`` and ``get`` move contents
    between host arrays and buffers, ``copy_from`` between devices; every buffer
    holds a C-contiguous array of the dtype and shape it was made with.
    """

    #: The platform's name, as jax's Device.platform ("cpu").
    name: str
    #: As jax's Device: the index among its backend's devices, and the process it is in.
    id: int = 0
    process_index: int = 0
    #: Whether buffers are host memory that NumPy reads in place, so that reading one on
    #: the host is no transfer (the cpu backend's; JAX's CPU devices likewise).
    host_memory: bool = False

    @property
    def platform(self) -> str:
        return self.name

    @property
    def device_kind(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id})"

    def __str__(self) -> str:
        return f"{self.platform}:{self.id}"

    @abc.abstractmethod
    def is_available(self) -> bool:
        """Whether this device can run code in this process."""

    @abc.abstractmethod
    def load(self, executable: bytes) -> Executable:
        """Loads the bytes the last stage produced; the executable's ``device`` is this one."""

    @abc.abstractmethod
    def put(self, value: np.ndarray) -> Any:
        """A new buffer on this device holding a copy of the C-contiguous host array
        ``value`` (its dtype and shape)."""

    @abc.abstractmethod
    def get(self, buffer: Any) -> np.ndarray:
        """The contents of ``buffer`` as a read-only host array (the buffer itself where
        buffers are host memory)."""

    def copy_from(self, buffer: Any, source: "Device") -> Any:
        """A new buffer on this device with the contents of ``buffer``, which lives on
        ``source``. By default through the host; drivers with direct copies override it."""
        return self.put(source.get(buffer))

    def accepts(self, buffer: Any, source: "Device | None") -> bool:
        """Whether an executable on this device may read ``buffer`` (on ``source``; None for
        host data) as it is, without a copy onto this device first."""
        return source is self

    def synchronize(self) -> None:
        """Waits until the work queued on this device has finished (numlir's executables
        run to completion before returning, so by default there is none)."""

    @property
    def lowering_platform(self) -> str:
        """The platform an exported module names for this device (``numlir.export``'s
        platforms: cpu, tpu, ...): the device's own, unless its backend runs another
        platform's hardware under its own name."""
        return self.platform

    def target_mismatch(self, target: dict) -> str | None:
        """Why code compiled for ``target`` (a :meth:`Backend.describe_target`) cannot run
        here, or None if it can; checked before a saved executable is loaded."""
        return None


class Backend(abc.ABC):
    """A compilation target: options, stages and a device."""

    name: str

    @abc.abstractmethod
    def parse_options(self, **options: Any) -> Any:
        """Validates user options into a frozen, hashable object."""

    @abc.abstractmethod
    def stages(self, options: Any) -> list[Stage]:
        """The ordered stages from hlo text to executable bytes."""

    @property
    @abc.abstractmethod
    def device(self) -> Device:
        """The backend's first device: where executables run when nothing says otherwise."""

    @property
    def devices(self) -> list[Device]:
        """Every device of this backend in this process, by id (one, unless overridden)."""
        return [self.device]

    def has_several_devices(self) -> bool:
        """Whether this process has more than one device of this backend: their
        executables then keep their bytes, to load on the others too."""
        return len(self.devices) > 1

    @property
    def global_devices(self) -> list[Device]:
        """Every process's devices (jax.devices()), by id: this process's unless the
        backend spans processes (numlir.distributed)."""
        return self.devices

    #: Whether ``compile_stablehlo`` works: backends whose compiler takes StableHLO (PJRT)
    #: run an exported module as it is, without numlir's compiler.
    compiles_stablehlo: bool = False

    def compile_stablehlo(self, module: bytes | str, *, name: str, device: Device,
                          inputs: Sequence[BufferSpec],
                          outputs: Sequence[BufferSpec]) -> Executable:
        """``module`` (StableHLO text, or a portable artifact) with the signature ``inputs``
        -> ``outputs``, compiled and loaded on ``device``."""
        raise CompileError(f"the {self.name!r} backend compiles numlir's hlo, not StableHLO")

    def execute_spmd(self, executables: Sequence[Executable], args: Sequence[Sequence[Any]],
                     given: Sequence[dict[int, Any]] | None = None,
                     num_replicas: int | None = None) -> list[list[Any]]:
        """Runs ``executables[i]`` (one SPMD module, pmap's, loaded on each of several
        devices) on ``args[i]``, all at once; returns each one's outputs (the buffers
        ``given[i]`` names, where it names one). ``num_replicas`` above the executables'
        count: the other replicas run in the other processes (numlir.distributed), this
        process holding replicas [process_index * len(executables), ...)."""
        raise NotImplementedError(
            f"the {self.name!r} backend cannot run SPMD programs (pmap) yet; numlir's cpu "
            "backend can (docs/design-pmap.md)")

    def library_routines(self) -> frozenset[str]:
        """The ``hlo.custom_call`` routines this backend's executables may call
        ("lapack.potrf", "numlir.fft"; docs/hlo-dialect.md#custom_call). The frontend
        lowers a primitive to such a call only for a backend that lists it, and to its
        portable composite otherwise; none by default."""
        return frozenset()

    def eager_options(self, prim_name: str, in_avals, out_avals) -> Any:
        """Options for the single-primitive module of an eager op, or None (the default)
        for the backend's usual ones."""
        return None

    def describe_target(self) -> dict:
        """What a saved executable records about the machine its code is compiled for
        (JSON); the device's ``target_mismatch`` reads it back."""
        return {}

    def cache_identity(self, options: Any) -> str | None:
        """Everything besides the module text that determines this backend's executables
        for ``options``: the compiler's build, the target machine, the options. The
        persistent compilation cache keys on it; None (the default) keeps this backend's
        executables out of that cache."""
        return None

    def _cache_entry(self, module_text: str, options: Any) -> str | None:
        if not compilation_cache.enabled() or config.flags.dump_dir:
            return None  # a dump asks to see every stage run
        if HOST_CALLBACK_OP in module_text:
            return None  # its callback ids are this process's (docs/design-decisions.md)
        identity = self.cache_identity(options)
        if identity is None:
            return None
        return compilation_cache.key([compilation_cache.numlir_version(),
                                      compilation_cache.compiler_build(), self.name, identity,
                                      module_text])

    def _load_cached(self, entry: str, device: Device) -> tuple[Executable, bytes] | None:
        payload = compilation_cache.get(entry)
        if payload is None:
            return None
        try:
            executable = device.load(payload)
        except Exception as error:  # intact, but this runtime's loader refuses it
            _logger.warning("numlir: compilation cache entry %s does not load (%s); compiling "
                            "again", entry, error)
            compilation_cache.refused(entry)
            return None
        if config.flags.log_compiles:
            _logger.warning("Persistent compilation cache hit for %s", entry)
        return executable, payload

    def compile(self, module_text: str, *, options: Any = None, name: str = "module",
                keep_image: bool = False, device: Device | None = None) -> Executable:
        """Runs every stage on ``module_text`` and loads the result on ``device`` (default:
        the first); the persistent compilation cache may hold the result already.
        ``keep_image`` keeps the loaded bytes on the executable (``.image``), e.g. to load
        it on another device too."""
        device = self.device if device is None else device
        options = options if options is not None else self.parse_options()
        entry = self._cache_entry(module_text, options)
        loaded = self._load_cached(entry, device) if entry is not None else None
        if loaded is None:
            start = time.perf_counter()
            payload, stage_times = self._run_stages(module_text, options, name)
            seconds = time.perf_counter() - start
            executable = device.load(payload)
            compile_log.stages(name, self.name, stage_times,
                               time.perf_counter() - start - seconds)
            if entry is not None and isinstance(payload, bytes):
                compilation_cache.put(entry, payload, seconds)
        else:
            executable, payload = loaded
        executable.name = name
        executable.device = device
        executable.has_host_callbacks = HOST_CALLBACK_OP in module_text
        if keep_image and isinstance(payload, bytes):
            executable.image = payload
        return executable

    def _run_stages(self, module_text: str, options: Any,
                    name: str) -> tuple[Any, list[tuple[str, float]]]:
        """The last stage's output, and each stage's name and seconds."""
        dump = dumps.Dumper.for_compilation(self.name, name, module_text)
        value: Any = module_text
        dump.write(0, "hlo", ".mlir", module_text, "")
        times = []
        for index, stage in enumerate(self.stages(options), start=1):
            start = time.perf_counter()
            output = stage.run(value, options)
            times.append((stage.name, time.perf_counter() - start))
            extras = {}
            if isinstance(output, WithExtras):
                output, extras = output.value, output.extras
            dump.write(index, stage.name, stage.suffix, output, stage.replay)
            for suffix, extra in extras.items():
                dump.write(index, stage.name, suffix, extra, "")
            value = output
        return value, times
