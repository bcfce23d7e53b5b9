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

Complex programs (complex64 with x64 off, complex128 with it on) mix complex
values with the real ones of their parts' dtype: ``lax.complex``, ``a + 1j * b``
and Python complex scalars make complex values from real ones; ``real``,
``imag``, ``abs`` and ``angle`` lead back. For a complex value ``distinct`` also
promises elements off both axes (both parts of an input are drawn nonzero), so
``abs`` and ``angle`` stay away from their kink at 0, max and min (real part
first) from ties, and ``angle``, ``log``, ``sqrt`` and the inverse functions of
it from their branch cuts along the axes, where a rounding of a part to -0
instead of +0 flips the result (by 2*pi*i, or in sign). Other complex operands
of those, and of rsqrt, division and non-integer powers, are scaled into disks
away from 0 and from the cuts (``|w - 1| <= 0.5`` for log). tan, tanh and
logistic see operands inside their poles.
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

#: Program families: the main dtype, whether x64 is on, and their weights. (The complex
#: families came in session 19 with weights 0.06 and 0.03; the others were scaled by 0.91.)
FAMILIES = (("float32", False, 0.38), ("float64", True, 0.13), ("bfloat16", False, 0.09),
            ("int32", False, 0.2), ("bool", False, 0.065), ("int32", True, 0.045),
            ("complex64", False, 0.06), ("complex128", True, 0.03))
#: The dtypes of a complex number's parts.
COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}
#: The bound on |z| of a complex input: both parts have magnitudes in [0.25, 2].
COMPLEX_INPUT_BOUND = 2.0 * math.sqrt(2.0)


def family_name(dtype: str, x64: bool) -> str:
    """A family's name for ``--families``: its dtype, and ``_x64`` where x64 is on for a dtype
    that does not need it (``int32_x64``)."""
    return dtype + ("_x64" if x64 and dtype not in ("float64", "complex128") else "")


FAMILY_NAMES = tuple(family_name(d, x) for d, x, _ in FAMILIES)

# -- special values ------------------------------------------------------------------------------
#: How ``generate`` picks special-value programs: about a quarter of them by (seed, index)
#: (what campaigns and the fixed-seed test do), every program, or none (``generate``'s default:
#: the tests that compile the fuzzer's programs two ways and compare them bit for bit).
SPECIAL_VALUES_MODES = ("quarter", "all", "none")
#: The share of special-value programs under "quarter".
SPECIAL_SHARE = 0.25
#: The kinds of special float values, and how often an input's palette has each.
SPECIAL_KINDS = (("zero", 0.7), ("tie", 0.7), ("kink", 0.5), ("inf", 0.35), ("nan", 0.2),
                 ("tiny", 0.35), ("huge", 0.35))
#: Exact values at the templates' kinks and boundaries: relu, abs, sign at 0 (zeros), clip at
#: +-1, hard_tanh(2x) at +-0.5, relu6(4x) at 1.5, where(x > 0.5), round's halves (0.5, 1.5,
#: 2.5), relu6 at 6. The perturbation that tells ill-conditioning leaves them in place.
KINK_VALUES = (0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, 2.5, 6.0)
#: The kinds complex programs draw: no infinities (XLA's complex matrix products meet them
#: with an algorithm of their own, which makes NaN where the textbook product of the parts,
#: numlir's, makes infinities: seed 101, program 0 under --special-values all, a complex
#: dot with a -inf), no huge values (numlir squares complex numbers with the plain formula,
#: documented in docs/complex-numbers.md: (1e30 + 1e30j) ** 2 is NaN where XLA gives -inf),
#: no NaN (whether a NaN in one part spreads to the other depends on the formula: jax's
#: cumprod of one element multiplies it by 1 + 0j, and (1 + 0j) * (0.37 + NaN j) is
#: NaN + NaN j, where numlir returns the element; seed 102, program 52). Nor the functions at
#: their singular points (``_UNARY_SPECIAL`` and friends), which make infinities.
COMPLEX_SPECIAL_KINDS = ("zero", "tie", "kink", "tiny")
#: Tiny and huge magnitudes per float dtype (times a factor in [0.25, 2]). Tiny ones are
#: normal numbers: XLA's CPU flushes subnormals to zero and numlir keeps them, on purpose
#: (docs/complex-numbers.md), so a subnormal input would only find that.
SPECIAL_MAGNITUDES = {"float32": (1e-30, 1e30), "bfloat16": (1e-30, 1e30),
                      "float64": (1e-300, 1e300)}
#: Integer specials: the extremes, 0, +-1, and shift amounts at and past the bit width (and
#: a negative one, which XLA reads as a huge unsigned amount).
INT_SPECIALS = {"int32": (-2**31, 2**31 - 1, 0, 0, -1, -1, 1, 31, 32, 33, 64, -2**31 + 1)}


#: What counts as huge for ``Val.huge``, and as tiny for ``Val.tiny``.
HUGE_VALUE = 1e20
TINY_VALUE = 1e-20
#: Special ops that make huge values from tiny ones (1 / 1e-30).
GROWTH_KINDS = ("reciprocal", "rsqrt", "power", "integer_pow", "div", "floordiv", "lgamma",
                "digamma")
#: Ops whose derivative jax gets wrong at huge values, where numlir's is right: not
#: differentiated there. ``jnp.i0``'s at -1.5e300 is NaN on jax (``exp(|x|) i0e(x)``, inf * 0),
#: -inf on numlir (I1 overflows; seeds 111 and 118). ``grad(jnp.hypot)(1e30, 3e29)`` is (1.044, 0.287) on jax 0.10.2, the
#: true (0.958, 0.287) on numlir, wherever ``x * x`` overflows (|x| >= 1e19 in float32, 1e154
#: in float64); ``hypot(x, x)``'s is 1.06 for 0.707 (seed 103, program 136). jax's
#: derivative of ``x / y`` in y is ``-g x y**-2``: y**-2 underflows to 0 where y*y overflows,
#: so at an infinite x it is NaN where the true one (and numlir's) is infinite (seed 146,
#: program 3117: ``x0[:, :, None] / x0`` at x0 holding inf and 1.2e300, float64).
JAX_WRONG_AT_HUGE = ("hypot", "i0", "div")
#: Ops whose derivative jax gets wrong at infinities: ``grad(lax.digamma)(inf)`` is NaN on jax
#: 0.10.2 (its polygamma(1, inf)), 0 in truth and on numlir (seed 121, programs 1766 and 2479).
JAX_WRONG_AT_INFINITY = ("digamma",)
#: Ops whose derivative jax gets wrong at tiny values: ``grad(jnp.sinc)(1.6e-30)`` is inf on jax,
#: about -3.3e-30 in truth and on numlir (issue 39 lists it; seed 104, program 19 under
#: --special-values all). ``hypot(0, t)``'s derivative in ``t`` at a tiny t is NaN on jax
#: (``t * t`` underflows), sign(t) on numlir (seed 117, program 1000).
JAX_WRONG_AT_TINY = ("sinc", "hypot")
#: Ops whose complex value jax gets wrong at tiny values: jax 0.10.2's complex sinh drops a
#: real part below about 1e-19 (``jnp.sinh(2.3e-31 + 0j)`` is 0; NumPy and numlir give
#: 2.3e-31), so the derivative of a kink after it (``abs``, whose modulus jax then sees as 0)
#: is jax's 0 where the true one, and numlir's, is the kink's slope (seed 149, program 2490:
#: ``abs(sinh(outer(x0, x4) * 0.5))`` at x0 = -3.7e-31). Not differentiated there.
JAX_WRONG_AT_TINY_COMPLEX = ("sinh",)
#: Ops whose derivative reads the sign of a zero operand (sqrt's 1 / (2 sqrt(+-0)) is +-inf, and
#: log's 1 / x): not differentiated at a sum's zero (``Val.zero_sign``; seed 113, program 1:
#: sqrt of a length-1 contraction, -0 on XLA and +0 on numlir and NumPy). So do the remainders'
#: derivatives in their divisor, -trunc(x / y) (seed 126, program 5896: fmod(x1, dot(x0, x1))
#: at a one-term dot of zeros, -inf on numlir and inf on jax).
DERIVATIVE_ZERO_SIGN_KINDS = ("sqrt", "log", "cbrt", "power", "remainder", "mod")
#: Ops whose jax derivative is NaN where the cotangent is infinite and the true one is infinite:
#: jax's tanh JVP ``(g + g ans)(1 - ans)`` makes inf - inf where ans < 0 (seed 114, program
#: 2303); numlir's ``g (1 - ans^2)`` is inf. jax's i0 is ``i0e(x) exp(|x|)``, whose product
#: rule adds the cotangent times ``i1e - sign(x) i0e`` (negative near 0) to it times ``i0e``:
#: -inf + inf (seed 129, program 3266: ``vjp(i0, 0.25)(-inf)`` is NaN on jax, -inf, the
#: cotangent times i1(0.25), on numlir). Special-value programs make infinite cotangents
#: downstream, which emit cannot see, so these are not differentiated there.
JAX_WRONG_AT_INFINITE_COTANGENT = ("tanh", "lax_tanh", "gelu", "i0")
#: Ops whose jax derivative multiplies the cotangent by a 0/1 indicator of the chosen element
#: (its chooser rules: ``g * (x == max) / count``), which is NaN where the cotangent is
#: infinite and the element was not chosen; numlir selects, so the chosen element gets the
#: infinity and the others 0 (seed 8, program 9 of the in-suite test: the gradient of
#: ``erf_inv(x.at[0].max(u))`` at x = -1, -inf against jax's NaN). The infinite cotangent
#: comes from a special op's singular derivative downstream (``Val.chooser_upstream``).
JAX_INDICATOR_DERIVATIVE_KINDS = ("scatter", "reduce_max", "reduce_min", "maximum", "minimum",
                                  "fmax", "fmin", "clip", "cummax", "reduce_window")
#: Ops whose derivative overflows where ``x^2 + y^2`` underflows, on jax and numlir alike
#: (atan2's ``-x / (x^2 + y^2)`` is -inf at (1.6e-300, 0) for the true -6.2e299): what the
#: infinite cotangent meets next differs (seed 117, program 1322: inf * 0 in the gradient of
#: ``abs(z) ** 2`` at a tiny z, NaN on numlir and -inf on jax). Not differentiated at tiny values.
#: The norm's ``z / sqrt(sum |z|^2)`` is z / 0 where the squares underflow, for a true z / |z|
#: (seed 121, program 2184: -inf+infj on jax, NaN on numlir).
DERIVATIVE_OVERFLOWS_AT_TINY = ("arctan2", "norm")
#: Ops whose derivative is infinite or NaN at an exact zero operand (arctan2's at (0, 0) is
#: 0 / 0): not differentiated at a convolution's windows over padding or dilation holes only
#: (``Val.padding_zeros``), whose NaN cotangent the gradient sends back to those inserted
#: zeros. XLA's convolutions with lhs dilation skip the inserted zeros (and padding with
#: them); numlir multiplies them, as StableHLO defines, 0 * NaN = NaN (seed 145, program 663:
#: arctan2 of two layouts of a convolution with padding (0, 2), (1, 2) and lhs dilation 2;
#: the kernel gradient is NaN on numlir, finite on jax). Whether XLA skips padding depends on
#: its implementation (a 1-D convolution with rhs dilation skips it, a 2-D one does not).
DERIVATIVE_SINGULAR_AT_ZERO_KINDS = tuple(dict.fromkeys(
    GROWTH_KINDS + DERIVATIVE_ZERO_SIGN_KINDS + DERIVATIVE_OVERFLOWS_AT_TINY))
#: Trigonometric ops: of a huge value an operation made, their result is any number in
#: [-1, 1] by the last bit of that value, which jax and numlir may round differently (seed 117,
#: program 2555: ``cos(x / (y * y + 0.5))`` at 1.2e30, 0.96 or -0.55 by one ulp of the
#: quotient). Of a huge input (exact) they are compared.
TRIG_KINDS = ("sin", "cos", "tan")
#: Ops that read the sign bit of their last operand: not of a NaN (see Builder.emit).
NAN_SIGN_KINDS = ("copysign", "signbit")
#: Ops whose result depends on the sign of a zero operand (``1 / x`` is +-inf): not of a sum's
#: zero (``Val.zero_sign``).
ZERO_SIGN_KINDS = GROWTH_KINDS + ("arctan2",)
#: Ops whose result jumps where their operand crosses zero: not of an FFT's rounding noise
#: (``Val.cancels``), which is 0 or a tiny number of either sign by the implementation (seed
#: 120, program 3007: ``all(irfft2(rfft2(x)))`` at x's zeros, True on jax, False on numlir).
DISCONTINUOUS_AT_ZERO_KINDS = ZERO_SIGN_KINDS + NAN_SIGN_KINDS + (
    "sign", "compare", "floor", "mod", "floordiv", "remainder", "reduce_any", "reduce_all")
#: Ops that rank their operand's elements: not of FFT rounding noise either, whose ties (the
#: zeros an FFT round trip makes equal) each implementation breaks by its own noise (seed
#: 123, program 2325: argmin over irfft2(rfft2(x, s=(6, 3))), 27 of 60 indices apart).
RANKING_KINDS = ("argmax", "argsort")
#: Ops that only move a value's elements: a value computed from another through them keeps
#: its ``Val.root``.
LAYOUT_KINDS = ("reshape", "squeeze", "expand_dims", "transpose", "broadcast")
#: ``x - log_softmax(x)`` is logsumexp(x) along the axis, the same for every element in exact
#: arithmetic but rounding noise of either sign by the order of evaluation (seed 125, program
#: 5362: argmax over it, 0 on jax where XLA's evaluation makes the three equal, 1 on numlir
#: and NumPy), so such a difference ``cancels``.
CANCELLING_KINDS = ("sub", "add")
#: Ops that sum products: none of them takes a huge operand (see Builder.emit).
CONTRACTION_KINDS = ("matmul", "matrix_polynomial", "dot_general", "einsum", "tensordot", "outer",
                     "conv", "vdot", "vecdot", "inner", "vdot_self", "scan")
