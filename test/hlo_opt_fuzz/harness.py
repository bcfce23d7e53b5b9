"""Runs hlo-opt on mutants in batches and finds the ones that crash.

A batch is one hlo-opt process over many mutants joined by `// -----` and
run with --split-input-file, so process start-up is paid once per batch. A
batch that crashes or hangs is bisected down to the mutants that do so on
their own. Every run is memory-limited, so a runaway allocation is a finding
and not an out-of-memory machine."""

from __future__ import annotations

import os
import random
import re
import resource
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .corpus import SPLIT_MARKER, Seed
from .mutate import mutate
from .repair import repair_mutants

# The named pipelines of tools/hlo-opt, and the parse/print round trip
# (generic and custom forms, and bytecode). The lowerings need an entry
# function @main (hlo-record-abi-signature, cpu-emit-c-entry-point).
PIPELINES: dict[str, tuple[str, ...]] = {
    "roundtrip": ("--verify-roundtrip",),
    "hlo-optimize": ("--hlo-optimize",),
    "hlo-cpu-to-linalg": ("--hlo-cpu-to-linalg",),
    "hlo-cpu-to-llvm": ("--hlo-cpu-to-llvm",),
    "hlo-to-cpu": ("--hlo-to-cpu",),
    # The target-independent stage to fused hlo, then the CPU lowering of the
    # fused module (which inlines it).
    "hlo-fuse-to-cpu": ("--hlo-fuse", "--hlo-to-cpu"),
}
OWN_PASSES = "own-passes"  # the passes of the seed file's RUN line

TIMEOUT_S = 10.0  # per mutant
MEMORY_MB = int(os.environ.get("HLO_OPT_FUZZ_MEMORY_MB", "2048"))  # 0: no limit (ASan)

_CRASH_MARKERS = (
    "LLVM ERROR",
    "UNREACHABLE",
    "Stack dump",
    "PLEASE submit a bug report",
    "Assertion",
    "terminate called",
    "AddressSanitizer",
    "UndefinedBehaviorSanitizer",
    "runtime error:",
)


@dataclass(frozen=True)
class Mutant:
    id: int
    seed: Seed
    text: str
    mutations: tuple[str, ...]


@dataclass
class Finding:
    kind: str  # "signal SIGSEGV", "exit 134", "LLVM ERROR", "timeout", ...
    pipeline: str
    args: tuple[str, ...]
    mutant: Mutant
    stderr: str
    minimized: str | None = None
    upstream: bool = False  # upstream mlir-opt crashes on it too

    def report(self, hlo_opt: str) -> str:
        text = self.minimized if self.minimized is not None else self.mutant.text
        where = " (upstream: mlir-opt crashes on it too)" if self.upstream else ""
        return (
            f"hlo-opt {self.kind}{where} in {self.pipeline} on mutant {self.mutant.id} of "
            f"{self.mutant.seed.path} chunk {self.mutant.seed.index} "
            f"(mutations: {', '.join(self.mutant.mutations)})\n"
            f"reproduce: {' '.join(command(hlo_opt, self.args, 'input.mlir'))}\n"
            f"--- input.mlir{' (minimized)' if self.minimized is not None else ''} ---\n"
            f"{text}\n--- stderr (tail) ---\n{self.stderr[-3000:]}"
        )


@dataclass
class Outcome:
    kind: str | None  # None: a normal exit (0, or 1 with a diagnostic)
    stderr: str = ""


@dataclass
class Stats:
    mutants: int = 0
    runs: int = 0
    exits: dict[str, int] = field(default_factory=dict)


def make_mutants(corpus: list[Seed], seed: int, ids: range) -> list[Mutant]:
    """Mutant `i` depends only on (seed, i) and the corpus, so a chunk of ids
    is reproducible on its own."""
    valid = [s for s in corpus if not s.expects_errors]
    invalid = [s for s in corpus if s.expects_errors]
    mutants = []
    for i in ids:
        rng = random.Random(f"hlo-opt-fuzz:{seed}:{i}")
        # Mutants of valid IR reach deeper; invalid seeds cover the verifiers.
        base = rng.choice(invalid if invalid and rng.random() < 0.2 else valid)
        text, applied = mutate(rng, base.text, corpus)
        mutants.append(Mutant(i, base, text, tuple(applied)))
    return mutants


