"""Compilation and execution: the one path both jit and eager primitives take.

Loaded executables live in one bounded LRU cache (``executables``, size
``config.flags.executable_cache_size``), keyed by the hlo module text and the
device for jit and by ``(primitive, params, avals, x64, device)`` for eager
ops. A module compiles once: where a backend has several devices, each
executable keeps its image, and the other devices load that. Eager mode
(``apply_primitive``) lowers a single primitive for the operands' abstract
values and runs it; nothing is computed in NumPy. An executable dropped from
the cache is unloaded once nothing else holds it; ``clear_caches`` drops them
all. An eager op called again as before on the cpu backend skips all of this:
its remembered call runs in C++ (``eager_calls``, host_calls.py).
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import numpy as np

from numlir import _runtime
from numlir._src import backends, config, core, dtypes, host_calls, lowering, placement
from numlir._src.array import Array, _DeletedBuffer
from numlir._src.lru_cache import LRUCache

#: (hlo text, device) -> executable (jit), or eager key -> (executable, out_avals).
executables = LRUCache(lambda: config.flags.executable_cache_size)
config.on_update("executable_cache_size", executables.shrink)
#: Eager ops' remembered calls, per primitive and parameters (host_calls.py).
eager_calls = host_calls.EagerCalls()
stats = {"compiles": 0, "eager_cache_misses": 0}


def get_backend():
    """The default backend (``config.flags.backend``)."""
    return placement.default_backend()


def backend_of(device):
    # A device's platform name is its backend's name (backends/base.py).
    backend = get_backend()
    return backend if device.name == backend.name else backends.get_backend(device.name)


def _load_elsewhere(text: str, backend, device):
    """The executable of ``text`` for ``device`` from one already loaded on a sibling device
    (its kept image), so that a module compiles once however many devices run it."""
    for other in backend.devices:
        exe = executables.get((text, other)) if other is not device else None
        if exe is not None and exe.image is not None:
            return _reload(exe, device)
    return None


def _reload(exe, device):
    """``exe`` loaded again, on ``device``, from its image."""
    loaded = device.load(exe.image)
    loaded.name, loaded.image = exe.name, exe.image
    loaded.has_host_callbacks = exe.has_host_callbacks
    return loaded


def compile_module(text: str, name: str = "module", keep_image: bool = False, device=None):
    """The executable of hlo module ``text`` on ``device`` (default: the default backend's
    first): cached, or compiled now (raises numlir.CompileError). ``name`` names the files
    NUMLIR_DUMP_DIR gets for it; ``keep_image`` asks for one that holds its bytes
    (``.image``, for saving)."""
    if device is None:
        device = get_backend().device
    key = (text, device)
    exe = executables.get(key)
    if exe is None or (keep_image and exe.image is None):
        backend = backend_of(device)
        exe = None if keep_image else _load_elsewhere(text, backend, device)
        if exe is None:
            several = backend.has_several_devices()  # keep the bytes to load on the others
            exe = backend.compile(text, name=name, keep_image=keep_image or several,
                                  device=device)
            stats["compiles"] += 1
        executables.put(key, exe)
    return exe


def execute_spmd(executables, args: list[list], given: list[dict] | None = None,
                 num_replicas: int | None = None) -> list[list]:
    """Runs ``executables[i]`` (one SPMD module loaded on each device) on ``args[i]``, all
    at once; returns each device's outputs (``given[i]``'s buffers where it names them).
    ``num_replicas`` above the executables' count: the others run in other processes."""
    return backend_of(executables[0].device).execute_spmd(executables, args, given,
                                                          num_replicas)


def evict_module(text: str) -> None:
    """Drops the executables of ``text`` from the cache (each unloads once nothing holds it)."""
    for device in get_backend().devices:
        executables.pop((text, device))


def clear() -> None:
    """Drops every cached executable, jit's and eager ops', and the temporary
    buffers the runtime keeps for reuse."""
    executables.clear()
    eager_calls.clear()
    _runtime.release_cached_memory()


def _device_arg(a, aval: core.ShapedArray, device):
    """``a`` as a buffer an executable on ``device`` reads: an Array's own buffer where the
    device accepts it (the common case), else a copy onto the device; host data (NumPy
    arrays, Python scalars) is a host-to-device transfer under the transfer guard."""
    if type(a) is Array:
        value = a._value
        if type(value) is np.ndarray:
            if (value.dtype == aval.dtype and value.flags.c_contiguous
                    and (a._device is device or device.accepts(value, a._device))):
                return value
        elif type(value) is not _DeletedBuffer:  # another device's buffer
            return value if a._device is device else device.copy_from(value, a.device)
    else:
        placement.host_to_device(aval, device)
    host = np.asarray(core.concrete_to_numpy(a), dtype=aval.dtype, order="C")
    return host if device.accepts(host, None) else device.put(host)


def device_args(args: Sequence[Any], avals: Sequence[core.ShapedArray], device) -> list:
    """The buffers an executable on ``device`` runs on, one per argument."""
    return [_device_arg(a, av, device) for a, av in zip(args, avals)]


def to_host_args(args: Sequence[Any], avals: Sequence[core.ShapedArray]) -> list:
    """``device_args`` for the default backend's first device."""
    return device_args(args, avals, get_backend().device)


