"""Float math primitives beyond elementwise.py: log1p/expm1, trigonometric and hyperbolic
functions and their inverses, cbrt, atan2, nextafter, round and is_finite.

(erf, lgamma, digamma and friends are in special.py.) Each lowers to one hlo op of
docs/hlo-dialect.md, but atan2 of complex operands, which lowers to XLA's expansion in
complex log, sqrt and arithmetic.
"""

from __future__ import annotations

import enum

from numlir._src import ad, batching, core, dtypes
from numlir._src.lax import type_checks as tc
from numlir._src.lax.elementwise import (_binary, _broadcast_operands, _unary, add, const, div, exp,
                                         log, mul, neg, rsqrt, sqrt, sub)

log1p_p = _unary("log1p", "log_plus_one", tc.INEXACT)
expm1_p = _unary("expm1", "exponential_minus_one", tc.INEXACT)
tan_p = _unary("tan", "tan", tc.INEXACT)
asin_p = _unary("asin", "asin", tc.INEXACT)
acos_p = _unary("acos", "acos", tc.INEXACT)
atan_p = _unary("atan", "atan", tc.INEXACT)
sinh_p = _unary("sinh", "sinh", tc.INEXACT)
cosh_p = _unary("cosh", "cosh", tc.INEXACT)
asinh_p = _unary("asinh", "asinh", tc.INEXACT)
acosh_p = _unary("acosh", "acosh", tc.INEXACT)
atanh_p = _unary("atanh", "atanh", tc.INEXACT)
cbrt_p = _unary("cbrt", "cbrt", (tc.FLOAT,))
atan2_p = _binary("atan2", "atan2", tc.INEXACT)
nextafter_p = _binary("nextafter", "next_after", (tc.FLOAT,))


def _bind1(prim, doc):
    def fn(x):
        return prim.bind(x)

    fn.__name__ = prim.name
    fn.__doc__ = doc
    return fn


log1p = _bind1(log1p_p, "Elementwise ``log(1 + x)``, accurate near 0.")
expm1 = _bind1(expm1_p, "Elementwise ``exp(x) - 1``, accurate near 0.")
tan = _bind1(tan_p, "Elementwise tangent.")
asin = _bind1(asin_p, "Elementwise arcsine.")
acos = _bind1(acos_p, "Elementwise arccosine.")
atan = _bind1(atan_p, "Elementwise arctangent.")
sinh = _bind1(sinh_p, "Elementwise hyperbolic sine.")
cosh = _bind1(cosh_p, "Elementwise hyperbolic cosine.")
asinh = _bind1(asinh_p, "Elementwise inverse hyperbolic sine.")
acosh = _bind1(acosh_p, "Elementwise inverse hyperbolic cosine.")
atanh = _bind1(atanh_p, "Elementwise inverse hyperbolic tangent.")
cbrt = _bind1(cbrt_p, "Elementwise cube root.")


def atan2(x, y):
    """Elementwise ``atan(x / y)`` in the quadrant of (y, x); for complex operands XLA's
    ``-i log((y + i x) / sqrt(y^2 + x^2))``, as jax."""
    return atan2_p.bind(x, y)


def _complex_atan2(x, y):
    # hlo.atan2 takes no complex operands: XLA's own expansion, op for op.
    ratio = div(add(y, mul(const(x, 1j), x)), sqrt(add(mul(y, y), mul(x, x))))
    return mul(const(x, -1j), log(ratio))


@atan2_p.def_lowering
def _atan2_lowering(ctx, x, y):
    x, y = _broadcast_operands(ctx, x, y)
    out = ctx.avals_out[0].strip_weak_type()
    if not dtypes.is_complex(out.dtype):
        return ctx.emit(f"hlo.atan2 {x}, {y} : {ctx.type_out()}")
    closed = core.trace_to_graph(lambda a, b: [_complex_atan2(a, b)], [out, out])
    return ctx.inline(closed, [x, y])[0]


def nextafter(x1, x2):
    """Elementwise next representable value after ``x1`` towards ``x2``."""
    return nextafter_p.bind(x1, x2)


def _one(x):
    return const(x, 1)


def _sq(x):
    return mul(x, x)


