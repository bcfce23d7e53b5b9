"""The batching interpreter (BatchTrace/BatchTracer) behind vmap, and its rule helpers.

A ``BatchTracer`` stands for one example of a batch: it holds the whole
batched value ``val`` and the position ``bdim`` of the batch axis in it
(``None``: the value is the same for every example). Each ``vmap`` is its own
``BatchTrace`` whose ``parent`` is the trace that was current when it
started, so nested vmaps and closures over outer tracers compose. A
primitive's batching rule lives next to its other rules and has the form::

    rule(axis_size, args, dims, **params) -> (outs, out_dims)

where ``args`` are the batched values and ``dims`` their batch axes; it runs
with the parent trace current. Primitives register theirs with ``defvectorized`` (the
batch axis passes through an elementwise primitive of one operand), ``defbroadcasting``
(elementwise with lax broadcasting) or ``defrule``. The user-facing ``vmap`` is in vmap.py.
"""

from __future__ import annotations

import threading
from typing import Callable, Sequence

from numlir._src import core
from numlir._src.ad_util import broadcast_in_dim, reshape, transpose

not_mapped = None

#: Primitive -> its batching rule; register with the helpers below.
batching_rules: dict[core.Primitive, Callable] = {}
#: Collective primitive -> ``rule(trace, vals, dims, **params) -> outs`` (wrapped): the
#: primitives over named axes (psum, all_gather...), which every BatchTrace sees, batched
#: or not, to decide whether the axis is its own (lax/collectives.py).
named_axis_rules: dict[core.Primitive, Callable] = {}


class _RuleState(threading.local):
    def __init__(self):
        self.axis_name = None


#: The axis name of the vmap whose rule is running: the traces that batch a sub-graph
#: (a scan body, a cond branch) inherit it, so collectives inside control flow find it.
_rule_state = _RuleState()


class BatchTracer(core.Tracer):
    __slots__ = ("val", "bdim")

    def __init__(self, trace: "BatchTrace", val, bdim: int | None):
        aval = core.get_aval(val)
        if bdim is not None:
            aval = aval.update(shape=aval.shape[:bdim] + aval.shape[bdim + 1:])
        super().__init__(trace, aval)
        self.val = val
        self.bdim = bdim

    def _inner_value(self):
        return self.val


class BatchTrace(core.Trace):
    """Runs each primitive's batching rule on (value, batch axis) pairs."""

    transformation = "vmap"

    def __init__(self, axis_size: int, axis_name=None, parent: core.Trace | None = None):
        self.parent = parent if parent is not None else core.current_trace()
        self.axis_size = axis_size
        self.axis_name = axis_name

    def unpack(self, x):
        if isinstance(x, BatchTracer) and x._trace is self:
            return x.val, x.bdim
        return x, not_mapped

    def wrap(self, val, bdim):
        return val if bdim is None else BatchTracer(self, val, bdim)

    def process_primitive(self, prim, args, params):
        vals, dims = zip(*[self.unpack(a) for a in args]) if args else ((), ())
        named_rule = named_axis_rules.get(prim)
        if named_rule is not None:
            return named_rule(self, list(vals), list(dims), **params)
        with core.set_current_trace(self.parent):
            if all(d is None for d in dims):
                return prim.bind(*vals, **params)
            rule = batching_rules.get(prim)
            if rule is None:
                raise NotImplementedError(f"vmap: no batching rule for the primitive {prim.name}")
            saved, _rule_state.axis_name = _rule_state.axis_name, self.axis_name
            try:
                outs, out_dims = rule(self.axis_size, list(vals), list(dims), **params)
            finally:
                _rule_state.axis_name = saved
        if prim.multiple_results:
            return [self.wrap(o, d) for o, d in zip(outs, out_dims)]
        return self.wrap(outs, out_dims)


# --- Helpers for rules ---------------------------------------------------------------------


def moveaxis(x, src: int, dst: int):
    if src == dst:
        return x
    ndim = core.get_aval(x).ndim
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return transpose(x, perm)


def bdim_to_front(x, bdim: int | None, axis_size: int):
    """``x`` with its batch axis first; an unbatched ``x`` is broadcast along a new first axis."""
    return matchaxis(x, bdim, 0, axis_size)


