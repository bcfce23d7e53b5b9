"""jax.custom_gradient and jax.closure_convert, built on custom_vjp and graph tracing.

``custom_gradient(fun)``: ``fun(*args)`` returns ``(value, vjp)``, where ``vjp(ct)``
gives the cotangents of the arguments. The forward rule runs ``fun`` and traces
``vjp`` into a graph over the value's cotangent types; the graph and its constants
(which may be traced values of the forward pass) are the residuals, so the backward
rule only evaluates the graph. ``vjp`` may close over anything ``fun`` computed.

``closure_convert(fun, *example_args)``: the traced values ``fun`` closes over
(from an enclosing jit, grad or vmap) become explicit trailing arguments of the
returned function, so that it can be handed to custom_vjp rules and the like,
which need functions of their arguments only; concrete constants stay inside.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from numlir._src import core, tree_util
from numlir._src.custom_derivatives import custom_vjp


class _TracedRule:
    """A traced function as a pytree: the graph and tree structures are static, the
    constants are its leaves (so custom_vjp can carry them as residuals)."""

    def __init__(self, graph: core.Graph, consts: list, in_tree, out_tree):
        self.graph, self.consts, self.in_tree, self.out_tree = graph, consts, in_tree, out_tree

    def __call__(self, *args):
        leaves, tree = tree_util.tree_flatten(args)
        if tree != self.in_tree:
            raise TypeError(f"custom_gradient: the vjp got cotangents of structure {tree}, expected "
                            f"{self.in_tree}")
        outs = core.eval_graph(self.graph, self.consts, *leaves)
        return tree_util.tree_unflatten(self.out_tree, outs)


tree_util.register_pytree_node(
    _TracedRule,
    lambda r: (r.consts, (r.graph, r.in_tree, r.out_tree)),
    lambda aux, consts: _TracedRule(aux[0], list(consts), aux[1], aux[2]),
)


def _trace(fun: Callable, args: tuple) -> _TracedRule:
    """``fun`` traced at the abstract values of ``args`` (a tuple of pytrees)."""
    leaves, in_tree = tree_util.tree_flatten(args)
    avals = [core.get_aval(x).strip_weak_type() for x in leaves]
    out_tree_box = []

    def flat(*xs):
        out = fun(*tree_util.tree_unflatten(in_tree, list(xs)))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        out_tree_box.append(out_tree)
        return out_leaves

    closed = core.trace_to_graph(flat, avals)
    return _TracedRule(closed.graph, list(closed.consts), in_tree, out_tree_box[0])


def custom_gradient(fun: Callable) -> Callable:
    """``fun`` with the gradient its second output defines: ``fun(*args) -> (value, vjp)``
    and ``vjp(ct) -> cotangents of args`` (a tuple, or one cotangent for one argument).

    Example::

        @numlir.custom_gradient
        def clipped_identity(x):
            return x, lambda g: (jnp.clip(g, -1.0, 1.0),)
    """

    @custom_vjp
    def wrapped(*args):
        value, _ = fun(*args)
        return value

    def fwd(*args):
        value, rule = fun(*args)
        # the cotangent has the value's structure and types: trace the rule there
        return value, _trace(rule, (value,))

    def bwd(traced: _TracedRule, ct):
        cts = traced(ct)
        return tuple(cts) if isinstance(cts, (tuple, list)) else (cts,)

    wrapped.defvjp(fwd, bwd)
    return functools.wraps(fun)(wrapped)


def closure_convert(fun: Callable, *example_args) -> tuple[Callable, list[Any]]:
    """``(converted, hoisted)``: ``converted(*args, *hoisted) == fun(*args)``, where
    ``hoisted`` are the traced values ``fun`` closes over."""
    traced = _trace(fun, example_args)
    hoisted_positions = [i for i, c in enumerate(traced.consts) if isinstance(c, core.Tracer)]
    hoisted = [traced.consts[i] for i in hoisted_positions]

    def converted(*args):
        n = len(args) - len(hoisted)
        if n < 0:
            raise TypeError(f"closure_convert: the converted function takes its {len(example_args)} "
                            f"argument(s) followed by {len(hoisted)} hoisted constant(s)")
        consts = list(traced.consts)
        for i, value in zip(hoisted_positions, args[n:]):
            consts[i] = value
        leaves, tree = tree_util.tree_flatten(args[:n])
        if tree != traced.in_tree:
            raise TypeError(f"closure_convert: arguments of structure {tree}, expected {traced.in_tree}")
        return tree_util.tree_unflatten(traced.out_tree, core.eval_graph(traced.graph, consts, *leaves))

    return converted, hoisted
