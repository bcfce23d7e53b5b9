"""Repairs of mutants that the verifier rejects only for their types.

A mutation of an attribute (a padding, a stride, a dimension number) usually
makes the op's result type wrong, and the verifier stops the mutant before
any lowering sees the odd attribute. Verifier messages name the expected
type, so the mutant is fixed up from them: the op's result type, then the
function's result type, then the uses of a retyped value. What survives is
valid IR with unusual parameters, the input lowerings are least tested on."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import replace
from typing import Optional

_ERROR_RE = re.compile(r"^[^:\n]+:(\d+):\d+: error: (.*)$", re.M)
_TENSOR_RE = re.compile(r"tensor<((?:\d+x)*)([^<>]*(?:<[^<>]*>)?)>")
_LIST_RE = re.compile(r"\[([-\d, ]*)\]")


def _expected_shape(message: str) -> Optional[list[str]]:
    """The shape a "result shape [..] must be ..." message asks for."""
    if not message.startswith("'") or "result shape [" not in message:
        return None
    tail = message.split(" must be", 1)[-1]
    which = tail.rsplit(", which is ", 1)
    lists = _LIST_RE.findall(which[-1] if len(which) == 2 else tail)
    if not lists:
        return None
    return [d.strip() for d in lists[0].split(",") if d.strip()]


def _retype_last_tensor(line: str, dims: list[str]) -> str:
    matches = list(_TENSOR_RE.finditer(line))
    if not matches or any(d.startswith("-") for d in dims):
        return line
    m = matches[-1]
    new = f"tensor<{''.join(d + 'x' for d in dims)}{m.group(2)}>"
    return line[: m.start()] + new + line[m.end() :]


def repair(text: str, line_no: int, message: str) -> Optional[str]:
    """`text` with the error at 1-based `line_no` fixed, or None."""
    lines = text.split("\n")
    if not 1 <= line_no <= len(lines):
        return None
    i = line_no - 1
    dims = _expected_shape(message)
    if dims is not None:
        lines[i] = _retype_last_tensor(lines[i], dims)
        return "\n".join(lines)
    m = re.search(r"type of return operand \d+ \('([^']*)'\) doesn't match function result "
                  r"type \('([^']*)'\)", message)
    if m:
        got, declared = m.groups()
        for j in range(i, -1, -1):
            if "func.func" in lines[j]:
                head, arrow, results = lines[j].partition("->")
                if arrow and declared in results:
                    lines[j] = head + arrow + results.replace(declared, got, 1)
                    return "\n".join(lines)
                return None
        return None
    m = re.search(r"expects different type than prior uses: '([^']*)' vs '([^']*)'", message)
    if m and m.group(1) in lines[i]:
        lines[i] = lines[i].replace(m.group(1), m.group(2), 1)
        return "\n".join(lines)
    return None


def repair_mutants(hlo_opt: str, mutants: list, separator: str, rounds: int = 3,
                   batch_size: int = 64) -> list:
    """The mutants that the verifier rejects and that repairs make pass,
    repaired (each tagged with a "repair" mutation)."""
    repaired = {}
    current = list(mutants)
    for _ in range(rounds):
        fixed_now = []
        for start in range(0, len(current), batch_size):
            fixed_now += _repair_batch(hlo_opt, current[start : start + batch_size], separator)
        if not fixed_now:
            break
        for m in fixed_now:
            repaired[m.id] = m
        current = fixed_now
    return [repaired[m.id] for m in mutants if m.id in repaired]


def _repair_batch(hlo_opt: str, mutants: list, separator: str) -> list:
    texts = [m.text for m in mutants]
    joined = f"\n{separator}\n".join(texts)
    starts, line = [], 1
    for t in texts:
        starts.append(line)
        line += t.count("\n") + 2
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", encoding="utf-8", errors="replace") as f:
        f.write(joined)
        f.flush()
        try:
            result = subprocess.run(
                [hlo_opt, "--split-input-file", "--mlir-disable-threading", f.name,
                 "-o", os.devnull], capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            return []
    first_error = {}
    for m in _ERROR_RE.finditer(result.stderr.decode("utf-8", "replace")):
        line_no = int(m.group(1))
        k = max(j for j, s in enumerate(starts) if s <= line_no)
        first_error.setdefault(k, (line_no - starts[k] + 1, m.group(2)))
    fixed = []
    for k, (local_line, message) in sorted(first_error.items()):
        new = repair(texts[k], local_line, message)
        if new is not None and new != texts[k]:
            mutations = mutants[k].mutations
            if "repair" not in mutations:
                mutations = mutations + ("repair",)
            fixed.append(replace(mutants[k], text=new, mutations=mutations))
    return fixed
