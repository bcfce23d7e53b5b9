"""Slicing primitives: slice, dynamic_slice, dynamic_update_slice, concatenate, pad, rev,
gather and scatter (+ the jax.lax helpers built on them).

Each primitive maps to the hlo op of the same meaning (docs/hlo-dialect.md, sections
slice … scatter). The hlo ops clamp start indices (dynamic_slice, gather) or skip
out-of-bounds windows (scatter); jax's extra index semantics (wrapping negative
dynamic_slice starts, GatherScatterMode) are done here with ordinary primitives.
"""

from __future__ import annotations

import enum
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from numlir._src import ad, ad_util, batching, core, dtypes
from numlir._src import transpose as tr
from numlir._src.array import as_array
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops
from numlir._src.lax import type_checks as tc
from numlir._src.lax.reduction import reduce_and, reduce_sum


def _ints(name: str, what: str, values) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in values)
    except TypeError:
        raise core.shape_error(f"{name}: {what} must be a sequence of static integers, "
                               f"got {values!r}") from None


def _check_int_index(name: str, aval: core.ShapedArray) -> None:
    if not dtypes.is_int(aval.dtype):
        raise core.shape_error(f"{name}: indices must have an integer dtype, got {aval.dtype.name}")


# --- slice -----------------------------------------------------------------------------

slice_p = core.Primitive("slice")


@slice_p.def_abstract_eval
def _slice_abstract_eval(operand, *, start_indices, limit_indices, strides):
    nd = operand.ndim
    if not len(start_indices) == len(limit_indices) == len(strides) == nd:
        raise core.shape_error(
            f"slice: start_indices {start_indices}, limit_indices {limit_indices} and strides "
            f"{strides} must each have one entry per operand dimension (shape {operand.shape})")
    out = []
    for d, (lo, hi, st, n) in enumerate(zip(start_indices, limit_indices, strides, operand.shape)):
        if not 0 <= lo <= hi <= n or st < 1:
            raise core.shape_error(
                f"slice: invalid slice along dimension {d}: start {lo}, limit {hi}, stride {st} "
                f"for operand shape {operand.shape} (need 0 <= start <= limit <= size, stride >= 1)")
        out.append(-(-(hi - lo) // st))
    return operand.update(shape=out)


@slice_p.def_lowering
def _slice_lowering(ctx, operand, *, start_indices, limit_indices, strides):
    return ctx.emit(f"hlo.slice {operand}, start = {list(start_indices)}, limit = "
                    f"{list(limit_indices)}, strides = {list(strides)} : {ctx.type_in()} -> "
                    f"{ctx.type_out()}")


def _slice_batch_rule(axis_size, args, dims, *, start_indices, limit_indices, strides):
    d = dims[0]
    start, limit = list(start_indices), list(limit_indices)
    start.insert(d, 0)
    limit.insert(d, axis_size)
    strides = None if strides is None else (*strides[:d], 1, *strides[d:])
    return slice_p.bind(args[0], start_indices=tuple(start), limit_indices=tuple(limit),
                        strides=strides), d


batching.defrule(slice_p, _slice_batch_rule)




# Transpose rules (reverse mode): the cotangent goes back where the slice took it from,
# zeros elsewhere; the stride becomes interior padding.
def _slice_transpose(ct, operand, *, start_indices, limit_indices, strides):
    config = []
    for lo, n, st, m in zip(start_indices, operand.aval.shape, strides, core.get_aval(ct).shape):
        covered = (m - 1) * st + 1 if m else 0
        config.append((lo, n - lo - covered, st - 1))
    return pad_p.bind(ct, ew.const(ct, 0), padding_config=tuple(config))


ad.deflinear(slice_p, tr.first_operand(_slice_transpose))


def slice(operand, start_indices: Sequence[int], limit_indices: Sequence[int],  # noqa: A001
          strides: Sequence[int] | None = None):
    """The static block ``operand[start:limit:strides]`` (one entry per dimension).

    Example::

        >>> lax.slice(jnp.arange(6), (1,), (5,), (2,))
        Array([1, 3], dtype=int32)
    """
    aval = core.get_aval(operand)
    start = _ints("slice", "start_indices", start_indices)
    limit = _ints("slice", "limit_indices", limit_indices)
    strides = (1,) * aval.ndim if strides is None else _ints("slice", "strides", strides)
    if start == (0,) * aval.ndim and limit == aval.shape and strides == (1,) * aval.ndim:
        return as_array(operand)
    return slice_p.bind(operand, start_indices=start, limit_indices=limit, strides=strides)


def slice_in_dim(operand, start_index: int | None, limit_index: int | None, stride: int = 1,
                 axis: int = 0):
    """``lax.slice`` along one ``axis``; ``None`` and negative indices count like Python's."""
    aval = core.get_aval(operand)
    axis = tc.canonical_axis("slice_in_dim", axis, aval.ndim)
    n = aval.shape[axis]
    start = 0 if start_index is None else int(start_index)
    limit = n if limit_index is None else int(limit_index)
    start, limit = (start + n if start < 0 else start), (limit + n if limit < 0 else limit)
    starts, limits, strides = [0] * aval.ndim, list(aval.shape), [1] * aval.ndim
    starts[axis], limits[axis], strides[axis] = start, limit, int(stride)
    return slice(operand, starts, limits, strides)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """The static ``index`` along ``axis`` (negative counts from the end)."""
    aval = core.get_aval(operand)
    axis = tc.canonical_axis("index_in_dim", axis, aval.ndim)
    n, index = aval.shape[axis], int(index)
    if not -n <= index < n:
        raise IndexError(core._with_location(
            f"index {index} is out of bounds for axis {axis} with size {n}"))
    index = index + n if index < 0 else index
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else shape_ops.squeeze(out, (axis,))


# --- dynamic_slice ---------------------------------------------------------------------

dynamic_slice_p = core.Primitive("dynamic_slice")


def _check_start_indices(name: str, operand, indices) -> None:
    if len(indices) != operand.ndim:
        raise core.shape_error(f"{name}: got {len(indices)} start indices for an operand of "
                               f"rank {operand.ndim} (shape {operand.shape})")
    for i in indices:
        if i.shape:
            raise core.shape_error(f"{name}: start indices must be scalars, got shape {i.shape}")
        _check_int_index(name, i)
    if len({i.dtype for i in indices}) > 1:
        raise core.shape_error(f"{name}: start indices must have one dtype, got "
                               f"{', '.join(i.dtype.name for i in indices)}")


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract_eval(operand, *indices, slice_sizes):
    _check_start_indices("dynamic_slice", operand, indices)
    if len(slice_sizes) != operand.ndim or any(
            not 0 <= s <= n for s, n in zip(slice_sizes, operand.shape)):
        raise core.shape_error(f"dynamic_slice: slice_sizes {slice_sizes} must have one entry per "
                               f"dimension, each at most the operand's size {operand.shape}")
    return operand.update(shape=slice_sizes)


@dynamic_slice_p.def_lowering
def _dynamic_slice_lowering(ctx, operand, *indices, slice_sizes):
    idx_types = "".join(f", {ctx.type_in(i + 1)}" for i in range(len(indices)))[2:]
    in_type = ctx.type_in() + (f"[{idx_types}]" if indices else "")
    return ctx.emit(f"hlo.dynamic_slice {operand}[{', '.join(indices)}], sizes = "
                    f"{list(slice_sizes)} : {in_type} -> {ctx.type_out()}")


def _index_vectors(starts, axis_size):
    """int[axis_size, len(starts)] from per-example scalar starts batched at 0."""
    cols = [shape_ops.reshape(s, (axis_size, 1)) for s in starts]
    return concatenate_p.bind(*cols, dimension=1)


def _dynamic_slice_batch_rule(axis_size, args, dims, *, slice_sizes):
    (operand, *indices), (od, *idims) = args, dims
    if all(d is None for d in idims):  # a static slice of the batch axis
        zero = ew.convert_element_type(0, core.get_aval(indices[0]).dtype) if indices else None
        indices = list(indices)
        indices.insert(od, zero)
        sizes = (*slice_sizes[:od], axis_size, *slice_sizes[od:])
        return dynamic_slice_p.bind(operand, *indices, slice_sizes=sizes), od
    # Per-example starts: a gather of one window per example.
    vec = _index_vectors(
        [batching.bdim_to_front(i, d, axis_size) for i, d in zip(indices, idims)], axis_size)
    n = len(slice_sizes)
    dn = GatherDimensionNumbers(offset_dims=tuple(range(n)), collapsed_slice_dims=(),
                                start_index_map=tuple(range(n)))
    return _gather_batch_rule(axis_size, [operand, vec], [od, 0], dimension_numbers=dn,
                              slice_sizes=tuple(slice_sizes), index_vector_dim=0)


batching.defrule(dynamic_slice_p, _dynamic_slice_batch_rule)


def _start_indices(name: str, operand_shape, start_indices):
    """Scalar integer starts of one dtype, negative ones wrapped (as jax does)."""
    starts = [as_array(s) if not dtypes.is_python_scalar(s) else s for s in start_indices]
    if len(starts) != len(operand_shape):
        raise core.shape_error(f"{name}: got {len(starts)} start indices for an operand of "
                               f"rank {len(operand_shape)} (shape {tuple(operand_shape)})")
    avals = [core.get_aval(s) for s in starts]
    for a in avals:
        if a.shape:
            raise core.shape_error(f"{name}: start indices must be scalars, got shape {a.shape}")
        _check_int_index(name, a)
    strong = [a.dtype for a in avals if not a.weak_type]
    dtype = strong[0] if strong and all(d == strong[0] for d in strong) else (
        dtypes.result_type(*[(a.dtype, a.weak_type) for a in avals])[0] if avals else np.int32)
    out = []
    for s, a, n in zip(starts, avals, operand_shape):
        if dtypes.is_python_scalar(s) or not isinstance(s, core.Tracer):
            v = int(core.concrete_to_numpy(s))
            out.append(ew.convert_element_type(v + n if v < 0 else v, dtype))
            continue
        s = ew.convert_element_type(s, dtype)
        if dtypes.is_signed_int(dtype):
            s = ew.select(ew.lt(s, ew.convert_element_type(0, dtype)),
                          ew.add(s, ew.convert_element_type(n, dtype)), s)
        out.append(s)
    return out




# Transpose rules (reverse mode): dynamic_update_slice clamps its starts exactly as
# dynamic_slice does, so writing the cotangent into zeros puts it where the block came from.
def _dynamic_slice_transpose(ct, operand, *indices, slice_sizes):
    if any(tr.is_undefined(i) for i in indices):
        raise AssertionError("dynamic_slice is not linear in its start indices")
    zeros = ad_util.zeros_like_aval(operand.aval)
    return [dynamic_update_slice_p.bind(zeros, ct, *indices)] + [None] * len(indices)


ad.deflinear_in(dynamic_slice_p, (0,), _dynamic_slice_transpose)


def dynamic_slice(operand, start_indices: Sequence[Any], slice_sizes: Sequence[int]):
    """The block of ``slice_sizes`` at run-time ``start_indices`` (negative ones wrap; then
    clamped so the block lies inside ``operand``).

    Example::

        >>> lax.dynamic_slice(jnp.arange(5), (jnp.int32(3),), (2,))
        Array([3, 4], dtype=int32)
    """
    aval = core.get_aval(operand)
    starts = _start_indices("dynamic_slice", aval.shape, start_indices)
    sizes = _ints("dynamic_slice", "slice_sizes", slice_sizes)
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=sizes)


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0):
    """``dynamic_slice`` along one ``axis`` (the other dimensions are kept whole)."""
    aval = core.get_aval(operand)
    axis = tc.canonical_axis("dynamic_slice_in_dim", axis, aval.ndim)
    starts = [0] * aval.ndim
    sizes = list(aval.shape)
    starts[axis], sizes[axis] = start_index, int(slice_size)
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True):
    """The run-time ``index`` along ``axis`` (clamped into range)."""
    aval = core.get_aval(operand)
    axis = tc.canonical_axis("dynamic_index_in_dim", axis, aval.ndim)
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else shape_ops.squeeze(out, (axis,))


