"""C1: what a psum across processes costs beside MPI's own allreduce on the same buffer.

    .venv/bin/python bench/allreduce.py [--quick]     # runs mpirun itself

Under ``mpirun -np 2`` (once over shared memory, once over TCP on loopback), each process
times, on float32 buffers from 4 KiB to 64 MiB, the median of many calls of

- numlir: ``pmap(lambda x: lax.psum(x, "i"), donate_argnums=0)`` on its one device (the
  buffer is donated, so the sum lands in place, like MPI_IN_PLACE), and
- MPI: mpi4py's ``comm.Allreduce(MPI.IN_PLACE, buf)``,

in five interleaved rounds (the median of the rounds' medians), and process 0 prints the
overhead (numlir / MPI - 1). The target (issue 36) is at most 10%
from 1 MiB up. numlir's psum is reduced in slices, as an allreduce is (alltoallv, a
sum of each slice in group order, allgatherv: bitwise the same on every process and as one
process with every device; docs/distributed.md). Results: bench/results/allreduce.json.
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
SIZES = [4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]
ROUNDS = 5
TRANSPORTS = {"shared memory": [], "tcp": ["--mca", "btl", "tcp,self",
                                           "--mca", "btl_tcp_if_include", "lo"]}


def _median_seconds(call, comm, budget: float) -> float:
    """The median of timed calls after two warm-up calls, about ``budget`` s of them. Every
    rank makes the same number of calls (they are collectives): the count comes from the
    slowest rank's first timing."""
    call()
    call()
    start = time.perf_counter()
    call()
    first = comm.allreduce(time.perf_counter() - start, op=_max())
    samples = []
    for _ in range(max(5, min(200, int(budget / max(first, 1e-9))))):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _max():
    from mpi4py import MPI

    return MPI.MAX


def child(quick: bool) -> None:
    """One rank: time both on every size; rank 0 prints a JSON line."""
    import numpy as np
    from mpi4py import MPI

    import numlir
    from numlir import lax

    numlir.distributed.initialize(cluster_detection_method="mpi4py")
    comm = MPI.COMM_WORLD
    psum = numlir.pmap(lambda x: lax.psum(x, "i"), axis_name="i", donate_argnums=0)
    rows = []
    for size in SIZES[:4] if quick else SIZES:
        n = size // 4
        buf = np.ones(n, np.float32)
        state = {"x": np.ones((1, n), np.float32)}

        def numlir_call():
            state["x"] = psum(state["x"])

        calls = {"mpi": lambda: comm.Allreduce(MPI.IN_PLACE, buf), "numlir": numlir_call}
        # Rounds interleaved: the machine's drift (the two processes share its caches and
        # cores with whatever else runs) falls on both alike.
        medians = {name: [] for name in calls}
        for _ in range(ROUNDS):
            for name, call in calls.items():
                comm.Barrier()
                medians[name].append(_median_seconds(call, comm, (0.5 if quick else 2) / ROUNDS))
        # Both ranks timed the same calls; the slower rank's median is the collective's.
        mpi, ours = (comm.allreduce(statistics.median(medians[name]), op=MPI.MAX)
                     for name in ("mpi", "numlir"))
        rows.append({"bytes": size, "mpi_us": mpi * 1e6, "numlir_us": ours * 1e6,
                     "overhead": ours / mpi - 1})
    if comm.rank == 0:
        print("RESULT " + json.dumps(rows), flush=True)


def _binding() -> list[str]:
    """One core per process where there are two (mpirun's default binding: a rank that
    polls MPI keeps its core); with fewer, oversubscribed and unbound."""
    return [] if len(os.sched_getaffinity(0)) >= 2 else ["--oversubscribe"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="up to 4 MiB, shorter timing")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        return child(opts.quick)
    mpirun = shutil.which("mpirun") or str(pathlib.Path(sys.prefix) / "bin" / "mpirun")
    if not pathlib.Path(mpirun).exists():
        print("C1 skipped: mpirun not found (make setup installs Open MPI)")
        return
    env = dict(os.environ, NUMLIR_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    report = {"cpus": os.cpu_count(), "loadavg": os.getloadavg(), "transports": {}}
    for transport, flags in TRANSPORTS.items():
        done = subprocess.run([mpirun, *_binding(), "-np", "2", *flags, sys.executable,
                               __file__, "--child"] + (["--quick"] if opts.quick else []),
                              capture_output=True, text=True, timeout=900, env=env)
        lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode != 0 or not lines:
            print(f"C1 {transport} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
            continue
        rows = json.loads(lines[0][len("RESULT "):])
        report["transports"][transport] = rows
        print(f"\nC1 psum across 2 processes vs MPI_Allreduce, float32, {transport}")
        print(f"{'size':>10} {'MPI µs':>10} {'numlir µs':>10} {'overhead':>9}")
        for row in rows:
            size = row["bytes"]
            label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
            print(f"{label:>10} {row['mpi_us']:10.1f} {row['numlir_us']:10.1f} "
                  f"{row['overhead']:+9.1%}")
    out = HERE / "results" / "allreduce.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
