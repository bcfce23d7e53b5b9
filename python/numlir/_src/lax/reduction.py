"""Reduction primitives: reduce_{sum,prod,max,min,and,or} over a set of axes."""

from __future__ import annotations

from typing import Sequence

from numlir._src import core
from numlir._src.lax import type_checks as tc


def _reduction(name: str, kind: str, accepted) -> core.Primitive:
    prim = core.Primitive(name)

    @prim.def_abstract_eval
    def _abstract_eval(operand, *, axes):
        tc.check_dtype(name, operand, accepted)
        if any(not 0 <= a < operand.ndim for a in axes) or len(set(axes)) != len(axes):
            raise core.value_error(f"{name}: axes {axes} are invalid for an array of shape {operand.shape}")
        return operand.update(shape=tuple(d for i, d in enumerate(operand.shape) if i not in axes))

    @prim.def_lowering
    def _lowering(ctx, operand, *, axes):
        return ctx.emit(f"hlo.reduce {kind} {operand}, dims = {list(axes)} : {ctx.type_in()} -> {ctx.type_out()}")

    def reduce(operand, axes: Sequence[int]):
        aval = core.get_aval(operand)
        axes = tc.canonical_axes(name, axes, aval.ndim)
        return prim.bind(operand, axes=axes)

    reduce.__name__ = name
    reduce.__doc__ = f"Reduce ``operand`` with {kind} over ``axes`` (the axes are removed)."
    return prim, reduce


reduce_sum_p, reduce_sum = _reduction("reduce_sum", "sum", tc.NUMERIC)
reduce_prod_p, reduce_prod = _reduction("reduce_prod", "prod", tc.NUMERIC)
reduce_max_p, reduce_max = _reduction("reduce_max", "max", tc.ANY)
reduce_min_p, reduce_min = _reduction("reduce_min", "min", tc.ANY)
reduce_and_p, reduce_and = _reduction("reduce_and", "and", (tc.BOOL,))
reduce_or_p, reduce_or = _reduction("reduce_or", "or", (tc.BOOL,))