# --- dynamic_update_slice ------------------------------------------------------------------

dynamic_update_slice_p = core.Primitive("dynamic_update_slice")


@dynamic_update_slice_p.def_abstract_eval
def _dynamic_update_slice_abstract_eval(operand, update, *indices):
    _check_start_indices("dynamic_update_slice", operand, indices)
    if update.ndim != operand.ndim or any(u > n for u, n in zip(update.shape, operand.shape)):
        raise core.shape_error(f"dynamic_update_slice: update shape {update.shape} must have the "
                               f"operand's rank and fit inside operand shape {operand.shape}")
    if update.dtype != operand.dtype:
        raise core.shape_error(f"dynamic_update_slice: update dtype {update.dtype.name} must equal "
                               f"the operand dtype {operand.dtype.name}")
    return operand


@dynamic_update_slice_p.def_lowering
def _dynamic_update_slice_lowering(ctx, operand, update, *indices):
    idx_types = ", ".join(ctx.type_in(i + 2) for i in range(len(indices)))
    in_type = ctx.type_in() + (f"[{idx_types}]" if indices else "")
    return ctx.emit(f"hlo.dynamic_update_slice {operand}[{', '.join(indices)}], {update} : "
                    f"{in_type}, {ctx.type_in(1)}")


def _dynamic_update_slice_batch_rule(axis_size, args, dims):
    (operand, update, *indices), (od, ud, *idims) = args, dims
    operand = batching.bdim_to_front(operand, od, axis_size)
    if all(d is None for d in idims):
        update = batching.bdim_to_front(update, ud, axis_size)
        zero = ew.convert_element_type(0, core.get_aval(indices[0]).dtype) if indices else None
        return dynamic_update_slice_p.bind(operand, update, *([zero] if indices else []),
                                           *indices), 0
    # Per-example starts: clamp them as dynamic_update_slice does, then scatter one window each.
    oshape = core.get_aval(operand).shape[1:]
    ushape = core.get_aval(update).shape
    ushape = ushape if ud is None else ushape[:ud] + ushape[ud + 1:]
    clamped = []
    for i, d, n, u in zip(indices, idims, oshape, ushape):
        dtype = core.get_aval(i).dtype
        i = ew.max(ew.min(i, ew.convert_element_type(n - u, dtype)), ew.convert_element_type(0, dtype))
        clamped.append(batching.bdim_to_front(i, d, axis_size))
    vec = _index_vectors(clamped, axis_size)
    r = len(oshape)
    dn = ScatterDimensionNumbers(update_window_dims=tuple(range(r)), inserted_window_dims=(),
                                 scatter_dims_to_operand_dims=tuple(range(r)))
    return _scatter_batch_rule(scatter_p, axis_size, [operand, vec, update], [0, 0, ud],
                               dimension_numbers=dn, index_vector_dim=0)


