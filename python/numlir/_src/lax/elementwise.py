"""Elementwise primitives: unary math, binary arithmetic, compare, select, clamp, convert.

Binary primitives accept lax-style broadcasting (equal ranks with size-1
dimensions, or rank-0 operands); the lowering inserts ``hlo.broadcast_in_dim``
so that hlo only ever sees operands of the result's shape.
"""

from __future__ import annotations

import warnings

import numpy as np

from numlir._src import ad, ad_util, batching, core, dtypes
from numlir._src import transpose as tr
from numlir._src.array import Array, as_array
from numlir._src.lax import type_checks as tc
from numlir._src.lowering import tensor_type

# --- Unary ------------------------------------------------------------------------


def _unary_abstract_eval(name, accepted):
    def rule(x: core.ShapedArray) -> core.ShapedArray:
        tc.check_dtype(name, x, accepted)
        return x

    return rule


def _unary(name: str, hlo_op: str, accepted) -> core.Primitive:
    prim = core.Primitive(name)
    prim.def_abstract_eval(_unary_abstract_eval(name, accepted))

    @prim.def_lowering
    def _lowering(ctx, x):
        return ctx.emit(f"hlo.{hlo_op} {x} : {ctx.type_out()}")

    batching.defvectorized(prim)

    return prim


neg_p = _unary("neg", "negate", tc.NUMERIC_OR_COMPLEX)
sign_p = _unary("sign", "sign", tc.NUMERIC_OR_COMPLEX)
exp_p = _unary("exp", "exp", tc.INEXACT)
log_p = _unary("log", "log", tc.INEXACT)
tanh_p = _unary("tanh", "tanh", tc.INEXACT)
logistic_p = _unary("logistic", "logistic", tc.INEXACT)
sqrt_p = _unary("sqrt", "sqrt", tc.INEXACT)
rsqrt_p = _unary("rsqrt", "rsqrt", tc.INEXACT)
sin_p = _unary("sin", "sin", tc.INEXACT)
cos_p = _unary("cos", "cos", tc.INEXACT)
floor_p = _unary("floor", "floor", (tc.FLOAT,))
ceil_p = _unary("ceil", "ceil", (tc.FLOAT,))
not_p = _unary("not", "not", tc.INT_OR_BOOL)


# abs of a complex number is its (real) modulus.
abs_p = core.Primitive("abs")


@abs_p.def_abstract_eval
def _abs_abstract_eval(x):
    tc.check_dtype("abs", x, (tc.FLOAT, tc.SIGNED, tc.COMPLEX))
    return x.update(dtype=dtypes.complex_part_dtype(x.dtype))


@abs_p.def_lowering
def _abs_lowering(ctx, x):
    if dtypes.is_complex(ctx.avals_in[0].dtype):
        return ctx.emit(f"hlo.abs {x} : {ctx.type_in()} -> {ctx.type_out()}")
    return ctx.emit(f"hlo.abs {x} : {ctx.type_out()}")


batching.defvectorized(abs_p)


def neg(x):
    """Elementwise negation: -x."""
    return neg_p.bind(x)


def abs(x):  # noqa: A001 - JAX's name
    """Elementwise absolute value."""
    return abs_p.bind(x)


def sign(x):
    """Elementwise sign: -1, 0 or 1."""
    return sign_p.bind(x)


def exp(x):
    """Elementwise e**x."""
    return exp_p.bind(x)


def log(x):
    """Elementwise natural logarithm."""
    return log_p.bind(x)


def tanh(x):
    """Elementwise hyperbolic tangent."""
    return tanh_p.bind(x)


def logistic(x):
    """Elementwise logistic sigmoid 1 / (1 + exp(-x))."""
    return logistic_p.bind(x)


def sqrt(x):
    """Elementwise square root."""
    return sqrt_p.bind(x)


def rsqrt(x):
    """Elementwise reciprocal square root."""
    return rsqrt_p.bind(x)


def sin(x):
    """Elementwise sine."""
    return sin_p.bind(x)


def cos(x):
    """Elementwise cosine."""
    return cos_p.bind(x)


def floor(x):
    """Elementwise floor."""
    return floor_p.bind(x)


