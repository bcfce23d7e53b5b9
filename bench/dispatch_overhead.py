"""Per-call dispatch overhead: numlir vs jax vs NumPy, in microseconds per call.

Small operands, so the time is almost all dispatch: argument checks, the
executable-cache lookup, the call into the runtime and wrapping the result.
The eager ops go through each library's op-by-op path; the "jit" row is a
jitted ``a*b+c`` on three 4-element arguments (NumPy: the plain expression),
the measurement run.py reports as its dispatch row D. Each case is warmed up
first (numlir and jax compile it once), then timed as the median of several
repeats of a timed loop.

    .venv/bin/python bench/dispatch_overhead.py            # or --quick
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from tqdm import tqdm

import jaxlike

JIT_CASE = "jit a*b+c 3x f32[4]"


def _us_per_call(fn: Callable[[], object], min_time: float, repeats: int) -> float:
    fn()
    number = 1
    while True:  # calls per timed loop so that one loop takes at least min_time
        start = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - start >= min_time:
            break
        number *= 2
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples) * 1e6


def _ops(jnp, a, b, m, n):
    return {
        "add f32[16]": lambda: jnp.add(a, b),
        "multiply f32[16]": lambda: jnp.multiply(a, b),
        "matmul f32[64,64]": lambda: jnp.matmul(m, n),
        "sum f32[64,64]": lambda: jnp.sum(m),
    }


def _jitted(lib, host4):
    fn = jaxlike.dispatch(lib, {})
    args = [lib.put(x) for x in host4]
    return lambda: fn(*args).block_until_ready()


def _frameworks():
    import jax
    import jax.numpy as jax_jnp

    import numlir.numpy as numlir_jnp

    rng = np.random.default_rng(0)
    host = [rng.standard_normal(s).astype(np.float32) for s in ((16,), (16,), (64, 64), (64, 64))]

    def block(x):
        return getattr(x, "block_until_ready", lambda: x)()

    frameworks = {}
    args = [numlir_jnp.asarray(x) for x in host]
    frameworks["numlir"] = {k: v for k, v in _ops(numlir_jnp, *args).items()}
    args = [jax.device_put(x) for x in host]
    frameworks["jax"] = {k: (lambda f=v: block(f())) for k, v in _ops(jax_jnp, *args).items()}
    frameworks["numpy"] = _ops(np, *host)
    host4 = [rng.standard_normal(4).astype(np.float32) for _ in range(3)]
    for name in ("numlir", "jax"):
        frameworks[name][JIT_CASE] = _jitted(jaxlike.library(name), host4)
    frameworks["numpy"][JIT_CASE] = lambda: host4[0] * host4[1] + host4[2]
    return frameworks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timing loops")
    opts = parser.parse_args()
    min_time, repeats = (0.02, 3) if opts.quick else (0.1, 7)

    frameworks = _frameworks()
    ops = list(frameworks["numlir"])
    results: dict[str, dict[str, float]] = {op: {} for op in ops}
    jobs = [(op, name) for op in ops for name in frameworks]
    for op, name in tqdm(jobs, desc="timing", unit="case"):
        results[op][name] = _us_per_call(frameworks[name][op], min_time, repeats)

    header = f"{'op':<22}{'numlir µs':>12}{'jax µs':>10}{'numpy µs':>10}{'÷ jax':>9}{'÷ numpy':>10}"
    print(header)
    print("-" * len(header))
    for op in ops:
        r = results[op]
        print(f"{op:<22}{r['numlir']:>12.1f}{r['jax']:>10.1f}{r['numpy']:>10.1f}"
              f"{r['numlir'] / r['jax']:>9.2f}{r['numlir'] / r['numpy']:>10.1f}")
    print("ratios: numlir time / other time (above 1: numlir is slower)")


if __name__ == "__main__":
    main()