batching.defrule(dynamic_update_slice_p, _dynamic_update_slice_batch_rule)




# Transpose rules (reverse mode): the overwritten block gets no cotangent from the operand;
# the update's cotangent is that (identically clamped) block of ct.
def _dynamic_update_slice_transpose(ct, operand, update, *indices):
    if any(tr.is_undefined(i) for i in indices):
        raise AssertionError("dynamic_update_slice is not linear in its start indices")
    shape = update.aval.shape if tr.is_undefined(update) else core.get_aval(update).shape
    ct_operand = ct_update = None
    if tr.is_undefined(operand):
        zeros = shape_ops.full(shape, 0, core.get_aval(ct).dtype)
        ct_operand = dynamic_update_slice_p.bind(ct, zeros, *indices)
    if tr.is_undefined(update):
        ct_update = dynamic_slice_p.bind(ct, *indices, slice_sizes=tuple(shape))
    return [ct_operand, ct_update] + [None] * len(indices)


ad.deflinear_in(dynamic_update_slice_p, (0, 1), _dynamic_update_slice_transpose)


def dynamic_update_slice(operand, update, start_indices: Sequence[Any]):
    """``operand`` with the block at ``start_indices`` replaced by ``update`` (starts wrap if
    negative, then clamp so the block fits)."""
    aval = core.get_aval(operand)
    starts = _start_indices("dynamic_update_slice", aval.shape, start_indices)
    return dynamic_update_slice_p.bind(operand, update, *starts)


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int):
    """``dynamic_update_slice`` with a start only along ``axis``."""
    aval = core.get_aval(operand)
    axis = tc.canonical_axis("dynamic_update_slice_in_dim", axis, aval.ndim)
    starts = [0] * aval.ndim
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(operand, update, index, axis: int):
    """Replace the ``index``-th slice along ``axis``; ``update`` may lack that axis."""
    aval = core.get_aval(operand)
    axis = tc.canonical_axis("dynamic_update_index_in_dim", axis, aval.ndim)
    if core.get_aval(update).ndim == aval.ndim - 1:
        update = shape_ops.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)


# --- concatenate --------------------------------------------------------------------------

concatenate_p = core.Primitive("concatenate")


@concatenate_p.def_abstract_eval
def _concatenate_abstract_eval(*operands, dimension):
    if not operands:
        raise core.shape_error("concatenate needs at least one operand")
    dtype = tc.check_same_dtypes("concatenate", operands)
    first = operands[0]
    if not 0 <= dimension < first.ndim:
        raise core.shape_error(f"concatenate: dimension {dimension} is out of range for operands "
                               f"of rank {first.ndim}")
    for o in operands:
        if o.ndim != first.ndim or any(a != b for i, (a, b) in enumerate(zip(o.shape, first.shape))
                                       if i != dimension):
            raise core.shape_error(
                f"concatenate: all operands must have equal shapes except along dimension "
                f"{dimension}, got {tc.fmt_shapes(operands)}")
    shape = list(first.shape)
    shape[dimension] = sum(o.shape[dimension] for o in operands)
    return core.ShapedArray(shape, dtype, all(o.weak_type for o in operands))


@concatenate_p.def_lowering
def _concatenate_lowering(ctx, *operands, dimension):
    types = ", ".join(ctx.type_in(i) for i in range(len(operands)))
    return ctx.emit(f"hlo.concatenate dim = {dimension}, {', '.join(operands)} : {types} -> "
                    f"{ctx.type_out()}")


def _concatenate_batch_rule(axis_size, args, dims, *, dimension):
    args = [batching.bdim_to_front(x, d, axis_size) for x, d in zip(args, dims)]
    return concatenate_p.bind(*args, dimension=dimension + 1), 0


batching.defrule(concatenate_p, _concatenate_batch_rule)




# Transpose rules (reverse mode): each linear operand gets its own slab of ct.
def _concatenate_transpose(ct, *operands, dimension):
    shape = core.get_aval(ct).shape
    cts, start = [], 0
    for x in operands:
        n = (x.aval if tr.is_undefined(x) else core.get_aval(x)).shape[dimension]
        if tr.is_undefined(x):
            starts, limits = [0] * len(shape), list(shape)
            starts[dimension], limits[dimension] = start, start + n
            cts.append(slice(ct, starts, limits))
        else:
            cts.append(None)
        start += n
    return cts


ad.deflinear(concatenate_p, _concatenate_transpose)


def concatenate(operands: Sequence[Any], dimension: int):
    """Join ``operands`` (same dtype and rank) along ``dimension``.

    Example::

        >>> lax.concatenate([jnp.zeros(2), jnp.ones(1)], 0)
        Array([0., 0., 1.], dtype=float32)
    """
    operands = list(operands)
    if len(operands) == 1:
        return as_array(operands[0])
    return concatenate_p.bind(*operands, dimension=int(dimension))


# --- pad ----------------------------------------------------------------------------------

pad_p = core.Primitive("pad")


@pad_p.def_abstract_eval
def _pad_abstract_eval(operand, padding_value, *, padding_config):
    if padding_value.shape:
        raise core.shape_error(f"pad: padding_value must be a scalar, got shape {padding_value.shape}")
    tc.check_same_dtypes("pad", [operand, padding_value])
    if len(padding_config) != operand.ndim:
        raise core.shape_error(f"pad: padding_config {padding_config} must have one (low, high, "
                               f"interior) triple per operand dimension (shape {operand.shape})")
    out = []
    for (lo, hi, interior), n in zip(padding_config, operand.shape):
        if interior < 0:
            raise core.shape_error(f"pad: interior padding must be non-negative, got {padding_config}")
        size = lo + hi + n + max(n - 1, 0) * interior
        if size < 0:
            raise core.shape_error(f"pad: padding_config {padding_config} gives a negative size for "
                                   f"operand shape {operand.shape}")
        out.append(size)
    return operand.update(shape=out)


@pad_p.def_lowering
def _pad_lowering(ctx, operand, padding_value, *, padding_config):
    lo, hi, interior = ([list(t) for t in zip(*padding_config)] if padding_config
                        else ([], [], []))
    return ctx.emit(f"hlo.pad {operand}, {padding_value}, low = {lo}, high = {hi}, interior = "
                    f"{interior} : {ctx.type_in()}, {ctx.type_in(1)} -> {ctx.type_out()}")


def _pad_batch_rule(axis_size, args, dims, *, padding_config):
    (operand, value), (od, vd) = args, dims
    operand = batching.bdim_to_front(operand, od, axis_size)
    config = ((0, 0, 0), *padding_config)
    if vd is None:
        return pad_p.bind(operand, value, padding_config=config), 0
    # A per-example padding value: pad with anything, then select it where a mask is padding.
    aval = core.get_aval(operand)
    out = pad_p.bind(operand, ew.convert_element_type(0, aval.dtype), padding_config=config)
    ones = shape_ops.full(aval.shape, True, np.bool_)
    mask = pad_p.bind(ones, ew.convert_element_type(False, np.bool_), padding_config=config)
    shape = core.get_aval(out).shape
    fill = shape_ops.broadcast_in_dim(batching.moveaxis(value, vd, 0), shape, (0,))
    return ew.select(mask, out, fill), 0


