"""A PJRT device as a numlir Device: buffers are jaxlib's single-device arrays, executables
jaxlib's loaded executables.

jaxlib owns the device memory, the transfers and the execution queue; numlir sees opaque
buffers (``host_memory`` is False), which it reads only through ``get``. Execution is
asynchronous, as in JAX: ``execute`` returns once the work is queued, and a read or
``synchronize`` waits for it.
"""

from __future__ import annotations

import json
import struct
import weakref
from typing import Any, Sequence

import jax
import numpy as np
from jax._src import core as jax_core
from jax._src.lib import xla_client
from jax.sharding import SingleDeviceSharding

import numlir.backends as nb
from numlir._src import dtypes
from numlir_pjrt.vendor_limits import refuse_known_aborts

_SPEC_HEADER = struct.Struct("<Q")


def compile_options() -> Any:
    """One replica, one partition: a numlir executable runs on one device."""
    return xla_client.CompileOptions()


def pack_executable(specs: dict, serialized: bytes) -> bytes:
    """A PJRT backend's image: its buffer specs (JSON) and jaxlib's serialized executable."""
    meta = json.dumps(specs).encode()
    return _SPEC_HEADER.pack(len(meta)) + meta + serialized


def unpack_executable(image: bytes) -> tuple[dict, bytes]:
    (size,) = _SPEC_HEADER.unpack_from(image)
    start = _SPEC_HEADER.size
    return json.loads(image[start:start + size]), image[start + size:]


def _specs(entries) -> list[nb.BufferSpec]:
    return [nb.BufferSpec(dtypes.from_mlir_element_type(d), tuple(s)) for d, s in entries]


def _result_handlers(specs: Sequence[nb.BufferSpec], pjrt_device: Any) -> list[Any]:
    """jaxlib's C++ makers of one-device arrays for outputs of these specs: they wrap an
    execution's buffers without the per-output Python objects that disassembling them into
    arrays makes (on a TPU host, 25 of a 135-µs call; docs/pjrt.md, "Dispatch")."""
    sharding = SingleDeviceSharding(pjrt_device)
    # The dtypes are numlir's, already canonical: jax must not narrow them to its x64 flag.
    with jax.enable_x64(True):
        return [xla_client.array_result_handler(jax_core.ShapedArray(s.shape, s.dtype),
                                                sharding, committed=True, _skip_checks=True)
                for s in specs]


class PjrtExecutable(nb.Executable):
    """A module compiled by a PJRT client and loaded on one of its devices."""

    def __init__(self, loaded: Any, device: "PjrtDevice", specs: dict):
        self._loaded = loaded
        self.device = device
        self.input_specs = _specs(specs["inputs"])
        self.output_specs = _specs(specs["outputs"])
        self._handlers = _result_handlers(self.output_specs, device.pjrt_device)

    def serialize(self) -> bytes:
        return self._loaded.serialize()

    def execute(self, args: Sequence[Any], given: dict[int, Any] | None = None) -> list[Any]:
        del given  # device buffers: donation gives no output buffers (donation.py)
        # jaxlib's one-device form of execute, without its Python wrapper: on every call.
        outs = self._loaded.execute_sharded(args).consume_with_handlers(self._handlers)
        if outs:
            # Inline, not a method: a Python call costs ~2 µs on the TPU host (session 36).
            self.device._last = weakref.ref(outs[-1])  # jax Arrays are weakly referable
        return outs


class PjrtDevice(nb.Device):
    """One device of a PJRT client; its platform name is its numlir backend's."""

    host_memory = False

    def __init__(self, backend_name: str, id: int, pjrt_device: Any):  # noqa: A002 - jax's
        self.name = backend_name
        self.id = id
        self.pjrt_device = pjrt_device
        #: The last output queued on this device: PJRT runs a device's work in order, so
        #: waiting for it waits for everything queued before.
        self._last: weakref.ref | None = None

    @property
    def device_kind(self) -> str:
        return self.pjrt_device.device_kind

    @property
    def lowering_platform(self) -> str:
        return self.pjrt_device.platform  # "cpu" for jaxlib's CPU client, "tpu"

    def is_available(self) -> bool:
        return True

    def load(self, executable: bytes) -> PjrtExecutable:
        specs, serialized = unpack_executable(executable)
        client = self.pjrt_device.client
        loaded = client.deserialize_executable(
            serialized, xla_client.DeviceList((self.pjrt_device,)), compile_options())
        return PjrtExecutable(loaded, self, specs)

    def compile(self, module: bytes, specs: dict) -> PjrtExecutable:
        """StableHLO (text or a portable artifact) compiled by the client for this device."""
        refuse_known_aborts(self.pjrt_device.client.platform, module)
        try:
            loaded = self.pjrt_device.client.compile_and_load(
                module, xla_client.DeviceList((self.pjrt_device,)), compile_options())
        except Exception as error:  # noqa: BLE001 - the PJRT compiler's diagnostics
            raise nb.CompileError(f"the {self.name} PJRT compiler rejected the module: "
                                  f"{error}") from None
        return PjrtExecutable(loaded, self, specs)

    def put(self, value: np.ndarray) -> Any:
        # jax.device_put narrows 64-bit values unless x64 is on in jax's own config; numlir's
        # dtypes are already canonical here.
        with jax.enable_x64(True):
            return jax.device_put(np.asarray(value), self.pjrt_device)

    def get(self, buffer: Any) -> np.ndarray:
        host = np.asarray(buffer)
        if host.flags.writeable:
            host.flags.writeable = False
        return host

    def copy_from(self, buffer: Any, source: nb.Device) -> Any:
        if isinstance(buffer, jax.Array):  # PJRT to PJRT: jaxlib copies between devices
            with jax.enable_x64(True):
                return jax.device_put(buffer, self.pjrt_device)
        return self.put(source.get(buffer))

    def synchronize(self) -> None:
        last = self._last() if self._last is not None else None
        if last is not None and not last.is_deleted():
            last.block_until_ready()
