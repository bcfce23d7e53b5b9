"""Functions of upper triangular matrices, for sqrtm and funm (which take them from the
complex Schur form).

Both recurrences fill the result one superdiagonal at a time: entry (i, j) needs only
entries nearer the diagonal, so a whole superdiagonal comes from one pair of matrix
products of the part already known (zero beyond it). That is n - 1 steps of O(n^3) work on
the whole (..., n, n) batch, where an entry-by-entry loop would take n^2 / 2 steps.
"""

from __future__ import annotations

import numpy as np

from numlir._src import dtypes
from numlir._src.jit import jit
from numlir._src.lax.scan import fori_loop
from numlir._src.numpy import creation as cr
from numlir._src.numpy import joining, linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf


def _superdiagonal(n: int, p):
    """The (n, n) mask of superdiagonal ``p`` (a traced loop index)."""
    positions = cr.arange(n)
    return positions[None, :] - positions[:, None] == p


def _diagonal(x):
    return joining.diagonal(x, axis1=-2, axis2=-1)


def _diagonal_matrix(values):
    return values[..., :, None] * cr.eye(values.shape[-1], dtype=values.dtype)


@jit
def triangular_sqrt(t):
    """The upper triangular square root u of upper triangular t (u @ u = t), with the
    principal square roots on its diagonal: Björck & Hammarling's recurrence
    u_ij = (t_ij - sum_{i<k<j} u_ik u_kj) / (u_ii + u_jj), and u_ij = 0 where the sum
    equals t_ij, as jax (so a singular t's 0 / 0 gives 0)."""
    n = t.shape[-1]
    roots = uf.sqrt(_diagonal(t))
    denominators = roots[..., :, None] + roots[..., None, :]

    def fill(p, u):
        known = joining.triu(u, 1)
        inner = linalg_ops.matmul(known, known)  # sum_{i<k<j} u_ik u_kj
        value = uf.where(t == inner, 0, (t - inner) / denominators)
        return uf.where(_superdiagonal(n, p), value, u)

    return fori_loop(1, n, fill, _diagonal_matrix(roots))


@jit
def parlett(f_diagonal, t):
    """(f, minden): f(t) for upper triangular t with distinct diagonal entries, given
    f_diagonal = f(diag t), by Parlett's recurrence (Golub & Van Loan, Algorithm 11.1.1):
    f_ij (t_jj - t_ii) = t_ij (f_jj - f_ii) + sum_{i<k<j} (t_ik f_kj - f_ik t_kj). Where
    t_jj = t_ii the right side is kept undivided, as jax. minden is the least
    |t_jj - t_ii| over i < j, and |t_00|: the quantity jax's error estimate reads."""
    n = t.shape[-1]
    d = _diagonal(t)
    gaps = d[..., None, :] - d[..., :, None]  # t_jj - t_ii
    dividable = gaps != 0
    f_gaps = f_diagonal[..., None, :] - f_diagonal[..., :, None]
    strict_t = joining.triu(t, 1)

    def fill(p, f):
        known = joining.triu(f, 1)
        numerator = (t * f_gaps + linalg_ops.matmul(strict_t, known)
                     - linalg_ops.matmul(known, strict_t))
        value = uf.where(dividable, numerator / uf.where(dividable, gaps, 1), numerator)
        return uf.where(_superdiagonal(n, p), value, f)

    f = fori_loop(1, n, fill, _diagonal_matrix(f_diagonal))
    if n == 0:  # no entries, no denominators
        return f, red.sum(uf.abs(d), axis=-1) + np.inf
    above = np.triu(np.ones((n, n), bool), 1)  # the pairs i < j
    least_gap = red.min(uf.where(above, uf.abs(gaps), np.inf), axis=(-2, -1))
    minden = uf.minimum(uf.abs(d[..., 0]), least_gap)
    return f, minden


def parlett_error(f, t, minden):
    """funm's error estimate (disp=False), as jax: min(1, max(tol, tol / minden * ||triu(t,
    1)||_1)) with tol the eps of f's parts (minden 0 counts as tol), inf where f has an
    infinite entry."""
    tol = float(np.finfo(dtypes.complex_part_dtype(f.dtype)).eps)
    minden = uf.where(minden == 0, tol, minden)
    column_sums = red.sum(uf.abs(joining.triu(t, 1)), axis=-2)
    norm1 = red.max(column_sums, axis=-1) if t.shape[-1] else red.sum(column_sums, axis=-1)
    estimate = uf.minimum(1, uf.maximum(tol, (tol / minden) * norm1))
    return uf.where(red.any(uf.isinf(f), axis=(-2, -1)), np.inf, estimate)
