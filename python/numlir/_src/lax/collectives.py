"""Collectives over named axes: psum, pmax, pmin, all_gather, axis_index, ppermute,
all_to_all and psum_scatter, for ``vmap(..., axis_name=...)`` and ``pmap``.

A named axis is a vmap's batch axis or a pmap's device axis. Every collective primitive
has a named-axis rule (``batching.named_axis_rules``) that each BatchTrace runs, batched
operands or not:

- the trace whose ``axis_name`` the collective names computes it over its batch axis
  (a psum is a sum over that axis, an all_gather the batch axis moved into place, ...);
- any other trace passes it through to its parent, with the positional parameters
  shifted past its own batch axis, which leads first.

A collective that reaches lowering names a pmap's axis (spmd.py): it becomes one of
hlo's collectives over the replicas that share the other axes. Anything else names an
axis nothing binds: its lowering raises NameError, as JAX's "unbound axis name" does. JVPs are
linear (psum of the tangent...) and transposes follow JAX (psum is its own transpose).

Example::

    >>> numlir.vmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(jnp.arange(1.0, 4.0))
    Array([0.16666667, 0.33333334, 0.5       ], dtype=float32)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from numlir._src import ad, batching, core, dtypes, spmd, tree_util
from numlir._src.array import as_array
from numlir._src.lowering import tensor_type
from numlir._src import transpose as tr
from numlir._src.lax import elementwise as ew
from numlir._src.lax import reduction, shape_ops, slicing

# --- finding the named axes -------------------------------------------------------------------


def _names(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _batch_trace_named(name):
    trace = core.current_trace()
    while trace is not None:
        if isinstance(trace, batching.BatchTrace) and trace.axis_name == name:
            return trace
        trace = getattr(trace, "parent", None)
    return None


def axis_size(axis_name) -> int:
    """The size of the named axis (the product, for a tuple of names), as a Python int."""
    size = 1
    for name in _names(axis_name):
        trace = _batch_trace_named(name)  # an inner vmap shadows a pmap's axis
        frame = spmd.axis_env().frame(name) if trace is None else None
        if trace is None and frame is None:
            raise NameError(f"unbound axis name: {name}. Collectives need an enclosing "
                            f"vmap(..., axis_name={name!r}) or pmap(..., "
                            f"axis_name={name!r})")
        size *= trace.axis_size if trace is not None else frame.size
    return size


def _spmd_lowering(prim_name: str, lower=None):
    """The lowering of a collective: ``lower`` emits hlo's collective where every name it
    uses is an axis of the SPMD module being lowered (pmap's); anywhere else the name is
    unbound, as in JAX."""
    def lowering(ctx, *operands, **params):
        names = _names(params.get("axes", params.get("axis_name")))
        if lower is not None and ctx.axis_env.has(names):
            return lower(ctx, *operands, **params)
        raise NameError(f"{prim_name}: unbound axis name {', '.join(map(repr, names))}. "
                        "Collectives need an enclosing vmap(..., axis_name=...) or "
                        "pmap(..., axis_name=...) naming it")
    return lowering


def _collective(name: str, multiple_results: bool = False, lower=None) -> core.Primitive:
    prim = core.Primitive(name)
    prim.multiple_results = multiple_results
    prim.def_lowering(_spmd_lowering(name, lower))
    return prim


def _all_reduce_lowering(kind: str):
    """hlo.all_reduce ``kind`` over the replicas that share every other named axis (within
    each of ``axis_index_groups``, where given)."""
    def lower(ctx, x, *, axes, axis_index_groups=None):
        groups = spmd.replica_groups(ctx.axis_env, axes, axis_index_groups)
        return ctx.emit(f"hlo.all_reduce {kind} {x}, replica_groups = {groups} "
                        f": {ctx.type_in()}")
    return lower


def _pass_through(prim, trace, vals, dims, shift_params, **params):
    """The collective over another trace's axis: this trace's batch axis leads, and the
    positional parameters in ``shift_params`` move past it."""
    with core.set_current_trace(trace.parent):
        if all(d is None for d in dims):
            return prim.bind(*vals, **params)
        moved = [batching.bdim_to_front(v, d, trace.axis_size) for v, d in zip(vals, dims)]
        shifted = {k: (v + 1 if k in shift_params else v) for k, v in params.items()}
        out = prim.bind(*moved, **shifted)
    if prim.multiple_results:
        return [trace.wrap(o, 0) for o in out]
    return trace.wrap(out, 0)


def _front(trace, val, dim):
    return batching.bdim_to_front(val, dim, trace.axis_size)


# --- psum, pmax, pmin -------------------------------------------------------------------------


def _reducing_collective(name: str, reduce, unbatched, kind: str):
    prim = _collective(name, lower=_all_reduce_lowering(kind))

    @prim.def_abstract_eval
    def _abstract_eval(x, *, axes, axis_index_groups=None):
        return x

    def rule(trace, vals, dims, *, axes, axis_index_groups=None):
        (x,), (d,) = vals, dims
        if trace.axis_name not in axes:
            return _pass_through(prim, trace, vals, dims, (), axes=axes,
                                 axis_index_groups=axis_index_groups)
        _no_groups_under_vmap(name, trace, axis_index_groups)
        rest = tuple(a for a in axes if a != trace.axis_name)
        with core.set_current_trace(trace.parent):
            out = unbatched(x, trace.axis_size) if d is None else reduce(x, (d,))
            return prim.bind(out, axes=rest) if rest else out

    batching.named_axis_rules[prim] = rule
    return prim


psum_p = _reducing_collective(
    "psum", reduction.reduce_sum,
    lambda x, n: ew.mul(x, shape_ops.full((), n, core.get_aval(x).dtype)), "sum")
pmax_p = _reducing_collective("pmax", reduction.reduce_max, lambda x, n: x, "max")
pmin_p = _reducing_collective("pmin", reduction.reduce_min, lambda x, n: x, "min")

ad.deflinear(psum_p, lambda ct, x, *, axes, axis_index_groups=None: [
    psum_p.bind(ad.instantiate(ct), axes=axes, axis_index_groups=axis_index_groups)])


def _checked_groups(name: str, axis_name, groups) -> tuple[tuple[int, ...], ...] | None:
    """``axis_index_groups`` as JAX takes them: groups of one size that partition the
    positions of one named axis."""
    if groups is None:
        return None
    names = _names(axis_name)
    groups = tuple(tuple(int(i) for i in g) for g in groups)
    size = axis_size(names)
    if len(names) != 1 or not groups or len({len(g) for g in groups}) != 1 or sorted(
            i for g in groups for i in g) != list(range(size)):
        raise ValueError(f"{name}: axis_index_groups must split the {size} positions of one "
                         f"named axis into groups of one size, got {groups} over "
                         f"{axis_name!r}")
    return groups


def _tree_collective(prim, x, axis_name, *, bools_as_ints: bool = False, groups=None):
    leaves, tree = tree_util.tree_flatten(x)
    names = _names(axis_name)

    def one(v):
        v = as_array(v)
        if bools_as_ints and dtypes.is_bool(core.get_aval(v).dtype):  # a count, as jax's psum
            v = ew.convert_element_type(v, dtypes.default_int_dtype())
        return prim.bind(v, axes=names, axis_index_groups=groups)

    return tree_util.tree_unflatten(tree, [one(v) for v in leaves])


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of ``x`` (a pytree) over the named axis or axes (within each of
    ``axis_index_groups``, under pmap)."""
    groups = _checked_groups("psum", axis_name, axis_index_groups)
    return _tree_collective(psum_p, x, axis_name, bools_as_ints=True, groups=groups)


def pmax(x, axis_name, *, axis_index_groups=None):
    """The maximum of ``x`` over the named axis or axes."""
    groups = _checked_groups("pmax", axis_name, axis_index_groups)
    return _tree_collective(pmax_p, x, axis_name, groups=groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    """The minimum of ``x`` over the named axis or axes."""
    groups = _checked_groups("pmin", axis_name, axis_index_groups)
    return _tree_collective(pmin_p, x, axis_name, groups=groups)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The mean of ``x`` over the named axis or axes (integers average to floats); with
    ``axis_index_groups``, over each group."""
    groups = _checked_groups("pmean", axis_name, axis_index_groups)
    size = len(groups[0]) if groups else axis_size(axis_name)

    def inexact(v):
        v = as_array(v)
        dtype = core.get_aval(v).dtype
        return v if dtypes.is_inexact(dtype) else ew.convert_element_type(
            v, dtypes.default_float_dtype())

    summed = psum(tree_util.tree_map(inexact, x), axis_name,
                  axis_index_groups=axis_index_groups)
    return tree_util.tree_map(
        lambda s: ew.div(s, shape_ops.full((), size, core.get_aval(s).dtype)), summed)


def _groups_and_size(name: str, axis_name, groups):
    """``axis_index_groups`` checked as psum's, and the size the collective spans: a
    group's, or the named axis's."""
    groups = _checked_groups(name, axis_name, groups)
    return groups, (len(groups[0]) if groups else axis_size(axis_name))


def _no_groups_under_vmap(name: str, trace, groups) -> None:
    if groups is not None:
        raise NotImplementedError(
            f"{name}: axis_index_groups over vmap's axis {trace.axis_name!r} is not "
            "supported (pmap's axes take them, as in JAX); vmap over the groups instead")


# --- axis_index -------------------------------------------------------------------------------

def _axis_index_lowering(ctx, *, axis_name):
    # (replica_id // stride) % size: the replica's index along the named axis.
    frame = ctx.axis_env.frame(axis_name)
    replica = ctx.emit("hlo.replica_id : tensor<ui32>")
    index = ctx.emit(f"hlo.convert {replica} : tensor<ui32> -> tensor<i32>")
    stride = ctx.constant(np.int32(frame.stride))
    size = ctx.constant(np.int32(frame.size))
    index = ctx.emit(f"hlo.divide {index}, {stride} : tensor<i32>")
    return ctx.emit(f"hlo.remainder {index}, {size} : tensor<i32>")


axis_index_p = _collective("axis_index", lower=_axis_index_lowering)


@axis_index_p.def_abstract_eval
def _axis_index_abstract_eval(*, axis_name):
    return core.ShapedArray((), np.dtype(np.int32))


def _axis_index_rule(trace, vals, dims, *, axis_name):
    if trace.axis_name != axis_name:
        return _pass_through(axis_index_p, trace, vals, dims, (), axis_name=axis_name)
    with core.set_current_trace(trace.parent):
        out = shape_ops.iota(np.int32, trace.axis_size)
    return trace.wrap(out, 0)


batching.named_axis_rules[axis_index_p] = _axis_index_rule


def axis_index(axis_name):
    """This example's position along the named axis (int32)."""
    return axis_index_p.bind(axis_name=axis_name)


# --- all_gather -------------------------------------------------------------------------------

def _all_gather_lowering(ctx, x, *, axis_name, axis, tiled, size, axis_index_groups=None):
    # Untiled, each replica's value gets an axis of 1 at `axis` first, which the
    # gather then grows to the group's size.
    groups = spmd.replica_groups(ctx.axis_env, _names(axis_name), axis_index_groups)
    aval = ctx.avals_in[0]
    if not tiled:
        expanded = aval.update(shape=aval.shape[:axis] + (1,) + aval.shape[axis:])
        x = ctx.emit(f"hlo.reshape {x} : {tensor_type(aval)} -> {tensor_type(expanded)}")
        aval = expanded
    return ctx.emit(f"hlo.all_gather {x}, dim = {axis}, replica_groups = {groups} "
                    f": {tensor_type(aval)} -> {ctx.type_out()}")


all_gather_p = _collective("all_gather", lower=_all_gather_lowering)


@all_gather_p.def_abstract_eval
def _all_gather_abstract_eval(x, *, axis_name, axis, tiled, size, axis_index_groups=None):
    shape = list(x.shape)
    if tiled:
        shape[axis] *= size
    else:
        shape.insert(axis, size)
    return x.update(shape=tuple(shape))


def _all_gather_rule(trace, vals, dims, *, axis_name, axis, tiled, size,
                     axis_index_groups=None):
    if trace.axis_name != axis_name:
        return _pass_through(all_gather_p, trace, vals, dims, ("axis",), axis_name=axis_name,
                             axis=axis, tiled=tiled, size=size,
                             axis_index_groups=axis_index_groups)
    _no_groups_under_vmap("all_gather", trace, axis_index_groups)
    (x,), (d,) = vals, dims
    with core.set_current_trace(trace.parent):
        stacked = _front(trace, x, d)  # (n, ...): every example's value
        out = batching.moveaxis(stacked, 0, axis)
        if tiled:
            shape = core.get_aval(out).shape
            out = shape_ops.reshape(out, shape[:axis] + (shape[axis] * shape[axis + 1],)
                                    + shape[axis + 2:])
        return out


batching.named_axis_rules[all_gather_p] = _all_gather_rule


def _all_gather_jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    out = all_gather_p.bind(x, **params)
    if isinstance(t, ad.Zero):
        return out, ad.Zero(core.get_aval(out).strip_weak_type())
    return out, all_gather_p.bind(t, **params)


ad.defjvp_rule(all_gather_p, _all_gather_jvp)


def _all_gather_transpose(ct, x, *, axis_name, axis, tiled, size, axis_index_groups=None):
    # Every example's gather saw each value: the sum of the cotangents, of which each
    # example keeps its own piece.
    piece = reduce_scatter_p.bind(ad.instantiate(ct), axis_name=axis_name, dim=axis, size=size,
                                  axis_index_groups=axis_index_groups)
    return [piece if tiled else shape_ops.squeeze(piece, (axis,))]


tr.deftranspose(all_gather_p, _all_gather_transpose)


def all_gather(x, axis_name, *, axis_index_groups=None, axis: int = 0, tiled: bool = False):
    """Every example's ``x`` along the named axis (or, under pmap, within its group of
    ``axis_index_groups``, in the group's order), stacked at ``axis`` (or concatenated
    along it if ``tiled``)."""
    groups, size = _groups_and_size("all_gather", axis_name, axis_index_groups)

    def one(v):
        v = as_array(v)
        rank = core.get_aval(v).ndim
        if not 0 <= axis <= rank - (1 if tiled else 0):
            raise core.value_error(f"all_gather: axis {axis} is out of range for a value of "
                                   f"rank {rank}")
        return all_gather_p.bind(v, axis_name=axis_name, axis=axis, tiled=tiled, size=size,
                                 axis_index_groups=groups)

    return tree_util.tree_map(one, x)


# --- ppermute ---------------------------------------------------------------------------------

def _ppermute_lowering(ctx, x, *, axis_name, perm):
    # The axis positions of `perm`, in every group of replicas along the axis.
    if not perm:
        return ctx.broadcast_to(ctx.constant(np.zeros((), ctx.avals_out[0].dtype)),
                                ctx.avals_out[0].update(shape=()), ctx.avals_out[0].shape)
    groups = spmd.replica_groups(ctx.axis_env, _names(axis_name))
    pairs = [[group[s], group[t]] for group in groups for s, t in perm]
    return ctx.emit(f"hlo.collective_permute {x}, pairs = {pairs} : {ctx.type_in()}")


ppermute_p = _collective("ppermute", lower=_ppermute_lowering)


@ppermute_p.def_abstract_eval
def _ppermute_abstract_eval(x, *, axis_name, perm):
    return x


def _ppermute_rule(trace, vals, dims, *, axis_name, perm):
    if trace.axis_name != axis_name:
        return _pass_through(ppermute_p, trace, vals, dims, (), axis_name=axis_name, perm=perm)
    (x,), (d,) = vals, dims
    source = dict((dst, src) for src, dst in perm)
    with core.set_current_trace(trace.parent):
        stacked = _front(trace, x, d)
        aval = core.get_aval(stacked)
        nothing = shape_ops.full((1,) + aval.shape[1:], 0, aval.dtype)
        pieces = [slicing.index_in_dim(stacked, source[j], 0) if j in source else nothing
                  for j in range(trace.axis_size)]
        out = slicing.concatenate(pieces, 0)
    return trace.wrap(out, 0)


batching.named_axis_rules[ppermute_p] = _ppermute_rule
ad.deflinear(ppermute_p, lambda ct, x, *, axis_name, perm: [
    ppermute_p.bind(ad.instantiate(ct), axis_name=axis_name,
                    perm=tuple((dst, src) for src, dst in perm))])


def ppermute(x, axis_name, perm: Sequence[tuple[int, int]]):
    """Send each example's ``x`` from position ``src`` to ``dst`` for (src, dst) in ``perm``;
    positions no pair sends to get zeros."""
    perm = tuple((int(s), int(t)) for s, t in perm)
    size = axis_size(axis_name)
    sources, targets = [s for s, _ in perm], [t for _, t in perm]
    if len(set(sources)) != len(sources) or len(set(targets)) != len(targets):
        raise ValueError(f"ppermute: perm sends from or to a position twice: {perm}")
    if any(not 0 <= i < size for i in sources + targets):
        raise ValueError(f"ppermute: perm {perm} names positions outside the axis of size {size}")
    return tree_util.tree_map(
        lambda v: ppermute_p.bind(as_array(v), axis_name=axis_name, perm=perm), x)


def pshuffle(x, axis_name, perm: Sequence[int]):
    """Example i gets example ``perm[i]``'s ``x`` (``perm`` a permutation of the axis)."""
    perm = [int(p) for p in perm]
    if sorted(perm) != list(range(axis_size(axis_name))):
        raise ValueError(f"pshuffle: {perm} is not a permutation of the axis positions")
    return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(perm)])


