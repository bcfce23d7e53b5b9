"""Random, well-typed programs over numlir's public API (``jnp``, ``lax``, ``nn``).

A program grows one op at a time. An op family picks operands among the
values so far (preferring recent, unused ones, so ops compose into chains),
makes up its attributes (axes, index expressions, einsum specs, dimension
numbers, ...) and, when no existing value fits, a fresh input of the shape it
needs. jax's ``eval_shape`` is the shape and dtype oracle: a candidate that jax
rejects is dropped, so programs are well typed by jax's rules, including
promotion and x64, without a second copy of those rules here.

Two facts are tracked per value so the comparison stays meaningful:

- ``bound``: an upper bound on ``|value|``. Growth (exp, products, sums) is
  refused past a limit, so nothing overflows or loses all precision.
- ``distinct``: whether the elements are (almost surely) pairwise distinct and
  away from exact zeros. In a program whose gradient is checked, ops with a
  kink (max, sort, relu, abs, cummax, max pooling, ...) only get distinct
  operands: at a tie, the gradient is a convention, not a number.

log, sqrt, division and friends see ``x * x + c``: defined and smooth everywhere.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Callable

import numpy as np

from . import render
from .program import Aval, Input, Op, Program

MAX_ELEMS = 256
MAX_RANK = 6
FLOAT_LIMIT = 1e4
INT_LIMIT = 1e6
DIMS = (1, 1, 1, 2, 2, 3, 3, 4, 5)
RANK_WEIGHTS = (0.08, 0.2, 0.3, 0.25, 0.17)

#: Program families: the main dtype, whether x64 is on, and their weights.
FAMILIES = (("float32", False, 0.42), ("float64", True, 0.14), ("bfloat16", False, 0.1),
            ("int32", False, 0.22), ("bool", False, 0.07), ("int32", True, 0.05))


@dataclasses.dataclass
class Val:
    name: str
    aval: Aval
    bound: float
    distinct: bool

    @property
    def cat(self) -> str:
        """``f`` (floating), ``i`` (integer) or ``b`` (bool)."""
        return "f" if self.aval.is_float else ("b" if self.aval.dtype == "bool" else "i")

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def ndim(self) -> int:
        return self.aval.ndim


class Rejected(Exception):
    """An op family cannot apply here; the builder tries another."""


def _jax():
    import jax

    return jax


class Builder:
    """The state of one program while it grows."""

    def __init__(self, rng: np.random.Generator, dtype: str, x64: bool, differentiable: bool,
                 batch_size: int):
        self.rng = rng
        self.dtype = dtype
        self.x64 = x64
        self.differentiable = differentiable
        self.batch_size = batch_size
        self.vals: list[Val] = []
        self.inputs: list[Input] = []
        self.ops: list[Op] = []
        self.used: set[str] = set()

    # -- randomness helpers -------------------------------------------------
    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def choice(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def dim(self) -> int:
        return int(self.choice(DIMS))

    def shape(self, rank: int | None = None) -> tuple[int, ...]:
        if rank is None:
            rank = int(self.rng.choice(len(RANK_WEIGHTS), p=RANK_WEIGHTS))
        return tuple(self.dim() for _ in range(rank))

    # -- values ---------------------------------------------------------------
    def draw(self, shape, dtype: str, low: int | None = None, high: int | None = None) -> np.ndarray:
        """Inputs: floats of magnitude in [0.25, 2] (no zeros, no huge values), small ints, coin flips."""
        if dtype == "bool":
            return np.asarray(self.rng.random(shape) < 0.5)
        if dtype.startswith("int"):
            lo = -5 if low is None else low
            hi = 5 if high is None else high
            return np.asarray(self.rng.integers(lo, hi + 1, size=shape), dtype=dtype)
        mag = self.rng.uniform(0.25, 2.0, size=shape)
        sign = np.where(self.rng.random(shape) < 0.5, -1.0, 1.0)
        return np.asarray(mag * sign).astype(_np_dtype(dtype))

    def input(self, shape, dtype: str | None = None, low: int | None = None,
              high: int | None = None) -> Val:
        dtype = dtype or self.dtype
        name = f"x{len(self.inputs)}"
        value = self.draw(shape, dtype, low, high)
        batch_axis = None
        if self.chance(0.75):
            batch_axis = int(self.rng.integers(len(shape) + 1)) if self.chance(0.25) else 0
        batched = None
        if batch_axis is not None:
            samples = [self.draw(shape, dtype, low, high) for _ in range(self.batch_size)]
            batched = np.stack(samples, axis=batch_axis)
        self.inputs.append(Input(name, value, batch_axis, batched))
        if dtype == "bool":
            bound = 1.0
        elif dtype.startswith("int"):
            bound = float(max(abs(low if low is not None else -5), abs(high if high is not None else 5)))
        else:
            bound = 2.0
        # bfloat16 rounding makes repeated values likely: no tie-freedom to promise.
        val = Val(name, Aval(tuple(shape), dtype), bound,
                  distinct=(dtype in ("float32", "float64")))
        self.vals.append(val)
        return val

    def pick(self, pred: Callable[[Val], bool] = lambda v: True, exclude=(),
             allow_empty: bool = False) -> Val:
        """An operand; empty arrays only for op families that asked for them."""
        cands = [v for v in self.vals if pred(v) and v.name not in exclude
                 and (allow_empty or v.aval.size > 0)]
        if not cands:
            raise Rejected("no operand")
        n = len(self.vals)
        weights = np.array([(1.0 + 2.0 * self.vals.index(v) / n)
                            * (3.0 if v.name not in self.used else 1.0) for v in cands])
        return cands[int(self.rng.choice(len(cands), p=weights / weights.sum()))]

    def partner(self, shape, cat: str, pred: Callable[[Val], bool], exclude=()) -> Val:
        """An existing value satisfying ``pred``, or a fresh input of ``shape``."""
        cands = [v for v in self.vals if v.cat == cat and pred(v) and v.name not in exclude
                 and v.aval.size > 0]
        if cands and self.chance(0.55):
            return self.choice(cands)
        return self.input(shape, self.dtype_of(cat))

    def dtype_of(self, cat: str) -> str:
        if cat == "f":
            return self.dtype if self.dtype in ("float32", "float64", "bfloat16") else "float32"
        if cat == "i":
            return "int32"
        return "bool"

    def kink_ok(self, *vals: Val) -> bool:
        """A kinked op may take these operands: no gradient check, or no ties to fall on."""
        return (not self.differentiable) or all(v.distinct or v.cat != "f" for v in vals)

    # -- ops --------------------------------------------------------------------
    def emit(self, kind: str, template: str, args, bound: float, distinct: bool = False) -> Val:
        args = list(args)
        aval = infer(template, [a.aval for a in args])
        if aval is None:
            raise Rejected(f"jax rejects {template}")
        if (aval.size == 0 and not self.chance(0.15)) or aval.size > MAX_ELEMS or aval.ndim > MAX_RANK:
            raise Rejected("size")  # empty arrays now and then: an edge case of every op
        if aval.dtype == "bool":
            bound = 1.0
        limit = FLOAT_LIMIT if aval.is_float else INT_LIMIT
        if not math.isfinite(bound) or bound > limit:
            raise Rejected("bound")
        name = f"v{len(self.ops)}"
        self.ops.append(Op(name, kind, template, tuple(a.name for a in args), aval))
        self.used.update(a.name for a in args)
        val = Val(name, aval, float(bound), bool(distinct and aval.is_float))
        self.vals.append(val)
        return val


def _np_dtype(name: str):
    if name == "bfloat16":
        import ml_dtypes

        return ml_dtypes.bfloat16
    return np.dtype(name)


_INFER_CACHE: dict = {}


def infer(template: str, avals: list[Aval]) -> Aval | None:
    """The op's result aval by jax's rules, or None where jax rejects it."""
    jax = _jax()
    key = (template, tuple(avals), bool(jax.config.jax_enable_x64))
    if key in _INFER_CACHE:
        return _INFER_CACHE[key]
    result = None
    try:
        fn = render.build_expression(template, len(avals), "jax")
        structs = [jax.ShapeDtypeStruct(a.shape, _np_dtype(a.dtype)) for a in avals]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = jax.eval_shape(fn, *structs)
        if isinstance(out, jax.ShapeDtypeStruct):
            result = Aval(tuple(int(d) for d in out.shape), np.dtype(out.dtype).name)
    except Exception:  # noqa: BLE001 - any rejection means "not this op"
        result = None
    _INFER_CACHE[key] = result
    return result


# -- attribute helpers ------------------------------------------------------------------

def axes_arg(b: Builder, ndim: int, allow_none: bool = True, allow_tuple: bool = True) -> str:
    """``None``, an axis (maybe negative) or a tuple of axes, as source text."""
    if ndim == 0 or (allow_none and b.chance(0.2)):
        return "None"
    if allow_tuple and b.chance(0.35):
        k = int(b.rng.integers(1, ndim + 1))
        axes = [int(a) for a in b.rng.permutation(ndim)[:k]]
        axes = [a - ndim if b.chance(0.3) else a for a in axes]
        return "(" + "".join(f"{a}, " for a in axes).rstrip() + ")"
    a = int(b.rng.integers(ndim))
    return str(a - ndim if b.chance(0.3) else a)


def reduced_count(shape, axes: str) -> int:
    ax = eval(axes)
    if ax is None:
        return int(np.prod(shape, dtype=np.int64))
    ax = ax if isinstance(ax, tuple) else (ax,)
    return int(np.prod([shape[a] for a in ax], dtype=np.int64))


def tuple_src(items) -> str:
    items = list(items)
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(str(i) for i in items) + ")"


def random_shape_of_size(b: Builder, size: int) -> tuple[int, ...]:
    """A shape with ``size`` elements and, often, many unit dimensions."""
    factors = []
    n, p = size, 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    dims: list[int] = []
    for f in factors:
        if dims and b.chance(0.4):
            dims[int(b.rng.integers(len(dims)))] *= f
        else:
            dims.append(f)
    for _ in range(int(b.rng.integers(0, 3))):
        dims.insert(int(b.rng.integers(len(dims) + 1)), 1)
    return tuple(dims[:MAX_RANK]) if int(np.prod(dims[:MAX_RANK], dtype=np.int64)) == size else tuple(dims)


def broadcast_partner_shape(b: Builder, shape, into: bool = False) -> tuple[int, ...]:
    """A shape that broadcasts with ``shape`` (``into``: whose broadcast result is ``shape``)."""
    k = len(shape) if b.chance(0.5) else int(b.rng.integers(len(shape) + 1))
    out = [1 if b.chance(0.3) else d for d in shape[len(shape) - k:]]
    if not into and len(out) == len(shape) < 4 and b.chance(0.2):
        out.insert(0, b.dim())
    return tuple(out)


def broadcastable(a, c) -> bool:
    try:
        np.broadcast_shapes(a, c)
        return True
    except ValueError:
        return False


def broadcasts_into(src, dst) -> bool:
    try:
        return np.broadcast_shapes(src, dst) == tuple(dst)
    except ValueError:
        return False


# -- op families ----------------------------------------------------------------------------
# Each takes the builder and emits one op (or raises Rejected).
# Unary tables: (kind, template, bound(m) or None when not allowed, keeps distinct, kinked).

_UNARY_F = (
    ("sin", "jnp.sin({0})", lambda m: 1.0, True, False),
    ("cos", "jnp.cos({0})", lambda m: 1.0, True, False),
    ("tanh", "jnp.tanh({0})", lambda m: 1.0, None, False),
    ("exp", "jnp.exp({0})", lambda m: math.exp(m) if m <= 3 else None, True, False),
    ("log", "jnp.log({0} * {0} + 0.5)", lambda m: math.log(m * m + 0.5) + 0.7, True, False),
    ("sqrt", "jnp.sqrt({0} * {0} + 0.25)", lambda m: m + 0.5, True, False),
    ("rsqrt", "lax.rsqrt({0} * {0} + 0.5)", lambda m: 1.5, True, False),
    ("expm1", "jnp.expm1({0})", lambda m: math.exp(m) if m <= 3 else None, True, False),
    ("log1p", "jnp.log1p({0} * {0})", lambda m: math.log1p(m * m), True, False),
    ("sigmoid", "nn.sigmoid({0})", lambda m: 1.0, None, False),
    ("softplus", "nn.softplus({0})", lambda m: m + 1.0, True, False),
    ("gelu", "nn.gelu({0})", lambda m: m + 0.2, True, False),
    ("gelu_exact", "nn.gelu({0}, approximate=False)", lambda m: m + 0.2, True, False),
    ("silu", "nn.silu({0})", lambda m: m + 0.3, True, False),
    ("square", "jnp.square({0})", lambda m: m * m, True, False),
    ("pow2", "{0} ** 2", lambda m: m * m, True, False),
    ("neg", "-{0}", lambda m: m, True, False),
    ("lax_neg", "lax.neg({0})", lambda m: m, True, False),
    ("abs", "jnp.abs({0})", lambda m: m, True, True),
    ("relu", "nn.relu({0})", lambda m: m, False, True),
    ("clip", "jnp.clip({0}, -1.0, 1.0)", lambda m: 1.0, False, True),
    ("floor", "jnp.floor({0})", lambda m: m + 1.0, False, False),
    ("round", "jnp.round({0})", lambda m: m + 1.0, False, False),
    ("sign", "jnp.sign({0})", lambda m: 1.0, False, False),
    ("reciprocal", "1.0 / ({0} * {0} + 0.5)", lambda m: 2.0, True, False),
    ("erf", "lax.erf({0})", lambda m: 1.0, None, False),
    ("arctan", "jnp.arctan({0})", lambda m: 1.6, True, False),
    ("sinh", "jnp.sinh({0})", lambda m: math.sinh(m) if m <= 3 else None, True, False),
    ("power", "jnp.power({0} * {0} + 0.5, 1.5)", lambda m: (m * m + 0.5) ** 1.5, True, False),
    ("affine", "{0} * 0.5 + 1.0", lambda m: 0.5 * m + 1.0, True, False),
    ("rsub", "2.0 - {0}", lambda m: m + 2.0, True, False),
    ("lax_tanh", "lax.tanh({0})", lambda m: 1.0, None, False),
    ("lax_logistic", "lax.logistic({0})", lambda m: 1.0, None, False),
    ("stop_gradient", "lax.stop_gradient({0})", lambda m: m, True, False),
    ("elu", "nn.elu({0})", lambda m: m + 1.0, True, False),
    ("celu", "nn.celu({0}, alpha=0.5)", lambda m: m + 1.0, True, False),
    ("selu", "nn.selu({0})", lambda m: 1.06 * m + 1.8, True, True),
    ("leaky_relu", "nn.leaky_relu({0}, 0.1)", lambda m: m, True, True),
    ("log_sigmoid", "nn.log_sigmoid({0})", lambda m: m + 0.7, True, False),
    ("relu6", "nn.relu6({0} * 4.0)", lambda m: 6.0, False, True),
    ("hard_tanh", "nn.hard_tanh({0} * 2.0)", lambda m: 1.0, False, True),
)
_UNARY_I = (
    ("neg", "-{0}", lambda m: m, False, False),
    ("abs", "jnp.abs({0})", lambda m: m, False, False),
    ("square", "jnp.square({0})", lambda m: m * m if m <= 1000 else None, False, False),
    ("sign", "jnp.sign({0})", lambda m: 1.0, False, False),
    ("mod", "{0} % 3", lambda m: 3.0, False, False),
    ("floordiv", "{0} // 2", lambda m: m, False, False),
    ("clip", "jnp.clip({0}, -3, 3)", lambda m: 3.0, False, False),
    ("invert", "~{0}", lambda m: m + 1, False, False),
    ("affine", "{0} * 2 + 1", lambda m: 2 * m + 1, False, False),
    ("shift", "jnp.right_shift({0}, 1)", lambda m: m, False, False),
    ("lax_rem", "lax.rem({0}, 4)", lambda m: 4.0, False, False),
)
_UNARY_B = (
    ("invert", "~{0}", lambda m: 1.0, False, False),
    ("logical_not", "jnp.logical_not({0})", lambda m: 1.0, False, False),
)


def op_unary(b: Builder) -> Val:
    v = b.pick(allow_empty=True)
    table = {"f": _UNARY_F, "i": _UNARY_I, "b": _UNARY_B}[v.cat]
    kind, template, bound_fn, keeps, kinked = b.choice(table)
    bound = bound_fn(v.bound)
    if bound is None or (kinked and not b.kink_ok(v)):
        raise Rejected(kind)
    distinct = v.distinct and (keeps if keeps is not None else v.bound < 3)
    return b.emit(kind, template, [v], bound, distinct)


def op_cast(b: Builder) -> Val:
    v = b.pick(allow_empty=True)
    targets = ["float32", "int32", "bool", "bfloat16"]
    if b.x64:
        targets = ["float64", "float32", "int32", "int64", "bool"]
    target = b.choice([t for t in targets if t != v.aval.dtype])
    template = b.choice(("{0}.astype(jnp.%s)", "lax.convert_element_type({0}, jnp.%s)",
                         "jnp.asarray({0}, dtype=jnp.%s)")) % target
    keeps = v.distinct and target in ("float32", "float64") and v.aval.dtype != "bfloat16"
    return b.emit("cast", template, [v], v.bound + 1.0, keeps)


_BINARY_F = (
    ("add", "{0} + {1}", lambda m, n: m + n, False),
    ("sub", "{0} - {1}", lambda m, n: m + n, False),
    ("mul", "{0} * {1}", lambda m, n: m * n, False),
    ("div", "{0} / ({1} * {1} + 0.5)", lambda m, n: 2 * m, False),
    ("maximum", "jnp.maximum({0}, {1})", max, True),
    ("minimum", "jnp.minimum({0}, {1})", max, True),
    ("arctan2", "jnp.arctan2({0}, {1})", lambda m, n: 3.2, False),
    ("logaddexp", "jnp.logaddexp({0}, {1})", lambda m, n: max(m, n) + 0.7, False),
    ("hypot", "jnp.hypot({0}, {1})", lambda m, n: m + n, False),
    ("jnp_add", "jnp.add({0}, {1})", lambda m, n: m + n, False),
    ("jnp_multiply", "jnp.multiply({0}, {1})", lambda m, n: m * n, False),
)
_BINARY_I = (
    ("add", "{0} + {1}", lambda m, n: m + n, False),
    ("sub", "{0} - {1}", lambda m, n: m + n, False),
    ("mul", "{0} * {1}", lambda m, n: m * n, False),
    ("floordiv", "{0} // (jnp.abs({1}) + 1)", lambda m, n: m, False),
    ("remainder", "jnp.remainder({0}, jnp.abs({1}) + 1)", lambda m, n: n + 1, False),
    ("maximum", "jnp.maximum({0}, {1})", max, False),
    ("minimum", "jnp.minimum({0}, {1})", max, False),
    ("bitwise_and", "{0} & {1}", max, False),
    ("bitwise_or", "{0} | {1}", lambda m, n: 2 * max(m, n), False),
    ("bitwise_xor", "{0} ^ {1}", lambda m, n: 2 * max(m, n), False),
)
_BINARY_B = (
    ("and", "{0} & {1}", max, False),
    ("or", "{0} | {1}", max, False),
    ("xor", "jnp.logical_xor({0}, {1})", max, False),
    ("eq", "{0} == {1}", max, False),
)
_COMPARE = ("{0} > {1}", "{0} >= {1}", "{0} < {1}", "{0} <= {1}", "{0} != {1}", "jnp.less({0}, {1})")


def _binary_operands(b: Builder, cat: str | None = None):
    a = b.pick(lambda v: cat is None or v.cat == cat, allow_empty=True)
    c = b.partner(broadcast_partner_shape(b, a.shape), a.cat,
                  lambda v: broadcastable(a.shape, v.shape), exclude=(a.name,))
    if b.chance(0.1) and a.cat == "f":  # mixed-dtype promotion
        c = b.input(broadcast_partner_shape(b, a.shape), "int32")
    return (c, a) if b.chance(0.3) else (a, c)


def op_binary(b: Builder) -> Val:
    x, y = _binary_operands(b)
    cat = x.cat if x.cat == y.cat else "f"
    kind, template, bound_fn, kinked = b.choice({"f": _BINARY_F, "i": _BINARY_I, "b": _BINARY_B}[cat])
    if kinked and not b.kink_ok(x, y):
        raise Rejected(kind)
    out_shape = np.broadcast_shapes(x.shape, y.shape)
    distinct = any(v.distinct and v.shape == out_shape for v in (x, y))
    return b.emit(kind, template, [x, y], bound_fn(x.bound, y.bound), distinct)


def op_lax_binary(b: Builder) -> Val:
    """lax's binary ops: no broadcasting, no promotion."""
    x = b.pick(lambda v: v.cat != "b")
    y = b.partner(x.shape, x.cat, lambda v: v.aval == x.aval, exclude=(x.name,))
    if y.aval != x.aval:
        raise Rejected("lax needs equal avals")
    kind, template, bound = b.choice((("lax_add", "lax.add({0}, {1})", x.bound + y.bound),
                                      ("lax_sub", "lax.sub({0}, {1})", x.bound + y.bound),
                                      ("lax_mul", "lax.mul({0}, {1})", x.bound * y.bound)))
    return b.emit(kind, template, [x, y], bound, x.distinct or y.distinct)


