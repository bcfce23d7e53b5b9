"""The GPU's memory bandwidth, for bench/run.py --device cuda: the limit W1-W3 are measured
against there, as machine.py's copy bandwidth is on the host.

    .venv/bin/python bench/gpu_limits.py [--quick]      # prints one JSON object

The probe goes to the CUDA driver API itself (ctypes on libcuda.so.1, or NUMLIR_LIBCUDA),
not through numlir or jax, so that the limit belongs to the machine rather than to either
framework: device-to-device copies of one large buffer into another on a stream, the best
of several timed batches, counting each byte read and written (2 x size per copy, as
machine.py's ``copy_gbs``). The same figure stands for the read limit too: reading alone
needs a kernel, and a GPU's reads and copies run at about the same rate.

Without a driver the probe raises a RuntimeError that says so.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import time


class CudaError(RuntimeError):
    pass


class Driver:
    """The few driver API calls the probe makes, each checked."""

    def __init__(self, path: str | None = None):
        path = path or os.environ.get("NUMLIR_LIBCUDA") or "libcuda.so.1"
        try:
            self.lib = ctypes.CDLL(path)
        except OSError as error:
            raise RuntimeError(f"no CUDA driver to measure the GPU with ({path}: {error})") \
                from None

    def __call__(self, name: str, *args) -> None:
        result = getattr(self.lib, name)(*args)
        if result != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorString(result, ctypes.byref(text))
            raise CudaError(f"{name} failed: {(text.value or b'?').decode()} ({result})")


def copy_bandwidth(size: int, copies: int, batches: int, path: str | None = None) -> dict:
    """Copies a `size`-byte device buffer into another `copies` times per batch; the best
    batch gives the rate."""
    cu = Driver(path)
    cu("cuInit", 0)
    device = ctypes.c_int()
    cu("cuDeviceGet", ctypes.byref(device), 0)
    name = ctypes.create_string_buffer(256)
    cu("cuDeviceGetName", name, 256, device)
    context = ctypes.c_void_p()
    cu("cuDevicePrimaryCtxRetain", ctypes.byref(context), device)
    buffers = []
    stream = ctypes.c_void_p()
    try:
        cu("cuCtxSetCurrent", context)
        cu("cuStreamCreate", ctypes.byref(stream), 0)
        for _ in range(2):
            address = ctypes.c_uint64()
            cu("cuMemAlloc_v2", ctypes.byref(address), ctypes.c_size_t(size))
            buffers.append(address)
        source, destination = buffers
        cu("cuMemsetD8Async", source, 1, ctypes.c_size_t(size), stream)

        def batch() -> float:
            cu("cuStreamSynchronize", stream)
            start = time.perf_counter()
            for _ in range(copies):
                cu("cuMemcpyDtoDAsync_v2", destination, source, ctypes.c_size_t(size), stream)
            cu("cuStreamSynchronize", stream)
            return time.perf_counter() - start

        batch()  # the first copies touch fresh pages
        best = min(batch() for _ in range(batches))
    finally:
        for address in buffers:
            cu.lib.cuMemFree_v2(address)
        if stream:
            cu.lib.cuStreamDestroy_v2(stream)
        cu.lib.cuDevicePrimaryCtxRelease_v2(device)
    rate = 2 * size * copies / best / 1e9
    return {"gpu": name.value.decode(), "copy_gbs": rate, "read_gbs": rate, "copy_bytes": size}


def measure(quick: bool) -> dict:
    return copy_bandwidth(size=(64 if quick else 512) << 20, copies=4 if quick else 10,
                          batches=3 if quick else 5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    print(json.dumps(measure(parser.parse_args().quick)))


if __name__ == "__main__":
    main()
