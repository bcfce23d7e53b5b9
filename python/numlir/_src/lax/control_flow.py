"""Structured control flow: cond, switch and while_loop (scan and fori_loop are in scan.py).

Branches and loop bodies are traced to sub-graphs (``ClosedGraph`` params
of the primitives, so later transformations can rewrite them). Values a
sub-graph closes over become explicit operands of the primitive; in the
hlo text the regions simply use them, since hlo regions may use values
from above. ``cond``/``switch`` lower to ``hlo.if``/``hlo.case``,
``while_loop`` to ``hlo.while``.

Example::

    >>> from numlir import lax
    >>> lax.while_loop(lambda x: x < 10.0, lambda x: x * 2.0, 1.0)
    Array(16., dtype=float32, weak_type=True)
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from numlir._src import ad, batching, core, dtypes, partial_eval, tree_util
from numlir._src import transpose as tr
from numlir._src.lax import elementwise as ew
from numlir._src.lax import reduction, shape_ops
from numlir._src.partial_eval import hoist_consts, partial_eval_graph

# --- Tracing sub-graphs -------------------------------------------------------------


def _trace(fun: Callable, in_tree, in_avals: Sequence[core.ShapedArray], what: str):
    """Trace ``fun`` on one pytree (of structure ``in_tree``) of abstract values.

    Returns ``(graph, consts, out_tree)``: ``graph`` takes the closed-over
    values first, then the flat arguments; ``consts`` are those values.
    """
    out_tree_box = []

    def flat_fun(*leaves):
        out = fun(tree_util.tree_unflatten(in_tree, leaves))
        out_leaves, out_tree = tree_util.tree_flatten(out)
        for leaf in out_leaves:
            try:
                core.get_aval(leaf)
            except TypeError:
                raise core.shape_error(
                    f"{what} returned a value of type {type(leaf).__name__}, which is not an "
                    "array") from None
        out_tree_box.append(out_tree)
        return out_leaves

    closed = core.trace_to_graph(flat_fun, in_avals)
    g = closed.graph
    graph = core.ClosedGraph(core.Graph([], g.constvars + g.invars, g.eqns, g.outvars), [])
    return graph, list(closed.consts), out_tree_box[0]


def _avals(leaves) -> list[core.ShapedArray]:
    return [core.get_aval(x) for x in leaves]


def _describe(path: tuple) -> str:
    return f"output{tree_util.keystr(path)}" if path else "output"


def _check_same_outputs(what: str, names: Sequence[str], trees, avals_lists) -> None:
    """Every branch returns the same pytree structure, shapes and dtypes."""
    for name, tree in zip(names[1:], trees[1:]):
        if tree != trees[0]:
            raise core.shape_error(
                f"{what}: {names[0]} and {name} must return the same pytree structure, got "
                f"{trees[0]} and {tree}")
    paths = [p for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(trees[0], range(len(avals_lists[0]))))[0]]
    for name, avals in zip(names[1:], avals_lists[1:]):
        for path, a, b in zip(paths, avals_lists[0], avals):
            if a.shape != b.shape or a.dtype != b.dtype:
                raise core.shape_error(
                    f"{what}: {names[0]} and {name} must return the same types, but "
                    f"{_describe(path)} is {a.str_short()} in {names[0]} and {b.str_short()} "
                    f"in {name}")


# --- cond and switch ----------------------------------------------------------------

cond_p = core.Primitive("cond")
cond_p.multiple_results = True


@cond_p.def_abstract_eval
def _cond_abstract_eval(index, *args, branches, const_counts):
    return branches[0].out_avals


@cond_p.def_lowering
def _cond_lowering(ctx, index, *args, branches, const_counts):
    num_consts = sum(const_counts)
    consts, operands = list(args[:num_consts]), list(args[num_consts:])
    regions, start = [], 0
    for graph, count in zip(branches, const_counts):
        regions.append(ctx.lower_region(graph, consts[start:start + count] + operands))
        start += count
    types = ", ".join(ctx.type_out(i) for i in range(len(ctx.avals_out)))
    results = f" -> ({types})" if types else ""
    if len(branches) == 2:  # the index is 0 or 1 here (cond and switch clamp it)
        zero = ctx.constant(np.zeros((), np.int32))
        pred = ctx.emit(f"hlo.compare NE, {index}, {zero} : tensor<i32> -> tensor<i1>")
        op = f"hlo.if {pred}{results} {regions[1]} else {regions[0]}"
    else:
        op = f"hlo.case {index}{results} {', '.join(regions)}"
    return ctx.emit_results(op, len(ctx.avals_out))


def _cond_batch_rule(axis_size, args, dims, *, branches, const_counts):
    (index, *rest), (index_dim, *rest_dims) = args, dims
    num_consts = sum(const_counts)
    consts, operands = rest[:num_consts], rest[num_consts:]
    cdims, odims = rest_dims[:num_consts], rest_dims[num_consts:]
    branch_args, start = [], 0
    for count in const_counts:
        branch_args.append((consts[start:start + count], cdims[start:start + count]))
        start += count
    out_batched = [False] * len(branches[0].out_avals)
    for g, (c, cd) in zip(branches, branch_args):
        flags = batching.graph_out_batched(g, axis_size, list(cd) + list(odims))
        out_batched = [a or b for a, b in zip(out_batched, flags)]
    if index_dim is not None:  # per-example branch: run every branch and select
        out_batched = [True] * len(out_batched)
    funs = [batching.batch_graph_fn(g, axis_size, list(cd) + list(odims), out_batched)
            for g, (c, cd) in zip(branches, branch_args)]
    if index_dim is None:
        names = [f"branch {i}" for i in range(len(branches))]
        wrapped = [lambda *ops, f=f, c=c: f(*c, *ops) for f, (c, _) in zip(funs, branch_args)]
        outs = _switch("lax.cond", index, wrapped, names, operands)
        return list(outs), [0 if b else None for b in out_batched]
    index = batching.moveaxis(index, index_dim, 0)
    results = [f(*c, *operands) for f, (c, _) in zip(funs, branch_args)]
    outs = results[0]
    for i, branch_outs in enumerate(results[1:], 1):
        pick = ew.eq(index, np.full((), i, np.int32))
        outs = [ew.select(
            shape_ops.broadcast_in_dim(pick, core.get_aval(a).shape, (0,)), b, a)
            for a, b in zip(outs, branch_outs)]
    return outs, [0] * len(outs)


batching.defrule(cond_p, _cond_batch_rule)


def _cond_jvp(primals, tangents, *, branches, const_counts):
    # Each branch's JVP takes every operand (all branches' consts, then the operands) and
    # the nonzero tangents; the JVP graphs' own constants lead the new operand list.
    index, args = primals[0], list(primals[1:])
    nonzeros = [not isinstance(t, ad.Zero) for t in tangents[1:]]
    avals = [core.get_aval(a) for a in args]
    num_consts = sum(const_counts)
    graphs, new_consts, starts = [], [], np.cumsum((0,) + tuple(const_counts))
    for graph, start, count in zip(branches, starts, const_counts):
        def fun(*xs, graph=graph, start=start, count=count):
            return core.eval_graph(graph.graph, graph.consts,
                                   *xs[start:start + count], *xs[num_consts:])
        g, consts, _ = ad.jvp_graph(fun, avals, nonzeros)
        graphs.append(g)
        new_consts.append(consts)
    params = dict(branches=tuple(graphs), const_counts=tuple(len(c) for c in new_consts))
    operands = [index, *[c for cs in new_consts for c in cs], *args,
                *[t for t in tangents[1:] if not isinstance(t, ad.Zero)]]
    outs = cond_p.bind(*operands, **params)
    n = len(branches[0].out_avals)
    return outs[:n], outs[n:]


ad.defjvp_rule(cond_p, _cond_jvp)


def _branch_over_all(graph: core.ClosedGraph, start: int, count: int, num_consts: int,
                     avals: Sequence[core.ShapedArray]) -> core.ClosedGraph:
    """A branch as a graph of *all* the cond's operands (every branch's consts, then the
    shared operands); it ignores the other branches' consts."""
    g = graph.graph
    invars = [core.Var(a) for a in avals]
    invars[start:start + count] = g.invars[:count]
    invars[num_consts:] = g.invars[count:]
    return core.ClosedGraph(core.Graph([], invars, g.eqns, g.outvars), graph.consts)


