"""Shape primitives: broadcast_in_dim, reshape, transpose, iota (+ helpers built on them)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from numlir._src import ad, ad_util, batching, core, dtypes, shapes
from numlir._src import transpose as tr
from numlir._src.array import as_array
from numlir._src.lax import type_checks as tc
from numlir._src.lax.elementwise import convert_element_type


def _check_shape(name: str, shape) -> tuple[int, ...]:
    return shapes.canonicalize_shape(shape, name)


# --- broadcast_in_dim -----------------------------------------------------------------

broadcast_in_dim_p = core.Primitive("broadcast_in_dim")


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(operand, *, shape, broadcast_dimensions):
    dims = broadcast_dimensions
    if len(dims) != operand.ndim:
        raise core.shape_error(
            f"broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got "
            f"broadcast_dimensions {dims} for operand ndim {operand.ndim}"
        )
    if any(not 0 <= d < len(shape) for d in dims) or any(a >= b for a, b in zip(dims, dims[1:])):
        raise core.shape_error(
            f"broadcast_in_dim broadcast_dimensions must be strictly increasing and in range for "
            f"result rank {len(shape)}; got {dims}"
        )
    for i, d in enumerate(dims):
        if operand.shape[i] not in (1, shape[d]):
            raise core.shape_error(
                f"broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
                f"corresponding dimensions in the target broadcast shape; got operand of shape "
                f"{operand.shape}, target broadcast shape {shape}, broadcast_dimensions {dims}"
            )
    return operand.update(shape=shape)


@broadcast_in_dim_p.def_lowering
def _broadcast_in_dim_lowering(ctx, operand, *, shape, broadcast_dimensions):
    return ctx.emit(
        f"hlo.broadcast_in_dim {operand}, dims = {list(broadcast_dimensions)} : "
        f"{ctx.type_in()} -> {ctx.type_out()}"
    )


def _broadcast_in_dim_batch_rule(axis_size, args, dims, *, shape, broadcast_dimensions):
    x = batching.moveaxis(args[0], dims[0], 0)
    return broadcast_in_dim_p.bind(x, shape=(axis_size, *shape), broadcast_dimensions=(
        0, *(d + 1 for d in broadcast_dimensions))), 0


batching.defrule(broadcast_in_dim_p, _broadcast_in_dim_batch_rule)


def broadcast_in_dim(operand, shape: Sequence[int], broadcast_dimensions: Sequence[int]):
    """Broadcast ``operand`` to ``shape``; operand dim i maps to result dim ``broadcast_dimensions[i]``."""
    shape = _check_shape("broadcast_in_dim", shape)
    dims = tuple(int(d) for d in broadcast_dimensions)
    aval = core.get_aval(operand)
    if aval.shape == shape and dims == tuple(range(len(shape))):
        return as_array(operand)
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=dims)


def broadcast(operand, sizes: Sequence[int]):
    """Add leading dimensions of ``sizes`` to ``operand``."""
    sizes = tuple(sizes)
    aval = core.get_aval(operand)
    return broadcast_in_dim(operand, sizes + aval.shape,
                            tuple(range(len(sizes), len(sizes) + aval.ndim)))


def broadcast_to_rank(operand, shape: Sequence[int]):
    """NumPy-style (right-aligned) broadcast of ``operand`` to ``shape``."""
    shape = tuple(shape)
    aval = core.get_aval(operand)
    return broadcast_in_dim(operand, shape, tuple(range(len(shape) - aval.ndim, len(shape))))


def full(shape: Sequence[int], fill_value, dtype=None):
    """An array of ``shape`` filled with ``fill_value``."""
    shape = _check_shape("full", shape)
    weak = dtype is None and dtypes.is_weak_python_scalar(fill_value)
    if dtype is None:
        dtype = core.get_aval(fill_value).dtype
    if np.ndim(fill_value) if not isinstance(fill_value, core.Tracer) else fill_value.ndim:
        raise core.shape_error(f"full: fill_value must be a scalar, got shape {np.shape(fill_value)}")
    value = convert_element_type(fill_value, dtype, weak_type=weak)
    return broadcast_in_dim_p.bind(value, shape=shape, broadcast_dimensions=())


# --- reshape -----------------------------------------------------------------------------

reshape_p = core.Primitive("reshape")


@reshape_p.def_abstract_eval
def _reshape_abstract_eval(operand, *, new_sizes, dimensions):
    if int(np.prod(new_sizes, dtype=np.int64)) != operand.size:
        raise core.shape_error(
            f"reshape total size must be unchanged, got new_sizes {new_sizes} for shape {operand.shape}"
        )
    return operand.update(shape=new_sizes)


@reshape_p.def_lowering
def _reshape_lowering(ctx, operand, *, new_sizes, dimensions):
    return ctx.emit(f"hlo.reshape {operand} : {ctx.type_in()} -> {ctx.type_out()}")


def _reshape_batch_rule(axis_size, args, dims, *, new_sizes, dimensions):
    x = batching.moveaxis(args[0], dims[0], 0)
    return reshape_p.bind(x, new_sizes=(axis_size, *new_sizes), dimensions=None), 0


batching.defrule(reshape_p, _reshape_batch_rule)


def reshape(operand, new_sizes: Sequence[int], dimensions=None):
    """Row-major reshape to ``new_sizes`` (``dimensions``, a transpose applied first, is optional)."""
    new_sizes = _check_shape("reshape", new_sizes)
    if dimensions is not None:
        operand = transpose(operand, dimensions)
    if core.get_aval(operand).shape == new_sizes:
        return as_array(operand)
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=None)


def expand_dims(operand, dimensions: Sequence[int]):
    """Insert size-1 dimensions at ``dimensions`` (positions in the result)."""
    aval = core.get_aval(operand)
    ndim_out = aval.ndim + len(dimensions)
    dims = tc.canonical_axes("expand_dims", dimensions, ndim_out)
    shape = list(aval.shape)
    for d in dims:
        shape.insert(d, 1)
    return reshape(operand, shape)


def squeeze(operand, dimensions: Sequence[int]):
    """Remove the size-1 ``dimensions``."""
    aval = core.get_aval(operand)
    dims = tc.canonical_axes("squeeze", dimensions, aval.ndim)
    for d in dims:
        if aval.shape[d] != 1:
            raise core.value_error(
                f"squeeze: cannot select an axis to squeeze out which has size not equal to one, "
                f"got shape={aval.shape} and dimensions={tuple(dimensions)}"
            )
    return reshape(operand, [s for i, s in enumerate(aval.shape) if i not in dims])


# --- transpose ---------------------------------------------------------------------------

transpose_p = core.Primitive("transpose")


@transpose_p.def_abstract_eval
def _transpose_abstract_eval(operand, *, permutation):
    if sorted(permutation) != list(range(operand.ndim)):
        raise core.shape_error(
            f"transpose permutation isn't a permutation of operand dimensions, got permutation "
            f"{permutation} for operand shape {operand.shape}"
        )
    return operand.update(shape=tuple(operand.shape[p] for p in permutation))


@transpose_p.def_lowering
def _transpose_lowering(ctx, operand, *, permutation):
    return ctx.emit(
        f"hlo.transpose {operand}, dims = {list(permutation)} : {ctx.type_in()} -> {ctx.type_out()}"
    )


def _transpose_batch_rule(axis_size, args, dims, *, permutation):
    x = batching.moveaxis(args[0], dims[0], 0)
    return transpose_p.bind(x, permutation=(0, *(p + 1 for p in permutation))), 0


batching.defrule(transpose_p, _transpose_batch_rule)


def transpose(operand, permutation: Sequence[int]):
    """Permute dimensions: result dim i is operand dim ``permutation[i]``."""
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(permutation))) == tuple(range(core.get_aval(operand).ndim)):
        return as_array(operand)
    return transpose_p.bind(operand, permutation=permutation)


# --- iota ------------------------------------------------------------------------------------

iota_p = core.Primitive("iota")


@iota_p.def_abstract_eval
def _iota_abstract_eval(*, dtype, shape, dimension):
    if not 0 <= dimension < len(shape):
        raise core.shape_error(f"iota dimension {dimension} is out of range for shape {shape}")
    if not (dtypes.is_int(dtype) or dtypes.is_float(dtype)):
        raise core.shape_error(f"iota does not accept dtype {np.dtype(dtype).name}")
    return core.ShapedArray(shape, dtype, False)


@iota_p.def_lowering
def _iota_lowering(ctx, *, dtype, shape, dimension):
    return ctx.emit(f"hlo.iota dim = {dimension} : {ctx.type_out()}")


def iota(dtype, size: int):
    """``[0, 1, ..., size-1]`` in ``dtype``."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape: Sequence[int], dimension: int):
    """An array of ``shape`` whose values count along ``dimension``."""
    shape = _check_shape("iota", shape)
    return iota_p.bind(dtype=dtypes.canonicalize_dtype(dtype), shape=shape, dimension=int(dimension))


