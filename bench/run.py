"""numlir against jax.jit, NumPy and PyTorch on workloads W1-W9, one process per framework.

    make bench                                   # everything, full sizes
    .venv/bin/python bench/run.py --quick        # small sizes, fewer repeats
    .venv/bin/python bench/run.py --only W1,W4 --frameworks numlir,jax
    python bench/run.py --device tpu             # numlir's tpu backend beside jax on the TPU
    python bench/run.py --device cuda            # on a GPU: W1-W3 against its copy bandwidth

Every framework runs in its own worker process (worker.py), and only one worker
is busy at any time, so thread pools never compete. First each worker compiles
and runs every workload once (the compile time) and saves that result: numlir's
(and the other peers') first outputs are compared with jax's on the same inputs,
and a mismatch is flagged in the "check" column. Then the rounds: in each round
every workload runs on every framework in turn, with warm-up calls and then
timed samples. The machine's bandwidth and GEMM rate are measured in a separate
process before and after the rounds (the best figure is the limit).
Results: the printed tables, bench/results/<timestamp>.json and latest.json,
and a bar chart bench/results/latest.png. docs/benchmarks.md explains them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile

import numpy as np
from tqdm import tqdm

import report
import specs
from worker import FRAMEWORKS

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_FRAMEWORKS = "numlir,jax,numpy,torch,torch.compile"


class WorkerProcess:
    """A worker.py child, spoken to one JSON line at a time; its stderr goes to a log."""

    def __init__(self, framework: str, quick: bool, log: pathlib.Path, device: str | None = None):
        self.framework, self.log_path = framework, log
        self.log = open(log, "w")
        command = [sys.executable, str(HERE / "worker.py"), "--framework", framework]
        command += ["--device", device] if device else []
        # compile_s is a compilation, not a load from numlir's persistent cache
        # (bench/compilation_cache.py measures that one).
        env = dict(os.environ, NUMLIR_ENABLE_COMPILATION_CACHE="0")
        self.proc = subprocess.Popen(command + (["--quick"] if quick else []),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, bufsize=1, env=env)
        self.error: str | None = None
        hello = self._read()
        self.version = hello.get("version")
        if not hello.get("ready"):
            self.error = hello.get("error", "did not start")

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if line:
            return json.loads(line)
        self.proc.wait()
        self.log.flush()
        tail = self.log_path.read_text(errors="replace").strip().splitlines()[-3:]
        self.error = f"worker exited with status {self.proc.returncode}: " + " / ".join(tail)
        return {"error": self.error}

    def ask(self, **request) -> dict:
        if self.error:  # it never started, or it died: nothing more to ask
            return {"error": self.error}
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
        except BrokenPipeError:
            pass  # it died: _read reports how, from its log
        return self._read()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write('{"op": "quit"}\n')
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.proc.kill()
        self.log.close()


def source_commit() -> str | None:
    """The checkout's commit, "-dirty" when it has changes: which numlir was measured."""
    def git(*args):
        return subprocess.run(["git", "-C", str(HERE), *args], capture_output=True,
                              text=True).stdout.strip()
    try:
        commit = git("rev-parse", "--short", "HEAD")
        return commit + ("-dirty" if git("status", "--porcelain", "--untracked-files=no")
                         else "") if commit else None
    except OSError:
        return None


