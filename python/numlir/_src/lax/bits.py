"""Integer bit primitives: shifts, population count, leading zeros, and bitcasts.

Same conventions as ``elementwise.py`` (strict dtypes, lax broadcasting for binary ops);
none has a tangent::

    >>> import numlir.lax as lax, numlir.numpy as jnp
    >>> lax.shift_right_logical(jnp.uint32(0x80000000), jnp.uint32(31))
    Array(1, dtype=uint32)
"""

from __future__ import annotations

from numlir._src import ad, batching, core, dtypes
from numlir._src.lax import type_checks as tc
from numlir._src.lax.elementwise import _binary, _unary

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


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of each element as ``new_dtype`` (same bit width), e.g. float32 → uint32."""
    return bitcast_convert_type_p.bind(operand, new_dtype=dtypes.canonicalize_dtype(new_dtype))