def command(hlo_opt: str, args: tuple[str, ...], path: str) -> list[str]:
    return [hlo_opt, "--split-input-file", "--mlir-disable-threading", *args, path, "-o", os.devnull]


def _limit_resources():
    if MEMORY_MB > 0:
        limit = MEMORY_MB * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def classify(returncode: int | None, stderr: str) -> str | None:
    if returncode is None:
        return "timeout"
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    for marker in _CRASH_MARKERS:
        if marker in stderr:
            return marker
    if returncode not in (0, 1):
        return f"exit {returncode}"
    if returncode == 1 and "error" not in stderr:
        return "exit 1 without a diagnostic"
    return None


def run_text(hlo_opt: str, args: tuple[str, ...], text: str, timeout: float) -> Outcome:
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", encoding="utf-8", errors="replace") as f:
        f.write(text)
        f.flush()
        try:
            result = subprocess.run(
                command(hlo_opt, args, f.name),
                capture_output=True,
                timeout=timeout,
                preexec_fn=_limit_resources,
            )
        except subprocess.TimeoutExpired as e:
            stderr = (e.stderr or b"").decode("utf-8", "replace")
            return Outcome("timeout", stderr)
    stderr = result.stderr.decode("utf-8", "replace")
    return Outcome(classify(result.returncode, stderr), stderr)


_NEEDS_MAIN = {"hlo-cpu-to-linalg", "hlo-cpu-to-llvm", "hlo-to-cpu"}


def with_main(text: str) -> str:
    """`text` with its first function renamed @main, if it has no @main."""
    if "@main" in text:
        return text
    match = re.search(r"func\.func\s+(?:public\s+|private\s+)?@([\w$.-]+)", text)
    if not match:
        return text
    return re.sub(rf"@{re.escape(match.group(1))}(?![\w$.-])", "@main", text)


def _join(mutants: list[Mutant]) -> str:
    return f"\n{SPLIT_MARKER}\n".join(m.text for m in mutants)


def run_batch(
    hlo_opt: str, pipeline: str, args: tuple[str, ...], mutants: list[Mutant], stats: Stats
) -> list[Finding]:
    """Findings among `mutants` under `args`, bisecting failing batches."""
    if not mutants:
        return []
    stats.runs += 1
    outcome = run_text(hlo_opt, args, _join(mutants), TIMEOUT_S + 0.5 * len(mutants))
    if outcome.kind is None:
        return []
    if len(mutants) == 1:
        return [Finding(outcome.kind, pipeline, args, mutants[0], outcome.stderr)]
    half = len(mutants) // 2
    found = run_batch(hlo_opt, pipeline, args, mutants[:half], stats)
    found += run_batch(hlo_opt, pipeline, args, mutants[half:], stats)
    if not found:  # only the combination fails: report the whole batch
        joined = Mutant(mutants[0].id, mutants[0].seed, _join(mutants), ("batch",))
        found = [Finding(outcome.kind, pipeline, args, joined, outcome.stderr)]
    return found


def pipelines_for(
    mutants: list[Mutant], repaired: list[Mutant]
) -> list[tuple[str, tuple[str, ...], list[Mutant]]]:
    """(name, hlo-opt args, mutants) for every pipeline and every group of
    mutants whose seeds share RUN-line passes. The round trip sees the
    mutants and their repaired versions; the passes see a mutant's repaired
    version where it has one."""
    by_id = {m.id: m for m in repaired}
    best = [by_id.get(m.id, m) for m in mutants]
    renamed = [Mutant(m.id, m.seed, with_main(m.text), m.mutations) for m in best]
    runs = []
    for name, args in PIPELINES.items():
        if name == "roundtrip":
            runs.append((name, args, mutants + repaired))
        else:
            runs.append((name, args, renamed if name in _NEEDS_MAIN else best))
    by_passes: dict[tuple[str, ...], list[Mutant]] = {}
    for m in best:
        if m.seed.passes:
            by_passes.setdefault(m.seed.passes, []).append(m)
    for passes, group in sorted(by_passes.items()):
        runs.append((OWN_PASSES, passes, group))
    return runs


