"""jit's data parallelism: run a traced global graph as each device's part of it.

``jit(f, in_shardings=...)`` with arguments split along one dimension over mesh axes (the
batch) or replicated (the parameters) traces ``f`` on the global shapes, then evaluates
that graph inside a shard_map body, one equation at a time, on each device's blocks. Every
value is either replicated (its whole global value on every device) or split along one
dimension over some mesh axes (each device holds its block). The rules keep values split
where the arithmetic allows it, with no search (docs/design-pmap.md §5):

- elementwise primitives (those batching calls vectorized or broadcasting) keep a common
  split; a replicated operand meeting a split one is cut to the device's block;
- broadcast_in_dim, transpose and reshapes that keep the split dimension move it;
- a sum, max or min over the split dimension reduces locally, then psum/pmax/pmin: the
  result is replicated;
- dot_general keeps a split batch or free dimension, and a contraction over a split
  dimension (the weight gradient of a split batch) becomes a local product plus a psum;
- anything else all_gathers its split operands first and runs on the global values:
  correct, only not parallel.

Floating-point sums then add partial sums per device, so results may differ from one
device's in the last bits, as XLA's SPMD partitioner's do.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

from numlir._src import batching, core
from numlir._src.lax import collectives, slicing
from numlir._src.sharding import PartitionSpec


@dataclasses.dataclass(frozen=True)
class Split:
    """Dimension ``dim`` cut into ``count`` blocks over mesh axes ``names`` (outermost
    first); the device at mesh coordinates c holds block mixed-radix(c[names])."""

    dim: int
    names: tuple[str, ...]
    count: int

    def moved(self, dim: int) -> "Split":
        return dataclasses.replace(self, dim=dim)


@dataclasses.dataclass
class Part:
    """A value on one device: its local array and how the global value is split."""

    value: Any
    split: Split | None


def block_index(names: Sequence[str], sizes: dict[str, int]):
    """This device's block number along ``names`` (traced)."""
    index = None
    for name in names:
        here = collectives.axis_index(name)
        index = here if index is None else index * sizes[name] + here
    return index


def gather(part: Part) -> Any:
    """The global value of ``part``: one tiled all_gather per mesh axis of the split, the
    innermost first. (One all_gather over all the names would order the blocks by replica
    id, which is the split's order only when its names come in the mesh's order.)"""
    if part.split is None:
        return part.value
    value = part.value
    for name in reversed(part.split.names):
        value = collectives.all_gather(value, name, axis=part.split.dim, tiled=True)
    return value


def cut(value: Any, split: Split, sizes: dict[str, int]) -> Any:
    """This device's block of a replicated global ``value``."""
    block = value.shape[split.dim] // split.count
    start = block_index(split.names, sizes) * block
    return slicing.dynamic_slice_in_dim(value, start, block, split.dim)


def _bind(eqn, values, **params):
    out = eqn.prim.bind(*values, **{**eqn.params, **params})
    return out if eqn.prim.multiple_results else [out]


def _fallback(eqn, parts, sizes):
    return [Part(v, None) for v in _bind(eqn, [gather(p) for p in parts])]


def _elementwise(eqn, parts, sizes):
    shape = eqn.outputs[0].aval.shape
    # Rank-0 operands broadcast; every other operand has the output's global shape.
    whole = [a.aval.ndim > 0 for a in eqn.inputs]
    if any(w and a.aval.shape != shape for w, a in zip(whole, eqn.inputs)) or any(
            v.aval.shape != shape for v in eqn.outputs):
        return None
    splits = {p.split for p in parts if p.split is not None}
    if len(splits) > 1:
        return None
    split = splits.pop()
    values = [cut(p.value, split, sizes) if w and p.split is None else p.value
              for w, p in zip(whole, parts)]
    return [Part(v, split) for v in _bind(eqn, values)]


