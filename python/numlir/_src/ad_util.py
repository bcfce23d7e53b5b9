"""What the interpreters share: symbolic zeros, add-any, and the array ops they build with.

The interpreters (ad.py, transpose.py, batching.py) sit below lax, yet they must make
a few arrays themselves: zeros for a symbolic ``Zero`` that a rule needs as an array,
the sum of two tangents or cotangents, and the moves of batch axes and broadcast
dimensions. Those are lax primitives; lax registers them here as its modules load
(``register_array_op``), so the interpreters call them without importing lax. The
same inversion keeps JAX's ``ad_util.zeros_like_aval`` free of lax.
"""

from __future__ import annotations

from typing import Callable, Sequence

from numlir._src import core

# --- Symbolic zeros ----------------------------------------------------------------------


class Zero:
    """A tangent or cotangent known to be zero, of abstract value ``aval``."""

    __slots__ = ("aval",)

    def __init__(self, aval: core.ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"Zero({self.aval.str_short()})"


# --- The lax operations the interpreters use ----------------------------------------------

#: name -> the lax function (registered by numlir._src.lax's modules).
_ARRAY_OPS = ("full", "add", "convert_element_type", "broadcast_in_dim", "reshape", "transpose",
              "reduce_sum")
_array_ops: dict[str, Callable] = {}


def register_array_op(name: str, fn: Callable) -> None:
    """Supplies the lax function ``name`` (one of ``_ARRAY_OPS``) to the interpreters."""
    if name not in _ARRAY_OPS:
        raise ValueError(f"{name!r} is not an array op the interpreters use ({_ARRAY_OPS})")
    _array_ops[name] = fn


def _op(name: str) -> Callable:
    try:
        return _array_ops[name]
    except KeyError:
        raise RuntimeError(f"lax.{name} is not registered with the interpreters: numlir._src.lax "
                           "was not imported (import numlir first)") from None


def full(shape: Sequence[int], fill_value, dtype):
    return _op("full")(shape, fill_value, dtype)


def convert_element_type(x, new_dtype):
    return _op("convert_element_type")(x, new_dtype)


def broadcast_in_dim(x, shape: Sequence[int], broadcast_dimensions: Sequence[int]):
    return _op("broadcast_in_dim")(x, shape, broadcast_dimensions)


def reshape(x, new_sizes: Sequence[int]):
    return _op("reshape")(x, new_sizes)


def transpose(x, permutation: Sequence[int]):
    return _op("transpose")(x, permutation)


def reduce_sum(x, axes: Sequence[int]):
    return _op("reduce_sum")(x, axes)


# --- Zeros and add-any ----------------------------------------------------------------------


def zeros_like_aval(aval: core.ShapedArray):
    return full(aval.shape, 0, aval.dtype)


def instantiate(t):
    """``t`` as an array (a ``Zero`` becomes zeros)."""
    return zeros_like_aval(t.aval) if isinstance(t, Zero) else t


def add_any(x, y):
    """The sum of two tangents (or cotangents) of one value, either of which may be ``Zero``."""
    if isinstance(x, Zero):
        return y
    if isinstance(y, Zero):
        return x
    return _op("add")(x, y)
