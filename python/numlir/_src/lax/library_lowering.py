"""Lowering a linear-algebra primitive to a library routine or to its numlir program.

Each routed primitive (Cholesky, LU, triangular solve, QR, eigh, SVD, eig, Schur) has
two lowerings: an ``hlo.custom_call`` of a LAPACK routine where the target backend runs
it (``LoweringRuleContext.has_library``: the CPU backend, when the runtime found LAPACK),
and otherwise its composite, a numlir program inlined in place, which every backend
compiles. The derivative and batching rules sit on the primitive, above both, so
both paths differentiate alike (docs/linear-algebra.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from numlir._src import core

#: The element types LAPACK's routines take (s, d, c, z).
LAPACK_DTYPES = frozenset(np.dtype(t) for t in ("float32", "float64", "complex64",
                                                "complex128"))


def has_routines(ctx, *routines: str) -> bool:
    """Whether the backend runs every one of ``routines`` on the eqn's operands' dtypes."""
    return (all(np.dtype(a.dtype) in LAPACK_DTYPES for a in ctx.avals_in)
            and all(ctx.has_library(r) for r in routines))


def lower(ctx, routine: str, operands: Sequence[str], composite: Callable,
          config: Sequence[int] = ()) -> list[str]:
    """The eqn's results: ``routine`` with ``config`` where the backend has it, else
    ``composite(*operands)`` (returning one array or a sequence of them) inlined."""
    if has_routines(ctx, routine):
        return ctx.custom_call(routine, operands, config)
    return inline(ctx, composite, operands)


def inline(ctx, fn: Callable, operands: Sequence[str]) -> list[str]:
    """The eqn's results as ``fn(*operands)`` (one array or a sequence of them), traced at
    the eqn's operand types and emitted in place: a composite, or a program of other
    primitives (QR: geqrf, then orgqr)."""

    def flat(*args):
        out = fn(*args)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    closed = core.trace_to_graph(flat, [a.strip_weak_type() for a in ctx.avals_in])
    return ctx.inline(closed, operands)
