"""Comparing numlir's results with jax's: tolerances per dtype, and a verdict.

A float leaf passes when, elementwise,
``|got - want| <= rtol * |want| + rtol * max(scale, floor)`` with ``scale``
the largest finite ``|want|`` of the leaf: cancellation in a sum leaves some
elements tiny next to their neighbours, and those are judged on the leaf's
magnitude (and a leaf that is tiny throughout, on the dtype's floor). Elements above
``SCALE_CAP`` (the huge values of special-value programs) are judged relatively only and do not
set the scale. NaN and inf must agree in place (and sign of inf), in every program. Integers
and bools must agree exactly. Shapes and dtypes must agree exactly.

``rtol`` is the one of the least precise float dtype the program touches: a
float32 program that passes through bfloat16 has bfloat16 accuracy.

A complex leaf is judged the same way on the modulus: ``|got - want|`` against
``rtol * |want| + rtol * max(scale, floor)``, with ``scale`` the largest finite
``|want|`` and ``rtol`` that of its parts' dtype (complex64: float32's); NaN and
inf must agree in place (and sign) in each part, and a part that is not finite
(in both) drops out of the modulus.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .program import COMPLEX_PARTS

#: Relative tolerance per dtype (also the atol factor on the leaf's scale).
RTOL = {"float64": 1e-9, "float32": 1e-4, "float16": 1e-2, "bfloat16": 5e-2}
#: Relative size of the input perturbation used to tell bugs from ill-conditioning.
PERTURBATION = {"float64": 3e-12, "float32": 3e-6, "float16": 1e-3, "bfloat16": 8e-3}
#: A floor for the scale per dtype, so a reference that is zero (or tiny) by cancellation
#: does not demand exact zeros: ``rtol * floor`` is about one unit in the last place of
#: 1.0, the noise a cancellation among terms of the inputs' size leaves. (16-bit floats
#: round each op; XLA keeps fused intermediates in f32, so where jax's cancellation is
#: exact numlir's can leave a few ulps.)
SCALE_FLOOR = {"float64": 1e-3, "float32": 1e-3, "float16": 0.1, "bfloat16": 0.15}
_PRECISION_ORDER = ("bfloat16", "float16", "float32", "float64")
#: How many times jax's own error numlir's may have where the float64 result is zero by
#: cancellation (elsewhere: 2). Summing n terms in another order moves the noise by a
#: factor of a few: program 31399 of seed 1, a gradient summed over 160 broadcast
#: elements, gave jax 2.1e-7 and numlir 6.9e-7 for an exact 0.
CANCELLATION_NOISE_FACTOR = 4.0
#: Elements larger than this are judged relative to themselves only, and leave the leaf's
#: scale to the others: a special-value program's leaf may hold 1e30 next to 1.5, and
#: ``rtol * 1e30`` would excuse any error in the 1.5 (a cancellation among huge terms that
#: leaves a small residue is order-dependent; the perturbation that tells ill-conditioning
#: moves it). The generator's regular values never come near it.
SCALE_CAP = 1e12


def part_dtype(name: str) -> str:
    """The float dtype of a complex dtype's parts; any other dtype itself."""
    return COMPLEX_PARTS.get(name, name)


def scale_floor(rtol: float) -> float:
    """The scale floor of the dtype whose tolerance ``rtol`` is (float32's for any other)."""
    for name, value in RTOL.items():
        if value == rtol:
            return SCALE_FLOOR[name]
    return SCALE_FLOOR["float32"]


def has_narrow_floats(dtypes) -> bool:
    """Whether some float or complex dtype among ``dtypes`` is narrower than float64 (a
    float64 reference then says how much of a difference is rounding)."""
    return any(part_dtype(d) in RTOL and part_dtype(d) != "float64" for d in dtypes)


def program_rtol(dtypes) -> float:
    """The tolerance of the least precise float dtype among ``dtypes`` (exact if none); a
    complex dtype counts as the dtype of its parts."""
    dtypes = {part_dtype(d) for d in dtypes}
    for name in _PRECISION_ORDER:
        if name in dtypes:
            return RTOL[name]
    return 0.0


@dataclasses.dataclass
class Verdict:
    ok: bool
    kind: str = ""      # "count", "shape", "dtype", "value", "nonfinite" when not ok
    detail: str = ""


def to_numpy(leaf) -> np.ndarray:
    return np.asarray(leaf)


def _is_inexact(a: np.ndarray) -> bool:
    return a.dtype.kind in "fc" or a.dtype.name == "bfloat16"


def _parts(a: np.ndarray) -> list[np.ndarray]:
    """A float or complex array as its parts in float64: one for a float, two for a complex."""
    if a.dtype.kind == "c":
        return [a.real.astype(np.float64), a.imag.astype(np.float64)]
    return [a.astype(np.float64)]


def _modulus(parts: list[np.ndarray], finite: list[np.ndarray]) -> np.ndarray:
    """``|a|`` from its parts, leaving out the parts that are not finite."""
    kept = [np.where(f, p, 0.0) for p, f in zip(parts, finite)]
    return np.hypot(*kept) if len(kept) > 1 else np.abs(kept[0])  # hypot: no overflow at 1e300


def _distance(g_parts, w_parts, finite) -> np.ndarray:
    """``|g - w|`` over the parts that are finite (in ``w``, and so, checked before, in ``g``)."""
    with np.errstate(invalid="ignore"):  # inf - inf where a part is not finite: left out
        return _modulus([g - w for g, w in zip(g_parts, w_parts)], finite)