def matchaxis(x, src: int | None, dst: int, axis_size: int):
    if src is None:
        aval = core.get_aval(x)
        shape = aval.shape[:dst] + (axis_size,) + aval.shape[dst:]
        dims = tuple(i for i in range(len(shape)) if i != dst)
        return broadcast_in_dim(x, shape, dims)
    return moveaxis(x, src, dst)


def shifted(axis: int, bdim: int) -> int:
    """Where per-example axis ``axis`` sits in a value batched at ``bdim``."""
    return axis + (axis >= bdim)


def _broadcast_batcher(prim: core.Primitive) -> Callable:
    """The rule of an elementwise primitive with lax broadcasting (rank 0 or size-1 dims)."""

    def rule(axis_size, args, dims, **params):
        avals = [core.get_aval(a) for a in args]
        ranks = [a.ndim - (d is not None) for a, d in zip(avals, dims)]
        rank = max(ranks)
        if len({(a.shape, d) for a, d in zip(avals, dims)}) == 1:  # same shapes and batch axes
            return prim.bind(*args, **params), dims[0]
        new = []
        for x, a, d, r in zip(args, avals, dims, ranks):
            if d is None:
                new.append(x if r == 0 else reshape(x, (1,) + a.shape))
            else:
                x = moveaxis(x, d, 0)
                new.append(x if r == rank else reshape(x, (axis_size,) + (1,) * rank))
        out = prim.bind(*new, **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)

    return rule


def defrule(prim: core.Primitive, rule: Callable) -> None:
    """``rule(axis_size, args, dims, **params) -> (outs, out_dims)`` batches ``prim``."""
    batching_rules[prim] = rule


#: The primitives declared elementwise here (defbroadcasting, defvectorized): jit's
#: data-parallel partitioner (spmd_partition.py) keeps their operands split.
elementwise_prims: set[core.Primitive] = set()


def defbroadcasting(*prims: core.Primitive) -> None:
    """Elementwise primitives with lax broadcasting (rank-0 or size-1 operands)."""
    for p in prims:
        batching_rules[p] = _broadcast_batcher(p)
        elementwise_prims.add(p)


def defvectorized(*prims: core.Primitive) -> None:
    """Elementwise primitives of one operand: the batch axis passes through."""

    def rule_for(prim):
        def rule(axis_size, args, dims, **params):
            return prim.bind(*args, **params), dims[0]

        return rule

    for p in prims:
        batching_rules[p] = rule_for(p)
        elementwise_prims.add(p)


# --- Batching closed graphs (for control flow) --------------------------------------------


def batch_graph_fn(graph: core.ClosedGraph, axis_size: int, in_dims: Sequence[int | None],
                   out_batched: Sequence[bool] | None = None) -> Callable:
    """A function running ``graph`` on batched values (batch axes ``in_dims``).

    Outputs come back with the batch axis first where ``out_batched`` says so
    (unbatched ones are broadcast) and unbatched elsewhere. Returns
    ``(outs, batched)`` when ``out_batched`` is None.
    """

    axis_name = _rule_state.axis_name

    def fun(*args):
        trace = BatchTrace(axis_size, axis_name)
        wrapped = [trace.wrap(a, d) for a, d in zip(args, in_dims)]
        with core.set_current_trace(trace):
            outs = core.eval_graph(graph.graph, graph.consts, *wrapped)
        pairs = [trace.unpack(o) for o in outs]
        if out_batched is None:
            return [v if d is None else moveaxis(v, d, 0) for v, d in pairs], [
                d is not None for _, d in pairs]
        result = []
        for (v, d), b in zip(pairs, out_batched):
            if b:
                result.append(bdim_to_front(v, d, axis_size))
            elif d is not None:
                raise AssertionError("a batched output was expected to be unbatched")
            else:
                result.append(v)
        return result

    return fun


def graph_out_batched(graph: core.ClosedGraph, axis_size: int,
                      in_dims: Sequence[int | None]) -> list[bool]:
    """Which outputs of ``graph`` are batched when its inputs are batched at ``in_dims``."""
    fun = batch_graph_fn(graph, axis_size, in_dims)
    avals = []
    for aval, d in zip(graph.in_avals, in_dims):
        avals.append(aval if d is None else aval.update(shape=aval.shape[:d] + (axis_size,) + aval.shape[d:]))
    box = []

    def flat(*args):
        outs, batched = fun(*args)
        box.append(batched)
        return outs

    core.trace_to_graph(flat, avals)
    return box[0]
