"""The per-call path of a jitted function on numlir's cpu backend, in C++.

A jitted call on small arrays costs what Python does around the program: flattening the
arguments, placement, two cache lookups, the executable's wrapper, making the output Arrays.
JAX does that in C++, and so does this: after a call has gone the general way
(``JitFunction._call``), ``remember`` hands what that way decided to the function's
``_runtime.CallCache`` (python/src/runtime/CallCache.cpp), keyed by what decided it:

- each argument's abstract value (shape, dtype, weak type) and whether it is committed
  (then also its device; uncommitted cpu arguments run wherever the call does);
- the config flags, as a generation number any flag assignment bumps (x64, debug_nans,
  disable_jit, the default device, the library routines, ...): a plan made under another
  generation is dropped;
- the calling thread's trace (only plain evaluation runs compiled) and, for uncommitted
  arguments, its ``default_device`` context (only the flag's device).

A later call that matches a plan is run in C++: it reads the arguments' slots, makes the
output buffers, runs the executable with the GIL released and builds the output Arrays.
Anything else (keyword arguments, pytrees, Python scalars, NumPy arrays, tracers, deleted
arrays, a failed run) goes the general way, which decides, raises the errors and may
remember it. Only plain jits have a cache (no static, donated or placed arguments), and
only their calls on host-memory devices whose executables call no host callbacks, or
calls on a device with memory of its own (a PJRT device: ``remember_on_device``), which C++
matches the same way (the device and buffer type too) and hands to the executable's
``execute`` (the device's buffers in and out; on jaxlib's CPU client 4.0 µs a call against
jax.jit's 3.8). Uncommitted calls inside a ``default_device`` context there take
device_calls.py's path, the same idea in Python.

pmap remembers its calls the same way (``remember_pmap``: a ``_runtime.PmapCallCache``
matches the positional Arrays and launches the executables on rows of their buffers and of
fresh stacked outputs, in one process or several).

Eager ops (``dispatch.apply_primitive``) remember their calls the same way, with one cache
per primitive and parameters (``EagerCalls``); a primitive's single output is returned as
it is and several as a list.

A remembered plan holds its executable, as a ``Compiled`` does, even when the shared LRU
(``dispatch.executables``) drops it; ``clear_caches`` forgets the plans too.
"""

from __future__ import annotations

import math

from numlir import _runtime
from numlir._src import backends, config, core, placement, tree_util
from numlir._src.array import Array, _DeletedBuffer
from numlir._src.backends import cpu

CallCache = _runtime.CallCache
PmapCallCache = _runtime.PmapCallCache

CallCache.set_context(Array, core.ShapedArray, core.EvalTrace, core._trace_state,
                      placement._state)
config.on_any_change(CallCache.invalidate_all)

#: The generation a general call starts under: the plan it leaves is kept only if no flag
#: changed before it is remembered.
generation = CallCache.generation


def unflattener(out_tree):
    """How CallCache rebuilds a function's output from its flat outputs: None for one
    array, ``tuple``/``list`` for a flat tuple/list of arrays, else a function."""
    if tree_util.treedef_is_leaf(out_tree):
        return None
    leaves = [0] * out_tree.num_leaves
    for kind in (tuple, list):
        if out_tree == tree_util.tree_structure(kind(leaves)):
            return kind
    return lambda outs: tree_util.tree_unflatten(out_tree, outs)


def remember(cache: CallCache, start: int, args: tuple, exe, out_avals, committed: bool,
             unflatten) -> bool:
    """Hands ``cache`` the call on positional ``args`` the general path has just run, which
    began under generation ``start``, its outputs rebuilt by ``unflatten`` (unflattener's);
    CallCache checks the rest (arguments, thread state). False if it was not handed over."""
    if type(args) is not tuple or any(type(a) is not Array for a in args):
        return False  # never matches: spare the checks below
    flags = config.flags
    if (type(exe) is not cpu.CpuExecutable or exe.has_host_callbacks
            or not exe.device.host_memory or not out_avals
            or flags.debug_nans or flags.debug_infs or not flags.executable_cache_size):
        return False
    # Large outputs come from the runtime's pooled allocator, as the general path's do.
    pooled = any(math.prod(s.shape) * s.dtype.itemsize >= cpu.POOLED_OUTPUT_BYTES
                 for s in exe.output_specs)
    cache.remember(start, args, exe, exe.device, list(out_avals), committed, unflatten,
                   exe.fresh_outputs if pooled else None)
    return True


def remember_on_device(cache: CallCache, start: int, args: tuple, exe, out_avals,
                       unflatten) -> bool:
    """Hands ``cache`` a call on a device with memory of its own (a PJRT device) that the
    general path has just run on positional ``args``, all on that device (device_calls.py's
    key says so): later ones call ``exe.execute`` on the arguments' buffers from C++. False
    if it was not kept (device_calls.py keeps those)."""
    if type(args) is not tuple or any(type(a) is not Array for a in args):
        return False
    flags = config.flags
    if (exe.device.host_memory or not out_avals or flags.debug_nans or flags.debug_infs
            or not flags.executable_cache_size):
        return False
    return cache.remember_on_device(start, args, exe, exe.device, list(out_avals), unflatten)


def remember_pmap(cache: PmapCallCache, start: int, args: tuple, axes, pairs: dict,
                  executables, replicas: int, outputs: list, unflatten) -> bool:
    """Hands ``cache`` the pmap call the general path has just run on positional ``args``
    (each mapped on ``axes[i]``, 0 or None; ``pairs``: {donated argument: its output}) with
    ``executables`` (one per local device, of ``replicas`` in all processes), its outputs
    the Arrays ``outputs`` stacked on axis 0; later ones launch from C++
    (python/src/runtime/PmapCalls.cpp). False if not kept."""
    if type(args) is not tuple or any(type(a) is not Array for a in args):
        return False
    flags = config.flags
    if (any(type(e) is not cpu.CpuExecutable or e.has_host_callbacks for e in executables)
            or not all(e.device.host_memory for e in executables)
            or flags.debug_nans or flags.debug_infs or not flags.executable_cache_size):
        return False
    devices = tuple(e.device for e in executables)
    communicator = backends.get_backend(devices[0].name).communicator(devices, replicas)
    donated = {i: (j, _DeletedBuffer(args[i].aval)) for i, j in pairs.items()}
    return cache.remember(start, args, list(axes), donated, list(executables), communicator,
                          list(outputs), unflatten)


class EagerCalls:
    """The remembered calls of eager ops, one CallCache per primitive and parameters. Each plan
    holds an executable the shared LRU may have dropped, so all are forgotten once more plans
    than ``executable_cache_size`` have been remembered (or caches made) since the last time:
    eager plans keep at most that many executables alive beyond the LRU's own."""

    def __init__(self):
        self._caches: dict[tuple, CallCache] = {}
        self._remembered = 0

    def get(self, key: tuple) -> CallCache:
        """The cache of ``key`` (raises TypeError if it cannot be hashed)."""
        cache = self._caches.get(key)
        if cache is None:
            if len(self._caches) >= config.flags.executable_cache_size:
                self.clear()
            cache = self._caches[key] = CallCache()
        return cache

    def remember(self, cache: CallCache, *args) -> None:
        """``remember(cache, *args)``, counted against the bound."""
        if remember(cache, *args):
            self._remembered += 1
            if self._remembered > config.flags.executable_cache_size:
                self.clear()

    def clear(self) -> None:
        self._caches.clear()
        self._remembered = 0
