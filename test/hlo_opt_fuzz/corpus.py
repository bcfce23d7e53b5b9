"""The fuzzer's seeds: every `// -----` chunk of the lit inputs, with the passes
its file's RUN lines run, so each pass a lit test reaches is fuzzed on its own."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

SPLIT_MARKER = "// -----"

# Options of a RUN line that shape how the file is checked, not what runs.
_DRIVER_OPTIONS = {
    "-split-input-file",
    "--split-input-file",
    "-verify-diagnostics",
    "--verify-diagnostics",
    "--mlir-print-op-generic",
}


@dataclass(frozen=True)
class Seed:
    path: str  # relative to the test directory
    index: int  # chunk number within the file
    text: str
    passes: tuple[str, ...]  # the hlo-opt pass options of the file's RUN lines

    @property
    def expects_errors(self) -> bool:
        """A chunk of a verifier test: invalid IR on purpose."""
        return "expected-error" in self.text


def _run_line_passes(text: str) -> tuple[str, ...]:
    """The first RUN line's hlo-opt options that select passes (empty when the
    file only round-trips or verifies)."""
    for line in text.splitlines():
        match = re.search(r"RUN:\s*hlo-opt\s+%s\s+(.*)", line)
        if not match:
            continue
        command = match.group(1).split("|")[0]
        options = [o for o in shlex.split(command) if o not in _DRIVER_OPTIONS]
        return tuple(options)
    return ()


def load_seeds(test_dir: Path) -> list[Seed]:
    """All chunks of test_dir/**/*.mlir, in a fixed order."""
    seeds = []
    for path in sorted(test_dir.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        text = path.read_text()
        passes = _run_line_passes(text)
        rel = path.relative_to(test_dir).as_posix()
        for index, chunk in enumerate(text.split(SPLIT_MARKER)):
            if chunk.strip():
                seeds.append(Seed(rel, index, chunk, passes))
    return seeds
