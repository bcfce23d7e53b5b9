"""numlir's configuration: every ``NUMLIR_*`` environment variable is read here.

Flags can be changed at run time with :func:`update`, which also accepts the
JAX spellings (``numlir.config.update("jax_enable_x64", True)``)::

    import numlir
    numlir.config.update("jax_enable_x64", True)
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import Any


def _env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def _env_number(name: str, default, parse, kind: str, minimum):
    value = os.environ.get(name)
    if not value:
        return default
    try:
        parsed = parse(value)
    except ValueError:
        raise ValueError(f"{name} must be {kind}, got {value!r}") from None
    if minimum is not None and not parsed >= minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {parsed}")
    return parsed


def _env_int(name: str, default: int, minimum: int | None = None) -> int:
    return _env_number(name, default, int, "an integer", minimum)


def _env_float(name: str, default: float, minimum: float) -> float:
    return _env_number(name, default, float, "a number", minimum)


TRACEBACK_FILTERING_MODES = ("auto", "off")
# JAX's other modes all remove frames, which numlir does one way.
_TRACEBACK_FILTERING_ALIASES = {"on": "auto", "remove_frames": "auto",
                                "quiet_remove_frames": "auto", "tracebackhide": "auto"}


def _traceback_filtering_mode(value: Any, what: str) -> str:
    mode = _TRACEBACK_FILTERING_ALIASES.get(value, value) if isinstance(value, str) else value
    if mode not in TRACEBACK_FILTERING_MODES:
        raise ValueError(f"{what} must be one of {', '.join(TRACEBACK_FILTERING_MODES)}, "
                         f"got {value!r}")
    return mode


TRANSFER_GUARD_LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")


def _transfer_guard_level(value: Any, what: str) -> str:
    if value not in TRANSFER_GUARD_LEVELS:
        raise ValueError(f"{what} must be one of {', '.join(TRANSFER_GUARD_LEVELS)}, "
                         f"got {value!r}")
    return value


@dataclasses.dataclass
class Flags:
    """The process-wide flags; read them as ``config.flags.<name>``."""

    #: Keep 64-bit dtypes instead of canonicalizing them to 32 bits (NUMLIR_ENABLE_X64).
    enable_x64: bool = dataclasses.field(default_factory=lambda: _env_bool("NUMLIR_ENABLE_X64"))
    #: Write every compilation's hlo, per-stage IR and executable here (NUMLIR_DUMP_DIR).
    dump_dir: str | None = dataclasses.field(
        default_factory=lambda: os.environ.get("NUMLIR_DUMP_DIR") or None
    )
    #: The backend used when none is named (NUMLIR_BACKEND, default "cpu").
    backend: str = dataclasses.field(
        default_factory=lambda: os.environ.get("NUMLIR_BACKEND", "cpu")
    )
    #: LLVM optimization level for CPU code (NUMLIR_CPU_OPT_LEVEL, 0-3).
    cpu_opt_level: int = dataclasses.field(
        default_factory=lambda: _env_int("NUMLIR_CPU_OPT_LEVEL", 3)
    )
    #: LLVM optimization level for small eager ops on the CPU
    #: (NUMLIR_CPU_SMALL_EAGER_OPT_LEVEL, 0-3, default 0; -1 means cpu_opt_level):
    #: a single primitive without sub-graphs, other than a contraction or convolution,
    #: whose operands and results are each at most ``cpu_small_eager_bytes``. LLVM's
    #: work is most of an eager op's ~35 ms compile, and such an op runs in microseconds
    #: at any level; without fast-math flags no level changes a result's bits
    #: (test_eager_opt_level.py; docs/design-decisions.md has the measurements).
    cpu_small_eager_opt_level: int = dataclasses.field(
        default_factory=lambda: _env_int("NUMLIR_CPU_SMALL_EAGER_OPT_LEVEL", 0, minimum=-1)
    )
    #: The largest operand or result, in bytes, of a small eager op (above;
    #: NUMLIR_CPU_SMALL_EAGER_BYTES, default 64 KiB).
    cpu_small_eager_bytes: int = dataclasses.field(
        default_factory=lambda: _env_int("NUMLIR_CPU_SMALL_EAGER_BYTES", 64 << 10, minimum=0)
    )
    #: The smallest op, in units of work (iterations of its loop nest, where 16 of a
    #: contraction's or convolution's count as one), that CPU code splits across
    #: threads, and the shortest reduction to a few outputs that it splits into partial
    #: reductions for them (NUMLIR_CPU_PARALLEL_MIN_ITERATIONS, default 131072). The
    #: thread count is NUMLIR_NUM_THREADS (default: every core), read once at start-up.
    #: The fuzzer sets 1 so that its small programs run through both splits too.
    cpu_parallel_min_iterations: int = dataclasses.field(
        default_factory=lambda: _env_int("NUMLIR_CPU_PARALLEL_MIN_ITERATIONS", 131072, minimum=1)
    )
    #: Let CPU code call LAPACK for the factorizations and decompositions, and the
    #: runtime's FFT library for lax.fft, where the runtime has them
    #: (NUMLIR_CPU_LIBRARY_CALLS, default on; docs/library-calls.md). Off, those
    #: primitives compile to their portable numlir programs, as they do for every other
    #: backend. A jitted function compiles again when it changes.
    cpu_library_calls: bool = dataclasses.field(
        default_factory=lambda: _env_bool("NUMLIR_CPU_LIBRARY_CALLS", True)
    )
    #: Let ``x[idx] = y`` on an eager Array replace the array's buffer with
    #: ``x.at[idx].set(y)``'s (NUMLIR_ARRAY_ITEM_ASSIGNMENT=1; default off: arrays are
    #: immutable, as JAX's, and item assignment raises a TypeError pointing to .at[]).
    #: For libraries written against NumPy that assign into arrays, such as scikit-learn's
    #: array API paths (docs/array-api.md). Copy on write: no other array sees the change.
    array_item_assignment: bool = dataclasses.field(
        default_factory=lambda: _env_bool("NUMLIR_ARRAY_ITEM_ASSIGNMENT")
    )
    #: Let LLVM unroll loops in CPU code (NUMLIR_CPU_LLVM_UNROLL=1; default off: MLIR
    #: unrolls the register tiles, and LLVM's unroller tripled W7's LLVM time for
    #: runtimes within noise; docs/design-decisions.md).
    cpu_llvm_unroll: bool = dataclasses.field(
        default_factory=lambda: _env_bool("NUMLIR_CPU_LLVM_UNROLL", False)
    )
    #: Functions of this many LLVM instructions or more have their loop nests outlined
    #: before LLVM optimizes them, and modules of twice that compile on NUMLIR_NUM_THREADS
    #: threads (NUMLIR_CPU_OUTLINE_MIN_INSTRUCTIONS, default 2000). The fuzzer sets 1 so
    #: that its small programs are outlined and split too.
    cpu_outline_min_instructions: int = dataclasses.field(
        default_factory=lambda: _env_int("NUMLIR_CPU_OUTLINE_MIN_INSTRUCTIONS", 2000, minimum=1)
    )
    #: The smallest run of row-local ops (the reductions and elementwise ops of softmax or
    #: layer norm) that CPU code runs a few rows at a time, so that its data crosses DRAM
    #: once rather than once per op, in bytes of the buffers the run reads and writes by
    #: rows (NUMLIR_CPU_ROW_FUSION_MIN_BYTES, default 1 MiB; -1 turns it off). Results are
    #: the same bits either way. The fuzzer sets 0 so that its small programs are fused.
    cpu_row_fusion_min_bytes: int = dataclasses.field(
        default_factory=lambda: _env_int("NUMLIR_CPU_ROW_FUSION_MIN_BYTES", 1 << 20, minimum=-1)
    )
    #: The largest temporary that CPU code places in its function's arena, where
    #: temporaries that are never live together share memory (assign-buffers;
    #: NUMLIR_CPU_ARENA_MAX_BUFFER_BYTES, default 64 MiB; 0 gives every temporary an
    #: allocation of its own). Larger ones keep their own, so that running out of memory
    #: names their op. Results are the same bits either way.
    cpu_arena_max_buffer_bytes: int = dataclasses.field(
        default_factory=lambda: _env_int("NUMLIR_CPU_ARENA_MAX_BUFFER_BYTES", 64 << 20, minimum=0)
    )
    #: Run jitted functions op by op, without compiling them (NUMLIR_DISABLE_JIT;
    #: also the ``numlir.disable_jit()`` context).
    disable_jit: bool = dataclasses.field(default_factory=lambda: _env_bool("NUMLIR_DISABLE_JIT"))
    #: Check every eager op's and jitted call's float outputs for NaN (infinities) and raise
    #: FloatingPointError at the user's line of the first op producing one; a jitted
    #: function is then re-run op by op to find it (NUMLIR_DEBUG_NANS, NUMLIR_DEBUG_INFS).
    debug_nans: bool = dataclasses.field(default_factory=lambda: _env_bool("NUMLIR_DEBUG_NANS"))
    debug_infs: bool = dataclasses.field(default_factory=lambda: _env_bool("NUMLIR_DEBUG_INFS"))
    #: Log (WARNING, logger "numlir") every compilation with its function and signature.
    log_compiles: bool = dataclasses.field(default_factory=lambda: _env_bool("NUMLIR_LOG_COMPILES"))
    #: Implicit rank promotion in numlir.numpy broadcasting: "allow", "warn" or "raise".
    numpy_rank_promotion: str = dataclasses.field(
        default_factory=lambda: os.environ.get("NUMLIR_NUMPY_RANK_PROMOTION", "allow"))
    #: numlir's CPU contractions always run at the operands' full precision, so this setting
    #: (JAX's default_matmul_precision) is kept for compatibility and changes no result.
    default_matmul_precision: str | None = None
    #: Log why jit had to compile again (NUMLIR_EXPLAIN_CACHE_MISSES).
    explain_cache_misses: bool = dataclasses.field(
        default_factory=lambda: _env_bool("NUMLIR_EXPLAIN_CACHE_MISSES")
    )
    #: A C compiler driver to link CPU objects with (NUMLIR_CC); unset, lld
    #: links them inside the compiler library.
    linker: str | None = dataclasses.field(
        default_factory=lambda: os.environ.get("NUMLIR_CC") or None
    )
    #: Run the MLIR pipeline stages with this hlo-opt binary instead of the
    #: in-process compiler (NUMLIR_HLO_OPT); for testing a development build
    #: of the C++ compiler without reinstalling the package.
    hlo_opt: str | None = dataclasses.field(
        default_factory=lambda: os.environ.get("NUMLIR_HLO_OPT") or None
    )
    #: How many loaded executables (jit's and eager ops') stay cached, least recently used
    #: dropped first (NUMLIR_EXECUTABLE_CACHE_SIZE, default 4096; 0 caches none). Each one
    #: holds a few memory mappings, and a process may have only ~65000 of them.
    executable_cache_size: int = dataclasses.field(
        default_factory=lambda: _env_int("NUMLIR_EXECUTABLE_CACHE_SIZE", 4096, minimum=0)
    )
    #: Keep compiled executables on disk across processes (NUMLIR_ENABLE_COMPILATION_CACHE,
    #: default on; docs/compilation-cache.md).
    enable_compilation_cache: bool = dataclasses.field(
        default_factory=lambda: _env_bool("NUMLIR_ENABLE_COMPILATION_CACHE", True)
    )
    #: The persistent cache's directory (NUMLIR_CACHE_DIR); unset, "numlir/compilation"
    #: under $XDG_CACHE_HOME or ~/.cache.
    compilation_cache_dir: str | None = dataclasses.field(
        default_factory=lambda: os.environ.get("NUMLIR_CACHE_DIR") or None
    )
    #: The persistent cache's size bound in bytes, least recently used entries evicted
    #: first (NUMLIR_CACHE_MAX_BYTES, default 1 GiB; -1 is unbounded, 0 stores nothing).
    compilation_cache_max_size: int = dataclasses.field(
        default_factory=lambda: _env_int("NUMLIR_CACHE_MAX_BYTES", 1 << 30, minimum=-1)
    )
    #: Only compilations that took at least this long are written to the persistent
    #: cache (NUMLIR_CACHE_MIN_COMPILE_TIME_SECS, default 0: all of them).
    persistent_cache_min_compile_time_secs: float = dataclasses.field(
        default_factory=lambda: _env_float("NUMLIR_CACHE_MIN_COMPILE_TIME_SECS", 0.0, 0.0)
    )
    #: Only executables at least this large are written to the persistent cache.
    persistent_cache_min_entry_size_bytes: int = 0
    #: How many CPU devices the cpu backend has (NUMLIR_NUM_CPU_DEVICES, jax's
    #: jax_num_cpu_devices; default 1). Each runs its parallel loops on a thread team of
    #: its own, an equal share of NUMLIR_NUM_THREADS (default: every core), so devices
    #: running at once do not oversubscribe the cores. Set it before the first computation.
    num_cpu_devices: int = dataclasses.field(
        default_factory=lambda: _env_int("NUMLIR_NUM_CPU_DEVICES", 1, minimum=1)
    )
    #: How long a device of a pmap waits at a collective for the others, in seconds
    #: (NUMLIR_COLLECTIVE_TIMEOUT; default 600): the devices run one program, so only
    #: imbalance delays them, and a wait past this is an error naming the collective.
    collective_timeout: float = dataclasses.field(
        default_factory=lambda: _env_float("NUMLIR_COLLECTIVE_TIMEOUT", 600.0, 0.001)
    )
    #: The device computations without committed arguments run on and arrays are created
    #: on (jax_default_device; None: the default backend's first device). A Device, or a
    #: backend name meaning that backend's first device.
    default_device: Any = None
    #: What an implicit transfer does, per direction, as jax's transfer guards: "allow",
    #: "log" (a WARNING on logger "numlir"), "disallow" (an error), and "log_explicit" /
    #: "disallow_explicit", which also cover device_put and device_get
    #: (NUMLIR_TRANSFER_GUARD sets all three; docs/devices.md).
    transfer_guard_host_to_device: str = dataclasses.field(
        default_factory=lambda: _transfer_guard_level(
            os.environ.get("NUMLIR_TRANSFER_GUARD", "allow"), "NUMLIR_TRANSFER_GUARD"))
    transfer_guard_device_to_device: str = dataclasses.field(
        default_factory=lambda: _transfer_guard_level(
            os.environ.get("NUMLIR_TRANSFER_GUARD", "allow"), "NUMLIR_TRANSFER_GUARD"))
    transfer_guard_device_to_host: str = dataclasses.field(
        default_factory=lambda: _transfer_guard_level(
            os.environ.get("NUMLIR_TRANSFER_GUARD", "allow"), "NUMLIR_TRANSFER_GUARD"))
    #: "auto" removes numlir's own frames from the tracebacks of errors raised through its
    #: API (jit, transformations, numlir.numpy...); "off" keeps them
    #: (NUMLIR_TRACEBACK_FILTERING, as JAX_TRACEBACK_FILTERING).
    traceback_filtering: str = dataclasses.field(
        default_factory=lambda: _traceback_filtering_mode(
            os.environ.get("NUMLIR_TRACEBACK_FILTERING", "").strip().lower() or "auto",
            "NUMLIR_TRACEBACK_FILTERING")
    )

    def __setattr__(self, name: str, value: Any) -> None:
        # Every assignment, through update() or not (tests monkeypatch flags), so that
        # what remembers decisions made under the old value forgets them (on_any_change).
        object.__setattr__(self, name, value)
        for hook in _change_hooks:
            hook()


#: Called after any flag is assigned (on_any_change).
_change_hooks: list = []

flags = Flags()

# JAX-compatible names for the flags JAX programs set.
_ALIASES = {
    "jax_enable_x64": "enable_x64",
    "jax_disable_jit": "disable_jit",
    "jax_debug_nans": "debug_nans",
    "jax_debug_infs": "debug_infs",
    "jax_log_compiles": "log_compiles",
    "jax_numpy_rank_promotion": "numpy_rank_promotion",
    "jax_default_matmul_precision": "default_matmul_precision",
    "jax_explain_cache_misses": "explain_cache_misses",
    "jax_platform_name": "backend",
    "jax_platforms": "backend",
    "jax_traceback_filtering": "traceback_filtering",
    "jax_enable_compilation_cache": "enable_compilation_cache",
    "jax_compilation_cache_dir": "compilation_cache_dir",
    "jax_compilation_cache_max_size": "compilation_cache_max_size",
    "jax_persistent_cache_min_compile_time_secs": "persistent_cache_min_compile_time_secs",
    "jax_persistent_cache_min_entry_size_bytes": "persistent_cache_min_entry_size_bytes",
    "jax_num_cpu_devices": "num_cpu_devices",
    "jax_default_device": "default_device",
    "jax_transfer_guard_host_to_device": "transfer_guard_host_to_device",
    "jax_transfer_guard_device_to_device": "transfer_guard_device_to_device",
    "jax_transfer_guard_device_to_host": "transfer_guard_device_to_host",
}

#: Names that set several flags at once: jax_transfer_guard sets every direction.
_GROUPS = {
    "transfer_guard": ("transfer_guard_host_to_device", "transfer_guard_device_to_device",
                       "transfer_guard_device_to_host"),
    "jax_transfer_guard": ("transfer_guard_host_to_device", "transfer_guard_device_to_device",
                           "transfer_guard_device_to_host"),
}


def _validate(field: str, value: Any) -> Any:
    if field == "executable_cache_size":
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"executable_cache_size must be an integer >= 0, got {value!r}")
    if field in ("compilation_cache_max_size", "persistent_cache_min_entry_size_bytes"):
        if not isinstance(value, int) or isinstance(value, bool) or value < -1:
            raise ValueError(f"{field} must be an integer >= -1, got {value!r}")
    if field == "persistent_cache_min_compile_time_secs":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise ValueError(f"{field} must be a number >= 0, got {value!r}")
    if field == "compilation_cache_dir" and value is not None:
        value = os.fspath(value)
    if field == "numpy_rank_promotion" and value not in ("allow", "warn", "raise"):
        raise ValueError(f"numpy_rank_promotion must be 'allow', 'warn' or 'raise', got {value!r}")
    if field == "traceback_filtering":
        return _traceback_filtering_mode(value, "traceback_filtering")
    if field.startswith("transfer_guard_"):
        return _transfer_guard_level(value, field)
    if field == "num_cpu_devices":
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"num_cpu_devices must be an integer >= 1, got {value!r}")
    for check in _validators.get(field, ()):
        check(value)
    return value


def update(name: str, value: Any) -> None:
    """Sets a flag by its numlir name or its JAX name."""
    if name in _GROUPS:
        for field in _GROUPS[name]:
            update(field, value)
        return
    field = _ALIASES.get(name, name.removeprefix("numlir_"))
    if field not in {f.name for f in dataclasses.fields(Flags)}:
        known = sorted({f.name for f in dataclasses.fields(Flags)} | set(_ALIASES))
        raise AttributeError(f"unknown numlir config option {name!r}; known: {', '.join(known)}")
    setattr(flags, field, _validate(field, value))
    for hook in _update_hooks.get(field, ()):
        hook()


_update_hooks: dict[str, list] = {}
_validators: dict[str, list] = {}


def on_validate(name: str, check) -> None:
    """Calls ``check(value)`` before flag ``name`` takes ``value``; it raises to refuse it
    (e.g. a device count once the devices exist)."""
    _validators.setdefault(name, []).append(check)


def on_update(name: str, hook) -> None:
    """Calls ``hook()`` after every ``update`` of flag ``name`` (e.g. to shrink a cache)."""
    _update_hooks.setdefault(name, []).append(hook)


def on_any_change(hook) -> None:
    """Calls ``hook()`` after any flag is assigned, however it is: for caches of decisions
    that depend on many flags (jit's remembered cpu calls, host_calls.py)."""
    _change_hooks.append(hook)


def read(name: str) -> Any:
    """Reads a flag by its numlir name or its JAX name."""
    if name in _GROUPS:
        return read(_GROUPS[name][0])
    return getattr(flags, _ALIASES.get(name, name.removeprefix("numlir_")))


@contextlib.contextmanager
def _flag_scope(name: str, value: Any):
    saved = read(name)
    update(name, value)
    try:
        yield
    finally:
        update(name, saved)


def disable_jit(disable: bool = True):
    """Within the context, jitted functions run op by op (like ``jax.disable_jit``).

    Example::

        with numlir.disable_jit():
            f(x)  # f = numlir.jit(g): runs g eagerly, so print shows values
    """
    return _flag_scope("disable_jit", disable)


def enable_x64(new_val: bool = True):
    """Within the context, 64-bit dtypes are kept (``jax_enable_x64``) or not."""
    return _flag_scope("enable_x64", new_val)


def debug_nans(new_val: bool = True):
    """Within the context, raise FloatingPointError at the first op that produces a NaN."""
    return _flag_scope("debug_nans", new_val)


def debug_infs(new_val: bool = True):
    """Within the context, raise FloatingPointError at the first op that produces an infinity."""
    return _flag_scope("debug_infs", new_val)


def log_compiles(new_val: bool = True):
    """Within the context, log every compilation."""
    return _flag_scope("log_compiles", new_val)


def explain_cache_misses(new_val: bool = True):
    """Within the context, log why a jitted function compiles again."""
    return _flag_scope("explain_cache_misses", new_val)


def numpy_rank_promotion(new_val: str):
    """Within the context, implicit rank promotion is allowed, warned about or an error."""
    return _flag_scope("numpy_rank_promotion", new_val)


def default_matmul_precision(new_val):
    """JAX's matmul precision context; numlir's CPU contractions are always full precision."""
    return _flag_scope("default_matmul_precision", new_val)
