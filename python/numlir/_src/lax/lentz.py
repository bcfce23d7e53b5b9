"""The constants of the modified Lentz method for continued fractions (incomplete gamma
and beta): a denominator that comes too near zero is replaced by a tiny number, so the
recurrences never divide by zero, and a step within epsilon of 1 has converged."""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from numlir._src import core
from numlir._src.lax import elementwise as ew
from numlir._src.lax.elementwise import const


class LentzConstants(NamedTuple):
    eps: object
    tiny: object
    one: object
    guard: Callable


def constants(like) -> LentzConstants:
    """eps, tiny and 1 in ``like``'s dtype, and ``guard(v)``: v, or tiny where |v| < tiny."""
    dtype = core.get_aval(like).dtype
    tiny = const(like, np.finfo(dtype).tiny * 16)

    def guard(v):
        return ew.select(ew.lt(ew.abs(v), tiny), tiny, v)

    return LentzConstants(const(like, np.finfo(dtype).eps), tiny, const(like, 1.0), guard)