def op_compare(b: Builder) -> Val:
    x, y = _binary_operands(b, cat=b.choice(("f", "i")))
    return b.emit("compare", b.choice(_COMPARE), [x, y], 1.0)


def op_where(b: Builder) -> Val:
    x = b.pick(lambda v: v.cat != "b" or b.chance(0.3))
    conds = [v for v in b.vals if v.cat == "b" and broadcastable(v.shape, x.shape)]
    if conds and b.chance(0.6):
        c = b.choice(conds)
        cond = "{0}"
    else:
        c = b.pick(lambda v: v.cat in "fi" and broadcastable(v.shape, x.shape))
        cond = "{0} > 0.5" if c.cat == "f" else "{0} > 0"
    if b.chance(0.4):
        zero = {"f": "0.0", "i": "0", "b": "False"}[x.cat]
        return b.emit("where_mask", f"jnp.where({cond}, {{1}}, {zero})", [c, x], x.bound)
    y = b.partner(broadcast_partner_shape(b, x.shape), x.cat,
                  lambda v: broadcastable(v.shape, x.shape) and broadcastable(v.shape, c.shape),
                  exclude=(x.name,))
    return b.emit("where", f"jnp.where({cond}, {{1}}, {{2}})", [c, x, y], max(x.bound, y.bound))


