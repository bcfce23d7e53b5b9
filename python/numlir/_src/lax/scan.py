"""The ``scan`` primitive (shape rule, lowering to hlo.while, JVP, partial eval, transpose,
vmap) and the user functions built on it: ``scan`` and ``fori_loop`` (a scan when its
bounds are static, a ``while_loop`` otherwise).

Operands are ``consts + init + xs``; ``graph`` (no constants of its own) maps
``consts + carry + x`` (one slice of each ``xs``) to ``carry + y``, and the
results are the final carry and the ``y``s stacked along a new leading axis of
size ``length``. With ``reverse`` the slices are visited from the last one
down (``ys[i]`` still belongs to ``xs[i]``).

Keeping scan a primitive (rather than a while loop with slicing inside) is
what makes it differentiable in reverse mode: partial evaluation splits it
into a known scan that also stacks the per-iteration residuals and an unknown
scan reading them, and the unknown scan transposes into a scan running the
other way.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from numlir._src import ad, ad_util, batching, core, dtypes, partial_eval, tree_util
from numlir._src import transpose as tr
from numlir._src.lax import shape_ops, slicing
from numlir._src.lax import elementwise as ew
from numlir._src.lax.control_flow import _avals, _retype_output, _trace, while_loop
from numlir._src.partial_eval import hoist_consts, partial_eval_graph

scan_p = core.Primitive("scan")
scan_p.multiple_results = True


def _split(seq: Sequence, num_consts: int, num_carry: int) -> tuple[list, list, list]:
    seq = list(seq)
    return seq[:num_consts], seq[num_consts:num_consts + num_carry], seq[num_consts + num_carry:]


def _run(graph: core.ClosedGraph) -> Callable:
    return lambda *args: core.eval_graph(graph.graph, graph.consts, *args)


def _trace_body(fun: Callable, avals: Sequence[core.ShapedArray]) -> tuple[core.ClosedGraph, list]:
    """``fun`` traced to a constant-free graph, and the values to pass for its leading inputs."""
    return hoist_consts(core.trace_to_graph(fun, list(avals)))


def _stacked(aval: core.ShapedArray, length: int) -> core.ShapedArray:
    return aval.update(shape=(length, *aval.shape), weak_type=False)


def _with_batch(aval: core.ShapedArray, axis_size: int) -> core.ShapedArray:
    return aval.update(shape=(axis_size, *aval.shape))


@scan_p.def_abstract_eval
def _scan_abstract_eval(*args, graph, length, reverse, num_consts, num_carry):
    outs = graph.out_avals
    return list(outs[:num_carry]) + [_stacked(a, length) for a in outs[num_carry:]]


# --- Lowering: a while loop slicing xs and updating ys in place ---------------------------

# Equations made while tracing the loop at lowering time get the scan's own location.
_AT_SCAN = core.SourceInfo("<scan lowering>", 0, 0)


# The index is always in range: the primitives are bound directly, skipping the
# wrapping of negative starts that lax.dynamic_slice does.
def _read_slice(xs, index):
    shape = core.get_aval(xs).shape
    starts = [index] + [np.int32(0)] * (len(shape) - 1)
    piece = slicing.dynamic_slice_p.bind(xs, *starts, slice_sizes=(1, *shape[1:]))
    return shape_ops.reshape(piece, shape[1:])


def _write_slice(ys, y, index):
    shape = core.get_aval(ys).shape
    starts = [index] + [np.int32(0)] * (len(shape) - 1)
    return slicing.dynamic_update_slice_p.bind(ys, shape_ops.reshape(y, (1, *shape[1:])), *starts)


def _scan_impl(*args, graph, length, reverse, num_consts, num_carry):
    consts, init, xs = _split(args, num_consts, num_carry)
    ys = [shape_ops.full((length, *a.shape), 0, a.dtype) for a in graph.out_avals[num_carry:]]
    if length == 0:  # no slice to read or write (their shapes would not even fit)
        return list(init) + ys

    def cond_fun(state):
        return ew.lt(state[0], np.int32(length))

    def body_fun(state):
        i, carry, ys = state
        index = ew.sub(np.int32(length - 1), i) if reverse else i
        x = [_read_slice(v, index) for v in xs]
        outs = core.eval_graph(graph.graph, graph.consts, *consts, *carry, *x)
        ys = [_write_slice(acc, y, index) for acc, y in zip(ys, outs[num_carry:])]
        return ew.add(i, np.int32(1)), list(outs[:num_carry]), ys

    _, carry, ys = while_loop(cond_fun, body_fun, (np.int32(0), list(init), ys))
    return list(carry) + list(ys)


def _forget_lowering_locations(closed: core.ClosedGraph) -> None:
    for eqn in closed.graph.eqns:
        if eqn.source_info is _AT_SCAN:
            eqn.source_info = None
        for p in eqn.params.values():
            for g in (p if isinstance(p, tuple) else (p,)):
                if isinstance(g, core.ClosedGraph):
                    _forget_lowering_locations(g)


@scan_p.def_lowering
def _scan_lowering(ctx, *args, **params):
    with core.source_info_scope(_AT_SCAN):
        closed = core.trace_to_graph(lambda *xs: _scan_impl(*xs, **params), ctx.avals_in)
    _forget_lowering_locations(closed)
    return ctx.inline(closed, list(args))


# --- JVP ----------------------------------------------------------------------------------


def _scan_jvp(primals, tangents, *, graph, length, reverse, num_consts, num_carry):
    # A scan of the body's JVP. A carry whose tangent starts zero can pick one up in the
    # body, so the carries with tangents are found as a fixed point.
    nonzero = [not isinstance(t, ad.Zero) for t in tangents]
    const_nz, carry_nz, xs_nz = _split(nonzero, num_consts, num_carry)
    num_ys = len(graph.out_avals) - num_carry
    while True:
        jvp, jvp_consts, out_nz = ad.jvp_graph(_run(graph), graph.in_avals,
                                               const_nz + carry_nz + xs_nz,
                                               instantiate_out=carry_nz + [False] * num_ys)
        new = [a or b for a, b in zip(carry_nz, out_nz[:num_carry])]
        if new == carry_nz:
            break
        carry_nz = new
    ys_nz = out_nz[num_carry:]
    # jvp takes (its consts, primals, nonzero tangents) and returns (primals, tangents);
    # the scan needs consts, carry and xs each followed by their tangents.
    g = jvp.graph
    k, n_in, n_out = len(jvp_consts), len(graph.in_avals), len(graph.out_avals)
    pc, pcar, px = _split(g.invars[k:k + n_in], num_consts, num_carry)
    tc, tcar, tx = _split(g.invars[k + n_in:], sum(const_nz), sum(carry_nz))
    ocar, oy = g.outvars[:num_carry], g.outvars[num_carry:n_out]
    tocar, toy = g.outvars[n_out:n_out + sum(carry_nz)], g.outvars[n_out + sum(carry_nz):]
    body = core.Graph([], g.invars[:k] + pc + tc + pcar + tcar + px + tx, g.eqns,
                      ocar + tocar + oy + toy)

    consts, init, xs = _split(primals, num_consts, num_carry)
    t_consts, t_init, t_xs = _split(tangents, num_consts, num_carry)
    t_init = [ad.instantiate(t) for t, nz in zip(t_init, carry_nz) if nz]
    t_consts = [t for t in t_consts if not isinstance(t, ad.Zero)]
    t_xs = [t for t in t_xs if not isinstance(t, ad.Zero)]
    outs = scan_p.bind(*jvp_consts, *consts, *t_consts, *init, *t_init, *xs, *t_xs,
                       graph=core.ClosedGraph(body, []), length=length, reverse=reverse,
                       num_consts=k + num_consts + len(t_consts),
                       num_carry=num_carry + len(t_init))
    carry, t_carry, outs = outs[:num_carry], iter(outs[num_carry:num_carry + len(t_init)]), \
        outs[num_carry + len(t_init):]
    ys, t_ys = outs[:num_ys], iter(outs[num_ys:])
    t_out = [next(t_carry) if nz else ad.Zero(a.strip_weak_type())
             for a, nz in zip(graph.out_avals[:num_carry], carry_nz)]
    t_out += [next(t_ys) if nz else ad.Zero(_stacked(a, length))
              for a, nz in zip(graph.out_avals[num_carry:], ys_nz)]
    return list(carry) + list(ys), t_out


ad.defjvp_rule(scan_p, _scan_jvp)


# --- Partial evaluation -----------------------------------------------------------------


def _hoist_loop_invariants(known: core.ClosedGraph, const_args: Sequence, num_outs: int):
    """Split the known part of a scan body so that what depends on consts alone runs once.

    ``known`` maps (known consts, carry, x) to ``num_outs`` outputs, then residuals.
    Computes now (on the current trace) the residuals that are loop-invariant and the
    values the rest of the body needs from the consts. Returns ``(body, body_consts,
    residuals)``: ``body`` maps (body_consts, carry, x) to the outputs and the
    loop-variant residuals, and each residual is ``("const", value)`` or ``("step", var)``
    (the var ``body`` returns for it).
    """
    kg = known.graph
    operands = list(known.consts) + list(const_args)
    full = core.ClosedGraph(core.Graph([], kg.constvars + kg.invars, kg.eqns, kg.outvars), [])
    num_res = len(kg.outvars) - num_outs
    inv, body, out_u, num_body_consts = partial_eval_graph(
        full, [False] * len(operands) + [True] * (len(full.in_avals) - len(operands)),
        instantiate=[True] * num_outs + [False] * num_res)
    vals = core.eval_graph(inv.graph, inv.consts, *operands)
    invariant = iter(vals[:len(vals) - num_body_consts])
    variant = iter(body.graph.outvars[num_outs:])
    residuals = [("step", next(variant)) if u else ("const", next(invariant))
                 for u in out_u[num_outs:]]
    return body, vals[len(vals) - num_body_consts:], residuals


def _scan_partial_eval(trace, args, params):
    # A known scan computes the known carries and ys and stacks the residuals the unknown
    # part needs per iteration as extra ys; the unknown scan is recorded, reading them as
    # xs. Loop-invariant residuals are computed once and passed as consts.
    graph, length, reverse = params["graph"], params["length"], params["reverse"]
    num_consts, num_carry = params["num_consts"], params["num_carry"]
    const_u, carry_u, xs_u = _split([trace.is_unknown(a) for a in args], num_consts, num_carry)
    num_ys = len(graph.out_avals) - num_carry
    while True:  # a carry is unknown if it starts so or the body makes it so
        known, unknown, out_u, num_res = partial_eval_graph(
            graph, const_u + carry_u + xs_u, instantiate=carry_u + [False] * num_ys)
        new = [a or b for a, b in zip(carry_u, out_u[:num_carry])]
        if new == carry_u:
            break
        carry_u = new
    if all(const_u + carry_u + xs_u):
        return trace.record(scan_p, args, params)
    consts, init, xs = _split(args, num_consts, num_carry)
    known_consts = [c for c, u in zip(consts, const_u) if not u]
    known_init = [c for c, u in zip(init, carry_u) if not u]
    known_xs = [x for x, u in zip(xs, xs_u) if not u]
    n_outs, n_carry_outs = out_u.count(False), out_u[:num_carry].count(False)
    body, body_consts, residuals = _hoist_loop_invariants(known, known_consts, n_outs)
    # A loop-variant residual is a known xs operand as it is, a known y, or stacked anew.
    bg = body.graph
    xs_at = {id(v): x for v, x in zip(bg.invars[len(body_consts) + len(known_init):], known_xs)}
    ys_at = {id(v): i for i, v in enumerate(bg.outvars[:n_outs]) if i >= n_carry_outs}
    stacked = {id(v): v for kind, v in residuals
               if kind == "step" and id(v) not in xs_at and id(v) not in ys_at}
    kbody, _ = core.dce_graph(core.Graph([], bg.invars, bg.eqns, bg.outvars[:n_outs]
                                         + list(stacked.values())), [True] * (n_outs + len(stacked)))
    known_outs = scan_p.bind(*body_consts, *known_init, *known_xs,
                             graph=core.ClosedGraph(kbody, []), length=length, reverse=reverse,
                             num_consts=len(body_consts), num_carry=len(known_init)
                             ) if kbody.outvars else []
    stacked_vals = dict(zip(stacked, known_outs[n_outs:]))
    known_outs = known_outs[:n_outs]
    if not any(out_u):
        return known_outs

    def per_step(var):
        if id(var) in xs_at:
            return xs_at[id(var)]
        return known_outs[ys_at[id(var)]] if id(var) in ys_at else stacked_vals[id(var)]

    ug = unknown.graph
    res_vars = ug.invars[:num_res]
    uconsts, ucarry, uxs = _split(ug.invars[num_res:], const_u.count(True), carry_u.count(True))
    inv_vars = [v for v, (kind, _) in zip(res_vars, residuals) if kind == "const"]
    step_vars = [v for v, (kind, _) in zip(res_vars, residuals) if kind == "step"]
    ubody = core.Graph([], inv_vars + uconsts + ucarry + step_vars + uxs, ug.eqns, ug.outvars)
    operands = ([r for kind, r in residuals if kind == "const"]
                + [c for c, u in zip(consts, const_u) if u] + [c for c, u in zip(init, carry_u) if u]
                + [per_step(r) for kind, r in residuals if kind == "step"]
                + [x for x, u in zip(xs, xs_u) if u])
    unknown_outs = trace.record(scan_p, operands, dict(
        graph=core.ClosedGraph(ubody, []), length=length, reverse=reverse,
        num_consts=len(inv_vars) + const_u.count(True), num_carry=carry_u.count(True)))
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_u]


partial_eval.def_partial_eval(scan_p, _scan_partial_eval)


# --- Transpose ----------------------------------------------------------------------------


def _scan_transpose(cts, *args, graph, length, reverse, num_consts, num_carry):
    # The transposed body runs the other way: it carries the cotangents of the linear consts
    # (accumulated) and of the carry, reads the residual xs and the ys' cotangents, and
    # emits the linear xs' cotangents as its ys. Every carry is linear.
    consts, init, xs = _split(args, num_consts, num_carry)
    const_avals, carry_avals, x_avals = _split(graph.in_avals, num_consts, num_carry)
    y_avals = graph.out_avals[num_carry:]
    const_lin = [tr.is_undefined(c) for c in consts]
    xs_lin = [tr.is_undefined(x) for x in xs]
    ct_carry, ct_ys = cts[:num_carry], cts[num_carry:]
    ys_nz = [not isinstance(c, ad.Zero) for c in ct_ys]
    lin_const_avals = [a.strip_weak_type() for a, lin in zip(const_avals, const_lin) if lin]
    res_const_avals = [a for a, lin in zip(const_avals, const_lin) if not lin]
    res_x_avals = [a for a, lin in zip(x_avals, xs_lin) if not lin]
    ct_carry_avals = [a.strip_weak_type() for a in carry_avals]
    ct_y_avals = [a.strip_weak_type() for a, nz in zip(y_avals, ys_nz) if nz]
    xs_ct_nz: list[bool] = []

    def body(*vals):
        sizes = np.cumsum([0, len(res_const_avals), len(lin_const_avals), num_carry,
                           len(res_x_avals), len(ct_y_avals)])
        res_c, acc, ct_c, res_x, ct_y = [list(vals[a:b]) for a, b in zip(sizes[:-1], sizes[1:])]
        rc, rx, cy = iter(res_c), iter(res_x), iter(ct_y)
        operands = ([tr.UndefinedPrimal(a) if lin else next(rc) for a, lin in zip(const_avals, const_lin)]
                    + [tr.UndefinedPrimal(a) for a in carry_avals]
                    + [tr.UndefinedPrimal(a) if lin else next(rx) for a, lin in zip(x_avals, xs_lin)])
        cts_out = ct_c + [next(cy) if nz else ad.Zero(a.strip_weak_type())
                          for a, nz in zip(y_avals, ys_nz)]
        res = tr.backward_pass(graph.graph, graph.consts, operands, cts_out)
        ct_consts, ct_init, ct_xs = _split(res, num_consts, num_carry)
        ct_consts = [c for c, lin in zip(ct_consts, const_lin) if lin]
        acc = [ad_util.add_any(a, c) for a, c in zip(acc, ct_consts)]
        ct_xs = [c for c, lin in zip(ct_xs, xs_lin) if lin]
        xs_ct_nz[:] = [not isinstance(c, ad.Zero) for c in ct_xs]
        return (acc + [ad.instantiate(c) for c in ct_init]
                + [c for c in ct_xs if not isinstance(c, ad.Zero)])

    closed, body_consts = _trace_body(body, res_const_avals + lin_const_avals + ct_carry_avals
                                      + res_x_avals + ct_y_avals)
    acc_init = [ad_util.zeros_like_aval(a) for a in lin_const_avals]
    outs = scan_p.bind(*body_consts, *[c for c in consts if not tr.is_undefined(c)], *acc_init,
                       *[ad.instantiate(c) for c in ct_carry],
                       *[x for x in xs if not tr.is_undefined(x)],
                       *[c for c in ct_ys if not isinstance(c, ad.Zero)],
                       graph=closed, length=length, reverse=not reverse,
                       num_consts=len(body_consts) + len(res_const_avals),
                       num_carry=len(lin_const_avals) + num_carry)
    ct_consts = iter(outs[:len(lin_const_avals)])
    ct_init = outs[len(lin_const_avals):len(lin_const_avals) + num_carry]
    ct_xs, nz = iter(outs[len(lin_const_avals) + num_carry:]), iter(xs_ct_nz)
    result = [next(ct_consts) if lin else None for lin in const_lin]
    result += [c if tr.is_undefined(x) else None for x, c in zip(init, ct_init)]
    result += [None if not lin else next(ct_xs) if next(nz) else ad.Zero(_stacked(a, length))
               for a, lin in zip(x_avals, xs_lin)]
    return result


tr.deftranspose(scan_p, _scan_transpose)


# --- Batching -------------------------------------------------------------------------------


def _scan_batch_rule(axis_size, args, dims, *, graph, length, reverse, num_consts, num_carry):
    # Batched consts and carries get the batch axis first, batched xs second (after the
    # scanned axis). A carry is batched if it starts so or the body makes it so.
    consts, init, xs = _split(args, num_consts, num_carry)
    const_dims, init_dims, xs_dims = _split(dims, num_consts, num_carry)
    const_in = [None if d is None else 0 for d in const_dims]
    xs_in = [None if d is None else 0 for d in xs_dims]
    carry_b = [d is not None for d in init_dims]
    while True:
        flags = batching.graph_out_batched(graph, axis_size,
                                           const_in + [0 if b else None for b in carry_b] + xs_in)
        new = [a or b for a, b in zip(carry_b, flags[:num_carry])]
        if new == carry_b:
            break
        carry_b = new
    ys_b = flags[num_carry:]
    in_dims = const_in + [0 if b else None for b in carry_b] + xs_in
    fun = batching.batch_graph_fn(graph, axis_size, in_dims, carry_b + ys_b)
    avals = [a if d is None else _with_batch(a, axis_size) for a, d in zip(graph.in_avals, in_dims)]
    closed, body_consts = _trace_body(fun, avals)
    consts = [c if d is None else batching.moveaxis(c, d, 0) for c, d in zip(consts, const_dims)]
    init = [batching.bdim_to_front(x, d, axis_size) if b else x
            for x, d, b in zip(init, init_dims, carry_b)]
    xs = [x if d is None else batching.moveaxis(x, d, 1) for x, d in zip(xs, xs_dims)]
    outs = scan_p.bind(*body_consts, *consts, *init, *xs, graph=closed, length=length,
                       reverse=reverse, num_consts=len(body_consts) + num_consts,
                       num_carry=num_carry)
    return outs, [0 if b else None for b in carry_b] + [1 if b else None for b in ys_b]


batching.defrule(scan_p, _scan_batch_rule)


# --- The user functions: scan and fori_loop ---------------------------------------------


def fori_loop(lower, upper, body_fun: Callable, init_val, *, unroll=None):
    """Run ``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``.

    Bounds known while tracing (Python or NumPy integers) make it a ``scan`` of
    ``upper - lower`` steps, which reverse mode can differentiate; traced bounds
    make it a ``while_loop``.

    Example::

        total = lax.fori_loop(0, 10, lambda i, acc: acc + i, 0)
    """
    del unroll  # accepted for compatibility; the loop is never unrolled
    dtype = dtypes.result_type(*[(a.dtype, a.weak_type) for a in map(core.get_aval, (lower, upper))])[0]
    if not np.issubdtype(dtype, np.integer):
        raise core.shape_error(f"lax.fori_loop: lower and upper must be integers, got {dtype}")
    # As in jax, the index is weakly typed when the lower bound is a Python int,
    # so `c * 2 - i` keeps an int32 carry int32 under x64.
    weak = core.get_aval(lower).weak_type
    lo = ew.convert_element_type(lower, dtype, weak)
    one = ew.convert_element_type(1, dtype, weak)
    if isinstance(lower, (int, np.integer)) and isinstance(upper, (int, np.integer)):
        def step(carry, _):
            i, val = carry
            return (ew.add(i, one), body_fun(i, val)), None

        return scan(step, (lo, init_val), None, length=max(int(upper) - int(lower), 0))[0][1]
    hi = ew.convert_element_type(upper, dtype, weak)

    def cond_fun(carry):
        return ew.lt(carry[0], carry[2])

    def body(carry):
        i, val, stop = carry
        return ew.add(i, one), body_fun(i, val), stop

    return while_loop(cond_fun, body, (lo, init_val, hi))[1]


def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False,
         unroll: int | bool = 1, _split_transpose: bool = False):
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``; stack the ``y``s.

    Example::

        total, partial_sums = lax.scan(lambda c, x: (c + x, c + x), 0.0, xs)
    """
    del unroll, _split_transpose  # accepted for compatibility
    xs_leaves, xs_tree = tree_util.tree_flatten(xs)
    lengths = {core.get_aval(x).shape[0] if core.get_aval(x).ndim else None for x in xs_leaves}
    if None in lengths:
        raise core.shape_error("lax.scan got an xs leaf without a leading axis to scan over")
    if length is not None:
        lengths.add(int(length))
    if len(lengths) > 1:
        raise core.value_error(
            f"lax.scan got inconsistent lengths: {sorted(lengths)} (xs leading axis sizes and length)")
    if not lengths:
        raise core.value_error("lax.scan: length must be given when xs is empty")
    n = lengths.pop()

    carry_leaves, carry_tree = tree_util.tree_flatten(init)
    x_avals = [core.get_aval(x).update(shape=core.get_aval(x).shape[1:], weak_type=False)
               for x in xs_leaves]
    in_tree = tree_util.tree_structure((init, tree_util.tree_unflatten(xs_tree, x_avals)))
    avals = _avals(carry_leaves)
    paths = [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(carry_tree, range(len(avals))))[0]]
    for _ in range(2):  # once more with strong types if f strengthens a weakly typed carry
        graph, consts, out_tree = _trace(lambda args: f(*args), in_tree, avals + x_avals,
                                         "lax.scan f")
        if out_tree.node_type not in (tuple, list) or len(out_tree.children) != 2:
            raise core.shape_error(f"lax.scan: f must return a pair (carry, y), got {out_tree}")
        carry_out_tree, y_tree = out_tree.children
        if carry_out_tree != carry_tree:
            raise core.shape_error(
                "lax.scan: f must return a carry with the pytree structure of init, got "
                f"{carry_out_tree} for init {carry_tree}")
        outs = graph.out_avals[:len(avals)]
        for path, a, b in zip(paths, avals, outs):
            if a.shape != b.shape or a.dtype != b.dtype:
                raise core.shape_error(
                    f"lax.scan: f must return a carry with the types of init, but carry{path} "
                    f"is {a.str_short()} in init and {b.str_short()} in f's result")
        weaker = [a.update(weak_type=a.weak_type and b.weak_type) for a, b in zip(avals, outs)]
        if weaker == avals:
            for i, (a, b) in enumerate(zip(avals, outs)):
                if a.weak_type != b.weak_type:
                    _retype_output(graph, i, a)
            break
        avals = weaker
    init = [x if core.get_aval(x) == a else ew.convert_element_type(x, a.dtype)
            for x, a in zip(carry_leaves, avals)]
    outs = scan_p.bind(*consts, *init, *xs_leaves, graph=graph, length=n, reverse=bool(reverse),
                       num_consts=len(consts), num_carry=len(avals))
    return (tree_util.tree_unflatten(carry_tree, outs[:len(avals)]),
            tree_util.tree_unflatten(y_tree, outs[len(avals):]))
