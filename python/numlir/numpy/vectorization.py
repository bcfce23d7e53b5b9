"""numlir.numpy's functions built on numlir.vmap: vectorize, apply_along_axis, apply_over_axes."""

from __future__ import annotations

import functools
import re

import numpy as np

import numlir._src.numpy.creation as _creation
import numlir._src.numpy.reshaping as _reshaping
from numlir._src.vmap import vmap


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """``func1d`` applied to each 1-D slice of ``arr`` along ``axis`` (mapped with vmap)."""
    arr = _creation.asarray(arr)
    axis = axis % arr.ndim
    fn = lambda x: func1d(x, *args, **kwargs)  # noqa: E731
    for i in range(1, arr.ndim - axis):
        fn = vmap(fn, in_axes=i, out_axes=-1)
    for _ in range(axis):
        fn = vmap(fn, in_axes=0, out_axes=0)
    return fn(arr)


def apply_over_axes(func, a, axes):
    """``a = func(a, axis)`` for each axis in turn, keeping the rank (a lost axis is re-added)."""
    a = _creation.asarray(a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim - 1:
            b = _reshaping.expand_dims(b, axis)
        elif b.ndim != a.ndim:
            raise ValueError("function is not returning an array of the correct shape")
        a = b
    return a


_DIMS = r"\((?:\w+(?:,\s*\w+)*)?\)"


def _parse_signature(signature: str):
    match = re.fullmatch(rf"\s*({_DIMS}(?:,\s*{_DIMS})*)\s*->\s*({_DIMS}(?:,\s*{_DIMS})*)\s*", signature)
    if not match:
        raise ValueError(f"not a valid gufunc signature: {signature}")
    parse = lambda part: [tuple(d.strip() for d in g.split(",") if d.strip())  # noqa: E731
                          for g in re.findall(r"\(([^)]*)\)", part)]
    return parse(match.group(1)), parse(match.group(2))


def vectorize(pyfunc, *, excluded=frozenset(), signature: str | None = None):
    """``pyfunc`` mapped over the leading (broadcast) dimensions of its arguments with vmap,
    with NumPy's generalized-ufunc ``signature`` for core dimensions."""
    core_in = core_out = None
    if signature is not None:
        core_in, core_out = _parse_signature(signature)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        excluded_args = {i for i in excluded if isinstance(i, int)}
        mapped = [i for i in range(len(args)) if i not in excluded_args]
        arrays = [_creation.asarray(args[i]) for i in mapped]
        cores = core_in if core_in is not None else [()] * len(arrays)
        if len(cores) != len(arrays):
            raise TypeError(f"wrong number of positional arguments: expected {len(cores)}, got {len(arrays)}")
        loop_shapes = [a.shape[:a.ndim - len(c)] for a, c in zip(arrays, cores)]
        batch = np.broadcast_shapes(*loop_shapes) if loop_shapes else ()
        arrays = [_reshaping.broadcast_to(a, tuple(batch) + a.shape[a.ndim - len(c):]) for a, c in zip(arrays, cores)]

        def call(*xs):
            full = list(args)
            for i, x in zip(mapped, xs):
                full[i] = x
            return pyfunc(*full, **kwargs)

        fn = call
        for _ in batch:
            fn = vmap(fn)
        return fn(*arrays)

    return wrapped


