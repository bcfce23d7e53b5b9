"""Forward-mode autodiff: the JVP interpreter, ``jvp``, ``linearize`` and ``jacfwd``.

(Reverse mode, built on these, is in partial_eval.py, transpose.py and reverse_mode.py.)

A ``JVPTrace`` wraps each value in a ``JVPTracer`` carrying (primal, tangent)
and re-binds primitives on its ``parent`` trace through ``core.jvp_rules``.
Every ``jvp`` call makes a fresh trace, and a trace only unpacks its *own*
tracers: values of enclosing traces are constants to it (zero tangent), which
is what keeps nested ``jvp`` free of perturbation confusion.

Tangents may be ``Zero(aval)``, a symbolic zero that is only materialised when
a rule needs an array. A rule has the signature
``rule(primals, tangents, **params) -> (primal_out, tangent_out)``; the helpers
below (``defjvp``, ``deflinear``, ``defzero``) build the common shapes of rule.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from numlir._src import core, dtypes, traceback_util
from numlir import tree_util

# --- Symbolic zeros ----------------------------------------------------------------------


class Zero:
    """A tangent known to be zero, of abstract value ``aval``."""

    __slots__ = ("aval",)

    def __init__(self, aval: core.ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"Zero({self.aval.str_short()})"


def zeros_like_aval(aval: core.ShapedArray):
    from numlir._src.lax.shape_ops import full

    return full(aval.shape, 0, aval.dtype)


def instantiate(t):
    """``t`` as an array (a ``Zero`` becomes zeros)."""
    return zeros_like_aval(t.aval) if isinstance(t, Zero) else t


def add_tangents(x, y):
    if isinstance(x, Zero):
        return y
    if isinstance(y, Zero):
        return x
    from numlir._src.lax.elementwise import add

    return add(x, y)


def const(x, value):
    """A weakly typed rank-0 constant of ``x``'s dtype (broadcasts in lax binary ops)."""
    from numlir._src.lax.elementwise import convert_element_type

    return convert_element_type(value, core.get_aval(x).dtype, weak_type=True)


def broadcast_tangent(t, shape: Sequence[int]):
    """``t`` lax-broadcast (rank 0, or size-1 dims of equal rank) to ``shape``."""
    aval = core.get_aval(t) if not isinstance(t, Zero) else t.aval
    shape = tuple(shape)
    if aval.shape == shape:
        return t
    if isinstance(t, Zero):
        return Zero(aval.update(shape=shape))
    from numlir._src.lax.shape_ops import broadcast_in_dim

    dims = () if aval.ndim == 0 else tuple(range(len(shape)))
    return broadcast_in_dim(t, shape, dims)


# --- Rule builders ------------------------------------------------------------------------


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
                t_out = add_tangents(t_out, broadcast_tangent(fn(t, *primals, **params), shape))
        return out, t_out

    core.jvp_rules[prim] = rule


def deflinear(prim: core.Primitive) -> None:
    """The JVP of a primitive linear in all its operands: the primitive applied to the tangents."""

    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if all(isinstance(t, Zero) for t in tangents):
            outs = out if prim.multiple_results else [out]
            zeros = [Zero(core.get_aval(o).strip_weak_type()) for o in outs]
            return out, zeros if prim.multiple_results else zeros[0]
        return out, prim.bind(*[instantiate(t) for t in tangents], **params)

    core.jvp_rules[prim] = rule


def defzero(prim: core.Primitive) -> None:
    """Outputs with a zero tangent (integer, boolean or piecewise-constant primitives)."""

    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if prim.multiple_results:
            return out, [Zero(core.get_aval(o)) for o in out]
        return out, Zero(core.get_aval(out))

    core.jvp_rules[prim] = rule


# --- The JVP interpreter ----------------------------------------------------------------


class JVPTracer(core.Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace: "JVPTrace", primal, tangent):
        super().__init__(trace, core.get_aval(primal))
        self.primal = primal
        self.tangent = tangent

    def _inner_value(self):
        return self.primal