#: Ops that sum: whether a sum of signed zeros is -0 or +0 is the implementation's.
SUM_KINDS = CONTRACTION_KINDS + ("reduce_sum", "reduce_mean", "reduce_var", "reduce_std", "cumsum",
                                 "reduce_window", "trace", "scatter", "logsumexp", "standardize",
                                 "softmax", "abs2_sum", "real_abs_sum", "norm")
#: Ops whose zeros jax makes with the wrong sign: its cumprod interleaves an associative
#: scan with pad + add, and 0.0 + -0.0 is +0.0, so a product's -0 comes out +0 (seed 132,
#: program 972: cumprod of [-0.58, 0.0] is [-0.58, +0.0] on jax, -0.0 on numlir and NumPy;
#: remainder(x, cumprod(...))'s derivative in its divisor then has the other sign). Their
#: zeros count as a sum's (``Val.zero_sign``).
ZERO_SIGN_LOST_KINDS = ("cumprod",)


def special_values(seed, index: int, mode: str = "quarter") -> bool:
    """Whether program ``(seed, index)`` draws special values under ``mode``: for "quarter",
    about a quarter of the programs, by a generator of their own (the programs that do not
    are exactly the ones they were before special values came)."""
    if mode not in SPECIAL_VALUES_MODES:
        raise ValueError(f"special values {mode!r}; the modes: {SPECIAL_VALUES_MODES}")
    if mode != "quarter":
        return mode == "all"
    return bool(np.random.default_rng([int(seed), int(index), 0x5EC1A1]).random() < SPECIAL_SHARE)


@dataclasses.dataclass
class Val:
    name: str
    aval: Aval
    bound: float
    distinct: bool
    #: May hold huge finite values (special-value programs): a special input with them, any
    #: value computed from one, and the special ops that make them from tiny values.
    huge: bool = False
    #: May hold infinities or NaN (special-value programs): a special input with them, any value
    #: computed from one or from a huge one, and in special programs the special tables' ops.
    nonfinite: bool = False
    #: May hold tiny nonzero values (special-value programs): a special input with them, or any
    #: value computed from one.
    tiny: bool = False
    #: May hold a zero whose sign is the implementation's (special-value programs): a sum of
    #: signed zeros is -0 or +0 by whether it starts from a +0 accumulator (XLA's dot of one
    #: term returns the product, -0; numlir's adds it to +0), and anything computed from one.
    zero_sign: bool = False
    #: May hold a value that is zero in exact arithmetic but rounding noise of either sign (or
    #: exactly 0) by the implementation: an FFT's output where its input has zeros (an FFT
    #: round trip of an exact zero), and anything computed from one.
    cancels: bool = False
    #: May hold an exact zero that a convolution made from padding or lhs-dilation holes
    #: only (a window over no input element), and anything computed from one: the gradient
    #: sends the cotangent there back to the inserted zeros (``DERIVATIVE_SINGULAR_AT_ZERO_KINDS``).
    padding_zeros: bool = False
    #: The value this one is a layout of (``LAYOUT_KINDS``), itself if none.
    root: str = ""
    #: The root of the value this one is ``log_softmax`` of (or a layout of one), if it is.
    log_softmax_of: str | None = None
    #: Computed from a value a chooser made (``JAX_INDICATOR_DERIVATIVE_KINDS``), so that an
    #: infinite cotangent made here reaches jax's indicator rule.
    chooser_upstream: bool = False

    @property
    def cat(self) -> str:
        """``f`` (floating), ``c`` (complex), ``i`` (integer) or ``b`` (bool)."""
        if self.aval.is_float:
            return "f"
        if self.aval.is_complex:
            return "c"
        return "b" if self.aval.dtype == "bool" else "i"

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
                 batch_size: int, special: bool = False):
        self.rng = rng
        #: A special-value program (see ``special_values``): inputs hold special values, and
        #: the guards that only kept values regular are off.
        self.special = special
        self.special_inputs: set[str] = set()
        #: Per dtype, values earlier special inputs hold: ties across inputs.
        self.tie_pool: dict[str, list[float]] = {}
        self.dtype = dtype
        self.x64 = x64
        self.differentiable = differentiable
        self.batch_size = batch_size
        self.vals: list[Val] = []
        self.inputs: list[Input] = []
        self.ops: list[Op] = []
        self.used: set[str] = set()

    @property
    def complex_program(self) -> bool:
        return self.dtype in COMPLEX_PARTS

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
    def draw(self, shape, dtype: str, low: int | None = None, high: int | None = None,
             special: bool = False) -> np.ndarray:
        """Inputs: floats of magnitude in [0.25, 2] (no zeros, no huge values), complex numbers
        with two such parts, small ints, coin flips; with ``special``, such values with special
        ones among them (``draw_special``)."""
        if special:
            return self.draw_special(shape, dtype)
        if dtype in COMPLEX_PARTS:
            out = np.empty(shape, dtype)
            out.real = self.draw(shape, COMPLEX_PARTS[dtype])
            out.imag = self.draw(shape, COMPLEX_PARTS[dtype])
            return out
        if dtype == "bool":
            return np.asarray(self.rng.random(shape) < 0.5)
        if dtype.startswith("int"):
            lo = -5 if low is None else low
            hi = 5 if high is None else high
            return np.asarray(self.rng.integers(lo, hi + 1, size=shape), dtype=dtype)
        mag = self.rng.uniform(0.25, 2.0, size=shape)
        sign = np.where(self.rng.random(shape) < 0.5, -1.0, 1.0)
        return np.asarray(mag * sign).astype(_np_dtype(dtype))

    def draw_special(self, shape, dtype: str) -> np.ndarray:
        """A special-value input: a regular draw with about half of its elements replaced by
        special values of the kinds in this input's palette (``SPECIAL_KINDS``). Floats: exact
        zeros of both signs, ties (another element's value, or a value an earlier input of the
        program holds), the kinks of the op templates (``KINK_VALUES``), +-inf, NaN, tiny and
        huge magnitudes (``SPECIAL_MAGNITUDES``); complex programs only the kinds in
        ``COMPLEX_SPECIAL_KINDS``, complex numbers in each part; integers: ``INT_SPECIALS``
        (INT_MIN, INT_MAX, 0, -1, 1, and shift amounts at and past the bit width)."""
        if dtype in COMPLEX_PARTS:
            out = np.empty(shape, dtype)
            out.real = self.draw_special(shape, COMPLEX_PARTS[dtype])
            out.imag = self.draw_special(shape, COMPLEX_PARTS[dtype])
            return out
        if dtype == "bool":
            return self.draw(shape, dtype)
        if dtype in INT_SPECIALS:
            flat = self.draw(shape, dtype).reshape(-1).copy()
            pool = INT_SPECIALS[dtype]
            for i in range(flat.size):
                if self.chance(0.5):
                    flat[i] = pool[int(self.rng.integers(len(pool)))]
            return flat.reshape(shape)
        flat = self.draw(shape, "float64").reshape(-1).copy()
        # Complex programs: no infinities, no huge values (see COMPLEX_SPECIAL_KINDS).
        palette = [kind for kind, p in SPECIAL_KINDS
                   if self.chance(p) and not (self.complex_program
                                              and kind not in COMPLEX_SPECIAL_KINDS)]
        palette = palette or ["zero"]
        tiny, huge = SPECIAL_MAGNITUDES[dtype]
        pool = self.tie_pool.setdefault(dtype, [])
        ties = []
        for i in range(flat.size):
            if not self.chance(0.5):
                continue
            kind = self.choice(palette)
            sign = -1.0 if self.chance(0.5) else 1.0
            if kind == "zero":
                flat[i] = sign * 0.0
            elif kind == "kink":
                flat[i] = self.choice(KINK_VALUES)
            elif kind == "inf":
                flat[i] = sign * np.inf
            elif kind == "nan":  # either sign bit: x86's invalid operations make negative NaNs
                flat[i] = math.copysign(np.nan, sign)
            elif kind in ("tiny", "huge"):
                flat[i] = sign * (tiny if kind == "tiny" else huge) * self.rng.uniform(0.25, 2.0)
            else:
                ties.append(i)
        for i in ties:  # another element's value (whatever it became), or an earlier input's
            others = [j for j in range(flat.size) if j != i]
            if pool and (not others or self.chance(0.3)):
                flat[i] = pool[int(self.rng.integers(len(pool)))]
            elif others:
                flat[i] = flat[others[int(self.rng.integers(len(others)))]]
        pool.extend(float(v) for v in flat[:8])
        return np.asarray(flat.reshape(shape)).astype(_np_dtype(dtype))

    def input(self, shape, dtype: str | None = None, low: int | None = None,
              high: int | None = None) -> Val:
        dtype = dtype or self.dtype
        name = f"x{len(self.inputs)}"
        # In a special-value program most inputs hold special values; index operands (low,
        # high) and bools do not.
        special = (self.special and low is None and high is None and dtype != "bool"
                   and self.chance(0.8))
        value = self.draw(shape, dtype, low, high, special)
        batch_axis = None
        if self.chance(0.75):
            batch_axis = int(self.rng.integers(len(shape) + 1)) if self.chance(0.25) else 0
        batched = None
        if batch_axis is not None:
            samples = [self.draw(shape, dtype, low, high, special) for _ in range(self.batch_size)]
            batched = np.stack(samples, axis=batch_axis)
        self.inputs.append(Input(name, value, batch_axis, batched))
        if special:
            self.special_inputs.add(name)
        if dtype == "bool":
            bound = 1.0
        elif dtype.startswith("int"):
            bound = float(max(abs(low if low is not None else -5), abs(high if high is not None else 5)))
        else:
            bound = COMPLEX_INPUT_BOUND if dtype in COMPLEX_PARTS else 2.0
        # bfloat16 rounding makes repeated values likely: no tie-freedom to promise; special
        # values hold ties and zeros on purpose. (Their bound is the regular elements': the
        # special ones are outside the accounting, see docs/fuzzing.md.)
        floats = [a.astype(np.float64) for a in (value, batched) if special and a is not None
                  and (a.dtype.kind == "f" or a.dtype.name == "bfloat16")]
        # A complex input's parts count too (seed 142, program 1805: norm of a product of
        # complex64 inputs with 1e-30 parts was differentiated, its square underflowing).
        floats += [part.astype(np.float64) for a in (value, batched)
                   if special and a is not None and a.dtype.kind == "c"
                   for part in (a.real, a.imag)]
        val = Val(name, Aval(tuple(shape), dtype), bound,
                  distinct=(dtype in ("float32", "float64", "complex64", "complex128")
                            and not special),
                  huge=any(bool(np.any(np.isfinite(a) & (np.abs(a) > HUGE_VALUE))) for a in floats),
                  nonfinite=any(not np.isfinite(a).all() for a in floats),
                  tiny=any(bool(np.any((a != 0) & (np.abs(a) < TINY_VALUE))) for a in floats))
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
            if self.complex_program:
                return COMPLEX_PARTS[self.dtype]
            return self.dtype if self.dtype in ("float32", "float64", "bfloat16") else "float32"
        if cat == "c":
            if self.complex_program:
                return self.dtype
            return "complex128" if self.x64 else "complex64"
        if cat == "i":
            return "int32"
        return "bool"

    def kink_ok(self, *vals: Val) -> bool:
        """A kinked op may take these operands: no gradient check, or no ties to fall on; or a
        special-value program, where ties at kinks are the point (jax's conventions there)."""
        return (self.special or not self.differentiable
                or all(v.distinct or v.cat not in "fc" for v in vals))

    def real_or_complex(self, cat: str, p: float = 0.2) -> str:
        """A partner's category for an operand of ``cat``: in complex programs, now and then
        the other of real and complex (jax promotes a float and a complex to the complex)."""
        if self.complex_program and cat in "fc" and self.chance(p):
            return "f" if cat == "c" else "c"
        return cat

    # -- ops --------------------------------------------------------------------
    def emit(self, kind: str, template: str, args, bound: float, distinct: bool = False,
             zero_windows: bool = False, makes_infinities: bool = False) -> Val:
        """The value `template` computes from `args`; `zero_windows`: a convolution that may
        have windows over padding or dilation holes only; `makes_infinities`: an op that may
        make infinities from finite operands (a max over padding only is -inf)."""
        args = list(args)
        aval = infer(template, [a.aval for a in args])
        if aval is None:
            raise Rejected(f"jax rejects {template}")
        if (aval.size == 0 and not self.chance(0.15)) or aval.size > MAX_ELEMS or aval.ndim > MAX_RANK:
            raise Rejected("size")  # empty arrays now and then: an edge case of every op
        if aval.dtype == "bool":
            bound = 1.0
        limit = FLOAT_LIMIT if aval.is_inexact else INT_LIMIT
        if not math.isfinite(bound) or bound > limit:
            raise Rejected("bound")
        if kind in CONTRACTION_KINDS and any(a.huge for a in args):
            # Two huge factors make a product that overflows inside a sum, where numlir's fused
            # multiply-adds keep the first infinity's sign and XLA's separate products make
            # inf - inf = NaN (seed 102, program 104 under --special-values all: the gradient
            # of a convolution with 1e30 weights). The gradient multiplies a contraction's
            # cotangent by its operands, so no operand of one may be huge.
            raise Rejected("a contraction of huge values")
        if self.differentiable and (kind in JAX_WRONG_AT_HUGE and any(a.huge for a in args)
                                    or kind in JAX_WRONG_AT_TINY and any(a.tiny for a in args)
                                    or kind in JAX_WRONG_AT_TINY_COMPLEX and aval.is_complex
                                    and any(a.tiny for a in args)
                                    or kind in JAX_WRONG_AT_INFINITY
                                    and any(a.nonfinite for a in args)
                                    or self.special and kind in GROWTH_KINDS
                                    and any(a.tiny for a in args)):
            # (GROWTH_KINDS: their derivative overflows at tiny x, -1 / x**2 = -inf for
            # 1 / x; jax multiplies a zero cotangent by it, NaN, where numlir multiplies the
            # cotangent by 1 / x twice, 0, the true limit: seed 105, program 60,
            # grad of tanh(1 / x) at x = 1.3e-300.)
            raise Rejected("jax's derivative is wrong there")
        if kind == "conv" and any(a.nonfinite or a.huge for a in args):
            # XLA's convolution skips the zeros that padding and dilation insert (and the
            # zero-padded cotangent of its gradient); numlir multiplies them, as StableHLO's
            # definition does, so 0 * inf is NaN there (seed 8, program 126: a -inf weight
            # over an lhs-dilated input). The implementation's choice, not a semantics.
            raise Rejected("a convolution of infinities")
        if (self.differentiable and kind in DERIVATIVE_SINGULAR_AT_ZERO_KINDS
                and any(a.padding_zeros for a in args)):
            raise Rejected("a singular derivative at a convolution's padding-only zeros")
        if kind in NAN_SIGN_KINDS and (args[-1].nonfinite or args[-1].zero_sign):
            # The sign bit of a NaN an operation makes is unspecified (x86 sets it, jax's
            # conv of infinities and numlir's differ), and these read it (seed 8, program 73:
            # copysign(x, conv(...)) took the sign of a NaN); so is a sum's zero's (seed 107,
            # program 74 under --special-values all: copysign(x, x0 @ [0.0])).
            raise Rejected("reads the sign of a NaN or of a sum's zero")
        if kind == "top_k" and args[0].nonfinite and args[0].name not in self.special_inputs:
            # top_k ranks a NaN by its sign bit (XLA's total order: -NaN last), and which sign
            # an operation gives the NaN it makes or passes on is the implementation's (seed
            # 108, program 55: top_k(maximum(v, x)) of x's -NaN). An input's NaNs are exact.
            raise Rejected("ranks NaNs an operation made")
        if kind in ZERO_SIGN_KINDS and any(a.zero_sign for a in args):
            # 1 / -0 is -inf, 1 / +0 inf; arctan2(+-0, -1) is +-pi.
            raise Rejected("reads the sign of a sum's zero")
        if (self.differentiable and kind in DERIVATIVE_ZERO_SIGN_KINDS
                and any(a.zero_sign for a in args)):
            raise Rejected("its derivative reads the sign of a sum's zero")
        if self.differentiable and kind in DERIVATIVE_OVERFLOWS_AT_TINY and any(a.tiny
                                                                                for a in args):
            raise Rejected("its derivative overflows where a square underflows")
        if kind in TRIG_KINDS and any(a.huge and a.name not in self.special_inputs for a in args):
            raise Rejected("a trigonometric function of a huge value an operation rounded")
        if (self.differentiable and self.special and any(a.chooser_upstream for a in args)
                and (kind in SPECIAL_OP_KINDS or any(a.nonfinite or a.huge for a in args))):
            # An infinite operand makes an infinite derivative too (x ** 2 at -inf; seed 120,
            # program 3268: the gradient of reduce_window(x.at[2].min(1.5)) ** 2 at x[0] =
            # -inf, NaN on jax at the scattered element, -inf on numlir).
            raise Rejected("an infinite derivative here meets jax's chooser rule upstream")
        if (self.differentiable and self.special
                and kind in JAX_WRONG_AT_INFINITE_COTANGENT):
            raise Rejected("jax's derivative is NaN at an infinite cotangent")
        if (kind in DISCONTINUOUS_AT_ZERO_KINDS + RANKING_KINDS
                and any(a.cancels for a in args)):
            # 1 / x of FFT rounding noise is huge where the other's exact zero makes inf.
            raise Rejected("jumps at an FFT's rounding noise, or ranks a cancellation's")
        if (self.special and kind in SUM_KINDS and aval.is_inexact
                and any(a.cat == "i" for a in args)):
            # A float sum of integers that hold the extremes cancels: the float32 sum of
            # [0, 2**31 - 1, -2**31 + 1, -1, 31, ...] is 58 or 59 by the order of the terms
            # (seed 120, program 1548: jnp.mean of int32 extremes, 6.44 on jax, 6.56 on numlir
            # and numpy). Float inputs' cancellations show up when jax's result moves under a
            # perturbation of its inputs; integers are not perturbed.
            raise Rejected("a float sum of integer extremes, rounded by its order")
        name = f"v{len(self.ops)}"
        self.ops.append(Op(name, kind, template, tuple(a.name for a in args), aval))
        self.used.update(a.name for a in args)
        layout = kind in LAYOUT_KINDS and len(args) == 1
        log_softmax_of = (args[0].root or args[0].name if kind == "softmax"
                          and "log_softmax" in template
                          else args[0].log_softmax_of if layout else None)
        roots = [a.root or a.name for a in args]
        shift_cancels = kind in CANCELLING_KINDS and any(
            a.log_softmax_of is not None and a.log_softmax_of in roots for a in args)
        val = Val(name, aval, float(bound), bool(distinct and aval.is_inexact),
                  huge=any(a.huge for a in args) or (self.special and kind in GROWTH_KINDS),
                  nonfinite=makes_infinities or any(a.nonfinite or a.huge for a in args)
                  or (self.special and kind in SPECIAL_OP_KINDS),
                  tiny=any(a.tiny for a in args),
                  zero_sign=self.special and (kind in SUM_KINDS or kind in ZERO_SIGN_LOST_KINDS
                                              or any(a.zero_sign for a in args)),
                  cancels=kind in _FFT_TRANSFORM_KINDS or shift_cancels
                  or any(a.cancels for a in args),
                  padding_zeros=zero_windows or any(a.padding_zeros for a in args),
                  root=(args[0].root or args[0].name) if layout else name,
                  log_softmax_of=log_softmax_of,
                  chooser_upstream=kind in JAX_INDICATOR_DERIVATIVE_KINDS
                  or any(a.chooser_upstream for a in args))
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

