"""lax.reduce: reduce arrays over dimensions with a computation and initial values, as
jax.lax.reduce.

One operand reduced by a recognized monoid (lax.add, lax.mul, lax.max, lax.min,
the bitwise and/or on booleans, or their numlir.numpy counterparts) is one
reduction primitive. Any other computation, including variadic ones over a tuple
of operands (a value and its index, say), is a left fold in row-major order of
the reduced dimensions, ``acc = computation(acc, element)`` from the initial
values, applied elementwise to all kept positions at once (a scan): the order
XLA's CPU backend uses, so even a computation that is not associative, such as
``lambda acc, x: acc + x * x``, gives jax's result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from numlir._src import core, dtypes, tree_util
from numlir._src.lax import elementwise as ew
from numlir._src.lax import reduction, shape_ops
from numlir._src.lax import scan as scan_mod
from numlir._src.lax import type_checks as tc
from numlir._src.lax import windowed_reductions as windows

_PRIMITIVES = {
    "sum": reduction.reduce_sum,
    "prod": reduction.reduce_prod,
    "max": reduction.reduce_max,
    "min": reduction.reduce_min,
    "and": reduction.reduce_and,
    "or": reduction.reduce_or,
}


def _monoid_reduce(kind: str, operand, init, dims):
    aval = core.get_aval(operand)
    if dtypes.is_bool(aval.dtype):  # on bool, + is `or` and * is `and`
        kind = {"sum": "or", "prod": "and"}.get(kind, kind)
    elif kind in ("and", "or"):
        return None  # bitwise reductions of integers: the generic fold
    out = _PRIMITIVES[kind](operand, dims)
    if not isinstance(init, core.Tracer) and core.concrete_to_numpy(
        init
    ).item() == windows.monoid_identity(kind, aval.dtype):
        return out
    return windows.monoid_combine(
        kind, shape_ops.broadcast_in_dim(init, core.get_aval(out).shape, ()), out
    )


def _fold(computation: Callable, tree, leaves: list, inits: list, dims: tuple[int, ...]):
    shape = core.get_aval(leaves[0]).shape
    kept = tuple(d for d in range(len(shape)) if d not in dims)
    kept_shape = tuple(shape[d] for d in kept)
    n = 1
    for d in dims:
        n *= shape[d]
    xs = [shape_ops.reshape(shape_ops.transpose(x, dims + kept), (n,) + kept_shape) for x in leaves]
    start = [shape_ops.broadcast_in_dim(i, kept_shape, ()) for i in inits]

    def step(carry: list, x: list):
        out = tree_util.tree_leaves(
            computation(tree_util.tree_unflatten(tree, carry), tree_util.tree_unflatten(tree, x))
        )
        if len(out) != len(carry) or any(core.get_aval(o).shape != kept_shape for o in out):
            raise core.shape_error(
                f"reduce: the computation must return one value per operand, of its operands' shape "
                f"(it is applied elementwise), got {[core.get_aval(o).str_short() for o in out]}"
            )
        return [
            ew.convert_element_type(o, core.get_aval(c).dtype) for o, c in zip(out, carry)
        ], None

    if n == 0:
        return start
    final, _ = scan_mod.scan(step, start, xs)
    return final


def reduce(operands: Any, init_values: Any, computation: Callable, dimensions: Sequence[int]):
    """Reduce ``operands`` (an array or a pytree of arrays of one shape) over ``dimensions``,
    starting from ``init_values`` (scalars, one per operand) and combining with
    ``computation(accumulated, element)`` applied elementwise. A sum over rows::

        lax.reduce(x, 0.0, lax.add, (1,))
    """
    leaves, tree = tree_util.tree_flatten(operands)
    inits, init_tree = tree_util.tree_flatten(init_values)
    if tree != init_tree:
        raise core.value_error(
            f"reduce: operands and init_values must have the same structure, got "
            f"{tree} and {init_tree}"
        )
    if not leaves:
        raise core.value_error("reduce: needs at least one operand")
    avals = [core.get_aval(x) for x in leaves]
    if len({a.shape for a in avals}) != 1:
        raise core.shape_error(
            f"reduce: operands must have one shape, got {[a.str_short() for a in avals]}"
        )
    dims = tuple(sorted(tc.canonical_axes("reduce", dimensions, avals[0].ndim)))  # XLA's loop order
    cast = []
    for init, aval in zip(inits, avals):
        init_aval = core.get_aval(init)
        if init_aval.shape:
            raise core.shape_error(
                f"reduce: init_values must be scalars, got shape {init_aval.shape}"
            )
        if init_aval.dtype != aval.dtype and not init_aval.weak_type:
            raise core.shape_error(
                f"reduce: init_value dtype {init_aval.dtype.name} must match its operand's "
                f"dtype {aval.dtype.name}"
            )
        cast.append(ew.convert_element_type(init, aval.dtype))
    if len(leaves) == 1:
        kind = windows.monoid_kind(computation)
        if kind is not None:
            out = _monoid_reduce(kind, leaves[0], cast[0], dims)
            if out is not None:
                return tree_util.tree_unflatten(tree, [out])
    return tree_util.tree_unflatten(tree, _fold(computation, tree, leaves, cast, dims))
