"""Symmetric eigendecomposition by cyclic Jacobi rotations, with JAX's JVP rule."""

from __future__ import annotations

import numpy as np

from numlir._src.custom_derivatives import custom_jvp
from numlir._src.lax.control_flow import while_loop
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import masks
from numlir._src.numpy import creation as cr
from numlir._src.numpy import joining, linalg_ops, sorting
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf

#: Cyclic Jacobi converges quadratically; sweeps stop once the off-diagonal part is
#: below eps times the matrix's norm, or after this many.
MAX_SWEEPS = 30


def pair_tables(n: int):
    """Row-cyclic order of the pairs (p, q), p < q: two int32 constant arrays."""
    pairs = [(p, q) for p in range(n - 1) for q in range(p + 1, n)]
    return (np.array([p for p, _ in pairs], np.int32), np.array([q for _, q in pairs], np.int32))


def rotation(app, aqq, apq):
    """(c, s) of the Jacobi rotation that zeroes a_pq of J^T A J (Golub & Van Loan 8.5.2)."""
    rotate = apq != 0
    tau = (aqq - app) / uf.where(rotate, 2 * apq, 1)
    sign = uf.where(tau >= 0, 1, -1).astype(app.dtype)
    t = uf.where(rotate, sign / (uf.abs(tau) + uf.sqrt(1 + tau * tau)), 0)
    c = 1 / uf.sqrt(1 + t * t)
    return c, c * t


def _off_diagonal_norm(a):
    n = a.shape[-1]
    return uf.sqrt(red.sum(uf.square(a * (1 - cr.eye(n, dtype=a.dtype))), axis=(-2, -1)))


def _jacobi(a):
    """(w, v) with a v = v diag(w), unsorted, for symmetric (..., n, n) ``a``."""
    n = a.shape[-1]
    table_p, table_q = pair_tables(n)
    table_p, table_q = cr.asarray(table_p), cr.asarray(table_q)
    pairs = len(pair_tables(n)[0])
    positions = cr.arange(n, dtype=np.int32)
    eps = float(np.finfo(np.dtype(a.dtype)).eps)
    scale = uf.sqrt(red.sum(uf.square(a), axis=(-2, -1)))

    def rotate(k, carry):
        a, v = carry
        ep = (positions == joining.take(table_p, k)).astype(a.dtype)
        eq = (positions == joining.take(table_q, k)).astype(a.dtype)
        ap, aq = masks.column(a, ep), masks.column(a, eq)
        app, aqq, apq = (red.sum(ap * ep, axis=-1), red.sum(aq * eq, axis=-1),
                         red.sum(ap * eq, axis=-1))
        c, s = rotation(app, aqq, apq)
        c, s = c[..., None], s[..., None]
        # A J rotates columns p and q; J^T (A J) = ((A J)^T J)^T rotates rows p and q
        a = masks.rotate_columns(a, ep, eq, c, s)
        a = masks.rotate_columns(a.swapaxes(-1, -2), ep, eq, c, s).swapaxes(-1, -2)
        return a, masks.rotate_columns(v, ep, eq, c, s)

    def not_converged(carry):
        sweep, a, _ = carry
        return (sweep < MAX_SWEEPS) & red.any(_off_diagonal_norm(a) > eps * scale)

    def sweep(carry):
        count, a, v = carry
        a, v = fori_loop(0, pairs, rotate, (a, v))
        return count + 1, a, v

    v0 = cr.zeros_like(a) + cr.eye(n, dtype=a.dtype)
    _, a, v = while_loop(not_converged, sweep, (cr.asarray(0, np.int32), a, v0))
    return joining.diagonal(a, axis1=-2, axis2=-1), v


def _sorted(w, v):
    order = sorting.argsort(w, axis=-1)
    return (joining.take_along_axis(w, order, axis=-1),
            joining.take_along_axis(v, order[..., None, :], axis=-1))


@custom_jvp
def symmetric_eigh(a):
    """(w ascending, v) of symmetric ``a``; each column of v has unit norm."""
    n = a.shape[-1]
    if n == 1:
        return a[..., 0], cr.ones_like(a)
    return _sorted(*_jacobi(a))


@symmetric_eigh.defjvp
def _eigh_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    w, v = symmetric_eigh(a)
    n = a.shape[-1]
    eye = cr.eye(n, dtype=a.dtype)
    projected = linalg_ops.matmul(linalg_ops.matmul(v.swapaxes(-1, -2), da), v)
    # F_ij = 1 / (w_j - w_i) off the diagonal: infinite for repeated eigenvalues, as JAX's
    gaps = uf.reciprocal(eye + w[..., None, :] - w[..., :, None]) - eye
    dw = joining.diagonal(projected, axis1=-2, axis2=-1)
    return (w, v), (dw, linalg_ops.matmul(v, gaps * projected))


def eigh(a, *, lower: bool = True, symmetrize_input: bool = True):
    """(eigenvalues ascending, eigenvectors as columns) of symmetric (..., n, n) ``a``; only
    the triangle ``lower`` names is read unless ``symmetrize_input``."""
    a = masks.as_square_matrix("eigh", a)
    if symmetrize_input:
        a = masks.symmetrize(a)
    else:
        triangle = joining.tril(a) if lower else joining.triu(a)
        a = triangle + triangle.swapaxes(-1, -2) - a * cr.eye(a.shape[-1], dtype=a.dtype)
    return symmetric_eigh(a)