ad.defjvp(log1p_p, lambda t, x: div(t, add(x, _one(x))))
ad.defjvp(expm1_p, lambda t, x: mul(t, exp(x)))
ad.defjvp(tan_p, lambda t, x: mul(t, add(_one(x), _sq(tan(x)))))
ad.defjvp(asin_p, lambda t, x: mul(t, rsqrt(sub(_one(x), _sq(x)))))
ad.defjvp(acos_p, lambda t, x: neg(mul(t, rsqrt(sub(_one(x), _sq(x))))))
ad.defjvp(atan_p, lambda t, x: div(t, add(_one(x), _sq(x))))
ad.defjvp(sinh_p, lambda t, x: mul(t, cosh(x)))
ad.defjvp(cosh_p, lambda t, x: mul(t, sinh(x)))
ad.defjvp(asinh_p, lambda t, x: mul(t, rsqrt(add(_sq(x), _one(x)))))
# acosh and atanh take JAX's forms, so their derivatives agree at and beyond the ends
# of the domain: x^2 - 1 (+inf at x = -1, where (x - 1)(x + 1) = -0 gives -inf) and
# 1/(1 + x) * 1/(1 - x) (NaN for the second derivative at ±1, 0 at ±inf).
ad.defjvp(acosh_p, lambda t, x: mul(t, rsqrt(sub(_sq(x), _one(x)))))
ad.defjvp(atanh_p, lambda t, x: mul(div(_one(x), add(_one(x), x)), div(t, sub(_one(x), x))))
# t / (3 cbrt(x)^2) as t/3 * (1/c) * (1/c): at 0 its derivative is -inf (+inf at -0), as
# JAX's; the quotient's is inf * 0 = NaN.
ad.defjvp(cbrt_p, lambda t, x: mul(mul(t, const(x, 1 / 3)),
                                   _sq(div(_one(x), cbrt(x)))))


def _atan2_jvp(primals, tangents):
    # (y tx - x ty) / (x^2 + y^2) as one quotient: the two terms of atan2(x, x) cancel
    # exactly, and so do those of its derivatives. A quotient per operand, summed, leaves
    # the rounding of 1/x^2 in the second derivative (8.9e43 at x = 1e-30; jax: 0).
    x, y = primals
    tx, ty = tangents
    out = atan2_p.bind(x, y)
    if isinstance(tx, ad.Zero) and isinstance(ty, ad.Zero):
        return out, ad.Zero(core.get_aval(out).strip_weak_type())
    if isinstance(ty, ad.Zero):
        numerator = mul(y, tx)
    elif isinstance(tx, ad.Zero):
        numerator = neg(mul(x, ty))
    else:
        numerator = sub(mul(y, tx), mul(x, ty))
    t_out = div(numerator, add(_sq(x), _sq(y)))
    return out, ad.broadcast_tangent(t_out, core.get_aval(out).shape)


ad.defjvp_rule(atan2_p, _atan2_jvp)
ad.defzero(nextafter_p)




class RoundingMethod(enum.IntEnum):
    """How ``round`` breaks ties: away from zero (C ``round``) or to even (``rint``)."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


round_p = core.Primitive("round")


@round_p.def_abstract_eval
def _round_abstract_eval(x, *, rounding_method):
    tc.check_dtype("round", x, (tc.FLOAT,))
    return x


@round_p.def_lowering
def _round_lowering(ctx, x, *, rounding_method):
    op = (
        "round_nearest_even"
        if rounding_method == RoundingMethod.TO_NEAREST_EVEN
        else "round_nearest_afz"
    )
    return ctx.emit(f"hlo.{op} {x} : {ctx.type_out()}")


batching.defvectorized(round_p)
ad.defzero(round_p)


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    """Elementwise rounding to an integral value; ties per ``rounding_method``."""
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


is_finite_p = core.Primitive("is_finite")


@is_finite_p.def_abstract_eval
def _is_finite_abstract_eval(x):
    tc.check_dtype("is_finite", x, (tc.FLOAT,))
    return core.ShapedArray(x.shape, dtypes.bool_)


@is_finite_p.def_lowering
def _is_finite_lowering(ctx, x):
    return ctx.emit(f"hlo.is_finite {x} : {ctx.type_in()} -> {ctx.type_out()}")


batching.defvectorized(is_finite_p)
ad.defzero(is_finite_p)


def is_finite(x):
    """Elementwise test for neither inf nor NaN (bool result)."""
    return is_finite_p.bind(x)
