"""Integer semantics at the extremes match JAX (which on CPU follows XLA's definitions):
wraparound, division and remainder by zero and INT_MIN / -1, shifts by negative amounts and
by at least the bit width, powers with negative exponents, gcd/lcm, clamps, overflowing
reductions and scans, ties in argmax/argmin/sort/top_k, indices at the extremes, and float
-> int conversion of NaN, infinities and out-of-range values. Eagerly, under jit and under
vmap; int8/16/32/64 and uint8/32/64; x64 off and on.

The sweep evaluates every case on batched arrays of all pairs (triples, rows) of
``{INT_MIN, INT_MIN+1, -2, -1, 0, 1, 2, INT_MAX-1, INT_MAX}`` (for unsigned types
``{0, 1, 2, 3, MAX/2-1, MAX/2, MAX/2+1, MAX-1, MAX}``; shifts by ``{-1, 0, 1, bits-1, bits,
bits+1, INT_MAX}``), so one compile covers a case, and under jit all the cases of a dtype
compile as one function. The reference is JAX under jax.jit, one compile per dtype too;
where numlir differs from it eagerly or under vmap, JAX in that mode is asked as well.

Integer results must be equal, dtypes too, and an error must be an error in both; float
results (``x / y``, astype(float32), ldexp, mean) equal with NaN where NaN, except that
XLA flushes subnormal results to zero and numlir keeps them, and that a mean may differ by
the rounding of the sum's order. Known, deliberate differences: OVERFLOW_BY_DESIGN below;
JAX's gcd/lcm loop forever on some pairs with INT_MIN, so they are swept without it.

Run as a script for the full mismatch table:
``.venv/bin/python test/python/test_integer_extremes.py [dtype ...] [--x64] [--eager]
[--jit] [--vmap] [--jax-modes]`` (``--jax-modes``: where JAX's modes disagree).
"""

from __future__ import annotations

import dataclasses
import sys
import types
import warnings
from typing import Callable

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

NL = types.SimpleNamespace(np=numlir.numpy, lax=numlir.lax, jit=numlir.jit, vmap=numlir.vmap)
JX = types.SimpleNamespace(np=jax.numpy, lax=jax.lax, jit=jax.jit, vmap=jax.vmap)

SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint32", "uint64")
MODES = ("eager", "jit", "vmap")
# Kinds whose function takes one row (or one scalar): eager and jit loop over the rows,
# vmap maps over them.
LOOPED = ("rows", "index")


# ---------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------

def values(dt) -> np.ndarray:
    info = np.iinfo(dt)
    if info.min < 0:
        v = [info.min, info.min + 1, -2, -1, 0, 1, 2, info.max - 1, info.max]
    else:
        h = info.max // 2
        v = [0, 1, 2, 3, h - 1, h, h + 1, info.max - 1, info.max]
    return np.array(v, dtype=dt)


def shift_amounts(dt) -> np.ndarray:
    bits = np.iinfo(dt).bits
    amounts = [-1, 0, 1, bits - 1, bits, bits + 1, int(np.iinfo(dt).max)]
    return np.array([a % 2**bits for a in amounts], dtype=np.uint64).astype(dt)


def rows(dt) -> np.ndarray:
    """Rows for reductions, scans, arg-reductions and sorts: overflowing sums and products,
    ties among extremes, equal keys for stability."""
    v = values(dt)
    lo, hi = v[0], v[-1]
    m1 = v[3] if np.iinfo(dt).min < 0 else v[1]  # -1, or 1 for unsigned
    r = [v, v[::-1], np.full(9, hi), np.full(9, lo), np.array([hi, lo] * 4 + [v[4]]),
         np.full(9, v[6]), np.full(9, m1), np.array([v[5], hi, hi, v[4], lo, lo, v[4], v[5], m1]),
         np.array([v[7], hi, v[7], hi, v[4], v[4], lo, v[1], lo]), np.full(9, v[4])]
    return np.stack([np.asarray(x, dtype=dt) for x in r])


FLOATS = [np.nan, np.inf, -np.inf, 1e30, -1e30, 2.0**31, -2.0**31 - 1, 0.5, -0.5, 2.5, -2.5,
          1.5, -1.0, -0.0, 127.5, 128.0, -129.0, 255.5, 256.0, 65535.7, 65536.0, 2.0**31 - 1,
          2.0**32, 3e9, -3e9, 1e10, 2.0**63, -2.0**63, 2.0**64, 1e19]


def inputs(dt) -> dict[str, tuple[np.ndarray, ...]]:
    v = values(dt)
    x2, y2 = (a.ravel() for a in np.meshgrid(v, v, indexing="ij"))
    xs, ss = (a.ravel() for a in np.meshgrid(v, shift_amounts(dt), indexing="ij"))
    x3, a3, b3 = (a.ravel() for a in np.meshgrid(v, v, v, indexing="ij"))
    w = v[1:] if np.iinfo(dt).min < 0 else v
    xg, yg = (a.ravel() for a in np.meshgrid(w, w, indexing="ij"))
    return {"unary": (v,), "index": (v,), "binary": (x2, y2), "gcd": (xg, yg),
            "shift": (xs, ss), "ternary": (x3, a3, b3),
            "rows": (rows(dt),), "float32": (np.array(FLOATS, np.float32),),
            "float64": (np.array(FLOATS, np.float64),)}


