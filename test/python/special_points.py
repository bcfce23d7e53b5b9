"""The special-point sweep: values and first and second derivatives of every differentiable
scalar function of numlir.numpy, numlir.nn, numlir.lax and numlir.scipy.special at the
points where derivative rules go wrong (zeros of both signs, ±1, ±0.5, tiny and huge
magnitudes, infinities, NaN, and each function's own kinks), compared with JAX.

A rule that takes a ``where(x > 0, ...)`` branch or breaks a tie to one side is right
almost everywhere and wrong exactly at these points, which random normal inputs never
reach (issue 39: ``grad(nn.softplus)(0.)`` was 0, not 0.5).

A *case* is a scalar function written once over a library namespace ``L`` (``L.numpy``,
``L.nn``, ``L.lax``, ``L.special``), so numlir and JAX run the same source. Binary
functions become several cases: one argument fixed (``maximum(x, 0)``, ``maximum(0, x)``,
``maximum(x, 1.5)``, ...) and the tie ``maximum(x, x)``.

NaN and infinities must match exactly (position and sign); finite values within a
tolerance. Where JAX's answer is mathematically wrong, ``JAX_IS_WRONG`` names the case
and the test that proves numlir's value.

Run as a script for the full mismatch table:
``PYTHONPATH=test/python .venv/bin/python -m special_points [--order 1] [--only nn.]``.
"""

from __future__ import annotations

import dataclasses
import math
import types
from typing import Callable

import numpy as np

import special_points_special_functions as special_functions

INF, NAN = math.inf, math.nan
POINTS = (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-30, -1e-30, 1e30, -1e30, INF, -INF, NAN)
ORDERS = (0, 1, 2)
MODES = ("eager", "jit", "vmap")


@dataclasses.dataclass(frozen=True)
class Case:
    """A scalar function of one argument, ``make(L)`` building it from a namespace."""
    name: str
    make: Callable[[types.SimpleNamespace], Callable]
    kinks: tuple[float, ...] = ()

    @property
    def points(self) -> tuple[float, ...]:
        skipped = JAX_NEVER_RETURNS.get(self.name, ((), ""))[0]
        return tuple(p for p in POINTS + self.kinks if p not in skipped)


def _attr(path: str):
    module, _, name = path.rpartition(".")
    return lambda L: getattr(getattr(L, module.replace("scipy.special", "special")), name)


# Every unary function JAX 0.10.2's namespaces hold that maps a float scalar to a float
# scalar and has a gradient (test_special_points.py checks the list is complete).
UNARY = """
numpy.abs numpy.absolute numpy.acos numpy.acosh numpy.amax numpy.amin numpy.angle
numpy.arccos numpy.arccosh numpy.arcsin numpy.arcsinh numpy.arctan numpy.arctanh
numpy.around numpy.array numpy.asarray numpy.asin numpy.asinh numpy.atan numpy.atanh
numpy.average numpy.block numpy.cbrt numpy.ceil numpy.clip numpy.conj numpy.conjugate
numpy.copy numpy.corrcoef numpy.cos numpy.cosh numpy.cov numpy.deg2rad numpy.degrees
numpy.exp numpy.exp2 numpy.expm1 numpy.fabs numpy.flip numpy.floor numpy.i0 numpy.imag
numpy.log numpy.log10 numpy.log1p numpy.log2 numpy.max numpy.mean numpy.median numpy.min
numpy.nan_to_num numpy.nanmax numpy.nanmean numpy.nanmedian numpy.nanmin numpy.nanprod
numpy.nanstd numpy.nansum numpy.nanvar numpy.negative numpy.ones_like numpy.positive
numpy.prod numpy.ptp numpy.rad2deg numpy.radians numpy.real numpy.reciprocal numpy.rint
numpy.round numpy.sign numpy.sin numpy.sinc numpy.sinh numpy.sqrt numpy.square
numpy.squeeze numpy.std numpy.sum numpy.tan numpy.tanh numpy.transpose numpy.trunc
numpy.var numpy.zeros_like
nn.celu nn.elu nn.gelu nn.hard_sigmoid nn.hard_silu nn.hard_swish nn.hard_tanh nn.identity
nn.leaky_relu nn.log1mexp nn.log_sigmoid nn.logmeanexp nn.logsumexp nn.mish nn.relu
nn.relu6 nn.selu nn.sigmoid nn.silu nn.soft_sign nn.softplus nn.sparse_plus
nn.sparse_sigmoid nn.squareplus nn.swish nn.tanh
lax.abs lax.acos lax.acosh lax.asin lax.asinh lax.atan lax.atanh lax.bessel_i0e
lax.bessel_i1e lax.cbrt lax.ceil lax.cos lax.cosh lax.digamma lax.erf lax.erf_inv lax.erfc
lax.exp lax.exp2 lax.expm1 lax.floor lax.lgamma lax.log lax.log1p lax.logistic lax.neg
lax.optimization_barrier lax.reciprocal lax.round lax.rsqrt lax.sign lax.sin lax.sinh
lax.sqrt lax.square lax.stop_gradient lax.tan lax.tanh
scipy.special.dawsn scipy.special.digamma scipy.special.entr scipy.special.erf
scipy.special.erfc scipy.special.erfcx scipy.special.erfinv scipy.special.exp1
scipy.special.expi scipy.special.expit scipy.special.factorial scipy.special.gamma
scipy.special.gammaln scipy.special.gammasgn scipy.special.i0 scipy.special.i0e
scipy.special.i1 scipy.special.i1e scipy.special.log_ndtr scipy.special.log_softmax
scipy.special.loggamma scipy.special.logit scipy.special.logsumexp scipy.special.ndtr
scipy.special.ndtri scipy.special.softmax scipy.special.spence
""".split()

