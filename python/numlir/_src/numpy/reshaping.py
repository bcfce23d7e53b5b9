"""Shape functions of numlir.numpy: shape/ndim/size, reshape, ravel, transpose, swapaxes,
expand_dims, squeeze and broadcast_to."""

from __future__ import annotations

import math

import numpy as np

from numlir._src import core, shapes
from numlir._src.lax import shape_ops
from numlir._src.lax import type_checks as tc
from numlir._src.numpy.creation import fresh_copy
from numlir._src.numpy.util import broadcast_shapes, check_arraylike


def shape(a) -> tuple[int, ...]:
    return core.get_aval(a).shape


def ndim(a) -> int:
    return core.get_aval(a).ndim


def size(a) -> int:
    return core.get_aval(a).size


def reshape(a, shape=None, order: str = "C", *, newshape=None, copy: bool | None = None):
    """Reshape in row-major order; one dimension may be -1.

    ``shape`` is the array API's and NumPy 2.1's name, ``newshape`` NumPy's older one.
    ``copy=True`` gives an array with a buffer of its own; ``copy=False`` is accepted, since
    reshaping an immutable array never needs a copy.
    """
    check_arraylike("reshape", a)
    if order != "C":
        raise NotImplementedError("reshape only supports order='C'")
    if (shape is None) == (newshape is None):
        raise TypeError("reshape: give the new shape once, as shape (or newshape, NumPy's "
                        "older name)")
    out = _reshape(a, shape if newshape is None else newshape)
    return fresh_copy(out) if copy and out is a else out


def _reshape(a, newshape):
    aval = core.get_aval(a)
    newshape = list(shapes.shape_ints(newshape, "reshape", "newshape"))
    if newshape.count(-1) > 1:
        raise core.value_error("reshape: can only specify one unknown dimension (-1)")
    if -1 in newshape:
        known = math.prod(d for d in newshape if d != -1)
        if known == 0 or aval.size % known:
            raise core.shape_error(f"cannot reshape array of shape {aval.shape} (size {aval.size}) "
                                   f"into shape {tuple(newshape)}")
        newshape[newshape.index(-1)] = aval.size // known
    core.check_shape(tuple(newshape), "reshape", "newshape")
    if math.prod(newshape) != aval.size:
        raise core.shape_error(f"cannot reshape array of shape {aval.shape} (size {aval.size}) "
                               f"into shape {tuple(newshape)}")
    return shape_ops.reshape(a, newshape)


def ravel(a):
    return reshape(a, (-1,))


def transpose(a, axes=None):
    """Permute the axes (default: reverse them)."""
    check_arraylike("transpose", a)
    nd = core.get_aval(a).ndim
    if axes is None:
        perm = tuple(reversed(range(nd)))
    else:
        if len(axes) != nd:
            raise core.value_error(f"transpose: axes {tuple(axes)} don't match array of dimension {nd}")
        perm = tuple(tc.canonical_axis("transpose", ax, nd) for ax in axes)
        if len(set(perm)) != nd:
            raise core.value_error(f"transpose: repeated axis in {tuple(axes)}")
    return shape_ops.transpose(a, perm)


def swapaxes(a, axis1: int, axis2: int):
    nd = core.get_aval(a).ndim
    perm = list(range(nd))
    i, j = tc.canonical_axis("swapaxes", axis1, nd), tc.canonical_axis("swapaxes", axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return shape_ops.transpose(a, perm)


def expand_dims(a, axis):
    check_arraylike("expand_dims", a)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return shape_ops.expand_dims(a, axes)


def squeeze(a, axis=None):
    check_arraylike("squeeze", a)
    aval = core.get_aval(a)
    if axis is None:
        axis = tuple(i for i, d in enumerate(aval.shape) if d == 1)
    elif isinstance(axis, (int, np.integer)):
        axis = (axis,)
    return shape_ops.squeeze(a, axis)


def broadcast_to(a, shape):
    check_arraylike("broadcast_to", a)
    aval = core.get_aval(a)
    shape = shapes.canonicalize_shape(shape, "broadcast_to", dtype=aval.dtype)
    if aval.ndim > len(shape) or broadcast_shapes("broadcast_to", aval.shape, shape) != shape:
        raise core.value_error(f"cannot broadcast array of shape {aval.shape} to shape {shape}")
    return shape_ops.broadcast_to_rank(a, shape)