def _power_bound(bound: float, n: int) -> float:
    """``bound ** n``, inf where it overflows (emit rejects it; a float ** int raises)."""
    try:
        return bound ** n
    except OverflowError:
        return math.inf


def op_reduce(b: Builder) -> Val:
    x = b.pick(allow_empty=True)
    options = [("sum", "jnp.sum"), ("mean", "jnp.mean"), ("max", "jnp.max"), ("min", "jnp.min"),
               ("prod", "jnp.prod"), ("any", "jnp.any"), ("all", "jnp.all"),
               ("sum_method", "{0}.sum"), ("max_method", "{0}.max")]
    if x.cat == "f":
        options += [("var", "jnp.var"), ("std", "jnp.std")]
    kind, fn = b.choice(options)
    axes = axes_arg(b, x.ndim)
    keep = b.chance(0.5)
    n = reduced_count(x.shape, axes)
    if kind in ("max", "min", "max_method") and not b.kink_ok(x):
        raise Rejected("kink")
    if kind == "std" and n < 2:
        raise Rejected("std of one element")
    if kind == "std" and not x.distinct:
        # Equal values put var at sqrt's singular point, where rounding the mean decides
        # between std 0 (gradient NaN) and one ulp (gradient finite): XLA divides by the
        # count as a multiply by its reciprocal, numlir divides (program 44576 of seed 1).
        raise Rejected("std of values that may all be equal")
    bound = {"sum": x.bound * n, "sum_method": x.bound * n, "prod": _power_bound(x.bound, n),
             "var": x.bound * x.bound * 2}.get(kind, x.bound)
    args = f"axis={axes}, keepdims={keep})"
    template = fn + "(" + args if "{0}" in fn else fn + "({0}, " + args
    return b.emit("reduce_" + kind.removesuffix("_method"), template, [x], bound,
                  x.distinct and kind not in ("any", "all"))


