"""Gradient checkpointing: ``checkpoint`` (alias ``remat``), its policies and ``checkpoint_name``.

``checkpoint(f)`` traces ``f`` into the ``checkpoint`` primitive, which holds
the body as a ``ClosedGraph`` and, when nothing differentiates it, simply
computes the body (lowered inline). Its differentiation rules are what
make it save less:

* JVP: the checkpoint of the body's JVP graph (primals, then tangents).
* Partial evaluation (reverse mode runs the JVP with unknown tangents): the
  body is split with ``partial_eval_graph``; the known part runs now, but of
  the values the tangent computation needs (the residuals) only those made by
  an equation the *policy* calls saveable are kept. The rest is cut back to
  saved values and the body's inputs, and that recomputation is recorded
  together with the tangent equations as a new ``checkpoint`` equation.
* Transpose: ``backward_pass`` on the body, which evaluates the non-linear
  equations first (the recomputation, at backward time) and then transposes
  the linear ones.

A policy is ``policy(prim, *in_avals, **params) -> bool`` (may this equation's
outputs be saved for the backward pass?), as in ``jax.checkpoint_policies``.
The default, ``None``, saves nothing.

With ``prevent_cse`` (the default) the recorded recomputation reads the
saved values and inputs through ``optimization_barrier``, so the compiler's
CSE cannot merge it with the forward values it repeats (which would keep
those alive until the backward pass, undoing the saving).
"""

from __future__ import annotations

import functools
import types
from typing import Callable

from numlir._src import ad, batching, core, partial_eval, traceback_util, tree_util
from numlir._src import transpose as tr
from numlir._src.lax.barrier import optimization_barrier_p
from numlir._src.lax.convolution import conv_general_dilated_p
from numlir._src.lax.dot import dot_general_p
from numlir._src.partial_eval import hoist_consts, partial_eval_graph
from numlir._src.transpose import backward_pass

# --- The checkpoint primitive -------------------------------------------------------

remat_p = core.Primitive("checkpoint")
remat_p.multiple_results = True


@remat_p.def_abstract_eval
def _remat_abstract_eval(*args, graph, policy, prevent_cse, differentiated):
    return graph.out_avals


@remat_p.def_lowering
def _remat_lowering(ctx, *args, graph, policy, prevent_cse, differentiated):
    return ctx.inline(graph, args)  # the body's ops go straight into the enclosing function


def _eval_body(graph: core.ClosedGraph) -> Callable:
    return lambda *xs: core.eval_graph(graph.graph, graph.consts, *xs)


def _remat_jvp(primals, tangents, *, graph, policy, prevent_cse, differentiated):
    nonzeros = [not isinstance(t, ad.Zero) for t in tangents]
    avals = [core.get_aval(p) for p in primals]
    jvp, consts, out_nz = ad.jvp_graph(_eval_body(graph), avals, nonzeros, instantiate_out=False)
    outs = remat_p.bind(*consts, *primals, *[t for t in tangents if not isinstance(t, ad.Zero)],
                        graph=jvp, policy=policy, prevent_cse=prevent_cse, differentiated=True)
    n = len(graph.out_avals)
    t_iter = iter(outs[n:])
    t_outs = [next(t_iter) if nz else ad.Zero(a.strip_weak_type())
              for a, nz in zip(graph.out_avals, out_nz)]
    return outs[:n], t_outs


ad.defjvp_rule(remat_p, _remat_jvp)


def _saveable(policy, eqn: core.Eqn) -> bool:
    if policy is None:
        return False
    return bool(policy(eqn.prim, *[a.aval for a in eqn.inputs], **eqn.params))


def _recompute_slice(known: core.Graph, residuals, policy):
    """The equations of ``known`` that recompute ``residuals`` from saveable values.

    Walking back from the residuals, an equation the policy may not save is
    recomputed (and its inputs are needed in turn); a saveable one stops the
    walk, its outputs being saved. Returns ``(eqns, needed_ids)`` where
    ``needed_ids`` are the known values the recomputation reads: known inputs,
    constants and saved equation outputs.
    """
    needed = {id(v) for v in residuals if isinstance(v, core.Var)}
    eqns = []
    for eqn in reversed(known.eqns):
        if not any(id(v) in needed for v in eqn.outputs) or _saveable(policy, eqn):
            continue
        eqns.append(eqn)
        needed.difference_update(id(v) for v in eqn.outputs)
        needed.update(id(a) for a in eqn.inputs if isinstance(a, core.Var))
    return eqns[::-1], needed


