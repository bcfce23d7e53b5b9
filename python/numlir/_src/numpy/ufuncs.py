"""Elementwise functions of numlir.numpy (NumPy names, JAX promotion semantics)."""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.array import as_array
from numlir._src.lax import elementwise as lax
from numlir._src.lax import windowed_reductions
from numlir._src.numpy.util import (check_arraylike, dtype_of, promote_args, promote_args_inexact,
                                    promote_dtypes, promote_shapes)


def _is_bool(x) -> bool:
    return dtype_of(x) == dtypes.bool_


def _is_unsigned(x) -> bool:
    return dtypes.is_unsigned_int(dtype_of(x))


def _is_int(x) -> bool:
    return dtypes.is_int(dtype_of(x))


def _binary(name, fn, inexact=False):
    def op(x, y, /):
        x, y = (promote_args_inexact if inexact else promote_args)(name, x, y)
        return fn(x, y)

    op.__name__ = name
    op.__doc__ = f"Elementwise ``{name}`` with NumPy broadcasting and JAX type promotion."
    return op


def _unary(name, fn, inexact=False):
    def op(x, /):
        check_arraylike(name, x)
        if inexact:
            (x,) = promote_args_inexact(name, x)
        return fn(x)

    op.__name__ = name
    op.__doc__ = f"Elementwise ``{name}``."
    return op


add = _binary("add", lambda x, y: lax.bitwise_or(x, y) if _is_bool(x) else lax.add(x, y))
subtract = _binary("subtract", lax.sub)
multiply = _binary("multiply", lambda x, y: lax.bitwise_and(x, y) if _is_bool(x) else lax.mul(x, y))
true_divide = _binary("true_divide", lax.div, inexact=True)
divide = true_divide
maximum = _binary("maximum", lax.max)
minimum = _binary("minimum", lax.min)
fmod = _binary("fmod", lax.rem)
equal = _binary("equal", lax.eq)
not_equal = _binary("not_equal", lax.ne)
less = _binary("less", lax.lt)
less_equal = _binary("less_equal", lax.le)
greater = _binary("greater", lax.gt)
greater_equal = _binary("greater_equal", lax.ge)
bitwise_and = _binary("bitwise_and", lax.bitwise_and)
bitwise_or = _binary("bitwise_or", lax.bitwise_or)
bitwise_xor = _binary("bitwise_xor", lax.bitwise_xor)


def _floor_divide(x, y):
    if _is_unsigned(x) or _is_bool(x):
        return lax.div(x, y)
    if _is_int(x):  # C division truncates; step down when signs differ and it was inexact
        q = lax.div(x, y)
        inexact = lax.ne(lax.rem(x, y), lax.convert_element_type(0, dtype_of(x), True))
        signs_differ = lax.ne(lax.lt(x, lax.convert_element_type(0, dtype_of(x), True)),
                              lax.lt(y, lax.convert_element_type(0, dtype_of(y), True)))
        one = lax.convert_element_type(1, dtype_of(x), True)
        return lax.select(lax.bitwise_and(inexact, signs_differ), lax.sub(q, one), q)
    return lax.floor(lax.div(x, y))


def _remainder(x, y):
    r = lax.rem(x, y)
    if _is_unsigned(x) or _is_bool(x):
        return r
    zero = lax.convert_element_type(0, dtype_of(x), True)
    fix = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(y, zero)))
    return lax.select(fix, lax.add(r, y), r)


floor_divide = _binary("floor_divide", _floor_divide)
remainder = _binary("remainder", _remainder)
mod = remainder


def _integer_pow(x, n: int):
    """x ** n for a static Python int n by repeated squaring."""
    if n == 0:
        return _ones_like(x)
    if n < 0:
        if not dtypes.is_float(dtype_of(x)):
            raise core.value_error("Integers to negative integer powers are not allowed.")
        return lax.div(lax.convert_element_type(1, dtype_of(x), True), _integer_pow(x, -n))
    acc, base = None, x
    while n:
        if n & 1:
            acc = base if acc is None else lax.mul(acc, base)
        n >>= 1
        if n:
            base = lax.mul(base, base)
    return as_array(acc)


def _ones_like(x):
    from numlir._src.lax import shape_ops

    aval = core.get_aval(x)
    one = lax.convert_element_type(1, aval.dtype, aval.weak_type)
    return shape_ops.broadcast_in_dim(one, aval.shape, ())


