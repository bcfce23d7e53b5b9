"""Forward-mode autodiff: the JVP interpreter and the helpers that register JVP rules.

(The user-facing ``jvp``, ``linearize`` and ``jacfwd`` are in forward_mode.py; reverse
mode, built on this interpreter, in partial_eval.py, transpose.py and reverse_mode.py.)

A ``JVPTrace`` wraps each value in a ``JVPTracer`` carrying (primal, tangent)
and re-binds primitives on its ``parent`` trace through ``jvp_rules``.
Every ``jvp`` call makes a fresh trace, and a trace only unpacks its *own*
tracers: values of enclosing traces are constants to it (zero tangent), which
is what keeps nested ``jvp`` free of perturbation confusion.

Tangents may be ``Zero(aval)``, a symbolic zero that is only materialised when
a rule needs an array. A rule has the signature
``rule(primals, tangents, **params) -> (primal_out, tangent_out)``. Primitives register
theirs with one of the helpers below: ``defjvp`` (per-operand tangent functions),
``defjvp_rule`` (a whole rule), ``deflinear``/``deflinear_in``/``defbilinear`` (linear
primitives: the JVP and the transpose together) and ``defzero``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from numlir._src import core, transpose, tree_util
from numlir._src.ad_util import Zero, add_any, broadcast_in_dim, instantiate

#: Primitive -> its JVP rule; register with the helpers below.
jvp_rules: dict[core.Primitive, Callable] = {}


def broadcast_tangent(t, shape: Sequence[int]):
    """``t`` lax-broadcast (rank 0, or size-1 dims of equal rank) to ``shape``."""
    aval = core.get_aval(t) if not isinstance(t, Zero) else t.aval
    shape = tuple(shape)
    if aval.shape == shape:
        return t
    if isinstance(t, Zero):
        return Zero(aval.update(shape=shape))
    dims = () if aval.ndim == 0 else tuple(range(len(shape)))
    return broadcast_in_dim(t, shape, dims)


# --- Rule builders ------------------------------------------------------------------------


def defjvp_rule(prim: core.Primitive, rule: Callable) -> None:
    """``rule(primals, tangents, **params) -> (primal_out, tangent_out)`` is ``prim``'s JVP."""
    jvp_rules[prim] = rule


def defjvp(prim: core.Primitive, *tangent_fns: Callable | None) -> None:
    """Per-operand JVP: ``tangent_fns[i](t_i, *primals, **params)`` is operand i's contribution.

    ``None`` marks an operand with no tangent contribution (e.g. an index).
    """

    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        shape = core.get_aval(out).shape
        t_out = Zero(core.get_aval(out).strip_weak_type())
        for fn, t in zip(tangent_fns, tangents):
            if fn is not None and not isinstance(t, Zero):
                t_out = add_any(t_out, broadcast_tangent(fn(t, *primals, **params), shape))
        return out, t_out

    jvp_rules[prim] = rule


def deflinear(prim: core.Primitive, transpose_rule: Callable) -> None:
    """A primitive linear in all its operands: its JVP is the primitive applied to the
    tangents, and ``transpose_rule(ct, *operands, **params)`` (see transpose.py) its
    transpose."""

    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if all(isinstance(t, Zero) for t in tangents):
            outs = out if prim.multiple_results else [out]
            zeros = [Zero(core.get_aval(o).strip_weak_type()) for o in outs]
            return out, zeros if prim.multiple_results else zeros[0]
        return out, prim.bind(*[instantiate(t) for t in tangents], **params)

    jvp_rules[prim] = rule
    transpose.deftranspose(prim, transpose_rule)


def deflinear_in(prim: core.Primitive, positions: Sequence[int], transpose_rule: Callable) -> None:
    """A primitive linear in the operands at ``positions`` jointly (the others, e.g. indices,
    pass through): its JVP is the primitive applied to those operands' tangents, and
    ``transpose_rule`` its transpose."""
    positions = tuple(positions)

    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if all(isinstance(tangents[i], Zero) for i in positions):
            return out, Zero(core.get_aval(out).strip_weak_type())
        args = [instantiate(tangents[i]) if i in positions else p for i, p in enumerate(primals)]
        return out, prim.bind(*args, **params)

    jvp_rules[prim] = rule
    transpose.deftranspose(prim, transpose_rule)


def defbilinear(prim: core.Primitive, transpose_rule: Callable) -> None:
    """A primitive linear in each of its two operands (dot, conv): the JVP is the sum of the
    primitive applied to one tangent and the other primal, and ``transpose_rule`` the
    transpose with respect to whichever operand is linear."""
    defjvp(prim, lambda t, x, y, **params: prim.bind(t, y, **params),
           lambda t, x, y, **params: prim.bind(x, t, **params))
    transpose.deftranspose(prim, transpose_rule)


