"""device_put, device_get and block_until_ready over pytrees, as in jax.

``device_put(x, d)`` copies each leaf onto device ``d`` and commits it there, so
computations on it run on ``d``; without a device, host data becomes an
uncommitted array on the default device and arrays stay where they are. These
are explicit transfers: only the ``*_explicit`` transfer guard levels cover them
(placement.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numlir._src import core, placement, tree_util
from numlir._src.array import Array


def _put_leaf(x, device, committed: bool, may_alias):
    if isinstance(x, core.Tracer):
        return x  # inside a trace the value has no device yet
    if isinstance(x, Array):
        if x.is_deleted():
            x._value._raise()
        source = x.device
        if device is None:
            return x
        if source is device:
            if may_alias is False:
                return Array(device.copy_from(x._value, source), x.aval, device, committed)
            return x if x._committed == committed else Array(x._value, x.aval, device, committed)
        placement.device_to_device(x.aval, source, device, explicit=True)
        return Array(device.copy_from(x._value, source), x.aval, device, committed)
    aval = core.get_aval(x)
    target = placement.current_default_device() if device is None else device
    placement.host_to_device(aval, target, explicit=True)
    host = np.array(core.concrete_to_numpy(x), dtype=aval.dtype, order="C", copy=True)
    return Array(target.put(host), aval, target, committed)


def device_put(x: Any, device=None, *, src=None, donate: bool = False,
               may_alias: bool | None = None) -> Any:
    """Every array leaf of ``x`` on ``device`` (a Device or SingleDeviceSharding), committed
    there; without a device, host leaves become uncommitted arrays on the default device
    (Python scalars weak-typed) and arrays stay where they are. ``may_alias=False`` always
    copies. ``src`` and ``donate`` are accepted for JAX's signature."""
    del src, donate
    target = None if device is None else placement._as_device(device, "device")
    committed = target is not None
    return tree_util.tree_map(lambda leaf: _put_leaf(leaf, target, committed, may_alias), x)


def _to_host(leaf):
    if isinstance(leaf, core.Tracer):
        raise core.ConcretizationTypeError(
            f"device_get got a traced value {leaf.aval.str_short()}: it needs a concrete array, "
            "so call it outside jit (or return the value from the jitted function)")
    if isinstance(leaf, Array):
        if leaf.is_deleted():
            leaf._value._raise()
        return placement.to_host(leaf, explicit=True)
    return leaf


def device_get(x: Any) -> Any:
    """``x`` with every numlir.Array leaf as a NumPy array (other leaves unchanged)."""
    return tree_util.tree_map(_to_host, x)


def block_until_ready(x: Any) -> Any:
    """Waits for every array leaf of ``x`` and returns ``x``."""
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array):
            leaf.block_until_ready()
    return x

