"""numlir.numpy joining, splitting, padding, reordering and diagonal functions
(concatenate, stack, split, tile, repeat, pad, flip, roll, take, diagonal, tril, ...).

All are compositions of the slicing primitives (numlir._src.lax.slicing) with the
shape and elementwise ones; static arguments (axes, sizes, repeats) are resolved here.
"""

from __future__ import annotations

import builtins
import math
from typing import Any, Sequence

import numpy as np

from numlir._src import core, dtypes, shapes
from numlir._src.array import as_array
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops
from numlir._src.lax import float_math, slicing
from numlir._src.lax import type_checks as tc
from numlir._src.lax import cumulative
from numlir._src.numpy import creation, reductions, ufuncs
from numlir._src.numpy.creation import asarray
from numlir._src.numpy.indexing import _stack_last, getitem
from numlir._src.numpy.util import broadcast_shapes, promote_dtypes


def _asarray(x):
    return asarray(x)


def _shape(x) -> tuple[int, ...]:
    return core.get_aval(x).shape


def _const(value, like):
    aval = core.get_aval(like)
    return ew.convert_element_type(value, aval.dtype, aval.weak_type)


# --- array(): nested sequences with traced values -----------------------------------------


def array_from_nested(obj, dtype=None):
    """``jnp.array`` of a (nested) list/tuple holding traced values: its items stacked."""
    def build(o):
        if isinstance(o, (list, tuple)):
            if not o:
                raise core.value_error("jnp.array: cannot build an array from an empty sequence "
                                       "mixed with traced values")
            return stack([build(v) for v in o])
        return _asarray(o)

    out = build(obj)
    aval = core.get_aval(out)
    return ew.convert_element_type(out, dtypes.canonicalize_dtype(dtype or aval.dtype), False)


# --- joining ---------------------------------------------------------------------------------


def concatenate(arrays: Sequence[Any], axis: int | None = 0, dtype=None):
    """Join arrays along an existing ``axis`` (``None``: flatten them first).

    Example::

        >>> jnp.concatenate([jnp.zeros((1, 2)), jnp.ones((2, 2))]).shape
        (3, 2)
    """
    arrays = [_asarray(a) for a in arrays]
    if not arrays:
        raise core.value_error("need at least one array to concatenate")
    if axis is None:
        arrays = [shape_ops.reshape(a, (core.get_aval(a).size,)) for a in arrays]
        axis = 0
    if builtins.any(not _shape(a) for a in arrays):
        raise core.value_error("Zero-dimensional arrays cannot be concatenated.")
    axis = tc.canonical_axis("concatenate", axis, len(_shape(arrays[0])))
    arrays = promote_dtypes(*arrays) if len(arrays) > 1 else arrays
    if dtype is not None:
        arrays = [ew.convert_element_type(a, dtypes.canonicalize_dtype(dtype)) for a in arrays]
    return slicing.concatenate(arrays, axis)


def stack(arrays: Sequence[Any], axis: int = 0, out=None, dtype=None):
    """Join equally shaped arrays along a new ``axis``."""
    arrays = [_asarray(a) for a in arrays]
    if not arrays:
        raise core.value_error("need at least one array to stack")
    shapes = {_shape(a) for a in arrays}
    if len(shapes) > 1:
        raise core.value_error(f"All input arrays must have the same shape, got "
                               f"{[_shape(a) for a in arrays]}")
    axis = tc.canonical_axis("stack", axis, len(_shape(arrays[0])) + 1)
    return concatenate([shape_ops.expand_dims(a, (axis,)) for a in arrays], axis, dtype)


def atleast_1d(*arys):
    outs = [a if a.ndim >= 1 else shape_ops.reshape(a, (1,)) for a in map(_asarray, arys)]
    return outs[0] if len(outs) == 1 else outs


def atleast_2d(*arys):
    outs = [a if a.ndim >= 2 else shape_ops.reshape(a, (1,) * (2 - a.ndim) + a.shape)
            for a in map(_asarray, arys)]
    return outs[0] if len(outs) == 1 else outs


