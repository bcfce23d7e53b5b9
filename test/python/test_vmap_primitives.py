"""vmap, one primitive at a time: each case's vmap(f) must equal the stacked per-example
results and jax.vmap of the same function.

A case function takes the library first (``M``: numlir's or jax's lax/numpy/random), so
one definition serves both. Its arguments carry their own batch axis (None: shared by all
examples), which becomes in_axes. The vmapped call and the per-example loop run in the
same numlir module, so they differ only by batching. test_every_batching_rule_is_exercised
checks that the cases reach every primitive's batching rule.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil
from types import SimpleNamespace
from typing import Any, Callable

import jax
import jax.ad_checkpoint
import numpy as np
import pytest

import numlir
from numlir._src import batching, config, core

B = 3  # batch size
rng = np.random.default_rng(0)

NL = SimpleNamespace(lax=numlir.lax, np=numlir.numpy, random=numlir.random, vmap=numlir.vmap,
                     grad=numlir.grad, checkpoint=numlir.checkpoint, custom_jvp=numlir.custom_jvp,
                     custom_vjp=numlir.custom_vjp, checkpoint_name=numlir.checkpoint_name,
                     linearize=numlir.linearize)
JX = SimpleNamespace(lax=jax.lax, np=jax.numpy, random=jax.random, vmap=jax.vmap, grad=jax.grad,
                     checkpoint=jax.checkpoint, custom_jvp=jax.custom_jvp,
                     custom_vjp=jax.custom_vjp, checkpoint_name=jax.ad_checkpoint.checkpoint_name,
                     linearize=jax.linearize)

F32, F64, I32, U32, BOOL = np.float32, np.float64, np.int32, np.uint32, np.bool_


def _values(shape, dtype, kind):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        lo, hi = {"any": (-5, 6), "pos": (1, 6), "shift": (0, 31), "bits": (0, 2**31)}[kind]
        return rng.integers(max(lo, 0) if dtype.kind == "u" else lo, hi, shape).astype(dtype)
    x = {"any": lambda: rng.standard_normal(shape), "pos": lambda: rng.uniform(0.5, 3, shape),
         "unit": lambda: rng.uniform(-0.9, 0.9, shape), "gt1": lambda: rng.uniform(1.1, 3, shape),
         "ties": lambda: rng.integers(-4, 4, shape) + 0.5,
         "special": lambda: rng.choice([np.inf, -np.inf, np.nan, 1.5, -0.0], shape)}[kind]()
    return x.astype(dtype)


def arg(shape, dtype=F32, kind="any", axis=0):
    """Per-example values of ``shape`` stacked along ``axis`` (None: one value for all)."""
    x = _values((1 if axis is None else B,) + tuple(shape), dtype, kind)
    return (x[0] if axis is None else np.moveaxis(x, 0, axis)), axis


def const(x, axis=None):
    """An explicit argument (e.g. indices), batched along ``axis`` if given."""
    return np.asarray(x), axis


@dataclasses.dataclass
class Case:
    id: str
    fn: Callable  # fn(M, *args)
    args: list  # (value, batch axis) pairs
    out_axes: int = 0
    tol: float = 1e-5  # against jax (the loop must agree to 1e-6)
    x64: bool = False


CASES: list[Case] = []


def case(id, fn, *args, **kw):
    CASES.append(Case(id, fn, list(args), **kw))


def _leaves(x):
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(x)]


def _in_axes(c: Case):
    return tuple(a for _, a in c.args)


def _numlir_outputs(c: Case, vals, examples):
    """(vmap(f)(*vals), [f(*example) for each example]), traced on the current trace."""
    f = functools.partial(c.fn, NL)
    return (numlir.vmap(f, in_axes=_in_axes(c), out_axes=c.out_axes)(*vals),
            [f(*e) for e in examples])


def _jax_outputs(c: Case, vals):
    return jax.vmap(functools.partial(c.fn, JX), in_axes=_in_axes(c), out_axes=c.out_axes)(*vals)


def _inputs(c: Case):
    vals = [v for v, _ in c.args]
    examples = [[v if a is None else np.take(v, i, axis=a) for v, a in c.args] for i in range(B)]
    return vals, examples


_FAST_XLA = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}


def compute(cases: list[Case]) -> list:
    """(numlir's vmap, numlir's loop, jax's vmap) for each case, in one module per library."""
    inputs = [_inputs(c) for c in cases]
    nl = numlir.jit(lambda ins: [_numlir_outputs(c, *i) for c, i in zip(cases, ins)])(inputs)
    jx = jax.jit(lambda ins: [_jax_outputs(c, i[0]) for c, i in zip(cases, ins)])
    jx = jx.lower(inputs).compile(compiler_options=_FAST_XLA)(inputs)
    return [(got, loop, want) for (got, loop), want in zip(nl, jx)]


def compare(c: Case, got, loop, want):
    got, want = _leaves(got), _leaves(want)
    per_example = [_leaves(o) for o in loop]
    assert len(got) == len(want) == len(per_example[0])
    for k, (g, w) in enumerate(zip(got, want)):
        stacked = np.stack([p[k] for p in per_example], axis=c.out_axes % g.ndim)
        assert (g.shape, g.dtype) == (stacked.shape, stacked.dtype), f"output {k} against the loop"
        assert (g.shape, g.dtype) == (w.shape, w.dtype), f"output {k} against jax"
        np.testing.assert_allclose(g, stacked, rtol=1e-6, atol=1e-6, err_msg=f"output {k} vs loop")
        np.testing.assert_allclose(g, w, rtol=c.tol, atol=c.tol, err_msg=f"output {k} vs jax")


# --- Elementwise -----------------------------------------------------------------------------

UNARY = {  # name: (fn, dtypes, input kind)
    "abs": (lambda M, x: M.lax.abs(x), (F32, I32), "any"),
    "neg": (lambda M, x: M.lax.neg(x), (F32, I32), "any"),
    "sign": (lambda M, x: M.lax.sign(x), (F32, I32), "any"),
    "floor": (lambda M, x: M.lax.floor(x), (F32,), "any"),
    "ceil": (lambda M, x: M.lax.ceil(x), (F32,), "any"),
    "round_away": (lambda M, x: M.lax.round(x), (F32,), "ties"),
    "round_even": (lambda M, x: M.lax.round(x, M.lax.RoundingMethod.TO_NEAREST_EVEN), (F32,),
                   "ties"),
    "is_finite": (lambda M, x: M.lax.is_finite(x), (F32,), "special"),
    "exp": (lambda M, x: M.lax.exp(x), (F32,), "any"),
    "log": (lambda M, x: M.lax.log(x), (F32,), "pos"),
    "log1p": (lambda M, x: M.lax.log1p(x), (F32,), "pos"),
    "expm1": (lambda M, x: M.lax.expm1(x), (F32,), "any"),
    "tanh": (lambda M, x: M.lax.tanh(x), (F32,), "any"),
    "logistic": (lambda M, x: M.lax.logistic(x), (F32,), "any"),
    "sin": (lambda M, x: M.lax.sin(x), (F32,), "any"),
    "cos": (lambda M, x: M.lax.cos(x), (F32,), "any"),
    "tan": (lambda M, x: M.lax.tan(x), (F32,), "unit"),
    "sqrt": (lambda M, x: M.lax.sqrt(x), (F32,), "pos"),
    "rsqrt": (lambda M, x: M.lax.rsqrt(x), (F32,), "pos"),
    "cbrt": (lambda M, x: M.lax.cbrt(x), (F32,), "any"),
    "asin": (lambda M, x: M.lax.asin(x), (F32,), "unit"),
    "acos": (lambda M, x: M.lax.acos(x), (F32,), "unit"),
    "atan": (lambda M, x: M.lax.atan(x), (F32,), "any"),
    "sinh": (lambda M, x: M.lax.sinh(x), (F32,), "any"),
    "cosh": (lambda M, x: M.lax.cosh(x), (F32,), "any"),
    "asinh": (lambda M, x: M.lax.asinh(x), (F32,), "any"),
    "acosh": (lambda M, x: M.lax.acosh(x), (F32,), "gt1"),
    "atanh": (lambda M, x: M.lax.atanh(x), (F32,), "unit"),
    "erf": (lambda M, x: M.lax.erf(x), (F32,), "any"),
    "erf_inv": (lambda M, x: M.lax.erf_inv(x), (F32,), "unit"),
    "lgamma": (lambda M, x: M.lax.lgamma(x), (F32,), "pos"),
    "digamma": (lambda M, x: M.lax.digamma(x), (F32,), "pos"),
    "stop_gradient": (lambda M, x: M.lax.stop_gradient(x), (F32,), "any"),
    "integer_pow": (lambda M, x: M.lax.integer_pow(x, -3), (F32,), "pos"),
    "not": (lambda M, x: M.lax.bitwise_not(x), (I32, BOOL), "any"),
    "population_count": (lambda M, x: M.lax.population_count(x), (I32,), "any"),
    "clz": (lambda M, x: M.lax.clz(x), (I32,), "bits"),
    "to_int32": (lambda M, x: M.lax.convert_element_type(x, np.int32), (F32, BOOL), "any"),
    "to_float32": (lambda M, x: M.lax.convert_element_type(x, np.float32), (I32, BOOL), "any"),
    "to_bool": (lambda M, x: M.lax.convert_element_type(x, np.bool_), (F32, I32), "any"),
    "bitcast_to_i32": (lambda M, x: M.lax.bitcast_convert_type(x, np.int32), (F32, U32), "any"),
    "bitcast_to_f32": (lambda M, x: M.lax.bitcast_convert_type(x, np.float32), (I32,), "bits"),
    "erfc": (lambda M, x: M.lax.erfc(x), (F32,), "any"),
    "bessel_i0e": (lambda M, x: M.lax.bessel_i0e(x), (F32,), "any"),
    "bessel_i1e": (lambda M, x: M.lax.bessel_i1e(x), (F32,), "any"),
    "reduce_precision": (lambda M, x: M.lax.reduce_precision(x, 5, 10), (F32,), "any"),
}
LOOSE = {"lgamma", "digamma", "erf_inv", "tan", "acosh", "atanh", "polygamma", "zeta", "pow"}

for name, (fn, dts, kind) in UNARY.items():
    tol = 1e-4 if name in LOOSE else 1e-5
    for dt in dts:
        case(f"{name}-{np.dtype(dt).name}", fn, arg((4,), dt, kind), tol=tol)
    # batch axis in the middle going out last, with the first dtype only
    case(f"{name}-in1-out_last", fn, arg((2, 4), dts[0], kind, axis=1), out_axes=-1, tol=tol)

BINARY = {  # name: (fn, dtypes, kind of x, kind of y)
    "add": (lambda M, x, y: M.lax.add(x, y), (F32, I32), "any", "any"),
    "sub": (lambda M, x, y: M.lax.sub(x, y), (F32, I32), "any", "any"),
    "mul": (lambda M, x, y: M.lax.mul(x, y), (F32, I32), "any", "any"),
    "div": (lambda M, x, y: M.lax.div(x, y), (F32, I32), "any", "pos"),
    "rem": (lambda M, x, y: M.lax.rem(x, y), (F32, I32), "any", "pos"),
    "pow": (lambda M, x, y: M.lax.pow(x, y), (F32,), "pos", "any"),
    "max": (lambda M, x, y: M.lax.max(x, y), (F32, I32), "any", "any"),
    "min": (lambda M, x, y: M.lax.min(x, y), (F32, I32), "any", "any"),
    "atan2": (lambda M, x, y: M.lax.atan2(x, y), (F32,), "any", "any"),
    "nextafter": (lambda M, x, y: M.lax.nextafter(x, y), (F32,), "any", "any"),
    "and": (lambda M, x, y: M.lax.bitwise_and(x, y), (I32, BOOL), "any", "any"),
    "or": (lambda M, x, y: M.lax.bitwise_or(x, y), (I32, BOOL), "any", "any"),
    "xor": (lambda M, x, y: M.lax.bitwise_xor(x, y), (I32, BOOL), "any", "any"),
    "shift_left": (lambda M, x, y: M.lax.shift_left(x, y), (I32,), "any", "shift"),
    "shift_right_arithmetic": (lambda M, x, y: M.lax.shift_right_arithmetic(x, y), (I32,), "any",
                               "shift"),
    "shift_right_logical": (lambda M, x, y: M.lax.shift_right_logical(x, y), (I32,), "any",
                            "shift"),
    "eq": (lambda M, x, y: M.lax.eq(x, y), (F32, I32, BOOL), "any", "any"),
    "ne": (lambda M, x, y: M.lax.ne(x, y), (F32, I32), "any", "any"),
    "lt": (lambda M, x, y: M.lax.lt(x, y), (F32, I32), "any", "any"),
    "le": (lambda M, x, y: M.lax.le(x, y), (F32, I32), "any", "any"),
    "gt": (lambda M, x, y: M.lax.gt(x, y), (F32,), "any", "any"),
    "ge": (lambda M, x, y: M.lax.ge(x, y), (I32,), "any", "any"),
    "polygamma": (lambda M, n, x: M.lax.polygamma(M.lax.round(n), x), (F32,), "ties", "pos"),
    "zeta": (lambda M, x, q: M.lax.zeta(x, q), (F32,), "gt1", "pos"),
    "igamma": (lambda M, a, x: M.lax.igamma(a, x), (F32,), "pos", "pos"),
    "igammac": (lambda M, a, x: M.lax.igammac(a, x), (F32,), "pos", "pos"),
    "igamma_grad_a": (lambda M, a, x: M.lax.igamma_grad_a(a, x), (F32,), "pos", "pos"),
    "random_gamma_grad": (lambda M, a, x: M.lax.random_gamma_grad(a, x), (F32,), "pos", "pos"),
}
for name, (fn, dts, kx, ky) in BINARY.items():
    tol = 1e-4 if name in LOOSE else 1e-5
    if name == "polygamma":
        kx = "pos"
    for dt in dts:
        case(f"{name}-{np.dtype(dt).name}-BB", fn, arg((2, 3), dt, kx), arg((2, 3), dt, ky),
             tol=tol)
    dt = dts[0]
    case(f"{name}-BU", fn, arg((2, 3), dt, kx, axis=1), arg((2, 3), dt, ky, axis=None), out_axes=1,
         tol=tol)
    case(f"{name}-UB", fn, arg((2, 3), dt, kx, axis=None), arg((2, 3), dt, ky), tol=tol)
    case(f"{name}-BB_axes_0_last", fn, arg((2, 3), dt, kx), arg((2, 3), dt, ky, axis=-1),
         out_axes=2, tol=tol)

# three operands, each batched or not; and a gamma sample's implicit derivative (its batching
# rule runs when the shape parameter is batched)
case("betainc-BUB", lambda M, a, b, x: M.lax.betainc(a, b, M.lax.abs(x)), arg((2, 3), kind="pos"),
     arg((2, 3), kind="pos", axis=None), arg((2, 3), kind="unit", axis=1))
case("gamma_implicit_derivative", lambda M, a: M.random.gamma(M.random.PRNGKey(0), a, (3,)),
     arg((3,), kind="pos"))

# lax broadcasting of a rank-0 operand against a batched array
case("add-rank0_batched", lambda M, x, s: M.lax.add(x, s), arg((2, 3), axis=1), arg(()))
case("mul-rank0_unbatched", lambda M, x, s: M.lax.mul(x, s), arg((2, 3), axis=1),
     arg((), axis=None))
case("mul-python_scalar", lambda M, x: M.lax.mul(x, 2.5), arg((2, 3), axis=-1))
case("add-float64", lambda M, x, y: M.lax.add(x, y), arg((2,), F64), arg((2,), F64, axis=-1),
     x64=True)
case("exp-float64", lambda M, x: M.lax.exp(x), arg((2, 2), F64, axis=1), x64=True)
case("to_float32-from_float64", lambda M, x: M.lax.convert_element_type(x, np.float32),
     arg((3,), F64), x64=True)
case("bitcast_f64_to_i64", lambda M, x: M.lax.bitcast_convert_type(x, np.int64), arg((3,), F64),
     x64=True)

SELECT = lambda M, p, x, y: M.lax.select(p, x, y)  # noqa: E731
for combo in ["BBB", "BUU", "UBU", "UUB", "UBB", "BUB"]:
    a = [None if c == "U" else i % 2 for i, c in enumerate(combo)]
    case(f"select-{combo}", SELECT, arg((2, 3), BOOL, axis=a[0]), arg((2, 3), axis=a[1]),
         arg((2, 3), axis=a[2]))
case("select-int32", SELECT, arg((4,), BOOL), arg((4,), I32, axis=None), arg((4,), I32))

CLAMP = lambda M, lo, x, hi: M.lax.clamp(lo, x, hi)  # noqa: E731
case("clamp-python_scalar_bounds", lambda M, x: M.lax.clamp(-0.5, x, 0.5), arg((2, 3), axis=1))
case("clamp-rank0_unbatched_bounds", CLAMP, const(np.float32(-0.5)), arg((2, 3)),
     const(np.float32(0.3)))
case("clamp-rank0_batched_bounds", CLAMP, arg((), kind="unit"), arg((2, 3), axis=-1),
     const(np.float32([0.9, 1.0, 1.1]), axis=0))
case("clamp-array_bounds_unbatched", CLAMP, arg((2, 3), axis=None, kind="unit"), arg((2, 3)),
     const(np.ones((2, 3), np.float32)))
case("clamp-array_bounds_batched", CLAMP, arg((2, 3), kind="unit", axis=1), arg((2, 3)),
     arg((2, 3), kind="gt1", axis=-1))
case("clamp-int32", CLAMP, const(np.int32(-1)), arg((4,), I32), arg((4,), I32, "pos"))


# --- Reductions, arg-reductions, cumulative ---------------------------------------------------

RED = {"sum": ((F32, I32), "any"), "prod": ((F32, I32), "any"), "max": ((F32, I32), "any"),
       "min": ((F32, I32), "any"), "and": ((BOOL,), "any"), "or": ((BOOL,), "any")}
for name, (dts, kind) in RED.items():
    fn = (lambda n: lambda M, x, axes: getattr(M.lax, f"reduce_{n}")(x, axes))(name)
    for dt in dts:
        for axes, ax in [((0,), 0), ((1,), 1), ((0, 1), -1), ((0, 2), 2)]:
            shape = (2, 3, 2) if 2 in axes else (2, 3)
            case(f"reduce_{name}-{np.dtype(dt).name}-axes{''.join(map(str, axes))}-in{ax}",
                 functools.partial(lambda fn, axes, M, x: fn(M, x, axes), fn, axes),
                 arg(shape, dt, kind, axis=ax))
case("reduce_sum-float64", lambda M, x: M.lax.reduce_sum(x, (1,)), arg((2, 3), F64, axis=1),
     x64=True)

for name in ["argmax", "argmin"]:
    for dt in (F32, I32):
        for axis, ax in [(0, 0), (1, 1), (1, -1)]:
            case(f"{name}-{np.dtype(dt).name}-axis{axis}-in{ax}",
                 (lambda n, axis: lambda M, x: getattr(M.lax, n)(x, axis, np.int32))(name, axis),
                 arg((2, 3), dt, axis=ax))

for name in ["cumsum", "cumprod", "cummax", "cummin"]:
    for dt in (F32, I32):
        for axis, ax, rev in [(0, 0, False), (1, 1, True), (0, -1, True), (1, 0, False)]:
            case(f"{name}-{np.dtype(dt).name}-axis{axis}-in{ax}{'-reverse' if rev else ''}",
                 (lambda n, a, r: lambda M, x: getattr(M.lax, n)(x, a, r))(name, axis, rev),
                 arg((3, 3), dt, axis=ax), out_axes=ax)
case("cumsum-float64", lambda M, x: M.lax.cumsum(x, 0, True), arg((3,), F64, axis=-1), x64=True)


# --- Shapes -----------------------------------------------------------------------------------

case("broadcast_in_dim-in0", lambda M, x: M.lax.broadcast_in_dim(x, (2, 3), (1,)), arg((3,)))
case("broadcast_in_dim-in1-out1", lambda M, x: M.lax.broadcast_in_dim(x, (2, 4, 3), (0, 2)),
     arg((2, 3), I32, axis=1), out_axes=1)
case("broadcast_in_dim-size1", lambda M, x: M.lax.broadcast_in_dim(x, (2, 3), (0, 1)),
     arg((1, 3), BOOL, axis=-1), out_axes=-1)
case("broadcast_in_dim-rank0", lambda M, x: M.lax.broadcast_in_dim(x, (2,), ()), arg(()))
case("reshape-flatten", lambda M, x: M.lax.reshape(x, (6,)), arg((2, 3), axis=1))
case("reshape-split", lambda M, x: M.lax.reshape(x, (3, 2)), arg((6,), I32), out_axes=2)
case("reshape-dimensions", lambda M, x: M.lax.reshape(x, (6,), (1, 0)), arg((2, 3), axis=-1))
case("transpose-2d", lambda M, x: M.lax.transpose(x, (1, 0)), arg((2, 3)))
case("transpose-3d-in1", lambda M, x: M.lax.transpose(x, (2, 0, 1)), arg((2, 3, 2), I32, axis=1),
     out_axes=3)
case("expand_dims", lambda M, x: M.lax.expand_dims(x, (0, 2)), arg((2, 3), axis=1))
case("squeeze", lambda M, x: M.lax.squeeze(x, (1,)), arg((2, 1, 3), axis=-1))
case("iota_plus_batched", lambda M, x: x + M.lax.iota(np.int32, 3), arg((3,), I32, axis=0))
case("broadcasted_iota_mul", lambda M, x: x * M.lax.broadcasted_iota(np.float32, (2, 3), 1),
     arg((2, 3), axis=1))


# --- Slicing, padding, concatenation ----------------------------------------------------------

case("slice-in0", lambda M, x: M.lax.slice(x, (0, 1), (2, 3)), arg((2, 4)))
case("slice-strides-in1", lambda M, x: M.lax.slice(x, (1, 0), (4, 4), (2, 3)),
     arg((4, 4), I32, axis=1),
     out_axes=1)
case("slice-in_last", lambda M, x: M.lax.slice(x, (1,), (3,)), arg((4,), BOOL, axis=-1))

DS = lambda M, x, i, j: M.lax.dynamic_slice(x, (i, j), (2, 2))  # noqa: E731
IDX3 = const(np.int32([0, 2, 1]), axis=0)  # one start per example
case("dynamic_slice-B_operand", DS, arg((3, 4), axis=1), const(np.int32(1)), const(np.int32(2)))
case("dynamic_slice-B_index", DS, arg((3, 4), axis=None), IDX3, const(np.int32(1)))
case("dynamic_slice-B_all", DS, arg((3, 4), I32, axis=-1), IDX3,
     const(np.int32([3, -1, 1]), axis=0))
case("dynamic_slice-out_of_bounds_clamped", DS, arg((3, 4)), const(np.int32(5)),
     const(np.int32([7, 2, -4]), axis=0), out_axes=1)

DUS = lambda M, x, u, i: M.lax.dynamic_update_slice(x, u, (i, 1))  # noqa: E731
for combo in ["BUU", "UBU", "UUB", "BBU", "BUB", "UBB", "BBB"]:
    a = [None if c == "U" else (0, 1, 0)[k] for k, c in enumerate(combo)]
    case(f"dynamic_update_slice-{combo}", DUS, arg((3, 4), axis=a[0]), arg((2, 2), axis=a[1]),
         const(np.int32([0, 2, 1]) if a[2] is not None else np.int32(1), axis=a[2]))
case("dynamic_update_slice-int32_clamped", DUS, arg((3, 4), I32), arg((2, 3), I32, axis=None),
     const(np.int32([5, -3, 1]), axis=0))

CAT = lambda M, x, y: M.lax.concatenate([x, y], 1)  # noqa: E731
for combo, a in {"BU": (0, None), "UB": (None, 1), "BB_axes_0_last": (0, -1)}.items():
    case(f"concatenate-{combo}", CAT, arg((2, 3), axis=a[0]), arg((2, 2), axis=a[1]))
case("concatenate-three_dim0", lambda M, x, y, z: M.lax.concatenate([x, y, z], 0),
     arg((1, 2), I32), arg((2, 2), I32, axis=None), arg((1, 2), I32, axis=1), out_axes=1)

PADCFG = [(1, 2, 0), (-1, 1, 1)]
case("pad-negative_interior", lambda M, x: M.lax.pad(x, np.float32(0), PADCFG), arg((2, 3), axis=1))
case("pad-B_value", lambda M, x, v: M.lax.pad(x, v, PADCFG), arg((2, 3)), arg(()), out_axes=-1)
case("pad-B_value_only", lambda M, x, v: M.lax.pad(x, v, [(0, 1, 1)]), arg((2,), axis=None),
     arg(()))
case("pad-int32", lambda M, x: M.lax.pad(x, np.int32(-1), [(-1, 0, 2)]), arg((3,), I32, axis=-1))

case("rev-dim0", lambda M, x: M.lax.rev(x, (0,)), arg((2, 3), axis=1))
case("rev-both", lambda M, x: M.lax.rev(x, (0, 1)), arg((2, 3), I32))


# --- Gather and scatter (through numpy-style indexing) -----------------------------------------

IDX = const(np.int32([[0, 3], [2, 2], [1, 0]]), axis=0)  # two indices per example
IDXU = const(np.int32([3, 1]))
UIDX = const(np.int32([[0, 3], [2, 1], [1, 0]]), axis=0)  # unique within each example
GET = lambda M, x, i: M.np.asarray(x)[i]  # noqa: E731  (x may be a plain numpy array under jax)
case("gather-B_operand", GET, arg((4, 2), axis=1), IDXU)
case("gather-B_indices", GET, arg((4, 2), axis=None), IDX)
case("gather-B_both", lambda M, x, i: x[:, i], arg((2, 4), I32, axis=-1), IDX, out_axes=1)
case("gather-two_index_arrays", lambda M, x, i, j: x[i, j], arg((4, 3)), IDX,
     const(np.int32([2, 0])))
case("gather-scalar_B_index", GET, arg((4, 2), axis=None), const(np.int32([3, 0, 2]), 0))
case("gather-negative_index", GET, arg((4,), BOOL), const(np.int32([-1, -4])))
case("gather-take_along_axis", lambda M, x, i: M.np.take_along_axis(x, i, axis=1),
     arg((2, 3)), const(np.int32([[[0, 2], [1, 1]]] * 3), axis=0))
GDN = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
case("gather-lax_direct",
     lambda M, x, i: M.lax.gather(x, i, M.lax.GatherDimensionNumbers(**GDN), (1, 2)),
     arg((4, 2), axis=1), const(np.int32([[[1], [3]], [[0], [0]], [[2], [1]]]), axis=0))

UPD = {"set": F32, "add": F32, "mul": F32, "min": I32, "max": F32}
for kind, dt in UPD.items():
    up = (lambda k: lambda M, x, i, u: getattr(M.np.asarray(x).at[i], k)(u))(kind)
    idx = UIDX if kind == "set" else IDX  # duplicate indices make "set" order-dependent
    case(f"scatter_{kind}-B_operand", up, arg((4, 2), dt, axis=1), IDXU, arg((2, 2), dt, axis=None))
    case(f"scatter_{kind}-B_indices", up, arg((4, 2), dt, axis=None), idx,
         arg((2, 2), dt, axis=None))
    case(f"scatter_{kind}-B_updates", up, arg((4, 2), dt, axis=None), IDXU,
         arg((2, 2), dt, axis=-1))
    case(f"scatter_{kind}-B_all", up, arg((4, 2), dt, axis=-1), idx, arg((2, 2), dt, axis=1),
         out_axes=1)
    case(f"scatter_{kind}-scalar_update", (lambda k: lambda M, x, i: getattr(x.at[i], k)(2))(kind),
         arg((4,), dt), idx)
case("scatter_add-float64", lambda M, x, i, u: M.np.asarray(x).at[i].add(u),
     arg((4,), F64, axis=None), IDX, arg((2,), F64), x64=True)
case("scatter_add-B_index_2d", lambda M, x, i, j: x.at[i, j].add(1.0), arg((4, 3), axis=1), IDX,
     const(np.int32([2, 0])))


# --- Contractions, windows, sorting ----------------------------------------------------------

MATMUL = lambda M, x, y: M.lax.dot_general(x, y, (((1,), (0,)), ((), ())))  # noqa: E731
for combo, a in {"BU": (0, None), "UB": (None, 1), "BB": (0, 0), "BB_axes_1_last": (1, -1)}.items():
    case(f"dot_general-{combo}", MATMUL, arg((2, 3), axis=a[0]), arg((3, 4), axis=a[1]),
         out_axes=-1 if combo == "UB" else 0)
BMM = lambda M, x, y: M.lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,))))  # noqa: E731
for combo, a in {"BU": (2, None), "UB": (None, 0), "BB_axes_0_last": (0, -1)}.items():
    case(f"dot_general-batch_dims-{combo}", BMM, arg((2, 2, 3), axis=a[0]),
         arg((2, 3, 2), axis=a[1]))