def _behind_barrier(eqns: list[core.Eqn], known: list[core.Var]) -> list[core.Eqn]:
    """``eqns`` reading the ``known`` values they use through one optimization_barrier."""

    read = {id(a) for e in eqns for a in e.inputs if isinstance(a, core.Var)}
    ins = [v for v in known if id(v) in read]
    if not ins:
        return eqns
    outs = [core.Var(v.aval) for v in ins]
    rename = {id(v): o for v, o in zip(ins, outs)}
    barrier = core.Eqn(optimization_barrier_p, ins, outs, {}, eqns[0].source_info)
    return [barrier] + [core.Eqn(e.prim, [rename.get(id(a), a) for a in e.inputs], e.outputs,
                                 e.params, e.source_info) for e in eqns]


def _remat_partial_eval(trace, args, params):
    graph, policy = params["graph"], params["policy"]
    unknowns = [trace.is_unknown(a) for a in args]
    known, unknown, out_unknowns, num_res = partial_eval_graph(graph, unknowns)
    kg = known.graph
    n_known_out = out_unknowns.count(False)
    ug, used = core.dce_graph(unknown.graph, [True] * len(unknown.graph.outvars))
    # The residuals the unknown equations read, as values of the known graph.
    rename = {id(u): r for u, r, live in zip(ug.invars[:num_res], kg.outvars[n_known_out:], used)
              if live}
    recompute, needed = _recompute_slice(kg, list(rename.values()), policy)

    # Inputs of the recorded equation: known inputs, constants and saved values it reads.
    known_args = [a for a, u in zip(args, unknowns) if not u]
    saved = [v for e in kg.eqns for v in e.outputs if id(v) in needed]
    in_pairs = [(v, x) for v, x in zip(kg.invars, known_args) if id(v) in needed]
    in_pairs += [(v, c) for v, c in zip(kg.constvars, known.consts) if id(v) in needed]

    # The forward pass: the known outputs and the saved values, nothing else.
    fwd, _ = core.dce_graph(core.Graph(kg.constvars, kg.invars, kg.eqns,
                                       kg.outvars[:n_known_out] + saved),
                            [True] * (n_known_out + len(saved)))
    fwd_outs = core.eval_graph(fwd, known.consts, *known_args)
    known_outs, saved_vals = fwd_outs[:n_known_out], fwd_outs[n_known_out:]
    if not ug.outvars:
        return known_outs

    # The recorded body: the recomputation, then the unknown equations reading its results.
    def read(a):
        return rename.get(id(a), a) if isinstance(a, core.Var) else a

    if params["prevent_cse"] and recompute:
        recompute = _behind_barrier(recompute, [v for v, _ in in_pairs] + saved)
    eqns = recompute + [core.Eqn(e.prim, [read(a) for a in e.inputs], e.outputs, e.params,
                                 e.source_info) for e in ug.eqns]
    body = core.Graph([], [v for v, _ in in_pairs] + saved + ug.invars[num_res:], eqns,
                      [read(a) for a in ug.outvars])
    operands = ([x for _, x in in_pairs] + list(saved_vals)
                + [a for a, u in zip(args, unknowns) if u])
    unknown_outs = trace.record(remat_p, operands, dict(
        graph=core.ClosedGraph(body, []), policy=policy, prevent_cse=params["prevent_cse"],
        differentiated=True))
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


partial_eval.def_partial_eval(remat_p, _remat_partial_eval)


def _remat_transpose(cts, *args, graph, policy, prevent_cse, differentiated):
    # backward_pass evaluates the equations that do not depend on the linear inputs first:
    # that is the recomputation of what the forward pass did not save.
    return backward_pass(graph.graph, graph.consts, list(args), list(cts))


tr.deftranspose(remat_p, _remat_transpose)


def _remat_batch(axis_size, args, dims, *, graph, **params):
    out_batched = batching.graph_out_batched(graph, axis_size, dims)
    fun = batching.batch_graph_fn(graph, axis_size, dims, out_batched)
    batched, consts = hoist_consts(core.trace_to_graph(fun, [core.get_aval(a) for a in args]))
    outs = remat_p.bind(*consts, *args, graph=batched, **params)
    return outs, [0 if b else None for b in out_batched]


batching.defrule(remat_p, _remat_batch)


# --- checkpoint -----------------------------------------------------------------------