def atleast_3d(*arys):
    def up(a):
        if a.ndim == 0:
            return shape_ops.reshape(a, (1, 1, 1))
        if a.ndim == 1:
            return shape_ops.reshape(a, (1,) + a.shape + (1,))
        if a.ndim == 2:
            return shape_ops.reshape(a, a.shape + (1,))
        return a

    outs = [up(a) for a in map(_asarray, arys)]
    return outs[0] if len(outs) == 1 else outs


def _as_list(tup, what):
    if not isinstance(tup, (list, tuple)):
        raise core.shape_error(f"{what} requires a sequence of arrays, got {type(tup).__name__}")
    return list(tup)


def hstack(tup, dtype=None):
    """Stack horizontally: along axis 1 (axis 0 for 1-D arrays)."""
    arrs = [atleast_1d(a) for a in _as_list(tup, "hstack")]
    return concatenate(arrs, 0 if arrs and arrs[0].ndim == 1 else 1, dtype)


def vstack(tup, dtype=None):
    """Stack vertically: 1-D arrays become rows, then join along axis 0."""
    return concatenate([atleast_2d(a) for a in _as_list(tup, "vstack")], 0, dtype)


row_stack = vstack


def dstack(tup, dtype=None):
    """Stack along the third axis (arrays are made at least 3-D)."""
    return concatenate([atleast_3d(a) for a in _as_list(tup, "dstack")], 2, dtype)


def column_stack(tup):
    """Stack 1-D arrays as columns (2-D arrays are joined along axis 1)."""
    arrs = []
    for a in map(_asarray, _as_list(tup, "column_stack")):
        arrs.append(shape_ops.reshape(a, (a.size, 1)) if a.ndim < 2 else a)
    return concatenate(arrs, 1)


# --- splitting -------------------------------------------------------------------------------


def _split(name, ary, indices_or_sections, axis, equal):
    ary = _asarray(ary)
    axis = tc.canonical_axis(name, axis, ary.ndim)
    n = ary.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise core.value_error(f"{name}: number sections must be larger than 0")
        if equal and n % k:
            raise core.value_error("array split does not result in an equal division")
        q, r = divmod(n, k)
        bounds = [0]
        for i in range(k):
            bounds.append(bounds[-1] + q + (i < r))
    else:
        cuts = [int(i) for i in np.asarray(indices_or_sections).reshape(-1)]
        bounds = [0] + [builtins.min(builtins.max(c + n if c < 0 else c, 0), n) for c in cuts] + [n]
    return [slicing.slice_in_dim(ary, lo, builtins.max(lo, hi), 1, axis)
            for lo, hi in zip(bounds, bounds[1:])]