def _is_ancestor(trace: core.Trace, other: core.Trace) -> bool:
    t = getattr(trace, "parent", None)
    while t is not None:
        if t is other:
            return True
        t = getattr(t, "parent", None)
    return False


class JVPTrace(core.Trace):
    """Computes primals and tangents together; one instance per ``jvp`` call."""

    transformation = "grad/jvp"

    def __init__(self, parent: core.Trace | None = None):
        self.parent = parent if parent is not None else core.current_trace()

    def lift(self, x):
        if isinstance(x, JVPTracer) and x._trace is self:
            return x.primal, x.tangent
        if isinstance(x, core.Tracer) and not _is_ancestor(self, x._trace):
            raise core.UnexpectedTracerError(
                f"Encountered a tracer ({x.aval.str_short()}) from a different, finished trace "
                "inside jvp. A traced value escaped the function being differentiated."
            )
        return x, Zero(core.get_aval(x).strip_weak_type())

    def process_primitive(self, prim, args, params):
        primals, tangents = zip(*[self.lift(a) for a in args]) if args else ((), ())
        if all(isinstance(t, Zero) for t in tangents):
            return prim.bind_with_trace(self.parent, primals, params)
        rule = core.jvp_rules.get(prim)
        if rule is None:
            raise NotImplementedError(f"Differentiation rule for '{prim.name}' not implemented")
        with core.set_current_trace(self.parent):
            out, t_out = rule(list(primals), list(tangents), **params)
        if prim.multiple_results:
            return [JVPTracer(self, o, t) for o, t in zip(out, t_out)]
        return JVPTracer(self, out, t_out)


# --- jvp -------------------------------------------------------------------------------------


def _check_sequence(what: str, value) -> None:
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{what} arguments to jvp must be tuples or lists; found {type(value).__name__}.")


def _check_tangent(path: str, primal, tangent) -> None:
    p, t = core.get_aval(primal), core.get_aval(tangent)
    if p.shape != t.shape:
        raise core.value_error(
            f"jvp called with different primal and tangent shapes for {path}: primal shape "
            f"{p.shape} and tangent shape {t.shape}"
        )
    if p.dtype != t.dtype and dtypes.issubdtype(p.dtype, np.inexact):
        raise core.shape_error(
            f"jvp called with different primal and tangent dtypes for {path}: primal dtype "
            f"{p.dtype.name} and tangent dtype {t.dtype.name}"
        )


def _jvp_flat(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any]):
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


def jvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool = False):
    """Forward-mode derivative: ``(fun(*primals), d fun(primals) · tangents)``.

    Example::

        y, dy = numlir.jvp(numlir.numpy.sin, (1.0,), (1.0,))   # (sin 1, cos 1)
    """
    core.check_callable(fun)
    from numlir._src.array import as_array

    _check_sequence("primal", primals)
    _check_sequence("tangent", tangents)
    p_leaves, p_tree = tree_util.tree_flatten(tuple(primals))
    t_leaves, t_tree = tree_util.tree_flatten(tuple(tangents))
    if p_tree != t_tree:
        raise TypeError(
            f"primal and tangent arguments to jvp must have the same tree structure; got "
            f"primal structure {p_tree} and tangent structure {t_tree}."
        )
    paths = [tree_util.keystr(path) for path, _ in tree_util.tree_flatten_with_path(tuple(primals))[0]]
    for path, p, t in zip(paths, p_leaves, t_leaves):
        _check_tangent(f"primals{path}", p, t)
    p_leaves = [as_array(p) for p in p_leaves]
    # Integer and boolean inputs have no tangent space (jax's float0): a symbolic zero.
    t_leaves = [as_array(t) if dtypes.is_float(core.get_aval(p).dtype)
                else Zero(core.get_aval(p).strip_weak_type()) for p, t in zip(p_leaves, t_leaves)]

    def flat_fun(*leaves):
        out = fun(*tree_util.tree_unflatten(p_tree, leaves))
        if has_aux:
            out, aux = out
            return (out, _Aux(aux))
        return out

    out_tree, outs, t_outs = _jvp_flat(flat_fun, p_leaves, t_leaves)
    t_outs = [instantiate(t) for t in t_outs]
    if has_aux:
        out, aux = tree_util.tree_unflatten(out_tree, outs)
        t_out, _ = tree_util.tree_unflatten(out_tree, t_outs)
        return out, t_out, aux.value
    return tree_util.tree_unflatten(out_tree, outs), tree_util.tree_unflatten(out_tree, t_outs)


