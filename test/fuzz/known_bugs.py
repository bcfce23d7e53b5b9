"""Failures the fixed-seed fuzz test tolerates until the fix lands; empty this list as fixes land.

Each entry names the bug, says what goes wrong in one line, carries a minimal
reproducer, and matches failures by outcome status, mode, a regex on the
detail, and the op kinds (all of ``kinds``, one of ``any_kinds``) and dtypes (one of
``dtypes``) the program must contain, and, with ``special_values_only``, special-value
programs only. Keep matchers narrow: a loose one hides new bugs.
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
    #: Only in special-value programs (the regular ones never reach it).
    special_values_only: bool = False

    def matches(self, program: Program, outcome: Outcome) -> bool:
        if outcome.status not in self.statuses:
            return False
        if self.special_values_only and not program.special_values:
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


# The special-value campaigns' first bugs were listed here until their fixes landed:
# integer floor division and remainder by zero (dfc1e74), float floor division of an
# infinity (1e911d6), top_k of a NaN with the sign bit set (71552d0). Seeds 111 to 114 (issue 39)
# added scatter multiply's update gradient at an infinite update and bf16 argmax's tie under
# jit (cpu-round-before-discontinuities); both are fixed.
KNOWN_BUGS: tuple[KnownBug, ...] = ()


def match(program: Program, outcome: Outcome) -> str | None:
    """The name of the known bug this failure is, or None."""
    for bug in KNOWN_BUGS:
        if bug.matches(program, outcome):
            return bug.name
    return None
