"""First-call time of a fresh process, without and with numlir's persistent compilation cache.

    .venv/bin/python bench/compilation_cache.py [--quick] [--only W5,W7]

For each workload (the MLP step W5 and the DCGAN step W7 of specs.py) three
processes run one after another, each timing its first call (trace, lower,
compile or load, run) and a second call (run only):

    off     NUMLIR_ENABLE_COMPILATION_CACHE=0: the pipeline runs
    cold    the cache on, in an empty directory: the pipeline runs and stores
    warm    the same directory again: the executable is loaded

The table gives the seconds and the warm/off ratio; a JSON copy goes to
bench/results/compilation-cache.json.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
MODES = ("off", "cold", "warm")


def child(workload: str, quick: bool) -> None:
    start = time.perf_counter()
    import jaxlike
    import specs
    from numlir._src import compilation_cache

    imported = time.perf_counter() - start
    spec = specs.workloads(quick)[workload]
    fn, args = jaxlike.build("numlir", spec, spec.inputs())
    calls = []
    for _ in range(2):
        start = time.perf_counter()
        result = fn(*args)
        for leaf in result:
            leaf.block_until_ready()
        calls.append(time.perf_counter() - start)
    print(json.dumps({"import_s": imported, "first_call_s": calls[0], "second_call_s": calls[1],
                      "hits": compilation_cache.stats["hits"],
                      "writes": compilation_cache.stats["writes"]}))


def run_one(workload: str, mode: str, directory: str, quick: bool) -> dict:
    env = dict(os.environ, NUMLIR_CACHE_DIR=directory,
               NUMLIR_ENABLE_COMPILATION_CACHE="0" if mode == "off" else "1")
    command = [sys.executable, str(HERE / "compilation_cache.py"), "--child", workload]
    out = subprocess.run(command + ["--quick"] * quick, env=env, capture_output=True, text=True,
                         check=False)
    if out.returncode != 0:
        raise SystemExit(f"{workload} {mode} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small sizes of specs.py")
    parser.add_argument("--only", default="W5,W7", help="comma-separated workloads")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    if args.child:
        child(args.child, args.quick)
        return
    results = {}
    print(f"{'workload':<9}{'mode':<6}{'first call s':>14}{'second call s':>15}{'hits':>6}"
          f"{'writes':>8}")
    for workload in args.only.split(","):
        with tempfile.TemporaryDirectory(prefix="numlir-cache-bench-") as directory:
            rows = {mode: run_one(workload, mode, directory, args.quick) for mode in MODES}
        for mode, row in rows.items():
            print(f"{workload:<9}{mode:<6}{row['first_call_s']:>14.3f}{row['second_call_s']:>15.4f}"
                  f"{row['hits']:>6}{row['writes']:>8}")
        ratio = rows["warm"]["first_call_s"] / rows["off"]["first_call_s"]
        print(f"{workload:<9}warm first call / uncached first call: {ratio:.3f}")
        results[workload] = {**rows, "warm_over_off": ratio}
    out = HERE / "results" / "compilation-cache.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"quick": args.quick, "results": results}, indent=1))
    print(f"wrote {out.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