class _Aux:
    """Marks the ``has_aux`` part of an output (its leaves' primals are returned as aux)."""

    def __init__(self, value):
        self.value = value


tree_util.register_pytree_node(_Aux, lambda a: ([a.value], None), lambda _, c: _Aux(c[0]))


# --- linearize ----------------------------------------------------------------------------


def linearize(fun: Callable, *primals):
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the (jitted) linear JVP map.

    Example::

        y, f_jvp = numlir.linearize(numlir.numpy.sin, 1.0)
        f_jvp(2.0)   # 2 * cos(1)
    """
    core.check_callable(fun)
    from numlir._src.api import jit
    from numlir._src.array import as_array

    p_leaves, p_tree = tree_util.tree_flatten(tuple(primals))
    p_leaves = [as_array(p) for p in p_leaves]
    in_avals = [core.get_aval(p).strip_weak_type() for p in p_leaves]
    from numlir._src.partial_eval import PartialEvalTrace

    trace = PartialEvalTrace()
    t_args = [trace.new_arg(a) for a in in_avals]
    with core.set_current_trace(trace):
        out_tree, outs, t_outs = _jvp_flat(
            lambda *xs: fun(*tree_util.tree_unflatten(p_tree, xs)), p_leaves, t_args)
        t_outs = [instantiate(t) for t in t_outs]
    graph = trace.to_closed_graph(t_outs)
    # The residuals are arguments of the compiled linear map, so it compiles once per signature.
    linear_consts = jit(lambda consts, *ts: core.eval_graph(graph.graph, consts, *ts))
    consts = list(graph.consts)

    def linear(*ts):
        return linear_consts(consts, *ts)

    @traceback_util.api_boundary
    def f_jvp(*tangents):
        t_leaves, t_tree = tree_util.tree_flatten(tuple(tangents))
        if t_tree != p_tree:
            raise TypeError(
                f"linearized function called with tangents of structure {t_tree}; expected "
                f"the primals' structure {p_tree}.")
        for i, (a, t) in enumerate(zip(in_avals, t_leaves)):
            ta = core.get_aval(t)
            if ta.shape != a.shape or ta.dtype != a.dtype:
                raise core.shape_error(
                    f"linearized function called with tangent {i} of type {ta.str_short()}; "
                    f"expected {a.str_short()}")
        return tree_util.tree_unflatten(out_tree, linear(*t_leaves))

    return tree_util.tree_unflatten(out_tree, list(outs)), f_jvp


# --- jacfwd ----------------------------------------------------------------------------------


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable:
    """Jacobian of ``fun`` by forward mode: out.shape + in.shape per (output, input) leaf.

    Example::

        numlir.jacfwd(lambda x: x ** 2)(jnp.arange(3.0))   # diag([0, 2, 4])
    """
    core.check_callable(fun)

    @traceback_util.api_boundary
    def jac_fun(*args):
        import numlir.numpy as jnp
        from numlir._src.array import as_array

        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for n in nums:
            if not -len(args) <= n < len(args):
                raise TypeError(f"jacfwd: argnums {argnums} out of range for {len(args)} arguments")
        dyn = tuple(args[n] for n in nums)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        leaves = [as_array(x) for x in leaves]
        for x in leaves:
            dt = core.get_aval(x).dtype
            if not dtypes.issubdtype(dt, np.floating):
                raise TypeError(
                    "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
                    f"np.floating), but got {dt.name}. For holomorphic differentiation or integer "
                    "inputs, convert the inputs first.")

        def partial(*dyn_leaves):
            full = list(args)
            for n, v in zip(nums, tree_util.tree_unflatten(in_tree, dyn_leaves)):
                full[n] = v
            return fun(*full)

        sizes = [core.get_aval(x).size for x in leaves]
        offsets = np.cumsum([0] + sizes)
        total = int(offsets[-1])
        if total == 0:  # no input elements at all
            out = partial(*leaves)
            out, aux = out if has_aux else (out, None)
            columns = [jnp.zeros(core.get_aval(o).shape + (0,), core.get_aval(o).dtype)
                       for o in tree_util.tree_leaves(out)]
        else:
            # All basis tangents at once: the JVP vmapped over the columns of the identity.
            from numlir._src.batching import vmap

            eye = np.eye(total)
            basis = tuple(eye[:, off:off + size].reshape((total,) + core.get_aval(x).shape)
                          .astype(core.get_aval(x).dtype)
                          for x, off, size in zip(leaves, offsets, sizes))

            def push(*ts):
                res = jvp(partial, tuple(leaves), ts, has_aux=has_aux)
                return res[0], tree_util.tree_leaves(res[1]), res[2] if has_aux else None

            out, columns, aux = vmap(push, out_axes=(None, -1, None))(*basis)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        jac_leaves = []
        for j, o in enumerate(out_leaves):
            o_shape = core.get_aval(o).shape
            stacked = columns[j]
            per_input = []
            for x, off, size in zip(leaves, offsets, sizes):
                piece = stacked[..., int(off):int(off) + size]
                per_input.append(jnp.reshape(piece, o_shape + core.get_aval(x).shape))
            in_jac = tree_util.tree_unflatten(in_tree, per_input)
            jac_leaves.append(in_jac[0] if isinstance(argnums, int) else in_jac)
        jac = tree_util.tree_unflatten(out_tree, jac_leaves)
        return (jac, aux) if has_aux else jac

    return jac_fun


def deflinear_in(prim: core.Primitive, *positions: int) -> None:
    """The JVP of a primitive linear in the operands at ``positions`` jointly (the others,
    e.g. indices, are passed through): the primitive applied to those operands' tangents."""

    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if all(isinstance(tangents[i], Zero) for i in positions):
            return out, Zero(core.get_aval(out).strip_weak_type())
        args = [instantiate(tangents[i]) if i in positions else p for i, p in enumerate(primals)]
        return out, prim.bind(*args, **params)

    core.jvp_rules[prim] = rule


def defbilinear(prim: core.Primitive) -> None:
    """The JVP of a primitive linear in each of its two operands (dot, conv)."""
    defjvp(prim, lambda t, x, y, **params: prim.bind(t, y, **params),
           lambda t, x, y, **params: prim.bind(x, t, **params))


def jvp_graph(fun: Callable, in_avals: Sequence[core.ShapedArray], nonzeros: Sequence[bool],
              instantiate_out: bool | Sequence[bool] = True):
    """Trace the JVP of ``fun`` (flat arrays in and out) to a graph.

    The graph takes the primals, then the tangents of the ``nonzeros`` inputs, and
    returns the primal outputs, then the tangents of the outputs that are nonzero (or
    instantiated). Returns ``(graph, out_nonzeros)``; the graph's consts lead its invars.
    """
    out_nz: list[bool] = []

    def flat(*args):
        primals, rest = list(args[:len(in_avals)]), iter(args[len(in_avals):])
        tangents = [next(rest) if nz else Zero(a.strip_weak_type()) for a, nz in zip(in_avals, nonzeros)]
        _, outs, t_outs = _jvp_flat(fun, primals, tangents)
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
