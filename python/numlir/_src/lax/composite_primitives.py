"""Elementwise primitives that hlo has no op for: each lowers by inlining a composite of
ordinary ops, yet stays one primitive, so it keeps its own derivative (a clean formula
instead of the derivative of the composite's series, branches and clamps) and its
own batching rule.

``impl`` receives tracers of the primitive's (broadcast) output aval and returns the
result of the same aval; it is traced once per lowering.
"""

from __future__ import annotations

from collections.abc import Callable

from numlir._src import batching, core
from numlir._src.lax import elementwise as ew
from numlir._src.lax import type_checks as tc


def unary(name: str, impl: Callable, accepted=(tc.FLOAT,)) -> core.Primitive:
    prim = core.Primitive(name)
    prim.def_abstract_eval(ew._unary_abstract_eval(name, accepted))

    @prim.def_lowering
    def _lowering(ctx, x):
        out = ctx.avals_out[0].strip_weak_type()
        closed = core.trace_to_graph(lambda u: [impl(u)], [out])
        return ctx.inline(closed, [x])[0]

    batching.defvectorized(prim)
    return prim


def elementwise(name: str, impl: Callable, arity: int, accepted=(tc.FLOAT,)) -> core.Primitive:
    """Operands of one dtype, with lax's broadcasting of rank-0 operands."""
    prim = core.Primitive(name)

    @prim.def_abstract_eval
    def _abstract_eval(*avals: core.ShapedArray) -> core.ShapedArray:
        dtype = tc.check_same_dtypes(name, list(avals))
        tc.check_dtype(name, avals[0], accepted)
        shape = tc.broadcasting_shape(name, list(avals))
        return core.ShapedArray(shape, dtype, all(a.weak_type for a in avals))

    @prim.def_lowering
    def _lowering(ctx, *operands):
        operands = ew._broadcast_operands(ctx, *operands)
        out = ctx.avals_out[0].strip_weak_type()
        closed = core.trace_to_graph(lambda *vs: [impl(*vs)], [out] * arity)
        return ctx.inline(closed, list(operands))[0]

    batching.defbroadcasting(prim)
    return prim


def binary(name: str, impl: Callable, accepted=(tc.FLOAT,)) -> core.Primitive:
    """Two operands of one dtype, with lax's broadcasting of rank-0 operands."""
    return elementwise(name, impl, 2, accepted)
