"""Compilation and execution: the one path both jit and eager primitives take.

``compile_module`` turns hlo text into a backend executable (memoized on the
text). Eager mode (``apply_primitive``) lowers a single primitive for the
operands' abstract values, caches the executable by
``(primitive, params, avals)`` and runs it; nothing is computed in NumPy.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from numlir._src import core, dtypes, lowering

_backend = None
_compiled_by_text: dict[str, Any] = {}
_eager_cache: dict[tuple, tuple[Any, list[core.ShapedArray]]] = {}
stats = {"compiles": 0, "eager_cache_misses": 0}


def get_backend():
    global _backend
    if _backend is None:
        from numlir._src import backends

        _backend = backends.get_backend()
    return _backend


def compile_module(text: str, name: str = "module"):
    """Compile hlo module text with the default backend (raises numlir.CompileError).

    ``name`` names the files NUMLIR_DUMP_DIR gets for this compilation.
    """
    exe = _compiled_by_text.get(text)
    if exe is None:
        exe = get_backend().compile(text, name=name)
        stats["compiles"] += 1
        _compiled_by_text[text] = exe
    return exe


def to_host_args(args: Sequence[Any], avals: Sequence[core.ShapedArray]) -> list[np.ndarray]:
    return [np.asarray(core.concrete_to_numpy(a), dtype=av.dtype, order="C")
            for a, av in zip(args, avals)]


def execute(exe, host_args: list[np.ndarray], out_avals: Sequence[core.ShapedArray]):
    from numlir._src.array import Array

    outs = exe.execute(host_args)
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


def apply_primitive(prim: core.Primitive, args: Sequence[Any], params: dict):
    """Run one primitive on concrete operands through a cached single-op executable."""
    in_avals = [core.get_aval(a) for a in args]
    try:
        key = (prim, _params_key(params), tuple(in_avals), dtypes.x64_enabled())
        hash(key)
    except TypeError:  # sub-graph params (cond, scan, ...): the module is memoized by its text
        text, out_avals = lowering.lower_single_primitive(prim, in_avals, params)
        outs = execute(compile_module(text, name=prim.name), to_host_args(args, in_avals), out_avals)
        return outs if prim.multiple_results else outs[0]
    entry = _eager_cache.get(key)
    if entry is None:
        stats["eager_cache_misses"] += 1
        text, out_avals = lowering.lower_single_primitive(prim, in_avals, params)
        entry = _eager_cache[key] = (compile_module(text, name=prim.name), out_avals)
    exe, out_avals = entry
    outs = execute(exe, to_host_args(args, in_avals), out_avals)
    return outs if prim.multiple_results else outs[0]