batching.defrule(pad_p, _pad_batch_rule)




# Transpose rules (reverse mode): undo low/high (negated: cropped parts come back as zeros,
# padding is cut off), then a strided slice skips the interior padding. Every output element
# that is not a copy of an operand element is a copy of the padding value.
def _pad_transpose(ct, operand, padding_value, *, padding_config):
    ct_operand = ct_value = None
    if tr.is_undefined(operand) or tr.is_undefined(padding_value):
        n = len(padding_config)
        unpadded = pad_p.bind(ct, ew.const(ct, 0),
                              padding_config=tuple((-lo, -hi, 0) for lo, hi, _ in padding_config))
        shape = core.get_aval(unpadded).shape
        ct_operand = slice(unpadded, (0,) * n, shape, tuple(i + 1 for _, _, i in padding_config))
    if tr.is_undefined(padding_value):

        every = tuple(range(core.get_aval(ct).ndim))
        ct_value = ew.sub(reduce_sum(ct, every),
                          reduce_sum(ct_operand, tuple(range(core.get_aval(ct_operand).ndim))))
    return [ct_operand if tr.is_undefined(operand) else None, ct_value]


ad.deflinear(pad_p, _pad_transpose)


def pad(operand, padding_value, padding_config: Sequence[tuple[int, int, int]]):
    """Pad each dimension with ``(low, high, interior)`` copies of ``padding_value``; negative
    ``low``/``high`` crop.

    Example::

        >>> lax.pad(jnp.array([1, 2]), 0, [(1, 0, 1)])
        Array([0, 1, 0, 2], dtype=int32)
    """
    config = tuple(_ints("pad", "padding_config", c) for c in padding_config)
    if any(len(c) != 3 for c in config):
        raise core.shape_error(f"pad: padding_config must hold (low, high, interior) triples, "
                               f"got {padding_config}")
    return pad_p.bind(operand, padding_value, padding_config=config)


# --- rev ----------------------------------------------------------------------------------

rev_p = core.Primitive("rev")


@rev_p.def_abstract_eval
def _rev_abstract_eval(operand, *, dimensions):
    if len(set(dimensions)) != len(dimensions) or any(
            not 0 <= d < operand.ndim for d in dimensions):
        raise core.shape_error(f"rev: dimensions {dimensions} must be unique and in range for "
                               f"operand shape {operand.shape}")
    return operand


@rev_p.def_lowering
def _rev_lowering(ctx, operand, *, dimensions):
    return ctx.emit(f"hlo.reverse {operand}, dims = {list(dimensions)} : {ctx.type_in()}")


def _rev_batch_rule(axis_size, args, dims, *, dimensions):
    d = dims[0]
    return rev_p.bind(args[0], dimensions=tuple(batching.shifted(x, d) for x in dimensions)), d


batching.defrule(rev_p, _rev_batch_rule)


# Transpose rules (reverse mode): rev is its own transpose.
ad.deflinear(rev_p, tr.first_operand(
    lambda ct, operand, *, dimensions: rev_p.bind(ct, dimensions=dimensions)))


def rev(operand, dimensions: Sequence[int]):
    """Reverse the element order along ``dimensions``."""
    dims = _ints("rev", "dimensions", dimensions)
    if not dims:
        return as_array(operand)
    return rev_p.bind(operand, dimensions=dims)


# --- gather / scatter dimension numbers and modes ---------------------------------------------


