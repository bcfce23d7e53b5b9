"""Where computations run and arrays live: JAX's placement rules and transfer guards.

- A computation (a jitted call or an eager op) runs on the device its *committed*
  arguments live on, and its outputs are committed there. Committed arguments on
  two different devices are an error (JAX's message). With no committed argument
  it runs on the default device and its outputs are uncommitted.
- ``jit(f, device=d)`` runs on ``d`` and ``jit(f, backend=b)`` on ``b``'s first
  device, whatever the arguments say; their outputs are committed.
- The default device is the innermost ``default_device(d)`` context of this thread,
  else the ``jax_default_device`` flag, else the default backend's first device.
- Transfer guards make implicit transfers visible: host data handed to a
  computation (a NumPy array or Python scalar argument, ``jnp.asarray`` of host
  data) is a host-to-device transfer; reading a device's buffer on the host is a
  device-to-host one, except where buffers are host memory (the CPU), as in JAX.
  ``"log"`` logs implicit ones, ``"disallow"`` refuses them, and ``"log_explicit"``
  / ``"disallow_explicit"`` cover ``device_put`` and ``device_get`` too.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Sequence
from typing import Any

from numlir._src import backends, config, core
from numlir._src.array import Array

_logger = logging.getLogger("numlir")

_DIRECTIONS = ("host_to_device", "device_to_device", "device_to_host")


class _ThreadState(threading.local):
    """What this thread's contexts set: default devices and transfer guard levels
    (innermost last); empty means the flags decide."""

    def __init__(self) -> None:
        self.default_devices: list = []
        self.guards: dict[str, list[str]] = {d: [] for d in _DIRECTIONS}


_state = _ThreadState()

_default_backend = None


def default_backend():
    """The backend computations use when nothing names one (``config.flags.backend``)."""
    global _default_backend
    if _default_backend is None:
        _default_backend = backends.get_backend()
    return _default_backend


def _as_device(value, what: str):
    """A Device from a Device, a one-device sharding or a backend name."""
    if isinstance(value, backends.Device):
        return value
    device_set = getattr(value, "device_set", None)
    if device_set is not None and len(device_set) == 1:
        return next(iter(device_set))
    if isinstance(value, str):
        return backends.get_backend(value).devices[0]
    raise TypeError(f"{what} must be a numlir Device (numlir.devices()[i]), a "
                    f"SingleDeviceSharding or a backend name, got {value!r}")


_first_device = None


def _forget_backend() -> None:
    global _default_backend, _first_device
    _default_backend = _first_device = None


config.on_update("backend", _forget_backend)


def current_default_device():
    """The device a computation without committed arguments runs on (see the module doc)."""
    stack = _state.default_devices
    if stack and stack[-1] is not None:
        return stack[-1]
    flag = config.flags.default_device
    if flag is not None:
        return _as_device(flag, "jax_default_device")
    global _first_device
    if _first_device is None:
        _first_device = default_backend().devices[0]
    return _first_device


@contextlib.contextmanager
def default_device(device):
    """Within the context, this thread's computations without committed arguments run on
    ``device`` and new arrays are made there (``jax.default_device``); None restores the
    flag's default.

    Example::

        with numlir.default_device(numlir.devices()[1]):
            x = numlir.numpy.ones(3)       # on device 1, uncommitted
    """
    # None is pushed too: it hides outer contexts, so the flag decides within this one.
    _state.default_devices.append(None if device is None else _as_device(device, "device"))
    try:
        yield
    finally:
        _state.default_devices.pop()


# --- Transfer guards ---------------------------------------------------------------------


def guard_level(direction: str) -> str:
    """This thread's level for ``direction`` ("host_to_device", ...)."""
    stack = _state.guards[direction]
    return stack[-1] if stack else getattr(config.flags, f"transfer_guard_{direction}")


@contextlib.contextmanager
def _guard_scope(directions: Sequence[str], level: str):
    config._transfer_guard_level(level, "transfer guard level")
    for direction in directions:
        _state.guards[direction].append(level)
    try:
        yield
    finally:
        for direction in directions:
            _state.guards[direction].pop()


def transfer_guard(level: str):
    """Within the context, this thread's transfers of every direction follow ``level``:
    "allow", "log", "disallow", "log_explicit" or "disallow_explicit" (jax.transfer_guard)."""
    return _guard_scope(_DIRECTIONS, level)


def transfer_guard_host_to_device(level: str):
    """As transfer_guard, for host-to-device transfers only."""
    return _guard_scope(("host_to_device",), level)


def transfer_guard_device_to_device(level: str):
    """As transfer_guard, for device-to-device transfers only."""
    return _guard_scope(("device_to_device",), level)


