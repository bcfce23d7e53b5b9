"""``make fuzz``: a long campaign of random programs, with minimized reproducers.

    python -m fuzz.campaign --n 10000 --seed 1 --jobs 2 --out fuzz-out

(run from test/, or with test/ on PYTHONPATH). Programs ``0 .. n-1`` of the
seed are generated and run in every mode that applies, in ``jobs`` worker
processes. Each distinct failure (by mode, outcome and signature) is
minimized, up to ``--minimize-per-signature`` examples, and written to
``out/`` as a standalone script; ``out/summary.txt`` has the counts.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import sys
import threading
import time

from . import known_bugs, minimize, render, reproducer
from .generate import (FAMILY_NAMES, FAVORED_SHARE, OP_FAMILY_NAMES, SPECIAL_SHARE,
                       SPECIAL_VALUES_MODES)
from .program import Program
from .run_modes import FAILURES, SKIPS, Outcome
from .sandbox import Worker

#: Programs between two rewrites of the summary files while the campaign runs.
SUMMARY_EVERY = 50
COUNTED = ("ok", "wrong", "error", "crash", "timeout", "jax_error", "jax_crash", "unstable",
           "jax_disagrees")


@dataclasses.dataclass
class Finding:
    index: int
    program: Program
    outcome: Outcome
    signature: str
    known: str | None


class Campaign:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        #: The outcomes of the special-value programs alone (they are counted in ``counts`` too).
        self.special_counts = collections.Counter()
        self.special_programs = 0
        self.per_mode = collections.defaultdict(collections.Counter)
        self.signatures: dict[str, list[Finding]] = collections.defaultdict(list)
        self.next_index = args.start
        self.programs = 0
        self.done: set[int] = set()
        self.started = time.time()
        self.written: list[str] = []
        self.generator_failures: dict[int, str] = {}

    def take(self) -> int | None:
        with self.lock:
            if self.next_index >= self.args.start + self.args.n:
                return None
            self.next_index += 1
            return self.next_index - 1

    def record(self, index: int, program: Program, outcomes: list[Outcome]) -> list[Finding]:
        fresh = []
        with self.lock:
            self.programs += 1
            self.special_programs += program.special_values
            self.done.add(index)
            for o in outcomes:
                self.counts[o.status] += 1
                if program.special_values:
                    self.special_counts[o.status] += 1
                self.per_mode[o.mode][o.status] += 1
                if o.status in FAILURES:
                    sig = f"{o.mode}|{minimize.signature(o)}"
                    finding = Finding(index, program, o, sig, known_bugs.match(program, o))
                    self.signatures[sig].append(finding)
                    if len(self.signatures[sig]) <= self.args.minimize_per_signature:
                        fresh.append(finding)
        return fresh

    def record_generator_failure(self, index: int, error: Exception) -> None:
        """The generator raised for ``index``: a bug of the fuzzer, not of numlir. The program
        counts as done (so the summary's contiguous range moves on) and the summary lists it."""
        with self.lock:
            self.done.add(index)
            self.generator_failures[index] = str(error).strip().splitlines()[-1][:200]

    def work(self, bar) -> None:
        worker = Worker(timeout=self.args.timeout)
        checked = 0
        try:
            while (index := self.take()) is not None:
                if checked and checked % self.args.recycle_every == 0:
                    # A fresh process: jax's and numlir's caches in a long-lived worker grew
                    # to 3.5 GB each by program 3,400 of a 10,000-program campaign, and half
                    # its time went to the kernel (2.5 programs/s fell to 0.8).
                    worker.close()
                    worker = Worker(timeout=self.args.timeout)
                checked += 1
                try:
                    program = worker.generate(self.args.seed, index, self.args.families,
                                              self.args.favor, self.special_mode())
                except RuntimeError as error:  # the generator's bug: counted, and the worker goes on
                    self.record_generator_failure(index, error)
                    continue
                outcomes = worker.check(program, self.args.modes)
                for finding in self.record(index, program, outcomes):
                    self.report(worker, finding)
                with self.lock:
                    bar.update(1)
                    bar.set_postfix(wrong=self.counts["wrong"], error=self.counts["error"],
                                    crash=self.counts["crash"] + self.counts["timeout"], refresh=False)
                    if self.programs % SUMMARY_EVERY == 0:
                        # A campaign stopped early still leaves its counts behind.
                        self.write_summary(final=False)
        finally:
            worker.close()

    def report(self, worker: Worker, finding: Finding) -> None:
        program, outcome = finding.program, finding.outcome
        if not self.args.no_minimize:
            program, outcome = minimize.minimize(worker, program, outcome, budget=self.args.budget)
            if not outcome.failed:  # flaky: keep the original
                program, outcome = finding.program, finding.outcome
        note = f"Found by `make fuzz SEED={self.args.seed}` (program {finding.index}); "
        if self.restriction():
            note = (f"Found by `python -m fuzz.campaign --seed {self.args.seed}"
                    f"{self.restriction()}` (program {finding.index}); ")
        note += "minimized.\n" if not self.args.no_minimize else "not minimized.\n"
        # The minimized program names the bug better: the original may hold the op kinds of
        # two known bugs (floor division and remainder by zero, say).
        known = known_bugs.match(program, outcome) or finding.known
        if known:
            note += f"Known bug: {known}.\n"
        text = reproducer.script(program, outcome, note=note)
        slug = f"{finding.index:06d}-{outcome.mode}-{outcome.status}"
        path = os.path.join(self.args.out, f"{slug}.py")
        with open(path, "w") as f:
            f.write(text)
        with self.lock:
            self.written.append(path)

    def special_mode(self) -> str:
        return getattr(self.args, "special_values", None) or "quarter"

    def restriction(self) -> str:
        """The options that chose other programs than a plain campaign's, as command-line text."""
        text = ""
        if self.special_mode() != "quarter":
            text += f" --special-values {self.special_mode()}"
        if self.args.families is not None:
            text += f" --families {','.join(self.args.families)}"
        if self.args.favor is not None:
            text += f" --favor {','.join(self.args.favor)}"
        return text

    def finished_through(self) -> int:
        """The last index k such that every program from START to k has finished."""
        k = self.args.start
        while k in self.done:
            k += 1
        return k - 1

    def summary(self, elapsed: float, final: bool = True) -> str:
        c = self.counts
        modes_run = sum(v for k, v in c.items() if k not in SKIPS)
        progress = "" if final else (f" (in progress: every program up to {self.finished_through()} "
                                     f"has finished)")
        lines = [
            f"seed {self.args.seed}, programs {self.args.start}..{self.args.start + self.args.n - 1}"
            f"{self.restriction()}: {self.programs} programs in {elapsed:.0f}s{progress}",
            f"modes run: {modes_run} (ok {c['ok']}); skipped: jax rejects {c['jax_error']}, "
            f"jax itself crashed {c['jax_crash']}, ill-conditioned {c['unstable']}, jax.jit differs from jax op by op {c['jax_disagrees']}",
            f"wrong values: {c['wrong']}",
            f"numlir exceptions where jax succeeds: {c['error']}",
            f"crashes: {c['crash']} (timeouts: {c['timeout']})",
            f"special-value programs: {self.special_programs} of {self.programs} "
            f"(--special-values {self.special_mode()}): modes run "
            f"{sum(v for k, v in self.special_counts.items() if k not in SKIPS)}, wrong values "
            f"{self.special_counts['wrong']}, exceptions {self.special_counts['error']}, crashes "
            f"{self.special_counts['crash'] + self.special_counts['timeout']}; skipped: "
            f"ill-conditioned {self.special_counts['unstable']}, jax.jit differs from jax op by "
            f"op {self.special_counts['jax_disagrees']}",
            f"programs the generator failed to make (fuzzer bugs): {len(self.generator_failures)}"
            + "".join(f"\n  program {i}: {e}" for i, e in sorted(self.generator_failures.items())),
            "",
            "per mode: " + "; ".join(
                f"{m}: " + ", ".join(f"{k} {v}" for k, v in sorted(cnt.items()))
                for m, cnt in sorted(self.per_mode.items())),
            "",
            f"distinct failure signatures: {len(self.signatures)}",
        ]
        for sig, findings in sorted(self.signatures.items(), key=lambda kv: -len(kv[1])):
            known = findings[0].known
            lines.append(f"  {len(findings):5d}x {sig}" + (f"   [known: {known}]" if known else ""))
            special = sum(f.program.special_values for f in findings)
            lines.append(f"         first: program {findings[0].index}, kinds "
                         f"{','.join(findings[0].program.kinds())}"
                         + (f"; {special} in special-value programs" if special else ""))
        if self.written:
            lines += ["", f"reproducers in {self.args.out}/ ({len(self.written)} files)"]
        return "\n".join(lines)

    def write_summary(self, final: bool) -> str:
        """Writes summary.txt and summary.json (the caller holds the lock or the threads are done)."""
        text = self.summary(time.time() - self.started, final)
        with open(os.path.join(self.args.out, "summary.txt"), "w") as f:
            f.write(text + "\n")
        with open(os.path.join(self.args.out, "summary.json"), "w") as f:
            json.dump({"seed": self.args.seed, "start": self.args.start, "n": self.args.n,
                       "families": self.args.families, "favor": self.args.favor,
                       "special_values": self.special_mode(),
                       "final": final, "finished_through": self.finished_through(),
                       "programs": self.programs, "counts": dict(self.counts),
                       "special_value_programs": self.special_programs,
                       "special_value_counts": dict(self.special_counts),
                       "per_mode": {m: dict(c) for m, c in self.per_mode.items()},
                       "signatures": {s: [f.index for f in fs] for s, fs in self.signatures.items()},
                       "generator_failures": self.generator_failures},
                      f, indent=1)
        return text


def _names_among(known: tuple[str, ...], what: str):
    """An argparse type: a comma-separated list of names from ``known``."""
    def parse(text: str) -> tuple[str, ...]:
        names = tuple(n.strip() for n in text.split(",") if n.strip())
        unknown = [n for n in names if n not in known]
        if unknown or not names:
            raise argparse.ArgumentTypeError(f"unknown {what} {unknown}; the {what}: "
                                             f"{', '.join(known)}")
        return names
    return parse


_families = _names_among(FAMILY_NAMES, "families")
_op_families = _names_among(OP_FAMILY_NAMES, "op families")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=1000, help="number of programs")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", type=int, default=0, help="index of the first program")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    p.add_argument("--out", default="fuzz-out", help="directory for reproducers and the summary")
    p.add_argument("--modes", nargs="*", default=None, help="only these modes (default: all)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds one mode may take")
    p.add_argument("--recycle-every", type=int, default=250,
                   help="programs a worker process checks before a fresh one takes over")
    p.add_argument("--no-minimize", action="store_true")
    p.add_argument("--budget", type=int, default=120, help="minimizer's runs per failure")
    p.add_argument("--minimize-per-signature", type=int, default=2,
                   help="reproducers written per distinct failure signature")
    p.add_argument("--show", action="store_true", help="print program START's source and exit")
    p.add_argument("--families", type=_families, default=None,
                   help="only programs of these families, comma-separated (e.g. "
                        f"complex64,complex128; the families: {','.join(FAMILY_NAMES)}); other "
                        "programs than without it")
    p.add_argument("--favor", type=_op_families, default=None,
                   help=f"op families that share {FAVORED_SHARE * 100:.0f}%% of the draws equally, "
                        "comma-separated (e.g. fft,linalg,conv); other programs than without it")
    p.add_argument("--special-values", choices=SPECIAL_VALUES_MODES, default="quarter",
                   help=f"which programs draw special values (zeros, ties, inf, NaN, tiny and "
                        f"huge magnitudes, integer extremes): about {SPECIAL_SHARE * 100:.0f}%% of them, "
                        "chosen by seed and index (quarter, the default), all, or none; all "
                        "and none make other programs than the default")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    if args.show:
        worker = Worker(timeout=args.timeout)
        try:
            program = worker.generate(args.seed, args.start, args.families, args.favor,
                                      args.special_values)
            print(render.describe(program) + render.function_source(program))
        finally:
            worker.close()
        return 0

    from tqdm import tqdm

    campaign = Campaign(args)
    with tqdm(total=args.n, unit="prog", dynamic_ncols=True) as bar:
        threads = [threading.Thread(target=campaign.work, args=(bar,), daemon=True)
                   for _ in range(max(1, min(args.jobs, args.n)))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print(campaign.write_summary(final=True))
    failures = sum(campaign.counts[k] for k in FAILURES) + len(campaign.generator_failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
