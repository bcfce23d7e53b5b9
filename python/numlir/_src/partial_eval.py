"""Partial evaluation: run what is known now, record what is not yet known.

A ``PartialEvalTrace`` owns *unknown* values (its graph tracers). A
primitive whose operands are all known is bound on the parent trace right
away; one with an unknown operand is recorded into the trace's graph, whose
constvars are then the known values it used (the *residuals*).

This is how reverse mode gets its linear program: running the JVP of ``f``
with unknown tangents evaluates the primal computation now and records only
the tangent computation, which is linear in the tangents and can be
transposed (``transpose.py``). Primitives holding sub-graphs (cond, scan,
while, checkpoint) mix primal and tangent work in one equation; their
``partial_eval_rules`` (registered with ``def_partial_eval``) split them into a known and an unknown part with
``partial_eval_graph``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from numlir._src import core

#: Primitive -> ``rule(trace, args, params) -> outs``: how it splits when some operands are
#: known and others not. Primitives without a rule are recorded whole.
partial_eval_rules: dict[core.Primitive, Callable] = {}


def def_partial_eval(prim: core.Primitive, rule: Callable) -> None:
    partial_eval_rules[prim] = rule


class PartialEvalTrace(core.GraphTrace):
    """Records only what depends on its own (unknown) values; the rest runs on ``parent``."""

    transformation = "grad (linearization)"

    def is_unknown(self, x) -> bool:
        return isinstance(x, core.GraphTracer) and x._trace is self

    def record(self, prim: core.Primitive, args, params):
        """Record ``prim`` whole; known operands become residual constvars."""
        return core.GraphTrace.process_primitive(self, prim, args, params)

    def process_primitive(self, prim, args, params):
        if not any(self.is_unknown(a) for a in args):
            return prim.bind_with_trace(self.parent, args, params)
        rule = partial_eval_rules.get(prim)
        if rule is not None:
            with core.set_current_trace(self.parent):
                return rule(self, list(args), params)
        return self.record(prim, args, params)


def hoist_consts(closed: core.ClosedGraph) -> tuple[core.ClosedGraph, list[Any]]:
    """``closed`` with its constants turned into leading inputs, and those constants."""
    g = closed.graph
    graph = core.ClosedGraph(core.Graph([], g.constvars + g.invars, g.eqns, g.outvars), [])
    return graph, list(closed.consts)


def partial_eval_graph(closed: core.ClosedGraph, unknowns: Sequence[bool],
                       instantiate: bool | Sequence[bool] = False):
    """Split ``closed`` into a known graph and an unknown graph.

    * ``known``: (known inputs) -> (known outputs, residuals); it may have
      constants (values of enclosing traces it uses).
    * ``unknown``: (residuals, unknown inputs) -> (unknown outputs), no constants.

    Outputs whose ``instantiate`` flag is set are unknown even when they could be
    computed now. Returns ``(known, unknown, out_unknowns, num_residuals)``.
    """
    in_avals = closed.in_avals
    known_trace = core.GraphTrace()
    known_args = iter([known_trace.new_arg(a) for a, u in zip(in_avals, unknowns) if not u])
    pe = PartialEvalTrace(parent=known_trace)
    unknown_args = iter([pe.new_arg(a) for a, u in zip(in_avals, unknowns) if u])
    args = [next(unknown_args) if u else next(known_args) for u in unknowns]
    with core.set_current_trace(pe):
        outs = core.eval_graph(closed.graph, closed.consts, *args)
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(outs)
    out_unknowns = [pe.is_unknown(o) or bool(i) for o, i in zip(outs, instantiate)]
    with core.set_current_trace(known_trace):
        unknown_closed = pe.to_closed_graph([o for o, u in zip(outs, out_unknowns) if u])
    residuals = unknown_closed.consts
    with core.set_current_trace(known_trace.parent):
        known = known_trace.to_closed_graph(
            [o for o, u in zip(outs, out_unknowns) if not u] + list(residuals))
    unknown, _ = hoist_consts(unknown_closed)
    return known, unknown, out_unknowns, len(residuals)
