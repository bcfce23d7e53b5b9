"""Compilation and execution: the one path both jit and eager primitives take.

Loaded executables live in one bounded LRU cache (``executables``, size
``config.flags.executable_cache_size``), keyed by the hlo module text for
jit and by ``(primitive, params, avals, x64)`` for eager ops. Eager mode
(``apply_primitive``) lowers a single primitive for the operands' abstract
values and runs it; nothing is computed in NumPy. An executable dropped from
the cache is unloaded once nothing else holds it; ``clear_caches`` drops them
all.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import numpy as np

from numlir import _runtime
from numlir._src import backends, config, core, dtypes, lowering
from numlir._src.array import Array
from numlir._src.lru_cache import LRUCache

_backend = None
#: hlo text -> executable (jit), or eager key -> (executable, out_avals).
executables = LRUCache(lambda: config.flags.executable_cache_size)
config.on_update("executable_cache_size", executables.shrink)
stats = {"compiles": 0, "eager_cache_misses": 0}


def get_backend():
    global _backend
    if _backend is None:
        _backend = backends.get_backend()
    return _backend


def compile_module(text: str, name: str = "module", keep_image: bool = False):
    """The executable of hlo module ``text`` with the default backend: cached, or compiled now
    (raises numlir.CompileError). ``name`` names the files NUMLIR_DUMP_DIR gets for it;
    ``keep_image`` asks for one that holds its bytes (``.image``, for saving)."""
    exe = executables.get(text)
    if exe is None or (keep_image and exe.image is None):
        exe = get_backend().compile(text, name=name, keep_image=keep_image)
        stats["compiles"] += 1
        executables.put(text, exe)
    return exe


def evict_module(text: str) -> None:
    """Drops the executable of ``text`` from the cache (it unloads once nothing holds it)."""
    executables.pop(text)


def clear() -> None:
    """Drops every cached executable, jit's and eager ops', and the temporary
    buffers the runtime keeps for reuse."""
    executables.clear()
    _runtime.release_cached_memory()


def _host_arg(a, aval: core.ShapedArray) -> np.ndarray:
    if type(a) is Array:  # the common case: hand over the buffer as it is
        value = a._value
        if value.dtype == aval.dtype and value.flags.c_contiguous:
            return value
    return np.asarray(core.concrete_to_numpy(a), dtype=aval.dtype, order="C")


def to_host_args(args: Sequence[Any], avals: Sequence[core.ShapedArray]) -> list[np.ndarray]:
    return [_host_arg(a, av) for a, av in zip(args, avals)]


def execute(exe, host_args: list[np.ndarray], out_avals: Sequence[core.ShapedArray],
            outputs: dict[int, np.ndarray] | None = None):
    """Runs ``exe``; ``outputs`` gives buffers for some outputs (donated inputs' buffers)."""
    outs = exe.execute(host_args, outputs) if outputs else exe.execute(host_args)
    if len(outs) != len(out_avals):
        raise RuntimeError(f"executable returned {len(outs)} results, expected {len(out_avals)}")
    result = []
    for o, aval in zip(outs, out_avals):
        o = np.asarray(o)
        if o.shape != aval.shape or o.dtype != aval.dtype:
            raise RuntimeError(f"executable returned {o.dtype}{list(o.shape)}, expected {aval.str_short()}")
        result.append(Array(o, aval))
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
        value = out._value if isinstance(out, Array) else np.asarray(out)
        if not (np.issubdtype(value.dtype, np.floating) or value.dtype == dtypes.bfloat16):
            continue
        wide = value.astype(np.float64, copy=False)
        if config.flags.debug_nans and np.isnan(wide).any():
            raise FloatingPointError(core.with_location(f"invalid value (nan) encountered in {where}"))
        if config.flags.debug_infs and np.isinf(wide).any():
            raise FloatingPointError(core.with_location(f"invalid value (inf) encountered in {where}"))


def apply_primitive(prim: core.Primitive, args: Sequence[Any], params: dict):
    """Run one primitive on concrete operands through a cached single-op executable."""
    if prim.impl is not None:  # runs in Python (host callbacks)
        return prim.impl(*args, **params)
    in_avals = [core.get_aval(a) for a in args]
    try:
        key = (prim, _params_key(params), tuple(in_avals), dtypes.x64_enabled())
        hash(key)
    except TypeError:  # sub-graph params (cond, scan, ...): the module is cached by its text
        text, out_avals = lowering.lower_single_primitive(prim, in_avals, params)
        outs = execute(compile_module(text, name=prim.name), to_host_args(args, in_avals), out_avals)
        if config.flags.debug_nans or config.flags.debug_infs:
            check_invalid_values(prim.name, outs)
        return outs if prim.multiple_results else outs[0]
    entry = executables.get(key)
    if entry is None:
        stats["eager_cache_misses"] += 1
        text, out_avals = lowering.lower_single_primitive(prim, in_avals, params)
        log_compile(prim.name, in_avals)
        backend = get_backend()
        options = backend.eager_options(prim.name, in_avals, out_avals)
        entry = (backend.compile(text, name=prim.name, options=options), out_avals)
        stats["compiles"] += 1
        executables.put(key, entry)
    exe, out_avals = entry
    outs = execute(exe, to_host_args(args, in_avals), out_avals)
    if config.flags.debug_nans or config.flags.debug_infs:
        check_invalid_values(prim.name, outs)
    return outs if prim.multiple_results else outs[0]


core.set_eager_evaluator(apply_primitive)