def measure_machine(quick: bool, device: str | None = None) -> dict:
    """The host's limits (machine.py), and a GPU's (gpu_limits.py) on ``--device cuda``."""
    probes = ["machine.py"] + (["gpu_limits.py"] if device == "cuda" else [])
    found = []
    for probe in probes:
        out = subprocess.run([sys.executable, str(HERE / probe)] + (["--quick"] * quick),
                             capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(f"{probe} failed:\n{out.stderr[-2000:]}")
        found.append(json.loads(out.stdout))
    machine = found[0]
    if len(found) > 1:
        machine["device_limits"] = found[1]
    return machine


def best_machine(runs: list[dict]) -> dict:
    best = dict(runs[0])
    for key in ("copy_gbs", "read_gbs", "sgemm_gflops"):
        best[key] = max(r[key] for r in runs)
    best["first_touch_us_per_mib"] = min(r["first_touch_us_per_mib"] for r in runs)
    gpus = [r["device_limits"] for r in runs if "device_limits" in r]
    if gpus:
        best["device_limits"] = max(gpus, key=lambda g: g["copy_gbs"])
    best["runs"] = runs
    return best


def compare(result: pathlib.Path, reference: pathlib.Path, tolerance: float) -> str:
    """'ok', or what differs between two saved first outputs."""
    with np.load(result) as a, np.load(reference) as b:
        if len(a.files) != len(b.files):
            return f"MISMATCH: {len(a.files)} outputs, expected {len(b.files)}"
        worst = 0.0
        for key in b.files:
            x, y = a[key], b[key]
            if x.shape != y.shape:
                return f"MISMATCH: output {key} shape {x.shape}, expected {y.shape}"
            # |a - b| below is the complex modulus, so a complex result with a zero
            # imaginary part would pass for a real one: the kinds must agree first.
            if np.iscomplexobj(x) != np.iscomplexobj(y):
                return f"MISMATCH: output {key} is {x.dtype}, expected {y.dtype}"
            if not np.all(np.isfinite(x) == np.isfinite(y)):
                return f"MISMATCH: output {key} has non-finite values where the reference has none"
            scale = max(float(np.max(np.abs(y), initial=0.0)), 1e-6)
            finite = np.isfinite(y)
            worst = max(worst, float(np.max(np.abs(x[finite] - y[finite]), initial=0.0)) / scale)
        return "ok" if worst <= tolerance else f"MISMATCH: rel. error {worst:.2g}"


def check_outputs(workload: dict, saved: dict[str, pathlib.Path], tolerance: float) -> str:
    reference = "jax" if "jax" in saved else ("numpy" if "numpy" in saved else None)
    if reference is None or len(saved) < 2:
        return "–"
    notes = []
    for framework, path in saved.items():
        if framework == reference:
            continue
        verdict = compare(path, saved[reference], tolerance)
        workload["results"][framework]["check"] = verdict
        if verdict != "ok":
            notes.append(f"{framework} vs {reference}: {verdict}")
    return "; ".join(notes) or f"ok (vs {reference})"


def run_round(worker: WorkerProcess, workload, cell: dict, opts) -> None:
    if not cell.get("supported") or "error" in cell:
        return
    answer = worker.ask(op="round", workload=workload.name, warmup=opts.warmup,
                        repeats=workload.repeats or opts.repeats)
    if "error" in answer:
        cell["error"] = answer["error"]
    else:
        cell.setdefault("rounds", []).append(answer)


def turns(frameworks: list[str], device: str | None) -> list[list[str]]:
    """Which frameworks' workers run at the same time. A TPU belongs to one process at a
    time (libtpu's lockfile), so there each framework compiles and times everything before
    the next starts; elsewhere all are interleaved round by round."""
    return [[f] for f in frameworks] if device == "tpu" else [list(frameworks)]


def measure(chosen, rows, frameworks, workers, tmp: pathlib.Path, stamp: str, opts) -> None:
    """Compiles and times every chosen workload on ``frameworks``, each in a new worker
    (kept in ``workers`` for its version and error), results into ``rows``."""
    logs = opts.results_dir / "logs"
    started = {}
    for f in tqdm(frameworks, desc="starting workers", file=sys.stderr):
        started[f] = workers[f] = WorkerProcess(f, opts.quick, logs / f"{stamp}-{f}.log",
                                                opts.device)
    min_sample_s = 0.01 if opts.quick else 0.05
    try:
        setups = [(w, row, f) for w, row in zip(chosen, rows) for f in frameworks]
        for w, row, f in tqdm(setups, desc="compiling", file=sys.stderr):
            path = tmp / f"{w.name}-{f}.npz"
            answer = started[f].ask(op="setup", workload=w.name, out=str(path),
                                    min_sample_s=min_sample_s)
            row["results"][f].update(answer)
            if answer.get("supported") and "error" not in answer:
                row.setdefault("_saved", {})[f] = path
        steps = opts.rounds * len(chosen) * len(frameworks)
        with tqdm(total=steps, desc="rounds", file=sys.stderr) as progress:
            for r in range(opts.rounds):
                progress.set_description(f"round {r + 1}/{opts.rounds}")
                for w, row in zip(chosen, rows):
                    for f in frameworks:
                        progress.set_postfix_str(f"{w.name} {f}")
                        run_round(started[f], w, row["results"][f], opts)
                        progress.update()
    finally:
        for worker in started.values():
            worker.close()


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and fewer repeats")
    parser.add_argument("--only", help="comma-separated workloads (W1,...,W9, W4a, G, D)")
    parser.add_argument("--frameworks", default=DEFAULT_FRAMEWORKS,
                        help=f"comma-separated, from {','.join(FRAMEWORKS)}")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 3, quick 2)")
    parser.add_argument("--repeats", type=int, help="timed samples per round (default 5, quick 3)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed samples per round")
    parser.add_argument("--results-dir", type=pathlib.Path, default=HERE / "results")
    parser.add_argument("--no-chart", action="store_true")
    parser.add_argument("--device", help="run numlir on this backend's device (tpu, pjrt_cpu: "
                        "docs/pjrt.md; cuda: docs/cuda-backend.md) and jax on the same "
                        "hardware; numlir and jax only")
    parser.add_argument("--report", type=pathlib.Path, metavar="JSON",
                        help="print the tables of a saved run and redraw its chart as JSON's name "
                             "with .png; measures nothing")
    opts = parser.parse_args(argv)
    if opts.device and opts.frameworks == DEFAULT_FRAMEWORKS:
        opts.frameworks = "numlir,jax"
    opts.frameworks = [f.strip() for f in opts.frameworks.split(",") if f.strip()]
    if opts.device and set(opts.frameworks) - {"numlir", "jax"}:
        parser.error("--device runs numlir and jax only")
    bad = [f for f in opts.frameworks if f not in FRAMEWORKS]
    if bad:
        parser.error(f"unknown framework(s) {', '.join(bad)}; known: {', '.join(FRAMEWORKS)}")
    opts.rounds = opts.rounds or (2 if opts.quick else 3)
    opts.repeats = opts.repeats or (3 if opts.quick else 5)
    return opts