def ceil(x):
    """Elementwise ceiling."""
    return ceil_p.bind(x)


def bitwise_not(x):
    """Elementwise bitwise (or logical, for bool) NOT."""
    return not_p.bind(x)


def const(x, value):
    """A weakly typed rank-0 constant of ``x``'s dtype (broadcasts in lax binary ops)."""
    return convert_element_type(value, core.get_aval(x).dtype, weak_type=True)


ad.deflinear(neg_p, lambda ct, x: [neg(ct)])
def _abs_jvp(t, x):
    # complex_ops replaces this rule with one that also covers complex numbers.
    return select(ge(x, const(x, 0)), t, neg(t))


ad.defjvp(abs_p, _abs_jvp)
ad.defjvp(exp_p, lambda t, x: mul(t, exp(x)))
ad.defjvp(log_p, lambda t, x: div(t, x))
ad.defjvp(tanh_p, lambda t, x: mul(t, sub(const(x, 1), mul(tanh(x), tanh(x)))))
ad.defjvp(logistic_p, lambda t, x: mul(t, mul(logistic(x), sub(const(x, 1), logistic(x)))))
ad.defjvp(sqrt_p, lambda t, x: div(t, mul(const(x, 2), sqrt(x))))
ad.defjvp(rsqrt_p, lambda t, x: mul(t, mul(const(x, -0.5), div(rsqrt(x), x))))
ad.defjvp(sin_p, lambda t, x: mul(t, cos(x)))
ad.defjvp(cos_p, lambda t, x: neg(mul(t, sin(x))))
for _p in (sign_p, floor_p, ceil_p, not_p):
    ad.defzero(_p)


# --- Binary -------------------------------------------------------------------------


def _binary_abstract_eval(name, accepted, out_dtype=None):
    def rule(x: core.ShapedArray, y: core.ShapedArray) -> core.ShapedArray:
        dtype = tc.check_same_dtypes(name, [x, y])
        tc.check_dtype(name, x, accepted)
        shape = tc.broadcasting_shape(name, [x, y])
        if out_dtype is not None:
            return core.ShapedArray(shape, out_dtype, False)
        return core.ShapedArray(shape, dtype, x.weak_type and y.weak_type)

    return rule


def _broadcast_operands(ctx, *operands):
    shape = ctx.avals_out[0].shape
    return [ctx.broadcast_to(x, a, shape) for x, a in zip(operands, ctx.avals_in)]


def _binary(name: str, hlo_op: str, accepted) -> core.Primitive:
    prim = core.Primitive(name)
    prim.def_abstract_eval(_binary_abstract_eval(name, accepted))

    @prim.def_lowering
    def _lowering(ctx, x, y):
        x, y = _broadcast_operands(ctx, x, y)
        return ctx.emit(f"hlo.{hlo_op} {x}, {y} : {ctx.type_out()}")

    batching.defbroadcasting(prim)

    return prim


add_p = _binary("add", "add", tc.NUMERIC_OR_COMPLEX)
sub_p = _binary("sub", "subtract", tc.NUMERIC_OR_COMPLEX)
mul_p = _binary("mul", "multiply", tc.NUMERIC_OR_COMPLEX)
div_p = _binary("div", "divide", tc.NUMERIC_OR_COMPLEX)
rem_p = _binary("rem", "remainder", tc.NUMERIC)