# Special-value programs add these: the functions at their singular points and boundaries
# (log, sqrt, division and friends of raw operands, not of ``x * x + c``), nn's piecewise
# functions at their own kinks, and integer division and shifts by any amount. Their bounds
# cover the regular elements only (a zero makes log -inf whatever the bound says).
_LOG_BOUND = lambda m: abs(math.log(max(m, 1e-30))) + 70.0  # noqa: E731
_UNARY_F_SPECIAL = (
    ("log", ("jnp.log({0})", "jnp.log2({0})", "jnp.log10({0})"), _LOG_BOUND, False, False),
    ("log1p", "jnp.log1p({0})", _LOG_BOUND, False, False),
    ("sqrt", "jnp.sqrt({0})", lambda m: math.sqrt(m), False, False),
    ("rsqrt", "lax.rsqrt({0})", lambda m: 100.0, False, False),
    ("cbrt", "jnp.cbrt({0})", lambda m: m ** (1 / 3) + 1.0, False, False),
    ("reciprocal", ("1.0 / {0}", "jnp.reciprocal({0})"), lambda m: 100.0, False, False),
    ("power", ("jnp.power({0}, 1.5)", "{0} ** 0.5", "jnp.power({0}, -2.0)"),
     lambda m: max(m, 1.0) ** 1.5 + 100.0, False, False),
    ("integer_pow", ("{0} ** 3", "lax.integer_pow({0}, -1)"), lambda m: max(m ** 3, 100.0),
     False, False),
    ("inverse_trig", ("jnp.arcsin({0})", "jnp.arccos({0})", "jnp.arctanh({0})"),
     lambda m: 20.0, False, False),
    ("exp2", "jnp.exp2({0})", lambda m: 2.0 ** m if m <= 3 else None, False, False),
    ("sinc", "jnp.sinc({0})", lambda m: 1.0, False, False),
    ("i0", "jnp.i0({0})", lambda m: math.cosh(m) if m <= 3 else None, False, False),
    ("lgamma", "lax.lgamma({0})", lambda m: m * m + 50.0, False, False),
    ("digamma", "lax.digamma({0})", lambda m: m * m + 50.0, False, False),
    ("erf_inv", "lax.erf_inv({0})", lambda m: 10.0, False, False),
    ("mish", "nn.mish({0})", lambda m: m + 0.4, False, False),
    ("hard_silu", ("nn.hard_silu({0})", "nn.hard_swish({0})"), lambda m: m, False, True),
    ("hard_sigmoid", "nn.hard_sigmoid({0})", lambda m: 1.0, False, True),
    ("relu6", "nn.relu6({0})", lambda m: 6.0, False, True),
    ("hard_tanh", "nn.hard_tanh({0})", lambda m: 1.0, False, True),
    ("soft_sign", "nn.soft_sign({0})", lambda m: 1.0, False, False),
    ("rounding", ("jnp.ceil({0})", "jnp.trunc({0})", "jnp.rint({0})"), lambda m: m + 1.0,
     False, False),
    ("classify", ("jnp.isnan({0})", "jnp.isinf({0})", "jnp.isfinite({0})"), lambda m: 1.0,
     False, False),
    ("signbit", "jnp.signbit({0})", lambda m: 1.0, False, False),
    ("nan_to_num", "jnp.nan_to_num({0}, posinf=1e4, neginf=-1e4)", lambda m: max(m, 1e4),
     False, False),
)
_UNARY_I_SPECIAL = (
    ("floordiv", ("{0} // -1", "{0} // 0", "jnp.floor_divide({0}, -1)"), lambda m: m, False,
     False),
    ("mod", ("{0} % -1", "{0} % 0", "lax.rem({0}, jnp.zeros_like({0}))"), lambda m: m, False,
     False),
    ("shift", ("jnp.right_shift({0}, 32)", "jnp.left_shift({0}, 31)", "{0} << 33", "{0} >> 40",
               "{0} >> 31"), lambda m: m, False, False),
    ("bit_count", ("lax.population_count({0})", "lax.clz({0})"), lambda m: 64.0, False, False),
)
_UNARY_SPECIAL = {"f": _UNARY_F_SPECIAL, "i": _UNARY_I_SPECIAL}


def shrink(m: float, radius: float) -> str:
    """A power of two ``s`` (as source text) with ``m * s <= radius``, at most 1: ``z * s`` for
    ``|z| <= m`` lies in the disk of ``radius``, and the product is exact."""
    s = 2.0 ** -max(0, math.ceil(math.log2(max(m, 1e-30) / radius)))
    return repr(s)


def _disk(m: float) -> str:
    """``{0}`` scaled into ``|w - 1| <= 0.5``: real part in [0.5, 1.5], away from 0 and from the
    branch cut of log, sqrt and non-integer powers along the negative real axis."""
    return f"({{0}} * {shrink(m, 0.5)} + 1.0)"


def _scaled(names, radius: float, shift: str = ""):
    """Spellings of one function (``jnp.arcsin``, ``lax.asin``) of ``{0}`` scaled into the disk
    of ``radius`` (around ``shift``)."""
    return tuple((lambda m, fn=fn: f"{fn}({{0}} * {shrink(m, radius)}{shift})") for fn in names)


def _at_most(radius: float, fn: str):
    """``fn`` of ``{0}``, or of ``{0}`` scaled into the disk of ``radius`` where its bound is larger
    (``exp`` and ``sin`` grow like ``exp(|z|)`` off the real axis)."""
    return lambda m: f"{fn}({{0}})" if m <= radius else f"{fn}({{0}} * {shrink(m, radius)})"


