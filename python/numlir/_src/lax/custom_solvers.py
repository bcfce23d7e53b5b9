"""custom_linear_solve and custom_root: solvers differentiated implicitly, as JAX's.

Each traces the user's functions to sub-graphs (their closed-over values become leading
operands) and binds one primitive that runs the ``solve`` graph; derivatives never go
through the solver itself:

* ``custom_linear_solve`` (``linear_solve_p``): x = A^-1 b with A the linear ``matvec``.
  JVP: ``dx = A^-1 (db - dA x)``, another linear solve of the same primitive; transpose:
  the solve of the transposed system (``transpose_solve`` with ``vecmat``, the transpose
  of ``matvec``), so reverse mode needs ``transpose_solve`` (or ``symmetric=True``).
* ``custom_root`` (``root_p``): x* with f(x*) = 0. JVP by the implicit function theorem:
  ``dx* = -(df/dx)^-1 (df/dtheta . dtheta)`` for the values theta f closes over, the
  inverse applied by ``tangent_solve`` to f linearized at x*. The tangent of the initial
  guess is ignored.

Batching batches every sub-graph with the right-hand side (or guess) made batched, and
lowering inlines the ``solve`` graph. Eagerly, the primitive compiles its solve graph as
one executable (cached by its text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from numlir._src import ad, batching, core, tree_util
from numlir._src import transpose as tr
from numlir._src.ad_util import Zero, add_any, instantiate
from numlir._src.lax import elementwise as ew
from numlir._src.partial_eval import PartialEvalTrace, hoist_consts

# --- shared helpers ------------------------------------------------------------------------


def _split(args: Sequence[Any], lengths: Sequence[int]) -> list[list[Any]]:
    """``args`` cut into consecutive groups of ``lengths`` (and the rest, last)."""
    groups, start = [], 0
    for n in lengths:
        groups.append(list(args[start:start + n]))
        start += n
    return groups + [list(args[start:])]


def _check_tree(func_name: str, expected_name: str, actual, expected) -> None:
    if actual != expected:
        raise TypeError(f"{func_name}() output pytree structure must match {expected_name}, "
                        f"got {actual} and {expected}.")


def _split_aux(func_name: str, out, has_aux: bool):
    if not has_aux:
        return out, None
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise ValueError(f"{func_name}() produced a pytree with structure "
                         f"{tree_util.tree_structure(out)}, but a pytree tuple with auxiliary "
                         "output was expected because has_aux was set to True.")
    return out[0], out[1]


def _check_shapes(func_name: str, expected_name: str, actual, expected) -> None:
    got = [core.get_aval(x).shape for x in actual]
    want = [core.get_aval(x).shape for x in expected]
    if got != want:
        raise ValueError(f"{func_name}() output shapes must match {expected_name}, got {got} "
                         f"and {want}")


def _trace(fun: Callable, avals: Sequence[core.ShapedArray]) -> tuple[core.ClosedGraph, list]:
    """``fun`` (flat arrays in and out) as a graph whose leading inputs take the returned
    constants (the values it closes over)."""
    return hoist_consts(core.trace_to_graph(fun, list(avals)))


def _call(graph: core.ClosedGraph, *args) -> list[Any]:
    return core.eval_graph(graph.graph, graph.consts, *args)


def _batched(aval: core.ShapedArray, axis_size: int) -> core.ShapedArray:
    return aval.update(shape=(axis_size,) + aval.shape)


def _batch_graph(graph: core.ClosedGraph, axis_size: int, dims) -> tuple[core.ClosedGraph, list]:
    """``graph`` on operands batched at ``dims`` (0 or None), every output batched at 0;
    returns the new graph and its new leading constants."""
    fun = batching.batch_graph_fn(graph, axis_size, dims, [True] * len(graph.out_avals))
    avals = [a if d is None else _batched(a, axis_size) for a, d in zip(graph.in_avals, dims)]
    return _trace(fun, avals)


def _batch_operands(axis_size: int, args, dims, num_consts: int):
    """Constants with their batch axis first (or unbatched), the rest batched at 0."""
    out, out_dims = [], []
    for i, (x, d) in enumerate(zip(args, dims)):
        if i < num_consts and d is None:
            out.append(x)
            out_dims.append(None)
        else:
            out.append(batching.bdim_to_front(x, d, axis_size))
            out_dims.append(0)
    return out, out_dims


def _tangent_of(fun: Callable, primals, tangents) -> list[Any]:
    """The tangent outputs of ``fun`` (flat) at ``primals`` (``Zero`` tangents allowed)."""
    _, _, t_outs = ad.jvp_flat(fun, list(primals), list(tangents))
    return list(t_outs)


# --- custom_linear_solve ----------------------------------------------------------------------


class LinearSolveGraphs(NamedTuple):
    """The sub-graphs of a linear solve; vecmat and transpose_solve may be None."""

    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any

    def transpose(self) -> LinearSolveGraphs:
        return LinearSolveGraphs(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def _transpose_lengths(lengths: tuple[int, ...]) -> tuple[int, ...]:
    matvec, vecmat, solve, transpose_solve = lengths
    return (vecmat, matvec, transpose_solve, solve)


linear_solve_p = core.Primitive("custom_linear_solve")
linear_solve_p.multiple_results = True


@linear_solve_p.def_abstract_eval
def _linear_solve_abstract_eval(*avals, const_lengths, graphs):
    return graphs.solve.out_avals


@linear_solve_p.def_lowering
def _linear_solve_lowering(ctx, *args, const_lengths, graphs):
    groups = _split(args, const_lengths)
    return ctx.inline(graphs.solve, groups[2] + groups[-1])


def _linear_solve_jvp(primals, tangents, *, const_lengths, graphs):
    # A x = b  =>  dA x + A dx = db  =>  dx = A^-1 (db - dA x)
    params = {"const_lengths": const_lengths, "graphs": graphs}
    outs = linear_solve_p.bind(*primals, **params)
    groups, t_groups = _split(primals, const_lengths), _split(tangents, const_lengths)
    b_dot = t_groups[-1]
    x = outs[:len(b_dot)]
    rhs = list(b_dot)
    if not all(isinstance(t, Zero) for t in t_groups[0]):
        matvec_dot = _tangent_of(lambda *a: _call(graphs.matvec, *a), groups[0] + x,
                                 t_groups[0] + [Zero(core.get_aval(v).strip_weak_type()) for v in x])
        rhs = [r if isinstance(m, Zero) else add_any(r, ew.neg(m)) for r, m in zip(rhs, matvec_dot)]
    out_avals = [a.strip_weak_type() for a in graphs.solve.out_avals]
    if all(isinstance(r, Zero) for r in rhs):
        return outs, [Zero(a) for a in out_avals]
    consts = [c for group in groups[:-1] for c in group]
    x_dot = linear_solve_p.bind(*consts, *[instantiate(r) for r in rhs], **params)
    return outs, x_dot[:len(x)] + [Zero(a) for a in out_avals[len(x):]]


def _linear_solve_transpose(cts, *args, const_lengths, graphs):
    if graphs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic differentiation "
                        "of custom_linear_solve")
    groups = _split(args, const_lengths)
    consts = [c for group in groups[:-1] for c in group]
    if any(tr.is_undefined(c) for c in consts):
        raise NotImplementedError("custom_linear_solve: reverse mode through the matrix of a "
                                  "linear solve whose right-hand side is not the linear input")
    num_b = len(groups[-1])
    if any(not isinstance(ct, Zero) for ct in cts[num_b:]):
        raise NotImplementedError("custom_linear_solve: cotangents of the auxiliary outputs")
    transposed = graphs.transpose()
    lengths = _transpose_lengths(const_lengths)
    t_groups = _split(consts, const_lengths)
    t_consts = t_groups[1] + t_groups[0] + t_groups[3] + t_groups[2]
    ct_b = linear_solve_p.bind(*t_consts, *[instantiate(ct) for ct in cts[:num_b]],
                               const_lengths=lengths, graphs=transposed)
    return [None] * len(consts) + list(ct_b[:num_b])


def _linear_solve_batch(axis_size, args, dims, *, const_lengths, graphs):
    num_consts = sum(const_lengths)
    args, dims = _batch_operands(axis_size, args, dims, num_consts)
    groups, d_groups = _split(args, const_lengths), _split(dims, const_lengths)
    b_dims = d_groups[-1]
    new_graphs, new_consts = [], []
    for graph, consts, cdims in zip(graphs, groups[:-1], d_groups[:-1]):
        if graph is None:
            new_graphs.append(None)
            new_consts.append([])
            continue
        # every graph maps (consts, a vector like b) -> a vector like b (and aux)
        batched, hoisted = _batch_graph(graph, axis_size, list(cdims) + b_dims)
        new_graphs.append(batched)
        new_consts.append(hoisted + consts)
    outs = linear_solve_p.bind(*[c for cs in new_consts for c in cs], *groups[-1],
                               const_lengths=tuple(len(c) for c in new_consts),
                               graphs=LinearSolveGraphs(*new_graphs))
    return outs, [0] * len(outs)


ad.defjvp_rule(linear_solve_p, _linear_solve_jvp)
tr.deftranspose(linear_solve_p, _linear_solve_transpose)
batching.defrule(linear_solve_p, _linear_solve_batch)


def custom_linear_solve(matvec: Callable, b: Any, solve: Callable[[Callable, Any], Any],
                        transpose_solve: Callable[[Callable, Any], Any] | None = None,
                        symmetric: bool = False, has_aux: bool = False):
    """``solve(matvec, b)``, differentiated as the solution of ``matvec(x) == b``.

    ``matvec`` is a linear function (on pytrees shaped like ``b``); ``solve(matvec, b)``
    returns x with ``matvec(x) == b`` (plus auxiliary data if ``has_aux``), and need not be
    differentiable (it may iterate with ``while_loop``). Derivatives come from solving the
    same system again (forward mode) or the transposed one with
    ``transpose_solve(vecmat, ct)`` (reverse mode; ``symmetric=True`` reuses ``solve``).

    Example::

        >>> a = jnp.array([[4.0, 1.0], [1.0, 3.0]])
        >>> solve = lambda matvec, b: jnp.linalg.solve(a, b)
        >>> lax.custom_linear_solve(lambda x: a @ x, jnp.array([1.0, 2.0]), solve,
        ...                         symmetric=True)
        Array([0.09090909, 0.6363636 ], dtype=float32)
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_leaves, b_tree = tree_util.tree_flatten(b)
    b_avals = [core.get_aval(x) for x in b_leaves]
    aux_tree = []

    def as_tree(leaves):
        return tree_util.tree_unflatten(b_tree, leaves)

    def flat_matvec(*leaves):
        y_leaves, y_tree = tree_util.tree_flatten(matvec(as_tree(leaves)))
        _check_tree("matvec", "b", y_tree, b_tree)
        _check_shapes("matvec", "b", y_leaves, b_leaves)
        return y_leaves

    def flat_solve_with(name: str, fun: Callable, linear: Callable):
        def flat(*leaves):
            x, aux = _split_aux(name, fun(linear, as_tree(leaves)), has_aux)
            x_leaves, x_tree = tree_util.tree_flatten(x)
            _check_tree(name, "b", x_tree, b_tree)
            _check_shapes(name, "b", x_leaves, b_leaves)
            aux_leaves, tree = tree_util.tree_flatten(aux)
            aux_tree[:] = [tree]
            return x_leaves + aux_leaves

        return flat

    matvec_graph, matvec_consts = _trace(flat_matvec, b_avals)
    solve_graph, solve_consts = _trace(flat_solve_with("solve", solve, matvec), b_avals)
    vecmat_graph = transpose_graph = None
    vecmat_consts, transpose_consts = [], []
    if transpose_solve is not None:
        if symmetric:
            vecmat_graph, vecmat_consts = matvec_graph, matvec_consts
            vecmat = matvec
        else:
            def flat_vecmat(*cts):
                return tr.linear_transpose_fn(flat_matvec, b_avals)(*cts)

            vecmat_graph, vecmat_consts = _trace(flat_vecmat, b_avals)

            def vecmat(ct):
                return as_tree(_call(vecmat_graph, *vecmat_consts, *tree_util.tree_leaves(ct)))

        transpose_graph, transpose_consts = _trace(
            flat_solve_with("transpose_solve", transpose_solve, vecmat), b_avals)
    consts = [matvec_consts, vecmat_consts, solve_consts, transpose_consts]
    outs = linear_solve_p.bind(*[c for cs in consts for c in cs], *b_leaves,
                               const_lengths=tuple(len(c) for c in consts),
                               graphs=LinearSolveGraphs(matvec_graph, vecmat_graph, solve_graph,
                                                        transpose_graph))
    x = as_tree(outs[:len(b_leaves)])
    if has_aux:
        return x, tree_util.tree_unflatten(aux_tree[0], outs[len(b_leaves):])
    return x