def defzero(prim: core.Primitive) -> None:
    """Outputs with a zero tangent (integer, boolean or piecewise-constant primitives)."""

    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if prim.multiple_results:
            return out, [Zero(core.get_aval(o)) for o in out]
        return out, Zero(core.get_aval(out))

    jvp_rules[prim] = rule


# --- The JVP interpreter ----------------------------------------------------------------


class JVPTracer(core.Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace: "JVPTrace", primal, tangent):
        super().__init__(trace, core.get_aval(primal))
        self.primal = primal
        self.tangent = tangent

    def _inner_value(self):
        return self.primal


class JVPTrace(core.Trace):
    """Computes primals and tangents together; one instance per ``jvp`` call."""

    transformation = "grad/jvp"

    def __init__(self, parent: core.Trace | None = None):
        self.parent = parent if parent is not None else core.current_trace()

    def lift(self, x):
        if isinstance(x, JVPTracer) and x._trace is self:
            return x.primal, x.tangent
        if isinstance(x, core.Tracer) and not core.encloses(self, x._trace):
            raise core.UnexpectedTracerError(
                f"Encountered a tracer ({x.aval.str_short()}) from a different, finished trace "
                "inside jvp. A traced value escaped the function being differentiated."
            )
        return x, Zero(core.get_aval(x).strip_weak_type())

    def process_primitive(self, prim, args, params):
        primals, tangents = zip(*[self.lift(a) for a in args]) if args else ((), ())
        if all(isinstance(t, Zero) for t in tangents):
            return prim.bind_with_trace(self.parent, primals, params)
        rule = jvp_rules.get(prim)
        if rule is None:
            raise NotImplementedError(f"Differentiation rule for '{prim.name}' not implemented")
        with core.set_current_trace(self.parent):
            out, t_out = rule(list(primals), list(tangents), **params)
        if prim.multiple_results:
            return [JVPTracer(self, o, t) for o, t in zip(out, t_out)]
        return JVPTracer(self, out, t_out)


# --- Tracing JVPs -----------------------------------------------------------------------


def jvp_flat(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any]):
    """JVP of ``fun`` (flat list in, any pytree out). Returns (out_tree, primals_out, tangents_out)."""
    trace = JVPTrace()
    tracers = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
    with core.set_current_trace(trace):
        out = fun(*tracers)
    leaves, out_tree = tree_util.tree_flatten(out)
    primals_out, tangents_out = [], []
    for x in leaves:
        if isinstance(x, JVPTracer) and x._trace is trace:
            primals_out.append(x.primal)
            tangents_out.append(x.tangent)
        else:
            primals_out.append(x)
            try:
                tangents_out.append(Zero(core.get_aval(x).strip_weak_type()))
            except TypeError:  # a non-array leaf (only allowed in has_aux's aux)
                tangents_out.append(None)
    return out_tree, primals_out, tangents_out


def jvp_graph(fun: Callable, in_avals: Sequence[core.ShapedArray], nonzeros: Sequence[bool],
              instantiate_out: bool | Sequence[bool] = True):
    """Trace the JVP of ``fun`` (flat arrays in and out) to a graph.

    The graph takes the primals, then the tangents of the ``nonzeros`` inputs, and
    returns the primal outputs, then the tangents of the outputs that are nonzero (or
    instantiated). Returns ``(graph, consts, out_nonzeros)``: the graph has no constants of
    its own, its leading invars take ``consts`` (the values it closes over).
    """
    out_nz: list[bool] = []

    def flat(*args):
        primals, rest = list(args[:len(in_avals)]), iter(args[len(in_avals):])
        tangents = [next(rest) if nz else Zero(a.strip_weak_type()) for a, nz in zip(in_avals, nonzeros)]
        _, outs, t_outs = jvp_flat(fun, primals, tangents)
        inst = ([instantiate_out] * len(outs) if isinstance(instantiate_out, bool)
                else list(instantiate_out))
        t_outs = [instantiate(t) if i else t for t, i in zip(t_outs, inst)]
        out_nz[:] = [not isinstance(t, Zero) for t in t_outs]
        return list(outs) + [t for t in t_outs if not isinstance(t, Zero)]

    t_avals = [a.strip_weak_type() for a, nz in zip(in_avals, nonzeros) if nz]
    closed = core.trace_to_graph(flat, list(in_avals) + t_avals)
    g = closed.graph
    graph = core.ClosedGraph(core.Graph([], g.constvars + g.invars, g.eqns, g.outvars), [])
    return graph, list(closed.consts), out_nz
