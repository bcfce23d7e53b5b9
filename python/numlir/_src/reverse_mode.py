"""Reverse mode: ``vjp``, ``grad``, ``value_and_grad``, ``jacrev`` and ``hessian``.

Reverse mode is derived from forward mode, as in JAX: the JVP of ``f`` runs
with *unknown* tangents under a ``PartialEvalTrace``, which evaluates the
primal computation now and records the tangent computation as a linear
graph whose constants are the residuals; ``transpose.backward_pass`` then
runs that graph backwards. Called eagerly, the backward pass is one compiled
executable (the residuals are its arguments, so it compiles once per
signature); under ``jit`` everything lands in the enclosing module.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import numpy as np

from numlir._src import ad, core, dtypes, forward_mode, traceback_util, tree_util
from numlir._src.array import as_array
from numlir._src.jit import JitFunction, jit
from numlir._src.lax.shape_ops import full
from numlir._src.numpy.reshaping import reshape
from numlir._src.partial_eval import PartialEvalTrace
from numlir._src.transpose import UndefinedPrimal, backward_pass
from numlir._src.vmap import vmap

float0 = dtypes.float0


def _is_differentiable(aval: core.ShapedArray) -> bool:
    return dtypes.is_inexact(aval.dtype)


class _Linearized:
    """The linear (tangent) graph of a function at a point, ready to be transposed."""

    def __init__(self, graph: core.ClosedGraph, in_avals, in_nonzero, out_avals, out_nonzero):
        self.graph = graph
        self.in_avals = in_avals
        self.in_nonzero = in_nonzero
        self.out_avals = out_avals
        self.out_nonzero = out_nonzero

    def transpose_fn(self) -> Callable:
        """``f(consts, cts) -> cts_in`` for the nonzero inputs/outputs; a pure function."""
        g = self.graph.graph
        undefined = [UndefinedPrimal(v.aval) for v in g.invars]

        def fn(consts, cts):
            res = backward_pass(g, consts, undefined, cts)
            return [ad.instantiate(r) for r in res]

        return fn


def _linearize_flat(fun: Callable, primals: Sequence[Any], has_aux: bool = False):
    """Run ``fun`` (flat arrays in, pytree out) under JVP with unknown tangents.

    With ``has_aux``, ``fun`` returns ``(out, forward_mode.Aux(aux))`` and only ``out`` is
    differentiated. Returns ``(out_tree, primal_outs, _Linearized)``.
    """
    in_avals = [core.get_aval(p).strip_weak_type() for p in primals]
    nonzero = [_is_differentiable(a) for a in in_avals]
    trace = PartialEvalTrace()
    tangents = [trace.new_arg(a) if nz else ad.Zero(a) for a, nz in zip(in_avals, nonzero)]
    with core.set_current_trace(trace):
        out_tree, outs, t_outs = ad.jvp_flat(fun, primals, tangents)
    for o in outs:
        if trace.is_unknown(o):
            raise AssertionError("a primal output depends on a tangent (missing partial-eval rule)")
    if has_aux:
        n_main = len(tree_util.tree_leaves(tree_util.tree_unflatten(out_tree, list(outs))[0]))
        t_outs = t_outs[:n_main] + [None] * (len(t_outs) - n_main)
    out_nonzero = [t is not None and not isinstance(t, ad.Zero) for t in t_outs]
    linear = trace.to_closed_graph([t for t, nz in zip(t_outs, out_nonzero) if nz])
    out_avals = [core.get_aval(o).strip_weak_type() if t is not None else None
                 for o, t in zip(outs, t_outs)]
    return out_tree, outs, _Linearized(linear, in_avals, nonzero, out_avals, out_nonzero)


def _linearize_tree(fun: Callable, leaves: Sequence[Any], in_tree, has_aux: bool):
    """Linearize ``fun`` (pytree ``in_tree`` of ``leaves`` in, pytree out).

    Returns ``(out, aux, lin)``; with ``has_aux``, ``fun`` returns ``(out, aux)`` and
    only ``out`` is differentiated (``lin``'s outputs are ``out``'s leaves).
    """

    def flat_fun(*xs):
        out = fun(*tree_util.tree_unflatten(in_tree, xs))
        if not has_aux:
            return out
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError("with has_aux=True the function must return a pair (out, aux)")
        return (out[0], forward_mode.Aux(out[1]))

    out_tree, outs, lin = _linearize_flat(flat_fun, leaves, has_aux)
    result = tree_util.tree_unflatten(out_tree, list(outs))
    if not has_aux:
        return result, None, lin
    result, aux = result
    n = len(tree_util.tree_leaves(result))
    lin.out_avals, lin.out_nonzero = lin.out_avals[:n], lin.out_nonzero[:n]
    return result, aux.value, lin


def _run_transpose(lin: _Linearized, cts: Sequence[Any]) -> list[Any]:
    """Cotangents of every input (zeros, or float0 zeros for integer inputs)."""
    fn = lin.transpose_fn()
    cts_nz = [c for c, nz in zip(cts, lin.out_nonzero) if nz]
    consts = list(lin.graph.consts)
    if isinstance(core.current_trace(), core.EvalTrace) and lin.graph.graph.eqns:
        res = jit(fn)(consts, cts_nz)
    else:
        res = fn(consts, cts_nz)
    it = iter(res)
    out = []
    for aval, nz in zip(lin.in_avals, lin.in_nonzero):
        if nz:
            out.append(next(it))
        else:
            out.append(np.zeros(aval.shape, float0))
    return out


def _check_ct(path: str, ct, aval: core.ShapedArray) -> None:
    ct_aval = core.get_aval(ct)
    if ct_aval.shape != aval.shape or (ct_aval.dtype != aval.dtype and _is_differentiable(aval)):
        raise core.shape_error(
            f"vjp function called with a cotangent of type {ct_aval.str_short()} for {path}, "
            f"whose primal output has type {aval.str_short()}")


def vjp(fun: Callable, *primals, has_aux: bool = False):
    """``(fun(*primals), f_vjp)`` where ``f_vjp(ct)`` pulls a cotangent back to the inputs.

    Example::

        y, f_vjp = numlir.vjp(jnp.sin, 1.0)
        (dx,) = f_vjp(1.0)        # cos(1)
    """
    core.check_callable(fun)
    p_leaves, p_tree = tree_util.tree_flatten(tuple(primals))
    p_leaves = [as_array(p) for p in p_leaves]

    result, aux, lin = _linearize_tree(fun, p_leaves, p_tree, has_aux)
    result_tree = tree_util.tree_structure(result)

    @traceback_util.api_boundary
    def f_vjp(*cts):
        ct = cts[0] if len(cts) == 1 else cts
        ct_paths, ct_tree = tree_util.tree_flatten_with_path(ct)
        if ct_tree != result_tree:
            raise TypeError(
                f"vjp function called with a cotangent of structure {ct_tree}; expected the "
                f"primal output's structure {result_tree}")
        ct_leaves = []
        for (path, c), aval in zip(ct_paths, lin.out_avals):
            c = as_array(c)
            _check_ct(f"output{tree_util.keystr(path)}", c, aval)
            ct_leaves.append(c)
        return tree_util.tree_unflatten(p_tree, _run_transpose(lin, ct_leaves))

    return (result, f_vjp, aux) if has_aux else (result, f_vjp)


# --- grad and value_and_grad -----------------------------------------------------------------


def _argnums_tuple(argnums) -> tuple[int, ...]:
    if isinstance(argnums, int):
        return (argnums,)
    argnums = tuple(argnums)
    if not all(isinstance(i, int) for i in argnums):
        raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}")
    return argnums


def _check_argnums(what: str, argnums, nargs: int) -> tuple[int, ...]:
    nums = _argnums_tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise core.value_error(
                f"{what}: argnums {argnums} is out of range for a function called with {nargs} "
                "positional argument(s)")
    return tuple(n % nargs for n in nums)


def _arg_description(fun, i: int) -> str:
    try:
        params = [p for p in inspect.signature(fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return f"argument {params[i].name!r} (argnums {i})" if i < len(params) else f"argument {i}"


def _check_input_dtypes(what: str, fun, args, nums, allow_int: bool,
                        holomorphic: bool = False) -> None:
    for i in nums:
        for path, leaf in tree_util.tree_flatten_with_path(args[i])[0]:
            aval = core.get_aval(leaf)
            where = f"{_arg_description(fun, i)}{tree_util.keystr(path)}"
            if holomorphic and not dtypes.is_complex(aval.dtype):
                raise core.shape_error(
                    f"{what} with holomorphic=True requires inputs with complex dtype, but "
                    f"{where} has type {aval.str_short()}")
            if _is_differentiable(aval):
                continue
            if allow_int and (dtypes.issubdtype(aval.dtype, np.integer) or aval.dtype == np.bool_):
                continue
            raise core.shape_error(
                f"{what} requires real- or complex-valued inputs (input dtype that is a "
                f"sub-dtype of np.inexact) for the differentiated arguments, but {where} has "
                f"type {aval.str_short()}. Use allow_int=True to get float0 zeros for integer "
                "inputs, or convert them to floats")


def _check_output_dtype(what: str, aval: core.ShapedArray, holomorphic: bool) -> None:
    """jax's rules: holomorphic differentiation needs complex outputs, the other kind real ones
    (the derivative of a complex output is not one number per input without holomorphy)."""
    if holomorphic:
        if not dtypes.is_complex(aval.dtype):
            raise core.shape_error(f"{what} with holomorphic=True requires outputs with complex "
                                   f"dtype, but got {aval.dtype.name}.")
    elif dtypes.is_complex(aval.dtype):
        raise core.shape_error(
            f"{what} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {aval.dtype.name}. For holomorphic differentiation, pass "
            "holomorphic=True. For differentiation of non-holomorphic functions involving complex "
            "outputs, use numlir.vjp directly.")
    elif not dtypes.is_float(aval.dtype):
        raise core.shape_error(
            f"{what} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {aval.dtype.name}. For differentiation of functions with "
            "integer outputs, use numlir.vjp directly.")


def _partial(fun, args, kwargs, nums):
    def partial(*dyn):
        full = list(args)
        for n, v in zip(nums, dyn):
            full[n] = v
        return fun(*full, **kwargs)

    return partial


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False, reduce_axes=()) -> Callable:
    """A function returning ``(fun(*args), grad(fun)(*args))`` in one pass.

    Example::

        loss, grads = numlir.value_and_grad(loss_fn)(params, batch)
    """
    core.check_callable(fun)
    del reduce_axes
    if isinstance(fun, JitFunction):
        # The gradient of a compiled function is compiled as a whole: forward and backward
        # in one module, traced once per signature.
        inner = value_and_grad(fun._fun, argnums, has_aux, holomorphic, allow_int)
        return functools.wraps(fun._fun)(jit(inner, static_argnums=fun._static_argnums,
                                             static_argnames=fun._static_argnames))

    @traceback_util.api_boundary
    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        nums = _check_argnums("grad", argnums, len(args))
        _check_input_dtypes("grad", fun, args, nums, allow_int, holomorphic)
        dyn = tuple(args[n] for n in nums)
        res = vjp(_partial(fun, args, kwargs, nums), *dyn, has_aux=has_aux)
        out, f_vjp = res[0], res[1]
        leaves = tree_util.tree_leaves(out)
        if len(leaves) != 1 or not isinstance(out, (core.Tracer, type(leaves[0]))):
            raise TypeError(
                f"Gradient only defined for scalar-output functions. Output was {out!r:.80}")
        aval = core.get_aval(out)
        if aval.shape != ():
            raise core.shape_error(
                f"Gradient only defined for scalar-output functions. Output had shape: "
                f"{aval.shape}")
        _check_output_dtype("grad", aval, holomorphic)
        g = f_vjp(full((), 1, aval.dtype))
        g = g[0] if isinstance(argnums, int) else g
        return ((out, res[2]), g) if has_aux else (out, g)

    return value_and_grad_f


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False, reduce_axes=()) -> Callable:
    """The gradient of scalar-valued ``fun`` with respect to the arguments ``argnums``.

    Example::

        numlir.grad(lambda x: jnp.sum(x ** 2))(jnp.arange(3.0))   # [0, 2, 4]
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int, reduce_axes)

    @traceback_util.api_boundary
    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        out, g = vg(*args, **kwargs)
        return (g, out[1]) if has_aux else g

    return grad_f


