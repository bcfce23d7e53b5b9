"""The pool backend: numlir's CPU code, run on devices whose buffers live in a memory pool of
their own (the pool runtime driver, pool_driver.c).

Everything here uses numlir's public backend interface (``numlir.backends``) and its
runtime module; numlir learns of the backend only through the ``numlir.backends`` entry
point in pyproject.toml.
"""

from __future__ import annotations

import dataclasses
import glob
import math
import os
import threading
from typing import Any, Sequence

import numpy as np

import numlir.backends as nb
from numlir import _runtime

#: The runtime entry point numlir's CPU code exports.
ENTRY = "numlir_entry"


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {text!r}") from None


def driver_path() -> str:
    """The pool driver plugin built next to this file (setup.py)."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = sorted(glob.glob(os.path.join(here, "_pool_driver*.so")))
    if not found:
        raise nb.BackendUnavailableError(
            f"the 'pool' backend's runtime driver is not built in {here}: install the "
            "package with pip (it compiles pool_driver.c)")
    return found[0]


@dataclasses.dataclass(frozen=True)
class PoolOptions:
    """The pool backend's options: the CPU options its code is compiled with, and its own
    LLVM level (NUMLIR_POOL_OPT_LEVEL), which goes into them. Frozen and hashable: part of
    the compilation cache key."""

    cpu: nb.CpuOptions
    opt_level: int


class PoolBuffer:
    """An array's contents in a pool device's memory: the runtime Buffer and what it holds."""

    __slots__ = ("native", "dtype", "shape")

    def __init__(self, native: Any, dtype: np.dtype, shape: tuple[int, ...]):
        self.native, self.dtype, self.shape = native, dtype, shape

    def __repr__(self) -> str:
        return f"PoolBuffer({self.dtype.name}{list(self.shape)} on {self.native.device_name})"


class PoolExecutable(nb.Executable):
    """CPU code loaded on a pool device; takes and returns PoolBuffers."""

    def __init__(self, native: Any, device: "PoolDevice"):
        self._native = native
        self.device = device
        self.input_specs = [nb.BufferSpec(_dtype(d), tuple(s)) for d, s in native.input_specs]
        self.output_specs = [nb.BufferSpec(_dtype(d), tuple(s)) for d, s in native.output_specs]

    def execute(self, args: Sequence[PoolBuffer],
                given: dict[int, PoolBuffer] | None = None) -> list[PoolBuffer]:
        outputs = [given[i] if given and i in given else self.device.allocate(spec)
                   for i, spec in enumerate(self.output_specs)]
        try:
            self._native.execute_buffers([b.native for b in (*args, *outputs)])
        except MemoryError as error:
            raise nb.OutOfMemoryError(f"{self.name} ran out of memory on {self.device}: "
                                      f"{error}") from None
        return outputs


def _dtype(name: str) -> np.dtype:
    from numlir._src import dtypes  # the runtime's element type names

    return dtypes.from_mlir_element_type(name)


class PoolDevice(nb.Device):
    """One pool device: a runtime device of the pool driver, ``pool_bytes`` large."""

    name = "pool"
    host_memory = False  # the host reads its buffers only through copies

    def __init__(self, id: int, pool_bytes: int):  # noqa: A002 - jax's name
        self.id = id
        self.pool_bytes = pool_bytes
        self._native = None
        self._lock = threading.Lock()

    def _runtime_device(self) -> Any:
        if self._native is None:
            with self._lock:
                if self._native is None:
                    self._native = _open_device(self.id, self.pool_bytes)
        return self._native

    def is_available(self) -> bool:
        return True

    def load(self, executable: bytes) -> PoolExecutable:
        return PoolExecutable(self._runtime_device().load(executable, ENTRY), self)

    def allocate(self, spec: nb.BufferSpec) -> PoolBuffer:
        size = math.prod(spec.shape) * spec.dtype.itemsize
        try:
            native = self._runtime_device().allocate(size)
        except MemoryError as error:
            raise nb.OutOfMemoryError(str(error)) from None
        return PoolBuffer(native, spec.dtype, spec.shape)

    def put(self, value: np.ndarray) -> PoolBuffer:
        value = np.asarray(value, order="C")  # ascontiguousarray would make a 0-d array 1-d
        buffer = self.allocate(nb.BufferSpec(value.dtype, value.shape))
        buffer.native.copy_from_host(value.reshape(-1).view(np.uint8))
        return buffer

    def get(self, buffer: PoolBuffer) -> np.ndarray:
        host = np.empty(buffer.shape, buffer.dtype)
        buffer.native.copy_to_host(host.reshape(-1).view(np.uint8))
        host.flags.writeable = False
        return host

    def copy_from(self, buffer: Any, source: nb.Device) -> PoolBuffer:
        if isinstance(buffer, PoolBuffer):  # pool to pool: the runtime copies
            copy = self.allocate(nb.BufferSpec(buffer.dtype, buffer.shape))
            copy.native.copy_from(buffer.native)
            return copy
        return self.put(source.get(buffer))

    def synchronize(self) -> None:
        if self._native is not None:
            self._native.synchronize()


def _open_device(ordinal: int, pool_bytes: int) -> Any:
    """The runtime device, the driver plugin loaded first (once per process)."""
    nb.load_driver(driver_path(), "pool")
    return _runtime.Device("pool", ordinal, options={"pool_bytes": pool_bytes})


class PoolBackend(nb.Backend):
    """numlir's CPU stages, then the pool's own: CPU code as an executable of the pool driver.
    ``NUMLIR_POOL_DEVICES`` devices (default 2) of ``NUMLIR_POOL_BYTES`` each (256 MiB)."""

    name = "pool"

    def __init__(self) -> None:
        self._cpu = nb.CpuBackend()  # for its stages, options and cache identity
        self._devices: list[PoolDevice] | None = None

    @property
    def devices(self) -> list[PoolDevice]:
        if self._devices is None:
            count = _env_int("NUMLIR_POOL_DEVICES", 2)
            pool_bytes = _env_int("NUMLIR_POOL_BYTES", 256 << 20)
            devices = [PoolDevice(i, pool_bytes) for i in range(count)]
            devices[0]._runtime_device()  # loads the driver now: a missing one fails here
            self._devices = devices
        return self._devices

    @property
    def device(self) -> PoolDevice:
        return self.devices[0]

    def parse_options(self, *, opt_level: int | None = None, **cpu_options: Any) -> PoolOptions:
        level = _env_int("NUMLIR_POOL_OPT_LEVEL", -1) if opt_level is None else opt_level
        cpu = self._cpu.parse_options(opt_level=None if level < 0 else level, **cpu_options)
        return PoolOptions(cpu=cpu, opt_level=cpu.opt_level)

    def stages(self, options: PoolOptions) -> list[nb.Stage]:
        # numlir's CPU stages, each given the CPU part of the options.
        cpu = [dataclasses.replace(stage, run=lambda value, o, run=stage.run: run(value, o.cpu))
               for stage in self._cpu.stages(options.cpu)]
        return [*cpu, nb.Stage("pool-image", ".nlx", _relabel_for_pool,
                               replay="relabel the cpu image's payload for the 'pool' driver")]

    def describe_target(self) -> dict:
        return self._cpu.describe_target()

    def cache_identity(self, options: PoolOptions) -> str | None:
        cpu = self._cpu.cache_identity(options.cpu)
        return None if cpu is None else f"{cpu}\npool {options.opt_level}"


def _relabel_for_pool(image: bytes, options: PoolOptions) -> bytes:
    """The cpu stages' image holds a shared object for the cpu driver; the pool driver runs
    the same object, under an image that names it."""
    driver, payload = _runtime.unwrap_image(image)
    if driver != "cpu":
        raise nb.CompileError(f"the pool backend expected a cpu executable, got {driver!r}")
    return _runtime.wrap_image(payload, "pool")
