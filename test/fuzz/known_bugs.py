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


#: An integer wrong value (the detail quotes numpy integers).
_INT_VALUE = r"^value: .*np\.int(8|16|32|64)\("

KNOWN_BUGS: tuple[KnownBug, ...] = (
    KnownBug(
        name="int-floor-divide-by-zero",
        description="jnp.floor_divide(x, 0) (x // 0, divmod) of integers x > 0 is -1 on numlir, "
                    "-2 on jax (jax subtracts 1 from lax.div's -1 since sign(x) != sign(0) and "
                    "rem(x, 0) = x != 0)",
        reproducer="def f(v0):\n    return (v0 // 0,)\n# v0 = np.array([7], np.int32): numlir -1, jax -2",
        statuses=("wrong",), detail=_INT_VALUE, any_kinds=("floordiv",),
        special_values_only=True),
    KnownBug(
        name="int-remainder-by-zero",
        description="jnp.remainder(x, 0), x % 0 and jnp.fmod(x, 0) of integers are x on numlir "
                    "(XLA's rem), 0 on jax 0.10.2",
        reproducer="def f(v0):\n    return (v0 % 0,)\n# v0 = np.array([7], np.int32): numlir 7, jax 0",
        statuses=("wrong",), detail=_INT_VALUE, any_kinds=("remainder", "mod"),
        special_values_only=True),
    KnownBug(
        name="float-floor-divide-of-inf",
        description="jnp.floor_divide(inf, y) (x // y) of floats is inf on numlir, NaN on jax "
                    "(and numpy: (x - fmod(x, y)) / y, fmod(inf, y) = NaN)",
        reproducer="def f(x0, x1):\n    return (x0 // x1,)\n"
                   "# x0 = np.array([np.inf], np.float32), x1 = np.array([1.27], np.float32)",
        statuses=("wrong",), kinds=("floordiv",), dtypes=("float32", "float64", "bfloat16"),
        special_values_only=True),
    KnownBug(
        name="top-k-negative-nan",
        description="lax.top_k ranks every NaN first on numlir; jax (XLA's TopK, total order) "
                    "ranks a NaN with the sign bit set below -inf",
        reproducer="def f(x0):\n    return (lax.top_k(x0, 3)[0],)\n"
                   "# x0 = np.array([1.0, -np.nan, 2.0], np.float32) (sign bit set): "
                   "numlir [nan, 2, 1], jax [2, 1, nan]",
        statuses=("wrong",), kinds=("top_k",), special_values_only=True),
)


def match(program: Program, outcome: Outcome) -> str | None:
    """The name of the known bug this failure is, or None."""
    for bug in KNOWN_BUGS:
        if bug.matches(program, outcome):
            return bug.name
    return None