def _extremum(name: str, hlo_op: str, direction: str) -> core.Primitive:
    """max or min: hlo's op on reals; complex numbers compare lexicographically, real part
    first, as jax: ``x`` where it compares strictly ``direction`` than ``y``, else ``y`` (so
    wherever a compared part is NaN, ``y``)."""
    prim = core.Primitive(name)
    prim.def_abstract_eval(_binary_abstract_eval(name, tc.ANY_OR_COMPLEX))

    @prim.def_lowering
    def _lowering(ctx, x, y):
        x, y = _broadcast_operands(ctx, x, y)
        out = ctx.avals_out[0]
        if not dtypes.is_complex(out.dtype):
            return ctx.emit(f"hlo.{hlo_op} {x}, {y} : {ctx.type_out()}")
        ty = ctx.type_out()
        part = tensor_type(out.update(dtype=dtypes.complex_part_dtype(out.dtype)))
        pred = tensor_type(out.update(dtype=dtypes.bool_))

        def compare(op, a, b):
            return ctx.emit(f"hlo.compare {op}, {a}, {b} : {part} -> {pred}")

        xr, yr = (ctx.emit(f"hlo.real {v} : {ty} -> {part}") for v in (x, y))
        xi, yi = (ctx.emit(f"hlo.imag {v} : {ty} -> {part}") for v in (x, y))
        by_imag, by_real = compare(direction, xi, yi), compare(direction, xr, yr)
        pick_x = ctx.emit(f"hlo.select {compare('EQ', xr, yr)}, {by_imag}, {by_real} : "
                          f"{pred}, {pred}")
        return ctx.emit(f"hlo.select {pick_x}, {x}, {y} : {pred}, {ty}")

    batching.defbroadcasting(prim)
    return prim


max_p = _extremum("max", "maximum", "GT")
min_p = _extremum("min", "minimum", "LT")
# As jax's lax.pow: float and complex bases only (jnp.power computes integer powers itself).
pow_p = _binary("pow", "power", tc.INEXACT)
and_p = _binary("and", "and", tc.INT_OR_BOOL)
or_p = _binary("or", "or", tc.INT_OR_BOOL)
xor_p = _binary("xor", "xor", tc.INT_OR_BOOL)


def add(x, y):
    """Elementwise x + y (operands of the same dtype; see numlir.numpy.add for promotion)."""
    return add_p.bind(x, y)


def sub(x, y):
    """Elementwise x - y."""
    return sub_p.bind(x, y)


def mul(x, y):
    """Elementwise x * y."""
    return mul_p.bind(x, y)


def div(x, y):
    """Elementwise x / y; integer division rounds toward zero."""
    return div_p.bind(x, y)


def rem(x, y):
    """Elementwise remainder with the sign of x (C's fmod)."""
    return rem_p.bind(x, y)


def max(x, y):  # noqa: A001 - JAX's name
    """Elementwise maximum; NaN propagates for floats, complex numbers compare real part
    first (``lax.max(1 + 2j, 1 + 3j) == 1 + 3j``)."""
    return max_p.bind(x, y)


def min(x, y):  # noqa: A001 - JAX's name
    """Elementwise minimum; complex numbers compare real part first, as in ``max``."""
    return min_p.bind(x, y)


def pow(x, y):  # noqa: A001 - JAX's name
    """Elementwise x ** y."""
    return pow_p.bind(x, y)


def bitwise_and(x, y):
    """Elementwise bitwise (logical, for bool) AND."""
    return and_p.bind(x, y)


def bitwise_or(x, y):
    """Elementwise bitwise (logical, for bool) OR."""
    return or_p.bind(x, y)


def bitwise_xor(x, y):
    """Elementwise bitwise (logical, for bool) XOR."""
    return xor_p.bind(x, y)


def _balanced_eq(x, out, y):
    # 1 where x alone is the extremum, 1/2 where x and y tie (as jax), else 0.
    one, half, zero = const(out, 1), const(out, 0.5), const(out, 0)
    return select(eq(x, out), select(eq(y, out), half, one), zero)


def _pow_jvp_base(t, x, y):
    # JAX's y * x^(y - 1), with no case for y = 0: at x = 0 it is 0 * inf = NaN, which
    # is right for x^x there (no derivative; -inf from the right) though x^0.0 is flat.
    return mul(t, mul(y, pow(x, sub(y, const(y, 1)))))


def _pow_jvp_exponent(t, x, y):
    safe_x = select(eq(x, const(x, 0)), const(x, 1), x)
    return mul(t, mul(log(safe_x), pow(x, y)))


