"""Elementwise special functions as primitives of their own (composite_primitives.py), so
each keeps its own derivative rule and batching rule while its body (series, continued
fractions, loops) is inlined where it is lowered.

``primitive(name, impl, arity)`` wraps ``impl`` so that half precisions compute in
float32; ``apply(prim, name, *args)`` promotes the arguments as jax.scipy.special does
(integers and bools to the default float, Python scalars weakly) and broadcasts them to
one shape before binding.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from numlir._src import core
from numlir._src.lax import composite_primitives
from numlir._src.lax import elementwise as ew
from numlir._src.lax import type_checks as tc
from numlir._src.numpy import reshaping
from numlir._src.numpy.util import broadcast_shapes, dtype_of, promote_arrays_inexact


def compute_dtype(dtype) -> np.dtype:
    """The dtype a special function computes in: float32 for the half precisions."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype


def primitive(name: str, impl: Callable, arity: int, accepted=(tc.FLOAT,)) -> core.Primitive:
    """An elementwise primitive whose body is ``impl`` (called in the compute dtype), taking
    the dtypes ``accepted`` (type_checks' kinds)."""

    def body(*args):
        dtype = dtype_of(args[0])
        work = compute_dtype(dtype)
        out = impl(*(ew.convert_element_type(a, work) for a in args))
        return ew.convert_element_type(out, dtype)

    return composite_primitives.elementwise(name, body, arity, accepted)


def promote(name: str, *args) -> list:
    """The arguments as inexact numlir arrays of one dtype, broadcast to one shape (rank-0
    ones stay rank-0, as lax broadcasts them). The dtype is strong, as jax's results are
    (its special functions run under jit or custom_jvp, which drop weak types)."""
    args = promote_arrays_inexact(name, *args)
    shape = broadcast_shapes(name, *(a.shape for a in args))
    args = [a if a.shape in ((), shape) else reshaping.broadcast_to(a, shape) for a in args]
    return [ew.convert_element_type(a, dtype_of(a), weak_type=False) for a in args]


def apply(prim: core.Primitive, name: str, *args):
    return prim.bind(*promote(name, *args))


def two_product(a, b):
    """``a * b`` as an unevaluated sum ``hi + lo``, exactly (Dekker's splitting)."""
    split = float(2 ** ((np.finfo(dtype_of(a)).nmant + 2) // 2) + 1)

    def halves(v):
        c = split * v
        high = c - (c - v)
        return high, v - high

    hi = a * b
    ah, al = halves(a)
    bh, bl = halves(b)
    lo = ((ah * bh - hi) + ah * bl + al * bh) + al * bl
    return hi, lo