BINARY = """
numpy.add numpy.arctan2 numpy.atan2 numpy.copysign numpy.divide numpy.dot
numpy.float_power numpy.floor_divide numpy.fmax numpy.fmin numpy.fmod numpy.heaviside
numpy.hypot numpy.inner numpy.kron numpy.logaddexp numpy.logaddexp2 numpy.maximum
numpy.minimum numpy.mod numpy.multiply numpy.pow numpy.power numpy.remainder
numpy.subtract numpy.true_divide numpy.vdot
lax.add lax.atan2 lax.div lax.igamma lax.igammac lax.max lax.min lax.mul lax.pow lax.rem
lax.sub
scipy.special.beta scipy.special.betaln scipy.special.boxcox scipy.special.boxcox1p
scipy.special.comb scipy.special.expn scipy.special.gammainc scipy.special.gammaincc
scipy.special.kl_div scipy.special.multigammaln scipy.special.owens_t scipy.special.poch
scipy.special.rel_entr scipy.special.xlog1py scipy.special.xlogy scipy.special.zeta
""".split()

# What discovery finds but the sweep leaves out, and why.
NOT_SWEPT = {
    "numpy.empty_like": "its values are unspecified",
    "numpy.trim_zeros": "its output shape depends on the values",
    "lax.stage": "a staging marker, not a function of the values",
    "numpy.full_like": "the second argument is a fill value, not an operand",
    "lax.full_like": "the second argument is a fill value, not an operand",
    "lax.broadcast_like": "the second argument only gives a shape",
    "numpy.pad": "the second argument is a padding width",
    "numpy.roll": "the second argument is a shift",
    "numpy.percentile": "the quantile of one scalar is the scalar (swept as numpy.median)",
    "numpy.quantile": "the quantile of one scalar is the scalar (swept as numpy.median)",
    "numpy.nanpercentile": "the quantile of one scalar is the scalar (swept as numpy.nanmedian)",
    "numpy.nanquantile": "the quantile of one scalar is the scalar (swept as numpy.nanmedian)",
}

# Each function's own kinks and boundaries, added to POINTS.
KINKS = {
    "nn.relu6": (6.0,), "nn.hard_tanh": (1.0, -1.0), "nn.hard_sigmoid": (3.0, -3.0),
    "nn.hard_silu": (3.0, -3.0), "nn.hard_swish": (3.0, -3.0), "nn.sparse_plus": (1.0, -1.0),
    "nn.sparse_sigmoid": (1.0, -1.0), "nn.log1mexp": (math.log(2.0),),
    "scipy.special.logit": (1.0,), "scipy.special.ndtri": (1.0,), "lax.erf_inv": (1.0,),
    "scipy.special.erfinv": (1.0,), "numpy.arccos": (1.0,), "numpy.arcsin": (1.0,),
}

