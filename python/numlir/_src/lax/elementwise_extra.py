"""More lax primitives: integer bit ops, bitcasts, clamp, extra float math, argmax/argmin, scans.

Same conventions as ``elementwise.py`` (strict dtypes, lax broadcasting for
binary ops). Each primitive lowers to one hlo op of docs/hlo-dialect.md::

    >>> import numlir.lax as lax, numlir.numpy as jnp
    >>> lax.shift_right_logical(jnp.uint32(0x80000000), jnp.uint32(31))
    Array(1, dtype=uint32)
"""

from __future__ import annotations

import enum

import numpy as np

from numlir._src import core, dtypes
from numlir._src import ad
from numlir._src.lax import type_checks as tc
from numlir._src import batching
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


core.batching_rules[bitcast_convert_type_p] = batching.broadcast_batcher(bitcast_convert_type_p)


ad.defzero(bitcast_convert_type_p)


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of each element as ``new_dtype`` (same bit width), e.g. float32 → uint32."""
    return bitcast_convert_type_p.bind(operand, new_dtype=dtypes.canonicalize_dtype(new_dtype))


# --- clamp --------------------------------------------------------------------------------

clamp_p = core.Primitive("clamp")


@clamp_p.def_abstract_eval
def _clamp_abstract_eval(lo, x, hi):
    tc.check_dtype("clamp", x, tc.NUMERIC)
    dtype = tc.check_same_dtypes("clamp", [lo, x, hi])
    for name, bound in (("min", lo), ("max", hi)):
        if bound.shape not in ((), x.shape):
            raise core.shape_error(
                f"clamp requires {name} to be a scalar or have the operand's shape {x.shape}, "
                f"got {bound.shape}"
            )
    return core.ShapedArray(x.shape, dtype, x.weak_type)


@clamp_p.def_lowering
def _clamp_lowering(ctx, lo, x, hi):
    types = ", ".join(ctx.type_in(i) for i in range(3))
    return ctx.emit(f"hlo.clamp {lo}, {x}, {hi} : {types}")


def _clamp_batch_rule(axis_size, args, dims):
    from numlir._src.lax import shape_ops

    x_aval = core.get_aval(args[1])
    shape = x_aval.shape if dims[1] is None else x_aval.shape[:dims[1]] + x_aval.shape[dims[1] + 1:]
    new = []
    for i, (v, d) in enumerate(zip(args, dims)):
        if d is None and i != 1 and core.get_aval(v).ndim == 0:
            new.append(v)  # an unbatched scalar bound stays a scalar
            continue
        if d is None and not shape:
            new.append(batching.bdim_to_front(v, None, axis_size))
            continue
        v = batching.bdim_to_front(v, d, axis_size)
        if core.get_aval(v).ndim == 1 and shape:  # a batched scalar bound
            v = shape_ops.broadcast_in_dim(v, (axis_size, *shape), (0,))
        new.append(v)
    return clamp_p.bind(*new), 0


core.batching_rules[clamp_p] = _clamp_batch_rule


def _clamp_jvp_operand(t, lo, x, hi):
    from numlir._src.lax.elementwise import bitwise_and, gt, lt, select

    return select(bitwise_and(gt(x, lo), lt(x, hi)), t, ad.const(x, 0))


def _clamp_jvp_bound(compare):
    def fn(t, lo, x, hi):
        from numlir._src.lax import elementwise as el

        bound = lo if compare == "gt" else hi
        t = ad.broadcast_tangent(t, core.get_aval(x).shape)
        return el.select(getattr(el, compare)(bound, x), t, ad.const(x, 0))

    return fn


ad.defjvp(clamp_p, _clamp_jvp_bound("gt"), _clamp_jvp_operand, _clamp_jvp_bound("lt"))


def clamp(min, x, max):
    """Elementwise ``minimum(maximum(x, min), max)``; ``min``/``max`` are scalars or x-shaped."""
    from numlir._src.lax.elementwise import convert_element_type

    dtype = core.get_aval(x).dtype
    min, max = (
        convert_element_type(v, dtype, weak_type=True) if dtypes.is_python_scalar(v) else v
        for v in (min, max)
    )
    return clamp_p.bind(min, x, max)


# --- Float math ---------------------------------------------------------------------------

log1p_p = _unary("log1p", "log_plus_one", (tc.FLOAT,))
expm1_p = _unary("expm1", "exponential_minus_one", (tc.FLOAT,))
tan_p = _unary("tan", "tan", (tc.FLOAT,))
asin_p = _unary("asin", "asin", (tc.FLOAT,))
acos_p = _unary("acos", "acos", (tc.FLOAT,))
atan_p = _unary("atan", "atan", (tc.FLOAT,))
sinh_p = _unary("sinh", "sinh", (tc.FLOAT,))
cosh_p = _unary("cosh", "cosh", (tc.FLOAT,))
asinh_p = _unary("asinh", "asinh", (tc.FLOAT,))
acosh_p = _unary("acosh", "acosh", (tc.FLOAT,))
atanh_p = _unary("atanh", "atanh", (tc.FLOAT,))
erf_p = _unary("erf", "erf", (tc.FLOAT,))
erf_inv_p = _unary("erf_inv", "erf_inv", (tc.FLOAT,))
cbrt_p = _unary("cbrt", "cbrt", (tc.FLOAT,))
lgamma_p = _unary("lgamma", "lgamma", (tc.FLOAT,))
digamma_p = _unary("digamma", "digamma", (tc.FLOAT,))
atan2_p = _binary("atan2", "atan2", (tc.FLOAT,))
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
erf = _bind1(erf_p, "Elementwise error function.")
erf_inv = _bind1(erf_inv_p, "Elementwise inverse error function (±inf at ±1).")
cbrt = _bind1(cbrt_p, "Elementwise cube root.")
lgamma = _bind1(lgamma_p, "Elementwise ``log(|gamma(x)|)``.")
digamma = _bind1(digamma_p, "Elementwise digamma function (derivative of lgamma).")


def atan2(x, y):
    """Elementwise ``atan(x / y)`` in the quadrant of (y, x)."""
    return atan2_p.bind(x, y)


def nextafter(x1, x2):
    """Elementwise next representable value after ``x1`` towards ``x2``."""
    return nextafter_p.bind(x1, x2)


def _trigamma(x):
    from numlir._src.lax.special import polygamma

    return polygamma(ad.const(x, 1), x)


def _defjvp_float_math():
    from numlir._src.lax.elementwise import add, div, exp, mul, neg, rsqrt, sub

    def one(x):
        return ad.const(x, 1)

    def sq(x):
        return mul(x, x)

    ad.defjvp(log1p_p, lambda t, x: div(t, add(x, one(x))))
    ad.defjvp(expm1_p, lambda t, x: mul(t, exp(x)))
    ad.defjvp(tan_p, lambda t, x: mul(t, add(one(x), sq(tan(x)))))
    ad.defjvp(asin_p, lambda t, x: mul(t, rsqrt(sub(one(x), sq(x)))))
    ad.defjvp(acos_p, lambda t, x: neg(mul(t, rsqrt(sub(one(x), sq(x))))))
    ad.defjvp(atan_p, lambda t, x: div(t, add(one(x), sq(x))))
    ad.defjvp(sinh_p, lambda t, x: mul(t, cosh(x)))
    ad.defjvp(cosh_p, lambda t, x: mul(t, sinh(x)))
    ad.defjvp(asinh_p, lambda t, x: mul(t, rsqrt(add(sq(x), one(x)))))
    ad.defjvp(acosh_p, lambda t, x: mul(t, rsqrt(mul(sub(x, one(x)), add(x, one(x))))))
    ad.defjvp(atanh_p, lambda t, x: div(t, sub(one(x), sq(x))))
    ad.defjvp(erf_p, lambda t, x: mul(t, mul(ad.const(x, 2 / np.sqrt(np.pi)), exp(neg(sq(x))))))
    ad.defjvp(erf_inv_p, lambda t, x: mul(t, mul(ad.const(x, np.sqrt(np.pi) / 2), exp(sq(erf_inv(x))))))
    ad.defjvp(cbrt_p, lambda t, x: div(t, mul(ad.const(x, 3), sq(cbrt(x)))))
    ad.defjvp(lgamma_p, lambda t, x: mul(t, digamma(x)))
    ad.defjvp(digamma_p, lambda t, x: mul(t, _trigamma(x)))
    ad.defjvp(atan2_p, lambda t, x, y: mul(t, div(y, add(sq(x), sq(y)))),
              lambda t, x, y: neg(mul(t, div(x, add(sq(x), sq(y))))))
    ad.defzero(nextafter_p)


_defjvp_float_math()


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


core.batching_rules[round_p] = batching.broadcast_batcher(round_p)


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


core.batching_rules[is_finite_p] = batching.broadcast_batcher(is_finite_p)


ad.defzero(is_finite_p)


def is_finite(x):
    """Elementwise test for neither inf nor NaN (bool result)."""
    return is_finite_p.bind(x)


# --- argmax / argmin ------------------------------------------------------------------------


def _arg_reduce(name: str, kind: str):
    prim = core.Primitive(name)

    @prim.def_abstract_eval
    def _abstract_eval(operand, *, axis, index_dtype):
        tc.check_dtype(name, operand, tc.ANY)
        if index_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise core.shape_error(
                f"{name}: index_dtype must be int32 or int64, got {index_dtype.name}"
            )
        if not 0 <= axis < operand.ndim:
            raise core.value_error(
                f"{name}: axis {axis} is out of bounds for shape {operand.shape}"
            )
        if operand.shape[axis] == 0:
            raise core.value_error(
                f"{name}: cannot compute over the empty axis {axis} of {operand.shape}"
            )
        shape = tuple(d for i, d in enumerate(operand.shape) if i != axis)
        return core.ShapedArray(shape, index_dtype)

    @prim.def_lowering
    def _lowering(ctx, operand, *, axis, index_dtype):
        return ctx.emit(
            f"hlo.arg_reduce {kind} {operand}, dim = {axis} : {ctx.type_in()} -> {ctx.type_out()}"
        )

    def _batch_rule(axis_size, args, dims, *, axis, index_dtype):
        (x,), (d,) = args, dims
        axis = batching.shifted(axis, d)
        return prim.bind(x, axis=axis, index_dtype=index_dtype), d - (axis < d)

    core.batching_rules[prim] = _batch_rule

    def fn(operand, axis: int, index_dtype=np.int32):
        ndim = core.get_aval(operand).ndim
        axis = tc.canonical_axis(name, axis, ndim)
        return prim.bind(operand, axis=axis, index_dtype=dtypes.canonicalize_dtype(index_dtype))

    fn.__name__ = name
    fn.__doc__ = (
        f"Index of the {kind}imum along ``axis`` (first occurrence; NaN counts as the "
        f"{kind}imum), as ``index_dtype``."
    )
    return prim, fn


argmax_p, argmax = _arg_reduce("argmax", "max")
argmin_p, argmin = _arg_reduce("argmin", "min")
ad.defzero(argmax_p)
ad.defzero(argmin_p)


# --- Cumulative reductions ---------------------------------------------------------------------


def _cumulative(name: str, kind: str, accepted):
    prim = core.Primitive(name)

    @prim.def_abstract_eval
    def _abstract_eval(operand, *, axis, reverse):
        tc.check_dtype(name, operand, accepted)
        if not 0 <= axis < operand.ndim:
            raise core.value_error(
                f"{name}: axis {axis} is out of bounds for shape {operand.shape}"
            )
        return operand

    @prim.def_lowering
    def _lowering(ctx, operand, *, axis, reverse):
        return ctx.emit(
            f"hlo.cumulative {kind} {operand}, dim = {axis}, "
            f"reverse = {'true' if reverse else 'false'} : {ctx.type_out()}"
        )

    def _batch_rule(axis_size, args, dims, *, axis, reverse):
        (x,), (d,) = args, dims
        return prim.bind(x, axis=batching.shifted(axis, d), reverse=reverse), d

    core.batching_rules[prim] = _batch_rule

    def fn(operand, axis: int = 0, reverse: bool = False):
        ndim = core.get_aval(operand).ndim
        axis = tc.canonical_axis(name, axis, ndim)
        return prim.bind(operand, axis=axis, reverse=bool(reverse))

    fn.__name__ = name
    fn.__doc__ = f"Inclusive cumulative {kind} along ``axis`` (from the end when ``reverse``)."
    return prim, fn


cumsum_p, cumsum = _cumulative("cumsum", "sum", tc.NUMERIC)
cumprod_p, cumprod = _cumulative("cumprod", "prod", tc.NUMERIC)
cummax_p, cummax = _cumulative("cummax", "max", tc.ANY)
cummin_p, cummin = _cumulative("cummin", "min", tc.ANY)
ad.deflinear(cumsum_p)


def _shifted(x, steps: int, axis: int, reverse: bool, fill):
    """``x`` moved ``steps`` places along the scan direction, ``fill`` entering at the start."""
    from numlir._src.lax import slicing

    config = [(0, 0, 0)] * core.get_aval(x).ndim
    config[axis] = (-steps, steps, 0) if reverse else (steps, -steps, 0)
    return slicing.pad(x, ad.const(x, fill), config)


def _cumprod_jvp(primals, tangents, *, axis, reverse):
    # A doubling prefix scan of (product, its tangent) by the product rule: no division,
    # so zeros in x are handled, and each step is linear in the tangent.
    from numlir._src.lax.elementwise import add, mul

    x, t = primals[0], ad.instantiate(tangents[0])
    out = cumprod_p.bind(x, axis=axis, reverse=reverse)
    p, dp, steps = x, t, 1
    while steps < core.get_aval(x).shape[axis]:
        p_prev = _shifted(p, steps, axis, reverse, 1)
        dp = add(mul(dp, p_prev), mul(p, _shifted(dp, steps, axis, reverse, 0)))
        p = mul(p, p_prev)
        steps *= 2
    return out, dp


def _cumulative_chooser_jvp(prim):
    # out[i] is attained by every j <= i with x[j] == out[j] == out[i]; as the running
    # extremum is monotone these j lie in the run of equal outputs ending at i, and they
    # share the tangent evenly (as reduce_max does with ties).
    def rule(primals, tangents, *, axis, reverse):
        from numlir._src.lax import elementwise as ew, slicing
        from numlir._src.lax.shape_ops import broadcasted_iota
        from numlir._src.lax.sorting import take_along_axis

        x, t = primals[0], ad.instantiate(tangents[0])
        out = prim.bind(x, axis=axis, reverse=reverse)
        if reverse:  # work in scan order
            x, t, fwd = slicing.rev(x, (axis,)), slicing.rev(t, (axis,)), slicing.rev(out, (axis,))
        else:
            fwd = out
        aval = core.get_aval(x)
        pos = broadcasted_iota(np.int32, aval.shape, axis)
        new_run = ew.bitwise_or(ew.eq(pos, ad.const(pos, 0)),
                                ew.ne(fwd, _shifted(fwd, 1, axis, False, 0)))
        run_start = cummax(ew.select(new_run, pos, ad.const(pos, 0)), axis)
        attains = ew.eq(x, fwd)
        # How many positions of the run so far attain it (integer cumsums: exact).
        hits = ew.convert_element_type(attains, np.int32)
        total = cumsum(hits, axis)
        count = ew.sub(total, take_along_axis(ew.sub(total, hits), run_start, axis))
        # Their tangents summed by a doubling scan that stops at the run's start; only
        # same-run terms are ever added, so nothing cancels.
        acc, steps = ew.select(attains, t, ad.const(t, 0)), 1
        while steps < aval.shape[axis]:
            same_run = ew.ge(ew.sub(pos, ad.const(pos, steps)), run_start)
            acc = ew.add(acc, ew.select(same_run, _shifted(acc, steps, axis, False, 0),
                                        ad.const(t, 0)))
            steps *= 2
        count = ew.max(ew.convert_element_type(count, aval.dtype), ad.const(x, 1))
        t_out = ew.div(acc, count)
        return out, slicing.rev(t_out, (axis,)) if reverse else t_out

    return rule


core.jvp_rules[cumprod_p] = _cumprod_jvp
core.jvp_rules[cummax_p] = _cumulative_chooser_jvp(cummax_p)
core.jvp_rules[cummin_p] = _cumulative_chooser_jvp(cummin_p)


def _cumsum_transpose(ct, operand, *, axis, reverse):
    # Each input adds into every output after it, so cotangents flow back the other way.
    return cumsum_p.bind(ct, axis=axis, reverse=not reverse)


def _transpose_rules():
    from numlir._src import transpose as tr

    tr.deflinear(cumsum_p, _cumsum_transpose)


_transpose_rules()
