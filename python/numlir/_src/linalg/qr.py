"""QR factorization by Householder reflections, with LAPACK's sign conventions."""

from __future__ import annotations

import numpy as np

from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import householder, masks
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops, joining, linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf


def householder_qr(a):
    """(q, r) with a = q r for (..., m, n) ``a``: q (..., m, m) orthogonal (unitary), r
    (..., m, n) upper triangular."""
    m, n = a.shape[-2:]
    q0 = cr.zeros(a.shape[:-2] + (m, m), a.dtype) + cr.eye(m, dtype=a.dtype)
    step = _complex_step if np.dtype(a.dtype).kind == "c" else _real_step

    def body(k, carry):
        return step(k, *carry)

    r, q = fori_loop(0, min(m, n), body, (a, q0))
    return q, joining.triu(r)


def _column_below(r, k):
    """(x, e): column k of r zeroed above row k, and the one-hot e_k over the rows."""
    m, n = r.shape[-2:]
    e = masks.onehot(k, m, r.dtype)
    x = uf.where(cr.arange(m) >= k, masks.column(r, masks.onehot(k, n, r.dtype)), 0)
    return x, e


def _real_step(k, r, q):
    """As LAPACK's dgeqrf, step k reflects x = r[k:, k] onto beta e_k with
    beta = -sign(x_0) |x| (sign(0) = +1), and does nothing when x has no nonzero entry below
    the diagonal, so r's diagonal signs match numpy's."""
    rows = cr.arange(r.shape[-2])
    x, e = _column_below(r, k)
    alpha = red.sum(x * e, axis=-1)
    below_squared = red.sum(uf.where(rows > k, x * x, 0), axis=-1)
    reflect = below_squared > 0
    norm = uf.sqrt(alpha * alpha + uf.where(reflect, below_squared, 0))
    beta = -uf.where(alpha >= 0, 1, -1).astype(r.dtype) * norm
    v = x - beta[..., None] * e
    v_norm = uf.sqrt(red.sum(v * v, axis=-1))
    v = uf.where(reflect[..., None], v / uf.where(reflect, v_norm, 1)[..., None], 0)
    r = r - 2 * masks.outer(v, linalg_ops.matmul(v[..., None, :], r)[..., 0, :])
    q = q - 2 * masks.outer(linalg_ops.matmul(q, v[..., :, None])[..., 0], v)
    return r, q


def _complex_step(k, r, q):
    """As LAPACK's zgeqrf: the reflector H of ``householder.complex_reflector`` takes
    x = r[k:, k] to a real beta e_k; r becomes H^H r and q becomes q H. H = I when x_0 is
    real and nothing lies below it, so r's diagonal is real, as LAPACK's and JAX's."""
    rows = cr.arange(r.shape[-2])
    x, e = _column_below(r, k)
    alpha = red.sum(x * e, axis=-1)
    v, tau, beta, reflect = householder.complex_reflector(alpha, uf.where(rows > k, x, 0), e)
    v_h_r = linalg_ops.matmul(float_ops.conj(v)[..., None, :], r)[..., 0, :]
    r = r - masks.outer(float_ops.conj(tau)[..., None] * v, v_h_r)
    # H^H x is beta e_k up to rounding, which would leave an imaginary part on the
    # diagonal: store beta itself, as LAPACK does
    diagonal = (rows == k)[:, None] & (cr.arange(r.shape[-1]) == k)[None, :]
    r = uf.where(diagonal & reflect[..., None, None], beta[..., None, None], r)
    q_v = linalg_ops.matmul(q, v[..., :, None])[..., 0]
    q = q - masks.outer(tau[..., None] * q_v, float_ops.conj(v))
    return r, q


def qr(a, mode: str = "reduced"):
    """``jax.numpy.linalg.qr``: mode "reduced" (q (..., m, k), r (..., k, n), k = min(m, n)),
    "complete" (q (..., m, m), r (..., m, n)) or "r" (r of "reduced" alone)."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    a = masks.as_float_matrix("qr", a, allow_complex=True)
    m, n = a.shape[-2:]
    q, r = householder_qr(a)
    if mode == "complete":
        return q, r
    k = min(m, n)
    if mode == "r":
        return r[..., :k, :]
    return q[..., :, :k], r[..., :k, :]
