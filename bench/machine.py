"""The machine's limits, measured in a process of their own: prints one JSON object.

    python bench/machine.py [--quick]

- copy_gbs: a large np.copyto split over one thread per core, counting the bytes
  read plus the bytes written (the write-allocate read is not counted, so this
  is what a streaming read+write kernel such as W1 can hope for).
- read_gbs: a large np.sum split the same way (bytes read).
- sgemm_gflops: numpy's matmul (OpenBLAS, all cores) on big float32 squares:
  the GEMM rate a well-tuned kernel achieves here.
- first_touch_us_per_mib: the extra time to write 1 MiB of freshly mapped
  memory over writing memory already mapped (the page faults and the kernel's
  zeroing), with faults_per_mib telling the page size the kernel used (0.5:
  2 MiB transparent huge pages). A runtime that mallocs large buffers anew on
  each call pays this per MiB; in a VM it depends on the host's memory pressure.
- peak_gflops_estimate: cores x clock x FMA lanes x 2 FMA pipes x 2 from
  /proc/cpuinfo: an estimate (the clock read is the nominal one, boost and
  AVX clock offsets are unknown).
Each figure is the best of several runs: the limit is what the machine can do.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np


def _best_seconds(fn, runs: int) -> float:
    fn()
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def bandwidth(n_bytes: int, threads: int, runs: int) -> dict:
    n = n_bytes // 4
    src = np.ones(n, np.float32)
    dst = np.empty_like(src)
    chunks = np.array_split(np.arange(n), threads)
    bounds = [(c[0], c[-1] + 1) for c in chunks]
    pool = ThreadPoolExecutor(threads)  # numpy drops the GIL in copies and reductions

    def copy():
        list(pool.map(lambda b: np.copyto(dst[b[0]:b[1]], src[b[0]:b[1]]), bounds))

    def read():
        list(pool.map(lambda b: src[b[0]:b[1]].sum(), bounds))

    copy_s, read_s = _best_seconds(copy, runs), _best_seconds(read, runs)
    pool.shutdown()
    return {"copy_gbs": 2 * n_bytes / copy_s / 1e9, "read_gbs": n_bytes / read_s / 1e9,
            "bandwidth_bytes": n_bytes}


def _faults() -> int:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_minflt + usage.ru_majflt


def fault_cost(n_bytes: int, runs: int) -> dict:
    warm = np.empty(n_bytes // 4, np.float32)
    warm.fill(0)
    warm_s = _best_seconds(lambda: warm.fill(1), runs)
    del warm
    best = float("inf"), 1
    for _ in range(runs):
        fresh = np.empty(n_bytes // 4, np.float32)  # past malloc's mmap threshold: fresh pages
        faults, start = _faults(), time.perf_counter()
        fresh.fill(1)
        seconds, faults = time.perf_counter() - start, _faults() - faults
        del fresh
        if faults and seconds < best[0]:
            best = seconds, faults
    seconds, faults = best
    mib = n_bytes / (1 << 20)
    return {"first_touch_us_per_mib": max(seconds - warm_s, 0.0) / mib * 1e6,
            "faults_per_mib": faults / mib}


def sgemm(n: int, runs: int) -> dict:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), np.float32)
    b = rng.standard_normal((n, n), np.float32)
    seconds = _best_seconds(lambda: a @ b, runs)
    return {"sgemm_gflops": 2 * n ** 3 / seconds / 1e9, "sgemm_n": n}


def _cpuinfo() -> dict[str, str]:
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # the first processor describes them all
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        pass
    return fields


def peak_estimate() -> dict:
    info = _cpuinfo()
    flags = set(info.get("flags", "").split())
    cores = os.cpu_count() or 1
    mhz = float(info.get("cpu MHz", "0") or 0)
    vendor = info.get("vendor_id", "")
    family = int(info.get("cpu family", "0") or 0)
    # AMD before Zen 5 (family 0x1a) runs AVX-512 on 256-bit datapaths.
    if "avx512f" in flags and not (vendor == "AuthenticAMD" and family < 26):
        bits = 512
    elif "fma" in flags:
        bits = 256
    else:
        bits = 128
    lanes = bits // 32
    fma = "fma" in flags or bits == 512
    peak = cores * mhz * 1e6 * lanes * (2 if fma else 1) * 2 / 1e9
    return {"model": info.get("model name", ""), "cores": cores, "mhz": mhz,
            "vector_bits": bits, "fma": fma,
            "peak_gflops_estimate": peak if mhz else None}


def measure(quick: bool) -> dict:
    threads = os.cpu_count() or 1
    if quick:
        limits = {**bandwidth(64 << 20, threads, 3), **sgemm(512, 3),
                  **fault_cost(64 << 20, 3)}
    else:
        limits = {**bandwidth(512 << 20, threads, 5), **sgemm(2048, 3),
                  **fault_cost(128 << 20, 5)}
    return {**limits, **peak_estimate(), "threads": threads}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller arrays, fewer runs")
    print(json.dumps(measure(parser.parse_args().quick)))


if __name__ == "__main__":
    main()