def _branches_over_all(branches, const_counts, avals) -> list[core.ClosedGraph]:
    starts = np.cumsum((0,) + tuple(const_counts))
    return [_branch_over_all(g, int(s), c, sum(const_counts), avals)
            for g, s, c in zip(branches, starts, const_counts)]


def _trace_flat(fun: Callable, avals: Sequence[core.ShapedArray]) -> tuple[core.ClosedGraph, list]:
    return hoist_consts(core.trace_to_graph(fun, list(avals)))


def _cond_partial_eval(trace, args, params):
    # Split every branch into its known part (run now, in a cond on the known operands,
    # returning the residuals of all branches in separate slots) and its unknown part
    # (recorded as a cond on the residuals and the unknown operands).

    branches, const_counts = params["branches"], params["const_counts"]
    index, rest = args[0], list(args[1:])
    if trace.is_unknown(index):
        return trace.record(cond_p, args, params)
    unknowns = [trace.is_unknown(a) for a in rest]
    avals = [core.get_aval(a) for a in rest]
    full = _branches_over_all(branches, const_counts, avals)
    out_unknowns = [False] * len(branches[0].out_avals)
    for g in full:
        _, _, out_u, _ = partial_eval_graph(g, unknowns)
        out_unknowns = [a or b for a, b in zip(out_unknowns, out_u)]
    splits = [partial_eval_graph(g, unknowns, instantiate=out_unknowns) for g in full]
    n_known = out_unknowns.count(False)
    res_avals = [known.out_avals[n_known:] for known, _, _, _ in splits]
    known_avals = [a for a, u in zip(avals, unknowns) if not u]

    def known_branch(i, known):
        def fun(*xs):
            outs = core.eval_graph(known.graph, known.consts, *xs)
            slots = []
            for j, ra in enumerate(res_avals):
                slots += outs[n_known:] if j == i else [shape_ops.full(a.shape, 0, a.dtype) for a in ra]
            return outs[:n_known] + slots
        return _trace_flat(fun, known_avals)

    traced = [known_branch(i, s[0]) for i, s in enumerate(splits)]
    known_rest = [a for a, u in zip(rest, unknowns) if not u]
    known_outs = cond_p.bind(
        index, *[c for _, cs in traced for c in cs], *known_rest,
        branches=tuple(g for g, _ in traced), const_counts=tuple(len(cs) for _, cs in traced))
    residuals = known_outs[n_known:]
    all_res_avals = [a for ra in res_avals for a in ra]
    unknown_avals = [a for a, u in zip(avals, unknowns) if u]
    offsets = np.cumsum([0] + [len(ra) for ra in res_avals])

    def unknown_branch(i, unknown):
        def fun(*xs):
            res = xs[offsets[i]:offsets[i + 1]]
            return core.eval_graph(unknown.graph, unknown.consts, *res, *xs[len(all_res_avals):])
        return _trace_flat(fun, all_res_avals + unknown_avals)[0]

    unknown_graphs = tuple(unknown_branch(i, s[1]) for i, s in enumerate(splits))
    unknown_outs = trace.record(
        cond_p, [index, *residuals, *[a for a, u in zip(rest, unknowns) if u]],
        dict(branches=unknown_graphs, const_counts=(0,) * len(branches)))
    known_it, unknown_it = iter(known_outs[:n_known]), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


