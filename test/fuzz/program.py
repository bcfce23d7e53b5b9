"""The fuzzer's program IR: inputs with concrete values, ops as Python source templates.

An op is an expression template such as ``"jnp.matmul({0}, {1})"`` whose
placeholders are filled with operand names. The same template is valid with
``jnp``/``lax``/``nn`` bound to numlir's modules or to jax's, so one program is
rendered once and evaluated twice. Templates keep the IR opaque to the
minimizer: it only rewires names (drops ops, cuts operands to inputs), and
every rewiring keeps the program well typed because a cut value becomes an
input of the same shape and dtype, holding the value it had.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable

import numpy as np

FLOAT_DTYPES = ("bfloat16", "float16", "float32", "float64")
#: Complex dtypes and the float dtype of their parts.
COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}


@dataclasses.dataclass(frozen=True)
class Aval:
    """Shape and dtype name (numpy's names; ``bfloat16`` from ml_dtypes)."""

    shape: tuple[int, ...]
    dtype: str

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOAT_DTYPES

    @property
    def is_complex(self) -> bool:
        return self.dtype in COMPLEX_PARTS

    @property
    def is_inexact(self) -> bool:
        """Float or complex: what a gradient flows through."""
        return self.is_float or self.is_complex

    def __str__(self) -> str:
        return f"{self.dtype}{list(self.shape)}"


@dataclasses.dataclass
class Input:
    """A program argument: its value, and how vmap sees it.

    ``batched`` holds ``batch_size`` samples stacked along ``batch_axis``; an
    input with ``batch_axis=None`` is passed unbatched (``in_axes=None``).
    """

    name: str
    value: np.ndarray
    batch_axis: int | None
    batched: np.ndarray | None

    @property
    def aval(self) -> Aval:
        return Aval(tuple(self.value.shape), self.value.dtype.name)


@dataclasses.dataclass(frozen=True)
class Op:
    """``out = template.format(*args)``; ``kind`` names the op family for coverage."""

    out: str
    kind: str
    template: str
    args: tuple[str, ...]
    aval: Aval

    def expression(self) -> str:
        return self.template.format(*self.args)


@dataclasses.dataclass
class Program:
    inputs: list[Input]
    ops: list[Op]
    outputs: tuple[str, ...]
    x64: bool = False
    #: Whether the grad modes apply (the generator then avoided ties at kinks).
    differentiable: bool = True
    batch_size: int = 2
    #: Where the program came from, e.g. ("seed", 1, 17); informational.
    origin: tuple = ()
    #: Whether its inputs hold special values (zeros, ties, infinities, NaN, tiny and huge
    #: magnitudes, integer extremes) and its kinked ops see ties (generate.special_values).
    special_values: bool = False

    def avals(self) -> dict[str, Aval]:
        table = {inp.name: inp.aval for inp in self.inputs}
        table.update((op.out, op.aval) for op in self.ops)
        return table

    def output_avals(self) -> list[Aval]:
        table = self.avals()
        return [table[name] for name in self.outputs]

    def grad_argnums(self) -> tuple[int, ...]:
        """The float and complex inputs (a complex one gets jax's conjugate gradient)."""
        return tuple(i for i, inp in enumerate(self.inputs) if inp.aval.is_inexact)

    def has_grad(self) -> bool:
        return (self.differentiable and bool(self.grad_argnums())
                and any(a.is_inexact for a in self.output_avals()))

    def complex_argnums(self) -> tuple[int, ...]:
        """The complex inputs: what ``grad(..., holomorphic=True)`` differentiates."""
        return tuple(i for i, inp in enumerate(self.inputs) if inp.aval.is_complex)

    def has_holomorphic_grad(self) -> bool:
        return (self.differentiable and bool(self.complex_argnums())
                and any(a.is_inexact for a in self.output_avals()))

    def in_axes(self) -> tuple[int | None, ...]:
        return tuple(inp.batch_axis for inp in self.inputs)

    def has_vmap(self) -> bool:
        return any(axis is not None for axis in self.in_axes())

    def kinds(self) -> list[str]:
        return sorted({op.kind for op in self.ops})

    def dtypes(self) -> list[str]:
        return sorted({a.dtype for a in self.avals().values()})

    def copy(self, **changes) -> "Program":
        changes.setdefault("inputs", list(self.inputs))
        changes.setdefault("ops", list(self.ops))
        return dataclasses.replace(self, **changes)

    def pruned(self) -> "Program":
        """Drops ops and inputs that no output depends on; renames nothing."""
        live = set(self.outputs)
        kept = []
        for op in reversed(self.ops):
            if op.out in live:
                kept.append(op)
                live.update(op.args)
        inputs = [inp for inp in self.inputs if inp.name in live]
        return self.copy(ops=kept[::-1], inputs=inputs)

    def uses(self) -> dict[str, int]:
        count: dict[str, int] = {}
        for name in list(self.outputs) + [a for op in self.ops for a in op.args]:
            count[name] = count.get(name, 0) + 1
        return count


def fresh_name(taken: Iterable[str], prefix: str) -> str:
    taken = set(taken)
    i = 0
    while f"{prefix}{i}" in taken:
        i += 1
    return f"{prefix}{i}"
