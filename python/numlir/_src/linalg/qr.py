"""QR factorization by Householder reflections, with LAPACK's sign conventions."""

from __future__ import annotations

from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import masks
from numlir._src.numpy import creation as cr
from numlir._src.numpy import joining, linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf


def householder_qr(a):
    """(q, r) with a = q r for (..., m, n) ``a``: q (..., m, m) orthogonal, r (..., m, n)
    upper triangular. As LAPACK's geqrf, step k reflects x = r[k:, k] onto
    beta e_k with beta = -sign(x_0) |x| (sign(0) = +1), and does nothing when x has no
    nonzero entry below the diagonal, so r's diagonal signs match numpy's."""
    m, n = a.shape[-2:]
    rows = cr.arange(m)
    q0 = cr.zeros(a.shape[:-2] + (m, m), a.dtype) + cr.eye(m, dtype=a.dtype)

    def step(k, carry):
        r, q = carry
        e = masks.onehot(k, m, a.dtype)
        x = uf.where(rows >= k, masks.column(r, masks.onehot(k, n, a.dtype)), 0)
        alpha = red.sum(x * e, axis=-1)
        below_squared = red.sum(uf.where(rows > k, x * x, 0), axis=-1)
        reflect = below_squared > 0
        norm = uf.sqrt(alpha * alpha + uf.where(reflect, below_squared, 0))
        beta = -uf.where(alpha >= 0, 1, -1).astype(a.dtype) * norm
        v = x - beta[..., None] * e
        v_norm = uf.sqrt(red.sum(v * v, axis=-1))
        v = uf.where(reflect[..., None], v / uf.where(reflect, v_norm, 1)[..., None], 0)
        r = r - 2 * masks.outer(v, linalg_ops.matmul(v[..., None, :], r)[..., 0, :])
        q = q - 2 * masks.outer(linalg_ops.matmul(q, v[..., :, None])[..., 0], v)
        return r, q

    r, q = fori_loop(0, min(m, n), step, (a, q0))
    return q, joining.triu(r)


def qr(a, mode: str = "reduced"):
    """``jax.numpy.linalg.qr``: mode "reduced" (q (..., m, k), r (..., k, n), k = min(m, n)),
    "complete" (q (..., m, m), r (..., m, n)) or "r" (r of "reduced" alone)."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    a = masks.as_float_matrix("qr", a)
    m, n = a.shape[-2:]
    q, r = householder_qr(a)
    if mode == "complete":
        return q, r
    k = min(m, n)
    if mode == "r":
        return r[..., :k, :]
    return q[..., :, :k], r[..., :k, :]
