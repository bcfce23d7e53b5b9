"""The determinant, with JAX's derivative: det(a) times the solve of a, computed from the
LU factors so that it stays finite where a is singular (the adjugate at rank n - 1, zero
below)."""

from __future__ import annotations

import numpy as np

from numlir._src.custom_derivatives import custom_jvp
from numlir._src.linalg import lu as _lu
from numlir._src.linalg import triangular
from numlir._src.numpy import creation as cr
from numlir._src.numpy import cumulative, joining, reductions
from numlir._src.numpy import ufuncs as uf


def diagonal_and_parity(factors, pivots):
    """The diagonal of U and the permutation's sign (+1 or -1, the factors' dtype) from
    ``lu``'s factors and pivots of a = P L U."""
    diagonal = joining.diagonal(factors, axis1=-2, axis2=-1)
    swaps = reductions.sum(pivots != cr.arange(factors.shape[-1], dtype=np.int32), axis=-1)
    return diagonal, uf.where(swaps % 2 == 1, -1, 1).astype(factors.dtype)


def _determinant_times_solve(a, b):
    """(det(a), det(a) a^-1 b) for square a and b of a's shape, finite for every a.

    With a = P L U, det(a) a^-1 b = det(a) U^-1 L^-1 P^T b. Where a has rank n - 1 only
    U's last pivot vanishes, and row n of U^-1 y is y_n / u_nn: replacing u_nn by the
    inverse of the other pivots' product (times the sign) gives det(a) y_n / u_nn there,
    while the other rows are scaled by det(a) = 0 before the solve. Where the rank is
    lower still, the solve is not finite and the result is 0, the derivative's value.
    """
    n = a.shape[-1]
    if n == 1:
        return a[..., 0, 0], b
    factors, pivots, permutation = _lu.lu(a)
    diagonal, parity = diagonal_and_parity(factors, pivots)
    partial = cumulative.cumprod(diagonal, axis=-1) * parity[..., None]
    determinant = partial[..., -1]
    corner = (cr.arange(n)[:, None] == n - 1) & (cr.arange(n)[None, :] == n - 1)
    factors = uf.where(corner, (1 / partial[..., -2])[..., None, None], factors)
    probe = triangular.solve_left(factors, cr.ones(a.shape[:-1] + (1,), a.dtype), lower=False)
    degenerate = reductions.any(~uf.isfinite(probe), axis=(-2, -1))[..., None, None]
    x = uf.where(degenerate, 0, b)
    x = _lu.permute_rows(x, permutation)
    x = triangular.solve_left(factors, x, lower=True, unit_diagonal=True)
    x = joining.concatenate([x[..., :-1, :] * determinant[..., None, None], x[..., -1:, :]],
                            axis=-2)
    x = triangular.solve_left(factors, x, lower=False)
    return determinant, uf.where(degenerate, 0, x)


@custom_jvp
def det(a):
    """The determinant of square (..., n, n) ``a``, from its LU factorization."""
    factors, pivots, _ = _lu.lu(a)
    diagonal, parity = diagonal_and_parity(factors, pivots)
    return parity * reductions.prod(diagonal, axis=-1)


@det.defjvp
def _det_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    determinant, scaled = _determinant_times_solve(a, da)
    return determinant, joining.trace(scaled, axis1=-1, axis2=-2)
