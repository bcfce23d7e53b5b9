"""One framework's benchmark process: run.py drives it with JSON lines on stdin/stdout.

    python bench/worker.py --framework jax [--quick] [--device tpu]

Each framework runs in a process of its own so that its thread pool never
competes with another's, and run.py only ever has one worker busy at a time.
Requests (one JSON object per line) and what they answer:

    {"op": "setup", "workload": "W2", "out": "/tmp/x.npz", "min_sample_s": 0.05}
        builds the inputs and the function, times the first call (compile time),
        saves the first outputs to "out" and picks how many calls one timed
        sample makes -> {"supported", "compile_s", "calls_per_sample"}
    {"op": "round", "workload": "W2", "warmup": 1, "repeats": 5}
        -> {"samples_s": [seconds per call, one per sample], "faults_per_call"}
    {"op": "quit"}

Anything a library prints goes to stderr: stdout carries only the protocol.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import traceback

import numpy as np

import specs

FRAMEWORKS = ("numlir", "jax", "numpy", "torch", "torch.compile")


def _implementation(framework: str):
    if framework in ("numlir", "jax"):
        import jaxlike

        return jaxlike
    if framework == "numpy":
        import numpy_impl

        return numpy_impl
    import torch_impl

    return torch_impl


def _version(framework: str) -> str:
    if framework == "numlir":
        import numlir

        return getattr(numlir, "__version__", "dev")
    module = {"jax": "jax", "numpy": "numpy"}.get(framework, "torch")
    return __import__(module).__version__


def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    return [tree]


def _blocker(framework: str):
    """Waits for a result to be computed (jax dispatches asynchronously)."""
    def block(result):
        if hasattr(result, "block_until_ready"):
            result.block_until_ready()
            return
        if isinstance(result, (tuple, list)):
            for leaf in _leaves(result):
                if hasattr(leaf, "block_until_ready"):
                    leaf.block_until_ready()
    return block


def _faults() -> int:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_minflt + usage.ru_majflt


class Worker:
    def __init__(self, framework: str, quick: bool):
        self.framework = framework
        self.impl = _implementation(framework)
        self.table = specs.workloads(quick)
        self.block = _blocker(framework)
        self.cases: dict[str, tuple] = {}

    def setup(self, workload: str, out: str, min_sample_s: float) -> dict:
        spec = self.table[workload]
        built = self.impl.build(self.framework, spec, spec.inputs())
        if built is None:
            return {"supported": False}
        fn, args = built[0], built[1]
        to_numpy = built[2] if len(built) > 2 else (
            lambda r: [np.asarray(leaf) for leaf in _leaves(r)])
        start = time.perf_counter()
        result = fn(*args)
        self.block(result)
        compile_s = time.perf_counter() - start
        np.savez(out, *to_numpy(result))
        del result
        # Calls per sample from the fastest of a few more calls: one slow call
        # (a late allocation, a busy machine) must not make every sample one call.
        per_call, spent = float("inf"), 0.0
        for _ in range(5):
            start = time.perf_counter()
            self.block(fn(*args))
            elapsed = time.perf_counter() - start
            per_call, spent = min(per_call, elapsed), spent + elapsed
            if spent >= min_sample_s:
                break
        calls = 1
        while calls * per_call < min_sample_s and calls < 1 << 20:
            calls *= 2
        self.cases[workload] = (fn, args, calls)
        return {"supported": True, "compile_s": compile_s, "calls_per_sample": calls}

    def round(self, workload: str, warmup: int, repeats: int) -> dict:
        fn, args, calls = self.cases[workload]
        block = self.block
        for _ in range(warmup * calls):
            block(fn(*args))
        samples = []
        faults = _faults()
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(calls):
                block(fn(*args))
            samples.append((time.perf_counter() - start) / calls)
        faults = _faults() - faults
        return {"samples_s": samples, "faults_per_call": faults / (repeats * calls)}


#: A numlir backend -> the jax platform of the same hardware.
JAX_PLATFORM_OF = {"tpu": "tpu", "pjrt_cpu": "cpu", "cpu": "cpu", "cuda": "gpu"}


def place_on(framework: str, device: str) -> None:
    """Makes ``device`` (a numlir backend's name) numlir's default device, and the same
    hardware jax's, with f32 matmuls at full precision there as numlir asks."""
    if framework == "numlir":
        import numlir

        numlir.config.update("jax_default_device", device)
    elif framework == "jax":
        import jax

        jax.config.update("jax_default_device", jax.devices(JAX_PLATFORM_OF[device])[0])
        jax.config.update("jax_default_matmul_precision", "highest")
    else:
        raise ValueError(f"{framework} runs on the host only; --device is for numlir and jax")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", required=True, choices=FRAMEWORKS)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--device", help="a numlir backend (tpu, pjrt_cpu) to run on")
    opts = parser.parse_args()

    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # libraries that print (and C code writing to fd 1) land on stderr
    sys.stdout = sys.stderr

    def reply(obj):
        protocol.write(json.dumps(obj) + "\n")

    try:
        if opts.device:
            place_on(opts.framework, opts.device)
        worker = Worker(opts.framework, opts.quick)
        reply({"ready": True, "version": _version(opts.framework), "pid": os.getpid()})
    except Exception as error:  # an import that fails is reported, not a hang
        reply({"ready": False, "error": f"{type(error).__name__}: {error}"})
        return
    for line in sys.stdin:
        request = json.loads(line)
        op = request.pop("op")
        if op == "quit":
            break
        try:
            reply(getattr(worker, op)(**request))
        except Exception as error:
            traceback.print_exc()
            reply({"error": f"{type(error).__name__}: {str(error)[:2000]}"})


if __name__ == "__main__":
    main()
