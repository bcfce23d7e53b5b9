"""QR factorization by Householder reflections, with LAPACK's sign conventions, and with
column pivoting as LAPACK's geqp3 chooses the columns."""

from __future__ import annotations

import numpy as np

from numlir._src.jit import jit
from numlir._src.lax.elementwise import stop_gradient
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import householder, masks
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops, joining, linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf
from numlir._src.scipy.linalg_schur import power_of_two_scale


def householder_qr(a):
    """(q, r) with a = q r for (..., m, n) ``a``: q (..., m, m) orthogonal (unitary), r
    (..., m, n) upper triangular."""
    m, n = a.shape[-2:]
    q0 = cr.zeros(a.shape[:-2] + (m, m), a.dtype) + cr.eye(m, dtype=a.dtype)
    step = _complex_step if np.dtype(a.dtype).kind == "c" else _real_step

    def body(k, carry):
        return step(k, *carry)

    scale = _extreme_scale(a)
    r, q = fori_loop(0, min(m, n), body, (a / scale, q0))
    return q, joining.triu(r) * scale


def _extreme_scale(a):
    """1, or for a matrix whose largest entry is so large (or small) that the squares in
    the column norms would overflow (or underflow), ``linalg_schur.power_of_two_scale``: (..., 1,
    1), of a's dtype. Dividing by it is exact, q is the same for any multiple of a, and r
    scales with a. LAPACK's norms are safe the same way (nrm2); well-scaled matrices are
    left alone, so their tiny entries keep every bit."""
    largest = red.max(uf.abs(stop_gradient(a)), axis=(-2, -1), initial=0)[..., None, None]
    # squares and their sums over a column stay finite and normal within these bounds
    limit = 2.0 ** (np.finfo(largest.dtype).maxexp // 2 - 12)
    extreme = (largest > limit) | ((largest < 1 / limit) & (largest > 0))
    return uf.where(extreme, power_of_two_scale(stop_gradient(a)), 1).astype(a.dtype)


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


def _pivoted_householder_qr(a):
    """(q (..., m, m), r (..., m, n), p (..., n) int32) with a[..., :, p] = q r, as LAPACK's
    geqp3 (its unblocked xlaqp2, all that geqp3 runs up to min(m, n) = 128; its blocked
    code beyond makes the same choices up to rounding): step k first swaps in the
    remaining column of largest norm below row k (the first on a tie), then reflects as
    ``householder_qr``. The norms are downdated as xlaqp2 does, and recomputed where that
    has lost half the digits, so even choices among rounding-level norms (rank-deficient
    a) tend to be LAPACK's. The choices carry no derivative: the derivative is that of
    the QR of a[..., :, p], as JAX's rule."""
    m, n = a.shape[-2:]
    step = _complex_step if masks.is_complex(a) else _real_step
    cols = cr.arange(n)
    perm0 = cr.zeros(a.shape[:-2] + (n,), np.int32) + cr.arange(n, dtype=np.int32)
    q0 = cr.zeros(a.shape[:-2] + (m, m), a.dtype) + cr.eye(m, dtype=a.dtype)
    if m == 0 or n == 0:  # nothing to factor; JAX's permutation is then all zeros
        return q0, a, perm0 * 0
    scale = _extreme_scale(a)
    a = a / scale
    norms0 = uf.sqrt(red.sum(masks.squared_modulus(stop_gradient(a)), axis=-2))

    def body(k, carry):
        r, q, perm, norms, norms_at_recompute = carry
        j = red.argmax(uf.where(cols >= k, norms, -1), axis=-1)
        at_k, at_j = cols == k, cols == j[..., None]
        r = _swap(r, at_k, at_j[..., None, :])
        perm, norms, norms_at_recompute = (_swap(x, at_k, at_j)
                                           for x in (perm, norms, norms_at_recompute))
        r, q = step(k, r, q)
        norms, norms_at_recompute = _downdated_norms(stop_gradient(r), k, norms,
                                                     norms_at_recompute)
        return r, q, perm, norms, norms_at_recompute

    r, q, perm, _, _ = fori_loop(0, min(m, n), body, (a, q0, perm0, norms0, norms0))
    return q, joining.triu(r) * scale, perm


#: ``_pivoted_householder_qr`` compiled whole (inlined under other transformations): eagerly
#: it would run op by op.
pivoted_householder_qr = jit(_pivoted_householder_qr)


def _swap(x, at_k, at_j):
    """x with the entries at k and j of its last axis (boolean masks that broadcast against
    x) exchanged, by selection, so the moved values keep their bits."""
    xk = red.sum(uf.where(at_k, x, 0), axis=-1, keepdims=True, dtype=x.dtype)
    xj = red.sum(uf.where(at_j, x, 0), axis=-1, keepdims=True, dtype=x.dtype)
    return uf.where(at_k, xj, uf.where(at_j, xk, x))


def _downdated_norms(r, k, norms, norms_at_recompute):
    """xlaqp2's update of the norms of columns j > k below row k, after step k: norm *
    sqrt(1 - (|r[k, j]| / norm)^2), unless that has lost too much against the norm last
    computed from scratch (``norms_at_recompute``), when the norm is computed again."""
    m, n = r.shape[-2:]
    rows, cols = cr.arange(m), cr.arange(n)
    row_k = uf.abs(masks.row(r, masks.onehot(k, m, r.dtype)))
    shrink = uf.maximum(1 - uf.square(masks.safe_divide(row_k, norms)), 0)
    drift = shrink * uf.square(masks.safe_divide(norms, norms_at_recompute))
    # LAPACK's tol3z: the square root of its epsilon, half numpy's
    recompute = drift <= np.sqrt(np.finfo(norms.dtype).eps / 2)
    fresh = uf.sqrt(red.sum(uf.where(rows[:, None] > k, masks.squared_modulus(r), 0), axis=-2))
    update = (cols > k) & (norms != 0)
    norms_new = uf.where(update, uf.where(recompute, fresh, norms * uf.sqrt(shrink)), norms)
    return norms_new, uf.where(update & recompute, fresh, norms_at_recompute)


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