#: Points where JAX's own function never returns (its series loop does not converge),
#: so there is nothing to compare with: name -> (points, why).
JAX_NEVER_RETURNS: dict[str, tuple[tuple[float, ...], str]] = {
    "scipy.special.exp1": ((1e-30,), "jax's expn series loops forever at 1e-30 in float32"),
    "scipy.special.expi": ((-1e-30,), "jax's expn series loops forever at -1e-30"),
    "lax.igamma(x, x)": ((1e30,), "jax's igamma series loops forever at a = x = 1e30"),
    "lax.igammac(x, x)": ((1e30,), "jax's igamma series loops forever at a = x = 1e30"),
    "scipy.special.expn(x, x)": ((1e-30, 1e30, INF), "jax's expn loops forever"),
    "scipy.special.expn(x, 0)": ((1e30, INF), "jax's expn loops forever at n = 1e30, inf"),
    "scipy.special.expn(0, x)": ((1e-30,), "jax's expn loops forever at x = 1e-30"),
    "scipy.special.expn(1.5, x)": ((1e-30,), "jax's expn loops forever at x = 1e-30"),
    "scipy.special.expn(-1.5, x)": ((1e-30,), "jax's expn loops forever at x = 1e-30 in "
                                              "float64"),
    "scipy.special.expn(x, 1.5)": ((1e30, INF, -INF), "jax's expn loops forever"),
    "scipy.special.expn(x, -1.5)": ((1e30, INF), "jax's expn loops forever at n = 1e30, inf"),
    "scipy.special.gammainc(x, x)": ((1e30,), "jax's igamma series loops forever at 1e30"),
    "scipy.special.gammaincc(x, x)": ((1e30,), "jax's igamma series loops forever at 1e30"),
}

#: The fixed partners of a binary function's swept argument.
PARTNERS = (0.0, 1.5, -1.5)

EXTRA = (
    Case("numpy.clip(x, -1, 1)", lambda L: lambda x: L.numpy.clip(x, -1.0, 1.0), (1.0, -1.0)),
    Case("numpy.clip(x, 0, None)", lambda L: lambda x: L.numpy.clip(x, 0.0, None)),
    Case("lax.clamp(-1, x, 1)", lambda L: lambda x: L.lax.clamp(-1.0, x, 1.0), (1.0, -1.0)),
    Case("numpy.where(x > 0, x, x)", lambda L: lambda x: L.numpy.where(x > 0, x, x)),
    Case("numpy.where(x > 0, x, 0)", lambda L: lambda x: L.numpy.where(x > 0, x, 0.0)),
    Case("lax.select(x > 0, x, -x)", lambda L: lambda x: L.lax.select(x > 0, x, -x)),
    Case("numpy.ldexp(x, 3)", lambda L: lambda x: L.numpy.ldexp(x, 3)),
    Case("lax.polygamma(1, x)", lambda L: lambda x: L.lax.polygamma(1.0, x)),
    Case("scipy.special.polygamma(2, x)", lambda L: lambda x: L.special.polygamma(2, x)),
    Case("scipy.special.betainc(2, 3, x)", lambda L: lambda x: L.special.betainc(2.0, 3.0, x)),
    Case("nn.celu(x, 2)", lambda L: lambda x: L.nn.celu(x, 2.0)),
    Case("nn.leaky_relu(x, 0.2)", lambda L: lambda x: L.nn.leaky_relu(x, 0.2)),
    Case("nn.gelu(x, approximate=False)", lambda L: lambda x: L.nn.gelu(x, approximate=False)),
    *(Case(f"lax.integer_pow(x, {n})", lambda L, n=n: lambda x: L.lax.integer_pow(x, n))
      for n in (0, 1, 2, 3, -1, -2)),
    *(Case(f"numpy.power(x, {p})", lambda L, p=p: lambda x: L.numpy.power(x, p))
      for p in (0.5, 2.0, 3, -1.0)),
)


def _binary_cases(path: str) -> list[Case]:
    f = _attr(path)
    cases = [Case(f"{path}(x, x)", lambda L: lambda x, g=f(L): g(x, x))]
    for c in PARTNERS:
        cases.append(Case(f"{path}(x, {c:g})", lambda L, c=c: lambda x, g=f(L): g(x, c)))
        cases.append(Case(f"{path}({c:g}, x)", lambda L, c=c: lambda x, g=f(L): g(c, x)))
    return cases


