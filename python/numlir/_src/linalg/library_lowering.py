"""Lowering a linear-algebra primitive to a library routine or to its numlir program.

Each routed primitive (Cholesky, LU, triangular solve) has two lowerings: an
``hlo.custom_call`` of a LAPACK routine where the target backend runs it
(``LoweringRuleContext.has_library``: the CPU backend, when the runtime found LAPACK),
and otherwise its composite, a numlir program inlined in place, which every backend
compiles. The derivative and batching rules sit on the primitive, above both, so
both paths differentiate alike (docs/linear-algebra.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from numlir._src import core


def lower(ctx, routine: str, operands: Sequence[str], composite: Callable,
          config: Sequence[int] = ()) -> list[str]:
    """The eqn's results: ``routine`` with ``config`` where the backend has it, else
    ``composite(*operands)`` (returning one array or a sequence of them) inlined."""
    if ctx.has_library(routine):
        return ctx.custom_call(routine, operands, config)

    def flat(*args):
        out = composite(*args)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    closed = core.trace_to_graph(flat, [a.strip_weak_type() for a in ctx.avals_in])
    return ctx.inline(closed, operands)