def execute(exe, buffers: list, out_avals: Sequence[core.ShapedArray],
            outputs: dict[int, Any] | None = None, committed: bool = False):
    """Runs ``exe`` on its device; ``outputs`` gives buffers for some outputs (donated
    inputs' buffers). The results live on that device, committed there if ``committed``."""
    outs = exe.execute(buffers, outputs) if outputs else exe.execute(buffers)
    if len(outs) != len(out_avals):
        raise RuntimeError(f"executable returned {len(outs)} results, expected {len(out_avals)}")
    device = exe.device
    result = []
    for o, aval in zip(outs, out_avals):
        if type(o) is np.ndarray and (o.shape != aval.shape or o.dtype != aval.dtype):
            raise RuntimeError(f"executable returned {o.dtype}{list(o.shape)}, expected {aval.str_short()}")
        result.append(Array(o, aval, device, committed))
    return result


def _params_key(params: dict) -> tuple:
    return tuple((k, _hashable(v)) for k, v in params.items())


def _hashable(v):
    if isinstance(v, (list, tuple)):
        return tuple(_hashable(x) for x in v)
    return v


_log = logging.getLogger("numlir")


def log_compile(what: str, avals) -> None:
    """One WARNING line per compilation, when ``jax_log_compiles`` is on."""
    if config.flags.log_compiles:
        _log.warning("Compiling %s for %s", what, ", ".join(a.str_short() for a in avals) or "no arguments")


def check_invalid_values(where: str, outs) -> None:
    """FloatingPointError at the user's line if ``outs`` hold a NaN (or inf, under debug_infs)."""
    for out in outs:
        value = np.asarray(out)
        if not (np.issubdtype(value.dtype, np.floating) or value.dtype == dtypes.bfloat16):
            continue
        wide = value.astype(np.float64, copy=False)
        if config.flags.debug_nans and np.isnan(wide).any():
            raise FloatingPointError(core.with_location(f"invalid value (nan) encountered in {where}"))
        if config.flags.debug_infs and np.isinf(wide).any():
            raise FloatingPointError(core.with_location(f"invalid value (inf) encountered in {where}"))


def _primitive_argument(index: int) -> str:
    # JAX names a binary op's operands x and y in its placement errors.
    return "xy"[index] if index < 2 else f"args[{index}]"


def apply_primitive(prim: core.Primitive, args: Sequence[Any], params: dict):
    """Run one primitive on concrete operands through a cached single-op executable, on the
    device the placement rules pick (placement.py)."""
    if prim.impl is not None:  # runs in Python (host callbacks)
        return prim.impl(*args, **params)
    params_key = _params_key(params)
    try:
        calls = eager_calls.get((prim, params_key))
    except TypeError:  # sub-graph params (cond, scan, ...): the module is cached by its text
        return _apply_by_text(prim, args, params)
    out = calls.call(args)  # a call made before, run in C++ (host_calls.py)
    if out is not None:
        return out
    start = host_calls.generation()
    device, committed = _placement(prim, args)
    in_avals = [core.get_aval(a) for a in args]
    key = (prim, params_key, tuple(in_avals), dtypes.x64_enabled(), device,
           config.flags.cpu_library_calls)
    entry = executables.get(key)
    if entry is None:
        stats["eager_cache_misses"] += 1
        backend = backend_of(device)
        text, out_avals = lowering.lower_single_primitive(prim, in_avals, params,
                                                          backend.library_routines())
        log_compile(prim.name, in_avals)
        options = backend.eager_options(prim.name, in_avals, out_avals)
        sibling = _eager_sibling(key, backend, device)
        if sibling is not None:
            exe = sibling
        else:
            exe = backend.compile(text, name=prim.name, options=options, device=device,
                                  keep_image=len(backend.devices) > 1)
            stats["compiles"] += 1
        entry = (exe, out_avals)
        executables.put(key, entry)
    exe, out_avals = entry
    outs = execute(exe, device_args(args, in_avals, device), out_avals, committed=committed)
    if config.flags.debug_nans or config.flags.debug_infs:
        check_invalid_values(prim.name, outs)
    else:
        eager_calls.remember(calls, start, args, exe, out_avals, committed,
                             list if prim.multiple_results else None)
    return outs if prim.multiple_results else outs[0]


def _placement(prim: core.Primitive, args: Sequence[Any]):
    try:
        return placement.computation_device(args)
    except placement.IncompatibleDevices as conflict:
        raise conflict.error(args, prim.name, _primitive_argument) from None


def _apply_by_text(prim: core.Primitive, args: Sequence[Any], params: dict):
    """apply_primitive for parameters that cannot be hashed: the module is cached by its
    text."""
    device, committed = _placement(prim, args)
    in_avals = [core.get_aval(a) for a in args]
    text, out_avals = lowering.lower_single_primitive(
        prim, in_avals, params, backend_of(device).library_routines())
    exe = compile_module(text, name=prim.name, device=device)
    outs = execute(exe, device_args(args, in_avals, device), out_avals, committed=committed)
    if config.flags.debug_nans or config.flags.debug_infs:
        check_invalid_values(prim.name, outs)
    return outs if prim.multiple_results else outs[0]


def _eager_sibling(key: tuple, backend, device):
    """The eager op of ``key`` loaded on ``device`` from its image on a sibling device."""
    for other in backend.devices:
        entry = executables.get((*key[:-1], other)) if other is not device else None
        if entry is not None and entry[0].image is not None:
            return _reload(entry[0], device)
    return None


core.set_eager_evaluator(apply_primitive)
