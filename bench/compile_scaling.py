"""Compile and run time against program size: numlir beside jax.jit, N layers deep.

    .venv/bin/python bench/compile_scaling.py [--quick] [--layers 8,32,128,256,512]

The program is issue 40's: ``value_and_grad`` of N layers of
``x = tanh(x @ w + c); x = x / (1 + sum(x*x, -1))`` on a 32x64 batch with 64x64
weights. For each depth and framework, a fresh process traces, lowers and compiles
it once (persistent caches off: the first call is a compilation), then times calls
(the median of timed calls after warm-up). numlir also runs with one thread
(NUMLIR_NUM_THREADS=1), which shows what its thread team costs or gains on
programs this small. Compile time should grow linearly with N, as XLA's does.

Results: a table, bench/results/compile_scaling.json and compile_scaling.png (log-log
compile time and run time against depth).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

from tqdm import tqdm

HERE = pathlib.Path(__file__).resolve().parent
RESULTS = HERE / "results"
BATCH, WIDTH = 32, 64
CONFIGS = {  # name: (framework, extra environment)
    "numlir": ("numlir", {}),
    "numlir 1 thread": ("numlir", {"NUMLIR_NUM_THREADS": "1"}),
    "jax": ("jax", {}),
}


def child(framework: str, layers: int, calls: int) -> None:
    """Compiles and times one depth; prints a JSON line."""
    import numpy as np

    if framework == "numlir":
        import numlir as lib
        import numlir.numpy as xnp
    else:
        import jax as lib
        import jax.numpy as xnp

    def loss(params, x):
        for w, c in params:
            x = xnp.tanh(x @ w + c)
            x = x / (1 + xnp.sum(x * x, -1, keepdims=True))
        return xnp.sum(x)

    rng = np.random.default_rng(0)
    params = [(rng.normal(size=(WIDTH, WIDTH)).astype(np.float32) * 0.1,
               np.zeros(WIDTH, np.float32)) for _ in range(layers)]
    x = rng.normal(size=(BATCH, WIDTH)).astype(np.float32)
    step = lib.jit(lib.value_and_grad(loss))
    start = time.perf_counter()
    lowered = step.lower(params, x)
    lowered_at = time.perf_counter()
    compiled = lowered.compile()
    compiled_at = time.perf_counter()
    params, x = lib.device_put(params), lib.device_put(x)

    def call():
        value, grads = compiled(params, x)
        lib.block_until_ready((value, grads))

    for _ in range(3):
        call()
    samples = []
    for _ in range(calls):
        t = time.perf_counter()
        call()
        samples.append(time.perf_counter() - t)
    print(json.dumps({"trace_lower_s": lowered_at - start, "compile_s": compiled_at - lowered_at,
                      "run_ms": 1e3 * statistics.median(samples)}))


def measure(config: str, layers: int, calls: int) -> dict:
    framework, extra = CONFIGS[config]
    env = dict(os.environ, NUMLIR_ENABLE_COMPILATION_CACHE="0", JAX_ENABLE_COMPILATION_CACHE="0",
               JAX_PLATFORMS="cpu", **extra)
    out = subprocess.run([sys.executable, __file__, "--child", framework, str(layers), str(calls)],
                         env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def plot(results: dict, depths: list[int], path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for config, rows in results.items():
        done = [(n, rows[str(n)]) for n in depths if "compile_s" in rows.get(str(n), {})]
        if not done:
            continue
        ns = [n for n, _ in done]
        left.plot(ns, [r["trace_lower_s"] + r["compile_s"] for _, r in done], "o-", label=config)
        right.plot(ns, [r["run_ms"] for _, r in done], "o-", label=config)
    for axis, title in ((left, "first call: trace + lower + compile (s)"),
                        (right, "run time per call (ms)")):
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xlabel("layers")
        axis.set_title(title)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="depths 8 and 32, few calls")
    parser.add_argument("--layers", default="8,32,128,256,512")
    args = parser.parse_args()
    depths = [8, 32] if args.quick else [int(n) for n in args.layers.split(",")]
    calls = 20 if args.quick else 100
    results: dict = {config: {} for config in CONFIGS}
    jobs = [(config, n) for n in depths for config in CONFIGS]
    for config, n in tqdm(jobs, desc="compile scaling", unit="program"):
        results[config][str(n)] = measure(config, n, calls)
    print(f"\n{'layers':>6} | " + " | ".join(f"{c:>24}" for c in CONFIGS))
    print(f"{'':>6} | " + " | ".join(f"{'compile s':>11} {'run ms':>12}" for _ in CONFIGS))
    for n in depths:
        cells = []
        for config in CONFIGS:
            row = results[config][str(n)]
            cells.append(f"{row['trace_lower_s'] + row['compile_s']:>11.2f} {row['run_ms']:>12.3f}"
                         if "compile_s" in row else f"{row.get('error', '?')[:24]:>24}")
        print(f"{n:>6} | " + " | ".join(cells))
    for config in ("numlir", "jax"):
        rows = [results[config].get(str(n), {}) for n in depths[-2:]]
        if len(depths) >= 2 and all("compile_s" in r for r in rows):
            first, last = (r["trace_lower_s"] + r["compile_s"] for r in rows)
            print(f"{config}: compile x{last / first:.2f} from {depths[-2]} to {depths[-1]} layers "
                  f"(x{depths[-1] / depths[-2]:.0f} the program)")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "compile_scaling.json").write_text(json.dumps(
        {"depths": depths, "batch": BATCH, "width": WIDTH, "results": results}, indent=1))
    plot(results, depths, RESULTS / "compile_scaling.png")
    print(f"results: {RESULTS / 'compile_scaling.json'}, {RESULTS / 'compile_scaling.png'}")


if __name__ == "__main__":
    main()