def transfer_guard_device_to_host(level: str):
    """As transfer_guard, for device-to-host transfers only."""
    return _guard_scope(("device_to_host",), level)


class TransferGuardError(RuntimeError):
    """A transfer the active transfer guard disallows (JAX raises this as a runtime error
    whose message starts with the same words)."""


def _check(direction: str, explicit: bool, describe) -> None:
    level = guard_level(direction)
    if level == "allow":
        return
    covered = not explicit or level.endswith("_explicit")
    if not covered:
        return
    words = direction.replace("_", "-")
    if level.startswith("disallow"):
        raise TransferGuardError(f"Disallowed {words} transfer: {describe()}")
    _logger.warning("%s transfer: %s", words, describe())


def _jax_type(aval: core.ShapedArray) -> str:
    """``float32[3]``: how JAX's messages write an abstract value's type."""
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def _jax_aval(aval: core.ShapedArray) -> str:
    weak = ", weak_type=True" if aval.weak_type else ""
    return f"ShapedArray({_jax_type(aval)}{weak})"


def host_to_device(aval: core.ShapedArray, device, explicit: bool = False) -> None:
    """Host data becomes an array on ``device``: logged or refused as the guard says."""
    _check("host_to_device", explicit,
           lambda: f"aval={_jax_aval(aval)}, dst_sharding={_sharding(device)!r}")


def device_to_device(aval: core.ShapedArray, source, device, explicit: bool = False) -> None:
    del source  # JAX's message names the destination only
    _check("device_to_device", explicit,
           lambda: f"aval={_jax_aval(aval)}, dst_sharding={_sharding(device)!r}")


def device_to_host(aval: core.ShapedArray, device, explicit: bool = False) -> None:
    _check("device_to_host", explicit,
           lambda: f"aval={_jax_aval(aval)}, sharding={_sharding(device)!r}")


def _sharding(device):
    from numlir._src.sharding import SingleDeviceSharding

    return SingleDeviceSharding(device)


def to_host(array, explicit: bool = False):
    """``array``'s contents as a host ndarray (a device-to-host transfer where its device's
    buffers are not host memory)."""
    device = array.device
    if not device.host_memory:
        device_to_host(array.aval, device, explicit)
    return device.get(array._value)


def place_from_host(array):
    """``array``, just made from host data by a user-facing call (``jnp.asarray``), put on the
    default device: an implicit host-to-device transfer, under the guard."""
    device = current_default_device()
    host_to_device(array.aval, device)
    if not device.accepts(array._value, None):
        array._value = device.put(array._value)
    array._device = device
    return array


# --- Where a computation runs ------------------------------------------------------------


def _describe_argument(name: str, where: str, aval, device) -> str:
    return (f"argument {name} of {where} with shape {_jax_type(aval)} and with device ids "
            f"[{device.id}] on platform {device.platform.upper()}")


def incompatible_devices(where: str, first, second) -> ValueError:
    """JAX's error for committed arguments on two devices; ``first``/``second`` are
    (argument name, aval, device)."""
    return ValueError("Received incompatible devices for jitted computation. Got "
                      f"{_describe_argument(first[0], where, *first[1:])} and "
                      f"{_describe_argument(second[0], where, *second[1:])}")


class IncompatibleDevices(Exception):
    """Flat arguments ``first`` and ``second`` are committed to different devices; the caller,
    which knows the arguments' names, turns it into :func:`incompatible_devices`."""

    def __init__(self, first: int, second: int):
        super().__init__(first, second)
        self.first, self.second = first, second

    def error(self, args: Sequence[Any], where: str, name) -> ValueError:
        """JAX's ValueError, ``name(i)`` naming flat argument i."""
        a, b = args[self.first], args[self.second]
        return incompatible_devices(where, (name(self.first), a.aval, a._device),
                                    (name(self.second), b.aval, b._device))


def computation_device(args: Sequence[Any], device=None, backend: str | None = None):
    """(device, committed) for a computation on ``args``, its flat arguments; ``device`` and
    ``backend`` are jit's. Raises IncompatibleDevices for committed arguments on two
    devices. On every call's path, so it is kept to one pass over the arguments."""
    if device is not None:
        return _as_device(device, "device"), True
    if backend is not None:
        return backends.get_backend(backend).device, True
    found = None
    for i, a in enumerate(args):
        if type(a) is Array and a._committed:
            if found is None:
                found = i
            elif a._device is not args[found]._device:
                raise IncompatibleDevices(found, i)
    if found is not None:
        return args[found]._device, True
    return current_default_device(), False