# --- all_to_all, psum_scatter -----------------------------------------------------------------

def _all_to_all_lowering(ctx, x, *, axis_name, split_axis, concat_axis, size,
                         axis_index_groups=None):
    # hlo.all_to_all over split_axis alone (blocks of 1): position j along it then holds
    # the piece of the group's j-th replica, and a transpose moves that axis to concat_axis.
    groups = spmd.replica_groups(ctx.axis_env, _names(axis_name), axis_index_groups)
    aval = ctx.avals_in[0]
    exchanged = ctx.emit(f"hlo.all_to_all {x}, split_dim = {split_axis}, concat_dim = "
                         f"{split_axis}, replica_groups = {groups} : {ctx.type_in()} -> "
                         f"{ctx.type_in()}")
    perm = [d for d in range(aval.ndim) if d != split_axis]
    perm.insert(concat_axis, split_axis)
    if perm == list(range(aval.ndim)):
        return exchanged
    return ctx.emit(f"hlo.transpose {exchanged}, dims = {perm} : {ctx.type_in()} -> "
                    f"{ctx.type_out()}")


all_to_all_p = _collective("all_to_all", lower=_all_to_all_lowering)


@all_to_all_p.def_abstract_eval
def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, size,
                              axis_index_groups=None):
    shape = list(x.shape)
    if shape[split_axis] != size:
        raise core.value_error(f"all_to_all: the split axis {split_axis} of shape {x.shape} "
                               f"must have the axis size {size}")
    del shape[split_axis]
    shape.insert(concat_axis, size)
    return x.update(shape=tuple(shape))