# Complex operands. A template may be a function of the operand's bound (the scale that keeps
# it in a safe region), or a tuple of spellings of one op. ``kinked`` is True for a kink at 0
# (abs, relu), "always" for an op that needs an operand off both axes even when no gradient is
# checked: angle, and log, sqrt and the inverse functions without the shift, jump across their
# cuts along the axes (by 2*pi, or in sign), and the side an exact zero part falls on is its
# sign, which XLA's algebra and numlir's may round differently. Not generated: floor and clip
# (jax refuses complex numbers), the nn functions other than sigmoid, softplus and relu.
_UNARY_C = (
    ("sin", _at_most(3.0, "jnp.sin"), lambda m: math.cosh(min(m, 3.0)), True, False),
    ("cos", _at_most(3.0, "jnp.cos"), lambda m: math.cosh(min(m, 3.0)), True, False),
    ("sinh", (_at_most(3.0, "jnp.sinh"), _at_most(3.0, "lax.sinh")),
     lambda m: math.cosh(min(m, 3.0)), True, False),
    ("cosh", (_at_most(3.0, "jnp.cosh"), _at_most(3.0, "lax.cosh")),
     lambda m: math.cosh(min(m, 3.0)), True, False),
    # The inverse functions: operands in |w| <= 0.5, inside the branch points at +-1 (+-i for
    # arctan and arcsinh) where their cuts begin; arccosh's cut is (-inf, 1], so it sees the
    # disk |w - 2| <= 0.5. Or, for distinct operands (off both axes), any operand.
    ("arcsin", _scaled(("jnp.arcsin", "lax.asin"), 0.5), lambda m: 0.6, True, False),
    ("arccos", _scaled(("jnp.arccos", "lax.acos"), 0.5), lambda m: 2.2, True, False),
    ("arctan", _scaled(("jnp.arctan", "lax.atan"), 0.5), lambda m: 0.6, True, False),
    ("arcsinh", _scaled(("jnp.arcsinh", "lax.asinh"), 0.5), lambda m: 0.6, True, False),
    ("arctanh", _scaled(("jnp.arctanh", "lax.atanh"), 0.5), lambda m: 0.6, True, False),
    ("arccosh", _scaled(("jnp.arccosh", "lax.acosh"), 0.5, " + 2.0"), lambda m: 1.6, True, False),
    ("inverse_trig", ("jnp.arcsin({0})", "jnp.arccos({0})", "jnp.arctan({0})", "jnp.arcsinh({0})",
                      "jnp.arctanh({0})", "jnp.arccosh({0})"),
     lambda m: math.log(2 * m + 1) + 12.0, True, "always"),
    # logistic's poles are at +-pi*i, softplus's branch points too: operands in |w| <= 2.
    ("logistic", _scaled(("lax.logistic", "nn.sigmoid"), 2.0), lambda m: 1.5, True, False),
    ("complex_softplus", _scaled(("nn.softplus",), 2.0), lambda m: 2.5, True, False),
    ("relu", "nn.relu({0})", lambda m: m, False, True),  # max(z, 0): the real part decides
    ("tan", lambda m: f"jnp.tan({{0}} * {shrink(m, 1.0)})", lambda m: 1.6, True, False),
    ("tanh", (lambda m: f"jnp.tanh({{0}} * {shrink(m, 1.0)})",
              lambda m: f"lax.tanh({{0}} * {shrink(m, 1.0)})"), lambda m: 1.6, True, False),
    ("exp", _at_most(2.0, "jnp.exp"), lambda m: math.exp(min(m, 2.0)), True, False),
    ("exp2", _at_most(2.0, "jnp.exp2"), lambda m: 2.0 ** min(m, 2.0), True, False),
    ("expm1", _at_most(2.0, "jnp.expm1"), lambda m: math.exp(min(m, 2.0)) + 1, True, False),
    ("log", (lambda m: f"jnp.log{_disk(m)}", lambda m: f"jnp.log10{_disk(m)}"),
     lambda m: 0.8, True, False),
    ("log", "jnp.log({0})", lambda m: abs(math.log(max(m, 1e-3))) + 4.0, True, "always"),
    ("log1p", lambda m: f"jnp.log1p({{0}} * {shrink(m, 0.5)})", lambda m: 0.8, True, False),
    ("sqrt", lambda m: f"jnp.sqrt{_disk(m)}", lambda m: 1.3, True, False),
    ("sqrt", "jnp.sqrt({0})", lambda m: math.sqrt(m), True, "always"),
    ("rsqrt", lambda m: f"lax.rsqrt{_disk(m)}", lambda m: 1.5, True, False),
    ("reciprocal", (lambda m: f"1.0 / {_disk(m)}", lambda m: f"jnp.reciprocal{_disk(m)}"),
     lambda m: 2.0, True, False),
    ("power", (lambda m: f"jnp.power({_disk(m)}, 1.5)", lambda m: f"{_disk(m)} ** (0.5-1.5j)"),
     lambda m: 3.0, True, False),
    ("sign", "jnp.sign({0})", lambda m: 1.0, False, False),
    ("square", ("jnp.square({0})", "{0} ** 2"), lambda m: m * m, True, False),
    ("integer_pow", ("lax.integer_pow({0}, 3)", "{0} ** 3"), lambda m: m ** 3, True, False),
    ("neg", ("-{0}", "lax.neg({0})"), lambda m: m, True, False),
    ("conj", ("jnp.conj({0})", "jnp.conjugate({0})", "lax.conj({0})", "{0}.conj()"),
     lambda m: m, True, False),
    ("complex_scalar",
     ("{0} * (1.5-0.5j)", "{0} + 0.5j", "(0.25+1j) - {0}", "{0} / (2-1j)", "1j * {0}"),
     lambda m: 1.6 * m + 1.1, True, False),
    ("affine", "{0} * 0.5 + 1.0", lambda m: 0.5 * m + 1.0, True, False),
    ("stop_gradient", "lax.stop_gradient({0})", lambda m: m, True, False),
    ("round", "jnp.round({0})", lambda m: m + 1.0, False, False),
    ("isfinite", ("jnp.isfinite({0})", "jnp.isnan({0})"), lambda m: 1.0, False, False),
)
#: Complex to real: the parts, the modulus, the argument (and the conjugate, the way back).
_COMPLEX_PARTS_OPS = (
    ("conj", ("jnp.conj({0})", "lax.conj({0})"), lambda m: m, True, False),
    ("real", ("jnp.real({0})", "lax.real({0})", "{0}.real"), lambda m: m, True, False),
    ("imag", ("jnp.imag({0})", "lax.imag({0})", "{0}.imag"), lambda m: m, True, False),
    ("abs", ("jnp.abs({0})", "lax.abs({0})"), lambda m: m, True, True),
    ("abs2", ("jnp.abs({0}) ** 2", "jnp.real({0} * jnp.conj({0}))"), lambda m: m * m, True, False),
    ("angle", ("jnp.angle({0})", "jnp.angle({0}, deg=True) / 60.0"), lambda m: 3.2, True, "always"),
)


def op_unary(b: Builder, v: Val | None = None, table=None) -> Val:
    v = v or b.pick(allow_empty=True)
    if table is None:
        table = {"f": _UNARY_F, "c": _UNARY_C + _COMPLEX_PARTS_OPS, "i": _UNARY_I,
                 "b": _UNARY_B}[v.cat]
        if b.special and not b.complex_program and v.cat in _UNARY_SPECIAL and b.chance(0.5):
            table = _UNARY_SPECIAL[v.cat]
    kind, template, bound_fn, keeps, kinked = b.choice(table)
    bound = bound_fn(v.bound)
    if bound is None or (kinked and not b.kink_ok(v)) or (kinked == "always" and not v.distinct):
        raise Rejected(kind)
    distinct = v.distinct and (keeps if keeps is not None else v.bound < 3)
    if isinstance(template, tuple):  # spellings of one op
        template = b.choice(template)
    template = template(v.bound) if callable(template) else template
    return b.emit(kind, template, [v], bound, distinct)


def op_cast(b: Builder) -> Val:
    v = b.pick(allow_empty=True)
    targets = ["float32", "int32", "bool", "bfloat16"]
    if b.x64:
        targets = ["float64", "float32", "int32", "int64", "bool"]
    if b.complex_program:
        # Between real and complex both ways (complex to real keeps the real part, with
        # numpy's ComplexWarning), and complex128 with x64 off (canonicalized to complex64).
        targets = ["complex64", "complex64", "float32", "int32", "bool", "complex128"]
        if b.x64:
            targets = ["complex128", "complex128", "complex64", "float64", "float32", "int32",
                       "bool"]
    target = b.choice([t for t in targets if t != v.aval.dtype])
    if target == "bool" and v.cancels:
        # Whether FFT rounding noise is zero is the implementation's (seed 111, program 1541:
        # bool of irfft(rfft(x)) at x's zeros, exactly 0 on jax).
        raise Rejected("a bool cast of an FFT's rounding noise")
    template = b.choice(("{0}.astype(jnp.%s)", "lax.convert_element_type({0}, jnp.%s)",
                         "jnp.asarray({0}, dtype=jnp.%s)")) % target
    # To bool, jax's lax.convert_element_type and jnp.asarray(dtype=) drop a complex number's
    # imaginary part (as numlir's casts since f34c7a9); .astype tests both parts, as numpy.
    keeps = v.distinct and target in ("float32", "float64") and v.aval.dtype != "bfloat16"
    if target.startswith("complex"):  # from a real value: on the real axis
        keeps = v.distinct and v.cat == "c"
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
#: Special-value programs add these (see _UNARY_F_SPECIAL): raw division, NaN-ignoring and
#: NaN-propagating max/min, sign transfers, remainders, powers of any base, heaviside at 0
#: (not nextafter: from a zero it makes a subnormal, which XLA's CPU flushes and numlir keeps);
#: integer division and remainder by any divisor (0 and -1 among them) and shifts by any
#: amount (at and past the bit width, negative).
_BINARY_F_SPECIAL = (
    ("div", ("{0} / {1}", "jnp.true_divide({0}, {1})"), lambda m, n: 100.0 * m, False),
    ("fmax", ("jnp.fmax({0}, {1})", "lax.max({0}, {1})"), max, True),
    ("fmin", ("jnp.fmin({0}, {1})", "lax.min({0}, {1})"), max, True),
    ("copysign", "jnp.copysign({0}, {1})", lambda m, n: m, False),
    ("remainder", ("jnp.remainder({0}, {1})", "jnp.fmod({0}, {1})"), lambda m, n: max(m, n),
     False),
    # A function, not ``//``: the reference's floor division of floats follows the array
    # API standard as numlir's does (jax_numpy_as_standard.py).
    ("floordiv", "jnp.floor_divide({0}, {1})", lambda m, n: 100.0 * m, False),
    ("power", "jnp.power({0}, {1})", lambda m, n: (m + 4.0) ** n if n <= 3 else None, False),
    ("heaviside", "jnp.heaviside({0}, {1})", lambda m, n: max(n, 1.0), False),
    ("logaddexp2", "jnp.logaddexp2({0}, {1})", lambda m, n: max(m, n) + 1.0, False),
)
_BINARY_I_SPECIAL = (
    ("floordiv", ("{0} // {1}", "jnp.floor_divide({0}, {1})"), lambda m, n: m, False),
    ("remainder", ("{0} % {1}", "jnp.remainder({0}, {1})", "jnp.fmod({0}, {1})"),
     lambda m, n: n, False),
    ("lax_div", ("lax.div({0}, {1})", "lax.rem({0}, {1})"), lambda m, n: m, False),
    ("shift", ("jnp.left_shift({0}, {1})", "jnp.right_shift({0}, {1})", "{0} << {1}",
               "{0} >> {1}", "lax.shift_left({0}, {1})", "lax.shift_right_logical({0}, {1})",
               "lax.shift_right_arithmetic({0}, {1})"), lambda m, n: m, False),
)
_BINARY_SPECIAL = {"f": _BINARY_F_SPECIAL, "i": _BINARY_I_SPECIAL}
#: The special tables' op kinds: in special-value programs their results may be infinite or
#: NaN (``Val.nonfinite``; the regular ops of the same kinds too, conservatively).
SPECIAL_OP_KINDS = frozenset(entry[0] for table in (_UNARY_F_SPECIAL, _BINARY_F_SPECIAL)
                             for entry in table) - {"classify", "signbit", "nan_to_num"}


# Complex operands: templates may be functions of the operands' bounds (the scales that keep a
# divisor or a power's base in the disk |w - 1| <= 0.5). The last field says when the result
# is distinct (pairwise distinct, off both axes): "sum", where a distinct complex
# operand keeps it off the axis and a distinct full-shape one keeps the elements apart;
# "product", where an exact zero in either operand makes zeros, so both must be distinct;
# "quotient", where the numerator decides (a real one only over a distinct complex divisor);
# "choice" (max, min), where the result is one operand: both must be distinct complex values.
_BINARY_C = (
    ("add", "{0} + {1}", lambda m, n: m + n, "sum"),
    ("sub", "{0} - {1}", lambda m, n: m + n, "sum"),
    ("mul", "{0} * {1}", lambda m, n: m * n, "product"),
    ("div", lambda m, n: "{0} / " + _disk(n).replace("{0}", "{1}"), lambda m, n: 2 * m, "quotient"),
    ("div", lambda m, n: "jnp.divide({0}, " + _disk(n).replace("{0}", "{1}") + ")",
     lambda m, n: 2 * m, "quotient"),
    ("power", lambda m, n: f"jnp.power({_disk(m)}, {{1}} * {shrink(n, 1.5)})", lambda m, n: 4.0,
     "product"),
    ("power", lambda m, n: f"{_disk(m)} ** ({{1}} * {shrink(n, 1.5)})", lambda m, n: 4.0, "product"),
    ("mul_conj", "{0} * jnp.conj({1})", lambda m, n: m * n, "product"),
    ("jnp_add", "jnp.add({0}, {1})", lambda m, n: m + n, "sum"),
    ("jnp_multiply", "jnp.multiply({0}, {1})", lambda m, n: m * n, "product"),
    ("jnp_subtract", "jnp.subtract({0}, {1})", lambda m, n: m + n, "sum"),
    # complex atan2 is -i log((x + iy) / sqrt(x^2 + y^2)): y in |w - 1| <= 0.5 and x in
    # |w - 2| <= 0.5 keep x^2 + y^2 and the log's argument off their cuts.
    ("atan2", lambda m, n: (f"jnp.arctan2({{0}} * {shrink(m, 0.5)} + 1.0, "
                            f"{{1}} * {shrink(n, 0.5)} + 2.0)"), lambda m, n: 1.5, "product"),
    ("atan2", lambda m, n: (f"lax.atan2({{0}} * {shrink(m, 0.5)} + 1.0, "
                            f"{{1}} * {shrink(n, 0.5)} + 2.0)"), lambda m, n: 1.5, "product"),
    # e^a + e^b for |a|, |b| <= 1 has a positive real part: off the log's cut.
    ("complex_logaddexp", lambda m, n: (f"jnp.logaddexp({{0}} * {shrink(m, 1.0)}, "
                                        f"{{1}} * {shrink(n, 1.0)})"), lambda m, n: 2.5, "product"),
    # Lexicographic order, real part first (as jax): kinks where the real parts tie.
    ("maximum", "jnp.maximum({0}, {1})", max, "choice"),
    ("minimum", "jnp.minimum({0}, {1})", max, "choice"),
    ("maximum", "lax.max({0}, {1})", max, "choice"),
    ("minimum", "jnp.fmin({0}, {1})", max, "choice"),
)


