"""Campaign driver: python -m hlo_opt_fuzz --n 10000 --seed 1 --out DIR
(with test/ on PYTHONPATH). Writes each crashing input, minimized by line
deletion, with its report to DIR and exits 1 if anything crashed."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from . import harness
from .corpus import load_seeds

TEST_DIR = Path(__file__).resolve().parent.parent
REPO = TEST_DIR.parent


def find_hlo_opt() -> str:
    for candidate in (os.environ.get("HLO_OPT_FUZZ_BINARY"), REPO / "build" / "bin" / "hlo-opt",
                      shutil.which("hlo-opt")):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    sys.exit("hlo-opt not found: run `make build` or set HLO_OPT_FUZZ_BINARY")


def _fuzz_range(args: tuple[str, int, int, int]):
    hlo_opt, seed, start, stop = args
    corpus = load_seeds(TEST_DIR)
    stats = harness.Stats()
    mutants = harness.make_mutants(corpus, seed, range(start, stop))
    findings = harness.fuzz(hlo_opt, mutants, stats=stats)
    harness.triage(hlo_opt, findings)
    return findings, stats.runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10000, help="number of mutants")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0, help="first mutant id")
    parser.add_argument("--out", type=Path, default=REPO / "build" / "fuzz-hlo-opt")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--chunk", type=int, default=256, help="mutants per worker task")
    options = parser.parse_args()

    hlo_opt = find_hlo_opt()
    started = time.time()
    tasks = [(hlo_opt, options.seed, s, min(s + options.chunk, options.start + options.n))
             for s in range(options.start, options.start + options.n, options.chunk)]
    findings, runs = [], 0
    with ProcessPoolExecutor(options.jobs) as pool:
        for found, task_runs in pool.map(_fuzz_range, tasks):
            findings += found
            runs += task_runs
            for f in found:
                where = " (upstream MLIR bug)" if f.upstream else ""
                print(f"{f.kind}{where} in {f.pipeline}: {harness.save(f, options.out, hlo_opt)}",
                      flush=True)
    elapsed = time.time() - started
    ours = [f for f in findings if not f.upstream]
    crashed = len({f.mutant.id for f in ours})
    upstream = len({f.mutant.id for f in findings if f.upstream})
    print(f"{options.n} mutants (seed {options.seed}), {len(harness.PIPELINES)} pipelines "
          f"and the seeds' own passes, {runs} hlo-opt runs in {elapsed:.0f} s: "
          f"{crashed} mutants crash numlir ({len(ours)} crashes), {upstream} crash upstream "
          f"mlir-opt too" + (f"; written to {options.out}" if findings else ""))
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
