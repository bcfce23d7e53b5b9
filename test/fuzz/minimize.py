"""Delta debugging of a failing program: the smallest program that fails the same way.

The reductions, tried greedily until none applies (or the budget is spent):

1. the simplest mode that still fails (eager before jit before grad ...);
2. keep one output;
3. cut an op: its value becomes an input holding exactly the value it had
   (so everything upstream that only fed it disappears);
4. bypass an op: its uses read one of its operands of the same shape and dtype;
5. cut one operand of an op into an input;
6. a batch of one for the vmap modes.

"Fails the same way" is the same outcome status and the same signature (the
exception's type and message with numbers blanked out, the kind of mismatch,
the signal), so the minimizer does not wander off to a different bug.
"""

from __future__ import annotations

import re
from typing import Callable

import numpy as np

from .program import Input, Op, Program, fresh_name
from .run_modes import MODES, Outcome, applicable_modes


def signature(outcome: Outcome) -> str:
    """What identifies a failure across program variants."""
    detail = outcome.detail
    if outcome.status == "wrong":
        detail = detail.split(":", 1)[0]  # value / shape / dtype / nonfinite / count
    elif outcome.status == "crash":
        detail = detail.splitlines()[0] if detail else ""
    elif outcome.status == "timeout":
        detail = ""
    else:
        detail = detail.split(" [at ", 1)[0]
        detail = re.sub(r"0x[0-9a-f]+", "#", detail)
        detail = re.sub(r"-?\d+", "#", detail)
        detail = re.sub(r"'[^']*'", "'_'", detail)
        detail = re.sub(r"\([^()]*\)", "(_)", detail)
        detail = re.sub(r"\[[^\[\]]*\]", "[_]", detail)[:90]
    return f"{outcome.status}:{detail}"


Values = dict[str, tuple[np.ndarray, "np.ndarray | None"]]


def cut(program: Program, name: str, values: Values, use: tuple[int, int] | None = None) -> Program:
    """``name`` (an op's value) becomes an input with the value it had.

    With ``use=(op_index, arg_index)`` only that one operand is cut, under a fresh name."""
    plain, batched = values[name]
    batch_axis = None
    if batched is not None and not all(np.array_equal(batched[0], b) for b in batched[1:]):
        batch_axis = 0
    taken = {i.name for i in program.inputs} | {op.out for op in program.ops}
    new_name = name if use is None else fresh_name(taken, "c")
    new_input = Input(new_name, plain, batch_axis, batched if batch_axis is not None else None)
    ops = list(program.ops)
    if use is None:
        ops = [op for op in ops if op.out != name]
    else:
        k, j = use
        args = list(ops[k].args)
        args[j] = new_name
        ops[k] = Op(ops[k].out, ops[k].kind, ops[k].template, tuple(args), ops[k].aval)
    return program.copy(inputs=program.inputs + [new_input], ops=ops).pruned()


def bypass(program: Program, index: int, operand: str) -> Program:
    """Op ``index`` is dropped; its uses read ``operand`` instead."""
    gone = program.ops[index].out

    def rename(args):
        return tuple(operand if a == gone else a for a in args)

    ops = [Op(op.out, op.kind, op.template, rename(op.args), op.aval)
           for i, op in enumerate(program.ops) if i != index]
    return program.copy(ops=ops, outputs=rename(program.outputs)).pruned()


def single_batch(program: Program) -> Program:
    inputs = []
    for inp in program.inputs:
        if inp.batch_axis is not None:
            batched = np.take(inp.batched, [0], axis=inp.batch_axis)
            inputs.append(Input(inp.name, inp.value, inp.batch_axis, batched))
        else:
            inputs.append(inp)
    return program.copy(inputs=inputs, batch_size=1)


def candidates(program: Program, values_of: Callable[[Program], Values]):
    """Smaller variants of ``program``, most aggressive first."""
    if len(program.outputs) > 1:
        for out in program.outputs:
            yield program.copy(outputs=(out,)).pruned()
    values = None
    for op in reversed(program.ops):
        if values is None:
            values = values_of(program)
        if len(program.ops) > 1 or op.out not in program.outputs:
            if op.out in values and op.out not in program.outputs:
                yield cut(program, op.out, values)
    avals = program.avals()
    for i, op in reversed(list(enumerate(program.ops))):
        for a in dict.fromkeys(op.args):
            if avals[a] == op.aval:
                yield bypass(program, i, a)
    for k, op in reversed(list(enumerate(program.ops))):
        for j, a in enumerate(op.args):
            if values is None:
                values = values_of(program)
            if a in values:
                yield cut(program, a, values, use=(k, j))
    if program.batch_size > 1:
        yield single_batch(program)


def size(program: Program) -> tuple:
    return (len(program.ops), sum(len(op.args) for op in program.ops), len(program.outputs),
            sum(i.value.size for i in program.inputs), program.batch_size)


def reduce(program: Program, fails: Callable[[Program], bool],
           values_of: Callable[[Program], Values], budget: int = 120) -> Program:
    """Greedy delta debugging: accept any strictly smaller candidate that still ``fails``."""
    tries = 0
    improved = True
    while improved and tries < budget:
        improved = False
        for cand in candidates(program, values_of):
            if size(cand) >= size(program):
                continue
            tries += 1
            if fails(cand):
                program = cand
                improved = True
                break
            if tries >= budget:
                break
    return program


def minimize(worker, program: Program, outcome: Outcome, budget: int = 120) -> tuple[Program, Outcome]:
    """The smallest program (and the simplest mode) that fails like ``outcome``; runs in ``worker``."""
    wanted = signature(outcome)
    mode = outcome.mode

    def fails_in(cand: Program, m: str) -> bool:
        if m not in applicable_modes(cand):
            return False
        (result,) = worker.check(cand, [m])
        return signature(result) == wanted

    for simpler in MODES[:MODES.index(mode)]:
        if fails_in(program, simpler):
            mode = simpler
            break

    def values_of(p: Program) -> Values:
        try:
            return worker.intermediates(p)
        except Exception:  # noqa: BLE001 - jax cannot evaluate it: no cuts, other reductions go on
            return {}

    smallest = reduce(program, lambda p: fails_in(p, mode), values_of, budget)
    (final,) = worker.check(smallest, [mode])
    return smallest, final