case("dot_general-int32", MATMUL, arg((2, 3), I32), arg((3, 2), I32, axis=1))
case("dot_general-vector", lambda M, x, y: M.lax.dot_general(x, y, (((0,), (0,)), ((), ()))),
     arg((3,)), arg((3,), axis=None))
case("dot_general-float64", MATMUL, arg((2, 3), F64), arg((3, 2), F64, axis=None), x64=True)

RW = {"sum": ("add", 0.0), "max": ("max", -np.inf), "min": ("min", np.inf), "prod": ("mul", 1.0)}
for kind, (op, init) in RW.items():
    for tag, win, strides, pad, ax in [("1d", (2,), (1,), "VALID", 0),
                                       ("2d_strides", (2, 2), (1, 2), "VALID", 1),
                                       ("same_padding", (3,), (2,), "SAME", -1),
                                       ("explicit_padding", (2, 1), (1, 1), ((1, 0), (0, 1)), 0)]:
        shape = (5,) if len(win) == 1 else (3, 4)
        case(f"reduce_window_{kind}-{tag}",
             (lambda op, init, win, strides, pad: lambda M, x: M.lax.reduce_window(
                 x, init, getattr(M.lax, op), win, strides, pad))(op, init, win, strides, pad),
             arg(shape, axis=ax))
