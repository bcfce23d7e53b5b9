"""Reduction primitives: reduce_{sum,prod,max,min,and,or} over a set of axes, and argmax/argmin.

reduce_max and reduce_min of complex numbers order them real part first, as jax; hlo's
reduce has no such kind, so they lower to a composite of real reductions
(``_lexicographic_extremum``).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from numlir._src import ad, ad_util, batching, core, dtypes
from numlir._src import transpose as tr
from numlir._src.lax import complex_ops
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops
from numlir._src.lax import type_checks as tc


def _reduction(name: str, kind: str, accepted, complex_impl=None) -> core.Primitive:
    """``complex_impl(x, axes)``, where given, is the composite that complex operands lower
    to."""
    prim = core.Primitive(name)

    @prim.def_abstract_eval
    def _abstract_eval(operand, *, axes):
        tc.check_dtype(name, operand, accepted)
        if any(not 0 <= a < operand.ndim for a in axes) or len(set(axes)) != len(axes):
            raise core.value_error(f"{name}: axes {axes} are invalid for an array of shape {operand.shape}")
        return operand.update(shape=tuple(d for i, d in enumerate(operand.shape) if i not in axes))

    @prim.def_lowering
    def _lowering(ctx, operand, *, axes):
        aval = ctx.avals_in[0]
        if complex_impl is not None and dtypes.is_complex(aval.dtype):
            closed = core.trace_to_graph(lambda x: [complex_impl(x, axes)],
                                         [aval.strip_weak_type()])
            return ctx.inline(closed, [operand])[0]
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
reduce_max_p, reduce_max = _reduction("reduce_max", "max", tc.ANY_OR_COMPLEX,
                                      lambda x, axes: _lexicographic_extremum(x, axes, "max"))
reduce_min_p, reduce_min = _reduction("reduce_min", "min", tc.ANY_OR_COMPLEX,
                                      lambda x, axes: _lexicographic_extremum(x, axes, "min"))
reduce_and_p, reduce_and = _reduction("reduce_and", "and", (tc.BOOL,))
reduce_or_p, reduce_or = _reduction("reduce_or", "or", (tc.BOOL,))


def _lexicographic_extremum(x, axes, kind):
    """jax's complex reduce_max (reduce_min). XLA folds ``acc = lax.max(acc, x_i)`` from
    (-inf, 0) ((inf, 0) for min): x_i replaces acc unless acc compares strictly greater (less),
    real part first, and every comparison with a NaN part fails. The fold's result in closed
    form, from real reductions that vectorize: it restarts after the last element whose real
    part is NaN; from there its real part is the extreme one, M; the elements with real part M
    fold their imaginary parts alike, restarting after the last NaN one; of the extreme
    imaginary part, the last element wins (which decides between signed zeros). The start value
    takes part until a NaN real part shows up. XLA returns the element of a one-element
    reduction without the start value, and folds more than 32 elements in a tree, which decides
    differently between NaNs (and only there)."""
    aval = core.get_aval(x)
    kept = [d for d in range(aval.ndim) if d not in axes]
    kept_shape = tuple(aval.shape[d] for d in kept)
    n = int(np.prod([aval.shape[a] for a in axes], dtype=np.int64))
    part_dtype = dtypes.complex_part_dtype(aval.dtype)
    worst = ew.convert_element_type(-np.inf if kind == "max" else np.inf, part_dtype, True)
    zero = ew.convert_element_type(0, part_dtype, True)
    if n == 0:
        return shape_ops.broadcast_in_dim(complex_ops.complex(worst, zero), kept_shape, ())
    x = shape_ops.reshape(shape_ops.transpose(x, kept + sorted(axes)), kept_shape + (n,))
    if n == 1:
        return shape_ops.reshape(x, kept_shape)
    shape, last = kept_shape + (n,), len(kept_shape)
    extreme_of = reduce_max if kind == "max" else reduce_min
    extreme = ew.max if kind == "max" else ew.min
    re, im = complex_ops.real(x), complex_ops.imag(x)
    index = shape_ops.broadcasted_iota(np.int32, shape, last)
    nowhere = ew.convert_element_type(-1, np.int32, True)

    def spread(v):
        return shape_ops.broadcast_in_dim(v, shape, tuple(range(last)))

    def last_where(mask):  # the last index where mask holds, -1 if none
        return reduce_max(ew.select(mask, index, nowhere), (last,))

    def pick(values, mask):  # the one value where mask holds (worst if none)
        return extreme_of(ew.select(mask, values, worst), (last,))

    restart = last_where(ew.ne(re, re))
    counted = ew.gt(index, spread(restart))
    real_extreme = pick(re, counted)
    tied = ew.bitwise_and(counted, ew.eq(re, spread(real_extreme)))
    imag_restart = last_where(ew.bitwise_and(tied, ew.ne(im, im)))
    candidates = ew.bitwise_and(tied, ew.gt(index, spread(imag_restart)))
    start_counts = ew.bitwise_and(
        ew.bitwise_and(ew.eq(restart, nowhere), ew.eq(imag_restart, nowhere)),
        ew.eq(real_extreme, worst))
    imag_extreme = pick(im, candidates)
    imag_extreme = ew.select(start_counts, extreme(imag_extreme, zero), imag_extreme)
    winner = last_where(ew.bitwise_and(candidates, ew.eq(im, spread(imag_extreme))))
    # No candidate: the start value if it took part, else the last NaN that restarted a fold.
    start_wins = ew.bitwise_and(start_counts, ew.eq(winner, nowhere))
    fallback = ew.select(ew.eq(imag_restart, nowhere), restart, imag_restart)
    winner = ew.select(ew.eq(winner, nowhere), fallback, winner)
    at_winner = ew.eq(index, spread(winner))
    out_re = ew.select(start_wins, worst, pick(re, at_winner))
    out_im = ew.select(start_wins, zero, pick(im, at_winner))
    return complex_ops.complex(out_re, out_im)


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
