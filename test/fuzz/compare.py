"""Comparing numlir's results with jax's: tolerances per dtype, and a verdict.

A float leaf passes when, elementwise,
``|got - want| <= rtol * |want| + rtol * max(scale, floor)`` with ``scale``
the largest finite ``|want|`` of the leaf: cancellation in a sum leaves some
elements tiny next to their neighbours, and those are judged on the leaf's
magnitude (and a leaf that is tiny throughout, on the dtype's floor). NaN and inf must agree in place (and sign). Integers and bools must
agree exactly. Shapes and dtypes must agree exactly.

``rtol`` is the one of the least precise float dtype the program touches: a
float32 program that passes through bfloat16 has bfloat16 accuracy.
"""

from __future__ import annotations

import dataclasses

import numpy as np

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


def scale_floor(rtol: float) -> float:
    """The scale floor of the dtype whose tolerance ``rtol`` is (float32's for any other)."""
    for name, value in RTOL.items():
        if value == rtol:
            return SCALE_FLOOR[name]
    return SCALE_FLOOR["float32"]


def program_rtol(dtypes) -> float:
    """The tolerance of the least precise float dtype among ``dtypes`` (exact if none)."""
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


def _as_float(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float64) if a.dtype.kind == "f" or a.dtype.name == "bfloat16" else a


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
        is_float = w.dtype.kind == "f" or w.dtype.name in ("bfloat16",)
        if not is_float:
            bad = g != w
            if bad.any():
                idx = tuple(int(k) for k in np.argwhere(bad)[0])
                return Verdict(False, "value", f"{where}: {int(bad.sum())}/{w.size} elements differ, "
                                               f"first at {idx}: {g[idx]!r} vs jax {w[idx]!r}")
            continue
        gf, wf = _as_float(g), _as_float(w)
        g_nan, w_nan = np.isnan(gf), np.isnan(wf)
        g_inf, w_inf = np.isinf(gf), np.isinf(wf)
        if (g_nan != w_nan).any() or (g_inf != w_inf).any() or (np.sign(gf[w_inf]) != np.sign(wf[w_inf])).any():
            bad = (g_nan != w_nan) | (g_inf != w_inf)
            idx = tuple(int(k) for k in np.argwhere(bad)[0]) if bad.any() else ()
            return Verdict(False, "nonfinite", f"{where}: non-finite values disagree, first at {idx}: "
                                               f"{gf[idx] if idx else ''} vs jax {wf[idx] if idx else ''}")
        finite = np.isfinite(wf)
        scale = float(np.max(np.abs(wf[finite]))) if finite.any() else 0.0
        err = np.where(finite, np.abs(gf - wf), 0.0)
        allowed = rtol * np.abs(wf) + rtol * max(scale, scale_floor(rtol))
        bad = err > np.where(finite, allowed, np.inf)
        if bad.any():
            k = np.unravel_index(int(np.argmax(np.where(bad, err / allowed, 0.0))), w.shape)
            idx = tuple(int(j) for j in k)
            return Verdict(False, "value",
                           f"{where}: {int(bad.sum())}/{w.size} elements off, worst at {idx}: "
                           f"{gf[idx]:.8g} vs jax {wf[idx]:.8g} (|err| {err[idx]:.3g}, "
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
        is_float = w.dtype.kind == "f" or w.dtype.name == "bfloat16"
        if not is_float:
            if not np.array_equal(g, w):
                return False
            continue
        gf, wf, tf = _as_float(g), _as_float(w), t.astype(np.float64)
        if (np.isfinite(gf) != np.isfinite(tf)).any():
            return False
        finite = np.isfinite(tf)
        scale = float(np.max(np.abs(tf[finite]))) if finite.any() else 0.0
        ref_err = np.where(finite, np.abs(wf - tf), 0.0)
        # Where the exact result is zero by cancellation, both results are pure rounding
        # noise, whose size depends on the order of the sum: jax's is one sample of it,
        # and its largest over the leaf's cancelled elements is the scale of that noise
        # (jax may round to exactly 0 where numlir does not, and the other way round).
        cancelled = np.abs(tf) <= rtol * scale_floor(rtol)
        ref_err = np.nan_to_num(ref_err, nan=np.inf)
        noise = float(np.max(ref_err[cancelled & finite], initial=0.0))
        allowed = (np.where(cancelled, CANCELLATION_NOISE_FACTOR * np.maximum(ref_err, noise),
                            2.0 * ref_err)
                   + rtol * (np.abs(tf) + max(scale, scale_floor(rtol))))
        if (np.where(finite, np.abs(gf - tf), 0.0) > allowed).any():
            return False
    return True
