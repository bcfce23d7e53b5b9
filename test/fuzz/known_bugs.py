"""Failures the fixed-seed fuzz test tolerates until the fix lands; empty this list as fixes land.

Each entry names the bug, says what goes wrong in one line, carries a minimal
reproducer, and matches failures by outcome status, mode, a regex on the
detail, and the op kinds (all of ``kinds``, one of ``any_kinds``) and dtypes (one of
``dtypes``) the program must contain. Keep matchers
narrow: a loose one hides new bugs.
"""

from __future__ import annotations

import dataclasses
import re

from .program import Program
from .run_modes import Outcome


@dataclasses.dataclass(frozen=True)
class KnownBug:
    name: str
    description: str
    reproducer: str
    statuses: tuple[str, ...]
    modes: tuple[str, ...] | None = None
    detail: str | None = None
    kinds: tuple[str, ...] = ()
    any_kinds: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = ()

    def matches(self, program: Program, outcome: Outcome) -> bool:
        if outcome.status not in self.statuses:
            return False
        if self.modes is not None and outcome.mode not in self.modes:
            return False
        if self.detail is not None and not re.search(self.detail, outcome.detail):
            return False
        if not set(self.kinds) <= set(program.kinds()):
            return False
        if self.any_kinds and not set(self.any_kinds) & set(program.kinds()):
            return False
        return not self.dtypes or bool(set(self.dtypes) & set(program.dtypes()))


KNOWN_BUGS: tuple[KnownBug, ...] = (
    KnownBug(
        name="complex-asarray-bool",
        description=("jnp.asarray(z, dtype=bool) (and jnp.array) of a complex array tests both "
                     "parts, as .astype; jax's drops the imaginary part first, as its "
                     "lax.convert_element_type (and numlir's since f34c7a9): -2j gives False"),
        reproducer=(
            "import numpy as np, jax.numpy as jjnp, numlir.numpy as jnp\n"
            "z = np.array([-2j, 1 + 1j], np.complex64)\n"
            "print(jnp.asarray(jnp.asarray(z), dtype=jnp.bool_))    # [ True  True]\n"
            "print(jjnp.asarray(jjnp.asarray(z), dtype=jjnp.bool_))  # [False  True]\n"),
        statuses=("wrong",),
        detail=r"^value: .*np\.True_ vs jax np\.False_",  # only ever True where jax says False
        kinds=("cast",),
        dtypes=("complex64", "complex128"),
    ),
)


def match(program: Program, outcome: Outcome) -> str | None:
    """The name of the known bug this failure is, or None."""
    for bug in KNOWN_BUGS:
        if bug.matches(program, outcome):
            return bug.name
    return None
