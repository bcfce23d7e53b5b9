"""pmap: one SPMD program over several devices, run on all of them at once.

``pmap(f, axis_name)`` traces ``f`` once per signature on the per-device avals (the
mapped axis removed) while the axis is bound (spmd.py), so that ``psum``, ``pmean``,
``axis_index`` and friends lower to hlo's collectives. The module is compiled once,
loaded on every device, and the copies run at once on the devices' own threads, meeting in
the runtime's communicator (docs/design-pmap.md; docs/pmap.md for users).

First cut (increments 3, 4 and 6 of the design): one axis, numlir's CPU devices, host
arrays in and out. With several processes (numlir.distributed), each maps its own part of
the axis on its local devices, as in JAX, and the collectives cross processes.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from numlir._src import (config, core, device_queries, dispatch, donation, dtypes,
                         host_calls, lowering, spmd, static_args, traceback_util, tree_util)
from numlir._src.array import Array
from numlir._src.lru_cache import LRUCache
from numlir._src.sharding import Mesh, NamedSharding, PartitionSpec
from numlir._src.static_args import function_name
from numlir._src.vmap import _broadcast_prefix, _check_axis_spec, vmap


#: The mesh axis JAX names a pmap output's sharding after.
_PMAP_AXIS = "_internal_pmap_axis_name"
#: Argument types that are one leaf each (tree_util flattens them to themselves).
_PLAIN_ARGUMENTS = (Array, np.ndarray)


class _Signature(NamedTuple):
    text: str
    name: str
    out_tree: Any
    out_avals: tuple
    #: {donated input leaf: output} whose per-device buffers are one (donation.py).
    pairs: dict
    #: Each output leaf's out_axes entry, non-negative (None: one device's value).
    out_specs: tuple


def _mapped_size(leaves, axes, axis_size, fun) -> int:
    sizes = []
    for i, (x, a) in enumerate(zip(leaves, axes)):
        if a is None:
            continue
        aval = core.get_aval(x)
        if not -aval.ndim <= a < aval.ndim:
            raise ValueError(
                f"pmap was requested to map its argument along axis {a}, which implies that "
                f"its rank should be at least {a + 1 if a >= 0 else -a}, but is only "
                f"{aval.ndim} (its shape is {aval.shape}) for argument leaf {i}")
        sizes.append((aval.shape[a % aval.ndim], i, aval))
    distinct = {s for s, _, _ in sizes}
    if axis_size is not None:
        distinct.add(int(axis_size))
    if len(distinct) > 1:
        lines = [f"  * argument leaf {i} of type {aval.str_short()} has size {s}"
                 for s, i, aval in sizes]
        if axis_size is not None:
            lines.append(f"  * axis_size is {axis_size}")
        raise ValueError(f"pmap({function_name(fun)}) got inconsistent sizes for array axes "
                         "to be mapped:\n" + "\n".join(lines))
    if not distinct:
        raise ValueError("pmap requires at least one argument with a mapped axis.")
    return distinct.pop()


def _devices_for(size: int, devices, backend, fun) -> list:
    """The devices of this process that run the ``size`` local indices."""
    processes = device_queries.process_count()
    if devices is not None:
        chosen = list(devices)
        if processes > 1:
            return _local_part(chosen, size, fun)
        if len(chosen) < size:
            raise ValueError(
                f"pmap({function_name(fun)}) maps an axis of size {size} over the "
                f"{len(chosen)} devices given in devices=; it needs one device per index")
        return chosen[:size]
    available = device_queries.local_devices(backend=backend)
    if size > len(available):
        platform = available[0].platform if available else backend
        raise ValueError(
            f"pmap({function_name(fun)}) maps an axis of size {size}, but only "
            f"{len(available)} {platform} devices are available (num_replicas={size}). "
            f"Set numlir.config.update('jax_num_cpu_devices', N) or NUMLIR_NUM_CPU_DEVICES "
            f"before the first computation for more CPU devices")
    return available[:size]


def _local_part(chosen: list, size: int, fun) -> list:
    """With several processes, ``devices=`` lists every process's devices, process by
    process, ``size`` each (the mapped axis of each process's arguments); returns this
    process's."""
    processes, here = device_queries.process_count(), device_queries.process_index()
    blocks = [chosen[p * size:(p + 1) * size] for p in range(processes)]
    if len(chosen) != size * processes or any(
            d.process_index != p for p, block in enumerate(blocks) for d in block):
        raise ValueError(
            f"pmap({function_name(fun)}) across {processes} processes maps an axis of size "
            f"{size} in each, so devices= must list {size} devices of process 0, then "
            f"{size} of process 1, and so on; got "
            f"{[(str(d), d.process_index) for d in chosen]} (device, process)")
    return blocks[here]


def _global_size(size: int, axis_size, fun) -> int:
    """The mapped axis over every process: each holds ``size`` indices of it (JAX's
    multi-process pmap), so axis_size, if given, must be their sum."""
    processes = device_queries.process_count()
    if processes == 1:
        return size
    if axis_size is not None and axis_size != size * processes:
        raise ValueError(
            f"pmap({function_name(fun)}): axis_size={axis_size}, but each of the "
            f"{processes} processes maps {size} indices ({size * processes} in all)")
    return size * processes


def _slice(x: np.ndarray, axis: int | None, i: int) -> np.ndarray:
    """Device i's row-major argument: a view of row i where the mapped axis leads in a
    C-contiguous array (no copy), else a copy of the slice; the whole array for None."""
    if axis is None:
        return np.asarray(x, order="C")
    if axis % x.ndim == 0 and x.flags.c_contiguous:
        return x[i, ...]
    # asarray keeps a 0-d slice 0-d, where ascontiguousarray would make it 1-d.
    return np.asarray(np.take(x, i, axis=axis), order="C")


def _device_buffers(host, axes, size, entry, specs, claimed):
    """Each device's arguments, the output buffers given to it, and the outputs stacked in
    place ({output: the whole array}).

    An output stacked on axis 0 is written in place: device i's buffer is row i of the
    result, so a following pmap reads its rows without a copy either way. A donated
    argument's buffer on each device is also its paired output's: the claimed array's own
    rows where it is mapped on axis 0 and the output stacked on axis 0, else a copy of the
    row that device owns."""
    args = [[_slice(x, d, i) for x, d in zip(host, axes)] for i in range(size)]
    stacked = {k: np.empty((size,) + aval.shape, aval.dtype)
               for k, (aval, spec) in enumerate(zip(entry.out_avals, specs))
               if spec == 0 and k not in entry.pairs.values()}
    given = [{k: out[i, ...] for k, out in stacked.items()} for i in range(size)]
    for j, k in entry.pairs.items():
        buffer = claimed.get(k)
        in_place = (buffer is not None and host[j] is buffer and axes[j] == 0
                    and specs[k] == 0 and not any(m != j and np.may_share_memory(buffer, other)
                                                  for m, other in enumerate(host)))
        if buffer is not None and not in_place:
            buffer.flags.writeable = False
        if in_place:
            stacked[k] = buffer  # its rows are the devices' inputs and outputs
        for i in range(size):
            if not in_place:
                args[i][j] = np.array(args[i][j], order="C")
            given[i][k] = args[i][j]
    return args, given, stacked


class PmapFunction:
    """The result of ``numlir.pmap(f)``: call it with arrays mapped along ``in_axes``."""

    def __init__(self, fun: Callable, axis_name, in_axes, out_axes,
                 static_broadcasted_argnums, devices, backend, axis_size, donate_argnums):
        core.check_callable(fun)
        if isinstance(in_axes, list):
            in_axes = tuple(in_axes)
        _check_axis_spec(in_axes, "in_axes")
        _check_axis_spec(out_axes, "out_axes")
        self._fun = fun
        self._axis_name = axis_name
        self._in_axes = in_axes
        self._out_axes = out_axes
        spec = static_args.resolve(fun, static_broadcasted_argnums, (), donate_argnums, ())
        self._static_argnums = spec.static_argnums
        # A donated argument's per-device buffers hold an output of their type (donation.py).
        self._donate_argnums = spec.donate_argnums
        self._devices = devices
        self._backend = backend
        self._axis_size = axis_size
        self._cache = LRUCache(lambda: config.flags.executable_cache_size)
        self._leaf_axes: dict = {}  # (in_tree, static positions) -> in_axes per leaf
        self._meshes: dict = {}  # the devices' ids -> the Mesh outputs report
        # Positional arrays only, no static arguments: the tree and in_axes per leaf by the
        # argument count, so such a call flattens nothing (the common call).
        self._plain_calls: dict = {}
        self._layouts: dict = {}  # (out_axes per leaf, devices' ids) -> the shardings
        #: Calls on positional Arrays, remembered in C++ (host_calls.remember_pmap).
        self._spmd_calls = host_calls.PmapCallCache() if not self._static_argnums else None
        self.cache_misses = 0
        functools.update_wrapper(self, fun, updated=())

    def _split(self, args, kwargs):
        plain = not kwargs and not self._static_argnums and all(
            type(a) in _PLAIN_ARGUMENTS for a in args)
        if plain:
            known = self._plain_calls.get(len(args))
            if known is not None:
                return list(args), known[0], (), known[1]
        leaves, in_tree, static_key, axes = self._split_any(args, kwargs)
        if plain:
            self._plain_calls[len(args)] = (in_tree, axes)
        return leaves, in_tree, static_key, axes

    def _split_any(self, args, kwargs):
        nargs = len(args)
        static = {i % nargs for i in self._static_argnums if -nargs <= i < nargs}
        dyn = tuple(a for i, a in enumerate(args) if i not in static)
        static_key = tuple((i, args[i]) for i in sorted(static))
        for _, v in static_key:
            try:
                hash(v)
            except TypeError as e:
                raise ValueError(f"pmap({function_name(self._fun)}): a static broadcasted "
                                 f"argument must be hashable, got {type(v).__name__}: {e}"
                                 ) from None
        in_axes = self._in_axes
        if isinstance(in_axes, tuple):
            if len(in_axes) != nargs:
                raise ValueError(
                    f"pmap in_axes must be an int, None, or a tuple of entries corresponding "
                    f"to the positional arguments passed to the function, but got "
                    f"len(in_axes)={len(in_axes)}, len(args)={nargs}")
            in_axes = tuple(a for i, a in enumerate(in_axes) if i not in static)
        leaves, in_tree = tree_util.tree_flatten((dyn, kwargs))
        # in_axes over the leaves depends only on the tree (and which arguments are static).
        axes_key = (in_tree, tuple(sorted(static)))
        axes = self._leaf_axes.get(axes_key)
        if axes is None:
            axes = _broadcast_prefix((in_axes, 0), (dyn, kwargs), "in_axes")
            self._leaf_axes[axes_key] = axes
        return leaves, in_tree, static_key, axes

    def _rebuild(self, in_tree, static_key, leaves):
        dyn, kwargs = tree_util.tree_unflatten(in_tree, leaves)
        args = list(dyn)
        for i, v in static_key:
            args.insert(i, v)
        return args, kwargs

    def _as_vmap(self, leaves, in_tree, static_key, axes):
        """``vmap(f, axis_name=...)`` on the same arguments: pmap's values (JAX's eager pmap
        is this vmap), computed where the enclosing computation runs."""
        def flat_fun(*dyn):
            args, kw = self._rebuild(in_tree, static_key, dyn)
            return self._fun(*args, **kw)

        return vmap(flat_fun, in_axes=tuple(axes), out_axes=self._out_axes,
                    axis_name=self._axis_name, axis_size=self._axis_size)(*leaves)

    def __call__(self, *args, **kwargs):
        # The API boundary inline, as jit's: the remembered call is one line of Python.
        try:
            if not kwargs and self._spmd_calls is not None:
                out = self._spmd_calls.call(args)
                if out is not None:
                    return out
            return self._call(args, kwargs)
        except Exception as error:
            traceback_util.filter_raised(error)
            raise

    def _call(self, args, kwargs):
        """The general path: sizes, devices, the signature's executables (tracing and
        compiling on a miss), the launch, the outputs; then remembers it in C++."""
        start = host_calls.generation()
        leaves, in_tree, static_key, axes = self._split(args, kwargs)
        if config.flags.disable_jit or not isinstance(core.current_trace(), core.EvalTrace):
            # Under disable_jit, and inside jit, grad, vmap or another pmap's body (nesting),
            # pmap runs as vmap with its axis name: JAX's values and derivatives, on the
            # enclosing computation's device (docs/pmap.md). The mapped size still needs
            # as many devices as JAX would ask for.
            size = _mapped_size(leaves, axes, self._axis_size, self._fun)
            if not config.flags.disable_jit:
                _devices_for(size, self._devices, self._backend, self._fun)
            return self._as_vmap(leaves, in_tree, static_key, axes)
        several = device_queries.process_count() > 1  # each process maps its part
        size = _mapped_size(leaves, axes, None if several else self._axis_size, self._fun)
        global_size = _global_size(size, self._axis_size, self._fun)
        devices = _devices_for(size, self._devices, self._backend, self._fun)
        avals = tuple(core.get_aval(x) for x in leaves)
        per_device = tuple(a if d is None else a.update(shape=a.shape[:d % a.ndim]
                                                         + a.shape[d % a.ndim + 1:])
                           for a, d in zip(avals, axes))
        key = (in_tree, per_device, tuple(axes), static_key, global_size, dtypes.x64_enabled(),
               tuple(id(d) for d in devices))
        entry = self._cache.get(key)
        if entry is None:
            self.cache_misses += 1
            entry = self._lower(in_tree, static_key, leaves, axes, per_device, global_size)
            self._cache.put(key, entry)
        executables = [dispatch.compile_module(entry.text, name=entry.name, device=d)
                       for d in devices]
        specs = entry.out_specs
        # Before anything else refers to them: the donated buffers this call may write.
        claimed, donors = donation.claim_buffers(leaves, entry.pairs)
        try:
            # In the dtypes traced (a Python float is float32 without x64).
            host = [np.asarray(x, dtype=a.dtype) for x, a in zip(leaves, avals)]
            per_device_args, given, stacked = _device_buffers(host, axes, size, entry, specs,
                                                              claimed)
            outputs = dispatch.execute_spmd(executables, per_device_args, given, global_size)
        finally:
            donation.finish(donors)
        results = self._assemble(outputs, entry, specs, stacked, devices)
        if (self._spmd_calls is not None and not kwargs and all(s == 0 for s in specs)
                and len(leaves) == len(args)):
            host_calls.remember_pmap(
                self._spmd_calls, start, args, axes, entry.pairs, executables, global_size,
                results, host_calls.unflattener(entry.out_tree))
        return tree_util.tree_unflatten(entry.out_tree, results)

    def _lower(self, in_tree, static_key, leaves, axes, per_device, size) -> _Signature:
        out_tree_box = []

        def flat_fun(*tracers):
            args, kwargs = self._rebuild(in_tree, static_key, tracers)
            out = self._fun(*args, **kwargs)
            out_leaves, out_tree = tree_util.tree_flatten(out)
            out_tree_box.append((out_tree, out))
            return out_leaves

        debug = core.TraceDebugInfo("pmap", function_name(self._fun), None)
        with spmd.extend_axis_env([(self._axis_name, size)]) as env:
            closed = core.trace_to_graph(flat_fun, list(per_device), debug)
        graph, _ = core.dce_graph(closed.graph, [True] * len(closed.graph.outvars))
        closed = core.ClosedGraph(graph, closed.consts)
        name = lowering.sanitize_symbol(f"pmap_{function_name(self._fun)}")
        pairs = {}
        if self._donate_argnums:
            # Only a mapped argument: every device has a buffer of its own to write.
            donated = donation.donated_leaves(in_tree, leaves, {i for i, _ in static_key},
                                              self._donate_argnums, ())
            broadcast = [aval.str_short() for d, a, aval in zip(donated, axes, per_device)
                         if d and a is None]
            if broadcast:
                warnings.warn(f"pmap({function_name(self._fun)}): some donated buffers were "
                              f"not usable: {', '.join(broadcast)} (a broadcast argument: "
                              "every device would write the one buffer)", stacklevel=4)
            donated = [d and a is not None for d, a in zip(donated, axes)]
            pairs = donation.pair_outputs(per_device, donated,
                                          [v.aval for v in graph.outvars],
                                          f"pmap({function_name(self._fun)})")
        text = lowering.lower_graph(closed, module_name=name, axis_env=env,
                                    aliasing_outputs=pairs)
        if "hlo.host_callback" in text:
            raise NotImplementedError(
                f"pmap({function_name(self._fun)}): host callbacks (debug.print, "
                "debug.callback, pure_callback) inside a pmap body are not supported yet; "
                "print outside the pmap, or run the body under vmap")
        out_tree, _ = out_tree_box[0]
        out_avals = tuple(v.aval for v in graph.outvars)
        return _Signature(text, name, out_tree, out_avals, pairs,
                          self._out_specs(out_tree, out_avals))

    def _out_specs(self, out_tree, out_avals) -> tuple[int | None, ...]:
        """Each output leaf's out_axes entry, checked and made non-negative."""
        skeleton = tree_util.tree_unflatten(out_tree, [0] * len(out_avals))
        specs = []
        for aval, spec in zip(out_avals,
                              _broadcast_prefix(self._out_axes, skeleton, "out_axes")):
            if spec is not None and not -(aval.ndim + 1) <= spec < aval.ndim + 1:
                raise ValueError(f"pmap out_axes specification {spec} is out of bounds for "
                                 f"an output of rank {aval.ndim}")
            specs.append(None if spec is None else spec % (aval.ndim + 1))
        return tuple(specs)

    def _assemble(self, outputs, entry: _Signature, specs, stacked, devices) -> list:
        """Each output leaf stacked along its out_axes (None: replica 0's value), with the
        NamedSharding JAX reports for it: this process's devices along the stacked axis."""
        ids = tuple(d.id for d in devices)
        layouts = self._layouts.get((specs, ids))
        if layouts is None:
            mesh = self._meshes.get(ids)
            if mesh is None:
                mesh = self._meshes[ids] = Mesh(devices, (_PMAP_AXIS,))
            layouts = self._layouts[(specs, ids)] = [
                NamedSharding(mesh, PartitionSpec() if spec is None else
                              PartitionSpec(*[None] * spec, _PMAP_AXIS)) for spec in specs]
        results = []
        for k, (aval, spec, layout) in enumerate(zip(entry.out_avals, specs, layouts)):
            if k in stacked:
                value = stacked[k]
                value.flags.writeable = False  # a donated buffer, now the output's
            elif spec is None:
                value = np.asarray(outputs[0][k])
            else:
                value = np.stack([np.asarray(out[k]) for out in outputs], axis=spec)
            results.append(Array(value, aval.update(shape=value.shape), devices[0],
                                 layout=layout))
        return results


def pmap(fun: Callable | None = None, axis_name=None, *, in_axes=0, out_axes=0,
         static_broadcasted_argnums: int | Sequence[int] = (), devices=None,
         backend: str | None = None, axis_size: int | None = None,
         donate_argnums: int | Sequence[int] = ()) -> Any:
    """Runs ``fun`` on several devices at once, one slice of the mapped axis each (like
    ``jax.pmap``); collectives over ``axis_name`` combine the devices' values.

    Example::

        >>> numlir.config.update("jax_num_cpu_devices", 4)   # before the first computation
        >>> f = numlir.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i")
        >>> f(jnp.arange(1.0, 5.0))
        Array([0.1, 0.2, 0.3, 0.4], dtype=float32)
    """
    if fun is None:
        return lambda f: pmap(f, axis_name, in_axes=in_axes, out_axes=out_axes,
                              static_broadcasted_argnums=static_broadcasted_argnums,
                              devices=devices, backend=backend, axis_size=axis_size,
                              donate_argnums=donate_argnums)
    return PmapFunction(fun, axis_name, in_axes, out_axes, static_broadcasted_argnums,
                        devices, backend, axis_size, donate_argnums)
