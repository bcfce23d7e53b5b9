"""Parses and verifies every ```mlir example in the hlo dialect's op descriptions.

Run by ods-examples.test. The descriptions are read from `mlir-tblgen
-gen-op-doc`, so examples that ODS classes build by string concatenation
(the elementwise op families) are checked as the reader sees them.

An example may use values it does not define (`%0`, `%lhs`, ...). Each one
becomes an argument of the wrapping function; its type is first `none`, and
the parser's "expects different type than prior uses" error names the type
the example gives it, so the types come from the example itself and the
verifier judges the example as written. Usage:

    ods_examples.py TBLGEN HLO_OPT INCLUDE_DIR... -- TD_FILE
"""

from __future__ import annotations

import bisect
import re
import subprocess
import sys
import tempfile

_OP_HEADING = re.compile(r"^### `(hlo\.[a-z_0-9]+)`", re.M)
_BLOCK = re.compile(r"```mlir\n(.*?)```", re.S)
_SSA_USE = re.compile(r"%([A-Za-z_0-9]+)")
_RESULTS = re.compile(r"\s*((?:%[A-Za-z_0-9]+(?::\d+)?\s*,\s*)*%[A-Za-z_0-9]+(?::\d+)?)\s*=")
_REGION_ARG = re.compile(r"%([A-Za-z_0-9]+)\s*=\s*%")
_MISMATCH = re.compile(
    r"use of value '%([A-Za-z_0-9]+)' expects different type than prior uses: '(.*?)' vs 'none'")
# Each round resolves one free value's type; no example has this many.
_MAX_ROUNDS = 16


def op_examples(tblgen: str, includes: list[str], td: str) -> dict[str, list[str]]:
    """Each op's name and the ```mlir blocks of its description."""
    args = [tblgen, "-gen-op-doc", td] + [f"-I{d}" for d in includes]
    doc = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    headings = list(_OP_HEADING.finditer(doc))
    found = {}
    for i, heading in enumerate(headings):
        end = headings[i + 1].start() if i + 1 < len(headings) else len(doc)
        found[heading.group(1)] = _BLOCK.findall(doc[heading.end():end])
    return found


def defined_names(body: str) -> set[str]:
    """SSA names the example defines: results (`%r:2 =`) and loop-carried
    region arguments (`(%i = %zero, ...)`)."""
    names = set()
    for line in body.splitlines():
        code = line.split("//")[0]
        results = _RESULTS.match(code)
        if results:
            names.update(_SSA_USE.findall(results.group(1)))
        names.update(_REGION_ARG.findall(code))
    return names


def free_names(body: str) -> list[str]:
    defined = defined_names(body)
    seen: list[str] = []
    for line in body.splitlines():
        for name in _SSA_USE.findall(line.split("//")[0]):
            if name not in defined and name not in seen:
                seen.append(name)
    return seen


def wrap(body: str, types: dict[str, str]) -> str:
    params = ", ".join(f"%{name}: {ty}" for name, ty in types.items())
    return f"func.func @example({params}) {{\n{body}\n  return\n}}\n"


def diagnostics(stderr: str, path: str, starts: list[int]) -> dict[int, list[str]]:
    """hlo-opt's diagnostics, grouped by the index of the chunk they point into."""
    found: dict[int, list[str]] = {}
    current = None
    for line in stderr.splitlines():
        where = re.match(re.escape(path) + r":(\d+):\d+: (error|note|warning): ", line)
        if where:
            current = bisect.bisect_right(starts, int(where.group(1))) - 1
            found.setdefault(current, []).append(f"{where.group(2)}: {line[where.end():]}")
        elif current is not None:
            found[current].append(line)
    return found


def check(hlo_opt: str, cases: list[tuple[str, str]]) -> list[str]:
    """Messages for the examples that do not parse and verify.

    All pending examples go to one `hlo-opt --split-input-file` run per round;
    each round resolves one free value of every example that still has one."""
    types = [{name: "none" for name in free_names(body)} for _, body in cases]
    pending = list(range(len(cases)))
    failures = []
    for _ in range(_MAX_ROUNDS):
        if not pending:
            return failures
        chunks, starts, line = [], [], 1
        for i in pending:
            starts.append(line)
            chunks.append(wrap(cases[i][1], types[i]))
            line += chunks[-1].count("\n") + 1
        with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
            f.write("// -----\n".join(chunks))
            f.flush()
            run = subprocess.run([hlo_opt, "--split-input-file", f.name, "-o", "/dev/null"],
                                 capture_output=True, text=True)
            found = diagnostics(run.stderr, f.name, starts)
        still = []
        for k, i in enumerate(pending):
            if k not in found:
                continue
            mismatch = _MISMATCH.search(found[k][0])
            if mismatch and types[i].get(mismatch.group(1)) == "none":
                types[i][mismatch.group(1)] = mismatch.group(2)
                still.append(i)
                continue
            op, body = cases[i]
            failures.append(f"{op}: example\n{body}fails:\n" + "\n".join(found[k]))
        pending = still
    for i in pending:
        failures.append(f"{cases[i][0]}: example\n{cases[i][1]}has unresolved values {types[i]}")
    return failures


def main(argv: list[str]) -> int:
    split = argv.index("--")
    tblgen, hlo_opt, *includes = argv[1:split]
    found = op_examples(tblgen, includes, argv[split + 1])
    if not found:
        print(f"no op documentation in {argv[split + 1]}")
        return 1
    failures = [f"{op}: no ```mlir example" for op, blocks in found.items() if not blocks]
    failures += check(hlo_opt, [(op, body) for op, blocks in found.items() for body in blocks])
    total = sum(len(blocks) for blocks in found.values())
    print(f"{total} examples of {len(found)} ops, {len(failures)} failing")
    for msg in failures:
        print(msg)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