def op_arg_reduce(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1)
    fn = b.choice(("jnp.argmax", "jnp.argmin"))
    axis = axes_arg(b, x.ndim, allow_tuple=False)
    return b.emit("argmax", f"{fn}({{0}}, axis={axis})", [x], float(x.aval.size))


def op_cumulative(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1 and v.cat != "b" or b.chance(0.2))
    if x.ndim == 0:
        raise Rejected("scalar")
    axis = int(b.rng.integers(x.ndim))
    n = x.shape[axis]
    reverse = b.chance(0.3)
    kind, template, bound, distinct = b.choice((
        ("cumsum", f"jnp.cumsum({{0}}, axis={axis - x.ndim if b.chance(0.3) else axis})",
         x.bound * n, x.distinct),
        ("cumsum", "jnp.cumsum({0})", x.bound * x.aval.size, x.distinct),
        ("cumprod", f"jnp.cumprod({{0}}, axis={axis})", x.bound ** n, x.distinct),
        ("cumsum", f"lax.cumsum({{0}}, axis={axis}, reverse={reverse})", x.bound * n, x.distinct),
        ("cumprod", f"lax.cumprod({{0}}, axis={axis}, reverse={reverse})", x.bound ** n, x.distinct),
        ("cummax", f"lax.cummax({{0}}, axis={axis}, reverse={reverse})", x.bound, False),
        ("cummax", f"lax.cummin({{0}}, axis={axis}, reverse={reverse})", x.bound, False),
    ))
    if kind == "cummax" and not b.kink_ok(x):
        raise Rejected("kink")
    return b.emit(kind, template, [x], bound, distinct)


def op_softmax(b: Builder) -> Val:
    x = b.pick(lambda v: v.cat == "f" and v.ndim >= 1)
    axis = axes_arg(b, x.ndim, allow_none=False, allow_tuple=False)
    if b.chance(0.4):
        axes = axes_arg(b, x.ndim)
        n = reduced_count(x.shape, axes)
        return b.emit("logsumexp", f"nn.logsumexp({{0}}, axis={axes}, keepdims={b.chance(0.5)})", [x],
                      x.bound + math.log(n) + 1, x.distinct)
    if b.chance(0.2) and x.shape[int(axis)] >= 2:
        return b.emit("standardize", f"nn.standardize({{0}}, axis={axis})", [x], 1e3, x.distinct)
    fn, bound = b.choice((("nn.softmax", 1.0), ("nn.log_softmax", x.bound * 2 + 6)))
    return b.emit("softmax", f"{fn}({{0}}, axis={axis})", [x], bound, x.distinct)


def op_reshape(b: Builder) -> Val:
    x = b.pick()
    target = random_shape_of_size(b, x.aval.size)
    form = b.choice(("{0}.reshape(%s)", "jnp.reshape({0}, %s)", "lax.reshape({0}, %s)"))
    dims = list(target)
    if form != "lax.reshape({0}, %s)" and dims and b.chance(0.3):
        dims[int(b.rng.integers(len(dims)))] = -1
    return b.emit("reshape", form % tuple_src(dims) if dims else form % "()", [x], x.bound, x.distinct)


def op_squeeze(b: Builder) -> Val:
    x = b.pick(lambda v: 1 in v.shape)
    units = [i for i, d in enumerate(x.shape) if d == 1]
    if b.chance(0.3):
        template = b.choice(("jnp.squeeze({0})", "{0}.squeeze()"))
    else:
        k = int(b.rng.integers(1, len(units) + 1))
        chosen = [int(a) for a in b.rng.permutation(units)[:k]]
        if b.chance(0.3):
            template = f"lax.squeeze({{0}}, {tuple_src(sorted(chosen))})"
        else:
            chosen = [a - x.ndim if b.chance(0.3) else a for a in chosen]
            axis = str(chosen[0]) if len(chosen) == 1 and b.chance(0.5) else tuple_src(chosen)
            template = f"jnp.squeeze({{0}}, axis={axis})"
    return b.emit("squeeze", template, [x], x.bound, x.distinct)


def op_expand_dims(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim < MAX_RANK - 1, allow_empty=True)
    k = int(b.rng.integers(1, 3))
    out_rank = x.ndim + k
    positions = sorted(int(p) for p in b.rng.permutation(out_rank)[:k])
    style = b.choice(("jnp", "lax", "index"))
    if style == "jnp":
        pos = [p - out_rank if b.chance(0.3) else p for p in positions]
        axis = str(pos[0]) if k == 1 else tuple_src(pos)
        template = f"jnp.expand_dims({{0}}, {axis})"
    elif style == "lax":
        template = f"lax.expand_dims({{0}}, {tuple_src(positions)})"
    else:
        template = "{0}[None]" if b.chance(0.5) else "{0}[..., None]"
    return b.emit("expand_dims", template, [x], x.bound, x.distinct)


def op_transpose(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 2 or b.chance(0.1), allow_empty=True)
    perm = [int(p) for p in b.rng.permutation(x.ndim)]
    i, j = (int(a) for a in b.rng.integers(0, max(x.ndim, 1), size=2))
    template = b.choice((f"jnp.transpose({{0}}, {tuple_src(perm) if perm else '()'})", "{0}.T",
                         f"lax.transpose({{0}}, {tuple_src(perm) if perm else '()'})",
                         f"jnp.swapaxes({{0}}, {i}, {j - x.ndim})", f"jnp.moveaxis({{0}}, {i}, {j})"))
    return b.emit("transpose", template, [x], x.bound, x.distinct)