def all_cases() -> list[Case]:
    cases = [Case(p, lambda L, p=p: _attr(p)(L), KINKS.get(p, ())) for p in UNARY]
    for p in BINARY:
        cases += _binary_cases(p)
    return cases + list(EXTRA)


def namespace(lib: str) -> types.SimpleNamespace:
    """The library namespaces a case is written over."""
    if lib == "jax":
        import jax
        import jax.scipy.special
        return types.SimpleNamespace(numpy=jax.numpy, nn=jax.nn, lax=jax.lax,
                                     special=jax.scipy.special, grad=jax.grad, jit=jax.jit,
                                     vmap=jax.vmap)
    import numlir
    import numlir.scipy.special
    return types.SimpleNamespace(numpy=numlir.numpy, nn=numlir.nn, lax=numlir.lax,
                                 special=numlir.scipy.special, grad=numlir.grad,
                                 jit=numlir.jit, vmap=numlir.vmap)


def derivative(L, f, order: int):
    for _ in range(order):
        f = L.grad(f)
    return f


def reference(case: Case, order: int, dtype) -> np.ndarray:
    """JAX's values at the case's points, jitted and vmapped (one compile)."""
    import jax
    J = namespace("jax")
    d = derivative(J, case.make(J), order)
    return np.asarray(jax.jit(jax.vmap(d))(np.asarray(case.points, dtype)))


def reference_op_by_op(case: Case, order: int, dtype, point: float) -> np.ndarray:
    """JAX's values at one point op by op, on the scalar and vmapped: where XLA's compiled
    code and JAX's eager ops disagree with each other (``grad(jnp.max)`` at a NaN scalar:
    0 jitted, NaN eagerly; ``jnp.angle`` of a scalar is float64 under x64, of a vector
    float32), numlir may match any of them."""
    J = namespace("jax")
    d = derivative(J, case.make(J), order)
    answers = []
    for f, x in ((d, np.asarray(point, dtype)), (J.vmap(d), np.asarray([point], dtype))):
        try:
            answers.append(np.asarray(f(x)).reshape(-1)[0])
        except Exception:  # noqa: BLE001 - jax fails on this path (expn(x, 1.5)'' on a scalar)
            answers.append(np.nan)
    return np.asarray(answers, np.float64)


def evaluate(case: Case, order: int, dtype, mode: str) -> np.ndarray:
    """numlir's values at the case's points in one mode."""
    N = namespace("numlir")
    d = derivative(N, case.make(N), order)
    points = np.asarray(case.points, dtype)
    if mode == "vmap":
        return np.asarray(N.vmap(d)(points))
    if mode == "jit":
        d = N.jit(d)
    return np.asarray([np.asarray(d(N.numpy.asarray(p))) for p in points], dtype)


def tolerance(dtype) -> float:
    return 2e-4 if np.dtype(dtype) == np.float32 else 1e-9


