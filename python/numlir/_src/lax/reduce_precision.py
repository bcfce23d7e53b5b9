"""lax.reduce_precision: round floats to a narrower format and back, as XLA does.

The value keeps its dtype but takes only the values a float with ``exponent_bits``
and ``mantissa_bits`` can hold: the mantissa is rounded to nearest, ties to even;
magnitudes past the narrow format's largest exponent become infinities, and those
at or below its smallest normal exponent become zeros of the same sign (XLA keeps
no subnormals here); NaN stays NaN. ``reduce_precision(x, 8, 7)`` on float32 is
a round trip through bfloat16, ``(5, 10)`` through float16.

It is a primitive lowered as integer arithmetic on the bits, so that its derivative
is JAX's: the same rounding applied to the tangent.
"""

from __future__ import annotations

import operator

import numpy as np

from numlir._src import ad, batching, core, dtypes
from numlir._src.lax import bits
from numlir._src.lax import elementwise as ew
from numlir._src.lax import type_checks as tc

_UNSIGNED = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _round_bits(x, exponent_bits: int, mantissa_bits: int):
    dtype = core.get_aval(x).dtype
    info = dtypes.finfo(dtype)
    src_mantissa = int(info.nmant)
    src_exponent = int(dtype.itemsize * 8 - 1 - src_mantissa)
    word = np.dtype(_UNSIGNED[dtype.itemsize])
    nbits = dtype.itemsize * 8

    def c(v):
        return ew.convert_element_type(np.asarray(v, word), word)

    raw = bits.bitcast_convert_type(x, word)
    sign = ew.bitwise_and(raw, c(1 << (nbits - 1)))
    magnitude = ew.bitwise_and(raw, c((1 << (nbits - 1)) - 1))
    if mantissa_bits < src_mantissa:
        drop = src_mantissa - mantissa_bits
        # Adding half an ulp of the narrow format, less one, plus the last kept bit, then
        # truncating, rounds to nearest with ties to even; a carry may bump the exponent.
        last_kept = ew.bitwise_and(bits.shift_right_logical(magnitude, c(drop)), c(1))
        magnitude = ew.add(magnitude, ew.add(last_kept, c((1 << (drop - 1)) - 1)))
        magnitude = ew.bitwise_and(magnitude, c(~((1 << drop) - 1) & ((1 << nbits) - 1)))
    if exponent_bits < src_exponent:
        src_bias = (1 << (src_exponent - 1)) - 1
        narrow_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits.shift_right_logical(magnitude, c(src_mantissa))
        infinity = c(((1 << src_exponent) - 1) << src_mantissa)
        magnitude = ew.select(ew.gt(exponent, c(src_bias + narrow_bias)), infinity, magnitude)
        magnitude = ew.select(ew.le(exponent, c(src_bias - narrow_bias)), c(0), magnitude)
    rounded = bits.bitcast_convert_type(ew.bitwise_or(sign, magnitude), dtype)
    return ew.select(ew.ne(x, x), x, rounded)


reduce_precision_p = core.Primitive("reduce_precision")


@reduce_precision_p.def_abstract_eval
def _abstract_eval(operand, *, exponent_bits, mantissa_bits):
    tc.check_dtype("reduce_precision", operand, (tc.FLOAT,))
    return operand


@reduce_precision_p.def_lowering
def _lowering(ctx, operand, *, exponent_bits, mantissa_bits):
    aval = ctx.avals_in[0].strip_weak_type()
    closed = core.trace_to_graph(lambda u: [_round_bits(u, exponent_bits, mantissa_bits)], [aval])
    return ctx.inline(closed, [operand])[0]


batching.defvectorized(reduce_precision_p)
ad.deflinear(
    reduce_precision_p, lambda ct, operand, **params: [reduce_precision_p.bind(ct, **params)]
)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """``operand`` rounded to a float format of ``exponent_bits`` and ``mantissa_bits``
    (its dtype unchanged): ``reduce_precision(x, 8, 7)`` rounds float32 values to bfloat16's."""
    exponent_bits, mantissa_bits = operator.index(exponent_bits), operator.index(mantissa_bits)
    if exponent_bits < 1 or mantissa_bits < 0:
        raise core.value_error(
            f"reduce_precision needs exponent_bits >= 1 and mantissa_bits >= 0, "
            f"got {exponent_bits} and {mantissa_bits}"
        )
    return reduce_precision_p.bind(
        operand, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits
    )