ad.defjvp(add_p, lambda t, x, y: t, lambda t, x, y: t)
ad.defjvp(sub_p, lambda t, x, y: t, lambda t, x, y: neg(t))
ad.defjvp(mul_p, lambda t, x, y: mul(t, y), lambda t, x, y: mul(x, t))
# d(x/y)/dy = -(t/y)(x/y): at y = 0 the second derivative of 1/y is ±inf, as JAX's
# -t x y^-2 gives; -(t x)/(y y) gives NaN there (0 * inf in its own derivative).
ad.defjvp(div_p, lambda t, x, y: div(t, y), lambda t, x, y: neg(mul(div(t, y), div(x, y))))
ad.defjvp(rem_p, lambda t, x, y: t,
          lambda t, x, y: neg(mul(t, mul(sign(div(x, y)), floor(abs(div(x, y)))))))
ad.defjvp(max_p, lambda t, x, y: mul(t, _balanced_eq(x, max(x, y), y)),
          lambda t, x, y: mul(t, _balanced_eq(y, max(x, y), x)))
ad.defjvp(min_p, lambda t, x, y: mul(t, _balanced_eq(x, min(x, y), y)),
          lambda t, x, y: mul(t, _balanced_eq(y, min(x, y), x)))
ad.defjvp(pow_p, _pow_jvp_base, _pow_jvp_exponent)
for _p in (and_p, or_p, xor_p):
    ad.defzero(_p)


# --- Compare ---------------------------------------------------------------------------


def _compare(name: str, direction: str, accepted=tc.ANY) -> core.Primitive:
    prim = core.Primitive(name)
    prim.def_abstract_eval(_binary_abstract_eval(name, accepted, out_dtype=dtypes.bool_))

    @prim.def_lowering
    def _lowering(ctx, x, y):
        shape = ctx.avals_out[0].shape
        x, y = (ctx.broadcast_to(v, a, shape) for v, a in zip((x, y), ctx.avals_in))
        operand_type = core.ShapedArray(shape, ctx.avals_in[0].dtype)
        return ctx.emit(f"hlo.compare {direction}, {x}, {y} : {tensor_type(operand_type)} -> {ctx.type_out()}")

    batching.defbroadcasting(prim)

    return prim


# Complex numbers have equality but no order.
eq_p = _compare("eq", "EQ", tc.ANY_OR_COMPLEX)
ne_p = _compare("ne", "NE", tc.ANY_OR_COMPLEX)
lt_p = _compare("lt", "LT")
le_p = _compare("le", "LE")
gt_p = _compare("gt", "GT")
ge_p = _compare("ge", "GE")


def eq(x, y):
    """Elementwise x == y (bool result)."""
    return eq_p.bind(x, y)


def ne(x, y):
    """Elementwise x != y."""
    return ne_p.bind(x, y)


def lt(x, y):
    """Elementwise x < y."""
    return lt_p.bind(x, y)


def le(x, y):
    """Elementwise x <= y."""
    return le_p.bind(x, y)


def gt(x, y):
    """Elementwise x > y."""
    return gt_p.bind(x, y)


def ge(x, y):
    """Elementwise x >= y."""
    return ge_p.bind(x, y)


for _p in (eq_p, ne_p, lt_p, le_p, gt_p, ge_p):
    ad.defzero(_p)


# --- Select ------------------------------------------------------------------------------

select_p = core.Primitive("select")


@select_p.def_abstract_eval
def _select_abstract_eval(pred, on_true, on_false):
    if pred.dtype != dtypes.bool_:
        raise core.shape_error(f"select requires a bool predicate, got {pred.dtype.name}")
    dtype = tc.check_same_dtypes("select", [on_true, on_false])
    shape = tc.broadcasting_shape("select", [pred, on_true, on_false])
    return core.ShapedArray(shape, dtype, on_true.weak_type and on_false.weak_type)


@select_p.def_lowering
def _select_lowering(ctx, pred, on_true, on_false):
    pred, on_true, on_false = _broadcast_operands(ctx, pred, on_true, on_false)
    pred_type = tensor_type(core.ShapedArray(ctx.avals_out[0].shape, dtypes.bool_))
    return ctx.emit(f"hlo.select {pred}, {on_true}, {on_false} : {pred_type}, {ctx.type_out()}")


batching.defbroadcasting(select_p)


