"""The dot_general primitive (batched tensor contraction)."""

from __future__ import annotations

import numpy as np

from numlir._src import ad, batching, core, dtypes
from numlir._src import transpose as tr
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops
from numlir._src.lax import type_checks as tc
from numlir._src.lowering import tensor_type

dot_general_p = core.Primitive("dot_general")


def _dims_ok(dims, ndim):
    return all(0 <= d < ndim for d in dims) and len(set(dims)) == len(dims)


@dot_general_p.def_abstract_eval
def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    tc.check_same_dtypes("dot_general", [lhs, rhs])
    tc.check_dtype("dot_general", lhs, tc.NUMERIC_OR_COMPLEX)
    shapes = f"lhs {lhs.str_short()}, rhs {rhs.str_short()}"
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise core.shape_error(
            f"dot_general requires equal numbers of lhs and rhs contracting and batch dimensions, "
            f"got dimension_numbers {dimension_numbers} for {shapes}"
        )
    if not _dims_ok(lc + lb, lhs.ndim) or not _dims_ok(rc + rb, rhs.ndim):
        raise core.shape_error(
            f"dot_general dimension_numbers {dimension_numbers} are out of range or repeated for {shapes}"
        )
    for kind, ld, rd in (("contracting", lc, rc), ("batch", lb, rb)):
        if any(lhs.shape[i] != rhs.shape[j] for i, j in zip(ld, rd)):
            raise core.shape_error(
                f"dot_general requires {kind} dimensions to have the same shape, got "
                f"{tuple(lhs.shape[i] for i in ld)} and {tuple(rhs.shape[j] for j in rd)} for {shapes}"
            )
    lfree = [d for i, d in enumerate(lhs.shape) if i not in lc + lb]
    rfree = [d for i, d in enumerate(rhs.shape) if i not in rc + rb]
    shape = tuple(lhs.shape[i] for i in lb) + tuple(lfree) + tuple(rfree)
    dtype = preferred_element_type if preferred_element_type is not None else lhs.dtype
    return core.ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


@dot_general_p.def_lowering
def _dot_general_lowering(ctx, lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    out = ctx.avals_out[0]
    types = []
    operands = []
    for x, aval in zip((lhs, rhs), ctx.avals_in):
        if aval.dtype != out.dtype:  # preferred_element_type: compute in the result's type
            conv = aval.update(dtype=out.dtype)
            x = ctx.emit(f"hlo.convert {x} : {tensor_type(aval)} -> {tensor_type(conv)}")
            aval = conv
        operands.append(x)
        types.append(tensor_type(aval))
    if all(ctx.avals_in[0].shape[d] == 1 for d in lc) and not dtypes.issubdtype(
            out.dtype, np.complexfloating):
        return _lower_as_product(ctx, operands, dimension_numbers)
    return ctx.emit(
        f"hlo.dot_general {operands[0]}, {operands[1]}, batch_dims = {list(lb)} x {list(rb)}, "
        f"contracting_dims = {list(lc)} x {list(rc)} : {types[0]}, {types[1]} -> {ctx.type_out()}"
    )


def _lower_as_product(ctx, operands, dimension_numbers):
    """A real contraction over dimensions of size 1 (or none) as the elementwise product of
    the operands, broadcast to the result, as XLA simplifies it: each output is then the
    one product, with its sign of zero (0 * -1 is -0), where a sum from +0 would give +0.
    (Complex ones stay dot_general: hlo.multiply's complex product recovers infinities as
    C99 does, XLA's dot does not.)"""
    (lc, rc), (lb, rb) = dimension_numbers
    out = ctx.avals_out[0]
    nb = len(lb)
    lfree = out.ndim - nb - (ctx.avals_in[1].ndim - len(rc) - len(rb))
    factors = []
    for x, aval, contracting, batch, placed in (
            (operands[0], ctx.avals_in[0], lc, lb, range(nb, nb + lfree)),
            (operands[1], ctx.avals_in[1], rc, rb, range(nb + lfree, out.ndim))):
        aval = aval.update(dtype=out.dtype)
        free = [d for d in range(aval.ndim) if d not in contracting and d not in batch]
        order = list(batch) + free  # the contracting dims, all of size 1, are dropped
        kept = aval.update(shape=tuple(aval.shape[d] for d in order))
        if order != sorted(order):
            moved = aval.update(shape=kept.shape + (1,) * len(contracting))
            x = ctx.emit(f"hlo.transpose {x}, dims = {order + list(contracting)} : "
                         f"{tensor_type(aval)} -> {tensor_type(moved)}")
            aval = moved
        if aval.shape != kept.shape:
            x = ctx.emit(f"hlo.reshape {x} : {tensor_type(aval)} -> {tensor_type(kept)}")
        dims = list(range(nb)) + list(placed)
        factors.append(ctx.emit(f"hlo.broadcast_in_dim {x}, dims = {dims} : "
                                f"{tensor_type(kept)} -> {ctx.type_out()}"))
    return ctx.emit(f"hlo.multiply {factors[0]}, {factors[1]} : {ctx.type_out()}")


def _dot_general_batch_rule(axis_size, args, dims, *, dimension_numbers, precision,
                            preferred_element_type):
    (lhs, rhs), (ld, rd) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    if ld is not None and rd is not None:  # the vmapped axis becomes a dot batch dimension
        lhs, rhs = batching.moveaxis(lhs, ld, 0), batching.moveaxis(rhs, rd, 0)
        up = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
        dn = ((up(lc), up(rc)), ((0, *up(lb)), (0, *up(rb))))
        out_dim = 0
    elif ld is not None:  # a free dimension of lhs
        lc, lb = (tuple(batching.shifted(d, ld) for d in ds) for ds in (lc, lb))
        free = [i for i in range(core.get_aval(lhs).ndim) if i not in lc + lb]
        dn, out_dim = ((lc, rc), (lb, rb)), len(lb) + free.index(ld)
    else:  # a free dimension of rhs
        rc, rb = (tuple(batching.shifted(d, rd) for d in ds) for ds in (rc, rb))
        lfree = core.get_aval(lhs).ndim - len(lc) - len(lb)
        free = [i for i in range(core.get_aval(rhs).ndim) if i not in rc + rb]
        dn, out_dim = ((lc, rc), (lb, rb)), len(lb) + lfree + free.index(rd)
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=precision,
                             preferred_element_type=preferred_element_type)
    return out, out_dim


