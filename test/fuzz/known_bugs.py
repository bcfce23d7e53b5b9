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
)


def match(program: Program, outcome: Outcome) -> str | None:
    """The name of the known bug this failure is, or None."""
    for bug in KNOWN_BUGS:
        if bug.matches(program, outcome):
            return bug.name
    return None