def _complex_distinct(rule: str, x: Val, y: Val, out_shape) -> bool:
    """Whether a complex ``x op y`` is distinct, by the rule of ``op`` (see _BINARY_C)."""
    full = any(v.distinct and v.shape == tuple(out_shape) for v in (x, y))
    if rule == "choice":  # the result is one of the operands: a real one is on the axis
        return full and x.distinct and y.distinct and x.cat == y.cat == "c"
    if rule == "sum":
        return full and any(v.distinct and v.cat == "c" for v in (x, y))
    if rule == "product":
        return full and x.distinct and y.distinct
    return (x.distinct and x.shape == tuple(out_shape)
            and (x.cat == "c" or (y.distinct and y.cat == "c")))


def _binary_operands(b: Builder, cat: str | None = None):
    a = b.pick(lambda v: cat is None or v.cat == cat, allow_empty=True)
    c = b.partner(broadcast_partner_shape(b, a.shape), b.real_or_complex(a.cat, 0.15),
                  lambda v: broadcastable(a.shape, v.shape), exclude=(a.name,))
    if b.chance(0.1) and a.cat in "fc":  # mixed-dtype promotion
        c = b.input(broadcast_partner_shape(b, a.shape), "int32")
    return (c, a) if b.chance(0.3) else (a, c)


def op_binary(b: Builder) -> Val:
    x, y = _binary_operands(b)
    out_shape = np.broadcast_shapes(x.shape, y.shape)
    if "c" in (x.cat, y.cat):
        kind, template, bound_fn, rule = b.choice(_BINARY_C)
        if rule == "choice" and not b.kink_ok(x, y):
            raise Rejected(kind)
        if callable(template):
            template = template(x.bound, y.bound)
        distinct = _complex_distinct(rule, x, y, out_shape)
        return b.emit(kind, template, [x, y], bound_fn(x.bound, y.bound), distinct)
    cat = x.cat if x.cat == y.cat else "f"
    table = {"f": _BINARY_F, "i": _BINARY_I, "b": _BINARY_B}[cat]
    if b.special and not b.complex_program and cat in _BINARY_SPECIAL and b.chance(0.5):
        table = _BINARY_SPECIAL[cat]
    kind, template, bound_fn, kinked = b.choice(table)
    if kinked and not b.kink_ok(x, y):
        raise Rejected(kind)
    if isinstance(template, tuple):  # spellings of one op
        template = b.choice(template)
    distinct = any(v.distinct and v.shape == out_shape for v in (x, y))
    bound = bound_fn(x.bound, y.bound)
    if bound is None:  # (the special tables' power of a large exponent)
        raise Rejected(kind)
    return b.emit(kind, template, [x, y], bound, distinct)


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


_COMPARE_C = ("{0} == {1}", "{0} != {1}", "jnp.equal({0}, {1})", "jnp.not_equal({0}, {1})",
              "{0} > {1}", "{0} <= {1}", "jnp.less({0}, {1})", "jnp.greater_equal({0}, {1})")


def op_compare(b: Builder) -> Val:
    """Comparisons; jnp orders complex numbers lexicographically, real part first (lax.lt and
    friends refuse them, in jax too)."""
    x, y = _binary_operands(b, cat=b.choice(("f", "i", "c") if b.complex_program else ("f", "i")))
    if "c" in (x.cat, y.cat):
        return b.emit("compare", b.choice(_COMPARE_C), [x, y], 1.0)
    return b.emit("compare", b.choice(_COMPARE), [x, y], 1.0)