# --- custom_root ------------------------------------------------------------------------------


class RootGraphs(NamedTuple):
    """f: (consts, x) -> f(x); solve: (consts, guess) -> root (and aux); linearized_solve:
    (consts, x, b) -> the tangent_solve of f linearized at x, applied to b."""

    f: Any
    solve: Any
    linearized_solve: Any


root_p = core.Primitive("custom_root")
root_p.multiple_results = True


@root_p.def_abstract_eval
def _root_abstract_eval(*avals, const_lengths, graphs):
    return graphs.solve.out_avals


@root_p.def_lowering
def _root_lowering(ctx, *args, const_lengths, graphs):
    groups = _split(args, const_lengths)
    return ctx.inline(graphs.solve, groups[1] + groups[-1])


def _root_jvp(primals, tangents, *, const_lengths, graphs):
    # f(theta, x*(theta)) = 0  =>  dx* = -(d_x f)^-1 (d_theta f . dtheta)
    outs = root_p.bind(*primals, const_lengths=const_lengths, graphs=graphs)
    groups, t_groups = _split(primals, const_lengths), _split(tangents, const_lengths)
    num_x = len(groups[-1])
    solution = outs[:num_x]
    out_avals = [a.strip_weak_type() for a in graphs.solve.out_avals]
    zeros = [Zero(a) for a in out_avals]
    if all(isinstance(t, Zero) for t in t_groups[0]):
        return outs, zeros
    rhs = _tangent_of(lambda *theta: _call(graphs.f, *theta, *solution), groups[0], t_groups[0])
    step = _call(graphs.linearized_solve, *groups[2], *solution, *[instantiate(r) for r in rhs])
    return outs, [ew.neg(s) for s in step] + zeros[num_x:]


