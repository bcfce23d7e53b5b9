"""``jit(f, in_shardings=..., out_shardings=...)``: data parallelism by shardings.

The arguments' NamedShardings say which are split along a dimension over mesh axes (the
batch) and which are replicated (the parameters). ``f`` is traced once per signature on
the global shapes; spmd_partition.py then runs that graph inside a shard_map body on each
device's blocks, keeping the batch split where it can and adding the all_reduces a split
contraction or reduction needs. Outputs come back as ``out_shardings`` say, or, where it
says nothing, as they come out (split outputs are put together on the host, replicated
ones taken from one device). Automatic sharding propagation beyond these rules is not part
of it (issue 36).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from numlir._src import config, core, dtypes, jit, spmd, traceback_util, tree_util
from numlir._src.lru_cache import LRUCache
from numlir._src.shard_map import ShardMapFunction, block_avals
from numlir._src.sharding import Mesh, NamedSharding, PartitionSpec
from numlir._src.spmd_partition import Part, evaluate, spec_of_split, split_of_spec, to_split
from numlir._src.static_args import function_name


def _flat_shardings(shardings, tree_args, what: str) -> list[NamedSharding | None]:
    """``shardings`` (one, or a pytree prefix of the arguments/outputs) per leaf."""
    is_leaf = lambda s: s is None or isinstance(s, NamedSharding)  # noqa: E731
    if is_leaf(shardings):
        return [shardings] * tree_util.tree_structure(tree_args).num_leaves
    leaves, treedef = tree_util.tree_flatten(shardings, is_leaf=is_leaf)
    bad = [s for s in leaves if not is_leaf(s)]
    if bad:
        raise TypeError(f"jit {what} must be NamedShardings (or None), got {bad[0]!r}")
    try:
        parts = treedef.flatten_up_to(tree_args)
    except (ValueError, TypeError) as error:
        raise ValueError(f"jit {what} must be a pytree prefix of the "
                         f"{'arguments' if what == 'in_shardings' else 'outputs'}: {error}"
                         ) from None
    out = []
    for s, part in zip(leaves, parts):
        out += [s] * tree_util.tree_structure(part).num_leaves
    return out


def _mesh_of(shardings) -> Mesh:
    meshes = {s.mesh for s in shardings if s is not None}
    if len(meshes) != 1:
        raise ValueError("jit's in_shardings and out_shardings must name one mesh, got "
                         f"{len(meshes)}")
    return meshes.pop()


class ShardedJitFunction:
    """The result of ``numlir.jit(f, in_shardings=..., out_shardings=...)``."""

    def __init__(self, fun: Callable, in_shardings, out_shardings):
        core.check_callable(fun)
        self._fun = fun
        self._in_shardings, self._out_shardings = in_shardings, out_shardings
        self._cache = LRUCache(lambda: config.flags.executable_cache_size)
        functools.update_wrapper(self, fun, updated=())

    @traceback_util.api_boundary
    def __call__(self, *args):
        leaves, in_tree = tree_util.tree_flatten(args)
        avals = tuple(core.get_aval(x) for x in leaves)
        key = (in_tree, avals, dtypes.x64_enabled())
        program = self._cache.get(key)
        if program is None:
            program = self._partition(args, leaves, in_tree, avals)
            self._cache.put(key, program)
        return program(*leaves)

    def _partition(self, args, leaves, in_tree, avals) -> Callable:
        """A shard_map over the flat arguments that runs the partitioned graph."""
        name = function_name(self._fun)
        in_shardings = _flat_shardings(self._in_shardings, args, "in_shardings")
        trees = []

        def flat_fun(*xs):
            out_leaves, out_tree = tree_util.tree_flatten(
                self._fun(*tree_util.tree_unflatten(in_tree, xs)))
            trees.append(out_tree)
            return out_leaves

        closed = core.trace_to_graph(flat_fun, list(avals),
                                     core.TraceDebugInfo("jit", name, None))
        out_tree = trees[0]
        out_avals = [v.aval for v in closed.graph.outvars]
        skeleton = tree_util.tree_unflatten(out_tree, out_avals)
        out_shardings = (_flat_shardings(self._out_shardings, skeleton, "out_shardings")
                         if self._out_shardings is not None else [None] * len(out_avals))
        mesh = _mesh_of([*in_shardings, *out_shardings])
        sizes = dict(mesh.shape)
        in_specs = [s.spec if s is not None else PartitionSpec() for s in in_shardings]
        in_splits = [split_of_spec(spec, sizes, "in_shardings") for spec in in_specs]
        wanted = [split_of_spec(s.spec, sizes, "out_shardings") if s is not None else None
                  for s in out_shardings]
        chosen: list = []  # where out_shardings says nothing: how the output came out

        def body(*local):
            parts = evaluate(closed.graph, closed.consts,
                             [Part(x, s) for x, s in zip(local, in_splits)], sizes)
            if not chosen:
                chosen.extend(p.split if w is None and s is None else w
                              for p, w, s in zip(parts, wanted, out_shardings))
            return [to_split(p, s, sizes) for p, s in zip(parts, chosen)]

        # The first trace settles the output splits; shard_map's own trace reuses them.
        blocks = block_avals(avals, in_specs, mesh, self._fun, "jit")
        with spmd.extend_axis_env(list(sizes.items())):
            core.trace_to_graph(body, blocks, core.TraceDebugInfo("jit", name, None))
        out_specs = [spec_of_split(s, a.ndim) for s, a in zip(chosen, out_avals)]
        run = ShardMapFunction(body, mesh, tuple(in_specs), out_specs, check_vma=False)
        return lambda *flat: tree_util.tree_unflatten(out_tree, run(*flat))


jit._sharded_jit = ShardedJitFunction