def checkpoint(fun: Callable, *, prevent_cse: bool = True, policy: Callable | None = None,
               static_argnums: int | tuple[int, ...] = ()) -> Callable:
    """``fun`` whose intermediate values are recomputed in the backward pass, not stored.

    Under reverse-mode differentiation only the values made by equations that
    ``policy`` (see ``numlir.checkpoint_policies``) allows are saved; the rest
    are recomputed from those and ``fun``'s inputs during the backward pass.
    Arguments at ``static_argnums`` are Python values fixed while tracing.

    Example::

        @functools.partial(numlir.checkpoint, policy=numlir.checkpoint_policies.dots_saveable)
        def layer(w, x):
            return jnp.sin(w @ x)
    """
    core.check_callable(fun)
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @traceback_util.api_boundary
    @functools.wraps(fun)
    def remat_fun(*args, **kwargs):
        nums = set()
        for i in static:
            if not -len(args) <= i < len(args):
                raise core.value_error(
                    f"checkpoint: static_argnums {static_argnums} is out of range for a function "
                    f"called with {len(args)} positional argument(s)")
            nums.add(i % len(args))
        dyn = [a for i, a in enumerate(args) if i not in nums]
        leaves, in_tree = tree_util.tree_flatten((dyn, kwargs))
        out_tree_box = []

        def flat_fun(*xs):
            dyn_args, kw = tree_util.tree_unflatten(in_tree, xs)
            it = iter(dyn_args)
            full = [args[i] if i in nums else next(it) for i in range(len(args))]
            out_leaves, out_tree = tree_util.tree_flatten(fun(*full, **kw))
            for leaf in out_leaves:
                try:
                    core.get_aval(leaf)
                except TypeError:
                    raise core.shape_error(
                        f"checkpoint: the function returned a value of type {type(leaf).__name__}, "
                        "which is not an array") from None
            out_tree_box.append(out_tree)
            return out_leaves

        closed = core.trace_to_graph(flat_fun, [core.get_aval(x) for x in leaves])
        body, _ = core.dce_graph(closed.graph, [True] * len(closed.graph.outvars))
        graph, consts = hoist_consts(core.ClosedGraph(body, closed.consts))
        outs = remat_p.bind(*consts, *leaves, graph=graph, policy=policy, prevent_cse=prevent_cse,
                            differentiated=False)
        return tree_util.tree_unflatten(out_tree_box[0], outs)

    return remat_fun


remat = checkpoint


# --- checkpoint_name --------------------------------------------------------------------

name_p = core.Primitive("name")
name_p.def_abstract_eval(lambda x, *, name: x)
name_p.def_lowering(lambda ctx, x, *, name: x)
# The tangent passes through unlabelled: names mark primal values for the policies.
ad.defjvp_rule(name_p, lambda primals, tangents, *, name: (name_p.bind(primals[0], name=name),
                                                          tangents[0]))
tr.deftranspose(name_p, lambda ct, x, *, name: [ct])
batching.defvectorized(name_p)


def checkpoint_name(x, name: str):
    """``x`` unchanged, labelled ``name`` for the ``save_*_names`` policies.

    Example::

        h = checkpoint_name(jnp.sin(x), "h")
    """
    return tree_util.tree_map(lambda leaf: name_p.bind(leaf, name=name), x)


# --- Policies ------------------------------------------------------------------------------


def everything_saveable(*_, **__) -> bool:
    return True


def nothing_saveable(*_, **__) -> bool:
    return False


def _is_dot(prim) -> bool:
    return prim is dot_general_p or prim is conv_general_dilated_p


def dots_saveable(prim, *_, **__) -> bool:
    """Save the results of matrix multiplies and convolutions; recompute the rest."""
    return _is_dot(prim)


def dots_with_no_batch_dims_saveable(prim, *_, **params) -> bool:
    """Save dot_general results without batch dimensions (e.g. a transformer's projections)."""

    return prim is dot_general_p and not params["dimension_numbers"][1][0]


def save_only_these_names(*names: str) -> Callable:
    """Save only the values labelled by ``checkpoint_name`` with one of ``names``."""
    names = frozenset(names)
    return lambda prim, *_, **params: prim is name_p and params["name"] in names


def save_any_names_but_these(*names: str) -> Callable:
    """Save the values labelled by ``checkpoint_name``, except those named ``names``."""
    names = frozenset(names)
    return lambda prim, *_, **params: prim is name_p and params["name"] not in names


def save_anything_except_these_names(*names: str) -> Callable:
    """Save everything except the values labelled with one of ``names``."""
    names = frozenset(names)
    return lambda prim, *_, **params: prim is not name_p or params["name"] not in names


def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> Callable:
    """Save what either policy saves."""
    return lambda prim, *avals, **params: (policy_1(prim, *avals, **params)
                                           or policy_2(prim, *avals, **params))


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    save_only_these_names=save_only_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_anything_except_these_names=save_anything_except_these_names,
    save_from_both_policies=save_from_both_policies,
)
