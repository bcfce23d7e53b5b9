"""Where one call of a jitted ``a*b+c`` on three f32[4] goes on a PJRT device: jax.jit and
jax's AOT executable beside numlir's jit (committed arguments: the C++ path; uncommitted:
the Python one, its remembered call and its executable), and jaxlib's raw execute forms,
each the median of 5 rounds of N calls; the rounds go form after form, so that the
machine's drift (a few % over a minute) falls on every form alike.

    python3 tools/tpu/dispatch_probe.py BACKEND [N]     # BACKEND: tpu, or pjrt_cpu here
    bash .tpu-carry/run.sh dispatch tpu                 # on the lent TPU machine

docs/pjrt.md ("The per-call path") has the figures it gave.
"""

import sys
import time

import jax
import numpy as np

import numlir
from numlir._src import device_calls

backend = sys.argv[1] if len(sys.argv) > 1 else "tpu"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 2000


def per_call(forms: dict, n=N, rounds=5) -> dict:
    """Each form's median over rounds of its time per call, in µs (the last output waited
    for), or the exception it raised."""
    times = {}
    for name, fn in forms.items():
        try:
            fn()
            times[name] = []
        except Exception as error:  # noqa: BLE001 - a form this jaxlib lacks
            times[name] = error
    for _ in range(rounds):
        for name, fn in forms.items():
            if isinstance(times[name], Exception):
                continue
            t0 = time.perf_counter()
            for _ in range(n):
                out = fn()
            jax.block_until_ready(out)
            times[name].append((time.perf_counter() - t0) / n * 1e6)
    return {name: t if isinstance(t, Exception) else sorted(t)[len(t) // 2]
            for name, t in times.items()}


def f(a, b, c):
    return a * b + c


host = [np.arange(4, dtype=np.float32) + i for i in range(3)]
jax_device = jax.devices("tpu" if backend == "tpu" else "cpu")[0]
jx = [jax.device_put(h, jax_device) for h in host]
jitted = jax.jit(f)
compiled = jitted.lower(*jx).compile()
loaded = compiled.runtime_executable()

device = numlir.devices(backend)[0]
nx = [numlir.device_put(h, device) for h in host]  # committed: C++ (host_calls.py)
numlir_jitted = numlir.jit(f)
numlir_jitted(*nx).block_until_ready()


def uncommitted_rows() -> dict:
    """The forms of an uncommitted call (device_calls.py), to time on the default device."""
    ux = [numlir.numpy.arange(4, dtype=np.float32) + i for i in range(3)]  # made there
    jitted_there = numlir.jit(f)
    jitted_there(*ux).block_until_ready()
    remembered = jitted_there._device_calls
    (plan,) = remembered._plans.values()
    buffers = [a._value for a in ux]
    key = device_calls.DeviceCalls.key(tuple(ux))
    return {
        "numlir.jit, uncommitted arguments": lambda: jitted_there(*ux),
        "numlir remembered call (DeviceCalls.call)": lambda: remembered.call(key, tuple(ux)),
        "numlir executable (PjrtExecutable.execute)": lambda: plan.exe.execute(buffers),
        "numlir DeviceCalls.key": lambda: (device_calls.DeviceCalls.key(tuple(ux)), jx[0])[1],
    }


# Uncommitted arrays run on the default device: this one, within the block only (a test
# runs this script inside pytest's process).
with numlir.default_device(device):
    rows = {
        "jax.jit": lambda: jitted(*jx),
        "jax AOT Compiled": lambda: compiled(*jx),
        "numlir.jit": lambda: numlir_jitted(*nx),
        **uncommitted_rows(),
        "jaxlib execute_sharded, no outputs made": lambda: loaded.execute_sharded(jx),
        "jaxlib execute_sharded + disassemble": lambda: [
            o[0] for o in loaded.execute_sharded(jx).disassemble_into_single_device_arrays()],
        "jaxlib execute": lambda: loaded.execute(jx),
    }
    print(f"{backend}: {jax_device.device_kind}, {N} calls a round")
    for name, result in per_call(rows).items():
        if isinstance(result, Exception):
            print(f"{name:44s} failed: {type(result).__name__}: {str(result)[:200]}")
        else:
            print(f"{name:44s} {result:9.1f} us")