def _all_to_all_rule(trace, vals, dims, *, axis_name, split_axis, concat_axis, size,
                     axis_index_groups=None):
    if trace.axis_name != axis_name:
        return _pass_through(all_to_all_p, trace, vals, dims, ("split_axis", "concat_axis"),
                             axis_name=axis_name, split_axis=split_axis,
                             concat_axis=concat_axis, size=size,
                             axis_index_groups=axis_index_groups)
    _no_groups_under_vmap("all_to_all", trace, axis_index_groups)
    (x,), (d,) = vals, dims
    with core.set_current_trace(trace.parent):
        v = _front(trace, x, d)              # [i, per-example axes]; axis 1 + split is j
        v = batching.moveaxis(v, 1 + split_axis, 0)   # [j, i, the other axes]
        v = batching.moveaxis(v, 1, 1 + concat_axis)  # i into place among them
    return trace.wrap(v, 0)


batching.named_axis_rules[all_to_all_p] = _all_to_all_rule
ad.deflinear(all_to_all_p, lambda ct, x, *, axis_name, split_axis, concat_axis, size,
             axis_index_groups=None: [
    all_to_all_p.bind(ad.instantiate(ct), axis_name=axis_name, split_axis=concat_axis,
                      concat_axis=split_axis, size=size, axis_index_groups=axis_index_groups)])