def fuzz(
    hlo_opt: str, mutants: list[Mutant], batch_size: int = 64, stats: Stats | None = None
) -> list[Finding]:
    stats = stats if stats is not None else Stats()
    stats.mutants += len(mutants)
    findings: list[Finding] = []
    repaired = repair_mutants(hlo_opt, mutants, SPLIT_MARKER)
    for name, args, group in pipelines_for(mutants, repaired):
        # A mutant that crashed once is not run again: its later crashes are
        # usually the same bug (a parser crash fails every pipeline).
        crashed = {f.mutant.id for f in findings}
        group = [m for m in group if m.id not in crashed]
        for start in range(0, len(group), batch_size):
            findings += run_batch(hlo_opt, name, args, group[start : start + batch_size], stats)
    return findings


def minimize(hlo_opt: str, finding: Finding, budget: int = 300) -> str:
    """Deletes lines (halves, quarters, ... single lines) while the same kind
    of failure remains; `budget` bounds the hlo-opt runs."""
    if finding.kind == "timeout":
        return finding.mutant.text
    lines = finding.mutant.text.split("\n")
    runs = 0

    def still_fails(candidate: list[str]) -> bool:
        nonlocal runs
        runs += 1
        return run_text(hlo_opt, finding.args, "\n".join(candidate), TIMEOUT_S).kind == finding.kind

    size = max(len(lines) // 2, 1)
    while size >= 1 and runs < budget:
        i, removed = 0, False
        while i < len(lines) and runs < budget:
            candidate = lines[:i] + lines[i + size :]
            if candidate and still_fails(candidate):
                lines, removed = candidate, True
            else:
                i += size
        if not removed:
            size //= 2
    return "\n".join(lines)


UPSTREAM_MLIR_OPT = "/usr/lib/llvm-22/bin/mlir-opt"


def crashes_upstream(finding: Finding) -> bool:
    """True if LLVM's own mlir-opt crashes on the (minimized) input when
    parsing it, or with the same options: a bug in MLIR itself, which numlir
    cannot fix (upstream parsers and passes are not numlir's). Inputs with
    hlo ops, or options naming numlir's passes, never qualify."""
    if not Path(UPSTREAM_MLIR_OPT).is_file():
        return False
    text = finding.minimized if finding.minimized is not None else finding.mutant.text
    for args in ((), finding.args):
        kind = run_text(UPSTREAM_MLIR_OPT, args, text, TIMEOUT_S).kind
        if kind is not None and kind != "exit 1 without a diagnostic":
            return True
    return False


def triage(hlo_opt: str, findings: list[Finding], budget: int = 300) -> None:
    """Minimizes each finding and marks those that are MLIR's own bugs."""
    for finding in findings:
        finding.minimized = minimize(hlo_opt, finding, budget)
        finding.upstream = crashes_upstream(finding)


def save(finding: Finding, out_dir: Path, hlo_opt: str) -> Path:
    """Writes the (minimized) crashing input and its report; returns the input's path."""
    if finding.upstream:
        out_dir = out_dir / "upstream"
    out_dir.mkdir(parents=True, exist_ok=True)
    slug = "".join(c if c.isalnum() else "-" for c in f"{finding.kind}-{finding.pipeline}")
    stem = f"{slug}-mutant{finding.mutant.id}"
    path = out_dir / f"{stem}.mlir"
    path.write_text(finding.minimized if finding.minimized is not None else finding.mutant.text)
    (out_dir / f"{stem}.original.mlir").write_text(finding.mutant.text)
    (out_dir / f"{stem}.txt").write_text(finding.report(hlo_opt))
    return path