class GatherDimensionNumbers(NamedTuple):
    """How ``gather`` maps index vectors and slices to operand and result dimensions
    (see docs/hlo-dialect.md#gather). Batching dims are rewritten as collapsed dims indexed by an
    iota column before the primitive is bound."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How ``scatter`` maps update windows and index vectors to operand dimensions
    (see docs/hlo-dialect.md#scatter). Batching dims are rewritten as inserted window dims indexed
    by an iota column before the primitive is bound."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    """What out-of-bounds gather/scatter indices do.

    ``CLIP``: clamp indices into range. ``FILL_OR_DROP`` (the default): gathers of
    out-of-bounds windows return ``fill_value``; scatters of them are skipped.
    ``PROMISE_IN_BOUNDS``: the caller promises indices are in bounds (gather clamps,
    scatter skips).
    """

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s) -> "GatherScatterMode":
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise core.value_error(f'Unknown gather mode "{s}"')


def _dnums(name, dnums, cls, fields):
    if isinstance(dnums, dict):
        dnums = cls(**dnums)
    dnums = cls(*[tuple(int(v) for v in getattr(dnums, f)) for f in cls._fields])
    return dnums


def _unbatch(name, dn, operand, indices, ivd):
    """Rewrite operand/index batching dims as ordinary ones: for each pair, an iota column
    counting along the indices' batching dim is appended to every index vector and mapped to
    the operand's batching dim, which becomes a collapsed/inserted dim (slice size 1).

    Returns ``(indices, ivd, collapsed, index_map)`` with the new collapsed (or inserted) dims
    and the extended start_index_map (or scatter_dims_to_operand_dims)."""
    obd, ibd = dn[3], dn[4]
    oaval, iaval = core.get_aval(operand), core.get_aval(indices)
    if len(obd) != len(ibd):
        raise core.shape_error(f"{name}: operand batching dims {obd} and indices batching dims "
                               f"{ibd} must have the same length")
    _check_sorted_unique(name, "operand_batching_dims", obd, oaval.ndim)
    if len(set(ibd)) != len(ibd) or any(not 0 <= d < iaval.ndim or d == ivd for d in ibd):
        raise core.shape_error(f"{name}: indices batching dims {ibd} must be unique, in range "
                               f"and not the index vector dim {ivd}")
    if set(obd) & (set(dn[1]) | set(dn[2])):
        raise core.shape_error(f"{name}: operand batching dims {obd} must not appear in "
                               f"{dn._fields[1]} {dn[1]} or {dn._fields[2]} {dn[2]}")
    for o, i in zip(obd, ibd):
        if oaval.shape[o] != iaval.shape[i]:
            raise core.shape_error(f"{name}: operand batching dim {o} (size {oaval.shape[o]}) "
                                   f"and indices batching dim {i} (size {iaval.shape[i]}) "
                                   f"must have the same size")
    if ivd == iaval.ndim:
        indices = shape_ops.expand_dims(indices, (iaval.ndim,))
        iaval = core.get_aval(indices)
    shape = list(iaval.shape)
    shape[ivd] = 1
    cols = [shape_ops.broadcasted_iota(iaval.dtype, shape, i) for i in ibd]
    indices = concatenate_p.bind(indices, *cols, dimension=ivd)
    return indices, ivd, tuple(sorted(set(dn[1]) | set(obd))), tuple(dn[2]) + tuple(obd)


def _check_sorted_unique(name, what, dims, bound):
    if list(dims) != sorted(set(dims)) or any(not 0 <= d < bound for d in dims):
        raise core.shape_error(f"{name}: {what} {dims} must be sorted, unique and in [0, {bound})")


# --- gather ---------------------------------------------------------------------------------

gather_p = core.Primitive("gather")


def _batch_shape(indices, index_vector_dim):
    return tuple(d for i, d in enumerate(indices.shape) if i != index_vector_dim)


@gather_p.def_abstract_eval
def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes, index_vector_dim):
    dn = dimension_numbers
    _check_int_index("gather", indices)
    if not 0 <= index_vector_dim <= indices.ndim:
        raise core.shape_error(f"gather: index_vector_dim {index_vector_dim} is out of range for "
                               f"indices of shape {indices.shape}")
    nvec = indices.shape[index_vector_dim] if index_vector_dim < indices.ndim else 1
    if len(dn.start_index_map) != nvec or len(set(dn.start_index_map)) != nvec or any(
            not 0 <= d < operand.ndim for d in dn.start_index_map):
        raise core.shape_error(f"gather: start_index_map {dn.start_index_map} must have one unique, "
                               f"in-range entry per index vector entry ({nvec})")
    if len(slice_sizes) != operand.ndim or any(
            not 0 <= s <= n for s, n in zip(slice_sizes, operand.shape)):
        raise core.shape_error(f"gather: slice_sizes {slice_sizes} must have one entry per operand "
                               f"dimension, each at most its size {operand.shape}")
    _check_sorted_unique("gather", "collapsed_slice_dims", dn.collapsed_slice_dims, operand.ndim)
    if any(slice_sizes[d] > 1 for d in dn.collapsed_slice_dims):
        raise core.shape_error(f"gather: collapsed_slice_dims {dn.collapsed_slice_dims} must have "
                               f"slice size 0 or 1, got slice_sizes {slice_sizes}")
    batch = _batch_shape(indices, index_vector_dim)
    window = [s for d, s in enumerate(slice_sizes) if d not in dn.collapsed_slice_dims]
    rank = len(batch) + len(window)
    _check_sorted_unique("gather", "offset_dims", dn.offset_dims, rank)
    if len(dn.offset_dims) != len(window):
        raise core.shape_error(f"gather: offset_dims {dn.offset_dims} must have one entry per "
                               f"slice dimension that is not collapsed ({len(window)})")
    out, b, w = [], iter(batch), iter(window)
    for i in range(rank):
        out.append(next(w) if i in dn.offset_dims else next(b))
    return operand.update(shape=out)


@gather_p.def_lowering
def _gather_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes, index_vector_dim):
    dn = dimension_numbers
    return ctx.emit(
        f"hlo.gather {operand}[{indices}], offset_dims = {list(dn.offset_dims)}, "
        f"collapsed_slice_dims = {list(dn.collapsed_slice_dims)}, start_index_map = "
        f"{list(dn.start_index_map)}, index_vector_dim = {index_vector_dim}, slice_sizes = "
        f"{list(slice_sizes)} : {ctx.type_in()}[{ctx.type_in(1)}] -> {ctx.type_out()}")


def _append_iota_index(indices, index_vector_dim, axis_size):
    """Indices batched at 0 with the example number prepended to each index vector."""
    iaval = core.get_aval(indices)
    if index_vector_dim == iaval.ndim:
        indices = shape_ops.expand_dims(indices, (iaval.ndim,))
        iaval = core.get_aval(indices)
    shape = list(iaval.shape)
    shape[index_vector_dim] = 1
    counter = shape_ops.broadcasted_iota(iaval.dtype, shape, 0)
    return concatenate_p.bind(counter, indices, dimension=index_vector_dim), index_vector_dim


def _gather_batch_rule(axis_size, args, dims, *, dimension_numbers, slice_sizes,
                       index_vector_dim):
    (operand, indices), (od, idim) = args, dims
    dn = dimension_numbers
    up = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
    if idim is None:  # the batch axis is a window dimension of every slice
        operand = batching.moveaxis(operand, od, 0)
        dn = GatherDimensionNumbers(offset_dims=(0, *up(dn.offset_dims)),
                                    collapsed_slice_dims=up(dn.collapsed_slice_dims),
                                    start_index_map=up(dn.start_index_map))
        return gather_p.bind(operand, indices, dimension_numbers=dn,
                             slice_sizes=(axis_size, *slice_sizes),
                             index_vector_dim=index_vector_dim), 0
    indices = batching.moveaxis(indices, idim, 0)
    if od is None:  # the batch axis is a batch dimension of the indices
        dn = dn._replace(offset_dims=up(dn.offset_dims))
        return gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes,
                             index_vector_dim=index_vector_dim + 1), 0
    # Both batched: index the operand's batch axis with the example number.
    operand = batching.moveaxis(operand, od, 0)
    indices, ivd = _append_iota_index(indices, index_vector_dim + 1, axis_size)
    dn = GatherDimensionNumbers(offset_dims=up(dn.offset_dims),
                                collapsed_slice_dims=(0, *up(dn.collapsed_slice_dims)),
                                start_index_map=(0, *up(dn.start_index_map)))
    return gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=(1, *slice_sizes),
                         index_vector_dim=ivd), 0


batching.defrule(gather_p, _gather_batch_rule)


def _default_fill(dtype):
    if dtypes.is_complex(dtype):
        return complex(np.nan, np.nan)
    if dtypes.is_float(dtype):
        return np.nan
    if dtypes.is_bool(dtype):
        return True
    info = np.iinfo(dtype)
    return info.min if dtypes.is_signed_int(dtype) else info.max


def _in_bounds_mask(indices, index_vector_dim, bounds):
    """bool[batch]: every entry of the index vector ``v`` satisfies ``0 <= v[k] <= bounds[k]``."""
    iaval = core.get_aval(indices)
    if index_vector_dim == iaval.ndim:
        indices = shape_ops.expand_dims(indices, (iaval.ndim,))
        iaval = core.get_aval(indices)
    shape = [1] * iaval.ndim
    shape[index_vector_dim] = len(bounds)
    upper = np.asarray(bounds, dtype=iaval.dtype).reshape(shape)
    ok = ew.le(indices, shape_ops.broadcast_to_rank(as_array(upper), iaval.shape))
    if dtypes.is_signed_int(iaval.dtype):
        ok = ew.bitwise_and(ok, ew.ge(indices, ew.convert_element_type(0, iaval.dtype)))

    return reduce_and(ok, (index_vector_dim,))




# Transpose rules (reverse mode): gather_p clamps its starts while scatter skips
# out-of-bounds windows, so the starts are clamped here before scatter-adding ct into zeros
# (repeated starts accumulate). CLIP/FILL_OR_DROP are ordinary primitives around gather_p and
# transpose on their own.
def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes, index_vector_dim):
    if tr.is_undefined(indices):
        raise AssertionError("gather is not linear in its indices")
    dn, aval = dimension_numbers, operand.aval
    zeros = ad_util.zeros_like_aval(aval.strip_weak_type())
    if 0 in slice_sizes or 0 in core.get_aval(ct).shape:
        return [zeros, None]
    indices, ivd = _with_index_vector_dim(indices, index_vector_dim)
    bounds = [aval.shape[d] - slice_sizes[d] for d in dn.start_index_map]
    indices = _clamp_index_vectors(indices, ivd, bounds)
    sdn = ScatterDimensionNumbers(update_window_dims=dn.offset_dims,
                                  inserted_window_dims=dn.collapsed_slice_dims,
                                  scatter_dims_to_operand_dims=dn.start_index_map)
    return [scatter_add_p.bind(zeros, indices, ct, dimension_numbers=sdn, index_vector_dim=ivd),
            None]


def _with_index_vector_dim(indices, index_vector_dim):
    """Indices whose index vectors lie along an explicit dimension (``index_vector_dim`` equal
    to the rank means vectors of length 1)."""
    rank = core.get_aval(indices).ndim
    if index_vector_dim == rank:
        indices = shape_ops.expand_dims(indices, (rank,))
    return indices, index_vector_dim


ad.deflinear_in(gather_p, (0,), _gather_transpose)


def index_dtype_for_shape(shape) -> np.dtype:
    """The type jax's gathers and scatters convert indices into ``shape`` to (jax's
    ``int_dtype_for_shape``): int32 unless a dimension is beyond it, whatever the indices'
    own type, so that an index beyond int32 wraps around into it."""
    if any(d > np.iinfo(np.int32).max for d in shape) and dtypes.x64_enabled():
        return np.dtype(np.int64)
    return np.dtype(np.int32)


def gather(operand, start_indices, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Sequence[int], *, unique_indices: bool = False,
           indices_are_sorted: bool = False, mode=None, fill_value=None):
    """Gather slices of ``operand`` at the index vectors in the last dimension of
    ``start_indices`` (XLA/StableHLO gather).

    Example::

        >>> x = jnp.arange(6.).reshape(3, 2)
        >>> dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
        ...                                 start_index_map=(0,))
        >>> lax.gather(x, jnp.array([[2], [0]]), dn, (1, 2))
        Array([[4., 5.], [0., 1.]], dtype=float32)
    """
    dn = _dnums("gather", dimension_numbers, GatherDimensionNumbers,
                GatherDimensionNumbers._fields)
    sizes = _ints("gather", "slice_sizes", slice_sizes)
    mode = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    operand, start_indices = as_array(operand), as_array(start_indices)
    oaval, iaval = core.get_aval(operand), core.get_aval(start_indices)
    ivd = iaval.ndim - 1
    if iaval.ndim == 0:
        raise core.shape_error("gather: start_indices must have at least one dimension (the index "
                               "vector dimension is the last one)")
    if len(sizes) != oaval.ndim:
        raise core.shape_error(f"gather: slice_sizes {sizes} must have one entry per operand "
                               f"dimension (shape {oaval.shape})")
    if dn.operand_batching_dims or dn.start_indices_batching_dims:
        if any(sizes[d] != 1 for d in dn.operand_batching_dims if 0 <= d < oaval.ndim):
            raise core.shape_error(f"gather: slice_sizes {sizes} must be 1 at the operand "
                                   f"batching dims {dn.operand_batching_dims}")
        start_indices, ivd, collapsed, index_map = _unbatch("gather", dn, operand,
                                                            start_indices, ivd)
        dn = GatherDimensionNumbers(offset_dims=dn.offset_dims, collapsed_slice_dims=collapsed,
                                    start_index_map=index_map)
    bounds = [oaval.shape[d] - sizes[d] for d in dn.start_index_map]
    if mode == GatherScatterMode.CLIP:
        start_indices = _clamp_index_vectors(start_indices, ivd, bounds)
    if mode == GatherScatterMode.FILL_OR_DROP:
        # As jax: the bounds test is on the indices converted (wrapping) to the operand's
        # index type, so a uint64 2**63 is index 0, in bounds.
        start_indices = ew.convert_element_type(start_indices, index_dtype_for_shape(oaval.shape))
    out = gather_p.bind(operand, start_indices, dimension_numbers=dn, slice_sizes=sizes,
                        index_vector_dim=ivd)
    if mode != GatherScatterMode.FILL_OR_DROP:
        return out
    ok = _in_bounds_mask(start_indices, ivd, bounds)
    oshape = core.get_aval(out).shape
    batch_pos = [i for i in range(len(oshape)) if i not in dn.offset_dims]
    ok = shape_ops.broadcast_in_dim(ok, oshape, batch_pos)
    fill = _default_fill(oaval.dtype) if fill_value is None else fill_value
    fill = ew.convert_element_type(fill, oaval.dtype, oaval.weak_type)
    return ew.select(ok, out, shape_ops.broadcast_to_rank(fill, oshape))


def _clamp_index_vectors(indices, index_vector_dim, bounds):
    iaval = core.get_aval(indices)
    shape = [1] * iaval.ndim
    shape[index_vector_dim] = len(bounds)
    upper = as_array(np.asarray(bounds, dtype=iaval.dtype).reshape(shape))
    out = ew.min(indices, shape_ops.broadcast_to_rank(upper, iaval.shape))
    if dtypes.is_signed_int(iaval.dtype):
        out = ew.max(out, ew.convert_element_type(0, iaval.dtype))
    return out


# --- scatter ---------------------------------------------------------------------------------

_SCATTER_KINDS = ("set", "add", "mul", "min", "max")


def _scatter_primitive(kind: str) -> core.Primitive:
    prim = core.Primitive("scatter" if kind == "set" else f"scatter_{kind}")

    @prim.def_abstract_eval
    def _abstract_eval(operand, indices, updates, *, dimension_numbers, index_vector_dim):
        dn = dimension_numbers
        _check_int_index(prim.name, indices)
        tc.check_same_dtypes(prim.name, [operand, updates])
        if kind in ("add", "mul"):
            tc.check_dtype(prim.name, operand, tc.NUMERIC_OR_COMPLEX)
        elif kind in ("min", "max"):  # jax orders complex numbers lexicographically; not yet
            tc.check_dtype(prim.name, operand, tc.ANY)
        if not 0 <= index_vector_dim <= indices.ndim:
            raise core.shape_error(f"{prim.name}: index_vector_dim {index_vector_dim} is out of "
                                   f"range for indices of shape {indices.shape}")
        nvec = indices.shape[index_vector_dim] if index_vector_dim < indices.ndim else 1
        if len(dn.scatter_dims_to_operand_dims) != nvec or len(
                set(dn.scatter_dims_to_operand_dims)) != nvec or any(
                not 0 <= d < operand.ndim for d in dn.scatter_dims_to_operand_dims):
            raise core.shape_error(
                f"{prim.name}: scatter_dims_to_operand_dims {dn.scatter_dims_to_operand_dims} "
                f"must have one unique, in-range entry per index vector entry ({nvec})")
        _check_sorted_unique(prim.name, "update_window_dims", dn.update_window_dims, updates.ndim)
        _check_sorted_unique(prim.name, "inserted_window_dims", dn.inserted_window_dims,
                             operand.ndim)
        window_operand_dims = [d for d in range(operand.ndim) if d not in dn.inserted_window_dims]
        batch = _batch_shape(indices, index_vector_dim)
        upd_batch = tuple(d for i, d in enumerate(updates.shape) if i not in dn.update_window_dims)
        window = [updates.shape[i] for i in dn.update_window_dims]
        if (upd_batch != batch or len(window) != len(window_operand_dims) or any(
                w > operand.shape[d] for w, d in zip(window, window_operand_dims))):
            raise core.shape_error(
                f"{prim.name}: updates of shape {updates.shape} do not match operand shape "
                f"{operand.shape} and indices shape {indices.shape} under {dn}")
        return operand

    @prim.def_lowering
    def _lowering(ctx, operand, indices, updates, *, dimension_numbers, index_vector_dim):
        dn = dimension_numbers
        return ctx.emit(
            f"hlo.scatter {kind} {operand}[{indices}], {updates}, update_window_dims = "
            f"{list(dn.update_window_dims)}, inserted_window_dims = "
            f"{list(dn.inserted_window_dims)}, scatter_dims_to_operand_dims = "
            f"{list(dn.scatter_dims_to_operand_dims)}, index_vector_dim = {index_vector_dim} : "
            f"{ctx.type_in()}[{ctx.type_in(1)}], {ctx.type_in(2)}")

    batching.defrule(prim, lambda *a, **p: _scatter_batch_rule(prim, *a, **p))
    return prim


def _scatter_batch_rule(prim, axis_size, args, dims, *, dimension_numbers, index_vector_dim):
    (operand, indices, updates), (od, idim, ud) = args, dims
    dn = dimension_numbers
    up = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
    operand = batching.bdim_to_front(operand, od, axis_size)
    if idim is None:  # the batch axis is a window dimension of every update
        updates = batching.bdim_to_front(updates, ud, axis_size)
        dn = ScatterDimensionNumbers(
            update_window_dims=(0, *up(dn.update_window_dims)),
            inserted_window_dims=up(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=up(dn.scatter_dims_to_operand_dims))
        return prim.bind(operand, indices, updates, dimension_numbers=dn,
                         index_vector_dim=index_vector_dim), 0
    # Per-example indices: scatter into the operand's batch axis at the example number.
    indices, ivd = _append_iota_index(batching.moveaxis(indices, idim, 0), index_vector_dim + 1,
                                      axis_size)
    updates = batching.bdim_to_front(updates, ud, axis_size)
    dn = ScatterDimensionNumbers(
        update_window_dims=up(dn.update_window_dims),
        inserted_window_dims=(0, *up(dn.inserted_window_dims)),
        scatter_dims_to_operand_dims=(0, *up(dn.scatter_dims_to_operand_dims)))
    return prim.bind(operand, indices, updates, dimension_numbers=dn, index_vector_dim=ivd), 0


scatter_p, scatter_add_p, scatter_mul_p, scatter_min_p, scatter_max_p = (
    _scatter_primitive(k) for k in _SCATTER_KINDS)
_SCATTER_PRIMS = dict(zip(_SCATTER_KINDS, (scatter_p, scatter_add_p, scatter_mul_p,
                                           scatter_min_p, scatter_max_p)))


# Transpose rules (reverse mode) of scatter_add: the operand's cotangent is ct itself; each
# update window's is the window of ct it was added to, or zero for a window the scatter
# skipped for lying (partly) out of bounds: gather alone would clamp it instead.
def _scatter_add_transpose(ct, operand, indices, updates, *, dimension_numbers,
                           index_vector_dim):
    if tr.is_undefined(indices):
        raise AssertionError("scatter_add is not linear in its indices")
    dn = dimension_numbers
    ct_updates = None
    if tr.is_undefined(updates):
        uaval, shape = updates.aval, core.get_aval(ct).shape
        window = iter(uaval.shape[d] for d in dn.update_window_dims)
        sizes = tuple(1 if d in dn.inserted_window_dims else next(window)
                      for d in range(len(shape)))
        gdn = GatherDimensionNumbers(offset_dims=dn.update_window_dims,
                                     collapsed_slice_dims=dn.inserted_window_dims,
                                     start_index_map=dn.scatter_dims_to_operand_dims)
        if uaval.size == 0:
            ct_updates = ad_util.zeros_like_aval(uaval.strip_weak_type())
        else:
            indices, ivd = _with_index_vector_dim(indices, index_vector_dim)
            windows = gather_p.bind(ct, indices, dimension_numbers=gdn, slice_sizes=sizes,
                                    index_vector_dim=ivd)
            bounds = [shape[d] - sizes[d] for d in dn.scatter_dims_to_operand_dims]
            batch = [i for i in range(uaval.ndim) if i not in dn.update_window_dims]
            ok = shape_ops.broadcast_in_dim(_in_bounds_mask(indices, ivd, bounds), uaval.shape,
                                            batch)
            ct_updates = ew.select(ok, windows, shape_ops.full(uaval.shape, 0, uaval.dtype))
    return [ct if tr.is_undefined(operand) else None, None, ct_updates]




def _scatter(kind, operand, scatter_indices, updates, dimension_numbers, mode,
             index_vector_dim=None):
    dn = _dnums(f"scatter_{kind}", dimension_numbers, ScatterDimensionNumbers,
                ScatterDimensionNumbers._fields)
    mode = GatherScatterMode.from_any(mode)
    operand, scatter_indices = as_array(operand), as_array(scatter_indices)
    oaval, iaval = core.get_aval(operand), core.get_aval(scatter_indices)
    ivd = iaval.ndim - 1 if index_vector_dim is None else index_vector_dim
    if dn.operand_batching_dims or dn.scatter_indices_batching_dims:
        scatter_indices, ivd, inserted, index_map = _unbatch(f"scatter_{kind}", dn, operand,
                                                             scatter_indices, ivd)
        dn = ScatterDimensionNumbers(update_window_dims=dn.update_window_dims,
                                     inserted_window_dims=inserted,
                                     scatter_dims_to_operand_dims=index_map)
    if mode == GatherScatterMode.CLIP:
        uaval = core.get_aval(updates)
        window_operand_dims = [d for d in range(oaval.ndim) if d not in dn.inserted_window_dims]
        size = dict.fromkeys(range(oaval.ndim), 1)
        for i, d in zip(dn.update_window_dims, window_operand_dims):
            size[d] = uaval.shape[i]
        bounds = [oaval.shape[d] - size[d] for d in dn.scatter_dims_to_operand_dims]
        scatter_indices = _clamp_index_vectors(scatter_indices, ivd, bounds)
    return _SCATTER_PRIMS[kind].bind(operand, scatter_indices, updates, dimension_numbers=dn,
                                     index_vector_dim=ivd)


def _scatter_fn(kind: str, doc: str) -> Callable:
    def fn(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
           indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
        return _scatter(kind, operand, scatter_indices, updates, dimension_numbers, mode)

    fn.__name__ = "scatter" if kind == "set" else f"scatter_{kind}"
    fn.__doc__ = doc
    return fn


scatter = _scatter_fn("set", """Write ``updates`` windows into ``operand`` at the index vectors
in the last dimension of ``scatter_indices`` (later duplicates win; out-of-bounds windows are
dropped unless ``mode="clip"``).

