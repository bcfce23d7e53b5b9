"""Sorting: the ``sort`` primitive (hlo.sort) and lax.sort, sort_key_val, top_k.

Floats sort as jax.lax.sort does: ``-0.0 == 0.0`` and NaNs, of either
sign, last. Sorting is stable on every backend.

Example::

    >>> from numlir import lax
    >>> lax.sort_key_val(jnp.array([3., 1., 2.]), jnp.array([0, 1, 2]))
    (Array([1., 2., 3.], dtype=float32), Array([1, 2, 0], dtype=int32))
"""

from __future__ import annotations


import numpy as np

from numlir._src import ad, batching, core, dtypes
from numlir._src.lax import complex_ops
from numlir._src.lax.bits import bitcast_convert_type
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops, slicing
from numlir._src.lax import type_checks as tc

sort_p = core.Primitive("sort")
sort_p.multiple_results = True


@sort_p.def_abstract_eval
def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
    if not operands:
        raise core.value_error("lax.sort needs at least one operand")
    shapes = {a.shape for a in operands}
    if len(shapes) != 1:
        raise core.shape_error(f"lax.sort: operands must all have one shape, got {tc.fmt_shapes(operands)}")
    if operands[0].ndim == 0:
        raise core.shape_error("lax.sort: operands must have rank at least 1, got a scalar")
    if not 1 <= num_keys <= len(operands):
        raise core.value_error(f"lax.sort: num_keys={num_keys} must be between 1 and the number "
                               f"of operands ({len(operands)})")
    return list(operands)


@sort_p.def_lowering
def _sort_lowering(ctx, *operands, dimension, is_stable, num_keys):
    types = ", ".join(ctx.type_in(i) for i in range(len(operands)))
    stable = ", stable" if is_stable else ""
    op = f"hlo.sort({', '.join(operands)}) dim = {dimension}, num_keys = {num_keys}{stable} : {types}"
    return ctx.emit_results(op, len(operands))


def _sort_batch_rule(axis_size, args, dims, *, dimension, is_stable, num_keys):
    args = [batching.bdim_to_front(x, d, axis_size) for x, d in zip(args, dims)]
    outs = sort_p.bind(*args, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
    return outs, [0] * len(outs)


batching.defrule(sort_p, _sort_batch_rule)


def take_along_axis(x, indices, axis: int):
    """``x[..., indices[..., i, ...], ...]`` along ``axis``: indices (in bounds, x's shape)
    pick one position of ``axis`` per element, the other axes matching positionally."""

    ndim = core.get_aval(x).ndim
    others = tuple(d for d in range(ndim) if d != axis)
    dn = slicing.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                        start_index_map=(axis,), operand_batching_dims=others,
                                        start_indices_batching_dims=others)
    indices = shape_ops.expand_dims(indices, (ndim,))
    return slicing.gather(x, indices, dn, (1,) * ndim, mode="promise_in_bounds")


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    # The sort also carries an iota, which comes out as the permutation; tangents are then
    # gathered with it. A gather is linear in the tangent, so reverse mode can transpose it
    # (a sort of the tangents could not be).
    shape = core.get_aval(primals[0]).shape
    iota = shape_ops.broadcasted_iota(np.int32, shape, dimension)
    *outs, perm = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                              num_keys=num_keys)
    t_outs = [t if isinstance(t, ad.Zero) else take_along_axis(t, perm, dimension)
              for t in tangents]
    return outs, t_outs


ad.defjvp_rule(sort_p, _sort_jvp)


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """Sort ``operand`` (an array, or a sequence sorted by its first ``num_keys``) along ``dimension``.

    Example::

        keys, values = lax.sort((keys, values), num_keys=1)
    """
    single = not isinstance(operand, (tuple, list))
    operands = [operand] if single else list(operand)
    if not operands:
        raise core.value_error("lax.sort needs at least one operand")
    ndim = core.get_aval(operands[0]).ndim
    dimension = tc.canonical_axis("lax.sort", dimension, ndim) if ndim else dimension
    parts, num_keys = _split_complex(operands, int(num_keys))
    outs = sort_p.bind(*parts, dimension=int(dimension), is_stable=bool(is_stable),
                       num_keys=num_keys)
    outs = _join_complex(operands, outs)
    return outs[0] if single else tuple(outs)


def _split_complex(operands, num_keys: int):
    """Each complex operand as its real and imaginary parts, so that a complex key orders
    lexicographically (real part first), as jax's; and the number of keys that makes."""
    parts, keys = [], num_keys
    for i, x in enumerate(operands):
        split = dtypes.is_complex(core.get_aval(x).dtype)
        parts += [complex_ops.real(x), complex_ops.imag(x)] if split else [x]
        keys += split and i < num_keys
    return parts, keys


def _join_complex(operands, outs):
    outs, joined = iter(outs), []
    for x in operands:
        first = next(outs)
        joined.append(complex_ops.complex(first, next(outs))
                      if dtypes.is_complex(core.get_aval(x).dtype) else first)
    return joined


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """Sort ``keys`` along ``dimension`` and permute ``values`` alike."""
    return sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)


def descending_keys(x) -> list:
    """Sort keys whose ascending order is ``x``'s descending order, NaNs first (as jax)."""

    dtype = core.get_aval(x).dtype
    if dtype == np.bool_ or np.issubdtype(dtype, np.integer):
        return [ew.bitwise_not(x)]
    is_number = ew.eq(x, x)  # False (first) for NaN
    return [is_number, ew.neg(x)]


def _total_order_descending(x):
    """An integer key whose ascending order is the IEEE total order of the floats ``x``,
    descending: +NaN, +inf, ..., +0, -0, ..., -inf, -NaN, as XLA's TopK ranks them (jax's
    sort, unlike top_k, keeps -0 == 0 and puts every NaN last)."""
    int_type = {2: np.int16, 4: np.int32, 8: np.int64}[core.get_aval(x).dtype.itemsize]
    i = bitcast_convert_type(x, int_type)
    magnitude_flipped = ew.bitwise_xor(i, ew.const(i, np.iinfo(int_type).max))
    ascending = ew.select(ew.lt(i, ew.const(i, 0)), magnitude_flipped, i)
    return ew.bitwise_not(ascending)


def top_k(operand, k: int):
    """The ``k`` largest entries along the last axis and their indices (ties: lower index
    first), floats in IEEE total order as jax's: NaN largest, ``+0 > -0``, -NaN smallest."""

    aval = core.get_aval(operand)
    k = int(k)
    if aval.ndim == 0:
        raise core.shape_error("lax.top_k: operand must have rank at least 1")
    if not 0 <= k <= aval.shape[-1]:
        raise core.value_error(f"lax.top_k: k={k} must be between 0 and the last axis size {aval.shape[-1]}")
    iota = shape_ops.broadcasted_iota(np.int32, aval.shape, aval.ndim - 1)
    keys = ([_total_order_descending(operand)] if dtypes.is_float(aval.dtype)
            else descending_keys(operand))
    *_, values, indices = sort((*keys, operand, iota), num_keys=len(keys))
    return (slicing.slice_in_dim(values, 0, k, axis=aval.ndim - 1),
            slicing.slice_in_dim(indices, 0, k, axis=aval.ndim - 1))