for kind, init in [("and", True), ("or", False)]:
    case(f"reduce_window_{kind}-bool",
         (lambda k, init: lambda M, x: M.lax.reduce_window(x, init, getattr(M.lax, f"bitwise_{k}"),
                                                           (2,), (1,), "VALID"))(kind, init),
         arg((4,), BOOL, axis=-1))
case("reduce_window_max-int32", lambda M, x: M.lax.reduce_window(
    x, np.int32(-100), M.lax.max, (2,), (2,), "VALID"), arg((4,), I32))

case("sort-dim0", lambda M, x: M.lax.sort(x, 0), arg((3, 2), axis=1))
case("sort-dim1-in_last", lambda M, x: M.lax.sort(x, 1), arg((2, 3), I32, axis=-1), out_axes=1)
case("sort-float64", lambda M, x: M.lax.sort(x), arg((4,), F64), x64=True)
SORT2 = lambda M, k, v: M.lax.sort((k, v), num_keys=1)  # noqa: E731
for combo, a in {"BU": (0, None), "UB": (None, 0), "BB_axes_0_last": (0, -1)}.items():
    case(f"sort-multi_operand-{combo}", SORT2, arg((4,), I32, axis=a[0]), arg((4,), axis=a[1]))
case("sort-num_keys2", lambda M, a, b, v: M.lax.sort((a, b, v), num_keys=2),
     const(np.int32([[1, 0, 1, 0]] * 3), axis=0), arg((4,), I32, axis=None), arg((4,), axis=-1))
