"""Index arithmetic and reshaping helpers: ix_, ravel_multi_index, unravel_index, resize,
block, choose, piecewise, gradient, unwrap, histogram_bin_edges and histogram."""

from __future__ import annotations

import operator

import numpy as np

from numlir._src import core, dtypes
from numlir._src.numpy import (creation, cumulative, joining, linalg_ops, reductions, reshaping, sorting,
                               ufuncs)
from numlir._src.numpy.statistics import diff
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_dtypes_inexact


def ix_(*args):
    """Open meshes for indexing: the i-th 1-D argument shaped to broadcast along axis i."""
    check_arraylike("ix_", *args)
    out = []
    for i, a in enumerate(args):
        a = creation.asarray(a)
        if a.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {a.shape}")
        shape = [1] * len(args)
        shape[i] = a.shape[0]
        out.append(reshaping.reshape(a, shape))
    return tuple(out)


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C", *, dtype=None):
    """Flat indices of the coordinate arrays ``multi_index`` into an array of shape ``dims``.

    ``mode`` "wrap" and "clip" fold out-of-range coordinates; "raise" checks concrete ones."""
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    dims = tuple(operator.index(d) for d in dims)
    check_arraylike("ravel_multi_index", *multi_index)
    coords = [creation.asarray(i) for i in multi_index]
    for c in coords:
        if not dtypes.is_int(dtype_of(c)):
            raise TypeError(f"only int indices permitted, got {dtype_of(c)}")
    if mode == "raise":
        for c, d in zip(coords, dims):
            if isinstance(c, core.Tracer):
                raise core.ConcretizationTypeError(
                    "ravel_multi_index with mode='raise' needs concrete indices; use mode='wrap' or 'clip' "
                    "under jit")
            host = np.asarray(c)
            if host.size and (host.min() < 0 or host.max() >= d):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "wrap":
        coords = [c % np.asarray(d, dtype_of(c)) for c, d in zip(coords, dims)]
    elif mode == "clip":
        coords = [ufuncs.clip(c, 0, d - 1) for c, d in zip(coords, dims)]
    else:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
    index_dtype = dtypes.default_int_dtype() if dtype is None else dtype
    strides = np.cumprod((1,) + (dims[::-1] if order == "C" else dims)[:-1])
    strides = strides[::-1] if order == "C" else strides
    total = creation.zeros((), index_dtype)
    for c, s in zip(coords, strides):
        total = total + c.astype(index_dtype) * np.asarray(s, index_dtype)
    return total


def unravel_index(indices, shape):
    """The coordinates in an array of ``shape`` of each flat index (negative ones count from
    the end; out-of-range ones are clipped, as in JAX)."""
    check_arraylike("unravel_index", indices)
    indices = creation.asarray(indices)
    shape = tuple(operator.index(d) for d in shape)
    size = int(np.prod(shape))
    if not dtypes.is_int(dtype_of(indices)):
        raise TypeError(f"Only integer indices are permitted, got {dtype_of(indices)}")
    dtype = dtype_of(indices)
    indices = ufuncs.where(indices < 0, indices + np.asarray(size, dtype), indices)
    indices = ufuncs.clip(indices, 0, max(size - 1, 0))
    out = []
    for d in reversed(shape):
        out.append(indices % np.asarray(max(d, 1), dtype))
        indices = indices // np.asarray(max(d, 1), dtype)
    return tuple(reversed(out))


