"""Transposition of linear programs: the backward half of reverse mode.

``backward_pass`` walks a graph whose inputs are partly *undefined* (the
linear inputs, marked ``UndefinedPrimal``) and partly known values. Equations
that do not depend on a linear input are evaluated forward first (inside a
``checkpoint`` this is the recomputation); the linear equations are then
visited in reverse, each primitive's ``transpose_rules`` entry mapping
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

from numlir._src import core, spmd
from numlir._src.ad_util import Zero, add_any, convert_element_type, instantiate, reduce_sum, reshape
from numlir._src.partial_eval import PartialEvalTrace

#: Primitive -> its transpose rule; linear primitives register it with ad.deflinear (which
#: sets the JVP too), the others with ``deftranspose``.
transpose_rules: dict[core.Primitive, Callable] = {}


def deftranspose(prim: core.Primitive, rule: Callable) -> None:
    """``rule(ct, *operands, **params)`` is ``prim``'s transpose (signature above)."""
    transpose_rules[prim] = rule


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
    if spmd.replication_checked():
        raise NotImplementedError(
            "grad, vjp or another transposition inside shard_map(..., check_vma=True): JAX "
            "then psums the cotangents of values replicated over a mesh axis (its varying-"
            "axes types), which numlir does not model yet. Pass check_vma=False to get each "
            "device's own gradient (and combine them with psum or pmean, as under pmap)")
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
        cts[id(var)] = ct if prev is None else add_any(prev, ct)

    for atom, ct in zip(graph.outvars, cts_out):
        if is_linear(atom):
            accumulate(atom, ct)
    for eqn in reversed(linear_eqns):
        outs_ct = [cts.pop(id(v), None) for v in eqn.outputs]
        if all(c is None for c in outs_ct):
            continue  # nothing flows back through this equation
        outs_ct = [zero_ct(v.aval) if c is None else c for v, c in zip(eqn.outputs, outs_ct)]
        rule = transpose_rules.get(eqn.prim)
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


# --- Rule helpers ------------------------------------------------------------------------


def unbroadcast(ct, aval: core.ShapedArray):
    """Sum ``ct`` down to ``aval``'s shape (the transpose of lax-style broadcasting)."""
    ct_aval = core.get_aval(ct)
    if ct_aval.shape != aval.shape:
        if aval.ndim == 0:
            ct = reduce_sum(ct, tuple(range(ct_aval.ndim)))
        else:
            axes = tuple(i for i, (a, b) in enumerate(zip(aval.shape, ct_aval.shape)) if a != b)
            ct = reshape(reduce_sum(ct, axes), aval.shape)
    if core.get_aval(ct).dtype != aval.dtype:
        ct = convert_element_type(ct, aval.dtype)
    return ct


def first_operand(transpose: Callable) -> Callable:
    """The transpose rule of a primitive linear in its first operand alone (the others, e.g.
    a padding value or indices, are known): ``transpose(ct, *operands, **params)`` returns
    that operand's cotangent."""

    def rule(ct, *args, **params):
        return [transpose(ct, *args, **params)] + [None] * (len(args) - 1)

    return rule


def linear_transpose_fn(fun: Callable, primal_avals: Sequence[core.ShapedArray]) -> Callable:
    """The transpose of a function known to be linear in all its (flat) array arguments.

    It is traced with unknown inputs (everything it computes depends on them) and
    the recorded graph is transposed; used for the transpose rules of primitives
    whose transpose is easiest to write as "run the forward op on a probe".
    """

    def transposed(*cts):
        trace = PartialEvalTrace()
        ins = [trace.new_arg(a.strip_weak_type()) for a in primal_avals]
        with core.set_current_trace(trace):
            outs = fun(*ins)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        closed = trace.to_closed_graph(list(outs))
        res = backward_pass(closed.graph, closed.consts,
                            [UndefinedPrimal(a) for a in closed.in_avals], cts)
        return [instantiate(r) for r in res]

    return transposed