case("sort-bool_keys", SORT2, arg((4,), BOOL), arg((4,), I32))
case("sort_key_val", lambda M, k, v: M.lax.sort_key_val(k, v), arg((2, 3)),
     arg((2, 3), I32, axis=1))
case("argsort", lambda M, x: M.np.argsort(x, axis=0), arg((3, 2), axis=1))
case("top_k", lambda M, x: M.lax.top_k(x, 2), arg((4,)))
case("top_k-2d-in1", lambda M, x: M.lax.top_k(x, 2), arg((2, 4), I32, axis=1), out_axes=1)


# --- Control flow ------------------------------------------------------------------------------


def _cond(M, p, x):
    return M.lax.cond(p > 0, lambda v: v * 2.0, lambda v: -v, x)


for combo, a in {"B_pred": (0, None), "B_operand": (None, 1), "B_both": (0, -1)}.items():
    case(f"cond-{combo}", _cond, arg((), axis=a[0]), arg((2,), axis=a[1]))
case("cond-closure_over_batched",
     lambda M, p, x: M.lax.cond(p > 0, lambda: x + 1.0, lambda: x * 3.0),
     arg((), axis=None), arg((2,)))
case("cond-B_pred_tuple_out", lambda M, p, x, y: M.lax.cond(
    p, lambda a, b: (a, b + 1), lambda a, b: (a * 2.0, b), x, y), arg((), BOOL),
    arg((2,), axis=None),
    arg((), I32, axis=None))