partial_eval.def_partial_eval(cond_p, _cond_partial_eval)


def _cond_transpose(cts, index, *args, branches, const_counts):
    # Each branch transposed on its own; the transposed cond takes the known operands
    # (residuals) and the output cotangents, and returns the linear operands' cotangents.

    if tr.is_undefined(index):
        raise AssertionError("cond is not linear in its index")
    avals = [a.aval if tr.is_undefined(a) else core.get_aval(a) for a in args]
    linear = [tr.is_undefined(a) for a in args]
    known = [a for a in args if not tr.is_undefined(a)]
    known_avals = [a for a, lin in zip(avals, linear) if not lin]
    ct_avals = [a.strip_weak_type() for a in branches[0].out_avals]
    cts = [ad.instantiate(c) for c in cts]
    full = _branches_over_all(branches, const_counts, avals)

    def transposed(graph):
        def fun(*xs):
            it = iter(xs[:len(known)])
            ops = [tr.UndefinedPrimal(a) if lin else next(it) for a, lin in zip(avals, linear)]
            res = tr.backward_pass(graph.graph, graph.consts, ops, list(xs[len(known):]))
            return [ad.instantiate(r) for r, lin in zip(res, linear) if lin]
        return _trace_flat(fun, known_avals + ct_avals)

    traced = [transposed(g) for g in full]
    outs = cond_p.bind(index, *[c for _, cs in traced for c in cs], *known, *cts,
                       branches=tuple(g for g, _ in traced),
                       const_counts=tuple(len(cs) for _, cs in traced))
    it = iter(outs)
    return [None] + [next(it) if lin else None for lin in linear]


