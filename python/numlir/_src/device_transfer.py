"""device_put, device_get and block_until_ready over pytrees, as in jax.

The CPU device's buffers are host memory, so a transfer is at most a copy into an
immutable numlir.Array (device_put) or a read-only NumPy view of one (device_get).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numlir._src import core, tree_util
from numlir._src.array import Array, as_array


def device_put(x: Any, device=None) -> Any:
    """Every array leaf of ``x`` as a numlir.Array (Python scalars become weak-typed ones)."""
    del device  # one host device
    return tree_util.tree_map(as_array, x)


def _to_host(leaf):
    if isinstance(leaf, core.Tracer):
        raise core.ConcretizationTypeError(
            f"device_get got a traced value {leaf.aval.str_short()}: it needs a concrete array, "
            "so call it outside jit (or return the value from the jitted function)")
    return np.asarray(leaf) if isinstance(leaf, Array) else leaf


def device_get(x: Any) -> Any:
    """``x`` with every numlir.Array leaf as a NumPy array (other leaves unchanged)."""
    return tree_util.tree_map(_to_host, x)


def block_until_ready(x: Any) -> Any:
    """Waits for every array leaf of ``x`` (the CPU runtime computes synchronously) and
    returns ``x``."""
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array):
            leaf.block_until_ready()
    return x