# --- Transpose rules (reverse mode) ------------------------------------------------------------


def _broadcast_in_dim_transpose(ct, operand, *, shape, broadcast_dimensions):
    in_shape = operand.aval.shape
    summed = tuple(i for i in range(len(shape)) if i not in broadcast_dimensions) + tuple(
        d for i, d in enumerate(broadcast_dimensions) if in_shape[i] == 1 and shape[d] != 1)
    summed = tuple(sorted(summed))
    # reduce_sum (reduction.py) is built on this module, so it comes through ad_util.
    out = ad_util.reduce_sum(ct, summed) if summed else ct
    return reshape(out, in_shape) if core.get_aval(out).shape != in_shape else out


ad.deflinear(broadcast_in_dim_p, tr.first_operand(_broadcast_in_dim_transpose))
ad.deflinear(reshape_p, tr.first_operand(lambda ct, x, **_: reshape(ct, x.aval.shape)))
ad.deflinear(transpose_p, tr.first_operand(lambda ct, x, *, permutation: transpose(
    ct, tuple(int(i) for i in np.argsort(permutation)))))

ad_util.register_array_op("full", full)
ad_util.register_array_op("broadcast_in_dim", broadcast_in_dim)
ad_util.register_array_op("reshape", reshape)
ad_util.register_array_op("transpose", transpose)