def _switch(M, i, x):
    return M.lax.switch(i, [lambda v: v + 1.0, lambda v: v * v, lambda v: -v], x)


case("switch-B_index", _switch, const(np.int32([2, 0, 5]), axis=0), arg((2,), axis=None))
case("switch-B_operand", _switch, const(np.int32(1)), arg((2,), axis=1))
case("switch-B_both", _switch, const(np.int32([-1, 1, 2]), axis=0), arg((2,)))


def _while_count(M, k, x):  # runs each example to its own trip count
    return M.lax.while_loop(lambda c: c[0] < k, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))


case("while-B_pred", _while_count, const(np.int32([1, 4, 2]), axis=0), arg((2,), axis=None))
case("while-B_pred_and_carry", _while_count, const(np.int32([3, 0, 2]), axis=0), arg((2,), axis=1))
case("while-U_pred_B_carry", _while_count, const(np.int32(2)), arg((2,), axis=-1), out_axes=-1)
case("while-pred_from_carry", lambda M, x: M.lax.while_loop(lambda v: v.sum() < 10.0,
                                                           lambda v: v + 1.0, x), arg((2,)))


def _scan(M, c0, xs):
    return M.lax.scan(lambda c, x: (c + x, c * x), c0, xs)


for combo, a in {"B_xs": (None, 1), "B_init": (0, None), "B_both": (0, 0)}.items():
    case(f"scan-{combo}", _scan, arg((), axis=a[0]), arg((3,), axis=a[1]))