# ---------------------------------------------------------------------------------------
# Cases: ``make(L, dt)`` builds the function from a namespace (L.np, L.lax), so numlir and
# JAX run the same source.
# ---------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    kind: str
    make: Callable
    when: Callable = lambda dt: True
    raises: Callable = lambda dt: False  # JAX raises for dtype dt: numlir must raise too
    atol: Callable | None = None  # float results: (row magnitude, result dtype) -> tolerance
    overflow: Callable = lambda dt: False  # numlir may raise OverflowError (OVERFLOW_BY_DESIGN)


def _signed(dt):
    return np.dtype(dt).kind == "i"


def _x64_dtype(dt):
    return np.dtype(dt).itemsize == 8


CASES: list[Case] = []


def case(name, kind, make, when=lambda dt: True, raises=False, atol=None, overflow=False):
    CASES.append(Case(name, kind, make, when, raises if callable(raises) else (lambda dt: raises),
                      atol, lambda dt: overflow))


def _unsigned(dt):
    return np.dtype(dt).kind == "u"


def _default_int_max():
    """A Python int operand must fit the default int type (int32, int64 with x64)."""
    return int(np.iinfo(np.int64 if jax.config.jax_enable_x64 else np.int32).max)


# Binary, all pairs.
for name, make in {
    "x + y": lambda L, dt: lambda x, y: x + y,
    "x - y": lambda L, dt: lambda x, y: x - y,
    "x * y": lambda L, dt: lambda x, y: x * y,
    "add": lambda L, dt: L.np.add,
    "subtract": lambda L, dt: L.np.subtract,
    "multiply": lambda L, dt: L.np.multiply,
    "lax.add": lambda L, dt: L.lax.add,
    "lax.sub": lambda L, dt: L.lax.sub,
    "lax.mul": lambda L, dt: L.lax.mul,
    "x // y": lambda L, dt: lambda x, y: x // y,
    "floor_divide": lambda L, dt: L.np.floor_divide,
    "x % y": lambda L, dt: lambda x, y: x % y,
    "remainder": lambda L, dt: L.np.remainder,
    "mod": lambda L, dt: L.np.mod,
    "fmod": lambda L, dt: L.np.fmod,
    "divmod(x, y)": lambda L, dt: lambda x, y: divmod(x, y),
    "np.divmod": lambda L, dt: L.np.divmod,
    "lax.div": lambda L, dt: L.lax.div,
    "lax.rem": lambda L, dt: L.lax.rem,
    "x / y": lambda L, dt: lambda x, y: x / y,
    "power": lambda L, dt: L.np.power,
    "x ** y": lambda L, dt: lambda x, y: x ** y,
    "bitwise_and": lambda L, dt: L.np.bitwise_and,
    "bitwise_or": lambda L, dt: L.np.bitwise_or,
    "bitwise_xor": lambda L, dt: L.np.bitwise_xor,
    "x & y | x ^ y": lambda L, dt: lambda x, y: (x & y, x | y, x ^ y),
    "minimum": lambda L, dt: L.np.minimum,
    "maximum": lambda L, dt: L.np.maximum,
    "fmin/fmax": lambda L, dt: lambda x, y: (L.np.fmin(x, y), L.np.fmax(x, y)),
    "lax.max/min": lambda L, dt: lambda x, y: (L.lax.max(x, y), L.lax.min(x, y)),
    "clip(min=y)": lambda L, dt: lambda x, y: L.np.clip(x, min=y),
    "clip(max=y)": lambda L, dt: lambda x, y: L.np.clip(x, max=y),
    "compare": lambda L, dt: lambda x, y: (x < y, x <= y, x == y, x != y, x > y, x >= y),
    "isclose": lambda L, dt: L.np.isclose,
}.items():
    case(name, "binary", make)

# JAX's gcd loops forever on some pairs with INT_MIN (|INT_MIN| is negative, and its
# Euclid step then cycles), so gcd and lcm take the pairs without INT_MIN.
case("gcd", "gcd", lambda L, dt: L.np.gcd)
case("lcm", "gcd", lambda L, dt: L.np.lcm)

# Shifts: x by {-1, 0, 1, bits-1, bits, bits+1, INT_MAX}.
for name, make in {
    "left_shift": lambda L, dt: L.np.left_shift,
    "right_shift": lambda L, dt: L.np.right_shift,
    "x << s, x >> s": lambda L, dt: lambda x, s: (x << s, x >> s),
    "bitwise_left/right_shift": lambda L, dt: lambda x, s: (L.np.bitwise_left_shift(x, s),
                                                            L.np.bitwise_right_shift(x, s)),
    "lax.shift_left": lambda L, dt: L.lax.shift_left,
    "lax.shift_right_logical": lambda L, dt: L.lax.shift_right_logical,
    "lax.shift_right_arithmetic": lambda L, dt: L.lax.shift_right_arithmetic,
}.items():
    case(name, "shift", make)

