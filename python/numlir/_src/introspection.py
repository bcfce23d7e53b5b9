"""Looking at a function without running it: make_jaxpr (make_graph), eval_shape, typeof."""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from numlir._src import core, static_args, traceback_util, tree_util
from numlir._src.jit import JitFunction, ShapeDtypeStruct, _argument_avals
from numlir._src.static_args import function_name


def _trace(jf: JitFunction, args, kwargs, api_name: str):
    """``jf``'s function traced on the abstract values of ``args``: its ClosedGraph and output tree."""
    fun = jf._fun
    leaves, in_tree, static_key = jf._split_args(args, kwargs)
    in_avals = list(_argument_avals(fun, leaves, in_tree, static_key))
    out_trees = []

    def flat_fun(*tracers):
        a, k = jf._rebuild(in_tree, static_key, tracers)
        out_leaves, out_tree = tree_util.tree_flatten(fun(*a, **k))
        out_trees.append(out_tree)
        return out_leaves

    debug = core.TraceDebugInfo(api_name, function_name(fun), static_args.traced_args(
        fun, in_tree, leaves, {i for i, _ in static_key[0]}))
    graph = core.trace_to_graph(flat_fun, in_avals, debug)
    return graph, out_trees[0]


def _shape_struct(aval: core.ShapedArray) -> ShapeDtypeStruct:
    return ShapeDtypeStruct(aval.shape, aval.dtype, aval.weak_type)


def make_graph(fun: Callable, static_argnums: int | Sequence[int] = (), return_shape: bool = False):
    """``make_graph(f)(*args)`` is the ClosedGraph of ``f``, printed like a jaxpr.

    With ``return_shape=True`` it returns ``(graph, out_shapes)``, the outputs as a
    tree of ShapeDtypeStructs. ``make_jaxpr`` is the same function under JAX's name.

    Example::

        >>> print(numlir.make_graph(lambda x: x * 2)(np.ones(3, np.float32)))
        { lambda ; a:f32[3]. let
            b:f32[3] = mul a 2.0:f32[]
          in (b,) }
    """
    jf = JitFunction(fun, static_argnums)  # checks static_argnums now, not at the call

    @traceback_util.api_boundary
    @functools.wraps(fun)
    def graph_maker(*args, **kwargs):
        graph, out_tree = _trace(jf, args, kwargs, "make_graph")
        if not return_shape:
            return graph
        return graph, out_tree.unflatten(_shape_struct(a) for a in graph.out_avals)

    return graph_maker


make_jaxpr = make_graph


@traceback_util.api_boundary
def eval_shape(fun: Callable, *args, **kwargs) -> Any:
    """The shapes and dtypes of ``fun(*args, **kwargs)``, as ShapeDtypeStructs, without running it.

    Arguments may be arrays or anything with ``shape`` and ``dtype`` (ShapeDtypeStruct,
    jax arrays, NumPy arrays); nothing is compiled or computed.

    Example::

        >>> numlir.eval_shape(lambda x: x.sum(0), numlir.ShapeDtypeStruct((3, 4), "float32"))
        ShapeDtypeStruct(shape=(4,), dtype=float32)
    """
    graph, out_tree = _trace(JitFunction(fun), args, kwargs, "eval_shape")
    return out_tree.unflatten(_shape_struct(a) for a in graph.out_avals)


def typeof(x: Any) -> core.ShapedArray:
    """The abstract value of ``x``: its shape, dtype and weak type (``jax.typeof``)."""
    return core.get_aval(x)