Example::

    >>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                  scatter_dims_to_operand_dims=(0,))
    >>> lax.scatter(jnp.zeros(3), jnp.array([[2]]), jnp.array([5.]), dn)
    Array([0., 0., 5.], dtype=float32)
""")
scatter_add = _scatter_fn("add", "Like ``scatter``, adding the updates (duplicates accumulate).")
scatter_mul = _scatter_fn("mul", "Like ``scatter``, multiplying by the updates.")
scatter_min = _scatter_fn("min", "Like ``scatter``, taking the minimum with the updates.")
scatter_max = _scatter_fn("max", "Like ``scatter``, taking the maximum with the updates.")

ad.deflinear_in(scatter_add_p, (0, 2), _scatter_add_transpose)


# --- scatter set/mul/min/max: JVPs, and the transpose of scatter (set) ---------------------
# Each JVP is built from ops linear in the tangents (scatter_add, gather, select, mul by
# primal values) so that reverse mode can transpose it. Scatter (set) is itself linear in
# (operand, updates) jointly: its tangent is the scatter of the tangents, the same update
# winning as in the primal.


def _landing_windows(x, indices, updates_aval, dn, index_vector_dim):
    """The window of ``x`` that each update element of a scatter lands on (a gather with the
    scatter's dimension numbers). Windows the scatter skips are clamped in instead."""
    shape = core.get_aval(x).shape
    window = iter(updates_aval.shape[d] for d in dn.update_window_dims)
    sizes = tuple(1 if d in dn.inserted_window_dims else next(window) for d in range(len(shape)))
    gdn = GatherDimensionNumbers(offset_dims=dn.update_window_dims,
                                 collapsed_slice_dims=dn.inserted_window_dims,
                                 start_index_map=dn.scatter_dims_to_operand_dims)
    indices, ivd = _with_index_vector_dim(indices, index_vector_dim)
    return gather_p.bind(x, indices, dimension_numbers=gdn, slice_sizes=sizes,
                         index_vector_dim=ivd)


def _scatter_survivors(indices, operand_aval, updates_aval, dn, index_vector_dim):
    """bool[updates]: the update elements a scatter (set) leaves in its result (the winner
    of duplicates; none of a skipped window). Scatters unique ids and reads back which stayed."""
    ids = ew.add(shape_ops.reshape(shape_ops.iota(np.int32, updates_aval.size),
                                   updates_aval.shape), ew.convert_element_type(1, np.int32))
    board = scatter_p.bind(shape_ops.full(operand_aval.shape, 0, np.int32), indices, ids,
                           dimension_numbers=dn, index_vector_dim=index_vector_dim)
    return ew.eq(_landing_windows(board, indices, updates_aval, dn, index_vector_dim), ids)


def _scatter_transpose(ct, operand, indices, updates, *, dimension_numbers, index_vector_dim):
    if tr.is_undefined(indices):
        raise AssertionError("scatter is not linear in its indices")
    dn, ivd = dimension_numbers, index_vector_dim
    uaval = updates.aval if tr.is_undefined(updates) else core.get_aval(updates)
    uzeros = shape_ops.full(uaval.shape, 0, uaval.dtype)
    ct_operand = ct_updates = None
    if tr.is_undefined(operand):  # overwritten positions pass nothing back
        ct_operand = scatter_p.bind(ct, indices, uzeros, dimension_numbers=dn,
                                    index_vector_dim=ivd)
    if tr.is_undefined(updates):
        ct_updates = uzeros
        if uaval.size:
            survived = _scatter_survivors(indices, core.get_aval(ct), uaval, dn, ivd)
            ct_updates = ew.select(survived, _landing_windows(ct, indices, uaval, dn, ivd), uzeros)
    return [ct_operand, None, ct_updates]


def _scatter_mul_jvp(primals, tangents, *, dimension_numbers, index_vector_dim):
    # d out = tx * prod(y) + sum over updates u of ty_u * x * prod(other updates at u's spot).
    # An update alone at its spot has no others: its coefficient is x itself, exactly, whatever
    # y_u is (jax's rule, which requires unique indices). Where several land together the
    # product of the others divides out y_u, or, where y_u is 0, is the product of the nonzero
    # ones; it is 0 whenever another update there is 0.
    x, indices, y = primals
    tx, _, ty = tangents
    params = dict(dimension_numbers=dimension_numbers, index_vector_dim=index_vector_dim)
    out = scatter_mul_p.bind(x, indices, y, **params)
    aval, uaval = core.get_aval(x), core.get_aval(y)
    ones, zeros = shape_ops.full(aval.shape, 1, aval.dtype), ad_util.zeros_like_aval(aval)
    t_out = ad.Zero(aval.strip_weak_type())
    if not isinstance(tx, ad.Zero):
        t_out = ew.mul(tx, scatter_mul_p.bind(ones, indices, y, **params))
    if not isinstance(ty, ad.Zero) and uaval.size:
        def landing(v):
            return _landing_windows(v, indices, uaval, dimension_numbers, index_vector_dim)

        def count_there(counts):
            return landing(scatter_add_p.bind(zeros, indices, counts, **params))

        landed = count_there(shape_ops.full(uaval.shape, 1, aval.dtype))
        is_zero = ew.eq(y, ew.const(y, 0))
        zero_count = ew.convert_element_type(is_zero, aval.dtype)
        zeros_there = count_there(zero_count)
        y_nonzero = ew.select(is_zero, ew.const(y, 1), y)
        nonzero_prod = scatter_mul_p.bind(ones, indices, y_nonzero, **params)
        others = ew.select(ew.eq(ew.sub(zeros_there, zero_count), ew.const(y, 0)),
                           ew.div(landing(nonzero_prod), y_nonzero), ew.const(y, 0))
        others = ew.select(ew.eq(landed, ew.const(y, 1)), ew.const(y, 1), others)
        coef = ew.mul(landing(x), others)
        t_out = ad_util.add_any(t_out, scatter_add_p.bind(zeros, indices, ew.mul(ty, coef),
                                                          **params))
    return out, t_out


def _scatter_chooser_jvp(prim):
    # The tangent comes from whatever attains the result: the operand or updates equal to it
    # share it evenly when several do (as jax). Where no update lands the operand passes its
    # tangent through, even where it is NaN and so equals nothing.
    def rule(primals, tangents, *, dimension_numbers, index_vector_dim):
        x, indices, y = primals
        params = dict(dimension_numbers=dimension_numbers, index_vector_dim=index_vector_dim)
        out = prim.bind(x, indices, y, **params)
        aval, uaval = core.get_aval(x), core.get_aval(y)
        tx, ty = ad.instantiate(tangents[0]), ad.instantiate(tangents[2])
        if not uaval.size:
            return out, tx
        zeros = ad_util.zeros_like_aval(aval)
        landed = _landing_windows(out, indices, uaval, dimension_numbers, index_vector_dim)
        landings = scatter_add_p.bind(zeros, indices, shape_ops.full(uaval.shape, 1, uaval.dtype),
                                      **params)
        untouched = ew.eq(landings, ew.const(x, 0))
        update_wins = ew.eq(y, landed)
        operand_wins = ew.bitwise_or(ew.eq(x, out), untouched)
        count = ew.add(scatter_add_p.bind(zeros, indices,
                                          ew.convert_element_type(update_wins, aval.dtype),
                                          **params),
                       ew.convert_element_type(operand_wins, aval.dtype))
        share = ew.div(ew.const(x, 1), ew.max(count, ew.const(x, 1)))
        update_share = _landing_windows(share, indices, uaval, dimension_numbers,
                                        index_vector_dim)
        t_operand = ew.mul(tx, ew.select(operand_wins, share, ew.const(x, 0)))
        t_updates = ew.mul(ty, ew.select(update_wins, update_share, ew.const(y, 0)))
        return out, ew.add(t_operand, scatter_add_p.bind(zeros, indices, t_updates, **params))

    return rule


ad.deflinear_in(scatter_p, (0, 2), _scatter_transpose)
ad.defjvp_rule(scatter_mul_p, _scatter_mul_jvp)
ad.defjvp_rule(scatter_min_p, _scatter_chooser_jvp(scatter_min_p))
ad.defjvp_rule(scatter_max_p, _scatter_chooser_jvp(scatter_max_p))