case("scan-reverse",
     lambda M, xs: M.lax.scan(lambda c, x: (c * x, c), M.np.ones(2), xs, reverse=True),
     arg((3, 2), axis=-1))
case("scan-length_closure", lambda M, w: M.lax.scan(lambda c, _: (c @ w, c.sum()),
                                                    M.np.ones(2), None, length=3),
     arg((2, 2), axis=1))
case("fori_loop", lambda M, x: M.lax.fori_loop(0, 3, lambda i, c: c * x + i, x), arg((2,)))
case("fori_loop-B_upper", lambda M, n, x: M.lax.fori_loop(0, n, lambda i, c: c + x, x),
     const(np.int32([0, 3, 1]), axis=0), arg((2,), axis=None))


# --- Random, autodiff wrappers ---------------------------------------------------------------

KEYS = const(np.asarray(jax.random.split(jax.random.PRNGKey(7), B)), axis=0)
case("random-uniform", lambda M, k: M.random.uniform(k, (2,)), KEYS)
case("random-normal", lambda M, k: M.random.normal(k, (2,)), KEYS, out_axes=1)
case("random-split", lambda M, k: M.random.split(k, 2), KEYS)
case("random-fold_in", lambda M, k: M.random.fold_in(k, 5), KEYS)
case("random-fold_in_B_data", lambda M, k, d: M.random.fold_in(k, d), const(np.uint32([0, 42])),
     const(np.uint32([1, 2, 3]), axis=0))
case("random-randint_keys_last", lambda M, k: M.random.randint(k, (3,), 0, 10),
     const(np.asarray(jax.random.split(jax.random.PRNGKey(1), B)).T, axis=-1))
case("random-bits", lambda M, k: M.random.bits(k, (2,)), KEYS)


def _softplus(M):
    @M.custom_jvp
    def f(x):
        return M.np.log1p(M.np.exp(x))

    f.defjvp(lambda p, t: (f(p[0]), t[0] * M.lax.logistic(p[0])))
    return f