def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, axis_index_groups=None,
               tiled: bool = False):
    """Example j receives chunk j of every example's ``x`` along ``split_axis``; the chunks
    arrive stacked along a new ``concat_axis`` (shape: ``split_axis`` deleted, the axis size
    inserted at ``concat_axis``), or with ``tiled`` concatenated along the existing one.
    Under pmap, ``axis_index_groups`` exchange within each group (its size for the
    axis's)."""
    groups, size = _groups_and_size("all_to_all", axis_name, axis_index_groups)
    spans = "group" if groups else "axis"

    def one(v):
        v = as_array(v)
        shape = core.get_aval(v).shape
        if not (0 <= split_axis < len(shape) and 0 <= concat_axis < len(shape)):
            raise core.value_error(f"all_to_all: split_axis {split_axis} and concat_axis "
                                   f"{concat_axis} must name axes of shape {shape}")
        if not tiled:
            if shape[split_axis] != size:
                raise core.value_error(f"all_to_all: the split axis {split_axis} of shape "
                                       f"{shape} must have the {spans} size {size}")
            return all_to_all_p.bind(v, axis_name=axis_name, split_axis=split_axis,
                                     concat_axis=concat_axis, size=size,
                                     axis_index_groups=groups)
        if shape[split_axis] % size:
            raise core.value_error(f"all_to_all: the split axis {split_axis} of shape {shape} "
                                   f"must divide by the {spans} size {size}")
        chunk = shape[split_axis] // size
        split = shape_ops.reshape(v, shape[:split_axis] + (size, chunk) + shape[split_axis + 1:])
        out = all_to_all_p.bind(split, axis_name=axis_name, split_axis=split_axis,
                                concat_axis=concat_axis, size=size, axis_index_groups=groups)
        out_shape = core.get_aval(out).shape
        return shape_ops.reshape(out, out_shape[:concat_axis]
                                 + (size * out_shape[concat_axis + 1],) + out_shape[concat_axis + 2:])

    return tree_util.tree_map(one, x)


