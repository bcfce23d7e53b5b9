"""Which mesh axes an SPMD body's values vary over (JAX's check_vma, forward only).

shard_map's ``out_specs`` omitting a mesh axis promises that the output is the same on
every device along it; numlir takes that output from the devices at coordinate 0 on the
axis, so a value that does vary there would silently lose the others. This pass decides it
from the traced graph before anything runs: arguments vary over the axes their in_specs
name, ``axis_index`` over its axis, a psum, pmax or pmin over an axis makes its result the
same along it, and everything else varies wherever an input does (an all_gather's result
too: in JAX it varies, all_gather_invariant being the replicated one). A nested
graph (scan, cond, while, custom rules) is treated as a whole: its outputs vary over what
its inputs vary over plus every axis that an ``axis_index`` or a data-moving collective
inside names. That is conservative: a body whose replication the pass cannot see is
rejected, and ``check_vma=False`` turns the check off, as in JAX.
"""

from __future__ import annotations

from typing import Iterable

from numlir._src import core

#: Results are the same along the named axes (without axis_index_groups).
_REPLICATING = frozenset({"psum", "pmax", "pmin"})
#: Results differ along the named axes whatever the inputs.
_VARYING = frozenset({"axis_index", "ppermute", "all_to_all", "reduce_scatter", "all_gather"})


def _names(params: dict) -> frozenset:
    names = params.get("axes", params.get("axis_name", ()))
    return frozenset(names if isinstance(names, (tuple, list)) else (names,))


def _subgraphs(params: dict) -> Iterable[core.Graph]:
    for value in params.values():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, core.ClosedGraph):
                yield item.graph
            elif isinstance(item, core.Graph):
                yield item


def _introduced(graph: core.Graph) -> frozenset:
    """Every axis that an axis_index or data-moving collective in ``graph`` names."""
    found = frozenset()
    for eqn in graph.eqns:
        if eqn.prim.name in _VARYING:
            found |= _names(eqn.params)
        for inner in _subgraphs(eqn.params):
            found |= _introduced(inner)
    return found


def varying_axes(graph: core.Graph, in_varying: list[frozenset]) -> list[frozenset]:
    """The axes each output of ``graph`` may vary over, given its inputs'."""
    env: dict[int, frozenset] = {id(v): axes for v, axes in zip(graph.invars, in_varying)}

    def of(atom) -> frozenset:
        return env.get(id(atom), frozenset())  # literals and constants are replicated

    for eqn in graph.eqns:
        inputs = frozenset().union(*(of(a) for a in eqn.inputs))
        name, names = eqn.prim.name, _names(eqn.params)
        if name in _REPLICATING and eqn.params.get("axis_index_groups") is None:
            out = inputs - names
        elif name in _VARYING:
            out = inputs | names
        else:
            out = inputs
            for inner in _subgraphs(eqn.params):
                out |= _introduced(inner)
        for v in eqn.outputs:
            env[id(v)] = out
    return [of(v) for v in graph.outvars]
