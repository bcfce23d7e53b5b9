"""Transposition of linear programs: the backward half of reverse mode.

``backward_pass`` walks a graph whose inputs are partly *undefined* (the
linear inputs, marked ``UndefinedPrimal``) and partly known values. Equations
that do not depend on a linear input are evaluated forward first (inside a
``checkpoint`` this is the recomputation); the linear equations are then
visited in reverse, each primitive's ``core.transpose_rules`` entry mapping
the cotangents of its outputs to cotangents of its linear operands.

A transpose rule has the signature::

    rule(ct, *operands, **params) -> list of cotangents, one per operand

where each operand is either its value (a non-linear operand, e.g. the
residual ``cos(x)`` in ``mul(t, cos(x))``) or an ``UndefinedPrimal`` (a
linear one). Entries for non-linear operands are ``None``; ``Zero`` is a
symbolic zero cotangent. ``ct`` is never ``Zero`` for a single-result
primitive (the equation is skipped instead); multiple-result primitives get
a list that may contain ``Zero``s.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from numlir._src import core
from numlir._src.ad import Zero, add_tangents, instantiate


class UndefinedPrimal:
    """A linear operand of a transpose rule: only its abstract value is known."""

    __slots__ = ("aval",)

    def __init__(self, aval: core.ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined(x) -> bool:
    return isinstance(x, UndefinedPrimal)


def zero_ct(aval: core.ShapedArray) -> Zero:
    return Zero(aval.strip_weak_type())


def backward_pass(graph: core.Graph, consts: Sequence[Any], args: Sequence[Any],
                  cts_out: Sequence[Any]) -> list[Any]:
    """Cotangents of ``graph``'s inputs given those of its outputs.

    ``args`` holds a value or ``UndefinedPrimal`` per invar; the result has a
    cotangent (possibly ``Zero``) for each undefined input and ``None`` for the others.
    """
    linear: set[int] = set()
    env: dict[int, Any] = {}
    for v, c in zip(graph.constvars, consts):
        env[id(v)] = c
    for v, a in zip(graph.invars, args):
        if is_undefined(a):
            linear.add(id(v))
        else:
            env[id(v)] = a

    def is_linear(atom) -> bool:
        return isinstance(atom, core.Var) and id(atom) in linear

    forward, linear_eqns = [], []
    for eqn in graph.eqns:
        if any(is_linear(a) for a in eqn.inputs):
            linear_eqns.append(eqn)
            linear.update(id(v) for v in eqn.outputs)
        else:
            forward.append(eqn)
    _eval_needed(forward, linear_eqns, env)

    def read(atom):
        if isinstance(atom, core.Literal):
            return atom.val
        return UndefinedPrimal(atom.aval) if id(atom) in linear else env[id(atom)]

    cts: dict[int, Any] = {}

    def accumulate(var, ct):
        if ct is None or isinstance(ct, Zero):
            return
        prev = cts.get(id(var))
        cts[id(var)] = ct if prev is None else add_tangents(prev, ct)

    for atom, ct in zip(graph.outvars, cts_out):
        if is_linear(atom):
            accumulate(atom, ct)
    for eqn in reversed(linear_eqns):
        outs_ct = [cts.pop(id(v), None) for v in eqn.outputs]
        if all(c is None for c in outs_ct):
            continue  # nothing flows back through this equation
        outs_ct = [zero_ct(v.aval) if c is None else c for v, c in zip(eqn.outputs, outs_ct)]
        rule = core.transpose_rules.get(eqn.prim)
        if rule is None:
            raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                                      f"'{eqn.prim.name}' not implemented")
        with core.source_info_scope(eqn.source_info):
            ct_in = rule(outs_ct if eqn.prim.multiple_results else outs_ct[0],
                         *[read(a) for a in eqn.inputs], **eqn.params)
        for atom, ct in zip(eqn.inputs, ct_in):
            if is_linear(atom):
                accumulate(atom, ct)
    result = []
    for v in graph.invars:
        ct = cts.get(id(v))
        result.append(None if id(v) not in linear else zero_ct(v.aval) if ct is None else ct)
    return result


def _eval_needed(forward: list[core.Eqn], linear_eqns: list[core.Eqn], env: dict[int, Any]) -> None:
    """Evaluate the non-linear equations whose results the linear ones use."""
    needed = {id(a) for e in linear_eqns for a in e.inputs if isinstance(a, core.Var)}
    run = []
    for eqn in reversed(forward):
        if any(id(v) in needed for v in eqn.outputs):
            run.append(eqn)
            needed.update(id(a) for a in eqn.inputs if isinstance(a, core.Var))
    for eqn in reversed(run):
        args = [a.val if isinstance(a, core.Literal) else env[id(a)] for a in eqn.inputs]
        with core.source_info_scope(eqn.source_info):
            outs = eqn.prim.bind(*args, **eqn.params)
        for v, o in zip(eqn.outputs, outs if eqn.prim.multiple_results else [outs]):
            env[id(v)] = o


def backward_pass_closed(closed: core.ClosedGraph, args: Sequence[Any],
                         cts_out: Sequence[Any]) -> list[Any]:
    return backward_pass(closed.graph, closed.consts, args, cts_out)


# --- Rule helpers ------------------------------------------------------------------------


def unbroadcast(ct, aval: core.ShapedArray):
    """Sum ``ct`` down to ``aval``'s shape (the transpose of lax-style broadcasting)."""
    from numlir._src.lax import elementwise, reduction, shape_ops

    ct_aval = core.get_aval(ct)
    if ct_aval.shape != aval.shape:
        if aval.ndim == 0:
            ct = reduction.reduce_sum(ct, tuple(range(ct_aval.ndim)))
        else:
            axes = tuple(i for i, (a, b) in enumerate(zip(aval.shape, ct_aval.shape)) if a != b)
            ct = shape_ops.reshape(reduction.reduce_sum(ct, axes), aval.shape)
    if core.get_aval(ct).dtype != aval.dtype:
        ct = elementwise.convert_element_type(ct, aval.dtype)
    return ct


def deflinear(prim: core.Primitive, transpose: Callable) -> None:
    """``transpose(ct, *operands, **params)``: the cotangent of the one linear operand,
    which is the first operand (the others, e.g. indices, are known)."""

    def rule(ct, *args, **params):
        return [transpose(ct, *args, **params)] + [None] * (len(args) - 1)

    core.transpose_rules[prim] = rule


def linear_transpose_fn(fun: Callable, primal_avals: Sequence[core.ShapedArray]) -> Callable:
    """The transpose of a function known to be linear in all its (flat) array arguments.

    It is traced with unknown inputs (everything it computes depends on them) and
    the recorded graph is transposed; used for the transpose rules of primitives
    whose transpose is easiest to write as "run the forward op on a probe".
    """
    from numlir._src.partial_eval import PartialEvalTrace

    def transposed(*cts):
        trace = PartialEvalTrace()
        ins = [trace.new_arg(a.strip_weak_type()) for a in primal_avals]
        with core.set_current_trace(trace):
            outs = fun(*ins)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        closed = trace.to_closed_graph(list(outs))
        res = backward_pass_closed(closed, [UndefinedPrimal(a) for a in closed.in_avals], cts)
        return [instantiate(r) for r in res]

    return transposed
