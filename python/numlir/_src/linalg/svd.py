"""Singular value decomposition by one-sided Jacobi rotations, with JAX's JVP rule."""

from __future__ import annotations

import numpy as np

from numlir._src.custom_derivatives import custom_jvp
from numlir._src.lax.control_flow import while_loop
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import eigh, masks, qr
from numlir._src.numpy import creation as cr
from numlir._src.numpy import joining, linalg_ops, sorting
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf

MAX_SWEEPS = 30


def _column_orthogonality(x):
    """max over column pairs of |x_i . x_j| / (|x_i| |x_j|): 0 when the columns are
    orthogonal."""
    gram = linalg_ops.matmul(x.swapaxes(-1, -2), x)
    norms = uf.sqrt(joining.diagonal(gram, axis1=-2, axis2=-1))
    scale = norms[..., :, None] * norms[..., None, :]
    n = x.shape[-1]
    cosines = masks.safe_divide(uf.abs(gram), scale) * (1 - cr.eye(n, dtype=x.dtype))
    return red.max(cosines, axis=(-2, -1))


def _jacobi(a):
    """(x, v) with x = a v having orthogonal columns, v orthogonal; a (..., m, n), m >= n."""
    n = a.shape[-1]
    table_p, table_q = (cr.asarray(t) for t in eigh.pair_tables(n))
    pairs = table_p.shape[0]
    positions = cr.arange(n, dtype=np.int32)
    tolerance = float(np.finfo(np.dtype(a.dtype)).eps) * n

    def rotate(k, carry):
        x, v = carry
        ep = (positions == joining.take(table_p, k)).astype(a.dtype)
        eq = (positions == joining.take(table_q, k)).astype(a.dtype)
        xp, xq = masks.column(x, ep), masks.column(x, eq)
        # the rotation that diagonalizes the Gram block [[|xp|^2, xp.xq], [xp.xq, |xq|^2]]
        c, s = eigh.rotation(red.sum(xp * xp, axis=-1), red.sum(xq * xq, axis=-1),
                             red.sum(xp * xq, axis=-1))
        c, s = c[..., None], s[..., None]
        return masks.rotate_columns(x, ep, eq, c, s), masks.rotate_columns(v, ep, eq, c, s)

    def not_converged(carry):
        count, x, _ = carry
        return (count < MAX_SWEEPS) & red.any(_column_orthogonality(x) > tolerance)

    def sweep(carry):
        count, x, v = carry
        x, v = fori_loop(0, pairs, rotate, (x, v))
        return count + 1, x, v

    v0 = cr.zeros(a.shape[:-2] + (n, n), a.dtype) + cr.eye(n, dtype=a.dtype)
    _, x, v = while_loop(not_converged, sweep, (cr.asarray(0, np.int32), a, v0))
    return x, v


def _orthonormal_completion(u):
    """An orthogonal (..., m, m) matrix whose first n columns are u's nonzero columns: its
    zero columns (zero singular values) and the columns past n span the rest."""
    q, r = qr.householder_qr(u)
    n = u.shape[-1]
    signs = uf.where(joining.diagonal(r, axis1=-2, axis2=-1) < 0, -1, 1).astype(u.dtype)
    signs = joining.concatenate(
        [signs, cr.ones(signs.shape[:-1] + (q.shape[-1] - n,), u.dtype)], axis=-1)
    return q * signs[..., None, :]


def _tall_svd(a):
    """(u (..., m, n), s descending, vt (..., n, n)) of (..., m, n) ``a``, m >= n."""
    x, v = _jacobi(a)
    s = uf.sqrt(red.sum(x * x, axis=-2))
    order = sorting.argsort(-s, axis=-1)
    s = joining.take_along_axis(s, order, axis=-1)
    x = joining.take_along_axis(x, order[..., None, :], axis=-1)
    v = joining.take_along_axis(v, order[..., None, :], axis=-1)
    u = masks.safe_divide(x, s[..., None, :])
    u = _orthonormal_completion(u)[..., :, :a.shape[-1]]
    return u, s, v.swapaxes(-1, -2)


@custom_jvp
def reduced_svd(a):
    """(u (..., m, k), s (..., k) descending, vt (..., k, n)), k = min(m, n)."""
    m, n = a.shape[-2:]
    if m >= n:
        return _tall_svd(a)
    u, s, vt = _tall_svd(a.swapaxes(-1, -2))
    return vt.swapaxes(-1, -2), s, u.swapaxes(-1, -2)


@reduced_svd.defjvp
def _svd_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    u, s, vt = reduced_svd(a)
    ut, v = u.swapaxes(-1, -2), vt.swapaxes(-1, -2)
    k = s.shape[-1]
    eye = cr.eye(k, dtype=a.dtype)
    ds_full = linalg_ops.matmul(linalg_ops.matmul(ut, da), v)
    ds = joining.diagonal(ds_full, axis1=-2, axis2=-1)
    row_s, col_s = s[..., None, :], s[..., :, None]
    # F_ij = 1 / (s_j^2 - s_i^2) off the diagonal
    gaps = (row_s + col_s) * (row_s - col_s)
    f = uf.reciprocal(gaps + eye) - eye
    scaled_right = row_s * ds_full   # dS diag(s)
    scaled_left = col_s * ds_full    # diag(s) dS
    du = linalg_ops.matmul(u, f * (scaled_right + scaled_right.swapaxes(-1, -2)))
    dv = linalg_ops.matmul(v, f * (scaled_left + scaled_left.swapaxes(-1, -2)))
    m, n = a.shape[-2:]
    inverse_s = masks.safe_divide(cr.ones_like(s), s)[..., None, :]
    if m > n:
        dav = linalg_ops.matmul(da, v)
        du = du + (dav - linalg_ops.matmul(u, linalg_ops.matmul(ut, dav))) * inverse_s
    if n > m:
        dau = linalg_ops.matmul(da.swapaxes(-1, -2), u)
        dv = dv + (dau - linalg_ops.matmul(v, linalg_ops.matmul(vt, dau))) * inverse_s
    return (u, s, vt), (du, ds, dv.swapaxes(-1, -2))


def svd(a, *, full_matrices: bool = True, compute_uv: bool = True):
    """``jax.numpy.linalg.svd`` for real matrices: (u, s, vh) with a = u diag(s) vh, or s."""
    a = masks.as_float_matrix("svd", a)
    m, n = a.shape[-2:]
    if min(m, n) == 0:
        k = min(m, n)
        s = cr.zeros(a.shape[:-2] + (k,), a.dtype)
        if not compute_uv:
            return s
        eye = lambda size, cols: cr.zeros(a.shape[:-2] + (size, cols), a.dtype) + cr.eye(
            size, cols, dtype=a.dtype)
        return ((eye(m, m), s, eye(n, n)) if full_matrices else (eye(m, k), s, eye(k, n)))
    u, s, vt = reduced_svd(a)
    if not compute_uv:
        return s
    if full_matrices:
        if m > n:
            u = _orthonormal_completion(u)
        elif n > m:
            vt = _orthonormal_completion(vt.swapaxes(-1, -2)).swapaxes(-1, -2)
    return u, s, vt
