"""C2: the DCGAN's training step, data-parallel, from 1 to 2 local devices and 1 to 2 processes.

    .venv/bin/python bench/scaling.py [--quick]       # runs mpirun itself for the processes

At a fixed global batch (64), each configuration runs in processes of its own and reports
steps per second (the median of timed steps after warm-up):

- 1 device: ``GAN.compiled_update`` on the whole machine (every core);
- 2 local devices: ``pmap`` over 2 CPU devices in one process, each with half the cores;
- 2 processes: ``mpirun -np 2``, one device and half the cores each
  (``NUMLIR_NUM_THREADS``), the gradients averaged across processes through MPI.

Efficiency is speedup / 2. On a machine with few cores this measures how well the parts
share them, not how the program scales across machines. Results: bench/results/scaling.json.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
GAN = HERE.parent / "examples" / "gan"
BATCH = 64


def child(devices: int, steps: int) -> None:
    """Times the update; process 0 prints a JSON line."""
    import numpy as np

    import numlir

    if "OMPI_COMM_WORLD_SIZE" in os.environ:
        numlir.distributed.initialize()
    if devices > 1:
        numlir.config.update("jax_num_cpu_devices", devices)
    sys.path.insert(0, str(GAN))
    import data
    import model

    gan = model.GAN(model.numlir_stack())
    state = gan.init(numlir.random.PRNGKey(0))
    images = data.load(None)
    rng = np.random.default_rng(0)
    here, processes = numlir.process_index(), numlir.process_count()
    parallel = devices * processes > 1
    update = gan.data_parallel_update(devices) if parallel else gan.compiled_update()

    def batch():
        real = images[rng.integers(0, len(images), BATCH)]
        z = rng.normal(size=(2, BATCH, model.LATENT)).astype(np.float32)
        parts = [real, z[0], z[1]]
        if parallel:  # this process's rows, one slice per device
            parts = [p.reshape(processes, -1, *p.shape[1:])[here].reshape(
                devices, -1, *p.shape[1:]) for p in parts]
        return parts

    times = []
    for i in range(steps + 2):
        parts = batch()
        start = time.perf_counter()
        state, losses = update(state, *parts)
        float(losses[0])
        if i >= 2:  # the first two compile and warm up
            times.append(time.perf_counter() - start)
    if here == 0:
        print("RESULT " + json.dumps({"steps_per_s": 1 / statistics.median(times)}), flush=True)


def _run(command: list[str], env: dict) -> float | str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        return f"failed: {done.stderr[-1500:]}"
    return json.loads(lines[0][len("RESULT "):])["steps_per_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer timed steps")
    parser.add_argument("--child", type=int, metavar="DEVICES", help=argparse.SUPPRESS)
    parser.add_argument("--steps", type=int, default=0, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    steps = opts.steps or (5 if opts.quick else 20)
    if opts.child:
        return child(opts.child, steps)
    cores = len(os.sched_getaffinity(0))
    half = str(max(1, cores // 2))
    me = [sys.executable, __file__, "--steps", str(steps), "--child"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.pop("NUMLIR_NUM_CPU_DEVICES", None)
    rows = {"1 device": _run(me + ["1"], dict(env, NUMLIR_NUM_THREADS=str(cores))),
            "2 local devices": _run(me + ["2"], dict(env, NUMLIR_NUM_THREADS=str(cores)))}
    mpirun = shutil.which("mpirun") or str(pathlib.Path(sys.prefix) / "bin" / "mpirun")
    rows["2 processes"] = (_run([mpirun, "--oversubscribe", "-np", "2"] + me + ["1"],
                                dict(env, NUMLIR_NUM_THREADS=half))
                           if pathlib.Path(mpirun).exists() else "skipped: no mpirun")
    base = rows["1 device"]
    print(f"\nC2 DCGAN step, global batch {BATCH}, {cores} cores "
          f"(load {os.getloadavg()[0]:.1f})")
    print(f"{'configuration':>16} {'steps/s':>8} {'speedup':>8} {'efficiency':>10}")
    for name, value in rows.items():
        if isinstance(value, str):
            print(f"{name:>16} {value.splitlines()[0] if value else value}")
            continue
        speedup = value / base if isinstance(base, float) else float("nan")
        parts = 1 if name == "1 device" else 2
        print(f"{name:>16} {value:8.2f} {speedup:8.2f} {speedup / parts:10.0%}")
    out = HERE / "results" / "scaling.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"cores": cores, "loadavg": os.getloadavg(), "batch": BATCH,
                               "steps": steps, "rows": rows}, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
