"""Reduction primitives: reduce_{sum,prod,max,min,and,or} over a set of axes, and argmax/argmin."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from numlir._src import ad, ad_util, batching, core, dtypes
from numlir._src import transpose as tr
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops
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

    def _batch_rule(axis_size, args, dims, *, axes):
        (x,), (d,) = args, dims
        axes = tuple(batching.shifted(a, d) for a in axes)
        return prim.bind(x, axes=axes), d - sum(a < d for a in axes)

    batching.defrule(prim, _batch_rule)

    def reduce(operand, axes: Sequence[int]):
        aval = core.get_aval(operand)
        axes = tc.canonical_axes(name, axes, aval.ndim)
        return prim.bind(operand, axes=axes)

    reduce.__name__ = name
    reduce.__doc__ = f"Reduce ``operand`` with {kind} over ``axes`` (the axes are removed)."
    return prim, reduce


reduce_sum_p, reduce_sum = _reduction("reduce_sum", "sum", tc.NUMERIC_OR_COMPLEX)
reduce_prod_p, reduce_prod = _reduction("reduce_prod", "prod", tc.NUMERIC_OR_COMPLEX)
reduce_max_p, reduce_max = _reduction("reduce_max", "max", tc.ANY)
reduce_min_p, reduce_min = _reduction("reduce_min", "min", tc.ANY)
reduce_and_p, reduce_and = _reduction("reduce_and", "and", (tc.BOOL,))
reduce_or_p, reduce_or = _reduction("reduce_or", "or", (tc.BOOL,))


def _reduce_chooser_jvp(prim):
    # The tangent at the extremum's location; ties share it evenly (as jax).
    def rule(primals, tangents, *, axes):
        x, t = primals[0], ad.instantiate(tangents[0])
        out = prim.bind(x, axes=axes)
        aval = core.get_aval(x)
        kept = tuple(i for i in range(aval.ndim) if i not in axes)
        at_extremum = ew.convert_element_type(
            ew.eq(x, shape_ops.broadcast_in_dim(out, aval.shape, kept)), aval.dtype)
        counts = reduce_sum(at_extremum, axes)
        return out, ew.div(reduce_sum(ew.mul(t, at_extremum), axes), counts)

    return rule


def _reduce_prod_jvp(t, x, *, axes):
    # sum_i t_i * prod_{j != i} x_j, with exclusive products from both ends (safe at zeros).
    # cumulative.py and slicing.py are built on this module's reductions.
    from numlir._src.lax import cumulative, slicing

    aval = core.get_aval(x)
    kept = [i for i in range(aval.ndim) if i not in axes]
    perm = tuple(kept) + tuple(axes)
    n = 1
    for a in axes:
        n *= aval.shape[a]
    shape = tuple(aval.shape[i] for i in kept) + (n,)
    x2 = shape_ops.reshape(shape_ops.transpose(x, perm), shape)
    t2 = shape_ops.reshape(shape_ops.transpose(t, perm), shape)
    one = ew.const(x, 1)
    k = len(shape) - 1
    before = [(0, 0, 0)] * k
    left = cumulative.cumprod(slicing.pad(x2, one, before + [(1, -1, 0)]), axis=k)
    right = cumulative.cumprod(slicing.pad(x2, one, before + [(-1, 1, 0)]), axis=k, reverse=True)
    return reduce_sum(ew.mul(t2, ew.mul(left, right)), (k,))


ad.defjvp_rule(reduce_max_p, _reduce_chooser_jvp(reduce_max_p))
ad.defjvp_rule(reduce_min_p, _reduce_chooser_jvp(reduce_min_p))
ad.defjvp(reduce_prod_p, _reduce_prod_jvp)
ad.defzero(reduce_and_p)
ad.defzero(reduce_or_p)


def _reduce_sum_transpose(ct, operand, *, axes):
    shape = operand.aval.shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return shape_ops.broadcast_in_dim(ct, shape, kept)


ad.deflinear(reduce_sum_p, tr.first_operand(_reduce_sum_transpose))
ad_util.register_array_op("reduce_sum", reduce_sum)


# --- argmax / argmin ------------------------------------------------------------------------


def _arg_reduce(name: str, kind: str):
    prim = core.Primitive(name)

    @prim.def_abstract_eval
    def _abstract_eval(operand, *, axis, index_dtype):
        tc.check_dtype(name, operand, tc.ANY)
        if index_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise core.shape_error(
                f"{name}: index_dtype must be int32 or int64, got {index_dtype.name}"
            )
        if not 0 <= axis < operand.ndim:
            raise core.value_error(
                f"{name}: axis {axis} is out of bounds for shape {operand.shape}"
            )
        if operand.shape[axis] == 0:
            raise core.value_error(
                f"{name}: cannot compute over the empty axis {axis} of {operand.shape}"
            )
        shape = tuple(d for i, d in enumerate(operand.shape) if i != axis)
        return core.ShapedArray(shape, index_dtype)

    @prim.def_lowering
    def _lowering(ctx, operand, *, axis, index_dtype):
        return ctx.emit(
            f"hlo.arg_reduce {kind} {operand}, dim = {axis} : {ctx.type_in()} -> {ctx.type_out()}"
        )

    def _batch_rule(axis_size, args, dims, *, axis, index_dtype):
        (x,), (d,) = args, dims
        axis = batching.shifted(axis, d)
        return prim.bind(x, axis=axis, index_dtype=index_dtype), d - (axis < d)

    batching.defrule(prim, _batch_rule)

    def fn(operand, axis: int, index_dtype=np.int32):
        ndim = core.get_aval(operand).ndim
        axis = tc.canonical_axis(name, axis, ndim)
        return prim.bind(operand, axis=axis, index_dtype=dtypes.canonicalize_dtype(index_dtype))

    fn.__name__ = name
    fn.__doc__ = (
        f"Index of the {kind}imum along ``axis`` (first occurrence; NaN counts as the "
        f"{kind}imum), as ``index_dtype``."
    )
    return prim, fn


argmax_p, argmax = _arg_reduce("argmax", "max")
argmin_p, argmin = _arg_reduce("argmin", "min")
ad.defzero(argmax_p)
ad.defzero(argmin_p)