def resize(a, new_shape):
    """``a`` flattened, repeated cyclically and reshaped to ``new_shape``."""
    check_arraylike("resize", a)
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(operator.index(d) for d in new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    flat = reshaping.ravel(creation.asarray(a))
    total = int(np.prod(new_shape))
    if total == 0 or reshaping.size(flat) == 0:
        return creation.zeros(new_shape, dtype_of(flat))
    repeats = -(-total // reshaping.size(flat))
    return reshaping.reshape(joining.tile(flat, repeats)[:total], new_shape)


def _block_depth(arrays) -> int:
    return 1 + _block_depth(arrays[0]) if isinstance(arrays, list) and arrays else 0


def block(arrays):
    """An array assembled from nested lists of blocks (the innermost lists join along the last axis)."""
    if not isinstance(arrays, list):
        return creation.asarray(arrays)
    depth = _block_depth(arrays)

    def assemble(item, level):
        if level == depth:
            return creation.asarray(item)
        if not isinstance(item, list):
            raise ValueError("block: list nesting depth is inconsistent")
        parts = [assemble(x, level + 1) for x in item]
        ndim = max(depth, max(p.ndim for p in parts))
        parts = [reshaping.reshape(p, (1,) * (ndim - p.ndim) + p.shape) for p in parts]
        return joining.concatenate(parts, axis=level - depth)

    return assemble(arrays, 0)


def choose(a, choices, out=None, mode: str = "raise"):
    """Per element, ``choices[a]`` (broadcast together); ``mode`` "wrap"/"clip" folds indices."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    check_arraylike("choose", a, *choices)
    a = creation.asarray(a)
    if not dtypes.is_int(dtype_of(a)):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        if isinstance(a, core.Tracer):
            raise core.ConcretizationTypeError("choose with mode='raise' needs concrete indices; use "
                                               "mode='wrap' or 'clip' under jit")
        host = np.asarray(a)
        if host.size and (host.min() < 0 or host.max() >= n):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = a % np.asarray(n, dtype_of(a))
    elif mode == "clip":
        a = ufuncs.clip(a, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    choices = [creation.asarray(c) for c in choices]
    shape = np.broadcast_shapes(a.shape, *[c.shape for c in choices])
    stacked = joining.stack([reshaping.broadcast_to(c, shape) for c in choices])
    index = reshaping.broadcast_to(a, shape)[None]
    return joining.take_along_axis(stacked, index.astype(np.int32), axis=0)[0]


def piecewise(x, condlist, funclist, *args, **kw):
    """Per element, ``funclist[i](x)`` for the first true ``condlist[i]`` (an extra last
    function is the default); constants stand for constant functions."""
    check_arraylike("piecewise", x)
    x = creation.asarray(x)
    if not isinstance(condlist, (list, tuple)):
        condlist = [condlist]
    n = len(condlist)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected, "
                         f"got {len(funclist)}")
    default = funclist[n] if len(funclist) == n + 1 else 0
    values = lambda f: f(x, *args, **kw) if callable(f) else creation.asarray(f)  # noqa: E731
    out = reshaping.broadcast_to(values(default).astype(dtype_of(x)), x.shape)
    for cond, f in reversed(list(zip(condlist, funclist))):
        out = ufuncs.where(creation.asarray(cond), values(f).astype(dtype_of(x)), out)
    return out


def gradient(f, *varargs, axis=None, edge_order=None):
    """Central differences inside, one-sided at the ends, along each axis (unit or given spacing)."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    check_arraylike("gradient", f)
    (f,) = promote_dtypes_inexact(creation.asarray(f))
    axes = list(range(f.ndim)) if axis is None else [a % f.ndim for a in np.atleast_1d(axis)]
    if len(varargs) == 0:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacings = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError("Invalid number of spacing arguments %d" % len(varargs))
    out = []
    for ax, h in zip(axes, spacings):
        if f.shape[ax] < 2:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        g = linalg_ops.moveaxis(f, ax, 0)
        h = creation.asarray(h)
        if h.ndim == 0:
            interior = (g[2:] - g[:-2]) / (2 * h)
            first = (g[1:2] - g[:1]) / h
            last = (g[-1:] - g[-2:-1]) / h
        else:
            dx = diff(h).astype(dtype_of(g))
            shape = (-1,) + (1,) * (g.ndim - 1)
            dx1 = reshaping.reshape(dx[:-1], shape)
            dx2 = reshaping.reshape(dx[1:], shape)
            a, b, c = -dx2 / (dx1 * (dx1 + dx2)), (dx2 - dx1) / (dx1 * dx2), dx1 / (dx2 * (dx1 + dx2))
            interior = a * g[:-2] + b * g[1:-1] + c * g[2:]
            first = (g[1:2] - g[:1]) / reshaping.reshape(dx[:1], (1,) + (1,) * (g.ndim - 1))
            last = (g[-1:] - g[-2:-1]) / reshaping.reshape(dx[-1:], (1,) + (1,) * (g.ndim - 1))
        out.append(linalg_ops.moveaxis(joining.concatenate([first, interior, last]), 0, ax))
    return out[0] if len(out) == 1 else out


def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
    """``p`` with jumps larger than ``discont`` (default ``period / 2``) replaced by their
    ``period`` complements, along ``axis``."""
    check_arraylike("unwrap", p)
    (p,) = promote_dtypes_inexact(creation.asarray(p))
    period = creation.asarray(period).astype(dtype_of(p))
    discont = period / 2 if discont is None else creation.asarray(discont).astype(dtype_of(p))
    d = diff(p, axis=axis)
    half = period / 2
    dd = (d + half) % period - half
    dd = ufuncs.where((dd == -half) & (d > 0), half, dd)
    correction = ufuncs.where(ufuncs.abs(d) < discont, creation.zeros((), dtype_of(p)), dd - d)
    cum = cumulative.cumsum(correction, axis=axis)
    first = [slice(None)] * p.ndim
    first[axis % p.ndim] = slice(0, 1)
    rest = [slice(None)] * p.ndim
    rest[axis % p.ndim] = slice(1, None)
    return joining.concatenate([p[tuple(first)], p[tuple(rest)] + cum], axis=axis)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The edges of ``bins`` equal bins over ``range`` (default: a's min to max), or ``bins`` itself."""
    check_arraylike("histogram_bin_edges", a)
    if np.ndim(bins) == 1 or isinstance(bins, (core.Tracer,)) and bins.ndim == 1:
        return creation.asarray(bins)
    (a,) = promote_dtypes_inexact(creation.asarray(a))
    bins = operator.index(bins)
    if range is None:
        lo, hi = reductions.min(a), reductions.max(a)
    else:
        lo, hi = (creation.asarray(v).astype(dtype_of(a)) for v in range)
    same = lo == hi
    lo, hi = ufuncs.where(same, lo - 0.5, lo), ufuncs.where(same, hi + 0.5, hi)
    # linspace with traced ends: evenly spaced, the last edge exactly hi.
    steps = creation.arange(bins + 1).astype(dtype_of(a))
    edges = lo + steps * ((hi - lo) / np.asarray(bins, dtype_of(a)))
    return ufuncs.where(steps == bins, hi, edges)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """Counts (or summed ``weights``) of ``a`` per bin, and the bin edges; the last bin is closed."""
    edges = histogram_bin_edges(a, bins, range)
    flat = reshaping.ravel(creation.asarray(a))
    index = sorting.searchsorted(edges, flat, side="right")
    index = ufuncs.where(flat == edges[-1], reshaping.size(edges) - 1, index)
    nbins = reshaping.size(edges) - 1
    # Unweighted counts take the bin edges' dtype (a's, made inexact), as jax's do.
    w = creation.ones(flat.shape, dtype_of(edges)) if weights is None else reshaping.ravel(
        creation.asarray(weights))
    inside = (index >= 1) & (index <= nbins)
    counts = creation.zeros((nbins,), dtype_of(w)).at[ufuncs.where(inside, index - 1, nbins)].add(w, mode="drop")
    if density:
        widths = diff(edges)
        counts = counts / widths / reductions.sum(counts)
    return counts, edges