def _local(shape, split: Split | None) -> tuple[int, ...]:
    if split is None:
        return tuple(shape)
    return tuple(s // split.count if d == split.dim else s for d, s in enumerate(shape))


def _broadcast_in_dim(eqn, parts, sizes):
    (x,) = parts
    shape, dims = eqn.params["shape"], eqn.params["broadcast_dimensions"]
    if x.split is None:
        return [Part(_bind(eqn, [x.value])[0], None)]
    out_dim = dims[x.split.dim]
    if eqn.inputs[0].aval.shape[x.split.dim] != shape[out_dim]:
        return None  # a size-1 dimension broadcast: not split any more
    split = x.split.moved(out_dim)
    return [Part(_bind(eqn, [x.value], shape=_local(shape, split))[0], split)]


def _transpose(eqn, parts, sizes):
    (x,) = parts
    if x.split is None:
        return [Part(_bind(eqn, [x.value])[0], None)]
    split = x.split.moved(list(eqn.params["permutation"]).index(x.split.dim))
    return [Part(_bind(eqn, [x.value])[0], split)]


def _reshape(eqn, parts, sizes):
    (x,) = parts
    new = tuple(eqn.params["new_sizes"])
    if x.split is None:
        return [Part(_bind(eqn, [x.value])[0], None)]
    old, d = eqn.inputs[0].aval.shape, x.split.dim
    # The split dimension and everything before it stay as they are (a flatten of the
    # dimensions after the batch, say).
    if eqn.params.get("dimensions") is not None or old[:d + 1] != new[:d + 1]:
        return None
    return [Part(_bind(eqn, [x.value], new_sizes=_local(new, x.split))[0], x.split)]


_COMBINE = {"reduce_sum": collectives.psum, "reduce_max": collectives.pmax,
            "reduce_min": collectives.pmin}


def _reduce(eqn, parts, sizes):
    (x,) = parts
    axes = tuple(eqn.params["axes"])
    out = _bind(eqn, [x.value])[0]
    if x.split is None:
        return [Part(out, None)]
    s = x.split
    if s.dim in axes:
        return [Part(_COMBINE[eqn.prim.name](out, s.names), None)]
    return [Part(out, s.moved(s.dim - sum(a < s.dim for a in axes)))]


def _dot_general(eqn, parts, sizes):
    lhs, rhs = parts
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs_rank = len(eqn.inputs[0].aval.shape)
    rhs_rank = len(eqn.inputs[1].aval.shape)
    lhs_free = [d for d in range(lhs_rank) if d not in lc and d not in lb]
    rhs_free = [d for d in range(rhs_rank) if d not in rc and d not in rb]

    def run(a, b):
        return _bind(eqn, [a, b])[0]

    if lhs.split is None and rhs.split is None:
        return [Part(run(lhs.value, rhs.value), None)]
    if lhs.split is not None and rhs.split is not None:
        ls, rs = lhs.split, rhs.split
        if ls.names != rs.names:
            return None
        if ls.dim in lc and rs.dim == rc[list(lc).index(ls.dim)]:
            return [Part(collectives.psum(run(lhs.value, rhs.value), ls.names), None)]
        if ls.dim in lb and rs.dim == rb[list(lb).index(ls.dim)]:
            return [Part(run(lhs.value, rhs.value), ls.moved(list(lb).index(ls.dim)))]
        return None
    # One side split: the other is cut to match where they meet.
    left = lhs.split is not None
    s = lhs.split if left else rhs.split
    mine, other = (lc, rc) if left else (rc, lc)
    my_batch, other_batch = (lb, rb) if left else (rb, lb)
    free = lhs_free if left else rhs_free
    if s.dim in mine:
        i = list(mine).index(s.dim)
        cut_other = cut((rhs if left else lhs).value, s.moved(other[i]), sizes)
        a, b = (lhs.value, cut_other) if left else (cut_other, rhs.value)
        return [Part(collectives.psum(run(a, b), s.names), None)]
    if s.dim in my_batch:
        i = list(my_batch).index(s.dim)
        cut_other = cut((rhs if left else lhs).value, s.moved(other_batch[i]), sizes)
        a, b = (lhs.value, cut_other) if left else (cut_other, rhs.value)
        return [Part(run(a, b), s.moved(i))]
    out_dim = len(lb) + free.index(s.dim) + (0 if left else len(lhs_free))
    return [Part(run(lhs.value, rhs.value), s.moved(out_dim))]


RULES = {"broadcast_in_dim": _broadcast_in_dim, "transpose": _transpose,
         "reshape": _reshape, "reduce_sum": _reduce, "reduce_max": _reduce,
         "reduce_min": _reduce, "dot_general": _dot_general}


def evaluate(graph: core.Graph, consts: Sequence[Any], args: Sequence[Part],
             sizes: dict[str, int]) -> list[Part]:
    """Runs ``graph`` (traced on global shapes) on this device's parts of its inputs,
    inside an SPMD body whose mesh axes have ``sizes``; returns its outputs' parts."""
    env: dict[int, Part] = {}

    def read(atom) -> Part:
        if isinstance(atom, core.Literal):
            return Part(atom.val, None)
        return env[id(atom)]

    for v, c in zip(graph.constvars, consts):
        env[id(v)] = Part(c, None)
    for v, a in zip(graph.invars, args):
        env[id(v)] = a
    for eqn in graph.eqns:
        parts = [read(a) for a in eqn.inputs]
        with core.source_info_scope(eqn.source_info):
            if all(p.split is None for p in parts):
                outs = [Part(v, None) for v in _bind(eqn, [p.value for p in parts])]
            else:
                rule = RULES.get(eqn.prim.name)
                if rule is None and eqn.prim in batching.elementwise_prims:
                    rule = _elementwise
                outs = (rule(eqn, parts, sizes) if rule else None) or \
                    _fallback(eqn, parts, sizes)
        for v, o in zip(eqn.outputs, outs):
            env[id(v)] = o
    return [read(a) for a in graph.outvars]


def to_split(part: Part, split: Split | None, sizes: dict[str, int]) -> Any:
    """``part``'s value as ``split`` asks (gathered and/or cut as needed)."""
    if part.split == split:
        return part.value
    whole = gather(part)
    return whole if split is None else cut(whole, split, sizes)


def split_of_spec(spec, mesh_sizes: dict[str, int], where: str) -> Split | None:
    """The Split a PartitionSpec describes: at most one dimension split."""
    dims = [d for d in range(len(spec)) if spec.names_of(d)]
    if not dims:
        return None
    if len(dims) > 1:
        raise NotImplementedError(
            f"jit with shardings: {where} {spec} splits {len(dims)} dimensions; numlir's "
            "data-parallel partitioner splits one (the batch). Use shard_map for more")
    names = spec.names_of(dims[0])
    return Split(dims[0], names, math.prod(mesh_sizes[n] for n in names))


def spec_of_split(split: Split | None, ndim: int) -> PartitionSpec:
    if split is None:
        return PartitionSpec()
    entries = [None] * ndim
    entries[split.dim] = split.names if len(split.names) > 1 else split.names[0]
    return PartitionSpec(*entries)