def _clip_grad(M):
    @M.custom_vjp
    def f(x):
        return M.np.sin(x)

    f.defvjp(lambda x: (M.np.sin(x), M.np.cos(x)), lambda c, g: (M.np.clip(g * c, -0.5, 0.5),))
    return f


case("custom_jvp", lambda M, x: _softplus(M)(x), arg((3,)))
case("custom_jvp-grad", lambda M, x: M.grad(lambda v: _softplus(M)(v).sum())(x), arg((3,), axis=-1))
case("custom_vjp", lambda M, x: _clip_grad(M)(x), arg((3,), axis=-1))
case("custom_vjp-grad", lambda M, x: M.grad(lambda v: (_clip_grad(M)(v) * v).sum())(x), arg((3,)))
case("checkpoint", lambda M, x: M.checkpoint(lambda v: M.np.sin(v) * v)(x), arg((3,)))
case("checkpoint-grad", lambda M, x: M.grad(lambda v: M.checkpoint(
    lambda u: M.np.sin(u).sum())(v))(x), arg((2, 2), axis=1))
case("checkpoint_name", lambda M, x: M.checkpoint_name(x * 2.0, "h"), arg((3,), axis=-1))


# --- Edge cases of the rules above ----------------------------------------------------------

case("select-rank0_pred", SELECT, arg((), BOOL), arg((2, 3), axis=1), arg((2, 3), axis=None))
case("select-rank0_pred_unbatched", SELECT, arg((), BOOL, axis=None), arg((3,)), arg((3,), axis=-1))
OOB = const(np.int32([[0, 9], [-7, 2], [4, 1]]), axis=0)  # out of bounds for a size-4 axis
case("gather-fill_out_of_bounds",
     lambda M, x, i: M.np.asarray(x).at[i].get(mode="fill", fill_value=-1.0),
     arg((4, 2), axis=1), OOB)
case("gather-clip_out_of_bounds", lambda M, x, i: M.np.asarray(x).at[i].get(mode="clip"),
     arg((4,), I32, axis=None), OOB)
case("scatter_add-drop_out_of_bounds", lambda M, x, i, u: M.np.asarray(x).at[i].add(u, mode="drop"),
     arg((4,)), OOB, arg((2,), axis=None))
case("scatter-clip_out_of_bounds", lambda M, x, i: M.np.asarray(x).at[i].set(7.0, mode="clip"),
     arg((4,), axis=-1), const(np.int32([[9], [-9], [1]]), axis=0))
case("scatter_add-B_operand_updates", lambda M, x, i, u: M.np.asarray(x).at[i].add(u),
     arg((4, 2), axis=-1), IDXU, arg((2, 2)))
case("scatter-row_at_B_scalar_index", lambda M, x, i, r: M.np.asarray(x).at[i].set(r),
     arg((3, 2), axis=None), const(np.int32([2, 0, 1]), axis=0), arg((2,)))
case("reduce_window_sum-base_dilation", lambda M, x: M.lax.reduce_window(
    x, 0.0, M.lax.add, (2,), (1,), "VALID", base_dilation=(2,)), arg((3,), axis=-1))
case("reduce_window_max-window_dilation", lambda M, x: M.lax.reduce_window(
    x, -np.inf, M.lax.max, (2, 2), (1, 1), ((0, 1), (1, 0)), window_dilation=(2, 1)),
    arg((4, 3), axis=1), out_axes=2)
case("top_k-batch_last", lambda M, x: M.lax.top_k(x, 3), arg((2, 4), axis=-1), out_axes=-1)
case("cond-B_pred_constant_branches",
     lambda M, x: M.lax.cond(x.sum() > 0, lambda: 1.0, lambda: -2.0),
     arg((3,)))
case("while-B_closure_in_body", lambda M, x: M.lax.while_loop(
    lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, M.np.ones(2))), arg((2,), axis=1))
case("scan-B_closure", lambda M, w, xs: M.lax.scan(lambda c, x: (c * w + x, c), M.np.zeros(2), xs),
     arg((2,)), arg((3, 2), axis=None))
case("nested_vmap", lambda M, x: M.vmap(lambda r: (r * r).sum(), in_axes=1)(x), arg((2, 3), axis=1))
case("nested_vmap-closure", lambda M, x, y: M.vmap(lambda r: r * y)(x), arg((2, 3)),
     arg((3,), axis=-1))
case("random-uniform_B_bounds",
     lambda M, k, lo: M.random.uniform(k, (2,), minval=lo, maxval=lo + 1.0),
     const(np.asarray(jax.random.PRNGKey(3))), arg(()))
case("random-permutation", lambda M, k: M.random.permutation(k, 5), KEYS)
case("random-bernoulli", lambda M, k, p: M.random.bernoulli(k, p, (4,)), KEYS,
     const(np.float32([0.1, 0.5, 0.9]), axis=0))


GDN_B = dict(offset_dims=(1,), collapsed_slice_dims=(1,), start_index_map=(1,),
             operand_batching_dims=(0,), start_indices_batching_dims=(0,))
case("gather-lax_batching_dims",
     lambda M, x, i: M.lax.gather(x, i, M.lax.GatherDimensionNumbers(**GDN_B), (1, 1, 2)),
     arg((2, 3, 2), axis=-1), const(np.int32([[[1], [2]], [[0], [0]]]), axis=None))
case("gather-lax_batching_dims-B_indices",
     lambda M, x, i: M.lax.gather(x, i, M.lax.GatherDimensionNumbers(**GDN_B), (1, 1, 2)),
     arg((2, 3, 2), axis=None),
     const(np.int32([[[[1], [2]], [[0], [0]]], [[[0], [1]], [[2], [0]]],
                     [[[2], [2]], [[1], [0]]]]), axis=0))
case("scan-cond_on_B_carry", lambda M, xs: M.lax.scan(
    lambda c, x: (M.lax.cond(c > 0, lambda: c - x, lambda: c + x), c), 0.5, xs), arg((4,), axis=-1))
case("cond-B_pred_while_inside", lambda M, n, x: M.lax.cond(
    x.sum() > 0, lambda: M.lax.fori_loop(0, n, lambda i, c: c * 2.0, x), lambda: x),
    const(np.int32(3)), arg((2,)))
