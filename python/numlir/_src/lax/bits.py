"""Integer bit primitives: shifts, population count, leading zeros, and bitcasts.

Same conventions as ``elementwise.py`` (strict dtypes, lax broadcasting for binary ops);
none has a tangent::

    >>> import numlir.lax as lax, numlir.numpy as jnp
    >>> lax.shift_right_logical(jnp.uint32(0x80000000), jnp.uint32(31))
    Array(1, dtype=uint32)
"""

from __future__ import annotations

import numpy as np

from numlir._src import ad, batching, core, dtypes
from numlir._src.lax import shape_ops, slicing
from numlir._src.lax import type_checks as tc
from numlir._src.lax.elementwise import _binary, _unary, bitwise_or, convert_element_type

# --- Integer bit ops ------------------------------------------------------------------

shift_left_p = _binary("shift_left", "shift_left", (tc.INT,))
shift_right_logical_p = _binary("shift_right_logical", "shift_right_logical", (tc.INT,))
shift_right_arithmetic_p = _binary("shift_right_arithmetic", "shift_right_arithmetic", (tc.INT,))
population_count_p = _unary("population_count", "popcnt", (tc.INT,))
clz_p = _unary("clz", "count_leading_zeros", (tc.INT,))


def shift_left(x, y):
    """Elementwise ``x << y``; shifting by at least the bit width gives 0."""
    return shift_left_p.bind(x, y)


def shift_right_logical(x, y):
    """Elementwise logical right shift (zero fill); at least the bit width gives 0."""
    return shift_right_logical_p.bind(x, y)


def shift_right_arithmetic(x, y):
    """Elementwise arithmetic right shift (sign fill); at least the bit width gives all sign bits."""
    return shift_right_arithmetic_p.bind(x, y)


def population_count(x):
    """Elementwise number of set bits."""
    return population_count_p.bind(x)


def clz(x):
    """Elementwise number of leading zero bits (the bit width for 0)."""
    return clz_p.bind(x)


for _p in (shift_left_p, shift_right_logical_p, shift_right_arithmetic_p, population_count_p,
           clz_p):
    ad.defzero(_p)


# --- bitcast_convert_type --------------------------------------------------------------

bitcast_convert_type_p = core.Primitive("bitcast_convert_type")


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract_eval(operand, *, new_dtype):
    if operand.dtype.itemsize != new_dtype.itemsize or dtypes.is_bool(
        operand.dtype
    ) != dtypes.is_bool(new_dtype):
        raise core.shape_error(
            f"bitcast_convert_type needs dtypes of one bit width, got {operand.dtype.name} "
            f"and {new_dtype.name}"
        )
    return core.ShapedArray(operand.shape, new_dtype)


@bitcast_convert_type_p.def_lowering
def _bitcast_lowering(ctx, operand, *, new_dtype):
    if ctx.avals_in[0].dtype == new_dtype:
        return operand
    return ctx.emit(f"hlo.bitcast_convert {operand} : {ctx.type_in()} -> {ctx.type_out()}")


batching.defvectorized(bitcast_convert_type_p)
ad.defzero(bitcast_convert_type_p)


def _unsigned(itemsize: int) -> np.dtype:
    return np.dtype(f"uint{8 * itemsize}")


def _split_bits(operand, old, new):
    """Each element as the ``old.itemsize // new.itemsize`` narrower words it is made of,
    least significant first (the little-endian memory order), along a new last axis."""
    wide = bitcast_convert_type_p.bind(operand, new_dtype=_unsigned(old.itemsize))
    shape = core.get_aval(wide).shape
    words = []
    for j in range(old.itemsize // new.itemsize):
        shift = np.array(8 * new.itemsize * j, _unsigned(old.itemsize))
        word = convert_element_type(shift_right_logical(wide, shift), _unsigned(new.itemsize))
        words.append(shape_ops.broadcast_in_dim(word, (*shape, 1), tuple(range(len(shape)))))
    narrow = slicing.concatenate(words, len(shape))
    return bitcast_convert_type_p.bind(narrow, new_dtype=new)


def _join_bits(operand, old, new):
    """The inverse of ``_split_bits``: the last axis's words, least significant first, as
    one wider element."""
    ratio = new.itemsize // old.itemsize
    shape = core.get_aval(operand).shape
    if not shape or shape[-1] != ratio:
        raise core.shape_error(
            f"bitcast_convert_type from {old.name} to {new.name} needs a last dimension of "
            f"{ratio}, got shape {tuple(shape)}")
    narrow = bitcast_convert_type_p.bind(operand, new_dtype=_unsigned(old.itemsize))
    wide_dtype = _unsigned(new.itemsize)
    total = None
    for j in range(ratio):
        word = shape_ops.squeeze(slicing.slice_in_dim(narrow, j, j + 1, axis=len(shape) - 1),
                                 (len(shape) - 1,))
        word = shift_left(convert_element_type(word, wide_dtype),
                          np.array(8 * old.itemsize * j, wide_dtype))
        total = word if total is None else bitwise_or(total, word)
    return bitcast_convert_type_p.bind(total, new_dtype=new)


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of each element as ``new_dtype``, e.g. float32 → uint32.

    As in JAX, the widths may differ: to a narrower dtype each element becomes a new last
    axis of the words it is made of, least significant first; to a wider one the last axis
    (as long as the ratio of the widths) is joined into one element."""
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    old_dtype = core.get_aval(operand).dtype
    if (old_dtype.itemsize == new_dtype.itemsize or dtypes.is_bool(old_dtype)
            or dtypes.is_bool(new_dtype)):
        return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)
    if old_dtype.itemsize > new_dtype.itemsize:
        return _split_bits(operand, old_dtype, new_dtype)
    return _join_bits(operand, old_dtype, new_dtype)