batching.defrule(dot_general_p, _dot_general_batch_rule)




def _precision_rank(dtype: np.dtype) -> tuple:
    """XLA's HigherPrecisionType order: floats above integers, then exponent range, mantissa,
    bit width, and signed above unsigned; complex above all, ordered by their parts."""
    if dtypes.is_complex(dtype):
        return (True, *_precision_rank(dtypes.complex_part_dtype(dtype))[1:])
    if dtypes.is_float(dtype):
        info = dtypes.finfo(dtype)
        return (False, info.maxexp, info.nmant, info.bits, True)
    bits = 1 if dtypes.is_bool(dtype) else dtypes.iinfo(dtype).bits
    return (False, -1, -1, bits, not dtypes.is_unsigned_int(dtype))


def contraction_dtype(name: str, lhs_dtype: np.dtype, rhs_dtype: np.dtype) -> np.dtype:
    """The dtype a contraction of mixed-dtype operands computes in (as jax and XLA: the more
    precise one, so ``f32 x f64`` is f64 and ``int32 x f32`` is f32)."""
    if lhs_dtype == rhs_dtype:
        return lhs_dtype
    lhs_rank, rhs_rank = _precision_rank(lhs_dtype), _precision_rank(rhs_dtype)
    if lhs_rank == rhs_rank:
        raise core.shape_error(f"lax.{name} argument type error: {lhs_dtype.name}, {rhs_dtype.name}")
    return lhs_dtype if lhs_rank > rhs_rank else rhs_dtype


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """Tensor contraction; ``dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.

    The result's dimensions are the batch dimensions, then lhs's free, then rhs's free ones.
    Operands of different dtypes are converted to ``preferred_element_type`` or, without one,
    to the more precise of the two (as jax does).
    """
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(int(d) for d in lc), tuple(int(d) for d in rc)),
          (tuple(int(d) for d in lb), tuple(int(d) for d in rb)))
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(preferred_element_type)
    lhs_dtype, rhs_dtype = core.get_aval(lhs).dtype, core.get_aval(rhs).dtype
    if lhs_dtype != rhs_dtype:
        # With a preferred type, XLA converts each operand straight to it (an int32 x uint32
        # product into f32 never wraps the uint32 through int32).
        dtype = contraction_dtype("dot_general", lhs_dtype, rhs_dtype)
        dtype = dtype if preferred_element_type is None else preferred_element_type
        lhs, rhs = (ew.convert_element_type(x, dtype) if d != dtype else x
                    for x, d in ((lhs, lhs_dtype), (rhs, rhs_dtype)))
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=None,
                              preferred_element_type=preferred_element_type)


# --- Transpose (reverse mode) ----------------------------------------------------------------


def _dot_transpose_lhs(ct, x_aval, y, dimension_numbers, swap_output: bool):
    """The cotangent of ``x`` in ``dot_general(x, y)`` (or ``dot_general(y, x)`` when
    ``swap_output``, whose result lists y's free dimensions before x's)."""

    (xc, yc), (xb, yb) = dimension_numbers
    y_ndim = core.get_aval(y).ndim
    x_free = [i for i in range(x_aval.ndim) if i not in xc + xb]
    y_free = [i for i in range(y_ndim) if i not in yc + yb]
    nb = len(xb)
    if swap_output:  # result: batch, y free, x free
        ct_y_free = list(range(nb, nb + len(y_free)))
    else:  # result: batch, x free, y free
        ct_y_free = list(range(nb + len(x_free), nb + len(x_free) + len(y_free)))
    dims = ((tuple(ct_y_free), tuple(y_free)), (tuple(range(nb)), tuple(yb)))
    # The product's dimensions: x batch, x free, then y's contracting ones in y's order.
    x_contract_by_y = [xc[k] for k in np.argsort(yc)]
    layout = list(xb) + x_free + x_contract_by_y
    ct_dtype = core.get_aval(ct).dtype
    if core.get_aval(y).dtype != ct_dtype:
        y = ew.convert_element_type(y, ct_dtype)
    out = dot_general_p.bind(ct, y, dimension_numbers=dims, precision=None,
                             preferred_element_type=None)
    out = shape_ops.transpose(out, tuple(int(i) for i in np.argsort(layout)))
    if core.get_aval(out).dtype != x_aval.dtype:
        out = ew.convert_element_type(out, x_aval.dtype)
    return out


def _dot_general_transpose(ct, lhs, rhs, *, dimension_numbers, precision, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    if tr.is_undefined(lhs) and tr.is_undefined(rhs):
        raise AssertionError("dot_general of two linear values is not linear")
    if tr.is_undefined(lhs):
        return [_dot_transpose_lhs(ct, lhs.aval, rhs, dimension_numbers, False), None]
    swapped = ((rc, lc), (rb, lb))
    return [None, _dot_transpose_lhs(ct, rhs.aval, lhs, swapped, True)]


ad.defbilinear(dot_general_p, _dot_general_transpose)
