"""Buffer donation for ``jit(f, donate_argnums=...)``: a donated input's buffer holds an output.

Each donated input is paired with the first output of its shape and dtype not yet paired
(JAX's rule); the pairs go to the compiler as ``numlir.aliasing_output`` argument
attributes, and the compiled code is right when the runtime passes one buffer as both
(compiler/lib/Bufferization/AliasDonatedBuffers.cpp). Donating only pays when nothing
else can see the buffer: numlir arrays hand out their NumPy buffers without copies
(``np.asarray``, DLPack, views), so a buffer is reused only when the donated Array is the
one holder of every object down its ``base`` chain, and no other argument of the call
shares its memory. Otherwise the call works on a copy. Either way the donated Array is
deleted, as JAX deletes it.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Sequence

import numpy as np

from numlir._src import core, dispatch, tree_util
from numlir._src.array import Array


def donated_leaves(in_tree, leaves, static_positions, donate_argnums,
                   donate_argnames) -> tuple[bool, ...]:
    """For each of ``leaves``, the flattened ``(dynamic args, dynamic kwargs)`` of a jitted
    call, whether it belongs to a donated argument."""
    dyn_args, dyn_kwargs = tree_util.tree_unflatten(in_tree, leaves)
    nargs = len(dyn_args) + len(static_positions)
    positions = [p for p in range(nargs) if p not in static_positions]
    donated = {i % nargs if i < 0 else i for i in donate_argnums if -nargs <= i < nargs}
    flags_args = tuple(tree_util.tree_map(lambda _, d=positions[k] in donated: d, a)
                       for k, a in enumerate(dyn_args))
    flags_kwargs = {k: tree_util.tree_map(lambda _, d=k in donate_argnames: d, v)
                    for k, v in dyn_kwargs.items()}
    return tuple(tree_util.tree_leaves((flags_args, flags_kwargs)))


def pair_outputs(in_avals: Sequence[core.ShapedArray], donated: Sequence[bool],
                 out_avals: Sequence[core.ShapedArray], where: str) -> dict[int, int]:
    """{input: output} for the donated inputs an output of the same shape and dtype can reuse;
    warns, as JAX does, about donated inputs no output can use."""
    free = list(range(len(out_avals)))
    pairs, unusable = {}, []
    for i, (aval, is_donated) in enumerate(zip(in_avals, donated)):
        if not is_donated:
            continue
        match = next((j for j in free if out_avals[j].shape == aval.shape
                      and out_avals[j].dtype == aval.dtype), None)
        if match is None:
            unusable.append(aval.str_short())
        else:
            free.remove(match)
            pairs[i] = match
    if unusable:
        warnings.warn(f"{where}: some donated buffers were not usable: {', '.join(unusable)} "
                      "(no output of the same shape and dtype is left to reuse them)",
                      stacklevel=4)
    return pairs


def _reference_counts(obj) -> list[int]:
    """The reference counts down ``obj``'s ``base`` chain, counted from one frame."""
    counts = []
    while obj is not None:
        counts.append(sys.getrefcount(obj))
        obj = getattr(obj, "base", None)
    return counts


class _OneHolder:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _sole_reference() -> int:
    """What each link of a chain counts when one object holds it: calibrated on this
    interpreter (CPython versions count borrowed references differently), on a view that
    one object holds, as an Array holds its buffer."""
    holder = _OneHolder(np.empty(2)[1:])
    return max(_reference_counts(holder.value))


_SOLE_REFERENCE = _sole_reference()


def _held_only_by(array: Array) -> bool:
    """Whether ``array`` is the one holder of its buffer: no view, ``np.asarray`` result,
    DLPack export or other Array refers to any object down the buffer's ``base`` chain."""
    return max(_reference_counts(array._value)) <= _SOLE_REFERENCE


def claim_buffers(leaves: list, pairs: dict[int, int]) -> tuple[dict[int, np.ndarray], list[Array]]:
    """Takes the donated buffers before the call: {output: buffer} and the donated Arrays.

    Must run before anything else refers to the buffers (``dispatch.device_args``).
    """
    outputs, donors = {}, []
    for i in pairs:
        leaf = leaves[i]
        if type(leaf) is not Array:
            continue
        if leaf.is_deleted():
            leaf._value._raise()
        donors.append(leaf)
        if not _held_only_by(leaf):  # first: a local reference would count as a holder
            continue
        value = leaf._value
        if type(value) is not np.ndarray:  # another kind of device's buffer: copied
            continue
        if value.flags.c_contiguous and value.dtype == leaf.dtype:
            try:
                value.flags.writeable = True
            except ValueError:  # a base that is not writable: work on a copy
                continue
            outputs[pairs[i]] = value
    return outputs, donors


def bind_buffers(host_args: list[np.ndarray], pairs: dict[int, int],
                 outputs: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """The output buffers the runtime writes for the paired inputs, each one also the input's
    buffer: the claimed buffer when it is the input as passed and no other argument shares
    its memory, else a copy of the input."""
    bound = {}
    for i, j in pairs.items():
        buffer = outputs.get(j)
        if buffer is None or host_args[i] is not buffer or any(
                k != i and np.may_share_memory(buffer, other) for k, other in enumerate(host_args)):
            if buffer is not None:
                buffer.flags.writeable = False
            buffer = np.array(host_args[i], order="C", copy=True)
            host_args[i] = buffer
        bound[j] = buffer
    return bound


def finish(donors: list[Array]) -> None:
    """Deletes the donated Arrays (also when the call failed: their buffers may be written)."""
    for donor in donors:
        donor.delete()


def execute(exe, leaves: list, in_avals, out_avals, pairs: dict[int, int],
            committed: bool = False) -> list[Array]:
    """Runs ``exe`` on ``leaves`` on its device, each paired input's buffer also its output's
    (see the module doc); without pairs, a plain call. The outputs are committed to the
    device if ``committed``."""
    device = exe.device
    if pairs and not device.host_memory:
        # Buffers in a device's own memory belong to its runtime: the module's aliasing
        # attributes ask it to move each donated buffer into its output (PJRT does), and
        # the donors are deleted as JAX deletes them.
        donors = [leaves[i] for i in pairs if type(leaves[i]) is Array]
        try:
            return dispatch.execute(exe, dispatch.device_args(leaves, in_avals, device),
                                    out_avals, committed=committed)
        finally:
            finish(donors)
    if not pairs:
        return dispatch.execute(exe, dispatch.device_args(leaves, in_avals, device), out_avals,
                                committed=committed)
    outputs, donors = claim_buffers(leaves, pairs)
    try:
        buffers = dispatch.device_args(leaves, in_avals, device)
        return dispatch.execute(exe, buffers, out_avals, bind_buffers(buffers, pairs, outputs),
                                committed=committed)
    finally:
        finish(donors)