# Ternary, all triples (x, lo, hi), lo > hi included.
case("clip(x, lo, hi)", "ternary", lambda L, dt: lambda x, a, b: L.np.clip(x, a, b))
case("lax.clamp(lo, x, hi)", "ternary", lambda L, dt: lambda x, a, b: L.lax.clamp(a, x, b))

# Unary.
for name, make in {
    "abs": lambda L, dt: L.np.abs,
    "absolute": lambda L, dt: L.np.absolute,
    "abs(x)": lambda L, dt: lambda x: abs(x),
    "negative": lambda L, dt: L.np.negative,
    "-x": lambda L, dt: lambda x: -x,
    "positive": lambda L, dt: L.np.positive,
    "sign": lambda L, dt: L.np.sign,
    "lax.sign": lambda L, dt: L.lax.sign,
    "round": lambda L, dt: L.np.round,
    "around": lambda L, dt: L.np.around,
    "rint": lambda L, dt: L.np.rint,
    "floor": lambda L, dt: L.np.floor,
    "ceil": lambda L, dt: L.np.ceil,
    "trunc": lambda L, dt: L.np.trunc,
    "square": lambda L, dt: L.np.square,
    "x ** 0..3": lambda L, dt: lambda x: (x ** 0, x ** 1, x ** 2, x ** 3),
    "power(x, 5/7/63)": lambda L, dt: lambda x: (L.np.power(x, 5), L.np.power(x, 7),
                                                 L.np.power(x, 63)),
    "integer_pow": lambda L, dt: lambda x: tuple(L.lax.integer_pow(x, n)
                                                 for n in (0, 1, 2, 3, 5, 8)),
    "invert": lambda L, dt: L.np.invert,
    "~x": lambda L, dt: lambda x: ~x,
    "lax.bitwise_not": lambda L, dt: L.lax.bitwise_not,
    "population_count": lambda L, dt: L.lax.population_count,
    "clz": lambda L, dt: L.lax.clz,
    "x + 1, x - 1, x * 2": lambda L, dt: lambda x: (x + 1, x - 1, x * 2),
    "x << 1, x >> 1": lambda L, dt: lambda x: (x << 1, x >> 1),
    "x // 0, x % 0": lambda L, dt: lambda x: (x // 0, x % 0),
    "x // 2, x % 2": lambda L, dt: lambda x: (x // 2, x % 2),
    "astype(float32)": lambda L, dt: lambda x: x.astype(np.float32),
    "astype(float64)": lambda L, dt: lambda x: x.astype(np.float64),
    "astype(bool)": lambda L, dt: lambda x: x.astype(bool),
    "isfinite/isnan": lambda L, dt: lambda x: (L.np.isfinite(x), L.np.isnan(x)),
}.items():
    case(name, "unary", make)
case("lax.abs", "unary", lambda L, dt: L.lax.abs, raises=_unsigned)
case("power(x, static NumPy ints)", "unary", lambda L, dt: lambda x: (
    L.np.power(x, np.int32(3)), x ** np.int8(2), L.np.power(x, np.array(5)), x ** np.uint8(0),
    L.np.power(x, True)))
case("x + MAX, x - MAX, x * MAX", "unary", lambda L, dt: lambda x: (
    x + int(np.iinfo(dt).max), x - int(np.iinfo(dt).max), x * int(np.iinfo(dt).max)),
    raises=lambda dt: int(np.iinfo(dt).max) > _default_int_max())  # uint32's MAX is no int32
case("x + MIN, x * MIN", "unary", lambda L, dt: lambda x: (
    x + int(np.iinfo(dt).min), x * int(np.iinfo(dt).min)), when=_signed)
# OVERFLOW_BY_DESIGN: a Python int that does not fit the array's integer type is an
# OverflowError in numlir (as in NumPy 2), where JAX wraps it around if it fits the default
# int (int8 + 128 is int8 + -128): test_bad_input_messages.py::
# test_python_int_that_does_not_fit_a_small_int_array_is_an_error_as_in_numpy.
case("x + (MAX + 1)", "unary", lambda L, dt: lambda x: x + (int(np.iinfo(dt).max) + 1),
     overflow=True)
case("clip(x, 0, MAX + 1), x == MAX + 1", "unary", lambda L, dt: lambda x: (
    L.np.clip(x, 0, int(np.iinfo(dt).max) + 1), x == int(np.iinfo(dt).max) + 1), overflow=True)
case("convert_element_type(MAX + 1)", "unary", lambda L, dt: lambda x: (
    x + L.lax.convert_element_type(int(np.iinfo(dt).max) + 1, dt)), overflow=True)
case("x << bits, x >> bits", "unary", lambda L, dt: lambda x: (
    x << np.iinfo(dt).bits, x >> np.iinfo(dt).bits, x >> (np.iinfo(dt).bits - 1)))
case("bitwise_count", "unary", lambda L, dt: L.np.bitwise_count)
case("ldexp(1.5, x)", "unary", lambda L, dt: lambda x: L.np.ldexp(np.float32(1.5), x))
case("float_power", "binary", lambda L, dt: L.np.float_power)
# Indices at the extremes: negative ones count from the end (in the index's own type),
# then clamp, fill, clip, wrap or drop.
case("arange(10)[x]", "unary", lambda L, dt: lambda x: L.np.arange(10)[x])
case("take(arange(10), x, mode)", "unary", lambda L, dt: lambda x: tuple(
    L.np.take(L.np.arange(10), x, mode=m) for m in (None, "fill", "clip", "wrap")))
case("zeros(10).at[x].add(1)", "index", lambda L, dt: lambda x: (
    L.np.zeros(10, np.int32).at[x].add(1), L.np.zeros(10, np.int32).at[x].set(1, mode="clip")),
    )
case("arange(10)[x], one index", "index", lambda L, dt: lambda x: L.np.arange(10)[x])
case("dynamic_slice(arange(10), x)", "index",
     lambda L, dt: lambda x: L.lax.dynamic_slice(L.np.arange(10), (x,), (3,)))
case("dynamic_update_slice(zeros(10), x)", "index",
     lambda L, dt: lambda x: L.lax.dynamic_update_slice(L.np.zeros(10, np.int32),
                                                         L.np.ones(3, np.int32), (x,)))
case("x // -1, x % -1", "unary", lambda L, dt: lambda x: (x // -1, x % -1), when=_signed)
for target in SIGNED + UNSIGNED:
    case(f"astype({target})", "unary",
         lambda L, dt, t=target: lambda x: (x.astype(t), L.lax.convert_element_type(x, t)))

# Integers to negative static powers: JAX raises.
case("power(x, -1)", "unary", lambda L, dt: lambda x: L.np.power(x, -1), raises=True)
case("x ** -2", "unary", lambda L, dt: lambda x: x ** -2, raises=True)
case("round(x, -1)", "unary", lambda L, dt: lambda x: L.np.round(x, -1), raises=True)
case("power(x, np.int32(-1))", "unary", lambda L, dt: lambda x: L.np.power(x, np.int32(-1)),
     raises=True)
case("lax.pow", "binary", lambda L, dt: L.lax.pow, raises=True)
case("lax.pow(x, 2)", "unary", lambda L, dt: lambda x: L.lax.pow(x, np.asarray(2, dt)), raises=True)
case("integer_pow(x, -1)", "unary", lambda L, dt: lambda x: L.lax.integer_pow(x, -1), raises=True)

# Float -> integer conversions (to the dtype swept).
for src in ("float32", "float64"):
    case(f"{src}.astype", src, lambda L, dt: lambda f: f.astype(dt))
    case(f"{src} convert_element_type", src,
         lambda L, dt: lambda f: L.lax.convert_element_type(f, dt))
    case(f"asarray({src}, dtype)", src, lambda L, dt: lambda f: L.np.asarray(f, dtype=dt))

# Reductions, scans, arg-reductions and sorts of one row.
for name, make in {
    "sum": lambda L, dt: L.np.sum,
    "sum(dtype)": lambda L, dt: lambda r: L.np.sum(r, dtype=dt),
    "sum(promote_integers=False)": lambda L, dt: lambda r: L.np.sum(r, promote_integers=False),
    "r.sum()": lambda L, dt: lambda r: r.sum(),
    "cumsum": lambda L, dt: L.np.cumsum,
    "cumsum(dtype)": lambda L, dt: lambda r: L.np.cumsum(r, dtype=dt),
    "prod": lambda L, dt: L.np.prod,
    "prod(dtype)": lambda L, dt: lambda r: L.np.prod(r, dtype=dt),
    "cumprod": lambda L, dt: L.np.cumprod,
    "max/min": lambda L, dt: lambda r: (L.np.max(r), L.np.min(r)),
    "ptp": lambda L, dt: L.np.ptp,
    "argmax": lambda L, dt: L.np.argmax,
    "argmin": lambda L, dt: L.np.argmin,
    "sort": lambda L, dt: L.np.sort,
    "sort(descending)": lambda L, dt: lambda r: L.np.sort(r, descending=True),
    "argsort": lambda L, dt: L.np.argsort,
    "argsort(descending)": lambda L, dt: lambda r: L.np.argsort(r, descending=True),
    "lax.sort(keys, iota)": lambda L, dt: lambda r: L.lax.sort(
        (r, L.lax.iota(np.int32, r.shape[0])), num_keys=1),
    "lax.top_k": lambda L, dt: lambda r: L.lax.top_k(r, 4),
    "lax.reduce_max/min": lambda L, dt: lambda r: (L.lax.reduce_max(r, (0,)),
                                                   L.lax.reduce_min(r, (0,))),
    "cummax/cummin": lambda L, dt: lambda r: (L.lax.cummax(r), L.lax.cummin(r)),
}.items():
    case(name, "rows", make)
# Float sums of the ints: the order of the additions may differ (numlir sums short rows
# pairwise), so the mean is right to n * eps * max|x|, as any order of summation is.
case("mean", "rows", lambda L, dt: L.np.mean,
     atol=lambda magnitude, out: 9 * np.finfo(out).eps * magnitude)


def cases_for(dt) -> list[Case]:
    return [c for c in CASES if c.when(np.dtype(dt))]


# ---------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------

def _stack_rows(L, outs):
    if isinstance(outs[0], (tuple, list)):
        return tuple(L.np.stack(parts) for parts in zip(*outs))
    return L.np.stack(outs)


def case_fn(L, c: Case, dt, batched: bool):
    """The function of the case's batched inputs: elementwise cases take whole arrays; a
    row case maps over the rows (a Python loop, or L.vmap when ``batched``)."""
    fn = c.make(L, np.dtype(dt))
    if batched:
        return L.vmap(fn)
    if c.kind in LOOPED:
        return lambda m: _stack_rows(L, [fn(m[i]) for i in range(m.shape[0])])
    return fn


def leaves(out) -> list[np.ndarray]:
    if isinstance(out, (tuple, list)):
        return [np.asarray(x) for x in out]
    return [np.asarray(out)]


class Raised:
    def __init__(self, exc):
        self.exc = exc

    def __repr__(self):
        first = str(self.exc).splitlines()[0][:160] if str(self.exc) else ""
        return f"raised {type(self.exc).__name__}: {first}"


def _call(make, *args):
    try:
        return leaves(make()(*args))
    except Exception as exc:  # noqa: BLE001 - the sweep records what raised
        return Raised(exc)


def _jitted(L, cs, dt, variants) -> dict:
    """{(case name, variant): outputs} for each ``variant(case)`` -> batched, all compiled as
    one function; case by case if that raises, so that an error names its case only (and
    the key ``COMBINED`` holds what it raised)."""
    ins = inputs(dt)
    alone = [c for c in cs if c.raises(np.dtype(dt)) or c.overflow(np.dtype(dt))]
    ok = [(c, v, b) for c in cs if c not in alone for v, b in variants(c).items()]
    try:
        fns = [(c, v, case_fn(L, c, dt, b)) for c, v, b in ok]
        out = L.jit(lambda i: [f(*i[c.kind]) for c, _, f in fns])(ins)
        result = {(c.name, v): leaves(o) for (c, v, _), o in zip(ok, out)}
    except Exception as exc:  # noqa: BLE001
        result = {COMBINED: Raised(exc)}
        result |= {(c.name, v): _call(lambda c=c, b=b: L.jit(case_fn(L, c, dt, b)), *ins[c.kind])
                  for c, v, b in ok}
    for c in alone:  # each on its own: it may raise
        for v, b in variants(c).items():
            result[c.name, v] = _call(lambda c=c, b=b: L.jit(case_fn(L, c, dt, b)),
                                      *ins[c.kind])
    return result


def numlir_results(dt, mode: str) -> dict:
    """{case name: list of output arrays, or Raised} from numlir in ``mode``."""
    cs, ins = cases_for(dt), inputs(dt)
    if mode == "eager":
        return {c.name: _call(lambda c=c: case_fn(NL, c, dt, False),
                              *[NL.np.asarray(a) for a in ins[c.kind]]) for c in cs}
    if mode == "vmap":  # eager vmap: the batching rules, op by op
        return {c.name: _call(lambda c=c: case_fn(NL, c, dt, True), *ins[c.kind]) for c in cs}
    # Row cases run batched under jit too (unrolled over ten rows they would make the
    # compile five times longer); eager mode runs them row by row.
    return {name: r for (name, _), r in
            _jitted(NL, cs, dt, lambda c: {"": c.kind in LOOPED}).items()}


def jax_results(dt) -> dict:
    """JAX's answers under jax.jit (row cases under jax.jit(jax.vmap)), one compile for all
    the cases of a dtype: {case name: outputs, or Raised}."""
    return {name: r for (name, _), r in
            _jitted(JX, cases_for(dt), dt, lambda c: {"": c.kind in LOOPED}).items()}


COMBINED = ("(all cases compiled as one function)", "")


def jax_result_in_mode(c: Case, dt, mode: str):
    """JAX's answer to one case in ``mode`` (eager: op by op; vmap: jax.jit(jax.vmap))."""
    ins = inputs(dt)[c.kind]
    if mode == "eager":
        return _call(lambda: case_fn(JX, c, dt, False), *[JX.np.asarray(a) for a in ins])
    return _call(lambda: JX.jit(case_fn(JX, c, dt, mode == "vmap" or c.kind in LOOPED)), *ins)


def _describe(c: Case, dt, index) -> str:
    ins = inputs(dt)[c.kind]
    if c.kind == "rows":
        return f"row {ins[0][index[0]].tolist()}"
    if c.kind == "index":
        return f"index {ins[0][index[0]].item()!r}"
    return "(" + ", ".join(repr(a[index[0]].item()) for a in ins) + ")"


def compare(c: Case, dt, got, want) -> str | None:
    """None if ``got`` is ``want``: the same dtypes and shapes, integers and bools equal,
    floats equal (NaN where NaN; within ``c.atol`` for cases that sum floats) -- or both
    raised."""
    if isinstance(want, Raised) or isinstance(got, Raised):
        if isinstance(want, Raised) and isinstance(got, Raised):
            return None
        return f"numlir {got!r}, jax {want!r}"
    if len(got) != len(want):
        return f"{len(got)} outputs, jax {len(want)}"
    wrong = []
    for k, (g, w) in enumerate(zip(got, want)):
        if g.dtype != w.dtype or g.shape != w.shape:
            wrong.append(f"output {k}: {g.dtype}{list(g.shape)}, jax {w.dtype}{list(w.shape)}")
            continue
        if w.dtype.kind in "fc":
            atol = 0.0
            if c.atol is not None:
                magnitude = np.abs(inputs(dt)[c.kind][0].astype(np.float64)).max(axis=-1)
                atol = c.atol(magnitude.reshape(magnitude.shape + (1,) * (w.ndim - 1)), w.dtype)
            # XLA on CPU flushes subnormal results to zero, numlir keeps them (a float
            # policy, not an integer one): both flushed here.
            g, w = (np.where(np.abs(a) < np.finfo(a.dtype).tiny, 0, a) for a in (g, w))
            bad = ~(np.isclose(g, w, rtol=0, atol=atol, equal_nan=True) | (g == w))
        else:
            bad = g != w
        if bad.any():
            idx = np.argwhere(bad)
            shown = "; ".join(
                f"{_describe(c, dt, i)}: {g[tuple(i)].tolist()} [jax {w[tuple(i)].tolist()}]"
                for i in idx[:4])
            wrong.append(f"output {k}: {len(idx)} wrong: {shown}")
    return "; ".join(wrong) or None


def sweep(dt, modes=MODES) -> list[str]:
    """One line per case and mode where numlir differs from JAX. The reference is JAX under
    jit; where numlir differs from it, JAX in numlir's mode is asked too, and its answer
    counts: JAX's modes disagree at some extremes (a vector of uint32 indices >= 2**31 into
    arange(10) gathers index 0, each such index under vmap index 9)."""
    cs = cases_for(dt)
    want = jax_results(dt)
    lines = []
    if COMBINED[0] in want:  # then every case compiled on its own: slow
        lines.append(f"{np.dtype(dt).name}: jax {want[COMBINED[0]]!r} on the cases together: "
                     f"flag the case that raises (raises=)")
    for c in cs:
        if c.raises(np.dtype(dt)) and not isinstance(want[c.name], Raised):
            lines.append(f"{np.dtype(dt).name} {c.name}: jax no longer raises: {want[c.name]}")
    for mode in modes:
        got = numlir_results(dt, mode)
        for c in cs:
            if c.overflow(np.dtype(dt)) and isinstance(got[c.name], Raised) and isinstance(
                    got[c.name].exc, OverflowError):
                continue  # numlir's deliberate OverflowError (see OVERFLOW_BY_DESIGN)
            msg = compare(c, dt, got[c.name], want[c.name])
            if msg and mode != "jit":
                msg = compare(c, dt, got[c.name], jax_result_in_mode(c, dt, mode))
            if msg:
                lines.append(f"{np.dtype(dt).name} {mode} {c.name}: {msg}")
    return lines


# ---------------------------------------------------------------------------------------
# The sweep: every case, each dtype, eagerly, under jit and under vmap, x64 off and on.
# ---------------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def _quiet_x32_truncation():
    """Without x64, astype(int64) and friends truncate to 32 bits in both, with a warning."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is not available.*")
        yield


@pytest.mark.parametrize("dtype", SIGNED[:3] + UNSIGNED[:2])
def test_integer_extremes_match_jax_without_x64(dtype):
    lines = sweep(dtype)
    assert not lines, "\n".join(lines)


@pytest.mark.parametrize("dtype", SIGNED + UNSIGNED)
def test_integer_extremes_match_jax_with_x64(dtype, x64):
    lines = sweep(dtype)
    assert not lines, "\n".join(lines)


if __name__ == "__main__":
    from numlir._src import config

    warnings.simplefilter("ignore")
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    if "--x64" in flags:
        config.update("jax_enable_x64", True)
        jax.config.update("jax_enable_x64", True)
    dts = [a for a in sys.argv[1:] if not a.startswith("--")]
    dts = dts or (SIGNED + UNSIGNED if "--x64" in flags else SIGNED[:3] + UNSIGNED[:2])
    modes = [m for m in MODES if f"--{m}" in flags] or MODES
    for dt in dts:
        if "--jax-modes" in flags:  # where JAX's own modes disagree
            want = jax_results(dt)
            for c in cases_for(dt):
                for mode in ("eager", "vmap"):
                    msg = compare(c, dt, jax_result_in_mode(c, dt, mode), want[c.name])
                    if msg:
                        print(f"jax {mode} vs jit: {np.dtype(dt).name} {c.name}: {msg}")
        for line in sweep(dt, modes):
            print(line)


# ---------------------------------------------------------------------------------------
# Regression tests of what the sweep found, one per behaviour.
# ---------------------------------------------------------------------------------------

def _modes(f, *args):
    """f's results eagerly, under jit and under vmap, as NumPy arrays (trees of them)."""
    out = {"eager": f(*[jnp.asarray(a) for a in args]), "jit": numlir.jit(f)(*args),
           "vmap": numlir.vmap(f)(*args)}
    return {mode: [np.asarray(v) for v in (o if isinstance(o, tuple) else (o,))]
            for mode, o in out.items()}


def _assert_modes_match_jax(f_numlir, f_jax, *args):
    want = [np.asarray(v) for v in jax.tree_util.tree_leaves(jax.jit(f_jax)(*args))]
    for mode, got in _modes(f_numlir, *args).items():
        assert len(got) == len(want), mode
        for g, w in zip(got, want):
            assert g.dtype == w.dtype, (mode, g.dtype, w.dtype)
            np.testing.assert_array_equal(g, w, err_msg=mode)


def test_integer_floor_divide_by_zero_matches_xla():
    # XLA: x / 0 is -1; jax's floor_divide steps it down where sign(x) != sign(0) and
    # x % 0 (= x) != 0: -2 for every x but 0. numlir gave [-2, -1, -1, -1].
    x, y = np.array([-4, 4, 0, 7], np.int32), np.zeros(4, np.int32)
    for f in (jnp.floor_divide, lambda a, b: a // b, lambda a, b: jnp.divmod(a, b)[0]):
        for mode, (got,) in _modes(f, x, y).items():
            np.testing.assert_array_equal(got, [-2, -2, -1, -2], err_msg=mode)
    assert int(jnp.floor_divide(np.int8(-128), np.int8(-1))) == -128  # INT_MIN // -1 wraps


def test_integer_remainder_by_zero_is_zero_as_jax():
    # numlir gave the dividend (XLA's lax.rem by 0); jax's remainder, mod, % and fmod
    # divide by 1 where the divisor is 0.
    x = np.array([-4, 4, 0, 7, -2**31, 2**31 - 1], np.int32)
    y = np.zeros_like(x)
    for f in (jnp.remainder, jnp.mod, jnp.fmod, lambda a, b: a % b,
              lambda a, b: divmod(a, b)[1]):
        for mode, (got,) in _modes(f, x, y).items():
            np.testing.assert_array_equal(got, np.zeros_like(x), err_msg=mode)
    for mode, (got,) in _modes(jnp.remainder, np.array([1, 255], np.uint8),
                               np.zeros(2, np.uint8)).items():
        np.testing.assert_array_equal(got, [0, 0], err_msg=mode)
    # lax.rem keeps XLA's definition: x % 0 is x.
    np.testing.assert_array_equal(numlir.lax.rem(x, y), x)


def test_integer_power_with_an_array_exponent_is_jax_binary_exponentiation():
    # jax raises integers to array exponents by six squarings: the exponent counts modulo
    # 64 (negative ones as two's complement), in wrapping arithmetic. numlir used XLA's
    # power (0 for negative exponents, the full exponent otherwise).
    info = np.iinfo(np.int32)
    x = np.array([info.min, info.min + 1, -2, 3, 3, 2, 0, 0, 5], np.int32)
    y = np.array([info.min, info.min + 1, -1, 64, 65, 31, 64, 0, info.max], np.int32)
    _assert_modes_match_jax(jnp.power, jjnp.power, x, y)
    _assert_modes_match_jax(lambda a, b: a ** b, lambda a, b: a ** b, x, y)
    assert int(numlir.jit(jnp.power)(np.int32(3), np.int32(64))) == 1  # 3 ** (64 % 64)
    u = np.array([2, 3, 3], np.uint32), np.array([2**31, 2**31 - 2, 2**32 - 1], np.uint32)
    _assert_modes_match_jax(jnp.power, jjnp.power, *u)


def test_power_of_bool_arrays_is_an_integer_power_as_jax():
    # numlir raised "power does not accept dtype bool"; jax promotes bools to int.
    a, b = np.array([True, False, True]), np.array([True, True, False])
    _assert_modes_match_jax(jnp.power, jjnp.power, a, b)


def test_power_by_a_concrete_numpy_integer_scalar_is_integer_pow_as_jax():
    # jax's power takes any concrete integer scalar (not only a Python int) as a static
    # exponent: x's dtype is kept, and negative exponents of integers raise.
    x = np.array([-3, 2, 127], np.int8)
    out = jnp.power(x, np.int32(2))
    want = jjnp.power(x, np.int32(2))
    assert out.dtype == want.dtype == np.int8
    np.testing.assert_array_equal(out, want)
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
        jnp.power(x, np.int32(-1))
    # Traced, the exponent is an array: promoted with x, as jax's.
    assert numlir.jit(jnp.power)(x, np.int32(2)).dtype == jax.jit(jjnp.power)(x, np.int32(2)).dtype


def test_integers_to_negative_static_powers_raise_type_error_as_jax():
    # numlir's lax.integer_pow gave 1 // x**n (0, ±1); jnp.power raised a ValueError.
    x = np.array([-1, 1, 2], np.int32)
    for f in (lambda a: numlir.lax.integer_pow(a, -1), lambda a: jnp.power(a, -1),
              lambda a: jnp.asarray(a) ** -2):
        for run in (f, numlir.jit(f), numlir.vmap(f)):
            with pytest.raises(TypeError, match=r"Integers cannot be raised to negative powers, "
                                                r"got integer_pow\(int32\[(3)?\], -[12]\)"):
                run(x)
    np.testing.assert_allclose(numlir.lax.integer_pow(np.float32(2), -2), 0.25)


def test_lax_pow_refuses_integer_bases_as_jax():
    x = np.array([2, 3], np.int32)
    with pytest.raises(TypeError):
        jax.lax.pow(x, x)
    with pytest.raises(TypeError, match="pow does not accept dtype int32"):
        numlir.lax.pow(x, x)


def test_lcm_wraps_as_jax():
    # jax computes |x1| * (|x2| // gcd) with no abs after: lcm(-(2**31 - 1), 2) wraps to -2
    # (numlir took the absolute value of the wrapped product: 2).
    x = np.array([-(2**31 - 1), 2**31 - 1, 6, -4], np.int32)
    y = np.array([2, -(2**31 - 2), 4, 6], np.int32)
    _assert_modes_match_jax(jnp.lcm, jjnp.lcm, x, y)
    assert int(jnp.lcm(np.int32(-(2**31 - 1)), np.int32(2))) == -2


@pytest.mark.parametrize("x64_on", [False, True])
def test_rint_of_integers_is_the_default_float_as_jax(x64_on, request):
    # numlir gave float32 with x64 on (jax: float64, the default float).
    if x64_on:
        request.getfixturevalue("x64")
    for dtype in (np.int8, np.int32, np.uint8, np.bool_):
        x = np.array([1, 0], dtype)
        assert jnp.rint(x).dtype == jjnp.rint(x).dtype, dtype


def test_integer_round_to_negative_decimals_raises_as_jax():
    # numlir rounded half up through an overflowing x + 5 (round(INT_MAX, -1) was -2**31 + 6
    # for int32); jax does not implement it.
    x = np.array([15, 25, 2**31 - 1], np.int32)
    with pytest.raises(NotImplementedError):
        jjnp.round(x, -1)
    with pytest.raises(NotImplementedError, match="integer np.round not implemented for decimals"):
        jnp.round(x, -1)
    np.testing.assert_array_equal(jnp.round(x, 2), x)


def test_ldexp_by_an_extreme_integer_exponent_does_not_wrap():
    # numlir added frexp's exponent to x2 in x2's integer type: 1 + 127 wrapped to -128 in
    # int8 (ldexp(1.5, 127) was 2.2e-39) and 32767 + 1 in int16 gave 0 instead of inf.
    e8 = np.array([-100, -1, 0, 126, 127], np.int8)  # (2**-128 is subnormal: XLA flushes it)
    _assert_modes_match_jax(lambda e: jnp.ldexp(np.float32(1.5), e),
                            lambda e: jjnp.ldexp(np.float32(1.5), e), e8)
    e16 = np.array([-32768, 32767], np.int16)
    _assert_modes_match_jax(lambda e: jnp.ldexp(np.float32(0.75), e),
                            lambda e: jjnp.ldexp(np.float32(0.75), e), e16)


def test_sum_and_prod_take_promote_integers_as_jax():
    # numlir's sum and prod had no promote_integers: an int8 sum that wraps could not be asked for.
    r = np.array([127, 1, 2], np.int8)
    for f, g in ((jnp.sum, jjnp.sum), (jnp.prod, jjnp.prod)):
        for promote in (True, False):
            _assert_modes_match_jax(lambda a: f(a, axis=-1, promote_integers=promote),
                                    lambda a: g(a, axis=-1, promote_integers=promote),
                                    np.stack([r, r]))
        b = np.array([True, True])
        assert f(b, promote_integers=False).dtype == g(b, promote_integers=False).dtype


def test_isclose_of_integers_compares_as_floats_as_jax():
    # numlir compared integers exactly; jax (and NumPy) convert them to floats and apply the
    # tolerances: INT_MAX - 1 and INT_MAX are close, and so are 1000000 and 1000005.
    x = np.array([2**31 - 2, -2**31, 1000000, 7], np.int32)
    y = np.array([2**31 - 1, -2**31 + 1, 1000005, 8], np.int32)
    _assert_modes_match_jax(jnp.isclose, jjnp.isclose, x, y)
    np.testing.assert_array_equal(jnp.isclose(x, y), [True, True, True, False])


def test_partition_at_int_min_keeps_every_element():
    # Where JAX is wrong, numlir keeps the right answer: jax's partition takes the smallest
    # values as -top_k(-x), and -INT_MIN wraps to INT_MIN, so INT_MIN is lost and another
    # value repeated. numlir's partition is a permutation with the kth value in place.
    r = np.array([-128, -127, -2, -1, 0, 1, 2, 126, 127], np.int8)
    assert -128 not in np.asarray(jjnp.partition(r, 4)).tolist()  # JAX's answer
    for run in (jnp.partition, numlir.jit(jnp.partition, static_argnums=1)):
        out = np.asarray(run(r, 4))
        assert sorted(out.tolist()) == sorted(r.tolist())
        assert out[4] == np.sort(r)[4] and (out[:4] <= out[4]).all() and (out[5:] >= out[4]).all()