def pswapaxes(x, axis_name, axis: int, *, axis_index_groups=None):
    """Swap the named axis with positional ``axis`` (of the axis size): an all_to_all that
    splits and stacks along ``axis``."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


# reduce_scatter: the sum over the named axis, of which the example (or device) at position
# j keeps piece j along `dim` (the dim divided by the axis size). psum_scatter's primitive;
# under pmap one hlo.reduce_scatter, so each device adds only its own piece.

def _reduce_scatter_lowering(ctx, x, *, axis_name, dim, size, axis_index_groups=None):
    groups = spmd.replica_groups(ctx.axis_env, _names(axis_name), axis_index_groups)
    return ctx.emit(f"hlo.reduce_scatter sum {x}, dim = {dim}, replica_groups = {groups} "
                    f": {ctx.type_in()} -> {ctx.type_out()}")


reduce_scatter_p = _collective("reduce_scatter", lower=_reduce_scatter_lowering)


@reduce_scatter_p.def_abstract_eval
def _reduce_scatter_abstract_eval(x, *, axis_name, dim, size, axis_index_groups=None):
    shape = list(x.shape)
    shape[dim] //= size
    return x.update(shape=tuple(shape))


def _reduce_scatter_rule(trace, vals, dims, *, axis_name, dim, size, axis_index_groups=None):
    if trace.axis_name != axis_name:
        return _pass_through(reduce_scatter_p, trace, vals, dims, ("dim",),
                             axis_name=axis_name, dim=dim, size=size,
                             axis_index_groups=axis_index_groups)
    _no_groups_under_vmap("psum_scatter", trace, axis_index_groups)
    (x,), (d,) = vals, dims
    with core.set_current_trace(trace.parent):
        if d is None:
            summed = ew.mul(x, shape_ops.full((), size, core.get_aval(x).dtype))
        else:
            summed = reduction.reduce_sum(x, (d,))
        shape = core.get_aval(summed).shape
        # dim of length size * chunk -> (size, chunk); position j's piece leads.
        pieces = shape_ops.reshape(summed, shape[:dim] + (size, shape[dim] // size)
                                   + shape[dim + 1:])
        out = batching.moveaxis(pieces, dim, 0)
    return trace.wrap(out, 0)


batching.named_axis_rules[reduce_scatter_p] = _reduce_scatter_rule
ad.deflinear(reduce_scatter_p, lambda ct, x, *, axis_name, dim, size, axis_index_groups=None: [
    all_gather_p.bind(ad.instantiate(ct), axis_name=axis_name, axis=dim, tiled=True,
                      size=size, axis_index_groups=axis_index_groups)])


def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, axis_index_groups=None,
                 tiled: bool = False):
    """The psum of ``x``, of which example j keeps piece j along ``scatter_dimension``
    (under pmap with ``axis_index_groups``: the sum over each group, of which its j-th
    member keeps piece j)."""
    groups, size = _groups_and_size("psum_scatter", axis_name, axis_index_groups)
    spans = "group" if groups else "axis"

    def one(v):
        v = as_array(v)
        if dtypes.is_bool(core.get_aval(v).dtype):  # a count, as psum's
            v = ew.convert_element_type(v, dtypes.default_int_dtype())
        shape = core.get_aval(v).shape
        if not 0 <= scatter_dimension < len(shape):
            raise core.value_error(f"psum_scatter: scatter_dimension {scatter_dimension} is "
                                   f"out of range for shape {shape}")
        length = shape[scatter_dimension]
        if length % size or (not tiled and length != size):
            raise core.value_error(f"psum_scatter: dimension {scatter_dimension} of shape "
                                   f"{shape} must "
                                   f"{'divide by' if tiled else 'equal'} the "
                                   f"{spans} size {size}")
        piece = reduce_scatter_p.bind(v, axis_name=axis_name, dim=scatter_dimension,
                                      size=size, axis_index_groups=groups)
        return piece if tiled else shape_ops.squeeze(piece, (scatter_dimension,))

    return tree_util.tree_map(one, x)