def op_broadcast(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim <= 4)
    lead = [b.dim() + 1 for _ in range(int(b.rng.integers(0, 3)))]
    if b.chance(0.5):
        target = tuple(lead) + tuple(b.dim() + 1 if d == 1 and b.chance(0.6) else d for d in x.shape)
        template = b.choice((f"jnp.broadcast_to({{0}}, {tuple_src(target) if target else '()'})",
                             f"lax.broadcast({{0}}, {tuple_src(lead) if lead else '()'})"))
    else:
        out_rank = x.ndim + len(lead)
        dims = sorted(int(p) for p in b.rng.permutation(out_rank)[:x.ndim])
        target = [b.dim() + 1 for _ in range(out_rank)]
        for src, dst in enumerate(dims):
            target[dst] = x.shape[src] if x.shape[src] != 1 or b.chance(0.5) else target[dst]
        template = (f"lax.broadcast_in_dim({{0}}, {tuple_src(target) if target else '()'}, "
                    f"{tuple_src(dims) if dims else '()'})")
    return b.emit("broadcast", template, [x], x.bound)


def op_flip_roll(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1)
    axis = axes_arg(b, x.ndim)
    dims = tuple(sorted(set(int(a) for a in b.rng.permutation(x.ndim)[:int(b.rng.integers(1, x.ndim + 1))])))
    shift = int(b.rng.integers(-3, 4))
    kind, template, distinct = b.choice((
        ("flip", f"jnp.flip({{0}}, axis={axis})", x.distinct),
        ("flip", f"lax.rev({{0}}, {tuple_src(dims)})", x.distinct),
        ("roll", f"jnp.roll({{0}}, {shift}, axis={axis if axis != 'None' else 0})", x.distinct),
        ("roll", f"jnp.roll({{0}}, {shift})", x.distinct),
        ("ravel", "jnp.ravel({0})", x.distinct),
        ("tile", f"jnp.tile({{0}}, {tuple_src([int(r) for r in b.rng.integers(1, 3, size=x.ndim)])})", False),
        ("repeat", f"jnp.repeat({{0}}, {int(b.rng.integers(1, 3))}, axis={axis if axis != 'None' else 0})", False),
    ))
    return b.emit(kind, template, [x], x.bound, distinct)


def _basic_index(b: Builder, shape) -> str:
    """A random basic index (ints, slices with steps, None, Ellipsis) as source text."""
    items: list[str] = []
    ndim = len(shape)
    explicit = int(b.rng.integers(0, ndim + 1))
    use_ellipsis = b.chance(0.2)
    tail = int(b.rng.integers(0, ndim - explicit + 1)) if use_ellipsis else 0

    def one(n: int) -> str:
        r = b.rng.random()
        if r < 0.25:
            return str(int(b.rng.integers(-n, n)))
        if r < 0.4:
            return ":"
        start = int(b.rng.integers(-n, n + 1)) if b.chance(0.6) else None
        stop = int(b.rng.integers(-n, n + 1)) if b.chance(0.6) else None
        step = b.choice((None, None, 2, -1, -2, 3))
        text = f"{'' if start is None else start}:{'' if stop is None else stop}"
        return text + (f":{step}" if step is not None else "")

    for n in shape[:explicit]:
        if b.chance(0.1):
            items.append("None")
        items.append(one(n))
    if use_ellipsis:
        items.append("...")
        for n in shape[ndim - tail:]:
            items.append(one(n))
    if b.chance(0.1):
        items.append("None")
    if not items:
        return "..."
    return ", ".join(items)


def op_index(b: Builder) -> Val:
    x = b.pick()
    return b.emit("index", "{0}[%s]" % _basic_index(b, x.shape), [x], x.bound, x.distinct)


def _int_array_src(values) -> str:
    return f"np.array({np.asarray(values).tolist()})"


def op_advanced_index(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1)
    axis = int(b.rng.integers(x.ndim))
    n = x.shape[axis]
    prefix = ":, " * axis
    style = b.choice(("const", "const2", "traced", "take", "mask", "two"))
    if style in ("const", "const2"):
        shape = (int(b.rng.integers(1, 5)),) if style == "const" else (2, int(b.rng.integers(1, 3)))
        idx = b.rng.integers(-n, n, size=shape)
        return b.emit("gather", "{0}[%s%s]" % (prefix, _int_array_src(idx)), [x], x.bound, False)
    if style == "traced":
        i = b.input(b.shape(int(b.rng.integers(0, 3))), "int32", low=-n, high=n - 1)
        return b.emit("gather", "{0}[%s{1}]" % prefix, [x, i], x.bound)
    if style == "take":
        i = b.input(b.shape(int(b.rng.integers(0, 3))), "int32", low=0, high=n - 1)
        return b.emit("gather", f"jnp.take({{0}}, {{1}}, axis={axis})", [x, i], x.bound)
    if style == "mask":
        k = int(b.rng.integers(1, x.ndim + 1))
        mask = b.rng.random(x.shape[:k]) < 0.6
        if not mask.any():
            raise Rejected("empty mask")
        return b.emit("bool_mask", "{0}[np.array(%s)]" % mask.tolist(), [x], x.bound, x.distinct)
    if x.ndim < 2:
        raise Rejected("two indices need two axes")
    m = x.shape[-1]
    gap = ":, " if x.ndim >= 3 and b.chance(0.5) else ""
    i0 = _int_array_src(b.rng.integers(-x.shape[0], x.shape[0], size=2))
    i1 = _int_array_src(b.rng.integers(-m, m, size=2 if b.chance(0.7) else 1))
    index = f"{i0}, {gap}..., {i1}" if gap else f"{i0}, ..., {i1}"
    return b.emit("gather", "{0}[%s]" % index, [x], x.bound)


def op_take_along_axis(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1)
    axis = int(b.rng.integers(x.ndim))
    shape = list(x.shape)
    shape[axis] = int(b.rng.integers(1, 4))
    i = b.input(tuple(shape), "int32", low=0, high=x.shape[axis] - 1)
    return b.emit("gather", f"jnp.take_along_axis({{0}}, {{1}}, axis={axis})", [x, i], x.bound)


def op_dynamic_slice(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1)
    sizes = tuple(int(b.rng.integers(1, d + 1)) for d in x.shape)
    starts = [str(int(b.rng.integers(0, d + 2))) for d in x.shape]  # past the end clamps
    operands = [x]
    update = None
    if b.chance(0.5):
        update = b.partner(sizes, x.cat, lambda v: v.aval == Aval(sizes, x.aval.dtype))
        if update.aval.dtype != x.aval.dtype:
            raise Rejected("dynamic_update_slice needs one dtype")
        operands.append(update)
    if b.chance(0.4):
        axis = int(b.rng.integers(x.ndim))
        operands.append(b.input((), "int32", low=0, high=x.shape[axis] - 1))
        starts[axis] = "{%d}" % (len(operands) - 1)
    if update is not None:
        template = f"lax.dynamic_update_slice({{0}}, {{1}}, {tuple_src(starts)})"
        return b.emit("dynamic_update_slice", template, operands, max(x.bound, update.bound))
    template = f"lax.dynamic_slice({{0}}, {tuple_src(starts)}, {tuple_src(sizes)})"
    return b.emit("dynamic_slice", template, operands, x.bound, x.distinct)


def op_scatter(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1)
    method = b.choice(("set", "add", "multiply", "min", "max")) if x.cat != "b" else "set"
    if method in ("min", "max") and b.differentiable and x.cat == "f":
        raise Rejected("scatter min/max ties")
    if b.chance(0.5):
        index = _basic_index(b, x.shape)
    else:
        axis = int(b.rng.integers(x.ndim))
        n = x.shape[axis]
        count = int(b.rng.integers(1, n + 1))
        idx = (b.rng.permutation(n)[:count] if method in ("set", "multiply")
               else b.rng.integers(-n, n, size=int(b.rng.integers(1, 4))))
        index = ":, " * axis + _int_array_src(idx)
    target = infer("{0}[%s]" % index, [x.aval])
    if target is None or target.size == 0:
        raise Rejected("index")
    # jax differentiates scatter-multiply only when told the indices are unique (they are).
    flag = ", unique_indices=True" if method == "multiply" else ""
    if b.chance(0.25):
        literal = {"f": "1.5", "i": "2", "b": "True"}[x.cat]
        return b.emit("scatter", f"{{0}}.at[{index}].{method}({literal}{flag})", [x], x.bound * 2)
    u = b.partner(broadcast_partner_shape(b, target.shape, into=True), x.cat,
                  lambda v: broadcasts_into(v.shape, target.shape))
    bound = x.bound * u.bound if method == "multiply" else x.bound + u.bound
    return b.emit("scatter", f"{{0}}.at[{index}].{method}({{1}}{flag})", [x, u], bound)