def op_where(b: Builder) -> Val:
    x = b.pick(lambda v: v.cat != "b" or b.chance(0.3))
    conds = [v for v in b.vals if v.cat == "b" and broadcastable(v.shape, x.shape)]
    if conds and b.chance(0.6):
        c = b.choice(conds)
        cond = "{0}"
    else:
        c = b.pick(lambda v: v.cat in "fic" and broadcastable(v.shape, x.shape))
        cond = {"f": "{0} > 0.5", "i": "{0} > 0", "c": "jnp.real({0}) > 0.5"}[c.cat]
    if b.chance(0.4):
        zero = {"f": "0.0", "c": "0j", "i": "0", "b": "False"}[x.cat]
        return b.emit("where_mask", f"jnp.where({cond}, {{1}}, {zero})", [c, x], x.bound)
    y = b.partner(broadcast_partner_shape(b, x.shape), b.real_or_complex(x.cat),
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
    if x.cat == "c":
        # max and min order lexicographically, real part first (as jax). any and all test
        # the real part only, as jax's (jnp.all(-2j) is False; numpy's is True): numlir
        # tested both parts until f34c7a9 (complex campaign, seed 7, program 257:
        # all(round(-0.27-1.55j)), where round gives -0-2j).
        options = [("sum", "jnp.sum"), ("mean", "jnp.mean"), ("prod", "jnp.prod"),
                   ("any", "jnp.any"), ("all", "jnp.all"),
                   ("sum_method", "{0}.sum"), ("max", "jnp.max"), ("min", "jnp.min"),
                   ("max_method", "{0}.max"),
                   ("var", "jnp.var"), ("std", "jnp.std")]  # var and std: real, of |x - mean|
    kind, fn = b.choice(options)
    axes = axes_arg(b, x.ndim)
    keep = b.chance(0.5)
    n = reduced_count(x.shape, axes)
    if kind in ("max", "min", "max_method") and not b.kink_ok(x):
        raise Rejected("kink")
    if kind == "std" and n < 2:
        raise Rejected("std of one element")
    if kind in ("max", "min", "max_method") and b.differentiable and x.nonfinite and n <= 1:
        # Over one element the result is the operand and numlir's gradient the cotangent;
        # jax's chooser rule divides by the count of elements equal to the result, 0 at a
        # NaN: NaN op by op and 0 under jit (seed 112, program 2167; seed 117, program 437).
        raise Rejected("jax's gradient of a NaN chosen from one element")
    if kind == "prod" and b.special and x.cat == "f" and n > 2:
        # Which partial product overflows depends on the order: (1e30 * 1e30) * 1e-30 is inf,
        # 1e30 * (1e30 * 1e-30) is 1e30, and huge * huge * 0 is NaN or 0.
        raise Rejected("order of a product of special values")
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
    x = b.pick(lambda v: v.ndim >= 1 and v.cat != "c")  # jax has no argmax of complex numbers
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
    options = (
        ("cumsum", f"jnp.cumsum({{0}}, axis={axis - x.ndim if b.chance(0.3) else axis})",
         x.bound * n, x.distinct),
        ("cumsum", "jnp.cumsum({0})", x.bound * x.aval.size, x.distinct),
        ("cumprod", f"jnp.cumprod({{0}}, axis={axis})", _power_bound(x.bound, n), x.distinct),
        ("cumsum", f"lax.cumsum({{0}}, axis={axis}, reverse={reverse})", x.bound * n, x.distinct),
        ("cumprod", f"lax.cumprod({{0}}, axis={axis}, reverse={reverse})",
         _power_bound(x.bound, n), x.distinct),
        ("cummax", f"lax.cummax({{0}}, axis={axis}, reverse={reverse})", x.bound, False),
        ("cummax", f"lax.cummin({{0}}, axis={axis}, reverse={reverse})", x.bound, False),
    )
    # cummax and cummin of complex numbers: numlir refuses them (jax orders lexicographically).
    kind, template, bound, distinct = b.choice(options[:5] if x.cat == "c" else options)
    if kind == "cummax" and not b.kink_ok(x):
        raise Rejected("kink")
    if kind == "cumprod" and b.special and x.cat == "f" and n > 2:
        raise Rejected("order of a product of special values")  # as in op_reduce
    return b.emit(kind, template, [x], bound, distinct)


def op_softmax(b: Builder) -> Val:
    x = b.pick(lambda v: v.cat == "f" and v.ndim >= 1)
    axis = axes_arg(b, x.ndim, allow_none=False, allow_tuple=False)
    if b.chance(0.4):
        axes = axes_arg(b, x.ndim)
        n = reduced_count(x.shape, axes)
        return b.emit("logsumexp", f"nn.logsumexp({{0}}, axis={axes}, keepdims={b.chance(0.5)})", [x],
                      x.bound + math.log(n) + 1, x.distinct)
    # Of two elements, standardize is +-1 up to its epsilon, so its gradient is a difference
    # of nearly equal terms, rounding-sized (seed 121, program 3246: 1.097e-5 against jax's
    # 1.109e-5, where the row's other gradients were NaN and set no larger scale).
    if b.chance(0.2) and x.shape[int(axis)] >= (3 if b.differentiable else 2):
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
    if method in ("min", "max") and x.cat == "c":
        raise Rejected("scatter min/max of complex numbers: numlir refuses them")
    if method in ("min", "max") and b.differentiable and x.cat == "f" and not b.special:
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
        literal = {"f": "1.5", "i": "2", "b": "True"}.get(x.cat) or b.choice(("1.5", "(1.5-0.5j)"))
        return b.emit("scatter", f"{{0}}.at[{index}].{method}({literal}{flag})", [x], x.bound * 2)
    u = b.partner(broadcast_partner_shape(b, target.shape, into=True),
                  b.real_or_complex(x.cat) if x.cat == "c" else x.cat,  # real updates of complex
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
        constant = {"f": ", constant_values=1.5", "c": ", constant_values=(1.5-0.5j)"}.get(
            x.cat, ", constant_values=2")
        extra = b.choice(("", "", constant,
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
    c = b.partner(rhs, b.real_or_complex(a.cat), lambda v: v.shape == rhs)
    x, y = (a, c)
    if b.chance(0.25) and c.ndim >= 2:  # the picked value as the right operand
        lhs = tuple(broadcast_partner_shape(b, c.shape[:-2])) + (b.dim(), c.shape[-2])
        x, y = b.partner(lhs, b.real_or_complex(a.cat), lambda v: v.shape == lhs), c
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
        a = b.input(tuple(b.shape(int(b.rng.integers(0, 2)))) + (n, n),
                    b.dtype_of(b.real_or_complex("f", 0.5)))
    c = b.partner(a.shape, b.real_or_complex(a.cat),
                  lambda v: v.shape == a.shape and v.aval.dtype == a.aval.dtype)
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
    c = b.partner(tuple(shape), b.real_or_complex(a.cat),
                  lambda v: v.shape == tuple(shape) and v.aval.dtype == a.aval.dtype)
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
        c = b.partner(rhs, b.real_or_complex(a.cat), lambda v: v.shape == rhs)
        return b.emit("einsum", "jnp.einsum('...ij,...jk->...ik', {0}, {1})", [a, c],
                      a.bound * c.bound * k)
    if b.chance(0.15) and a.ndim >= 2:  # a chain of three: contraction order is einsum's choice
        if b.special:  # which products overflow (or meet 0 * inf) depends on that order
            raise Rejected("a chain of contractions of special values")
        i, j = letters[-2], letters[-1]
        mid = (a.shape[-1], b.dim())
        last = (mid[1], b.dim())
        c = b.partner(mid, b.real_or_complex(a.cat), lambda v: v.shape == mid)
        d = b.partner(last, b.real_or_complex(a.cat), lambda v: v.shape == last)
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
    c = b.partner(shape, b.real_or_complex(a.cat), lambda v: v.shape == shape)
    everything = sorted(set(letters) | set(rhs_letters))
    out = [str(l) for l in b.rng.permutation(everything) if b.chance(0.6)]
    spec = "".join(letters) + "," + "".join(rhs_letters) + "->" + "".join(out)
    k = int(np.prod([sizes[l] for l in everything if l not in out], dtype=np.int64))
    return b.emit("einsum", f"jnp.einsum('{spec}', {{0}}, {{1}})", [a, c], a.bound * c.bound * k)


def op_tensordot(b: Builder) -> Val:
    a = b.pick(lambda v: v.ndim >= 1 and v.cat != "b")
    n = int(b.rng.integers(0, min(2, a.ndim) + 1))
    shape = tuple(a.shape[a.ndim - n:]) + tuple(b.shape(int(b.rng.integers(0, 2))))
    c = b.partner(shape, b.real_or_complex(a.cat), lambda v: v.shape == shape)
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
    # Complex programs convolve complex values too (lax wants one dtype for both operands).
    cats = "fc" if b.complex_program else "f"
    cands = [v for v in b.vals if v.cat in cats and v.ndim == spatial + 2]
    if cands and b.chance(0.6):
        x = b.choice(cands)
        dims = dict(zip(lhs_spec, x.shape))
    else:
        dims = {"N": b.choice((1, 2)), "C": b.choice((1, 2, 3, 4))}
        for s in lhs_spec[2:] if lhs_spec[1] == "C" else lhs_spec[1:-1]:
            dims[s] = int(b.rng.integers(3, 7))
        x = b.input(tuple(dims[s] for s in lhs_spec), b.dtype_of(b.real_or_complex("f", 0.6)))
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
    if b.special and b.differentiable:
        # The gradient convolves the cotangent with the zeros that padding, strides and
        # dilations insert; a special-value program can make that cotangent NaN or infinite
        # downstream, and XLA skips the inserted zeros where numlir multiplies them as
        # StableHLO defines (the seed-8 difference in emit; seed 113, program 2238).
        ones = tuple_src([1 for _ in spatial_names])
        strides, padding, lhs_dil, rhs_dil = ones, "'VALID'", ones, ones
    template = (f"lax.conv_general_dilated({{0}}, {{1}}, window_strides={strides}, padding={padding}, "
                f"lhs_dilation={lhs_dil}, rhs_dilation={rhs_dil}, "
                f"dimension_numbers=('{lhs_spec}', '{rhs_spec}', '{out_spec}'), "
                f"feature_group_count={groups})")
    k = kernel["I"] * int(np.prod([kernel[s] for s in spatial_names]))
    # Padding, or holes between input elements, can leave a window over no input element.
    zero_windows = padding != "'VALID'" or "2" in lhs_dil
    return b.emit("conv", template, [x, w], x.bound * w.bound * k, zero_windows=zero_windows)


def op_reduce_window(b: Builder) -> Val:
    # Not of complex numbers: numlir refuses them.
    x = b.pick(lambda v: v.ndim >= 1 and v.cat in "fi")
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
    # A max or min over a window of padding only is the identity, -inf or inf ('SAME'
    # windows always hold an element).
    infinities = monoid in ("max", "min") and x.cat == "f" and padding not in ("'VALID'", "'SAME'")
    return b.emit("reduce_window", template, [x], bound, x.distinct and monoid != "sum",
                  makes_infinities=infinities)


# -- FFT ---------------------------------------------------------------------------------------

#: Transform lengths (``n=``, ``s=``): padding and cropping, odd and prime lengths among them.
_FFT_LENGTHS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 11)
_FFT_NORMS = (None, "ortho", "forward")
#: Transforms whose output is real: the last transformed axis's default length is 2 * (L - 1).
_FFT_REAL_OUTPUT = ("irfft", "irfft2", "irfftn", "hfft")
#: The op kinds of op_fft's transforms and of op_linalg. One program has one or the other: jax
#: (0.10) fails on programs with both where an FFT and a LAPACK call meet, in either direction
#: (the gradient of fft(inv(a)) feeds one into the other), because XLA's CPU layout assignment
#: passes the LAPACK call's column-major layout on to the FFT, whose thunk refuses it
#: ("RET_CHECK failure (.../cpu/runtime/fft_thunk.cc:168) IsMonotonicWithDim0Major"; session
#: 21's first favored campaign: solve of an hfft). Nothing to compare there.
_FFT_TRANSFORM_KINDS = ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "rfft2", "rfftn",
                        "irfft", "irfft2", "irfftn", "hfft", "ihfft", "fft_round_trip",
                        "fft_real_part")
_LINALG_KINDS = ("solve", "inv", "det", "slogdet", "cholesky", "qr", "eigvalsh", "svd",
                 "matrix_norm", "matrix_power", "triangular_solve")


def _made_any(b: Builder, kinds) -> bool:
    return any(op.kind in kinds for op in b.ops)


def _fft_axes(b: Builder, ndim: int, rank: int) -> tuple[list[int], str]:
    """The axes of a transform over ``rank`` axes (1, 2, or 0 for fftn's any number), with their
    source text ('' where the default is taken: the last axis, the last two, or all)."""
    if rank == 1:
        axis = int(b.rng.integers(ndim))
        if axis == ndim - 1 and b.chance(0.5):
            return [axis], ""
        return [axis], f", axis={axis - ndim if b.chance(0.3) else axis}"
    if rank == 2:
        if b.chance(0.4):
            return [ndim - 2, ndim - 1], ""
        axes = [int(a) for a in b.rng.permutation(ndim)[:2]]
        return axes, f", axes={tuple_src(axes)}"
    if ndim <= 3 and b.chance(0.3):
        return list(range(ndim)), ""
    axes = [int(a) for a in b.rng.permutation(ndim)[:int(b.rng.integers(1, min(ndim, 3) + 1))]]
    return axes, f", axes={tuple_src(axes)}"


def _fft_call(b: Builder, fn: str, arg: str, shape, axes: list[int], axes_src: str,
              rank: int) -> tuple[str, float]:
    """``jnp.fft.<fn>(arg, ...)`` over ``axes`` of a value of ``shape``, with random lengths and
    norm, and the most it multiplies ``max |x|`` by: each output sums at most ``size`` terms (the
    product of the transform's lengths), which the norm divides by 1, sqrt(size) or size."""
    sized = b.chance(0.5) and (rank != 0 or axes_src != "")
    lengths = []
    for i, a in enumerate(axes):
        default = shape[a]
        if fn in _FFT_REAL_OUTPUT and i == len(axes) - 1:
            default = 2 * (shape[a] - 1)
        lengths.append(int(b.choice(_FFT_LENGTHS)) if sized else default)
    size_src = ""
    if sized:
        size_src = f", n={lengths[0]}" if rank == 1 else f", s={tuple_src(lengths)}"
    norm = b.choice(_FFT_NORMS)
    norm_src = "" if norm is None and b.chance(0.5) else f", norm={norm!r}"
    size = max(int(np.prod(lengths, dtype=np.int64)), 1)
    inverse = fn.startswith("i")  # ifft*, irfft*, ihfft divide by size under the default norm
    divisor = {None: size if inverse else 1, "ortho": math.sqrt(size),
               "forward": 1 if inverse else size}[norm]
    return f"jnp.fft.{fn}({arg}{size_src}{axes_src}{norm_src})", size / divisor


def op_fft(b: Builder) -> Val:
    """jnp.fft: complex transforms of complex values, rfft* of real ones (in complex programs),
    irfft*/hfft back to real, real round trips (``irfft(rfft(x))``, the real part or modulus of
    an rfft) so that real programs transform too, and fftshift/ifftshift."""
    x = b.pick(lambda v: v.ndim >= 1 and (v.cat == "c" or v.aval.dtype in ("float32", "float64")))
    if x.cat == "c":
        fn = b.choice(("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "irfft", "irfft2", "irfftn",
                       "hfft", "shift"))
    elif b.complex_program:
        fn = b.choice(("rfft", "rfft2", "rfftn", "ihfft", "round_trip", "real_part", "shift"))
    else:
        fn = b.choice(("round_trip", "round_trip", "real_part", "shift"))
    if fn != "shift" and _made_any(b, _LINALG_KINDS):
        raise Rejected("an FFT and a LAPACK call in one program: jax fails")
    if fn != "shift" and b.special:
        # Which butterflies meet an infinity decides where inf - inf makes NaN: the
        # algorithm's choice, not a semantics (docs/fuzzing.md, "Special values").
        raise Rejected("no transforms of special values")
    if fn != "shift" and x.nonfinite:
        # The same for a regular program's infinities (seed 143, program 1424: irfft(rfft(x))
        # of a reduce_window min over padding, inf: NaN on numlir, inf on jax and NumPy).
        raise Rejected("no transforms of infinities")
    if fn == "shift":
        shift = b.choice(("fftshift", "ifftshift"))
        axes = axes_arg(b, x.ndim)
        axes_src = "" if axes == "None" else f", axes={axes}"
        return b.emit(shift, f"jnp.fft.{shift}({{0}}{axes_src})", [x], x.bound, x.distinct)
    if fn == "round_trip":
        rank = b.choice((1, 1, 2, 0))
    elif fn == "real_part":  # rfft: a full spectrum of real values pairs bins X[k], X[n - k]
        rank = 1
    else:  # fft2 and friends over 2 axes, fftn and friends over any number, the others over 1
        rank = {"2": 2, "n": 0}.get(fn[-1], 1)
    if rank == 2 and x.ndim < 2:  # fft2 of a vector: fft
        rank, fn = 1, fn.removesuffix("2")
    axes, axes_src = _fft_axes(b, x.ndim, rank)
    suffix = {1: "", 2: "2", 0: "n"}[rank]
    if fn == "round_trip":  # real to complex and back, each with its own lengths and norm
        there, back = (("ihfft", "hfft") if rank == 1 and b.chance(0.25)
                       else ("rfft" + suffix, "irfft" + suffix))
        inner, scale = _fft_call(b, there, "{0}", x.shape, axes, axes_src, rank)
        mid = infer(inner, [x.aval])
        if mid is None:
            raise Rejected(f"jax rejects {inner}")
        outer, scale2 = _fft_call(b, back, inner, mid.shape, axes, axes_src, rank)
        return b.emit("fft_round_trip", outer, [x], x.bound * scale * scale2)
    if fn == "real_part":
        # Not of a full spectrum: the mirrored bins of real values are equal in real part and
        # modulus up to rounding (near-ties that rounding breaks apart differently in argmax,
        # sort, max), and their imaginary parts cancel in a sum (exactly 0 but for rounding, whose
        # sign then decided a cond in session 21's first favored campaign).
        # Nor imaginary parts of rfft: the first is exactly 0, whose sign a rounding picks.
        call, scale = _fft_call(b, "rfft", "{0}", x.shape, axes, axes_src, rank)
        part = b.choice(("jnp.real({})", "{}.real", "jnp.abs({})"))
        if part == "jnp.abs({})" and not b.kink_ok(x):
            raise Rejected("kink")
        return b.emit("fft_real_part", part.format(call), [x], x.bound * scale)
    call, scale = _fft_call(b, fn, "{0}", x.shape, axes, axes_src, rank)
    return b.emit(fn, call, [x], x.bound * scale)


# -- linear algebra ------------------------------------------------------------------------------
# Matrices are made well conditioned inside the template, from any value: ``c * I + E`` with the
# value scaled into ``|E_ij| <= |c| / (2n)`` (by a power of two, exactly), so every row's and
# column's off-diagonal sum is at most |c| / 2: the eigenvalues lie within |c| / 2 of c,
# ``||M^-1||_inf <= 2 / |c|``, |det| is between (|c| / 2)^n and (3|c| / 2)^n, partial pivoting
# has no near-ties, and a Householder QR sees diagonals far from 0 (their signs decide Q's and R's).
# Spectra whose order or gradient needs gaps (eigvalsh, singular values, 2-norms) see
# ``diag(1, ..., n) + E`` with ``||E||_2 <= 1/4``: eigenvalues and singular values within 1/4 of
# 1, ..., n, so at least 1/2 apart and away from 0. Only invariant outputs are compared: no
# eigenvectors or singular vectors.

#: What jax's linear algebra runs on (eval_shape takes bfloat16 and integers; jax.jit does not).
_LINALG_DTYPES = ("float32", "float64", "complex64", "complex128")


def _matrix_operand(b: Builder) -> tuple[Val, str, int]:
    """A value whose trailing n x n block is the matrix (cropped where it is not square), or a
    fresh input of a small square shape, now and then with batch dimensions; the source text of
    the matrix, and n."""
    try:
        if b.chance(0.65):
            a = b.pick(lambda v: v.aval.dtype in _LINALG_DTYPES and 2 <= v.ndim <= 4)
            n = min(a.shape[-2:])
            square = a.shape[-1] == a.shape[-2]
            return a, "{0}" if square else f"{{0}}[..., :{n}, :{n}]", n
    except Rejected:
        pass
    n = int(b.rng.integers(1, 6))
    batch = () if b.chance(0.7) else tuple(b.shape(int(b.rng.integers(1, 3))))
    dtype = b.dtype_of(b.real_or_complex("f", 0.7))
    a = b.input(batch + (n, n), "float32" if dtype == "bfloat16" else dtype)
    return a, "{0}", n


def _near_identity(matrix: str, bound: float, rows: int, cols: int, c: float) -> str:
    """``c * I + E`` (see above): E is the matrix scaled into
    ``|E_ij| <= |c| / (2 max(rows, cols))``."""
    s = shrink(bound, abs(c) / (2 * max(rows, cols)))
    eye = f"jnp.eye({rows}, dtype={{0}}.dtype)" if rows == cols else \
        f"jnp.eye({rows}, {cols}, dtype={{0}}.dtype)"
    return f"({matrix} * {s} + {c} * {eye})"


def _spread_spectrum(matrix: str, bound: float, n: int) -> str:
    """``diag(1, ..., n) + E`` with ``||E||_2 <= ||E||_F <= 1/4``."""
    ramp = f"jnp.eye({n}, dtype={{0}}.dtype) * jnp.arange(1, {n + 1})"
    return f"({matrix} * {shrink(bound, 0.25 / n)} + {ramp})"


def _hermitian_positive(matrix: str, bound: float, n: int) -> str:
    """``B B^H + I`` with ``|B_ij| <= 1``: eigenvalues in [1, n^2 + 1], diagonal at most n + 1."""
    scaled = f"({matrix} * {shrink(bound, 1.0)})"
    adjoint = f"jnp.conj(jnp.swapaxes({scaled}, -1, -2))"
    return f"({scaled} @ {adjoint} + jnp.eye({n}, dtype={{0}}.dtype))"


def _same_dtype_partner(b: Builder, shape, a: Val) -> Val:
    """An operand of ``shape`` with ``a``'s dtype (lax does not promote)."""
    v = b.partner(tuple(shape), a.cat, lambda v: v.aval == Aval(tuple(shape), a.aval.dtype),
                  exclude=(a.name,))
    return v if v.aval.dtype == a.aval.dtype else b.input(tuple(shape), a.aval.dtype)


def op_linalg(b: Builder) -> Val:
    """jnp.linalg and lax.linalg on well-conditioned matrices (real or complex), batched now and
    then: solve, inv, det, slogdet, cholesky, qr, eigvalsh, singular values, matrix norms,
    matrix_power, triangular_solve."""
    if _made_any(b, _FFT_TRANSFORM_KINDS):
        raise Rejected("an FFT and a LAPACK call in one program: jax fails")
    if b.special:
        # Singular, infinite or NaN matrices: what LAPACK's and numlir's factorizations make
        # of them is the algorithm's choice (docs/fuzzing.md, "Special values").
        raise Rejected("no linear algebra of special values")
    a, matrix, n = _matrix_operand(b)
    if a.nonfinite:
        raise Rejected("no linear algebra of infinities")
    m = a.bound
    batch = a.shape[:-2]
    kind = b.choice(("solve", "solve", "inv", "det", "slogdet", "cholesky", "qr", "qr", "eigvalsh",
                     "svd", "matrix_norm", "matrix_power", "triangular_solve", "triangular_solve"))
    c = b.choice((1.0, 2.0, -1.0))  # the diagonal: a negative one flips det's sign
    well = _near_identity(matrix, m, n, n, c)
    if kind in ("solve", "inv", "det", "slogdet") and n > 1 and b.chance(0.4):
        # Rows swapped: partial pivoting then exchanges rows (its choice has no near-ties).
        well = f"{well}[..., np.array({[int(p) for p in b.rng.permutation(n)]}), :]"
    inverse_bound = 2.0 / abs(c)
    if kind == "solve":
        cat = b.real_or_complex(a.cat, 0.3)
        shape = (n,) if not batch and b.chance(0.3) else batch + (n, b.dim())
        rhs = b.partner(shape, cat, lambda v: v.shape == shape and v.aval.dtype in _LINALG_DTYPES)
        return b.emit("solve", f"jnp.linalg.solve({well}, {{1}})", [a, rhs],
                      inverse_bound * rhs.bound)
    if kind == "inv":
        return b.emit("inv", f"jnp.linalg.inv({well})", [a], inverse_bound)
    if kind == "det":
        return b.emit("det", f"jnp.linalg.det({well})", [a], (1.5 * abs(c)) ** n)
    if kind == "slogdet":  # the sign (+-1, or a phase), log|det|, or both at once
        log_bound = n * (abs(math.log(abs(c))) + 0.7)
        template, bound = b.choice(((f"jnp.linalg.slogdet({well})[0]", 1.0),
                                    (f"jnp.linalg.slogdet({well})[1]", log_bound),
                                    (f"jnp.multiply(*jnp.linalg.slogdet({well}))", log_bound)))
        return b.emit("slogdet", template, [a], bound)
    if kind == "cholesky":
        if b.chance(0.5):
            spd, bound = _hermitian_positive(matrix, m, n), math.sqrt(n + 1.0)
        else:  # not Hermitian: jax factors its Hermitian part (positive definite: c > 0)
            spd, bound = _near_identity(matrix, m, n, n, abs(c)), math.sqrt(1.5 * abs(c))
        upper = ", upper=True" if b.chance(0.3) else ""
        return b.emit("cholesky", f"jnp.linalg.cholesky({spd}{upper})", [a], bound)
    if kind == "qr":
        rows, cols = n, n
        if a.shape[-2] > a.shape[-1] and b.chance(0.5):  # tall: Q is rows x cols
            rows, cols = a.shape[-2], a.shape[-1]
            matrix = "{0}" if a.shape[-2:] == (rows, cols) else f"{{0}}[..., :{rows}, :{cols}]"
        tall = _near_identity(matrix, m, rows, cols, c)
        r_bound = 1.5 * abs(c) * math.sqrt(rows)
        template, bound = b.choice(((f"jnp.linalg.qr({tall})[0]", 1.0),
                                    (f"jnp.linalg.qr({tall})[1]", r_bound),
                                    (f"jnp.linalg.qr({tall}, mode='r')", r_bound)))
        return b.emit("qr", template, [a], bound)
    spread = _spread_spectrum(matrix, m, n)
    if kind == "eigvalsh":  # jnp symmetrizes its input: UPLO picks nothing here
        uplo = b.choice(("", ", UPLO='U'", ", UPLO='L'"))
        return b.emit("eigvalsh", f"jnp.linalg.eigvalsh({spread}{uplo})", [a], n + 0.25)
    if kind == "svd":
        template = b.choice((f"jnp.linalg.svd({spread}, compute_uv=False)",
                             f"jnp.linalg.svdvals({spread})"))
        return b.emit("svd", template, [a], n + 0.25)
    if kind == "matrix_norm":
        options = [(spread, "2", n + 0.25), (spread, "-2", n + 0.25),
                   (spread, "'nuc'", n * (n + 1) / 2 + 0.25 * n), (spread, "'fro'", n * n)]
        if b.kink_ok(a):  # kinks: |E_ij| at 0 (the column or row sums are 1/2 apart), and
            # the Frobenius norm of an arbitrary matrix at 0
            options += [(spread, "1", n + 0.25), (spread, "-jnp.inf", n + 0.25),
                        (matrix, "'fro'", m * n)]
        target, order, bound = b.choice(options)
        axis = "" if not batch and b.chance(0.5) else ", axis=(-2, -1)"
        keep = ", keepdims=True" if b.chance(0.2) else ""
        return b.emit("matrix_norm", f"jnp.linalg.norm({target}, ord={order}{axis}{keep})", [a],
                      bound)
    if kind == "matrix_power":
        p = int(b.choice((0, 1, 2, 3, -1, -2)))
        if p < 0:  # of the inverse: needs the well-conditioned matrix
            bound = inverse_bound ** -p * n ** (-p - 1)
            return b.emit("matrix_power", f"jnp.linalg.matrix_power({well}, {p})", [a], bound)
        bound = 1.0 if p == 0 else _power_bound(m, p) * n ** (p - 1)
        return b.emit("matrix_power", f"jnp.linalg.matrix_power({matrix}, {p})", [a], bound)
    # triangular_solve reads one triangle of a (the template passes the whole matrix, or masks it)
    lower, left = b.chance(0.5), b.chance(0.5)
    tri = b.choice((well, f"jnp.tril({well})" if lower else f"jnp.triu({well})"))
    k = b.dim()
    rhs = _same_dtype_partner(b, batch + ((n, k) if left else (k, n)), a)
    flags = (f"left_side={left}, lower={lower}, transpose_a={b.chance(0.5)}, "
             f"conjugate_a={b.chance(0.5)}, unit_diagonal={b.chance(0.2)}")
    # A unit diagonal leaves rows with off-diagonal sums up to |c| / 2 <= 1 - 1/n: ||T^-1|| <= n.
    return b.emit("triangular_solve", f"lax.linalg.triangular_solve({tri}, {{1}}, {flags})",
                  [a, rhs], rhs.bound * max(inverse_bound, n))


_BRANCHES = {"f": ("p * q", "p + q", "jnp.sin(p) - q", "jnp.tanh(p * q)", "p - jnp.cos(q)"),
             "c": ("p * q", "p + q", "jnp.sin(p) - q", "p - jnp.conj(q)", "p * (0.5-1j) + q"),
             "i": ("p + q", "p * q", "p - q", "jnp.maximum(p, q)")}
_BRANCHES1 = {"f": ("jnp.sin(p)", "p * 2.0", "jnp.tanh(p) + 1.0", "p[::-1] * 0.5 if p.ndim else p"),
              "c": ("jnp.sin(p)", "p * (2.0-1j)", "jnp.conj(p) + 1.0",
                    "p[::-1] * 0.5j if p.ndim else p"),
              "i": ("p + 1", "p * 2", "-p", "p % 3")}
_PREDICATE = {"f": "jnp.sum({%d}) > 0", "i": "jnp.sum({%d}) %% 2 == 0", "b": "jnp.any({%d})",
              "c": "jnp.sum(jnp.real({%d})) > 0"}


def op_cond(b: Builder) -> Val:
    x = b.pick(lambda v: v.cat in "fic")
    p = b.pick()
    pred = _PREDICATE[p.cat]
    if b.chance(0.4):
        br = _BRANCHES1[x.cat]
        bound = x.bound * 2 + 1
        if x.cat == "c":  # |sin(p)| <= cosh(|p|), |2 - 1j| < 2.3
            bound = max(x.bound * 2.3 + 1, math.cosh(min(x.bound, 30.0)))
        if b.chance(0.3):
            idx = {"b": "jnp.sum({1}) % 3", "c": "jnp.sum(jnp.real({1}) > 0) % 3"}.get(
                p.cat, "jnp.sum({1} > 0) % 3")
            fns = ", ".join(f"lambda p: {e}" for e in (b.choice(br), b.choice(br), b.choice(br)))
            return b.emit("switch", f"lax.switch({idx}, [{fns}], {{0}})", [x, p], bound)
        template = (f"lax.cond({pred % 1}, lambda p: {b.choice(br)}, lambda p: {b.choice(br)}, {{0}})")
        return b.emit("cond", template, [x, p], bound)
    y = b.partner(broadcast_partner_shape(b, x.shape), x.cat,
                  lambda v: broadcastable(v.shape, x.shape), exclude=(x.name,))
    br = _BRANCHES[x.cat]
    template = (f"lax.cond({pred % 2}, lambda p, q: {b.choice(br)}, lambda p, q: {b.choice(br)}, "
                "{0}, {1})")
    bound = x.bound * y.bound + x.bound + y.bound
    if x.cat == "c":  # |sin(p)| <= cosh(|p|)
        bound = bound + math.cosh(min(x.bound, 30.0)) + 2 * x.bound
    return b.emit("cond", template, [x, y, p], bound)


def op_loop(b: Builder) -> Val:
    x = b.pick(lambda v: v.cat in "fic")
    n = int(b.rng.integers(1, 5))
    if b.differentiable and x.cat in "fc" or b.chance(0.4):
        body = {"f": "c * 0.8 + jnp.sin(c + i)",
                "c": "c * (0.6+0.3j) + jnp.exp(0.5j * i).astype(c.dtype)"}.get(
            x.cat, "c * 2 - i")
        # |c * (0.6+0.3j)| <= 0.68 |c|: the complex carry stays within |x| + 1 / (1 - 0.68).
        bound = {"f": x.bound + 5, "c": x.bound + 3.2}.get(x.cat, x.bound * 2 ** n + 2 ** n * n)
        template = f"lax.fori_loop(0, {n}, lambda i, c: {body}, {{0}})"
        return b.emit("fori_loop", template, [x], bound)
    y = b.partner(broadcast_partner_shape(b, x.shape, into=True), x.cat,
                  lambda v: broadcasts_into(v.shape, x.shape), exclude=(x.name,))
    test = "jnp.max(c[1])"
    if x.cat == "f":
        body, limit, bound = "jnp.tanh(c[1]) * 1.5 + jnp.sin({1})", "1.5", 3.0
    elif x.cat == "c":  # the exit tests the modulus; a step takes |c| < 3 to under 2.2 + |y|
        body, limit, bound = "c[1] * (0.5+0.5j) + {1}", "3.0", 2.2 + y.bound
        test = "jnp.max(jnp.abs(c[1]))"
    else:
        body, limit, bound = "c[1] * 2 + {1}", "100", (x.bound + y.bound) * 2 ** n + 200
    template = (f"lax.while_loop(lambda c: (c[0] < {n}) & ({test} < {limit}), "
                f"lambda c: (c[0] + 1, {body}), (0, {{0}}))[1]")
    return b.emit("while_loop", template, [x, y], max(bound, x.bound))


def op_scan(b: Builder) -> Val:
    c = b.pick(lambda v: v.cat in "fic")
    length = int(b.rng.integers(1, 5))
    reverse = b.chance(0.3)
    which = int(b.rng.integers(2))
    # tanh's jax derivative is NaN at an infinite cotangent (JAX_WRONG_AT_INFINITE_COTANGENT;
    # seed 117, program 1742): differentiated special-value programs scan with arctan.
    squash = "jnp.arctan" if b.special and b.differentiable else "jnp.tanh"
    if b.chance(0.3):
        body = {"f": f"({squash}(c) + 0.5, c * 2.0)",
                "c": "(c * (0.5+0.5j) + 0.5, jnp.conj(c) * 2.0)"}.get(c.cat, "(c + 1, c * 2)")
        template = f"lax.scan(lambda c, _: {body}, {{0}}, None, length={length}, reverse={reverse})[{which}]"
        return b.emit("scan", template, [c], c.bound * 2 + length)
    shape = (length,) + c.shape
    xs = b.partner(shape, c.cat, lambda v: v.aval == Aval(shape, c.aval.dtype))
    if c.cat == "c":
        body = b.choice(("(c * 0.5 + x, c * x)", "(c * (0.5-0.5j) - x, jnp.sum(c * jnp.conj(x)))",
                         "(c - x * 0.5, jnp.real(c))"))
    elif c.cat == "f":
        body = b.choice(("(c * 0.5 + x, jnp.sin(c) * x)", f"({squash}(c + x), jnp.sum(c * x))",
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
    options = (
        ("sort", f"jnp.sort({{0}}, axis={axis})", True),
        ("argsort", f"jnp.argsort({{0}}, axis={axis})", False),
        ("top_k", f"lax.top_k({{0}}, {k})[0]", True),
    )
    if b.complex_program:  # complex numbers sort lexicographically; jax has no top_k of them
        options = options[:2] + (("sort_complex", "jnp.sort_complex({0})", True),)
    kind, template, kinked = b.choice(options)
    if x.cat == "b" and kind == "top_k":
        raise Rejected("top_k of bool")
    if kinked and not b.kink_ok(x):
        raise Rejected("kink")
    # sort_complex of real values: complex ones on the real axis, not distinct.
    return b.emit(kind, template, [x], x.bound if kind != "argsort" else float(x.aval.size),
                  x.distinct and kind != "argsort" and (kind != "sort_complex" or x.cat == "c"))


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


# -- complex programs only ---------------------------------------------------------------------

def op_make_complex(b: Builder) -> Val:
    """Complex values from real ones: ``lax.complex``, ``a + 1j * b``, ``exp(1j * a)``, a Python
    complex scalar times a real value. Distinct where both parts are (so off both axes)."""
    style = b.choice(("complex", "complex", "plus_1j", "plus_1j", "cis", "scalar"))
    if style == "scalar":  # a weak complex scalar: complex64 with x64 off, complex128 with it on
        x = b.pick(lambda v: v.cat in "fi", allow_empty=True)
        return b.emit("make_complex", b.choice(("{0} * (1.5-0.5j)", "(0.5+2j) * {0}", "{0} + 1j")),
                      [x], 2.1 * x.bound + 1.0, x.distinct)
    x = b.pick(lambda v: v.cat == "f", allow_empty=True)
    if style == "cis":
        return b.emit("make_complex", "jnp.exp(1j * {0})", [x], 1.0, x.distinct)
    if style == "complex":  # lax.complex: equal dtypes; shapes equal or one of them a scalar
        shape = () if b.chance(0.15) else x.shape
        y = b.partner(shape, "f", lambda v: v.aval == Aval(shape, x.aval.dtype), exclude=(x.name,))
        re, im = (x, y) if b.chance(0.5) else (y, x)
        out = np.broadcast_shapes(re.shape, im.shape)
        return b.emit("make_complex", "lax.complex({0}, {1})", [re, im], re.bound + im.bound,
                      re.distinct and im.distinct and out in (re.shape, im.shape))
    y = b.partner(broadcast_partner_shape(b, x.shape), "f",
                  lambda v: broadcastable(v.shape, x.shape), exclude=(x.name,))
    re, im = (x, y) if b.chance(0.5) else (y, x)
    out = np.broadcast_shapes(re.shape, im.shape)
    template = b.choice(("{0} + 1j * {1}", "{0} - {1} * 1j", "jnp.add({0}, jnp.multiply(1j, {1}))"))
    return b.emit("make_complex", template, [re, im], re.bound + im.bound,
                  re.distinct and im.distinct and out in (re.shape, im.shape))


#: Real-valued ends of complex values: what a real loss of a complex program looks like. The
#: third field: whether the reduction has a kink at 0 (abs, the norm), so a differentiated
#: program only applies it to distinct values.
_COMPLEX_TO_REAL = (
    ("abs2_sum", "jnp.sum(jnp.abs({0}) ** 2{axes})", False),
    ("abs2_sum", "jnp.sum(jnp.real({0} * jnp.conj({0})){axes})", False),
    ("real_abs_sum", "jnp.sum(jnp.real({0}) + jnp.abs({0}){axes})", True),
    ("real_abs_sum", "jnp.sum(jnp.imag({0}) * 0.5 - jnp.abs({0}){axes})", True),
    ("norm", "jnp.linalg.norm({0}{axes})", True),
    ("vdot_self", "jnp.real(jnp.vdot({0}, {0}))", False),
)


def complex_to_real(b: Builder, x: Val) -> Val:
    kind, template, kinked = b.choice(_COMPLEX_TO_REAL)
    if kinked and not b.kink_ok(x):
        raise Rejected("kink")
    axes = ""
    if x.ndim and b.chance(0.5):
        axes = f", axis={axes_arg(b, x.ndim, allow_tuple=kind != 'norm')}"
    if kind == "norm" and axes == ", axis=None":
        axes = ""
    m, n = x.bound, x.aval.size
    bound = {"abs2_sum": m * m * n, "real_abs_sum": 2 * m * n, "norm": m * math.sqrt(n + 1),
             "vdot_self": m * m * n}[kind]
    return b.emit(kind, template.replace("{axes}", axes), [x], bound, x.distinct)


def op_complex_to_real(b: Builder) -> Val:
    return complex_to_real(b, b.pick(lambda v: v.cat == "c"))


def op_complex_unary(b: Builder) -> Val:
    """An elementwise op of a complex value (op_unary picks among the real ones too)."""
    return op_unary(b, b.pick(lambda v: v.cat == "c", allow_empty=True))


def op_complex_parts(b: Builder) -> Val:
    """real, imag, abs, abs**2, angle of a complex value: real values that flow on into the
    real ops."""
    return op_unary(b, b.pick(lambda v: v.cat == "c", allow_empty=True), _COMPLEX_PARTS_OPS)


def op_vdot(b: Builder) -> Val:
    """Contractions that conjugate their first operand (vdot, vecdot), or do not (inner)."""
    a = b.pick(lambda v: v.ndim >= 1 and v.cat in "fc")
    kind = b.choice(("vdot", "vdot", "vecdot", "inner"))
    if kind == "vdot":  # flattens both: any shape of the same size
        shape = random_shape_of_size(b, a.aval.size) if b.chance(0.4) else a.shape
        c = b.partner(shape, b.real_or_complex(a.cat, 0.3), lambda v: v.shape == shape)
        return b.emit("vdot", "jnp.vdot({0}, {1})", [a, c], a.bound * c.bound * a.aval.size)
    shape = broadcast_partner_shape(b, a.shape[:-1]) + (a.shape[-1],)
    c = b.partner(shape, b.real_or_complex(a.cat, 0.3), lambda v: v.shape == shape)
    template = "jnp.vecdot({0}, {1})" if kind == "vecdot" else "jnp.inner({0}, {1})"
    if kind == "inner" and b.chance(0.5):
        template = "jnp.inner({1}, {0})"
    return b.emit(kind, template, [a, c], a.bound * c.bound * a.shape[-1])


#: Op families and their weights (the elementwise ones carry more: they are the glue).
FAMILY_WEIGHTS: tuple[tuple[Callable[[Builder], Val], float], ...] = (
    (op_unary, 8), (op_binary, 8), (op_cast, 2), (op_lax_binary, 1), (op_compare, 2), (op_where, 3),
    (op_reduce, 5), (op_arg_reduce, 1), (op_cumulative, 3), (op_softmax, 1),
    (op_reshape, 5), (op_squeeze, 3), (op_expand_dims, 3), (op_transpose, 3), (op_broadcast, 2),
    (op_flip_roll, 2), (op_index, 5), (op_advanced_index, 3), (op_take_along_axis, 1),
    (op_dynamic_slice, 2), (op_scatter, 3), (op_concatenate, 3), (op_pad, 2),
    (op_matmul, 5), (op_matrix_polynomial, 1), (op_dot_general, 3), (op_einsum, 3), (op_tensordot, 1),
    (op_conv, 2), (op_reduce_window, 2), (op_cond, 2), (op_loop, 2), (op_scan, 2),
    (op_sort, 1), (op_triangle, 1), (op_one_hot, 1), (op_fft, 1), (op_linalg, 0.4),
)
#: The families complex programs add to those.
#: (More elementwise ops too: the complex tables are long, and their ops are the new code.)
COMPLEX_FAMILY_WEIGHTS: tuple[tuple[Callable[[Builder], Val], float], ...] = (
    (op_make_complex, 4), (op_complex_to_real, 2), (op_vdot, 2), (op_complex_unary, 12),
    (op_complex_parts, 5), (op_binary, 4), (op_fft, 1), (op_linalg, 0.3), (op_conv, 0.5),
)
#: The families special-value programs add to those: elementwise functions (half of their
#: draws from the special tables), reductions, selections and sorting, where special points
#: and ties matter; the shape ops around them only move values.
SPECIAL_FAMILY_WEIGHTS: tuple[tuple[Callable[[Builder], Val], float], ...] = (
    (op_unary, 16), (op_binary, 12), (op_reduce, 4), (op_where, 2), (op_sort, 2),
    (op_arg_reduce, 1), (op_cumulative, 2), (op_reduce_window, 1), (op_scatter, 1),
)
#: Op families by name (for ``--favor``): the function's name without ``op_``.
OP_FAMILY_NAMES = tuple(dict.fromkeys(f.__name__.removeprefix("op_")
                                      for f, _ in FAMILY_WEIGHTS + COMPLEX_FAMILY_WEIGHTS))
#: The share of the draws that ``favor``'s op families split equally among them.
FAVORED_SHARE = 0.5


def family_probabilities(table, favor=None) -> np.ndarray:
    """How often each op family of ``table`` is drawn: by weight, or, with ``favor``, half of the
    draws split equally among the favored families and the other half by the others' weights
    (so a rare family such as linalg, and a common one such as conv, each get a fair share)."""
    names = [f.__name__.removeprefix("op_") for f, _ in table]
    weights = np.array([w for _, w in table], dtype=float)
    favored = sorted({n for n in names if n in (favor or ())})
    if not favored or len(favored) == len(set(names)):
        return weights / weights.sum()
    p = np.where([n in favored for n in names], 0.0, weights)
    p *= (1.0 - FAVORED_SHARE) / p.sum()
    for name in favored:  # a family may sit in the table twice (op_binary): by its weights there
        mask = np.array([n == name for n in names])
        p[mask] = FAVORED_SHARE / len(favored) * weights[mask] / weights[mask].sum()
    return p


def generate(seed, index: int = 0, families=None, favor=None, special: str = "none") -> Program:
    """The program for ``(seed, index)``; the same pair always gives the same program.

    ``families`` (names from ``FAMILY_NAMES``) restricts the programs to those families, with
    their weights relative to one another: ``("complex64", "complex128")`` gives only
    complex programs (another program for the same index than without the restriction).
    ``favor`` (names from ``OP_FAMILY_NAMES``) gives those op families ``FAVORED_SHARE`` of the
    draws: a campaign that aims at a few families, with the others still around them.
    ``special`` (from ``SPECIAL_VALUES_MODES``) says which programs draw special values
    (``special_values``): "quarter" (campaigns, the fixed-seed test), "all", or "none" (the
    default here; a program that draws none is the same under "none" and "quarter")."""
    is_special = special_values(seed, index, special)
    unknown = sorted(set(favor or ()) - set(OP_FAMILY_NAMES))
    if unknown:
        raise ValueError(f"no op family {unknown}; the op families: {OP_FAMILY_NAMES}")
    rng = np.random.default_rng([int(seed), int(index)])
    chosen = [f for f in FAMILIES if families is None or family_name(f[0], f[1]) in families]
    if not chosen:
        raise ValueError(f"no program family among {families!r}; the families: {FAMILY_NAMES}")
    weights = np.array([w for _, _, w in chosen])
    dtype, x64, _ = chosen[int(rng.choice(len(chosen), p=weights / weights.sum()))]
    differentiable = dtype.startswith(("float", "complex")) and rng.random() < 0.8
    b = Builder(rng, dtype, x64, differentiable, batch_size=int(rng.integers(1, 4)),
                special=is_special)
    jax = _jax()
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", x64)
    try:
        for _ in range(int(rng.integers(1, 3))):
            b.input(b.shape())
        table = (FAMILY_WEIGHTS + (COMPLEX_FAMILY_WEIGHTS if b.complex_program else ())
                 + (SPECIAL_FAMILY_WEIGHTS if b.special else ()))
        ops = [f for f, _ in table]
        fam_p = family_probabilities(table, favor)
        target = int(rng.integers(2, 9))
        attempts = 0
        while len(b.ops) < target and attempts < 12 * target:
            attempts += 1
            family = ops[int(rng.choice(len(ops), p=fam_p))]
            try:
                family(b)
            except Rejected:
                pass
        if b.complex_program and differentiable:
            _end_with_real_values(b)
    finally:
        jax.config.update("jax_enable_x64", previous)
    if not b.ops:
        return generate(seed, index + 1_000_003, families, favor, special)
    used = {a for op in b.ops for a in op.args}
    outputs = [op.out for op in b.ops if op.out not in used][-3:]
    if not any(inp.batch_axis is not None for inp in b.inputs):
        first = b.inputs[0]
        first.batch_axis = 0
        if first.name in b.special_inputs:
            # Batched only now, after the ops: fresh special draws could hold values (tiny,
            # huge, non-finite) that its Val did not, which the ops' guards never saw (seed
            # 152, program 1408: tiny values reached jnp.sinc, whose derivative jax gets
            # wrong there). Permutations of its value hold the same ones.
            flat = first.value.reshape(-1)
            first.batched = np.stack([flat[b.rng.permutation(flat.size)].reshape(
                first.value.shape) for _ in range(b.batch_size)])
        else:
            first.batched = np.stack([b.draw(first.value.shape, first.value.dtype.name)
                                      for _ in range(b.batch_size)])
    origin = ("seed", int(seed), int(index)) + ((tuple(families),) if families is not None else ())
    if favor:
        origin += (("favor",) + tuple(favor),)
    if special != "none":
        origin += (("special_values", special),)
    program = Program(b.inputs, b.ops, tuple(outputs), x64=x64, differentiable=differentiable,
                      batch_size=b.batch_size, origin=origin, special_values=is_special)
    return program.pruned()


def _end_with_real_values(b: Builder) -> None:
    """Most complex outputs of a differentiated program get a real-valued reduction (the loss
    of a complex program, as one writes it: ``sum(abs(z) ** 2)``, ``sum(real(z) + abs(z))``, a
    norm), so the gradient also flows through those ends and not only through the linear
    ``real(out * w)`` that the grad modes' loss applies to a complex output."""
    used = {a for op in b.ops for a in op.args}
    ends = [v for v in b.vals if v.cat == "c" and v.name not in used and v.name.startswith("v")]
    for val in ends:
        if b.chance(0.6):
            try:
                complex_to_real(b, val)
            except Rejected:
                pass
