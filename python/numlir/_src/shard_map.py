"""shard_map: one SPMD program over a mesh of devices, each running on its blocks.

``shard_map(f, mesh=, in_specs=, out_specs=)`` splits each argument into blocks by its
PartitionSpec (dimension d over the mesh axes the spec names there), traces ``f`` once on
one device's block shapes with one named axis per mesh axis bound (spmd.py: device at
row-major mesh position r is replica r), compiles it once, runs the copies at once on the
mesh's devices as pmap does, and puts the output blocks together by ``out_specs``. An out
spec that omits a mesh axis promises the output is the same along it, which
spmd_varying.py checks from the graph before anything runs (``check_vma``).

At the top level it runs on this process's numlir CPU devices, host arrays in and out.
Called where jit traces its function (for the CPU devices), it binds ``shard_map_p``, and
jit runs its whole program as one SPMD program over the mesh: every device computes what
lies outside the shard_maps (replicated), cuts its blocks at each shard_map, runs the body
on them and all_gathers the outputs whole again (``_spread``); jit returns the first
device's outputs. Anywhere else inside a transformation (grad, vmap, pmap, a loop's body)
it runs as one vmap per mesh axis (JAX's values, on the enclosing computation's device).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, NamedTuple

import numpy as np

from numlir._src import (config, core, dispatch, dtypes, jit, lowering, spmd,
                         spmd_partition, spmd_varying, traceback_util, tree_util)
from numlir._src.array import Array
from numlir._src.lax import collectives, shape_ops, slicing
from numlir._src.lru_cache import LRUCache
from numlir._src.sharding import Mesh, NamedSharding, PartitionSpec, block_index
from numlir._src.static_args import function_name
from numlir._src.vmap import vmap


class _Program(NamedTuple):
    text: str
    name: str
    out_tree: Any
    out_avals: tuple  # one device's blocks
    out_specs: tuple  # a PartitionSpec per output leaf


def _specs_for(specs, tree, what: str) -> list[PartitionSpec]:
    """``specs`` (a PartitionSpec, or a pytree prefix of them) broadcast over ``tree``'s
    leaves; None means replicated, as P()."""
    is_spec = lambda s: s is None or isinstance(s, PartitionSpec)  # noqa: E731
    out = []

    def expand(spec, subtree):
        if is_spec(spec):
            out.extend([spec or PartitionSpec()] * tree_util.tree_structure(subtree).num_leaves)
            return
        spec_leaves, spec_tree = tree_util.tree_flatten(spec, is_leaf=is_spec)
        try:
            subtrees = spec_tree.flatten_up_to(subtree)
        except (ValueError, TypeError) as error:
            raise ValueError(f"shard_map {what} must be a PartitionSpec or a pytree prefix of "
                             f"the {'arguments' if what == 'in_specs' else 'outputs'}: "
                             f"{error}") from None
        for s, sub in zip(spec_leaves, subtrees):
            expand(s, sub)

    expand(specs, tree)
    return out


def _check_spec(spec: PartitionSpec, mesh: Mesh, ndim: int, what: str) -> None:
    if len(spec) > ndim:
        raise ValueError(f"{what} {spec} has {len(spec)} entries for an array of rank {ndim}")
    unknown = spec.axis_names() - set(mesh.axis_names)
    if unknown:
        raise ValueError(f"{what} {spec} names {sorted(unknown)}, which mesh {mesh} does not "
                         "have")
    named = [n for d in range(len(spec)) for n in spec.names_of(d)]
    if len(named) != len(set(named)):
        raise ValueError(f"{what} {spec} names a mesh axis twice")


def _block_aval(aval, spec: PartitionSpec, mesh: Mesh, index: int, fun,
                what: str = "shard_map"):
    """One device's block of argument ``index`` (``what`` names the caller in errors)."""
    origin = dict.fromkeys(mesh.axis_names, 0)
    shape = []
    for dim, size in enumerate(aval.shape):
        _, count = block_index(spec, mesh, dim, origin)
        if size % count:
            axes = " x ".join(f"{n!r} ({mesh.shape[n]})" for n in spec.names_of(dim))
            raise ValueError(
                f"{what}({function_name(fun)}): argument {index} of shape "
                f"{aval.str_short()} has in_specs {spec}, which splits dimension {dim} "
                f"(of size {size}) over mesh axes {axes}; {count} does not evenly divide "
                f"{size}")
        shape.append(size // count)
    return aval.update(shape=tuple(shape))


def block_avals(avals, specs, mesh: Mesh, fun, what: str) -> tuple:
    """Each argument's block on one device, the specs checked first (``what``, "shard_map"
    or "jit", names the caller in errors)."""
    spec_name = "in_specs" if what == "shard_map" else "in_shardings"
    for spec, aval in zip(specs, avals):
        _check_spec(spec, mesh, aval.ndim, f"{what} {spec_name}")
    return tuple(_block_aval(a, s, mesh, i, fun, what) for i, (a, s) in
                 enumerate(zip(avals, specs)))


def _block(x: np.ndarray, spec: PartitionSpec, mesh: Mesh, coords: dict) -> np.ndarray:
    """The block of ``x`` the device at ``coords`` holds (a view where it can be)."""
    index = []
    for dim, size in enumerate(x.shape):
        i, count = block_index(spec, mesh, dim, coords)
        step = size // count
        index.append(slice(i * step, (i + 1) * step))
    return np.asarray(x[tuple(index)], order="C")


def _split_blocks(x, spec: PartitionSpec, mesh: Mesh):
    """``x`` with a leading axis per mesh axis its spec names (in mesh order) and each
    dimension cut to one device's block: block (c_a, c_b, ...) is device (a, b, ...)'s."""
    shape, where = [], {}  # where[name]: the axis of the reshaped array it became
    for dim, size in enumerate(x.shape):
        names = spec.names_of(dim)
        for name in names:
            where[name] = len(shape)
            shape.append(mesh.shape[name])
        shape.append(size // math.prod(mesh.shape[n] for n in names))
    y = shape_ops.reshape(x, tuple(shape))
    leading = [where[n] for n in mesh.axis_names if n in where]
    rest = [a for a in range(len(shape)) if a not in leading]
    return shape_ops.transpose(y, leading + rest)


def _join_blocks(y, spec: PartitionSpec, mesh: Mesh):
    """The inverse of _split_blocks for an output with a leading axis per mesh axis (all of
    them, vmapped): axes the spec omits are taken at 0, the others merge into their
    dimensions."""
    k = len(mesh.axis_names)
    named = spec.axis_names()
    for a in reversed(range(k)):  # drop the omitted axes, last first
        if mesh.axis_names[a] not in named:
            y = slicing.index_in_dim(y, 0, axis=a, keepdims=False)
    kept = [n for n in mesh.axis_names if n in named]
    block = y.shape[len(kept):]
    order, shape = [], []
    for dim, size in enumerate(block):
        names = spec.names_of(dim)
        order += [kept.index(n) for n in names] + [len(kept) + dim]
        shape.append(size * math.prod(mesh.shape[n] for n in names))
    return shape_ops.reshape(shape_ops.transpose(y, order), tuple(shape))


def _vmapped(body: Callable, mesh: Mesh, specs, out_specs, check_vma: bool, leaves) -> list:
    """shard_map as one vmap per mesh axis (outermost first, each with the axis's name)
    of ``body`` (flat block leaves to flat output leaves) over ``leaves`` cut into blocks,
    the output blocks put together again."""
    mapped = body
    for name in reversed(mesh.axis_names):  # the innermost vmap is the last mesh axis
        axes = tuple(0 if name in spec.axis_names() else None for spec in specs)
        mapped = vmap(mapped, in_axes=axes, axis_name=name, axis_size=mesh.shape[name])
    with spmd.checking_replication(check_vma):
        out_leaves = mapped(*[_split_blocks(x, s, mesh) for x, s in zip(leaves, specs)])
    return [_join_blocks(y, spec, mesh) for y, spec in zip(out_leaves, out_specs)]


def _splits(spec: PartitionSpec, sizes: dict[str, int]) -> list:
    """Each dimension ``spec`` splits, as spmd_partition's Split."""
    return [spmd_partition.Split(dim, names, math.prod(sizes[n] for n in names))
            for dim in range(len(spec)) if (names := spec.names_of(dim))]


def _cut(x, spec: PartitionSpec, sizes: dict[str, int]):
    """This device's block of the whole value ``x`` (inside an SPMD program over the
    mesh)."""
    for split in _splits(spec, sizes):
        x = spmd_partition.cut(x, split, sizes)
    return x


def _whole(y, spec: PartitionSpec, sizes: dict[str, int]):
    """The whole value of the blocks ``y`` split by ``spec``, on every device. Axes the
    spec omits keep the device's own value, which the out spec promises is the same along
    them."""
    for split in _splits(spec, sizes):
        y = spmd_partition.gather(spmd_partition.Part(y, split))
    return y


def _spread(body: core.ClosedGraph, mesh: Mesh, specs, out_specs, leaves) -> list:
    """shard_map inside an SPMD program over its own mesh (jit's): every device cuts its
    blocks of the whole arguments, runs the body on them, and gathers the outputs whole."""
    sizes = dict(mesh.shape)
    blocks = [_cut(x, s, sizes) for x, s in zip(leaves, specs)]
    outs = core.eval_graph(body.graph, body.consts, *blocks)
    return [_whole(y, s, sizes) for y, s in zip(outs, out_specs)]


# shard_map in jit's graph: its body traced on one device's blocks (a ClosedGraph), the
# mesh and the flat specs. It has no differentiation or batching rules: it is bound only
# where jit traces its own function, which no transformation sees (jit under one inlines).
shard_map_p = core.Primitive("shard_map")
shard_map_p.multiple_results = True


@shard_map_p.def_abstract_eval
def _shard_map_abstract_eval(*avals, body, mesh, in_specs, out_specs, check_vma, name):
    origin = dict.fromkeys(mesh.axis_names, 0)
    return [v.aval.update(shape=tuple(size * block_index(spec, mesh, d, origin)[1]
                                      for d, size in enumerate(v.aval.shape)))
            for v, spec in zip(body.graph.outvars, out_specs)]


def _expansion(body, mesh, in_specs, out_specs, check_vma, spread: bool) -> Callable:
    if spread:
        return lambda *leaves: _spread(body, mesh, in_specs, out_specs, leaves)
    run_body = lambda *blocks: core.eval_graph(body.graph, body.consts, *blocks)  # noqa: E731
    return lambda *leaves: _vmapped(run_body, mesh, in_specs, out_specs, check_vma, leaves)


@shard_map_p.def_lowering
def _shard_map_lowering(ctx, *args, body, mesh, in_specs, out_specs, check_vma, name):
    # Spread where the module is an SPMD program over exactly this mesh (jit's run over
    # its devices); elsewhere (jit(...).lower(), another backend) as vmaps on one device.
    axes = list(mesh.shape.items())
    spread = [(f.name, f.size) for f in ctx.axis_env.frames] == axes
    fun = _expansion(body, mesh, in_specs, out_specs, check_vma, spread)
    with spmd.extend_axis_env(axes if spread else []):
        closed = core.trace_to_graph(fun, ctx.avals_in, core.TraceDebugInfo(
            "shard_map", name, ()))
    return ctx.inline(closed, list(args))


@shard_map_p.def_impl
def _shard_map_impl(*args, body, mesh, in_specs, out_specs, check_vma, name):
    # Evaluated eagerly (jit's op-by-op rerun under debug_nans): as vmaps.
    return _expansion(body, mesh, in_specs, out_specs, check_vma, False)(*args)


def _jit_mesh(graph: core.Graph) -> Mesh | None:
    """The mesh of the first shard_map jit's graph bound at its top level, if any."""
    return next((e.params["mesh"] for e in graph.eqns if e.prim is shard_map_p), None)


def _jit_over_mesh(closed: core.ClosedGraph, mesh: Mesh, name: str) -> Callable:
    """jit's graph as one SPMD program on ``mesh``'s devices: everything outside the
    shard_maps replicated (every device computes it, from the whole arguments), each
    shard_map spread (``_spread``; one over a mesh of other axes or sizes runs as vmaps,
    and one over the same axes on other devices is spread over these: its outputs come
    back whole, so only where its blocks were computed differs). Every output is whole on
    every device; the runner returns the first device's."""
    def spread(*leaves):
        return core.eval_graph(closed.graph, closed.consts, *leaves)

    spread.__name__ = name
    replicated = PartitionSpec()
    run = ShardMapFunction(spread, mesh, (replicated,) * len(closed.graph.invars),
                           [replicated] * len(closed.graph.outvars), check_vma=False)
    return lambda leaves: run(*leaves)


jit._shard_map_mesh = _jit_mesh
jit._over_mesh = _jit_over_mesh


class ShardMapFunction:
    """The result of ``numlir.shard_map(f, ...)``."""

    def __init__(self, fun: Callable, mesh: Mesh, in_specs, out_specs, check_vma: bool):
        core.check_callable(fun)
        if not isinstance(mesh, Mesh):
            raise TypeError(f"shard_map needs mesh= a numlir.sharding.Mesh, got {mesh!r}")
        self._fun, self._mesh = fun, mesh
        self._in_specs, self._out_specs = in_specs, out_specs
        self._check_vma = check_vma
        self._cache = LRUCache(lambda: config.flags.executable_cache_size)
        functools.update_wrapper(self, fun, updated=())

    @traceback_util.api_boundary
    def __call__(self, *args):
        fun, mesh = self._fun, self._mesh
        trace = core.current_trace()
        if not isinstance(trace, core.EvalTrace):
            if spmd.spreads_shard_maps(trace) and self._spreadable():
                return self._bind(args)
            return self._as_vmaps(args)
        devices = list(mesh.devices.flat)
        if not all(d.is_available() for d in devices):
            raise NotImplementedError(
                f"shard_map({function_name(fun)}) over devices of other processes is not "
                "supported yet; use pmap across processes (docs/distributed.md)")
        leaves, in_tree = tree_util.tree_flatten(args)
        specs = _specs_for(self._in_specs, args, "in_specs")
        avals = [core.get_aval(x) for x in leaves]
        blocks = block_avals(avals, specs, mesh, fun, "shard_map")
        key = (in_tree, blocks, tuple(map(tuple, specs)), dtypes.x64_enabled(), mesh)
        program = self._cache.get(key)
        if program is None:
            program = self._lower(in_tree, blocks, specs)
            self._cache.put(key, program)
        executables = [dispatch.compile_module(program.text, name=program.name, device=d)
                       for d in devices]
        host = [np.asarray(x, dtype=a.dtype) for x, a in zip(leaves, avals)]
        args_per_device = [[_block(x, s, mesh, mesh.coordinates(r)) for x, s in zip(host, specs)]
                           for r in range(len(devices))]
        outputs = dispatch.execute_spmd(executables, args_per_device)
        results = []
        for k, (aval, spec) in enumerate(zip(program.out_avals, program.out_specs)):
            whole = self._assemble(outputs, k, spec)
            results.append(Array(whole, aval.update(shape=whole.shape), devices[0],
                                 layout=NamedSharding(mesh, spec)))
        return tree_util.tree_unflatten(program.out_tree, results)

    def _as_vmaps(self, args):
        """Inside grad, vmap, pmap or a loop's body (or a jit that cannot spread it): one
        vmap per mesh axis (outermost first, each with the axis's name) over the arguments
        cut into blocks, and the output blocks put together again: shard_map's values and
        derivatives, computed where the enclosing computation runs (as JAX's eager
        shard_map would)."""
        mesh = self._mesh
        leaves, in_tree = tree_util.tree_flatten(args)
        specs = _specs_for(self._in_specs, args, "in_specs")
        blocks = block_avals([core.get_aval(x) for x in leaves], specs, mesh, self._fun,
                             "shard_map")
        # Traced once on its own for the out_specs and the replication they promise.
        _, _, out_tree, out_specs = self._trace(in_tree, blocks, specs)

        def body(*block_leaves):
            out = self._fun(*tree_util.tree_unflatten(in_tree, block_leaves))
            return tree_util.tree_leaves(out)

        results = _vmapped(body, mesh, specs, out_specs, self._check_vma, leaves)
        return tree_util.tree_unflatten(out_tree, results)

    def _bind(self, args):
        """Where jit traces for the CPU devices: the body traced on one device's blocks,
        bound as shard_map_p for jit to spread over the mesh."""
        leaves, in_tree = tree_util.tree_flatten(args)
        specs = _specs_for(self._in_specs, args, "in_specs")
        blocks = block_avals([core.get_aval(x) for x in leaves], specs, self._mesh, self._fun,
                             "shard_map")
        closed, _, out_tree, out_specs = self._trace(in_tree, blocks, specs)
        outs = shard_map_p.bind(*leaves, body=closed, mesh=self._mesh, in_specs=tuple(specs),
                                out_specs=out_specs, check_vma=self._check_vma,
                                name=function_name(self._fun))
        return tree_util.tree_unflatten(out_tree, outs)

    def _spreadable(self) -> bool:
        return all(d.is_available() and d.platform == "cpu" for d in self._mesh.devices.flat)

    def _trace(self, in_tree, blocks, specs):
        """The body's graph on one device's blocks, its axis environment, output tree and
        out_specs, with the out_specs checked (and, under check_vma, the replication they
        promise)."""
        mesh, out_box = self._mesh, []

        def flat_fun(*tracers):
            out = self._fun(*tree_util.tree_unflatten(in_tree, tracers))
            out_leaves, out_tree = tree_util.tree_flatten(out)
            out_box.append((out_tree, out))
            return out_leaves

        debug = core.TraceDebugInfo("shard_map", function_name(self._fun), None)
        with spmd.extend_axis_env(list(mesh.shape.items())) as env, \
                spmd.checking_replication(self._check_vma):
            closed = core.trace_to_graph(flat_fun, list(blocks), debug)
        graph, _ = core.dce_graph(closed.graph, [True] * len(closed.graph.outvars))
        closed = core.ClosedGraph(graph, closed.consts)
        out_tree, out = out_box[0]
        out_specs = _specs_for(self._out_specs, out, "out_specs")
        for spec, var in zip(out_specs, graph.outvars):
            _check_spec(spec, mesh, var.aval.ndim, "shard_map out_specs")
        if self._check_vma:
            self._check_replication(graph, specs, out_specs)
        return closed, env, out_tree, tuple(out_specs)

    def _check_replication(self, graph, specs, out_specs) -> None:
        mesh = self._mesh
        varying = spmd_varying.varying_axes(graph, [frozenset(s.axis_names()) for s in specs])
        for k, (axes, spec) in enumerate(zip(varying, out_specs)):
            missing = sorted(axes - spec.axis_names(), key=mesh.axis_names.index)
            if missing:
                raise ValueError(
                    f"shard_map applied to the function {function_name(self._fun)!r} "
                    f"was given out_specs which require replication which can't be "
                    f"statically inferred given the mesh: out_specs is {spec} for output "
                    f"{k}, which implies that it is replicated across mesh axis "
                    f"{missing[0]!r}, but it varies over it. If it is meant to be "
                    "replicated, make it so (psum, pmean, pmax), revise the "
                    "out_specs, or pass check_vma=False")

    def _lower(self, in_tree, blocks, specs) -> _Program:
        closed, env, out_tree, out_specs = self._trace(in_tree, blocks, specs)
        out_avals = tuple(v.aval for v in closed.graph.outvars)
        name = lowering.sanitize_symbol(f"shard_map_{function_name(self._fun)}")
        text = lowering.lower_graph(closed, module_name=name, axis_env=env)
        if "hlo.host_callback" in text:
            raise NotImplementedError(
                f"shard_map({function_name(self._fun)}): host callbacks (debug.print, "
                "debug.callback, pure_callback) inside the body are not supported yet")
        return _Program(text, name, out_tree, out_avals, out_specs)

    def _assemble(self, outputs, k: int, spec: PartitionSpec) -> np.ndarray:
        """Output ``k``'s blocks put together: each device whose coordinates are 0 on the
        axes ``spec`` omits contributes its block at the place its coordinates give."""
        mesh = self._mesh
        origin = dict.fromkeys(mesh.axis_names, 0)
        first = np.asarray(outputs[0][k])
        counts = [block_index(spec, mesh, d, origin)[1] for d in range(first.ndim)]
        whole = np.empty(tuple(s * c for s, c in zip(first.shape, counts)), first.dtype)
        named = spec.axis_names()
        for r, out in enumerate(outputs):
            coords = mesh.coordinates(r)
            if any(coords[n] for n in mesh.axis_names if n not in named):
                continue
            index = tuple(slice(block_index(spec, mesh, d, coords)[0] * s,
                                (block_index(spec, mesh, d, coords)[0] + 1) * s)
                          for d, s in enumerate(first.shape))
            whole[index] = np.asarray(out[k])
        return whole


def shard_map(f: Callable | None = None, /, *, out_specs, in_specs=None, mesh: Mesh | None = None,
              axis_names=frozenset(), check_vma: bool = True) -> Any:
    """Runs ``f`` on every device of ``mesh`` at once, each on its blocks of the arguments
    (like ``jax.shard_map``): ``in_specs``/``out_specs`` are PartitionSpecs (or pytree
    prefixes of them) saying which dimensions split over which mesh axes, and collectives
    over the mesh axis names combine the devices' values.

    Example::

        >>> mesh = numlir.make_mesh((2, 2), ("data", "model"))
        >>> f = numlir.shard_map(lambda x: lax.psum(x, "model"), mesh=mesh,
        ...                      in_specs=P("data", "model"), out_specs=P("data", None))
        >>> f(jnp.arange(24.0).reshape(4, 6)).shape
        (4, 3)
    """
    if f is None:
        return lambda g: shard_map(g, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                   axis_names=axis_names, check_vma=check_vma)
    if mesh is None:
        raise ValueError("shard_map needs mesh=: numlir has no mesh context yet "
                         "(numlir.make_mesh or numlir.sharding.Mesh makes one)")
    if axis_names and set(axis_names) != set(mesh.axis_names):
        raise NotImplementedError(
            "shard_map(axis_names=...) over part of the mesh (the other axes automatic) is "
            "not supported: numlir has no automatic partitioning; name every mesh axis")
    return ShardMapFunction(f, mesh, in_specs, out_specs, check_vma)