tr.deftranspose(cond_p, _cond_transpose)


def _switch(what: str, index, branches: Sequence[Callable], names: Sequence[str], operands):
    ops_leaves, ops_tree = tree_util.tree_flatten(tuple(operands))
    ops_avals = _avals(ops_leaves)
    traced = [_trace(lambda ops, f=f: f(*ops), ops_tree, ops_avals, f"{what} {name}")
              for f, name in zip(branches, names)]
    graphs = [t[0] for t in traced]
    out_trees = [t[2] for t in traced]
    _check_same_outputs(what, names, out_trees, [g.out_avals for g in graphs])
    # Outputs that only differ in weak typing are weak only if weak everywhere.
    strong = [not all(g.out_avals[i].weak_type for g in graphs) for i in range(len(graphs[0].out_avals))]
    if any(strong):
        for g in graphs:
            for i, var in enumerate(g.graph.outvars):
                if strong[i] and var.aval.weak_type:
                    _retype_output(g, i, var.aval.strip_weak_type())
    consts = [c for t in traced for c in t[1]]
    params = dict(branches=tuple(graphs), const_counts=tuple(len(t[1]) for t in traced))
    outs = cond_p.bind(index, *consts, *ops_leaves, **params)
    return tree_util.tree_unflatten(out_trees[0], outs)


def _retype_output(graph: core.ClosedGraph, i: int, aval: core.ShapedArray) -> None:
    """Drop the weak type of output ``i`` (the value itself is unchanged)."""
    atom = graph.graph.outvars[i]
    if isinstance(atom, core.Literal):
        graph.graph.outvars[i] = core.Literal(atom.val, aval)
    else:

        var = core.Var(aval)
        graph.graph.eqns.append(core.Eqn(ew.convert_element_type_p, [atom], [var],
                                         dict(new_dtype=aval.dtype, weak_type=False), None))
        graph.graph.outvars[i] = var


def _scalar_index(what: str, index, allowed: str):
    aval = core.get_aval(index)
    if aval.shape != ():
        raise core.shape_error(f"{what}: the {allowed} must be a scalar, got shape {aval.shape}")
    return aval


