"""Forward mode for users: ``jvp``, ``linearize`` and ``jacfwd``, on the JVP interpreter
(ad.py)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from numlir._src import ad, core, dtypes, traceback_util, tree_util
from numlir._src.ad_util import Zero, instantiate
from numlir._src.array import as_array
from numlir._src.jit import jit
from numlir._src.numpy.reshaping import reshape
from numlir._src.numpy.creation import zeros
from numlir._src.partial_eval import PartialEvalTrace
from numlir._src.vmap import vmap


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


def jvp(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool = False):
    """Forward-mode derivative: ``(fun(*primals), d fun(primals) · tangents)``.

    Example::

        y, dy = numlir.jvp(numlir.numpy.sin, (1.0,), (1.0,))   # (sin 1, cos 1)
    """
    core.check_callable(fun)

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
    t_leaves = [as_array(t) if dtypes.is_inexact(core.get_aval(p).dtype)
                else Zero(core.get_aval(p).strip_weak_type()) for p, t in zip(p_leaves, t_leaves)]

    def flat_fun(*leaves):
        out = fun(*tree_util.tree_unflatten(p_tree, leaves))
        if has_aux:
            out, aux = out
            return (out, Aux(aux))
        return out

    out_tree, outs, t_outs = ad.jvp_flat(flat_fun, p_leaves, t_leaves)
    t_outs = [instantiate(t) for t in t_outs]
    if has_aux:
        out, aux = tree_util.tree_unflatten(out_tree, outs)
        t_out, _ = tree_util.tree_unflatten(out_tree, t_outs)
        return out, t_out, aux.value
    return tree_util.tree_unflatten(out_tree, outs), tree_util.tree_unflatten(out_tree, t_outs)


class Aux:
    """Marks the ``has_aux`` part of an output (its leaves' primals are returned as aux)."""

    def __init__(self, value):
        self.value = value


tree_util.register_pytree_node(Aux, lambda a: ([a.value], None), lambda _, c: Aux(c[0]))


# --- linearize ----------------------------------------------------------------------------


def linearize(fun: Callable, *primals):
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the (jitted) linear JVP map.

    Example::

        y, f_jvp = numlir.linearize(numlir.numpy.sin, 1.0)
        f_jvp(2.0)   # 2 * cos(1)
    """
    core.check_callable(fun)

    p_leaves, p_tree = tree_util.tree_flatten(tuple(primals))
    p_leaves = [as_array(p) for p in p_leaves]
    in_avals = [core.get_aval(p).strip_weak_type() for p in p_leaves]
    trace = PartialEvalTrace()
    t_args = [trace.new_arg(a) for a in in_avals]
    with core.set_current_trace(trace):
        out_tree, outs, t_outs = ad.jvp_flat(
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


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable:
    """Jacobian of ``fun`` by forward mode: out.shape + in.shape per (output, input) leaf.

    Example::

        numlir.jacfwd(lambda x: x ** 2)(jnp.arange(3.0))   # diag([0, 2, 4])
    """
    core.check_callable(fun)

    @traceback_util.api_boundary
    def jac_fun(*args):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for n in nums:
            if not -len(args) <= n < len(args):
                raise TypeError(f"jacfwd: argnums {argnums} out of range for {len(args)} arguments")
        dyn = tuple(args[n] for n in nums)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        leaves = [as_array(x) for x in leaves]
        for x in leaves:
            dt = core.get_aval(x).dtype
            if holomorphic and not dtypes.is_complex(dt):
                raise TypeError("jacfwd with holomorphic=True requires inputs with complex "
                                f"dtype, but got {dt.name}.")
            if not holomorphic and not dtypes.is_float(dt):
                raise TypeError(
                    "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
                    f"np.floating), but got {dt.name}. For holomorphic differentiation, pass "
                    "holomorphic=True. For differentiation of non-holomorphic functions involving "
                    "complex inputs or integer inputs, use numlir.jvp directly.")

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
            columns = [zeros(core.get_aval(o).shape + (0,), core.get_aval(o).dtype)
                       for o in tree_util.tree_leaves(out)]
        else:
            # All basis tangents at once: the JVP vmapped over the columns of the identity.
            eye = np.eye(total)
            basis = tuple(eye[:, off:off + size].reshape((total,) + core.get_aval(x).shape)
                          .astype(core.get_aval(x).dtype)
                          for x, off, size in zip(leaves, offsets, sizes))

            def push(*ts):
                res = jvp(partial, tuple(leaves), ts, has_aux=has_aux)
                return res[0], tree_util.tree_leaves(res[1]), res[2] if has_aux else None

            out, columns, aux = vmap(push, out_axes=(None, -1, None))(*basis)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        for o in out_leaves:
            if holomorphic and not dtypes.is_complex(core.get_aval(o).dtype):
                raise TypeError("jacfwd with holomorphic=True requires outputs with complex "
                                f"dtype, but got {core.get_aval(o).dtype.name}.")
        jac_leaves = []
        for j, o in enumerate(out_leaves):
            o_shape = core.get_aval(o).shape
            stacked = columns[j]
            per_input = []
            for x, off, size in zip(leaves, offsets, sizes):
                piece = stacked[..., int(off):int(off) + size]
                per_input.append(reshape(piece, o_shape + core.get_aval(x).shape))
            in_jac = tree_util.tree_unflatten(in_tree, per_input)
            jac_leaves.append(in_jac[0] if isinstance(argnums, int) else in_jac)
        jac = tree_util.tree_unflatten(out_tree, jac_leaves)
        return (jac, aux) if has_aux else jac

    return jac_fun
