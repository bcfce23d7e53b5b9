"""The per-call path of a jitted function whose arguments all live on one device with memory
of its own (a PJRT device: a TPU, jaxlib's CPU client).

There a call's cost beside the device's work is Python's, and JAX pays little of it (its
dispatch is C++). After the first call of a signature has gone the general way (tracing,
placement, compiling), ``DeviceCalls`` remembers what that way decided, keyed by what decided
it: the arguments' abstract values, their device, whether one was committed, x64. A later
call with the same key hands the arguments' buffers to the executable and wraps its outputs,
skipping the flattening, placement, cache and transfer layers. Anything else (keyword or
non-Array arguments, deleted or mixed-device arrays, a trace, debug_nans) takes the general
path, as does every call on numlir's own CPU backend.

Most such calls are now remembered in C++ instead (``host_calls.remember_on_device``); this
path keeps the ones C++ declines: uncommitted arguments inside a ``default_device`` context,
whose default device is the thread's.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from numlir._src import config, core, dtypes, host_calls, placement
from numlir._src.array import Array, _DeletedBuffer


class _Plan(NamedTuple):
    exe: Any
    out_avals: list
    #: host_calls.unflattener's: None for one array, tuple or list, else a function.
    unflatten: Any


class DeviceCalls:
    """Remembered calls of one jitted function, at most ``executable_cache_size`` of them."""

    def __init__(self):
        self._plans: dict[tuple, _Plan] = {}

    def clear(self) -> None:
        self._plans.clear()

    @staticmethod
    def key(args: tuple) -> tuple | None:
        """The key of a call with positional ``args``, or None where it must go the general
        way: not all live Arrays on one device with its own memory, under no trace, with
        no NaN/inf checks."""
        if not args:
            return None
        device, committed, avals = None, False, []
        for a in args:
            if type(a) is not Array or type(a._value) is _DeletedBuffer:
                return None
            if device is None:
                device = a._device
                if device is None or device.host_memory:
                    return None
            elif a._device is not device:
                return None
            committed = committed or a._committed
            avals.append(a.aval)
        # Uncommitted arrays run where the default device is (placement.computation_device).
        if not committed and placement.current_default_device() is not device:
            return None
        flags = config.flags
        if (flags.disable_jit or flags.debug_nans or flags.debug_infs
                or not isinstance(core.current_trace(), core.EvalTrace)):
            return None
        return (tuple(avals), device, committed, dtypes.x64_enabled())

    def call(self, key: tuple, args: tuple):
        """The outputs of the call ``key`` describes, or None if none is remembered."""
        plan = self._plans.get(key)
        if plan is None:
            return None
        device, committed = key[1], key[2]
        outs = plan.exe.execute([a._value for a in args])
        if len(outs) != len(plan.out_avals):
            raise RuntimeError(f"executable returned {len(outs)} results, expected "
                               f"{len(plan.out_avals)}")
        arrays = [Array(o, aval, device, committed) for o, aval in zip(outs, plan.out_avals)]
        return arrays[0] if plan.unflatten is None else plan.unflatten(arrays)

    def remember(self, key: tuple, exe, out_avals, out_tree) -> None:
        """Keeps what the general path decided for ``key`` (its executable's device must be
        the arguments')."""
        if exe.device is not key[1]:
            return
        if len(self._plans) >= config.flags.executable_cache_size:
            self._plans.clear()
        self._plans[key] = _Plan(exe, list(out_avals), host_calls.unflattener(out_tree))