def cond(pred, true_fun: Callable, false_fun: Callable, *operands, operand=None):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``; both are traced.

    Example::

        y = lax.cond(x > 0, lambda x: x, lambda x: -x, x)
    """

    if operand is not None:
        operands = (*operands, operand)
    if not callable(true_fun) or not callable(false_fun):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    aval = _scalar_index("lax.cond", pred, "predicate")
    if aval.dtype != np.bool_:
        if not (dtypes.is_float(aval.dtype) or np.issubdtype(aval.dtype, np.integer)):
            raise core.shape_error(f"lax.cond: pred must be a boolean or number, got {aval.str_short()}")
        pred = ew.ne(pred, np.zeros((), aval.dtype))
    index = ew.convert_element_type(pred, np.int32)
    return _switch("lax.cond", index, [false_fun, true_fun], ["false_fun", "true_fun"], operands)


def switch(index, branches: Sequence[Callable], *operands, operand=None):
    """``branches[clamp(0, index, len(branches) - 1)](*operands)``.

    Example::

        y = lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x)
    """

    if operand is not None:
        operands = (*operands, operand)
    branches = list(branches)
    if not branches:
        raise ValueError("lax.switch: empty branch sequence")
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches must be a sequence of callables")
    aval = _scalar_index("lax.switch", index, "index")
    if not np.issubdtype(aval.dtype, np.integer):
        raise core.shape_error(f"lax.switch: index must be an integer scalar, got {aval.str_short()}")
    if len(branches) == 1:
        return branches[0](*operands)
    if np.issubdtype(aval.dtype, np.unsignedinteger):
        limit = np.array(len(branches) - 1, aval.dtype)
        index = ew.min(index, limit)
    else:
        lo = np.zeros((), aval.dtype)
        hi = np.array(len(branches) - 1, aval.dtype)
        index = ew.min(ew.max(index, lo), hi)
    index = ew.convert_element_type(index, np.int32)
    names = [f"branch {i}" for i in range(len(branches))]
    return _switch("lax.switch", index, branches, names, operands)


# --- while_loop ---------------------------------------------------------------------

while_p = core.Primitive("while")
while_p.multiple_results = True


@while_p.def_abstract_eval
def _while_abstract_eval(*args, cond_graph, body_graph, cond_nconsts, body_nconsts):
    return body_graph.out_avals


@while_p.def_lowering
def _while_lowering(ctx, *args, cond_graph, body_graph, cond_nconsts, body_nconsts):
    cond_consts = list(args[:cond_nconsts])
    body_consts = list(args[cond_nconsts:cond_nconsts + body_nconsts])
    init = list(args[cond_nconsts + body_nconsts:])
    carried = [ctx.fresh_name() for _ in init]
    header = ", ".join(f"{c} = {x}" for c, x in zip(carried, init))
    types = ", ".join(ctx.type_out(i) for i in range(len(init)))
    cond_region = ctx.lower_region(cond_graph, cond_consts + carried)
    body_region = ctx.lower_region(body_graph, body_consts + carried)
    op = f"hlo.while ({header}){' : ' + types if types else ''} cond {cond_region} do {body_region}"
    return ctx.emit_results(op, len(init))


def _while_batch_rule(axis_size, args, dims, *, cond_graph, body_graph, cond_nconsts,
                      body_nconsts):

    cconsts, bconsts = args[:cond_nconsts], args[cond_nconsts:cond_nconsts + body_nconsts]
    init = args[cond_nconsts + body_nconsts:]
    cdims, bdims = dims[:cond_nconsts], dims[cond_nconsts:cond_nconsts + body_nconsts]
    idims = dims[cond_nconsts + body_nconsts:]
    carry_b = [d is not None for d in idims]
    while True:  # a carry is batched if it starts batched or the body makes it so
        as_dims = [0 if b else None for b in carry_b]
        pred_b = batching.graph_out_batched(cond_graph, axis_size, list(cdims) + as_dims)[0]
        if pred_b:
            carry_b = [True] * len(carry_b)
        flags = batching.graph_out_batched(body_graph, axis_size, list(bdims) + as_dims)
        new = [a or b for a, b in zip(carry_b, flags)]
        if new == carry_b and not (pred_b and not all(carry_b)):
            break
        carry_b = new
    as_dims = [0 if b else None for b in carry_b]
    cond_f = batching.batch_graph_fn(cond_graph, axis_size, list(cdims) + as_dims, [pred_b])
    body_f = batching.batch_graph_fn(body_graph, axis_size, list(bdims) + as_dims, carry_b)
    init = [batching.bdim_to_front(x, d, axis_size) if b else x
            for x, d, b in zip(init, idims, carry_b)]

    def cond_fun(carry):
        pred = cond_f(*cconsts, *carry)[0]
        return reduction.reduce_or(pred, (0,)) if pred_b else pred

    def body_fun(carry):
        new = body_f(*bconsts, *carry)
        if not pred_b:
            return new
        pred = cond_f(*cconsts, *carry)[0]  # finished lanes keep their carry
        return [ew.select(shape_ops.broadcast_in_dim(pred, core.get_aval(n).shape, (0,)),
                                   n, o) for n, o in zip(new, carry)]

    outs = while_loop(cond_fun, body_fun, list(init))
    return outs, as_dims


batching.defrule(while_p, _while_batch_rule)


def _while_jvp(primals, tangents, *, cond_graph, body_graph, cond_nconsts, body_nconsts):
    # The carry's tangents join the carry; which of them are nonzero is found as a fixed
    # point of the body's JVP (a zero tangent can become nonzero after one iteration).
    cond_consts = list(primals[:cond_nconsts])
    body_consts = list(primals[cond_nconsts:cond_nconsts + body_nconsts])
    init = list(primals[cond_nconsts + body_nconsts:])
    bc_nz = [not isinstance(t, ad.Zero) for t in tangents[cond_nconsts:cond_nconsts + body_nconsts]]
    init_t = list(tangents[cond_nconsts + body_nconsts:])
    carry_nz = [not isinstance(t, ad.Zero) for t in init_t]
    body_avals = [core.get_aval(x) for x in body_consts] + list(body_graph.out_avals)

    def body_fun(*xs):
        return core.eval_graph(body_graph.graph, body_graph.consts, *xs)

    while True:
        graph, consts, out_nz = ad.jvp_graph(body_fun, body_avals, bc_nz + carry_nz,
                                             instantiate_out=carry_nz)
        if out_nz == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, out_nz)]
    n_bc = len(consts) + body_nconsts + sum(bc_nz)
    # The JVP graph takes (consts, body consts, carry, const tangents, carry tangents):
    # move the const tangents ahead of the carry.
    g = graph.graph
    k = len(consts) + body_nconsts
    n_carry = len(init)
    invars = g.invars[:k] + g.invars[k + n_carry:k + n_carry + sum(bc_nz)] + g.invars[k:k + n_carry] \
        + g.invars[k + n_carry + sum(bc_nz):]
    new_body = core.ClosedGraph(core.Graph([], invars, g.eqns, g.outvars), [])
    n_t = sum(carry_nz)
    cg = cond_graph.graph
    pad_vars = [core.Var(a.strip_weak_type()) for a, nz in zip(body_graph.out_avals, carry_nz) if nz]
    new_cond = core.ClosedGraph(core.Graph([], cg.invars + pad_vars, cg.eqns, cg.outvars), [])
    init_tangents = [ad.instantiate(t) for t, nz in zip(init_t, carry_nz) if nz]
    body_tangents = [t for t in tangents[cond_nconsts:cond_nconsts + body_nconsts]
                     if not isinstance(t, ad.Zero)]
    params = dict(cond_graph=new_cond, body_graph=new_body, cond_nconsts=cond_nconsts,
                  body_nconsts=n_bc)
    outs = while_p.bind(*cond_consts, *consts, *body_consts, *body_tangents, *init,
                        *init_tangents, **params)
    t_iter = iter(outs[n_carry:n_carry + n_t])
    t_outs = [next(t_iter) if nz else ad.Zero(a.strip_weak_type())
              for a, nz in zip(body_graph.out_avals, carry_nz)]
    return outs[:n_carry], t_outs


ad.defjvp_rule(while_p, _while_jvp)


def _depends_on(graph: core.Graph, unknowns: Sequence[bool]) -> list[bool]:
    """Which outputs of ``graph`` depend on the ``unknowns`` inputs (a conservative data-flow
    over equations: any unknown operand makes every output of the equation unknown)."""
    unknown = {id(v) for v, u in zip(graph.invars, unknowns) if u}
    for eqn in graph.eqns:
        if any(isinstance(a, core.Var) and id(a) in unknown for a in eqn.inputs):
            unknown.update(id(v) for v in eqn.outputs)
    return [isinstance(a, core.Var) and id(a) in unknown for a in graph.outvars]


def _restrict(closed: core.ClosedGraph, keep_in: Sequence[bool], keep_out: Sequence[bool]):
    graph, used = core.dce_graph(closed.graph, keep_out)
    assert not any(u and not k for u, k in zip(used, keep_in)), "dropped an input still in use"
    invars = [v for v, k in zip(graph.invars, keep_in) if k]
    return core.ClosedGraph(core.Graph([], invars, graph.eqns, graph.outvars), closed.consts)


def _while_partial_eval(trace, args, params):
    # The carries that never see an unknown value run now in a smaller loop; the whole
    # loop (primal work included) is recorded for the unknown ones, as in jax. Its
    # transpose does not exist (a dynamic trip count); forward mode needs none.
    cond_graph, body_graph = params["cond_graph"], params["body_graph"]
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    unknown = [trace.is_unknown(a) for a in args]
    cond_u, body_u, carry_u = unknown[:nc], unknown[nc:nc + nb], unknown[nc + nb:]
    while True:
        new = [a or b for a, b in zip(carry_u, _depends_on(body_graph.graph, body_u + carry_u))]
        if new == carry_u:
            break
        carry_u = new
    if any(cond_u) or _depends_on(cond_graph.graph, cond_u + carry_u)[0] or all(carry_u):
        return trace.record(while_p, args, params)
    known = [not u for u in carry_u]
    known_cond = _restrict(cond_graph, [True] * nc + known, [True])
    known_body = _restrict(body_graph, [not u for u in body_u] + known, known)
    known_args = [a for a, u in zip(args, [False] * nc + body_u + carry_u) if not u]
    known_outs = while_p.bind(*known_args, cond_graph=known_cond, body_graph=known_body,
                              cond_nconsts=nc, body_nconsts=body_u.count(False))
    all_outs = trace.record(while_p, args, params)
    known_it = iter(known_outs)
    return [o if u else next(known_it) for o, u in zip(all_outs, carry_u)]


partial_eval.def_partial_eval(while_p, _while_partial_eval)


def _while_transpose(cts, *args, **params):
    raise core.value_error(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values (the number of iterations is not known when tracing). Use "
        "lax.scan, or lax.fori_loop with Python int bounds, which runs as a scan")


tr.deftranspose(while_p, _while_transpose)


def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
    """Run ``val = body_fun(val)`` while ``cond_fun(val)``; return the final ``val``.

    Example::

        n = lax.while_loop(lambda n: n < 100, lambda n: n * 2, 1)
    """
    if not callable(cond_fun) or not callable(body_fun):
        raise TypeError("lax.while_loop: cond_fun and body_fun arguments should be callable.")
    init_leaves, in_tree = tree_util.tree_flatten(init_val)
    avals = _avals(init_leaves)
    for _ in range(2):
        body_graph, body_consts, body_tree = _trace(body_fun, in_tree, avals, "lax.while_loop body_fun")
        if body_tree != in_tree:
            raise core.shape_error(
                "lax.while_loop: body_fun must return the pytree structure of its input, got "
                f"{body_tree} for input {in_tree}")
        outs = body_graph.out_avals
        paths = [p for p, _ in tree_util.tree_flatten_with_path(
            tree_util.tree_unflatten(in_tree, range(len(avals))))[0]]
        for path, a, b in zip(paths, avals, outs):
            if a.shape != b.shape or a.dtype != b.dtype:
                what = f"carry{tree_util.keystr(path)}"
                raise core.shape_error(
                    f"lax.while_loop: body_fun must return the types of its input, but {what} is "
                    f"{a.str_short()} on input and {b.str_short()} on output")
        weaker = [a.update(weak_type=a.weak_type and b.weak_type) for a, b in zip(avals, outs)]
        if weaker == avals and [b.weak_type for b in outs] == [a.weak_type for a in avals]:
            break
        if weaker == avals:  # the body returns weak values for strong inputs
            for i, (a, b) in enumerate(zip(avals, outs)):
                if a.weak_type != b.weak_type:
                    _retype_output(body_graph, i, a)
            break
        avals = weaker  # retrace with the strong types the body produces
    cond_graph, cond_consts, cond_tree = _trace(cond_fun, in_tree, avals, "lax.while_loop cond_fun")
    cond_out = cond_graph.out_avals
    if len(cond_out) != 1 or cond_out[0].shape != () or cond_out[0].dtype != np.bool_:
        got = ", ".join(a.str_short() for a in cond_out)
        raise core.shape_error(
            f"lax.while_loop: cond_fun must return a boolean scalar, but got output type(s) [{got}]")

    init = [x if core.get_aval(x) == a else ew.convert_element_type(x, a.dtype)
            for x, a in zip(init_leaves, avals)]
    params = dict(cond_graph=cond_graph, body_graph=body_graph, cond_nconsts=len(cond_consts),
                  body_nconsts=len(body_consts))
    outs = while_p.bind(*cond_consts, *body_consts, *init, **params)
    return tree_util.tree_unflatten(in_tree, outs)