def op_concatenate(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1)
    axis = int(b.rng.integers(x.ndim))
    stack = b.chance(0.25)

    def fits(v: Val) -> bool:
        if v.ndim != x.ndim:
            return False
        return all(d == e or (i == axis and not stack) for i, (d, e) in enumerate(zip(v.shape, x.shape)))

    shape = list(x.shape)
    if not stack:
        shape[axis] = int(b.rng.integers(1, 4))
    y = b.partner(tuple(shape), x.cat, fits, exclude=(x.name,))
    if stack:
        template = f"jnp.stack([{{0}}, {{1}}], axis={axis})"
    elif x.aval.dtype == y.aval.dtype and b.chance(0.3):
        template = f"lax.concatenate([{{0}}, {{1}}], {axis})"
    else:
        template = b.choice((f"jnp.concatenate([{{0}}, {{1}}], axis={axis})",
                             f"jnp.concatenate(({{0}}, {{1}}, {{0}}), axis={axis - x.ndim})"))
    return b.emit("concatenate", template, [x, y], max(x.bound, y.bound))


def op_pad(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1)
    if b.chance(0.6):
        widths = tuple((int(b.rng.integers(0, 3)), int(b.rng.integers(0, 3))) for _ in x.shape)
        extra = b.choice(("", "", ", constant_values=1.5" if x.cat == "f" else ", constant_values=2",
                          ", mode='edge'", ", mode='reflect'", ", mode='wrap'"))
        return b.emit("pad", f"jnp.pad({{0}}, {widths}{extra})", [x], x.bound + 2)
    cfg = tuple((int(b.rng.integers(-1, 3)), int(b.rng.integers(-1, 3)), int(b.rng.integers(0, 2)))
                for _ in x.shape)
    return b.emit("pad", f"lax.pad({{0}}, jnp.zeros((), {{0}}.dtype), {cfg})", [x], x.bound)


def op_matmul(b: Builder) -> Val:
    a = b.pick(lambda v: v.ndim >= 1 and v.cat != "b")
    if a.ndim == 1:
        k = a.shape[0]
        rhs = b.choice(((k,), (k, b.dim()), tuple(b.shape(int(b.rng.integers(1, 3)))) + (k, b.dim())))
    else:
        k = a.shape[-1]
        batch = broadcast_partner_shape(b, a.shape[:-2]) if b.chance(0.6) else ()
        rhs = b.choice(((k,), (k, b.dim()), tuple(batch) + (k, b.dim())))
    c = b.partner(rhs, a.cat, lambda v: v.shape == rhs)
    x, y = (a, c)
    if b.chance(0.25) and c.ndim >= 2:  # the picked value as the right operand
        lhs = tuple(broadcast_partner_shape(b, c.shape[:-2])) + (b.dim(), c.shape[-2])
        x, y = b.partner(lhs, a.cat, lambda v: v.shape == lhs), c
    template = b.choice(("{0} @ {1}", "jnp.matmul({0}, {1})", "jnp.dot({0}, {1})"))
    k = x.shape[-1]
    return b.emit("matmul", template, [x, y], x.bound * y.bound * k)


def op_matrix_polynomial(b: Builder) -> Val:
    """A square matrix times a polynomial in itself, ``a @ (a @ a + c)`` (the terms of
    expm's Pade approximant): one product reads one buffer twice, the next reads two
    buffers of the same shapes, and the CPU backend shares one kernel between them."""
    squares = [v for v in b.vals if v.ndim >= 2 and v.cat != "b" and v.aval.size > 0
               and v.shape[-1] == v.shape[-2]]
    if squares and b.chance(0.7):
        a = b.choice(squares)
    else:
        n = b.dim()
        a = b.input(tuple(b.shape(int(b.rng.integers(0, 2)))) + (n, n), b.dtype_of("f"))
    c = b.partner(a.shape, a.cat, lambda v: v.shape == a.shape and v.aval.dtype == a.aval.dtype)
    k = a.shape[-1]
    return b.emit("matrix_polynomial", "{0} @ ({0} @ {0} + {1})", [a, c],
                  a.bound * (a.bound * a.bound * k + c.bound) * k)


def op_dot_general(b: Builder) -> Val:
    a = b.pick(lambda v: v.ndim >= 1 and v.cat != "b")
    dims = [int(d) for d in b.rng.permutation(a.ndim)]
    nb = int(b.rng.integers(0, min(2, a.ndim) + 1))
    nc = int(b.rng.integers(0, a.ndim - nb + 1))
    batch_a, contract_a = dims[:nb], dims[nb:nb + nc]
    nfree = int(b.rng.integers(0, 3))
    rank_b = nb + nc + nfree
    slots = [int(p) for p in b.rng.permutation(rank_b)]
    batch_b, contract_b = slots[:nb], slots[nb:nb + nc]
    shape = [b.dim() for _ in range(rank_b)]
    for da, db in zip(batch_a + contract_a, batch_b + contract_b):
        shape[db] = a.shape[da]
    c = b.partner(tuple(shape), a.cat, lambda v: v.shape == tuple(shape) and v.aval.dtype == a.aval.dtype)
    dn = f"(({tuple_src(contract_a) if nc else '()'}, {tuple_src(contract_b) if nc else '()'}), " \
         f"({tuple_src(batch_a) if nb else '()'}, {tuple_src(batch_b) if nb else '()'}))"
    k = int(np.prod([a.shape[d] for d in contract_a], dtype=np.int64))
    return b.emit("dot_general", f"lax.dot_general({{0}}, {{1}}, {dn})", [a, c], a.bound * c.bound * k)


_LETTERS = "abcdefghij"


def op_einsum(b: Builder) -> Val:
    a = b.pick(lambda v: v.ndim >= 1 and v.cat != "b")
    letters = list(_LETTERS[:a.ndim])
    sizes = dict(zip(letters, a.shape))
    if b.chance(0.2):  # one operand: transpose, sums, diagonal
        out = [l for l in b.rng.permutation(letters) if b.chance(0.6)]
        spec = "".join(letters) + "->" + "".join(out)
        return b.emit("einsum", f"jnp.einsum('{spec}', {{0}})", [a],
                      a.bound * a.aval.size, a.distinct and len(out) == len(letters))
    if b.chance(0.2) and a.ndim >= 2:  # broadcast batch dims through an ellipsis
        k = a.shape[-1]
        rhs = tuple(broadcast_partner_shape(b, a.shape[:-2])) + (k, b.dim())
        c = b.partner(rhs, a.cat, lambda v: v.shape == rhs)
        return b.emit("einsum", "jnp.einsum('...ij,...jk->...ik', {0}, {1})", [a, c],
                      a.bound * c.bound * k)
    if b.chance(0.15) and a.ndim >= 2:  # a chain of three: contraction order is einsum's choice
        i, j = letters[-2], letters[-1]
        mid = (a.shape[-1], b.dim())
        last = (mid[1], b.dim())
        c = b.partner(mid, a.cat, lambda v: v.shape == mid)
        d = b.partner(last, a.cat, lambda v: v.shape == last)
        lead = "".join(letters[:-2])
        spec = f"{lead}{i}{j},{j}y,yz->{lead}{i}z"
        return b.emit("einsum", f"jnp.einsum('{spec}', {{0}}, {{1}}, {{2}})", [a, c, d],
                      a.bound * c.bound * d.bound * mid[0] * mid[1])
    shared = [l for l in letters if b.chance(0.5)]
    new = list(_LETTERS[a.ndim:a.ndim + int(b.rng.integers(0, 3))])
    rhs_letters = [str(l) for l in b.rng.permutation(shared + new)]
    for l in new:
        sizes[l] = b.dim()
    shape = tuple(sizes[l] for l in rhs_letters)
    c = b.partner(shape, a.cat, lambda v: v.shape == shape)
    everything = sorted(set(letters) | set(rhs_letters))
    out = [str(l) for l in b.rng.permutation(everything) if b.chance(0.6)]
    spec = "".join(letters) + "," + "".join(rhs_letters) + "->" + "".join(out)
    k = int(np.prod([sizes[l] for l in everything if l not in out], dtype=np.int64))
    return b.emit("einsum", f"jnp.einsum('{spec}', {{0}}, {{1}})", [a, c], a.bound * c.bound * k)