def _root_batch(axis_size, args, dims, *, const_lengths, graphs):
    num_consts = sum(const_lengths)
    args, dims = _batch_operands(axis_size, args, dims, num_consts)
    groups, d_groups = _split(args, const_lengths), _split(dims, const_lengths)
    x_dims = d_groups[-1]
    vector_dims = (x_dims, x_dims, x_dims + x_dims)  # f(x), solve(guess), solve(x, b)
    new_graphs, new_consts = [], []
    for graph, consts, cdims, vdims in zip(graphs, groups[:-1], d_groups[:-1], vector_dims):
        batched, hoisted = _batch_graph(graph, axis_size, list(cdims) + vdims)
        new_graphs.append(batched)
        new_consts.append(hoisted + consts)
    outs = root_p.bind(*[c for cs in new_consts for c in cs], *groups[-1],
                       const_lengths=tuple(len(c) for c in new_consts),
                       graphs=RootGraphs(*new_graphs))
    return outs, [0] * len(outs)


ad.defjvp_rule(root_p, _root_jvp)
batching.defrule(root_p, _root_batch)


def _linearize(fun: Callable, primals: Sequence[Any]) -> Callable:
    """The linear map ``t -> d fun(primals) . t`` (flat lists), its residuals computed once."""
    trace = PartialEvalTrace()
    tangents = [trace.new_arg(core.get_aval(p).strip_weak_type()) for p in primals]
    with core.set_current_trace(trace):
        t_outs = [instantiate(t) for t in _tangent_of(fun, primals, tangents)]
    linear = trace.to_closed_graph(t_outs)
    return lambda *ts: _call(linear, *ts)


