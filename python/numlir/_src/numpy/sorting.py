"""numpy sorting: sort and argsort (stable, jax's NaN-last order), built on lax.sort."""

from __future__ import annotations

import numpy as np

from numlir._src import core
from numlir._src.lax import sorting as lax_sorting
from numlir._src.lax import type_checks as tc


def _prepare(a, axis, what):
    from numlir._src.numpy import array_api

    a = array_api.asarray(a)
    if axis is None:
        return array_api.ravel(a), 0
    aval = core.get_aval(a)
    if aval.ndim == 0:
        raise core.value_error(f"jnp.{what}: axis {axis} is out of bounds for a 0-d array")
    return a, tc.canonical_axis(f"jnp.{what}", axis, aval.ndim)


def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
         descending: bool = False):
    """A sorted copy of ``a`` along ``axis`` (flattened when ``axis`` is None); NaNs last.

    Example::

        jnp.sort(jnp.array([3, 1, 2]))  # [1, 2, 3]
    """
    if order is not None:
        raise NotImplementedError("jnp.sort: 'order' is not supported")
    a, axis = _prepare(a, axis, "sort")
    result = lax_sorting.sort(a, dimension=axis)
    if descending:  # jax reverses the ascending sort
        from numlir._src.lax import slicing

        result = slicing.rev(result, (axis,))
    return result


def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False):
    """The indices that sort ``a`` along ``axis``; equal elements keep their order.

    Example::

        jnp.argsort(jnp.array([3, 1, 2]))  # [1, 2, 0]
    """
    from numlir._src.lax import shape_ops

    if order is not None:
        raise NotImplementedError("jnp.argsort: 'order' is not supported")
    a, axis = _prepare(a, axis, "argsort")
    iota = shape_ops.broadcasted_iota(np.int32, core.get_aval(a).shape, axis)
    keys = lax_sorting.descending_keys(a) if descending else [a]
    return lax_sorting.sort((*keys, iota), dimension=axis, num_keys=len(keys))[-1]
