"""lax.mulhi: the high half of the double-width product of two integers, as XLA's.

No wider type is needed: each operand splits into halves of n/2 bits, whose four
products fit in n bits, and the carries of their middle sums are added into the
high product (schoolbook multiplication in base 2^(n/2)). A signed product is the
unsigned one of the same bits, less ``y`` where ``x < 0`` and less ``x`` where
``y < 0``, modulo 2^n.
"""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import bits, shape_ops
from numlir._src.lax import elementwise as ew
from numlir._src.lax import type_checks as tc

_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _unsigned_mulhi(x, y):
    word = core.get_aval(x).dtype
    half = word.itemsize * 4

    def c(v):
        return ew.convert_element_type(np.asarray(v, word), word)

    mask = c((1 << half) - 1)
    shift = c(half)
    x_lo, x_hi = ew.bitwise_and(x, mask), bits.shift_right_logical(x, shift)
    y_lo, y_hi = ew.bitwise_and(y, mask), bits.shift_right_logical(y, shift)
    lo_lo, hi_lo = ew.mul(x_lo, y_lo), ew.mul(x_hi, y_lo)
    lo_hi, hi_hi = ew.mul(x_lo, y_hi), ew.mul(x_hi, y_hi)
    middle = ew.add(
        ew.add(bits.shift_right_logical(lo_lo, shift), ew.bitwise_and(hi_lo, mask)),
        ew.bitwise_and(lo_hi, mask),
    )
    high = ew.add(
        hi_hi,
        ew.add(bits.shift_right_logical(hi_lo, shift), bits.shift_right_logical(lo_hi, shift)),
    )
    return ew.add(high, bits.shift_right_logical(middle, shift))


def mulhi(x, y):
    """The upper half of the bits of ``x * y`` computed at twice the width (integers of one dtype)."""
    dtype = tc.check_same_dtypes("mulhi", [core.get_aval(x), core.get_aval(y)])
    tc.check_dtype("mulhi", core.get_aval(x), (tc.INT,))
    shape = tc.broadcasting_shape("mulhi", [core.get_aval(x), core.get_aval(y)])
    x, y = (
        shape_ops.broadcast_in_dim(
            v, shape, tuple(range(len(shape) - core.get_aval(v).ndim, len(shape)))
        )
        if core.get_aval(v).shape != shape
        else v
        for v in (x, y)
    )
    if not dtypes.is_signed_int(dtype):
        return _unsigned_mulhi(x, y)
    word = np.dtype(_UNSIGNED[dtype.itemsize])
    ux, uy = bits.bitcast_convert_type(x, word), bits.bitcast_convert_type(y, word)
    zero = ew.convert_element_type(np.asarray(0, word), word)
    high = _unsigned_mulhi(ux, uy)
    high = ew.sub(
        high, ew.select(ew.lt(x, ew.convert_element_type(np.asarray(0, dtype), dtype)), uy, zero)
    )
    high = ew.sub(
        high, ew.select(ew.lt(y, ew.convert_element_type(np.asarray(0, dtype), dtype)), ux, zero)
    )
    return bits.bitcast_convert_type(high, dtype)
