"""Shared shape/dtype checks for primitive abstract-eval rules (errors carry the user's line)."""

from __future__ import annotations

import operator
from typing import Sequence

import numpy as np

from numlir._src import core, dtypes, shapes

# Dtype categories used in "X does not accept dtype Y" errors.
FLOAT = ("floating", dtypes.is_float)
INT = ("integer", dtypes.is_int)
SIGNED = ("signed integer", dtypes.is_signed_int)
BOOL = ("bool", dtypes.is_bool)
COMPLEX = ("complex", dtypes.is_complex)
# The real categories: a primitive accepts complex numbers only where it opts in.
NUMERIC = (FLOAT, INT)
INT_OR_BOOL = (INT, BOOL)
ANY = (FLOAT, INT, BOOL)
INEXACT = (FLOAT, COMPLEX)
NUMERIC_OR_COMPLEX = (FLOAT, INT, COMPLEX)
ANY_OR_COMPLEX = (FLOAT, INT, BOOL, COMPLEX)


def check_dtype(name: str, aval: core.ShapedArray, accepted: Sequence[tuple]) -> None:
    if not any(pred(aval.dtype) for _, pred in accepted):
        kinds = ", ".join(k for k, _ in accepted)
        raise core.shape_error(
            f"{name} does not accept dtype {aval.dtype.name}. Accepted dtypes are: {kinds}."
        )


# The numlir.numpy function that promotes its inputs, for each primitive whose rule requires
# equal dtypes (test_errors checks that each one exists). Primitives missing here get no tip.
_PROMOTING_EQUIVALENTS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "div": "divide", "rem": "remainder",
    "pow": "power", "max": "maximum", "min": "minimum", "atan2": "arctan2",
    "nextafter": "nextafter", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "shift_left": "left_shift", "shift_right_arithmetic": "right_shift",
    "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
    "ge": "greater_equal", "select": "where", "clamp": "clip", "concatenate": "concatenate",
    "pad": "pad",
}


def check_same_dtypes(name: str, avals: Sequence[core.ShapedArray]) -> np.dtype:
    dts = [a.dtype for a in avals]
    if any(d != dts[0] for d in dts[1:]):
        message = (f"lax.{name} requires arguments to have the same dtypes, got "
                   f"{', '.join(d.name for d in dts)}.")
        if name in _PROMOTING_EQUIVALENTS:
            message += (f" (Tip: numlir.numpy.{_PROMOTING_EQUIVALENTS[name]} is a similar "
                        "function that does automatic type promotion on inputs).")
        raise core.shape_error(message)
    return dts[0]


def fmt_shapes(avals: Sequence[core.ShapedArray]) -> str:
    return " and ".join(str(a.shape) for a in avals)


def broadcasting_shape(name: str, avals: Sequence[core.ShapedArray]) -> tuple[int, ...]:
    """lax's broadcasting: equal ranks (or rank 0), each dimension equal or 1."""
    shapes = [a.shape for a in avals if a.ndim]
    if not shapes:
        return ()
    if len({len(s) for s in shapes}) != 1:
        raise core.shape_error(
            f"{name} got arrays of different rank: {fmt_shapes(avals)}"
        )
    out = []
    for sizes in zip(*shapes):
        non_one = {d for d in sizes if d != 1}
        if len(non_one) > 1:
            raise core.shape_error(
                f"{name} got incompatible shapes for broadcasting: {fmt_shapes(avals)}"
            )
        out.append(non_one.pop() if non_one else 1)
    return tuple(out)


def canonical_axis(name: str, axis: int, ndim: int) -> int:
    if isinstance(axis, core.Tracer):
        raise shapes.traced_value_error(name, "axis", f"<traced {axis.aval.str_short()}>", axis,
                                        "a concrete integer")
    try:
        axis = operator.index(axis)
    except TypeError:
        raise core.shape_error(f"{name}: axis must be an integer, got {axis!r:.40} "
                               f"({type(axis).__name__})") from None
    if not -ndim <= axis < ndim:
        raise core.value_error(f"{name}: axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else axis


def canonical_axes(name: str, axes, ndim: int) -> tuple[int, ...]:
    """Normalize an axis argument (None, int or sequence; negative allowed) to a sorted tuple."""
    if axes is None:
        return tuple(range(ndim))
    if isinstance(axes, (int, np.integer, core.Tracer)):
        axes = (axes,)
    elif isinstance(axes, (str, bytes)) or not hasattr(axes, "__iter__"):
        raise core.shape_error(f"{name}: axis must be None, an integer or a tuple of integers, "
                               f"got {axes!r:.40} ({type(axes).__name__})")
    out = tuple(canonical_axis(name, a, ndim) for a in axes)
    if len(set(out)) != len(out):
        raise core.value_error(f"{name}: duplicate value in 'axis': {tuple(axes)}")
    return tuple(sorted(out))
