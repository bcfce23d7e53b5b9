"""Triangular solves: forward substitution, with the other cases reduced to it."""

from __future__ import annotations

import numpy as np

from numlir._src import core
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import masks
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops, joining, linalg_ops, reshaping
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf


def broadcast_batch(name: str, a, b):
    """``a`` and ``b`` broadcast to their common leading (batch) dimensions."""
    try:
        batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    except ValueError:
        raise core.shape_error(f"{name}: batch dimensions {a.shape[:-2]} and {b.shape[:-2]} "
                               f"(of shapes {a.shape} and {b.shape}) do not broadcast") from None
    return (reshaping.broadcast_to(a, batch + a.shape[-2:]),
            reshaping.broadcast_to(b, batch + b.shape[-2:]))


def _forward_substitution(a, b, unit_diagonal: bool):
    """X with tril(a) @ X = b: a (..., n, n), b (..., n, k), batch dims equal. Row i of X
    uses rows < i only: the rows not computed yet are still 0."""
    n = a.shape[-1]
    positions = cr.arange(n)

    def step(i, x):
        e = masks.onehot(i, n, a.dtype)
        a_row = masks.row(a, e)
        before = uf.where(positions < i, a_row, 0)
        rhs = masks.row(b, e) - linalg_ops.matmul(before[..., None, :], x)[..., 0, :]
        if not unit_diagonal:
            rhs = rhs / red.sum(a_row * e, axis=-1)[..., None]
        return x + masks.outer(e, rhs)

    return fori_loop(0, n, step, cr.zeros_like(b))


def solve_left(a, b, *, lower: bool, transpose_a: bool = False, conjugate_a: bool = False,
               unit_diagonal: bool = False):
    """X with op(a) @ X = b for the triangle of ``a`` that ``lower`` names: op(a) is a, its
    transpose if ``transpose_a``, conjugated if ``conjugate_a`` (both: a^H); a (..., n, n),
    b (..., n, k)."""
    a, b = broadcast_batch("triangular_solve", a, b)
    if conjugate_a:
        a = float_ops.conj(a)
    if transpose_a:
        a, lower = a.swapaxes(-1, -2), not lower
    if lower:
        return _forward_substitution(a, b, unit_diagonal)
    # J U J is lower triangular for the reversal J: solve (J U J)(J x) = J b
    flipped = _forward_substitution(joining.flip(a, axis=(-2, -1)), joining.flip(b, axis=-2),
                                    unit_diagonal)
    return joining.flip(flipped, axis=-2)


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """``jax.lax.linalg.triangular_solve``: X with op(a) X = b (left_side) or X op(a) = b,
    op(a) = a, a^T (``transpose_a``), conj(a) (``conjugate_a``) or a^H (both)."""
    a = masks.as_square_matrix("triangular_solve", a, allow_complex=True)
    b = masks.as_float_matrix("triangular_solve", cr.asarray(b).astype(a.dtype),
                              allow_complex=True)
    if left_side:
        return solve_left(a, b, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a,
                          unit_diagonal=unit_diagonal)
    # X op(a) = b  <=>  op(a)^T X^T = b^T, and op(a)^T keeps the conjugation
    xt = solve_left(a, b.swapaxes(-1, -2), lower=lower, transpose_a=not transpose_a,
                    conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    return xt.swapaxes(-1, -2)
