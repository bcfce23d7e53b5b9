"""The named axes of an SPMD program (pmap's): which replicas a collective combines.

An SPMD module runs once per replica. Its axis environment is a list of frames, one per
named mapped axis, outermost first; replica ``r``'s index along a frame is
``(r // stride) % size``, so the replicas are numbered in row-major order of the axes.
Lowering turns a collective over some of the names into ``replica_groups`` (the replicas
that share every other index form one group) and ``axis_index`` into arithmetic on
``hlo.replica_id`` (docs/design-pmap.md).

While an SPMD body traces, its environment sits on a thread-local stack, so that
``axis_size`` finds a pmap's axis as it finds a vmap's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import threading
from typing import Iterator, Sequence


@dataclasses.dataclass(frozen=True)
class AxisFrame:
    """One named axis: its size, and the replica-id distance between neighbours on it."""

    name: object
    size: int
    stride: int


@dataclasses.dataclass(frozen=True)
class AxisEnv:
    """The named axes of an SPMD module, outermost first."""

    frames: tuple[AxisFrame, ...] = ()

    @staticmethod
    def of(names_and_sizes: Sequence[tuple[object, int]]) -> "AxisEnv":
        """Frames for axes given outermost first; the innermost has stride 1."""
        frames, stride = [], 1
        for name, size in reversed(list(names_and_sizes)):
            frames.append(AxisFrame(name, int(size), stride))
            stride *= int(size)
        return AxisEnv(tuple(reversed(frames)))

    @property
    def num_replicas(self) -> int:
        return math.prod(f.size for f in self.frames)

    def frame(self, name) -> AxisFrame | None:
        for frame in reversed(self.frames):  # an inner axis shadows an outer one
            if frame.name == name:
                return frame
        return None

    def has(self, names: Sequence[object]) -> bool:
        return all(self.frame(n) is not None for n in names)


def replica_groups(env: AxisEnv, names: Sequence[object],
                   axis_index_groups: Sequence[Sequence[int]] | None = None) -> list[list[int]]:
    """The groups of replicas a collective over ``names`` combines: replicas that agree on
    every other axis, each group in increasing replica id, the groups in order of their
    first member. For frames ('i', 2, stride 2), ('j', 2, stride 1): 'i' gives
    [[0, 2], [1, 3]], 'j' gives [[0, 1], [2, 3]], both give [[0, 1, 2, 3]].
    ``axis_index_groups`` (positions along the one named axis) split each group."""
    chosen = [env.frame(n) for n in names]
    if any(f is None for f in chosen):
        missing = [n for n, f in zip(names, chosen) if f is None]
        raise NameError(f"unbound axis name: {missing[0]!r}")
    others = [f for f in env.frames if f not in chosen]
    groups: dict[tuple[int, ...], list[int]] = {}
    for replica in range(env.num_replicas):
        key = tuple((replica // f.stride) % f.size for f in others)
        groups.setdefault(key, []).append(replica)
    whole = sorted(groups.values(), key=lambda g: g[0])
    if axis_index_groups is None:
        return whole
    # JAX's groups name positions along one axis: each splits every group above.
    return sorted(([group[i] for i in subgroup] for group in whole
                   for subgroup in axis_index_groups), key=lambda g: g[0])


_stack = threading.local()


def axis_env() -> AxisEnv:
    """The environment of the SPMD body tracing on this thread (empty outside one)."""
    return getattr(_stack, "env", AxisEnv())


@contextlib.contextmanager
def extend_axis_env(names_and_sizes: Sequence[tuple[object, int]]) -> Iterator[AxisEnv]:
    """Pushes named axes (outermost first) inside the current ones while a body traces."""
    previous = axis_env()
    inner = AxisEnv.of([(f.name, f.size) for f in previous.frames] + list(names_and_sizes))
    _stack.env = inner
    try:
        yield inner
    finally:
        _stack.env = previous


def replication_checked() -> bool:
    """Whether a shard_map body with check_vma=True is tracing on this thread."""
    return getattr(_stack, "check_vma", False)


@contextlib.contextmanager
def checking_replication(on: bool) -> Iterator[None]:
    """Marks a shard_map body's trace as checked for replication (JAX's check_vma). With it
    on, JAX's types track which values vary over which axes, and a cotangent flowing from a
    varying use back to a replicated value is psummed; numlir does not model that yet, so
    transposition refuses to run there rather than give check_vma=False's gradients."""
    previous = replication_checked()
    _stack.check_vma = on
    try:
        yield
    finally:
        _stack.check_vma = previous


@contextlib.contextmanager
def spreading_shard_maps(trace) -> Iterator[None]:
    """While jit traces its function on ``trace`` (its own top-level graph trace, for the
    CPU devices), a shard_map called right there binds its primitive instead of running as
    vmaps, so that jit can run the whole program over the mesh's devices (shard_map.py).
    Called anywhere else (inside grad, vmap, a loop's body), shard_map keeps its vmaps."""
    previous = getattr(_stack, "spreading", None)
    _stack.spreading = trace
    try:
        yield
    finally:
        _stack.spreading = previous


def spreads_shard_maps(trace) -> bool:
    """Whether a shard_map called on ``trace`` is spread over its mesh's devices."""
    return trace is not None and getattr(_stack, "spreading", None) is trace