def reprint(opts) -> None:
    run = json.loads(opts.report.read_text())
    print(report.tables(run))
    if not opts.no_chart:
        path = opts.report.with_suffix(".png")
        problem = report.chart(run, path)
        print(problem or f"wrote {path}")


def main(argv=None) -> None:
    opts = parse_args(argv)
    if opts.report:
        return reprint(opts)
    load_start = os.getloadavg()
    chosen = specs.select(opts.quick, opts.only)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    opts.results_dir.mkdir(parents=True, exist_ok=True)
    (opts.results_dir / "logs").mkdir(exist_ok=True)

    machine_runs = [measure_machine(opts.quick, opts.device)]
    rows = [{"name": w.name, "title": w.title, "dims": w.dims, "bytes": w.bytes,
             "flops": w.flops, "limit": w.limit, "unit": w.unit, "tolerance": w.tolerance,
             "results": {f: {} for f in opts.frameworks}} for w in chosen]
    workers = {}
    with tempfile.TemporaryDirectory() as tmp:
        for frameworks in turns(opts.frameworks, opts.device):
            measure(chosen, rows, frameworks, workers, pathlib.Path(tmp), stamp, opts)
        for w, row in zip(chosen, rows):
            row["check"] = check_outputs(row, row.pop("_saved", {}), w.tolerance)
    machine_runs.append(measure_machine(opts.quick, opts.device))

    machine = best_machine(machine_runs)
    run = {
        "schema": 1, "timestamp": stamp, "argv": sys.argv[1:] if argv is None else argv,
        "quick": opts.quick, "device": opts.device, "rounds": opts.rounds,
        "repeats": opts.repeats,
        "warmup": opts.warmup, "frameworks": opts.frameworks,
        "versions": {f: w.version for f, w in workers.items()}, "commit": source_commit(),
        "worker_errors": {f: w.error for f, w in workers.items() if w.error},
        "host": {"platform": platform.platform(), "python": platform.python_version(),
                 "cpus": os.cpu_count(), "loadavg_start": load_start,
                 "loadavg": os.getloadavg()},
        "machine": machine,
        "workloads": [report.finish(row, machine, opts.frameworks, opts.device) for row in rows],
    }
    text = report.tables(run)
    print(text)
    for f, error in run["worker_errors"].items():
        print(f"{f}: {error}")
    for row in rows:
        if "MISMATCH" in row.get("check", ""):
            print(f"WARNING: {row['name']} outputs disagree: {row['check']}")
        for f, cell in row["results"].items():
            if "error" in cell:
                print(f"{row['name']} {f}: {cell['error'].splitlines()[0][:300]}")
    out = opts.results_dir / f"{stamp}.json"
    out.write_text(json.dumps(run, indent=1))
    (opts.results_dir / "latest.json").write_text(out.read_text())
    print(f"wrote {out} and latest.json")
    if not opts.no_chart:
        problem = report.chart(run, opts.results_dir / "latest.png")
        print(problem or f"wrote {opts.results_dir / 'latest.png'}")


if __name__ == "__main__":
    main()