def nonfinite_mismatch(g: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Where ``g`` and ``w`` (float arrays) disagree on NaN, on inf, or on an infinity's sign."""
    g_inf, w_inf = np.isinf(g), np.isinf(w)
    return ((np.isnan(g) != np.isnan(w)) | (g_inf != w_inf)
            | (g_inf & w_inf & (np.sign(g) != np.sign(w))))


def leaf_scale(magnitude: np.ndarray, finite: np.ndarray) -> float:
    """The leaf's scale: its largest finite magnitude up to ``SCALE_CAP``."""
    regular = finite & (magnitude <= SCALE_CAP)
    return float(np.max(magnitude[regular])) if regular.any() else 0.0


def _show(parts, idx) -> str:
    if len(parts) == 1:
        return f"{parts[0][idx]:.8g}"
    return f"{complex(parts[0][idx], parts[1][idx]):.8g}"


def compare(got: list[np.ndarray], want: list[np.ndarray], rtol: float) -> Verdict:
    if len(got) != len(want):
        return Verdict(False, "count", f"{len(got)} results, jax gives {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        where = f"result {i}"
        if g.shape != w.shape:
            return Verdict(False, "shape", f"{where}: shape {g.shape}, jax gives {w.shape}")
        if g.dtype != w.dtype:
            return Verdict(False, "dtype", f"{where}: dtype {g.dtype}, jax gives {w.dtype}")
        if g.size == 0:
            continue
        if not _is_inexact(w):
            bad = g != w
            if bad.any():
                idx = tuple(int(k) for k in np.argwhere(bad)[0])
                return Verdict(False, "value", f"{where}: {int(bad.sum())}/{w.size} elements differ, "
                                               f"first at {idx}: {g[idx]!r} vs jax {w[idx]!r}")
            continue
        gp, wp = _parts(g), _parts(w)
        for gf, wf in zip(gp, wp):  # NaN and inf in the same places, per part
            bad = nonfinite_mismatch(gf, wf)
            if bad.any():
                idx = tuple(int(k) for k in np.argwhere(bad)[0])
                return Verdict(False, "nonfinite",
                               f"{where}: {int(bad.sum())}/{w.size} non-finite values "
                               f"disagree, first at {idx}: {_show(gp, idx)} vs jax "
                               f"{_show(wp, idx)}")
        finite_parts = [np.isfinite(wf) for wf in wp]
        finite = np.logical_and.reduce(finite_parts)
        magnitude = _modulus(wp, finite_parts)
        scale = leaf_scale(magnitude, finite)
        err = _distance(gp, wp, finite_parts)
        allowed = rtol * magnitude + rtol * max(scale, scale_floor(rtol))
        bad = err > np.where(np.logical_or.reduce(finite_parts), allowed, np.inf)
        if bad.any():
            k = np.unravel_index(int(np.argmax(np.where(bad, err / allowed, 0.0))), w.shape)
            idx = tuple(int(j) for j in k)
            return Verdict(False, "value",
                           f"{where}: {int(bad.sum())}/{w.size} elements off, worst at {idx}: "
                           f"{_show(gp, idx)} vs jax {_show(wp, idx)} (|err| {err[idx]:.3g}, "
                           f"allowed {allowed[idx]:.3g}, rtol {rtol:g})")
    return Verdict(True)


def within_reference_error(got: list[np.ndarray], want: list[np.ndarray], truth: list[np.ndarray],
                           rtol: float) -> bool:
    """Whether ``got`` is about as close to ``truth`` (the float64 result) as jax's ``want`` is.

    A low-precision program's result carries its rounding errors, which depend
    on the order of operations: numlir's and jax's may differ by more than
    ``rtol`` while both are equally good approximations of the exact answer."""
    if len(truth) != len(got):
        return False
    for g, w, t in zip(got, want, truth):
        if t.shape != g.shape:
            return False
        if not _is_inexact(w):
            # An exact leaf (an integer or bool made from floats) agrees where it is jax's or
            # the float64 program's: jax's float32 rounding can flip it (seed 134, program
            # 22545: bool(lgamma(1.0)) is True on jax, whose float32 lgamma(1) is 4.8e-7,
            # and False on numlir and in truth).
            if g.shape != w.shape or not ((g == w) | (g == t)).all():
                return False
            continue
        gp, wp, tp = _parts(g), _parts(w), _parts(t)
        if len(tp) != len(gp) or any(nonfinite_mismatch(gf, tf).any() for gf, tf in zip(gp, tp)):
            return False  # NaN and inf exactly where the float64 result has them
        finite_parts = [np.isfinite(tf) for tf in tp]
        finite = np.logical_or.reduce(finite_parts)
        magnitude = _modulus(tp, finite_parts)
        whole = np.logical_and.reduce(finite_parts)
        scale = leaf_scale(magnitude, whole)
        ref_err = np.where(finite, _distance(wp, tp, finite_parts), 0.0)
        # Where jax's result is not finite and the float64 one is (jax's float32 overflowed,
        # or made a NaN), jax's error says nothing about rounding: numlir must then be within
        # the plain tolerance of the float64 result, not within "twice jax's error", which is
        # infinite.
        ref_err = np.where(np.isfinite(ref_err), ref_err, 0.0)
        # Where the exact result is zero by cancellation, both results are pure rounding
        # noise, whose size depends on the order of the sum: jax's is one sample of it,
        # and its largest over the leaf's cancelled elements is the scale of that noise
        # (jax may round to exactly 0 where numlir does not, and the other way round).
        cancelled = magnitude <= rtol * scale_floor(rtol)
        noise = float(np.max(ref_err[cancelled & finite], initial=0.0))
        allowed = (np.where(cancelled, CANCELLATION_NOISE_FACTOR * np.maximum(ref_err, noise),
                            2.0 * ref_err)
                   + rtol * (magnitude + max(scale, scale_floor(rtol))))
        if (np.where(finite, _distance(gp, tp, finite_parts), 0.0) > allowed).any():
            return False
    return True
