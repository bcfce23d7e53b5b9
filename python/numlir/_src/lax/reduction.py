"""Reduction primitives: reduce_{sum,prod,max,min,and,or} over a set of axes."""

from __future__ import annotations

from typing import Sequence

from numlir._src import batching, core
from numlir._src import ad
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

    core.batching_rules[prim] = _batch_rule

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


def _reduce_chooser_jvp(prim):
    # The tangent at the extremum's location; ties share it evenly (as jax).
    def rule(primals, tangents, *, axes):
        from numlir._src.lax import elementwise as ew, shape_ops

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
    from numlir._src.lax import elementwise as ew, elementwise_extra as ee, shape_ops, slicing

    aval = core.get_aval(x)
    kept = [i for i in range(aval.ndim) if i not in axes]
    perm = tuple(kept) + tuple(axes)
    n = 1
    for a in axes:
        n *= aval.shape[a]
    shape = tuple(aval.shape[i] for i in kept) + (n,)
    x2 = shape_ops.reshape(shape_ops.transpose(x, perm), shape)
    t2 = shape_ops.reshape(shape_ops.transpose(t, perm), shape)
    one = ad.const(x, 1)
    k = len(shape) - 1
    before = [(0, 0, 0)] * k
    left = ee.cumprod(slicing.pad(x2, one, before + [(1, -1, 0)]), axis=k)
    right = ee.cumprod(slicing.pad(x2, one, before + [(-1, 1, 0)]), axis=k, reverse=True)
    return reduce_sum(ew.mul(t2, ew.mul(left, right)), (k,))


core.jvp_rules[reduce_max_p] = _reduce_chooser_jvp(reduce_max_p)
core.jvp_rules[reduce_min_p] = _reduce_chooser_jvp(reduce_min_p)
ad.deflinear(reduce_sum_p)
ad.defjvp(reduce_prod_p, _reduce_prod_jvp)
ad.defzero(reduce_and_p)
ad.defzero(reduce_or_p)


def _reduce_sum_transpose(ct, operand, *, axes):
    from numlir._src.lax import shape_ops

    shape = operand.aval.shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return shape_ops.broadcast_in_dim(ct, shape, kept)


def _transpose_rules():
    from numlir._src import transpose as tr

    tr.deflinear(reduce_sum_p, _reduce_sum_transpose)


_transpose_rules()
