"""numlir against jax.jit, NumPy and PyTorch on the same workloads, in one process.

Each workload is one function written once per framework. Every framework is
warmed up (compiled) first; then each is timed over the same inputs with
``timeit``-style repetition, and the table reports the median time per call
and numlir's time as a ratio to each other framework (ratio > 1 means numlir
is slower). Results are written to bench/results/latest.json.

    make bench                 # or: .venv/bin/python bench/run.py --quick
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np
from tqdm import tqdm

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def _median_seconds(fn: Callable[[], object], min_time: float) -> float:
    fn()
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < min_time / 5 or calls < 3:
        fn()
        calls += 1
    per_call = (time.perf_counter() - start) / calls
    number = max(1, int(min_time / 5 / max(per_call, 1e-9)))
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def workloads(size: str):
    """(name, inputs, {framework: builder(inputs) -> zero-arg callable})."""
    import jax
    import jax.numpy as jjnp

    import numlir
    import numlir.numpy as njnp

    rng = np.random.default_rng(0)
    n = {"quick": 256, "full": 1024}[size]

    def mlp_layer(jnp):
        def f(x, w, b):
            return jnp.tanh(x @ w + b).sum(axis=1)
        return f

    def softmax(jnp):
        def f(x):
            shifted = x - jnp.max(x, axis=1, keepdims=True)
            e = jnp.exp(shifted)
            return e / jnp.sum(e, axis=1, keepdims=True)
        return f

    def elementwise_chain(jnp):
        def f(x, y):
            return jnp.sqrt(jnp.abs(x * y + 1.0)) * jnp.exp(-x * x) - jnp.tanh(y)
        return f

    def numpy_version(make):
        return make(np)

    cases = [
        ("mlp_layer", [rng.random((n, n), np.float32), rng.random((n, n // 2), np.float32),
                       rng.random(n // 2, np.float32)], mlp_layer),
        ("softmax", [rng.random((n, n), np.float32)], softmax),
        ("elementwise_chain", [rng.random((n, n), np.float32), rng.random((n, n), np.float32)],
         elementwise_chain),
    ]
    for name, args, make in cases:
        builders = {
            "numlir": lambda a, make=make: (lambda f=numlir.jit(make(njnp)): f(*a)),
            "jax.jit": lambda a, make=make: (
                lambda f=jax.jit(make(jjnp)), ja=[jax.device_put(x) for x in a]:
                f(*ja).block_until_ready()),
            "numpy": lambda a, make=make: (lambda f=numpy_version(make): f(*a)),
        }
        try:
            import torch

            torch.set_num_threads(os.cpu_count() or 1)
            builders["pytorch"] = lambda a, make=make: (
                lambda f=make(_TorchNumpy(torch)), ta=[torch.from_numpy(x) for x in a]: f(*ta))
        except ImportError:
            pass
        yield name, args, builders
    yield _mlp_grad_case(rng, n)


def _mlp_grad_case(rng, n: int):
    """The gradient of an MLP layer's loss w.r.t. its weights: reverse mode in each framework
    (numpy: the backward pass written by hand; pytorch: autograd)."""
    import jax
    import jax.numpy as jjnp

    import numlir
    import numlir.numpy as njnp

    args = [rng.random((n, n // 2), np.float32) - 0.5, rng.random((n, n), np.float32) - 0.5]

    def loss(jnp):
        return lambda w, x: jnp.sum(jnp.tanh(x @ w) ** 2)

    def numpy_grad(w, x):
        h = np.tanh(x @ w)
        return x.T @ (2 * h * (1 - h * h))

    builders = {
        "numlir": lambda a: (lambda f=numlir.jit(numlir.grad(loss(njnp))): f(*a)),
        "jax.jit": lambda a: (lambda f=jax.jit(jax.grad(loss(jjnp))),
                              ja=[jax.device_put(x) for x in a]: f(*ja).block_until_ready()),
        "numpy": lambda a: (lambda: numpy_grad(*a)),
    }
    try:
        import torch

        def torch_grad(w, x):
            w = w.detach().requires_grad_(True)
            (torch.tanh(x @ w) ** 2).sum().backward()
            return w.grad

        builders["pytorch"] = lambda a: (
            lambda ta=[torch.from_numpy(x) for x in a]: torch_grad(*ta))
    except ImportError:
        pass
    return "mlp_grad", args, builders


class _TorchNumpy:
    """The handful of numpy names the workloads use, on torch tensors."""

    def __init__(self, torch):
        self.torch = torch

    def tanh(self, x):
        return self.torch.tanh(x)

    def exp(self, x):
        return self.torch.exp(x)

    def sqrt(self, x):
        return self.torch.sqrt(x)

    def abs(self, x):
        return self.torch.abs(x)

    def max(self, x, axis, keepdims=False):
        return self.torch.amax(x, dim=axis, keepdim=keepdims)

    def sum(self, x, axis, keepdims=False):
        return self.torch.sum(x, dim=axis, keepdim=keepdims)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, short timing")
    options = parser.parse_args()
    size = "quick" if options.quick else "full"
    min_time = 0.2 if options.quick else 1.0

    rows = []
    cases = list(workloads(size))
    total = sum(len(builders) for _, _, builders in cases)
    with tqdm(total=total, desc="benchmarking", unit="run") as progress:
        for name, args, builders in cases:
            reference = None
            row = {"workload": name, "shapes": [list(a.shape) for a in args], "seconds": {}}
            for framework, build in builders.items():
                fn = build(args)
                result = np.asarray(fn())
                if reference is None:
                    reference = result
                np.testing.assert_allclose(result, reference, rtol=2e-3, atol=2e-3)
                row["seconds"][framework] = _median_seconds(fn, min_time)
                progress.update()
            rows.append(row)

    frameworks = sorted({f for row in rows for f in row["seconds"]}, key=lambda f: f != "numlir")
    header = f"{'workload':<20}" + "".join(f"{f:>14}" for f in frameworks)
    header += "".join(f"{'numlir/' + f:>18}" for f in frameworks[1:])
    print(header)
    for row in rows:
        secs = row["seconds"]
        line = f"{row['workload']:<20}" + "".join(f"{secs[f] * 1e6:>12.1f}us" for f in frameworks)
        line += "".join(f"{secs['numlir'] / secs[f]:>18.2f}" for f in frameworks[1:])
        row["ratios"] = {f: secs["numlir"] / secs[f] for f in frameworks[1:]}
        print(line)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "latest.json"
    out.write_text(json.dumps({
        "machine": {"processor": platform.processor(), "cpus": os.cpu_count(),
                    "platform": platform.platform()},
        "size": size, "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