# --- Jacobians ---------------------------------------------------------------------------------


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable:
    """Jacobian of ``fun`` by reverse mode: out.shape + in.shape per (output, input) leaf.

    One linearization, then the backward pass vmapped over the rows of the identity.

    Example::

        numlir.jacrev(jnp.sin)(jnp.arange(3.0))   # diag(cos([0, 1, 2]))
    """
    core.check_callable(fun)

    @traceback_util.api_boundary
    @functools.wraps(fun)
    def jac_fun(*args, **kwargs):
        nums = _check_argnums("jacrev", argnums, len(args))
        _check_input_dtypes("jacrev", fun, args, nums, allow_int, holomorphic)
        dyn = tuple(args[n] for n in nums)
        in_leaves, in_tree = tree_util.tree_flatten(dyn)
        in_leaves = [as_array(x) for x in in_leaves]
        partial = _partial(fun, args, kwargs, nums)
        result, aux, lin = _linearize_tree(lambda *d: partial(*d), in_leaves, in_tree, has_aux)
        out_leaves, res_tree = tree_util.tree_flatten(result)
        n_out = len(out_leaves)
        out_avals = [core.get_aval(o) for o in out_leaves]
        for a in out_avals:
            _check_output_dtype("jacrev", a, holomorphic)
        sizes = [a.size for a in out_avals]
        total = int(sum(sizes))
        eye = np.eye(total, dtype=np.float64)
        basis, start = [], 0
        for a, s in zip(out_avals, sizes):  # row k of the identity, split per output leaf
            basis.append(eye[:, start:start + s].reshape((total,) + a.shape).astype(a.dtype))
            start += s
        fn = lin.transpose_fn()
        nz = lin.out_nonzero[:n_out]
        consts = list(lin.graph.consts)

        def pullback(consts, cts):
            res = vmap(lambda *c: fn(consts, [x for x, z in zip(c, nz) if z]))(*cts)
            return res

        if lin.graph.graph.eqns and any(nz):
            rows = (jit(pullback) if isinstance(core.current_trace(), core.EvalTrace)
                    else pullback)(consts, basis)
        else:
            rows = []
        rows_it = iter(rows)
        per_input = []
        for aval, nzi in zip(lin.in_avals, lin.in_nonzero):
            if nzi and lin.graph.graph.eqns and any(nz):
                per_input.append(next(rows_it))
            else:
                dt = aval.dtype if nzi else float0
                per_input.append(np.zeros((total,) + aval.shape, dt))
        jac_leaves = []
        start = 0
        for o_aval, s in zip(out_avals, sizes):
            pieces = []
            for r, aval in zip(per_input, lin.in_avals):
                block = r[start:start + s]
                shape = o_aval.shape + aval.shape
                pieces.append(np.reshape(block, shape) if isinstance(block, np.ndarray)
                              and block.dtype == float0 else reshape(block, shape))
            start += s
            tree = tree_util.tree_unflatten(in_tree, pieces)
            jac_leaves.append(tree[0] if isinstance(argnums, int) else tree)
        jac = tree_util.tree_unflatten(res_tree, jac_leaves)
        return (jac, aux) if has_aux else jac

    return jac_fun


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable:
    """The Hessian of scalar ``fun``: ``jacfwd(jacrev(fun))`` (forward-over-reverse)."""
    return forward_mode.jacfwd(jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                               has_aux=has_aux, holomorphic=holomorphic)