def power(x, y, /):
    """Elementwise ``x ** y``; a static Python int exponent uses repeated multiplication."""
    check_arraylike("power", x, y)
    if type(y) is int and not isinstance(x, (int, float)):
        if _is_bool(x):
            x = lax.convert_element_type(x, dtypes.default_int_dtype(), False)
        return _integer_pow(x, y)
    x, y = promote_args("power", x, y)
    if _is_bool(x):
        raise core.shape_error("power does not accept dtype bool")
    return lax.pow(x, y)


def negative(x, /):
    """Elementwise ``-x``."""
    check_arraylike("negative", x)
    if _is_bool(x):
        raise core.shape_error("negative does not accept dtype bool; use numlir.numpy.logical_not")
    return lax.neg(x)


def positive(x, /):
    check_arraylike("positive", x)
    return as_array(x)


def absolute(x, /):
    """Elementwise ``|x|`` (identity for unsigned ints and bools)."""
    check_arraylike("absolute", x)
    if _is_unsigned(x) or _is_bool(x):
        return as_array(x)
    return lax.abs(x)


abs = absolute  # noqa: A001


def sign(x, /):
    check_arraylike("sign", x)
    if _is_bool(x):
        return as_array(x)
    return lax.sign(x)


def _float_or_identity(name, fn):
    def op(x, /):
        check_arraylike(name, x)
        if _is_int(x) or _is_bool(x):
            return as_array(x)
        return fn(x)

    op.__name__ = name
    return op


floor = _float_or_identity("floor", lax.floor)
ceil = _float_or_identity("ceil", lax.ceil)
exp = _unary("exp", lax.exp, inexact=True)
log = _unary("log", lax.log, inexact=True)
tanh = _unary("tanh", lax.tanh, inexact=True)
sqrt = _unary("sqrt", lax.sqrt, inexact=True)
sin = _unary("sin", lax.sin, inexact=True)
cos = _unary("cos", lax.cos, inexact=True)


def square(x, /):
    check_arraylike("square", x)
    return lax.mul(x, x)


def reciprocal(x, /):
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.div(lax.convert_element_type(1, dtype_of(x), True), x)


def invert(x, /):
    """Elementwise bitwise NOT (logical NOT for bool)."""
    check_arraylike("invert", x)
    return lax.bitwise_not(x)


bitwise_not = invert


def _to_bool(x):
    return lax.convert_element_type(x, dtypes.bool_)


def logical_not(x, /):
    check_arraylike("logical_not", x)
    return lax.bitwise_not(_to_bool(x))


def _logical(name, fn):
    def op(x, y, /):
        check_arraylike(name, x, y)
        return fn(*promote_shapes(name, _to_bool(x), _to_bool(y)))

    op.__name__ = name
    return op


logical_and = _logical("logical_and", lax.bitwise_and)
logical_or = _logical("logical_or", lax.bitwise_or)
logical_xor = _logical("logical_xor", lax.bitwise_xor)


def isnan(x, /):
    check_arraylike("isnan", x)
    return lax.ne(x, x)


def isinf(x, /):
    check_arraylike("isinf", x)
    if not dtypes.is_float(dtype_of(x)):
        return lax.ne(x, x)
    return lax.eq(lax.abs(x), lax.convert_element_type(np.inf, dtype_of(x), True))


def isfinite(x, /):
    check_arraylike("isfinite", x)
    if not dtypes.is_float(dtype_of(x)):
        return lax.eq(x, x)
    return lax.lt(lax.abs(x), lax.convert_element_type(np.inf, dtype_of(x), True))


def where(condition, x=None, y=None, /):
    """``x`` where ``condition`` else ``y``, broadcasting all three (the 1-argument form is not supported)."""
    if x is None or y is None:
        raise NotImplementedError("numlir.numpy.where(condition) with one argument needs dynamic "
                                  "shapes; pass x and y")
    check_arraylike("where", condition, x, y)
    x, y = promote_dtypes(x, y)
    condition, x, y = promote_shapes("where", _to_bool(condition), x, y)
    return lax.select(condition, x, y)


def clip(a, a_min=None, a_max=None):
    """Clip ``a`` to ``[a_min, a_max]``."""
    check_arraylike("clip", a)
    if a_min is not None:
        a = maximum(a, a_min)
    if a_max is not None:
        a = minimum(a, a_max)
    return as_array(a)


# reduce_window(x, init, jnp.add, ...) is a sum window, as with lax.add.
for _fn, _kind in ((add, "sum"), (multiply, "prod"), (maximum, "max"), (minimum, "min"),
                   (bitwise_and, "and"), (logical_and, "and"), (bitwise_or, "or"),
                   (logical_or, "or")):
    windowed_reductions.register_monoid(_fn, _kind)
del _fn, _kind