def custom_root(f: Callable, initial_guess: Any, solve: Callable[[Callable, Any], Any],
                tangent_solve: Callable[[Callable, Any], Any], has_aux: bool = False):
    """``solve(f, initial_guess)``, a root of ``f``, differentiated by the implicit function
    theorem with respect to the values ``f`` closes over.

    ``solve`` need not be differentiable (a Newton iteration in a ``while_loop``, say).
    ``tangent_solve(g, y)`` returns x with ``g(x) == y`` for ``g`` the linearization of ``f``
    at the root: ``lambda g, y: y / g(1.0)`` for a scalar root.

    Example::

        >>> def sqrt(a):  # Newton's method for x**2 = a
        ...     f = lambda x: x ** 2 - a
        ...     newton = lambda f, x: lax.fori_loop(0, 20, lambda i, x: x - f(x) / (2 * x), x)
        ...     return lax.custom_root(f, 1.0, newton, lambda g, y: y / g(1.0))
        >>> numlir.grad(sqrt)(4.0)
        Array(0.25, dtype=float32, weak_type=True)
    """
    guess_leaves, guess_tree = tree_util.tree_flatten(initial_guess)
    guess_avals = [core.get_aval(x) for x in guess_leaves]
    out_tree = []

    def as_tree(leaves):
        return tree_util.tree_unflatten(guess_tree, leaves)

    def flat_f(*leaves):
        y_leaves, y_tree = tree_util.tree_flatten(f(as_tree(leaves)))
        _check_tree("f", "initial_guess", y_tree, guess_tree)
        return y_leaves

    def flat_solve(*leaves):
        out = solve(f, as_tree(leaves))
        x, _ = _split_aux("solve", out, has_aux)
        _check_tree("solve", "initial_guess", tree_util.tree_structure(x), guess_tree)
        out_leaves, tree = tree_util.tree_flatten(out)
        out_tree[:] = [tree]
        return out_leaves

    def flat_linearized_solve(*leaves):
        x, b = leaves[:len(guess_avals)], leaves[len(guess_avals):]
        linear = _linearize(flat_f, x)

        def g(t):
            t_leaves = tree_util.tree_leaves(t)
            t_leaves = [ew.convert_element_type(v, a.dtype) for v, a in zip(t_leaves, avals_x)]
            return as_tree(linear(*t_leaves))

        avals_x = [core.get_aval(v).strip_weak_type() for v in x]
        out_leaves, tree = tree_util.tree_flatten(tangent_solve(g, as_tree(b)))
        _check_tree("tangent_solve", "x", tree, guess_tree)
        return out_leaves

    f_graph, f_consts = _trace(flat_f, guess_avals)
    solve_graph, solve_consts = _trace(flat_solve, guess_avals)
    tangent_avals = [a.strip_weak_type() for a in guess_avals]
    ls_graph, ls_consts = _trace(flat_linearized_solve, guess_avals + tangent_avals)
    consts = [f_consts, solve_consts, ls_consts]
    outs = root_p.bind(*[c for cs in consts for c in cs], *guess_leaves,
                       const_lengths=tuple(len(c) for c in consts),
                       graphs=RootGraphs(f_graph, solve_graph, ls_graph))
    return tree_util.tree_unflatten(out_tree[0], outs)