def disagreements(got: np.ndarray, want: np.ndarray, dtype) -> np.ndarray:
    """A mask of the points where ``got`` does not match ``want``: NaN and ±inf exactly,
    finite values within a relative tolerance (and an absolute one of a few smallest
    normals, below which a value is rounding noise)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    tiny = 4 * float(np.finfo(dtype).tiny)
    both_finite = np.isfinite(got) & np.isfinite(want)
    with np.errstate(invalid="ignore"):
        close = np.abs(got - want) <= tiny + tolerance(dtype) * np.abs(want)
    same_special = (np.isnan(got) & np.isnan(want)) | (np.isinf(got) & (got == want))
    return ~np.where(both_finite, close, same_special)


@dataclasses.dataclass(frozen=True)
class JaxIsWrong:
    """Points where JAX's answer is mathematically wrong and numlir keeps the right one;
    ``proof`` names the test (in test_special_points.py or test_special_points_proofs.py)
    that shows numlir's value is right by other means (a series in float64, an
    identity)."""
    cases: tuple[str, ...]
    order: int
    points: tuple[float, ...]
    reason: str
    proof: str

    def covers(self, name: str, order: int, point: float) -> bool:
        return name in self.cases and order == self.order and point in self.points


JAX_IS_WRONG = (
    JaxIsWrong(("numpy.sinc",), 1, (1e-30, -1e-30),
               "sinc'(x) = -(pi^2/3) x + O(x^3), about -3.3e-30 at 1e-30; jax's quotient "
               "rule gives -inf (its series is used only at exactly 0)",
               "test_sinc_derivatives_near_zero_follow_the_maclaurin_series"),
    JaxIsWrong(("numpy.sinc",), 2, (1e-30, -1e-30),
               "sinc''(x) = -pi^2/3 + O(x^2); jax gives NaN", 
               "test_sinc_derivatives_near_zero_follow_the_maclaurin_series"),
    JaxIsWrong(("nn.soft_sign",), 1, (1e30, -1e30),
               "soft_sign'(x) = 1/(1 + |x|)^2 = 1e-60 at ±1e30, 0 in float32; jax's quotient "
               "rule rounds x/(1 + |x|)^2 to 0 and leaves 1/(1 + |x|) = 1e-30",
               "test_soft_sign_derivative_at_huge_arguments_is_one_over_x_squared"),
    *(JaxIsWrong(("numpy.divide(x, x)", "numpy.true_divide(x, x)", "lax.div(x, x)"), order,
                 (1e-30, -1e-30, 1e30, -1e30),
                 "x/x is 1 for every finite nonzero x, so its derivatives are 0; jax's "
                 "1/y - x/y^2 squares y into 0 or inf (-inf at 1e-30, 1e-30 at 1e30)",
                 "test_quotients_and_hypot_at_tiny_and_huge_arguments") for order in (1, 2)),
    *(JaxIsWrong(("numpy.divide(0, x)", "numpy.true_divide(0, x)", "lax.div(0, x)"), order,
                 (1e-30, -1e-30),
                 "0/x is 0 for every nonzero x, so its derivatives are 0; jax's 0 * x^-2 "
                 "is 0 * inf = NaN once x^2 underflows",
                 "test_quotients_and_hypot_at_tiny_and_huge_arguments") for order in (1, 2)),
    *(JaxIsWrong(("numpy.hypot(x, 0)", "numpy.hypot(0, x)"), order, (1e-30, -1e-30),
                 "hypot(x, 0) = |x|: derivatives sign(x) and 0; jax's x/hypot(x, 0) with "
                 "its own derivative x^2/hypot^3 underflows into 0/0 = NaN",
                 "test_quotients_and_hypot_at_tiny_and_huge_arguments") for order in (1, 2)),
    *(JaxIsWrong(("numpy.hypot(x, x)",), order, (1e-30, -1e-30, 1e30, -1e30),
                 "hypot(x, x) = sqrt(2)|x|: derivatives ±sqrt(2) and 0; jax squares x into "
                 "0 or inf (-inf at 1e-30, 2.12 at 1e30, NaN for the second)",
                 "test_quotients_and_hypot_at_tiny_and_huge_arguments") for order in (1, 2)),
    JaxIsWrong(("numpy.max", "numpy.amax", "numpy.min", "numpy.amin"), 1, (NAN,),
               "the max of one element is that element, so the derivative is 1; jax's "
               "tie count 1/0 times 0 gives NaN op by op and 0 jitted",
               "test_max_of_one_element_is_the_identity_even_at_nan"),
    JaxIsWrong(("numpy.tanh", "lax.tanh", "nn.tanh"), 2, (1e-30, -1e-30),
               "tanh''(x) = -2x + O(x^3); jax's (1 + y)(1 - y) rounds both factors to 1 "
               "and gives 0",
               "test_tanh_second_derivative_at_tiny_arguments_is_minus_two_x"),
    JaxIsWrong(("numpy.floor_divide(x, 1.5)", "numpy.floor_divide(x, -1.5)",
                "numpy.floor_divide(1.5, x)", "numpy.floor_divide(-1.5, x)"), 0, (INF, -INF),
               "the array API standard's floor(x / y): inf // 1.5 is inf and 1.5 // -inf "
               "is -0; jax keeps Python's divmod (NaN and -1), as the standard allows",
               "test_float_floor_divide_at_infinities_is_the_floor_of_the_quotient"),
    *(JaxIsWrong(*entry) for entry in special_functions.JAX_IS_WRONG),
)


#: Cases whose disagreements with JAX are still open (not JAX's errors): the sweep reports
#: them as warnings, not failures, so that the rest stays a gate. Remove an entry when
#: its fix lands (``make special-points`` then shows whether it still disagrees).
KNOWN_MISMATCHES: dict[str, str] = {}

#: Cases that depend on an argument JAX's custom_jvp marks as non-differentiable, so that
#: JAX's derivative in it is a silent 0: numlir raises NotImplementedError instead, and the
#: sweep checks that it does (their values are compared as usual). name -> (why, proof).
NO_DERIVATIVE: dict[str, tuple[str, str]] = {
    name: ("E_n(x) falls as n grows (d/dn E_n = -int_1^inf log t e^(-x t) t^-n dt < 0); jax's "
           "expn takes n as a non-differentiable argument and gives 0",
           "test_expn_depends_on_its_order_so_its_derivative_there_is_not_zero")
    for name in ("scipy.special.expn(x, x)", "scipy.special.expn(x, 0)",
                 "scipy.special.expn(x, 1.5)", "scipy.special.expn(x, -1.5)")}


def accepted(case: Case, order: int, point: float) -> bool:
    return any(w.covers(case.name, order, point) for w in JAX_IS_WRONG)


def _refusals(case: Case, order: int, dtype, modes) -> list[str]:
    lines = []
    for mode in modes:
        try:
            evaluate(case, order, dtype, mode)
        except NotImplementedError:
            continue
        except Exception as e:  # noqa: BLE001 - reported, not raised
            lines.append(f"{case.name} d{order} {np.dtype(dtype).name} {mode}: "
                         f"{type(e).__name__} (want NotImplementedError)")
            continue
        lines.append(f"{case.name} d{order} {np.dtype(dtype).name} {mode}: a value, "
                     "where numlir should raise NotImplementedError")
    return lines


def sweep_one(case: Case, order: int, dtype, modes=MODES) -> list[str]:
    """Human-readable lines, one per disagreement (or exception) of numlir with JAX."""
    if order and case.name in NO_DERIVATIVE:
        return _refusals(case, order, dtype, modes)
    try:
        want = reference(case, order, dtype)
    except Exception:  # noqa: BLE001 - jax cannot compute it (exp1''), nothing to compare
        return []
    lines = []
    for mode in modes:
        try:
            got = evaluate(case, order, dtype, mode)
        except Exception as e:  # noqa: BLE001 - a failure is reported, not raised
            lines.append(f"{case.name} d{order} {np.dtype(dtype).name} {mode}: "
                         f"{type(e).__name__}: {str(e).splitlines()[0][:150]}")
            continue
        for i in np.flatnonzero(disagreements(got, want, dtype)):
            if accepted(case, order, case.points[i]):
                continue
            alternatives = reference_op_by_op(case, order, dtype, case.points[i])
            if not disagreements(np.full(2, got[i]), alternatives, dtype).all():
                continue
            lines.append(f"{case.name} d{order} {np.dtype(dtype).name} {mode} at "
                         f"{case.points[i]!r}: numlir {got[i]!r}, jax {want[i]!r}")
    return lines


def main(argv=None) -> None:
    import argparse
    import jax
    import numlir
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="names starting with this prefix")
    p.add_argument("--order", type=int, action="append")
    p.add_argument("--dtype", action="append", choices=("float32", "float64"))
    p.add_argument("--mode", action="append", choices=MODES)
    args = p.parse_args(argv)
    jax.config.update("jax_enable_x64", True)
    numlir.config.update("jax_enable_x64", True)
    for dtype in args.dtype or ("float32", "float64"):
        for case in all_cases():
            if not case.name.startswith(args.only):
                continue
            for order in args.order or ORDERS:
                for line in sweep_one(case, order, np.dtype(dtype), args.mode or MODES):
                    print(line, flush=True)


if __name__ == "__main__":
    main()


# --- Ties in reductions and selections ----------------------------------------------

#: Vectors with repeated values (and signed zeros, infinities, NaN) that reductions and
#: selections must split or choose among as JAX does.
TIE_VECTORS = (
    (1.0, 1.0, 0.0, 1.0), (0.0, -0.0, 0.0, -1.0), (2.0, 2.0, 2.0, 2.0),
    (INF, INF, 1.0, -INF), (-INF, -INF, -INF, -INF), (NAN, 1.0, NAN, 1.0), (3.0, -3.0, 3.0, -3.0),
)


def _weighted(f):
    """A scalar function of a vector whose gradient weights each output differently, so
    a gradient sent to the wrong one of equal elements shows."""
    def g(x, L):
        y = f(x, L)
        w = L.numpy.arange(1, y.size + 1, dtype=x.dtype).reshape(y.shape)
        return (y * w).sum()
    return g


#: name -> f(x, L) on a vector x of length 4.
TIE_FUNCTIONS = {
    "max": lambda x, L: L.numpy.max(x),
    "min": lambda x, L: L.numpy.min(x),
    "nanmax": lambda x, L: L.numpy.nanmax(x),
    "ptp": lambda x, L: L.numpy.ptp(x),
    "x[argmax(x)]": lambda x, L: x[L.numpy.argmax(x)],
    "x[argmin(x)]": lambda x, L: x[L.numpy.argmin(x)],
    "sort": _weighted(lambda x, L: L.numpy.sort(x)),
    "x[argsort(x)]": _weighted(lambda x, L: x[L.numpy.argsort(x)]),
    "top_k": _weighted(lambda x, L: L.lax.top_k(x, 3)[0]),
    "median": lambda x, L: L.numpy.median(x),
    "cummax": _weighted(lambda x, L: L.lax.cummax(x)),
    "cummin": _weighted(lambda x, L: L.lax.cummin(x)),
    "max_pool": _weighted(lambda x, L: L.lax.reduce_window(x, -INF, L.lax.max, (2,), (1,),
                                                           "VALID")),
    "maximum(x, x[::-1])": _weighted(lambda x, L: L.numpy.maximum(x, x[::-1])),
    "minimum(x, 1)": _weighted(lambda x, L: L.numpy.minimum(x, 1.0)),
    "clip(x, 0, 2)": _weighted(lambda x, L: L.numpy.clip(x, 0.0, 2.0)),
    "where(x > 0, x, x)": _weighted(lambda x, L: L.numpy.where(x > 0, x, x)),
    "logsumexp": lambda x, L: L.nn.logsumexp(x),
    "softmax": _weighted(lambda x, L: L.nn.softmax(x)),
    "max(x, axis=0, keepdims)": lambda x, L: L.numpy.max(x.reshape(2, 2), axis=0).sum(),
    "amax(where=)": lambda x, L: L.numpy.max(x, where=x < 3.0, initial=-INF),
}


def sweep_ties(name: str, dtype, modes=MODES) -> list[str]:
    """Disagreements of the value and gradient of ``TIE_FUNCTIONS[name]`` over
    ``TIE_VECTORS`` with JAX's (jitted and vmapped over the vectors, with the op-by-op
    fallback)."""
    import jax
    J, N = namespace("jax"), namespace("numlir")
    f = TIE_FUNCTIONS[name]
    xs = np.asarray(TIE_VECTORS, dtype)
    lines = []
    for order in (0, 1):
        def build(L):
            g = lambda x: f(x, L)  # noqa: E731
            return L.grad(g) if order else g
        want = np.asarray(jax.jit(jax.vmap(build(J)))(xs))
        for mode in modes:
            try:
                d = build(N)
                if mode == "vmap":
                    got = np.asarray(N.vmap(d)(xs))
                else:
                    d = N.jit(d) if mode == "jit" else d
                    got = np.stack([np.asarray(d(N.numpy.asarray(x))) for x in xs])
            except Exception as e:  # noqa: BLE001 - reported, not raised
                lines.append(f"ties {name} d{order} {mode}: {type(e).__name__}: "
                             f"{str(e).splitlines()[0][:150]}")
                continue
            for i, x in enumerate(xs):
                bad = disagreements(got[i], want[i], dtype)
                if bad.any() and disagreements(got[i], np.asarray(build(J)(x)), dtype).any():
                    lines.append(f"ties {name} d{order} {np.dtype(dtype).name} {mode} at "
                                 f"{list(x)}: numlir {got[i].tolist()}, jax {want[i].tolist()}")
    return lines