def split(ary, indices_or_sections, axis: int = 0):
    """Split into equal sections (an int) or at the given indices along ``axis``."""
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary, indices_or_sections, axis: int = 0):
    """Like ``split``, allowing sections of unequal size (the first ones one longer)."""
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary, indices_or_sections):
    ary = _asarray(ary)
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    ary = _asarray(ary)
    if ary.ndim < 2:
        raise core.value_error("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    ary = _asarray(ary)
    if ary.ndim < 3:
        raise core.value_error("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


# --- tile / repeat -------------------------------------------------------------------------------


def tile(A, reps):
    """Repeat the whole array ``reps`` times along each axis."""
    A = _asarray(A)
    reps = shapes.canonicalize_shape(reps, "tile", "reps")
    nd = builtins.max(len(reps), A.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    shape = (1,) * (nd - A.ndim) + A.shape
    core.check_shape(tuple(r * s for r, s in zip(reps, shape)), "tile", None, A.dtype)
    x = shape_ops.reshape(A, [d for s in shape for d in (1, s)])
    x = shape_ops.broadcast_in_dim(x, [d for r, s in zip(reps, shape) for d in (r, s)],
                                   tuple(range(2 * nd)))
    return shape_ops.reshape(x, [r * s for r, s in zip(reps, shape)])


def _repeat_traced(a, repeats, axis: int, total: int):
    """repeat with traced counts and a static result length: output position p takes element
    ``#{j : ends[j] <= p}``, ends being the running sums of the counts (as in jax, positions
    past the last count repeat the last element)."""
    n = a.shape[axis]
    if not dtypes.is_int(repeats.aval.dtype) or repeats.ndim > 1 or repeats.shape not in ((), (n,)):
        raise core.value_error(f"repeat: traced repeats must be an integer scalar or have one "
                               f"entry per element along axis {axis} ({n}), got "
                               f"{repeats.aval.str_short()}")
    total = shapes.canonicalize_dim(total, "repeat", "total_repeat_length")
    counts = shape_ops.broadcast_in_dim(ew.convert_element_type(repeats, np.int32), (n,),
                                        () if repeats.ndim == 0 else (0,))
    ends = cumulative.cumsum(counts, axis=0)
    marks = creation.zeros((total + 1,), np.int32).at[ends].add(1, mode="drop")
    idx = cumulative.cumsum(marks, axis=0)[:total]
    return take(a, idx, axis=axis, mode="clip")


def repeat(a, repeats, axis: int | None = None, *, total_repeat_length: int | None = None):
    """Repeat each element ``repeats`` times (an int, or an array with one count each; traced
    counts need a static ``total_repeat_length``)."""
    a = _asarray(a)
    if axis is None:
        a, axis = shape_ops.reshape(a, (a.size,)), 0
    axis = tc.canonical_axis("repeat", axis, a.ndim)
    if isinstance(repeats, core.Tracer):
        if total_repeat_length is None:
            raise shapes.traced_value_error(
                "repeat", "repeats", f"<traced {repeats.aval.str_short()}>", repeats,
                "concrete (the result shape depends on it), or total_repeat_length given")
        return _repeat_traced(a, repeats, axis, total_repeat_length)
    reps = np.asarray(core.concrete_to_numpy(repeats) if not isinstance(repeats, (int, list, tuple))
                      else repeats)
    n = a.shape[axis]
    if reps.ndim == 0 or reps.size == 1:
        r = shapes.canonicalize_dim(reps.reshape(()), "repeat", "repeats")
        core.check_shape(a.shape[:axis] + (n * r,) + a.shape[axis + 1:], "repeat", None, a.dtype)
        x = shape_ops.expand_dims(a, (axis + 1,))
        shape = list(_shape(x))
        shape[axis + 1] = r
        x = shape_ops.broadcast_in_dim(x, shape, tuple(range(len(shape))))
        out_shape = list(a.shape)
        out_shape[axis] = n * r
        out = shape_ops.reshape(x, out_shape)
    else:
        if reps.shape != (n,):
            raise core.value_error(f"repeat: repeats of shape {reps.shape} must be a scalar or "
                                   f"have one entry per element along axis {axis} ({n})")
        idx = np.repeat(np.arange(n, dtype=np.int32), reps.astype(np.int64))
        out = take(a, idx, axis=axis, mode="clip")
    if total_repeat_length is not None and _shape(out)[axis] != total_repeat_length:
        length = _shape(out)[axis]
        if length > total_repeat_length:
            out = slicing.slice_in_dim(out, 0, total_repeat_length, 1, axis)
        else:  # as jax: the missing tail repeats the operand's last element
            last = slicing.slice_in_dim(a, n - 1, n, 1, axis)
            shape = list(_shape(last))
            shape[axis] = total_repeat_length - length
            out = concatenate([out, shape_ops.broadcast_in_dim(last, shape, tuple(range(a.ndim)))],
                              axis)
    return out


# --- pad -------------------------------------------------------------------------------------------


def _pairs(name, value, nd):
    v = np.asarray(value if not isinstance(value, core.Tracer) else 0)
    if v.ndim == 0:
        return [(value, value)] * nd
    v = np.broadcast_to(v.reshape(-1, 2) if v.size == 2 else v, (nd, 2))
    return [tuple(row) for row in v]


def _pad_width(pad_width, nd):
    w = np.asarray(pad_width)
    if not np.issubdtype(w.dtype, np.integer):
        raise core.value_error(f"pad: pad_width must be integers, got {pad_width!r}")
    try:
        w = np.broadcast_to(w.reshape(-1, 2) if w.size == 2 else w.reshape(-1, 1) if w.size == 1
                            else w, (nd, 2))
    except ValueError:
        raise core.value_error(f"pad: pad_width {pad_width!r} does not fit an array of rank "
                               f"{nd}") from None
    if (w < 0).any():
        raise core.value_error(f"pad: index can't contain negative values, got {pad_width!r}")
    return [tuple(int(v) for v in row) for row in w]


def _pad_axis_constant(x, axis, before, after, value_before, value_after):
    config = [(0, 0, 0)] * x.ndim
    if value_before is value_after or np.array_equal(np.asarray(value_before), np.asarray(value_after)) \
            and not isinstance(value_before, core.Tracer):
        config[axis] = (before, after, 0)
        return slicing.pad(x, _const_scalar(value_before, x), config)
    config[axis] = (before, 0, 0)
    x = slicing.pad(x, _const_scalar(value_before, x), config)
    config[axis] = (0, after, 0)
    return slicing.pad(x, _const_scalar(value_after, x), config)


def _const_scalar(v, like):
    aval = core.get_aval(like)
    v = as_array(v) if not dtypes.is_python_scalar(v) else v
    if not dtypes.is_python_scalar(v) and core.get_aval(v).shape:
        v = shape_ops.reshape(v, ())
    return ew.convert_element_type(v, aval.dtype, aval.weak_type)


_PAD_KWARGS = {
    "empty": set(), "edge": set(), "wrap": set(), "constant": {"constant_values"},
    "linear_ramp": {"end_values"}, "maximum": {"stat_length"}, "mean": {"stat_length"},
    "median": {"stat_length"}, "minimum": {"stat_length"}, "reflect": {"reflect_type"},
    "symmetric": {"reflect_type"},
}


def pad(array, pad_width, mode: str = "constant", **kwargs):
    """Pad with NumPy's modes: constant (``constant_values``), edge, reflect, symmetric, wrap,
    linear_ramp (``end_values``), empty.

    Example::

        >>> jnp.pad(jnp.array([1, 2]), (1, 2), mode="edge")
        Array([1, 1, 2, 2, 2], dtype=int32)
    """
    x = _asarray(array)
    widths = _pad_width(pad_width, x.ndim)
    allowed = _PAD_KWARGS.get(mode)
    if allowed is not None and set(kwargs) - allowed:
        raise core.value_error(f"pad: unsupported keyword arguments for mode {mode!r}: "
                               f"{set(kwargs) - allowed}")
    if mode in ("constant", "empty"):
        cv = kwargs.get("constant_values", 0)
        if isinstance(cv, core.Tracer) or np.ndim(cv) == 0:
            config = [(b, a, 0) for b, a in widths]
            return slicing.pad(x, _const_scalar(cv, x), config) if x.ndim else x
        for axis, ((b, a), (vb, va)) in enumerate(zip(widths, _pairs("pad", cv, x.ndim))):
            if b or a:
                x = _pad_axis_constant(x, axis, b, a, vb, va)
        return x
    if mode in ("reflect", "symmetric") and kwargs.get("reflect_type", "even") == "odd":
        return _pad_reflect_odd(x, widths, mode)
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        if mode in ("reflect", "symmetric") and kwargs.get("reflect_type", "even") != "even":
            raise core.value_error(f"pad: reflect_type must be 'even' or 'odd', got "
                                   f"{kwargs.get('reflect_type')!r}")
        for axis, (b, a) in enumerate(widths):
            if not (b or a):
                continue
            n = x.shape[axis]
            if n == 0:
                raise core.value_error(f"pad: can't extend empty axis {axis} using modes other "
                                       f"than 'constant' or 'empty'")
            idx = np.pad(np.arange(n, dtype=np.int32), (b, a), mode=mode)
            x = take(x, idx, axis=axis, mode="clip")
        return x
    if mode == "linear_ramp":
        ends = _pairs("pad", kwargs.get("end_values", 0), x.ndim)
        for axis, ((b, a), (eb, ea)) in enumerate(zip(widths, ends)):
            n = x.shape[axis]
            parts = []
            if b:
                edge = slicing.slice_in_dim(x, 0, 1, 1, axis)
                parts.append(_ramp(edge, eb, b, axis, reverse=False))
            parts.append(x)
            if a:
                edge = slicing.slice_in_dim(x, n - 1, n, 1, axis)
                parts.append(_ramp(edge, ea, a, axis, reverse=True))
            x = concatenate(parts, axis)
        return x
    if mode in ("maximum", "minimum", "mean", "median"):
        return _pad_stats(x, widths, kwargs.get("stat_length", None), mode)
    raise core.value_error(f"pad: unimplemented padding mode {mode!r}")


def _pad_reflect_odd(x, widths, mode):
    """``reflect``/``symmetric`` padding with ``reflect_type='odd'``: the reflected values are
    mirrored about the edge value (``2 * edge - v``), repeating for pads longer than the axis."""
    for axis, (b, a) in enumerate(widths):
        n = x.shape[axis]
        if not (b or a):
            continue
        if n == 0:
            raise core.value_error(f"pad: can't extend empty axis {axis} using modes other "
                                   f"than 'constant' or 'empty'")
        offset = 1 if (mode == "reflect" and n > 1) else 0
        for before, padding in ((True, b), (False, a)):
            size = x.shape[axis]
            edge = (slicing.slice_in_dim(x, 0, 1, 1, axis) if before
                    else slicing.slice_in_dim(x, size - 1, size, 1, axis))
            while padding > 0:
                size = x.shape[axis]
                cur = builtins.min(padding, n - offset)
                padding -= cur
                if before:
                    start, stop = offset, offset + cur
                else:
                    start = size - (cur + offset)
                    stop = size if (mode == "symmetric" or n == 1) else size - 1
                piece = flip(slicing.slice_in_dim(x, start, stop, 1, axis), axis)
                piece = ew.sub(ew.mul(_const(2, edge), edge), piece)
                if n > 1:
                    m = piece.shape[axis]
                    edge = (slicing.slice_in_dim(piece, 0, 1, 1, axis) if before
                            else slicing.slice_in_dim(piece, m - 1, m, 1, axis))
                x = concatenate([piece, x] if before else [x, piece], axis)
    return x


def _pad_stats(x, widths, stat_length, mode):
    """``maximum``/``minimum``/``mean``/``median`` padding: each side is filled with the
    statistic of the first/last ``stat_length`` entries (the whole axis if ``None``); integer
    results are rounded half-to-even, as jax does."""
    from numlir._src.numpy.sorting import median  # sorting.py builds on this module

    funcs = {"maximum": reductions.max, "minimum": reductions.min, "mean": reductions.mean,
             "median": median}
    func = funcs[mode]
    aval = core.get_aval(x)
    lengths = None if stat_length is None else _pairs("pad", stat_length, x.ndim)
    for axis, (b, a) in enumerate(widths):
        n = x.shape[axis]
        if lengths is not None:
            lb, la = (int(v) for v in lengths[axis])
            if lb < 0 or la < 0:
                raise core.value_error("pad: index can't contain negative values")
            if lb == 0 or la == 0:
                raise core.value_error("pad: stat_length of 0 yields no value for padding")
        if lengths is None:
            stat_b = stat_a = func(x, axis=axis, keepdims=True)
        else:
            lb, la = builtins.min(lb, n), builtins.min(la, n)
            stat_b = func(slicing.slice_in_dim(x, 0, lb, 1, axis), axis=axis, keepdims=True)
            stat_a = func(slicing.slice_in_dim(x, n - la, n, 1, axis), axis=axis, keepdims=True)
        if np.issubdtype(aval.dtype, np.integer):
            stat_b, stat_a = ufuncs.round(stat_b), ufuncs.round(stat_a)
        stat_b = ew.convert_element_type(stat_b, aval.dtype, aval.weak_type)
        stat_a = ew.convert_element_type(stat_a, aval.dtype, aval.weak_type)
        parts = []
        if b:
            parts.append(repeat(stat_b, b, axis=axis))
        parts.append(x)
        if a:
            parts.append(repeat(stat_a, a, axis=axis))
        if len(parts) > 1:
            x = concatenate(parts, axis)
    return x


def _ramp(edge, end, count, axis, reverse):
    """``count`` values going linearly from ``end`` to (excluding) ``edge`` along ``axis``."""
    aval = core.get_aval(edge)
    ftype = dtypes.to_inexact_dtype(aval.dtype)
    w = np.arange(count, dtype=np.float64) / count
    if reverse:
        w = w[::-1]
    shape = [1] * aval.ndim
    shape[axis] = count
    w = as_array(w.astype(ftype).reshape(shape))
    e = ew.convert_element_type(edge, ftype)
    end = ew.convert_element_type(end, ftype)
    out_shape = list(aval.shape)
    out_shape[axis] = count
    e = shape_ops.broadcast_in_dim(e, out_shape, tuple(range(aval.ndim)))
    w = shape_ops.broadcast_in_dim(w, out_shape, tuple(range(aval.ndim)))
    out = ew.add(end, ew.mul(ew.sub(e, end), w))
    if not dtypes.is_inexact(aval.dtype):
        out = float_math.round(out, 1)
    return ew.convert_element_type(out, aval.dtype, aval.weak_type)


# --- reordering ------------------------------------------------------------------------------------


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes if ``None``)."""
    m = _asarray(m)
    return slicing.rev(m, tc.canonical_axes("flip", axis, m.ndim))


def fliplr(m):
    m = _asarray(m)
    if m.ndim < 2:
        raise core.value_error("fliplr: input must be at least 2-D")
    return flip(m, 1)


def flipud(m):
    m = _asarray(m)
    if m.ndim < 1:
        raise core.value_error("flipud: input must be at least 1-D")
    return flip(m, 0)


def roll(a, shift, axis=None):
    """Shift elements cyclically by ``shift`` along ``axis`` (flattened if ``None``); ``shift``
    and ``axis`` may be tuples, and ``shift`` may be traced."""
    a = _asarray(a)
    if axis is None:
        return shape_ops.reshape(roll(shape_ops.reshape(a, (a.size,)), shift, 0), a.shape)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    shifts = (shift,) if not isinstance(shift, (tuple, list)) else tuple(shift)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    elif len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise core.value_error(f"roll: shift {shift} and axis {axis} must have the same length")
    for s, ax in zip(shifts, axes):
        ax = tc.canonical_axis("roll", ax, a.ndim)
        n = a.shape[ax]
        if n == 0:
            continue
        if isinstance(s, core.Tracer):
            s = ew.convert_element_type(s, dtypes.default_int_dtype())
            nn = ew.convert_element_type(n, dtypes.default_int_dtype())
            r = ew.rem(s, nn)
            r = ew.select(ew.lt(r, ew.convert_element_type(0, r.dtype)), ew.add(r, nn), r)
            start = ew.sub(nn, r)  # in [1, n]
            a = slicing.dynamic_slice_in_dim(concatenate([a, a], ax), start, n, ax)
            continue
        s = int(s) % n
        if s:
            a = concatenate([slicing.slice_in_dim(a, n - s, n, 1, ax),
                             slicing.slice_in_dim(a, 0, n - s, 1, ax)], ax)
    return a


def rot90(m, k: int = 1, axes: tuple[int, int] = (0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes`` (from the first towards the
    second)."""
    m = _asarray(m)
    if len(axes) != 2:
        raise core.value_error("rot90: len(axes) must be 2")
    a0, a1 = (tc.canonical_axis("rot90", ax, m.ndim) for ax in axes)
    if a0 == a1:
        raise core.value_error("rot90: axes must be different")
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    k = int(k) % 4
    if k == 0:
        return m
    if k == 2:
        return slicing.rev(m, (a0, a1))
    if k == 1:
        return shape_ops.transpose(slicing.rev(m, (a1,)), perm)
    return slicing.rev(shape_ops.transpose(m, perm), (a1,))


# --- take --------------------------------------------------------------------------------------------


def _index_array(indices):
    idx = as_array(indices if not isinstance(indices, (list, tuple)) else np.asarray(indices))
    aval = core.get_aval(idx)
    if not dtypes.is_int(aval.dtype):
        if aval.size == 0:
            return ew.convert_element_type(idx, np.int32)
        raise core.shape_error(f"take: indices must be integers, got {aval.dtype.name}")
    return idx


def _normalize_mode(name, idx, n, mode):
    """(indices, GatherScatterMode) for jnp's take modes: fill (default), clip, wrap."""
    aval = core.get_aval(idx)
    if mode is None or mode == "fill":
        if dtypes.is_signed_int(aval.dtype):
            idx = ew.select(ew.lt(idx, _const(0, idx)), ew.add(idx, _const(n, idx)), idx)
        return idx, slicing.GatherScatterMode.FILL_OR_DROP
    if mode == "wrap":
        nn = _const(builtins.max(n, 1), idx)
        r = ew.rem(idx, nn)
        if dtypes.is_signed_int(aval.dtype):
            r = ew.select(ew.lt(r, _const(0, r)), ew.add(r, nn), r)
        return r, slicing.GatherScatterMode.PROMISE_IN_BOUNDS
    if mode == "clip":
        return idx, slicing.GatherScatterMode.CLIP
    if mode == "promise_in_bounds":
        return idx, slicing.GatherScatterMode.PROMISE_IN_BOUNDS
    if mode == "raise":
        raise NotImplementedError(f"{name}: the 'raise' mode is not supported")
    raise core.value_error(f"{name}: invalid mode {mode!r}")


def take(a, indices, axis: int | None = None, out=None, mode=None, unique_indices: bool = False,
         indices_are_sorted: bool = False, fill_value=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (flattened ``a`` if ``None``).
    Out-of-bounds indices give ``fill_value`` (NaN for floats) by default; ``mode="clip"``
    clamps, ``mode="wrap"`` wraps.

    Example::

        >>> jnp.take(jnp.array([10, 20, 30]), jnp.array([2, 0]))
        Array([30, 10], dtype=int32)
    """
    a = _asarray(a)
    if axis is None:
        a, axis = shape_ops.reshape(a, (a.size,)), 0
    axis = tc.canonical_axis("take", axis, a.ndim)
    idx = _index_array(indices)
    n = a.shape[axis]
    iaval = core.get_aval(idx)
    out_shape = a.shape[:axis] + iaval.shape + a.shape[axis + 1:]
    if n == 0:
        if iaval.size and mode == "clip":
            raise core.value_error("take: cannot do a non-empty take from an empty axis")
        fill = slicing._default_fill(a.dtype) if fill_value is None else fill_value
        return shape_ops.full(out_shape, ew.convert_element_type(fill, a.dtype, a.weak_type))
    idx, gmode = _normalize_mode("take", idx, n, mode)
    idx = shape_ops.reshape(idx, iaval.shape + (1,))
    offset_dims = tuple(range(axis)) + tuple(range(axis + iaval.ndim, len(out_shape)))
    dnums = slicing.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=(axis,),
                                           start_index_map=(axis,))
    sizes = list(a.shape)
    sizes[axis] = 1
    return slicing.gather(a, idx, dnums, sizes, mode=gmode, fill_value=fill_value)


def take_along_axis(arr, indices, axis: int | None, mode=None, fill_value=None):
    """``arr`` indexed by ``indices`` along ``axis``, matching the other axes positionally
    (sizes broadcast). Out-of-bounds indices give ``fill_value`` by default."""
    arr = _asarray(arr)
    idx = _index_array(indices)
    if axis is None:
        arr, axis = shape_ops.reshape(arr, (arr.size,)), 0
        if core.get_aval(idx).ndim != 1:
            raise core.value_error("take_along_axis: indices must be 1-D when axis is None")
    iaval = core.get_aval(idx)
    if iaval.ndim != arr.ndim:
        raise core.value_error(f"take_along_axis: indices and arr must have the same number of "
                               f"dimensions; {iaval.ndim} vs. {arr.ndim}")
    axis = tc.canonical_axis("take_along_axis", axis, arr.ndim)
    shape = broadcast_shapes("take_along_axis",
                             tuple(1 if d == axis else s for d, s in enumerate(arr.shape)),
                             tuple(1 if d == axis else s for d, s in enumerate(iaval.shape)))
    shape = tuple(iaval.shape[d] if d == axis else s for d, s in enumerate(shape))
    n = arr.shape[axis]
    if n == 0 or math.prod(shape) == 0:
        fill = slicing._default_fill(arr.dtype) if fill_value is None or n else fill_value
        value = 0 if math.prod(shape) == 0 else fill
        return shape_ops.full(shape, ew.convert_element_type(value, arr.dtype, arr.weak_type))
    idx, gmode = _normalize_mode("take_along_axis", idx, n, mode)
    idt = core.get_aval(idx).dtype
    comps = []
    for d in range(arr.ndim):
        if d == axis:
            comps.append(shape_ops.broadcast_to_rank(idx, shape))
        elif arr.shape[d] == 1:
            comps.append(shape_ops.full(shape, ew.convert_element_type(0, idt)))
        else:
            comps.append(shape_ops.broadcasted_iota(idt, shape, d))
    dnums = slicing.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=tuple(range(arr.ndim)),
                                           start_index_map=tuple(range(arr.ndim)))
    return slicing.gather(arr, _stack_last(comps, shape), dnums, (1,) * arr.ndim, mode=gmode,
                          fill_value=fill_value)


# --- diagonals and triangles -------------------------------------------------------------------------


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The ``offset`` diagonal of the planes given by ``axis1``/``axis2`` (as the last axis)."""
    a = _asarray(a)
    if a.ndim < 2:
        raise core.value_error("diagonal requires an array of at least two dimensions")
    a1, a2 = tc.canonical_axis("diagonal", axis1, a.ndim), tc.canonical_axis("diagonal", axis2, a.ndim)
    if a1 == a2:
        raise core.value_error("diagonal: axis1 and axis2 cannot be the same")
    perm = [d for d in range(a.ndim) if d not in (a1, a2)] + [a1, a2]
    x = shape_ops.transpose(a, perm)
    n, m = x.shape[-2:]
    offset = int(offset)
    length = builtins.max(0, builtins.min(n + builtins.min(offset, 0), m - builtins.max(offset, 0)))
    rows = np.arange(length, dtype=np.int32) + builtins.max(-offset, 0)
    cols = np.arange(length, dtype=np.int32) + builtins.max(offset, 0)
    if length == 0:
        return shape_ops.full(x.shape[:-2] + (0,), ew.convert_element_type(0, a.dtype, a.weak_type))
    return getitem(x, (Ellipsis, rows, cols))


def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
    """Sum of the ``offset`` diagonal (see ``diagonal``)."""
    return reductions.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def diag(v, k: int = 0):
    """The ``k``-th diagonal of a 2-D array, or a 2-D array with 1-D ``v`` on its ``k``-th
    diagonal."""
    v = _asarray(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise core.value_error("diag: input must be 1-D or 2-D")
    k = int(k)
    n = v.shape[0] + builtins.abs(k)
    vp = slicing.pad(v, _const(0, v), [(0, builtins.abs(k), 0)])
    vals = shape_ops.broadcast_in_dim(vp, (n, n), (0,) if k >= 0 else (1,))
    return ew.select(_tri_mask(n, n, k, upper_diag=True), vals,
                     shape_ops.full((n, n), _const(0, v)))


def _tri_mask(n, m, k, upper_diag=False):
    """bool[n, m]: ``j <= i + k`` (or ``j == i + k`` if ``upper_diag``)."""
    i = shape_ops.broadcasted_iota(np.int32, (n, m), 0)
    j = shape_ops.broadcasted_iota(np.int32, (n, m), 1)
    ik = ew.add(i, ew.convert_element_type(int(k), np.int32)) if k else i
    return ew.eq(j, ik) if upper_diag else ew.le(j, ik)


def tri(N: int, M: int | None = None, k: int = 0, dtype=None):
    """An ``N x M`` array with ones at and below the ``k``-th diagonal (float32 unless
    ``dtype`` says otherwise, with or without x64, as jax's)."""
    M = N if M is None else M
    dtype = dtypes.canonicalize_dtype(dtype or np.float32)
    return ew.convert_element_type(_tri_mask(int(N), int(M), k), dtype)


def _triangle(name, m, k, lower):
    m = _asarray(m)
    if m.ndim < 2:
        raise core.value_error(f"{name}: input array must be at least 2-dimensional")
    n, c = m.shape[-2:]
    mask = _tri_mask(n, c, k if lower else k - 1)
    if not lower:
        mask = ew.bitwise_not(mask)
    mask = shape_ops.broadcast_to_rank(mask, m.shape)
    return ew.select(mask, m, shape_ops.full(m.shape, _const(0, m)))


def tril(m, k: int = 0):
    """``m`` with the elements above the ``k``-th diagonal (of the last two axes) zeroed."""
    return _triangle("tril", m, k, True)


def triu(m, k: int = 0):
    """``m`` with the elements below the ``k``-th diagonal (of the last two axes) zeroed."""
    return _triangle("triu", m, k, False)