def _select_jvp(primals, tangents):
    pred, on_true, on_false = primals
    out = select(pred, on_true, on_false)
    _, t_true, t_false = tangents
    if isinstance(t_true, ad.Zero) and isinstance(t_false, ad.Zero):
        return out, ad.Zero(core.get_aval(out).strip_weak_type())
    return out, select(pred, ad.instantiate(t_true), ad.instantiate(t_false))


ad.defjvp_rule(select_p, _select_jvp)


def select(pred, on_true, on_false):
    """Elementwise ``on_true if pred else on_false`` (same dtypes; pred is bool)."""
    return select_p.bind(pred, on_true, on_false)


# --- clamp --------------------------------------------------------------------------------

clamp_p = core.Primitive("clamp")


@clamp_p.def_abstract_eval
def _clamp_abstract_eval(lo, x, hi):
    tc.check_dtype("clamp", x, tc.NUMERIC)
    return check_clamp_operands(lo, x, hi)


def check_clamp_operands(lo, x, hi) -> core.ShapedArray:
    """The result aval of clamp(lo, x, hi) after jax's dtype and shape checks (any dtype)."""
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
            v = ad_util.broadcast_in_dim(v, (axis_size, *shape), (0,))  # shape_ops is above
        new.append(v)
    return clamp_p.bind(*new), 0


batching.defrule(clamp_p, _clamp_batch_rule)


def _clamp_jvp_operand(t, lo, x, hi):
    return select(bitwise_and(gt(x, lo), lt(x, hi)), t, const(x, 0))


def _clamp_jvp_bound(compare):
    compare_fn = gt if compare == "gt" else lt

    def fn(t, lo, x, hi):
        bound = lo if compare == "gt" else hi
        t = ad.broadcast_tangent(t, core.get_aval(x).shape)
        return select(compare_fn(bound, x), t, const(x, 0))

    return fn


ad.defjvp(clamp_p, _clamp_jvp_bound("gt"), _clamp_jvp_operand, _clamp_jvp_bound("lt"))


def clamp(min, x, max):
    """Elementwise ``minimum(maximum(x, min), max)``; ``min``/``max`` are scalars or x-shaped."""
    dtype = core.get_aval(x).dtype
    min, max = (
        convert_element_type(v, dtype, weak_type=True) if dtypes.is_python_scalar(v) else v
        for v in (min, max)
    )
    if dtypes.is_complex(dtype):  # hlo.clamp is real-only here: a composition
        from numlir._src.lax import complex_ops  # it imports this module
        return complex_ops.clamp_complex(min, x, max)
    return clamp_p.bind(min, x, max)


# --- Convert ---------------------------------------------------------------------------------

convert_element_type_p = core.Primitive("convert_element_type")


@convert_element_type_p.def_abstract_eval
def _convert_abstract_eval(operand, *, new_dtype, weak_type):
    return core.ShapedArray(operand.shape, new_dtype, weak_type)


@convert_element_type_p.def_lowering
def _convert_lowering(ctx, operand, *, new_dtype, weak_type):
    if ctx.avals_in[0].dtype == ctx.avals_out[0].dtype:
        return operand
    return ctx.emit(f"hlo.convert {operand} : {ctx.type_in()} -> {ctx.type_out()}")


batching.defvectorized(convert_element_type_p)


stop_gradient_p = core.Primitive("stop_gradient")
stop_gradient_p.def_abstract_eval(lambda x: x)
stop_gradient_p.def_lowering(lambda ctx, x: x)
ad.defzero(stop_gradient_p)
batching.defvectorized(stop_gradient_p)


def stop_gradient(x):
    """The identity on values, with a zero derivative (jvp/grad do not flow through it)."""
    return stop_gradient_p.bind(x)


no_derivative_p = core.Primitive("no_derivative")
no_derivative_p.def_abstract_eval(lambda x, *, what: x)
no_derivative_p.def_lowering(lambda ctx, x, *, what: x)
batching.defvectorized(no_derivative_p)


def _no_derivative_jvp(primals, tangents, *, what):
    if not isinstance(tangents[0], ad.Zero):
        raise NotImplementedError(f"{what} is not implemented")
    return primals[0], tangents[0]