case("scan-dynamic_slice_B_index", lambda M, x, i: M.lax.scan(
    lambda c, _: (c + M.lax.dynamic_slice(x, (i,), (2,)), None), M.np.zeros(2), None, length=2)[0],
    arg((4,), axis=None), const(np.int32([0, 3, 1]), axis=0))


# --- Tests -----------------------------------------------------------------------------------


# Compiling a module per case would dominate the run time, so cases are computed in groups
# (one numlir and one jax module each, at a low optimization level) and checked one by one.
# A group that fails to trace or compile is retried case by case, so the error lands on the
# case that caused it.
GROUP_SIZE = 10
_GROUP_OF = {}
for _x64 in (False, True):
    _cs = [c for c in CASES if c.x64 == _x64]
    for _i in range(0, len(_cs), GROUP_SIZE):
        _GROUP_OF.update((id(c), _cs[_i:_i + GROUP_SIZE]) for c in _cs[_i:_i + GROUP_SIZE])
_RESULTS: dict[int, Any] = {}
_BROKEN_GROUPS: set[int] = set()


def results(c: Case):
    group = _GROUP_OF[id(c)]
    if id(c) not in _RESULTS and id(group) not in _BROKEN_GROUPS:
        try:
            _RESULTS.update(zip(map(id, group), compute(group)))
        except Exception:  # noqa: BLE001  (each case reruns alone, raising for its own error)
            _BROKEN_GROUPS.add(id(group))
    if id(c) not in _RESULTS:
        _RESULTS[id(c)] = compute([c])[0]
    return _RESULTS[id(c)]


@pytest.fixture(scope="module", autouse=True)
def _fast_cpu_codegen():
    prev = config.flags.cpu_opt_level
    config.update("cpu_opt_level", 0)  # batching is decided before codegen; O0 compiles ~4x faster
    yield
    config.update("cpu_opt_level", prev)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_vmap_primitive(c, request):
    if c.x64:
        request.getfixturevalue("x64")
    # Grouped compilation is itself a test of the backend: cases sharing a module must not
    # disturb each other (it found hlo.case results being overwritten by a later op).
    compare(c, *results(c))


def test_case_ids_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def _jvp_of_custom_vjp_under_vmap(M):
    f = _clip_grad(M)
    f_jvp = M.linearize(f, np.float32([0.5, 1.0]))[1]
    M.vmap(f_jvp)(np.ones((B, 2), np.float32))


def test_custom_lin_under_vmap_refuses_forward_mode_like_jax():
    """custom_lin (the tangent map of a custom_vjp function) only reaches vmap through
    linearize, whose tangent function both libraries refuse to run."""
    with pytest.raises(TypeError, match="forward-mode"):
        _jvp_of_custom_vjp_under_vmap(NL)
    with pytest.raises(TypeError, match="forward-mode"):
        _jvp_of_custom_vjp_under_vmap(JX)


# Primitives without a case here: conv_general_dilated has its own vmap tests; iota takes no
# operands, so vmap never calls a rule for it (the iota cases above still run it under vmap);
# no_derivative has no jax counterpart and is batched by random.gamma under vmap
# (test_random_gamma.py, test_vmap_over_the_shape_parameter_matches_jax).
NOT_COVERED_HERE = {"conv_general_dilated", "iota", "no_derivative"}
# Collectives have named-axis rules instead (batching.named_axis_rules): test_collectives.py.
NOT_COVERED_HERE |= {prim.name for prim in batching.named_axis_rules}
# Batched against jax in their own files: the parts of complex numbers (test_complex.py), the
# FFT (test_fft.py), checkify's check (test_checkify.py), the custom solvers and
# rng_bit_generator (test_lax_solvers_rng.py), scipy.special's newer functions
# (test_scipy_special_more.py, wofz in test_scipy_special_complex.py), and the host
# callbacks, whose batching is each vmap_method's (test_host_callbacks.py).
NOT_COVERED_HERE |= {"real", "imag", "complex", "conj", "fft", "check", "custom_linear_solve",
                     "custom_root", "rng_bit_generator", "cosine_integral", "sine_integral",
                     "dawsn", "expi", "expn", "fresnel_c", "fresnel_s", "hyp1f1", "hyp1f1_da",
                     "hyp1f1_db", "hyp2f1", "hyp2f1_da", "hyp2f1_db", "hyp2f1_dc", "owens_t",
                     "spence", "spence_slope", "wofz", "debug_callback", "pure_callback"}
# The linear algebra that calls LAPACK on the CPU is batched against loops and jax in its own
# files (test_library_calls.py, test_library_decompositions.py); geqrf and orgqr are bound
# only inside qr's CPU lowering, after batching.
NOT_COVERED_HERE |= {"cholesky", "lu", "triangular_solve", "qr", "geqrf", "orgqr", "eigh",
                     "svd", "eig", "real_schur", "complex_schur"}
# shard_map_p is bound only where jit traces its own function, which no transformation sees
# (jit under vmap inlines, and shard_map then runs as vmaps): test_shard_map.py.
NOT_COVERED_HERE |= {"shard_map"}


def test_every_batching_rule_is_exercised(monkeypatch):
    """Trace every case under vmap and record which primitives' rules ran."""
    used = set()

    def recording(prim, rule):
        def rec(*args, **params):
            used.add(prim.name)
            return rule(*args, **params)
        return rec

    for prim, rule in list(batching.batching_rules.items()):
        monkeypatch.setitem(batching.batching_rules, prim, recording(prim, rule))
    for c in CASES:
        if c.x64:
            continue  # their primitives all have float32 cases too
        f = numlir.vmap(functools.partial(c.fn, NL), in_axes=_in_axes(c), out_axes=c.out_axes)
        numlir.make_graph(f)(*[v for v, _ in c.args])
    with pytest.raises(TypeError):
        _jvp_of_custom_vjp_under_vmap(NL)  # runs custom_lin's rule
    every = set()
    for mod in pkgutil.walk_packages(numlir._src.__path__, "numlir._src."):
        every |= {v.name for v in vars(importlib.import_module(mod.name)).values()
                  if isinstance(v, core.Primitive)}
    missing = every - used - NOT_COVERED_HERE
    assert not missing, f"primitives whose batching rule no case runs: {sorted(missing)}"
