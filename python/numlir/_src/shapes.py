"""Shapes given by the user: concrete, integral, non-negative, and small enough to compile.

Every API that takes a shape (``zeros``, ``reshape``, ``broadcast_to``,
``lax.broadcast_in_dim``, ``random.normal``...) goes through
:func:`canonicalize_shape`, so a bad shape is reported in one way: naming the
function, the argument and the user's line, before anything reaches the
compiler. ``core.check_shape`` holds the limits; ``Primitive.out_avals``
applies them to every primitive's result as well, whatever made the shape.
"""

from __future__ import annotations

import operator

from numlir._src import core


def _describe(dims) -> str:
    shown = [f"<traced {d.aval.str_short()}>" if isinstance(d, core.Tracer) else repr(d)
             for d in dims]
    return f"({', '.join(shown)}{',' if len(shown) == 1 else ''})"


def traced_value_error(what: str, arg: str, shown: str, tracer: core.Tracer,
                       required: str = "a concrete shape") -> core.ConcretizationTypeError:
    """The error for a traced value passed where Python needs its value (a shape, a size)."""
    why, fix = core.traced_value_origin(tracer)
    fix = f"{fix[0].upper()}{fix[1:]}, or c" if fix else "C"
    return core.ConcretizationTypeError(core._with_location(
        f"{what}: argument {arg!r} must be {required}, but it is {shown}: a traced value was "
        f"used where {required} is required. {why} {fix}ompute it from the .shape of arrays, "
        "which is always concrete"))


def canonicalize_dim(d, what: str, arg: str) -> int:
    """One size (``eye``'s N, ``linspace``'s num) as a non-negative Python int."""
    if isinstance(d, core.Tracer):
        raise traced_value_error(what, arg, f"<traced {d.aval.str_short()}>", d,
                                 "a concrete integer")
    try:
        value = operator.index(d)
    except TypeError:
        raise core.shape_error(f"{what}: argument {arg!r} must be an integer, got {d!r:.40} "
                               f"({type(d).__name__})") from None
    if value < 0:
        raise core.value_error(f"{what}: argument {arg!r} must be >= 0, got {value}")
    return core.check_shape((value,), what, arg)[0]


def shape_ints(shape, what: str, arg: str = "shape") -> tuple[int, ...]:
    """``shape`` (an int or a sequence of ints) as a tuple of Python ints, not yet range-checked
    (``reshape`` allows a -1)."""
    if isinstance(shape, core.Tracer):
        raise traced_value_error(what, arg, f"<traced {shape.aval.str_short()}>", shape)
    try:
        return (operator.index(shape),)
    except TypeError:
        pass
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise core.shape_error(f"{what}: argument {arg!r} must be an int or a sequence of ints, "
                               f"got {shape!r:.80}")
    dims = tuple(shape)
    out = []
    for d in dims:
        if isinstance(d, core.Tracer):
            raise traced_value_error(what, arg, _describe(dims), d)
        try:
            out.append(operator.index(d))
        except TypeError:
            raise core.shape_error(
                f"{what}: argument {arg!r} must be a sequence of concrete integers, got "
                f"{_describe(dims)}: {d!r:.40} ({type(d).__name__}) is not an integer") from None
    return tuple(out)


def canonicalize_shape(shape, what: str, arg: str = "shape", dtype=None) -> tuple[int, ...]:
    """``shape`` (an int or a sequence of ints) as a tuple of Python ints.

    Raises ConcretizationTypeError for a traced value, TypeError for something
    that is not an integer, and ValueError for a negative dimension or a shape
    too large for an array (of ``dtype``, when given), each naming ``what``,
    ``arg`` and the user's line.

        >>> canonicalize_shape(3, "zeros")
        (3,)
    """
    return core.check_shape(shape_ints(shape, what, arg), what, arg, dtype)