def op_tensordot(b: Builder) -> Val:
    a = b.pick(lambda v: v.ndim >= 1 and v.cat != "b")
    n = int(b.rng.integers(0, min(2, a.ndim) + 1))
    shape = tuple(a.shape[a.ndim - n:]) + tuple(b.shape(int(b.rng.integers(0, 2))))
    c = b.partner(shape, a.cat, lambda v: v.shape == shape)
    k = int(np.prod(a.shape[a.ndim - n:], dtype=np.int64))
    kind, template = b.choice((("tensordot", f"jnp.tensordot({{0}}, {{1}}, axes={n})"),
                               ("outer", "jnp.outer({0}, {1})")))
    return b.emit(kind, template, [a, c], a.bound * c.bound * (k if kind == "tensordot" else 1))


_CONV_LAYOUTS = {1: (("NCH", "OIH", "NCH"), ("NHC", "HIO", "NHC"), ("NCH", "HIO", "NHC")),
                 2: (("NCHW", "OIHW", "NCHW"), ("NHWC", "HWIO", "NHWC"), ("NCHW", "HWIO", "NHWC"),
                     ("NHWC", "OIHW", "NCHW"))}


def op_conv(b: Builder) -> Val:
    spatial = b.choice((1, 2, 2))
    lhs_spec, rhs_spec, out_spec = b.choice(_CONV_LAYOUTS[spatial])
    cands = [v for v in b.vals if v.cat == "f" and v.ndim == spatial + 2]
    if cands and b.chance(0.6):
        x = b.choice(cands)
        dims = dict(zip(lhs_spec, x.shape))
    else:
        dims = {"N": b.choice((1, 2)), "C": b.choice((1, 2, 3, 4))}
        for s in lhs_spec[2:] if lhs_spec[1] == "C" else lhs_spec[1:-1]:
            dims[s] = int(b.rng.integers(3, 7))
        x = b.input(tuple(dims[s] for s in lhs_spec), b.dtype_of("f"))
    channels = dims["C"]
    groups = b.choice([g for g in (1, 2, 3, 4) if channels % g == 0]) if b.chance(0.3) else 1
    kernel = {"O": groups * int(b.rng.integers(1, 4)), "I": channels // groups}
    spatial_names = [s for s in lhs_spec if s not in "NC"]
    for s in spatial_names:
        kernel[s] = int(b.rng.integers(1, 4))
    w = b.input(tuple(kernel[s] for s in rhs_spec), x.aval.dtype)
    strides = tuple_src([b.choice((1, 1, 2)) for _ in spatial_names])
    padding = b.choice(("'SAME'", "'VALID'",
                        str([(int(b.rng.integers(0, 3)), int(b.rng.integers(0, 3))) for _ in spatial_names])))
    lhs_dil = tuple_src([b.choice((1, 1, 2)) for _ in spatial_names])
    rhs_dil = tuple_src([b.choice((1, 1, 2)) for _ in spatial_names])
    template = (f"lax.conv_general_dilated({{0}}, {{1}}, window_strides={strides}, padding={padding}, "
                f"lhs_dilation={lhs_dil}, rhs_dilation={rhs_dil}, "
                f"dimension_numbers=('{lhs_spec}', '{rhs_spec}', '{out_spec}'), "
                f"feature_group_count={groups})")
    k = kernel["I"] * int(np.prod([kernel[s] for s in spatial_names]))
    return b.emit("conv", template, [x, w], x.bound * w.bound * k)


def op_reduce_window(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1 and v.cat != "b")
    window = tuple_src([int(b.rng.integers(1, min(3, d) + 1)) for d in x.shape])
    strides = tuple_src([b.choice((1, 1, 2)) for _ in x.shape])
    padding = b.choice(("'VALID'", "'SAME'",
                        str(tuple((int(b.rng.integers(0, 2)), int(b.rng.integers(0, 2))) for _ in x.shape))))
    size = int(np.prod(eval(window)))
    monoid = b.choice(("sum", "sum", "max", "min", "mean"))
    if monoid in ("max", "min") and not b.kink_ok(x):
        raise Rejected("kink")
    # Python scalars: jax only recognizes a monoid (and so differentiates) with a concrete identity.
    if x.cat == "f":
        init = {"sum": "0.0", "mean": "0.0", "max": "-jnp.inf", "min": "jnp.inf"}[monoid]
    else:
        init = {"sum": "0", "mean": "0", "max": "-2147483648", "min": "2147483647"}[monoid]
    fn = {"sum": "lax.add", "mean": "lax.add", "max": "lax.max", "min": "lax.min"}[monoid]
    template = f"lax.reduce_window({{0}}, {init}, {fn}, {window}, {strides}, {padding})"
    if monoid == "mean":
        template = f"{template} / {size}"
    bound = x.bound * size if monoid == "sum" else x.bound
    return b.emit("reduce_window", template, [x], bound, x.distinct and monoid != "sum")


_BRANCHES = {"f": ("p * q", "p + q", "jnp.sin(p) - q", "jnp.tanh(p * q)", "p - jnp.cos(q)"),
             "i": ("p + q", "p * q", "p - q", "jnp.maximum(p, q)")}
_BRANCHES1 = {"f": ("jnp.sin(p)", "p * 2.0", "jnp.tanh(p) + 1.0", "p[::-1] * 0.5 if p.ndim else p"),
              "i": ("p + 1", "p * 2", "-p", "p % 3")}
_PREDICATE = {"f": "jnp.sum({%d}) > 0", "i": "jnp.sum({%d}) %% 2 == 0", "b": "jnp.any({%d})"}


def op_cond(b: Builder) -> Val:
    x = b.pick(lambda v: v.cat in "fi")
    p = b.pick()
    pred = _PREDICATE[p.cat]
    if b.chance(0.4):
        br = _BRANCHES1[x.cat]
        if b.chance(0.3):
            idx = "jnp.sum({1} > 0) % 3" if p.cat != "b" else "jnp.sum({1}) % 3"
            fns = ", ".join(f"lambda p: {e}" for e in (b.choice(br), b.choice(br), b.choice(br)))
            return b.emit("switch", f"lax.switch({idx}, [{fns}], {{0}})", [x, p], x.bound * 2 + 1)
        template = (f"lax.cond({pred % 1}, lambda p: {b.choice(br)}, lambda p: {b.choice(br)}, {{0}})")
        return b.emit("cond", template, [x, p], x.bound * 2 + 1)
    y = b.partner(broadcast_partner_shape(b, x.shape), x.cat,
                  lambda v: broadcastable(v.shape, x.shape), exclude=(x.name,))
    br = _BRANCHES[x.cat]
    template = (f"lax.cond({pred % 2}, lambda p, q: {b.choice(br)}, lambda p, q: {b.choice(br)}, "
                "{0}, {1})")
    return b.emit("cond", template, [x, y, p], x.bound * y.bound + x.bound + y.bound)


def op_loop(b: Builder) -> Val:
    x = b.pick(lambda v: v.cat in "fi")
    n = int(b.rng.integers(1, 5))
    if b.differentiable and x.cat == "f" or b.chance(0.4):
        body = "c * 0.8 + jnp.sin(c + i)" if x.cat == "f" else "c * 2 - i"
        bound = x.bound + 5 if x.cat == "f" else x.bound * 2 ** n + 2 ** n * n
        template = f"lax.fori_loop(0, {n}, lambda i, c: {body}, {{0}})"
        return b.emit("fori_loop", template, [x], bound)
    y = b.partner(broadcast_partner_shape(b, x.shape, into=True), x.cat,
                  lambda v: broadcasts_into(v.shape, x.shape), exclude=(x.name,))
    if x.cat == "f":
        body, limit, bound = "jnp.tanh(c[1]) * 1.5 + jnp.sin({1})", "1.5", 3.0
    else:
        body, limit, bound = "c[1] * 2 + {1}", "100", (x.bound + y.bound) * 2 ** n + 200
    template = (f"lax.while_loop(lambda c: (c[0] < {n}) & (jnp.max(c[1]) < {limit}), "
                f"lambda c: (c[0] + 1, {body}), (0, {{0}}))[1]")
    return b.emit("while_loop", template, [x, y], max(bound, x.bound))


def op_scan(b: Builder) -> Val:
    c = b.pick(lambda v: v.cat in "fi")
    length = int(b.rng.integers(1, 5))
    reverse = b.chance(0.3)
    which = int(b.rng.integers(2))
    if b.chance(0.3):
        body = "(jnp.tanh(c) + 0.5, c * 2.0)" if c.cat == "f" else "(c + 1, c * 2)"
        template = f"lax.scan(lambda c, _: {body}, {{0}}, None, length={length}, reverse={reverse})[{which}]"
        return b.emit("scan", template, [c], c.bound * 2 + length)
    shape = (length,) + c.shape
    xs = b.partner(shape, c.cat, lambda v: v.aval == Aval(shape, c.aval.dtype))
    if c.cat == "f":
        body = b.choice(("(c * 0.5 + x, jnp.sin(c) * x)", "(jnp.tanh(c + x), jnp.sum(c * x))",
                         "(c - x * 0.5, c)"))
    else:
        body = b.choice(("(c + x, c * x)", "(c % 7 + x, jnp.sum(c))"))
    template = f"lax.scan(lambda c, x: {body}, {{0}}, {{1}}, reverse={reverse})[{which}]"
    bound = (c.bound + length * xs.bound) * (xs.bound + 1) * max(c.aval.size, 1)
    return b.emit("scan", template, [c, xs], bound)


def op_sort(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 1)
    axis = int(b.rng.integers(-x.ndim, x.ndim))
    k = int(b.rng.integers(1, x.shape[-1] + 1))
    kind, template, kinked = b.choice((
        ("sort", f"jnp.sort({{0}}, axis={axis})", True),
        ("argsort", f"jnp.argsort({{0}}, axis={axis})", False),
        ("top_k", f"lax.top_k({{0}}, {k})[0]", True),
    ))
    if x.cat == "b" and kind == "top_k":
        raise Rejected("top_k of bool")
    if kinked and not b.kink_ok(x):
        raise Rejected("kink")
    return b.emit(kind, template, [x], x.bound if kind != "argsort" else float(x.aval.size),
                  x.distinct and kind != "argsort")


def op_triangle(b: Builder) -> Val:
    x = b.pick(lambda v: v.ndim >= 2)
    k = int(b.rng.integers(-1, 2))
    kind, template, bound = b.choice((
        ("triu", f"jnp.triu({{0}}, k={k})", x.bound),
        ("triu", f"jnp.tril({{0}}, k={k})", x.bound),
        ("diagonal", f"jnp.diagonal({{0}}, offset={k})", x.bound),
        ("trace", "jnp.trace({0})", x.bound * min(x.shape[0], x.shape[1])),
    ))
    return b.emit(kind, template, [x], bound)


def op_one_hot(b: Builder) -> Val:
    x = b.pick(lambda v: v.cat == "i" and v.aval.size <= 64)
    return b.emit("one_hot", f"nn.one_hot({{0}}, {int(b.rng.integers(2, 6))})", [x], 1.0)


#: Op families and their weights (the elementwise ones carry more: they are the glue).
FAMILY_WEIGHTS: tuple[tuple[Callable[[Builder], Val], float], ...] = (
    (op_unary, 8), (op_binary, 8), (op_cast, 2), (op_lax_binary, 1), (op_compare, 2), (op_where, 3),
    (op_reduce, 5), (op_arg_reduce, 1), (op_cumulative, 3), (op_softmax, 1),
    (op_reshape, 5), (op_squeeze, 3), (op_expand_dims, 3), (op_transpose, 3), (op_broadcast, 2),
    (op_flip_roll, 2), (op_index, 5), (op_advanced_index, 3), (op_take_along_axis, 1),
    (op_dynamic_slice, 2), (op_scatter, 3), (op_concatenate, 3), (op_pad, 2),
    (op_matmul, 5), (op_matrix_polynomial, 1), (op_dot_general, 3), (op_einsum, 3), (op_tensordot, 1),
    (op_conv, 2), (op_reduce_window, 2), (op_cond, 2), (op_loop, 2), (op_scan, 2),
    (op_sort, 1), (op_triangle, 1), (op_one_hot, 1),
)


def generate(seed, index: int = 0) -> Program:
    """The program for ``(seed, index)``; the same pair always gives the same program."""
    rng = np.random.default_rng([int(seed), int(index)])
    weights = np.array([w for _, _, w in FAMILIES])
    dtype, x64, _ = FAMILIES[int(rng.choice(len(FAMILIES), p=weights / weights.sum()))]
    differentiable = dtype.startswith("float") and rng.random() < 0.8
    b = Builder(rng, dtype, x64, differentiable, batch_size=int(rng.integers(1, 4)))
    jax = _jax()
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", x64)
    try:
        for _ in range(int(rng.integers(1, 3))):
            b.input(b.shape())
        families = [f for f, _ in FAMILY_WEIGHTS]
        fam_p = np.array([w for _, w in FAMILY_WEIGHTS], dtype=float)
        fam_p /= fam_p.sum()
        target = int(rng.integers(2, 9))
        attempts = 0
        while len(b.ops) < target and attempts < 12 * target:
            attempts += 1
            family = families[int(rng.choice(len(families), p=fam_p))]
            try:
                family(b)
            except Rejected:
                pass
    finally:
        jax.config.update("jax_enable_x64", previous)
    if not b.ops:
        return generate(seed, index + 1_000_003)
    used = {a for op in b.ops for a in op.args}
    outputs = [op.out for op in b.ops if op.out not in used][-3:]
    if not any(inp.batch_axis is not None for inp in b.inputs):
        first = b.inputs[0]
        first.batch_axis = 0
        first.batched = np.stack([b.draw(first.value.shape, first.value.dtype.name)
                                  for _ in range(b.batch_size)])
    program = Program(b.inputs, b.ops, tuple(outputs), x64=x64, differentiable=differentiable,
                      batch_size=b.batch_size, origin=("seed", int(seed), int(index)))
    return program.pruned()