ad.defjvp_rule(no_derivative_p, _no_derivative_jvp)


def no_derivative(x, what: str):
    """The identity on values; differentiating through it raises NotImplementedError(``what``
    is not implemented), where a zero derivative would be a silent wrong answer."""
    return no_derivative_p.bind(x, what=what)


def _convert_jvp(primals, tangents, *, new_dtype, weak_type):
    out = convert_element_type_p.bind(primals[0], new_dtype=new_dtype, weak_type=weak_type)
    t = tangents[0]
    if isinstance(t, ad.Zero) or not dtypes.is_inexact(new_dtype):
        return out, ad.Zero(core.get_aval(out).strip_weak_type())
    return out, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=False)


ad.defjvp_rule(convert_element_type_p, _convert_jvp)


def convert_element_type(operand, new_dtype, weak_type: bool = False):
    """Convert ``operand`` to ``new_dtype`` (to bool: ``operand != 0``; float → int truncates).

    Python scalars convert on the host, without a compiled op, as in JAX.
    """
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    if dtypes.is_python_scalar(operand):
        return Array.from_host(dtypes.python_scalar_to_numpy(operand, new_dtype),
                               weak_type=weak_type)
    aval = core.get_aval(operand)
    if aval.dtype == new_dtype and aval.weak_type == weak_type:
        return as_array(operand)
    if dtypes.is_complex(aval.dtype) and not dtypes.is_complex(new_dtype):
        # As jax: the imaginary part is dropped, with numpy's warning, also on the way to bool
        # (jnp.astype and the logical functions compare both parts instead).
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=2)
        if new_dtype == dtypes.bool_:
            operand = convert_element_type_p.bind(
                operand, new_dtype=dtypes.complex_part_dtype(aval.dtype), weak_type=False)
            aval = core.get_aval(operand)
    if new_dtype == dtypes.bool_ and aval.dtype != dtypes.bool_:
        zero = convert_element_type(0, aval.dtype, weak_type=True)
        return ne(operand, zero)
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=bool(weak_type))


# --- Transpose rules (reverse mode) ------------------------------------------------------------


def _unbroadcast_if(x, ct):
    return tr.unbroadcast(ct, x.aval) if tr.is_undefined(x) else None


def _mul_transpose(ct, x, y):
    if tr.is_undefined(x) and tr.is_undefined(y):
        raise AssertionError("mul of two linear values is not linear")
    if tr.is_undefined(x):
        return [tr.unbroadcast(mul(ct, y), x.aval), None]
    return [None, tr.unbroadcast(mul(x, ct), y.aval)]


def _div_transpose(ct, x, y):
    if tr.is_undefined(y):
        raise AssertionError("div is linear in its numerator only")
    return [tr.unbroadcast(div(ct, y), x.aval), None]


def _select_transpose(ct, pred, on_true, on_false):
    if tr.is_undefined(pred):
        raise AssertionError("select is not linear in its predicate")
    zeros = const(ct, 0)
    t = (tr.unbroadcast(select(pred, ct, zeros), on_true.aval)
         if tr.is_undefined(on_true) else None)
    f = (tr.unbroadcast(select(pred, zeros, ct), on_false.aval)
         if tr.is_undefined(on_false) else None)
    return [None, t, f]


def _convert_transpose(ct, operand, *, new_dtype, weak_type):
    old = operand.aval
    return [convert_element_type_p.bind(ct, new_dtype=old.dtype, weak_type=old.weak_type)
            if core.get_aval(ct).dtype != old.dtype else ct]


tr.deftranspose(add_p, lambda ct, x, y: [_unbroadcast_if(x, ct), _unbroadcast_if(y, ct)])
tr.deftranspose(sub_p, lambda ct, x, y: [_unbroadcast_if(x, ct), _unbroadcast_if(y, neg(ct))])
tr.deftranspose(mul_p, _mul_transpose)
tr.deftranspose(div_p, _div_transpose)
tr.deftranspose(select_p, _select_transpose)
tr.deftranspose(convert_element_type_p, _convert_transpose)

ad_util.register_array_op("add", add)
ad_util.register_array_op("convert_element_type", convert_element_type)
