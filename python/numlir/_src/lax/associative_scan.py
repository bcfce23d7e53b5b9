"""``associative_scan``: the inclusive scan of an associative function in O(log n) rounds,
with JAX's recursion (pairs combined, the half scanned, the rest filled in). cummax and
cummin differentiate through it, so their ties split in the same tree of pairwise
``max``/``min`` as JAX's do."""

from __future__ import annotations

from typing import Callable

import numpy as np

from numlir._src import core, tree_util
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops, slicing


def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
    """The inclusive scan of the associative ``fn`` over ``axis`` of the pytree ``elems``, in
    O(log n) rounds (combining pairs, scanning the half, then filling in the rest)."""
    leaves, tree = tree_util.tree_flatten(elems)
    if not leaves:
        return elems
    n = core.get_aval(leaves[0]).shape[axis]
    for leaf in leaves:
        if core.get_aval(leaf).shape[axis] != n:
            raise ValueError("associative_scan: all leaves must have the same length along axis")
    if reverse:
        leaves = [slicing.rev(x, (axis % core.get_aval(x).ndim,)) for x in leaves]

    def combine(a, b):
        out = fn(tree.unflatten(a), tree.unflatten(b))
        return tree_util.tree_leaves(out)

    def take(xs, start, stop=None, stride=1):
        return [slicing.slice_in_dim(x, start, stop, stride, axis) for x in xs]

    def scan(xs):
        size = core.get_aval(xs[0]).shape[axis]
        if size < 2:
            return xs
        reduced = combine(take(xs, 0, -1 if size % 2 else None, 2), take(xs, 1, None, 2))
        odd = scan(reduced)
        if size % 2 == 0:
            even = combine(take(odd, 0, -1), take(xs, 2, None, 2))
        else:
            even = combine(odd, take(xs, 2, None, 2))
        even = [slicing.concatenate([slicing.slice_in_dim(x, 0, 1, 1, axis), e], axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = scan(leaves)
    if reverse:
        out = [slicing.rev(x, (axis % core.get_aval(x).ndim,)) for x in out]
    return tree.unflatten(out)


def _interleave(a, b, axis: int):
    """``a[0], b[0], a[1], b[1], ...`` along ``axis`` (``a`` may be one longer)."""
    aval_a, aval_b = core.get_aval(a), core.get_aval(b)
    axis = axis % aval_a.ndim
    if aval_a.shape[axis] == aval_b.shape[axis] + 1:
        pad = [(0, 0, 0)] * aval_a.ndim
        pad[axis] = (0, 1, 0)
        b = slicing.pad(b, ew.convert_element_type(np.zeros((), aval_b.dtype), aval_b.dtype), pad)
    m = core.get_aval(b).shape[axis]
    stacked_shape = aval_a.shape[:axis] + (m, 2) + aval_a.shape[axis + 1:]
    dims = tuple(d if d <= axis else d + 1 for d in range(aval_a.ndim))
    first = ew.eq(shape_ops.broadcasted_iota(np.int32, stacked_shape, axis + 1),
                  ew.convert_element_type(np.zeros((), np.int32), np.int32))
    both = ew.select(first, shape_ops.broadcast_in_dim(a, stacked_shape, dims),
                     shape_ops.broadcast_in_dim(b, stacked_shape, dims))
    merged = shape_ops.reshape(both, aval_a.shape[:axis] + (2 * m,) + aval_a.shape[axis + 1:])
    return slicing.slice_in_dim(merged, 0, aval_a.shape[axis] + core.get_aval(b).shape[axis] -
                                (1 if aval_a.shape[axis] == aval_b.shape[axis] + 1 else 0), 1, axis)
