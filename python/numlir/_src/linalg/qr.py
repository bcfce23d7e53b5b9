"""QR factorization: LAPACK's geqrf and orgqr where the backend calls them, else Householder
reflections with LAPACK's sign conventions; with JAX's JVP rule. Column pivoting (as
LAPACK's geqp3 chooses the columns) is always the numlir program."""

from __future__ import annotations

import numpy as np

from numlir._src import ad, ad_util, batching, core
from numlir._src.jit import jit
from numlir._src.lax.elementwise import stop_gradient
from numlir._src.lax import library_lowering
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import householder, masks, triangular
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


# --- The primitive ------------------------------------------------------------------------------

#: (q, r) of a (..., m, n) operand: q (..., m, m) and r (..., m, n) with ``full_matrices``,
#: else q (..., m, k) and r (..., k, n), k = min(m, n); as jax.lax.linalg.qr_p unpivoted.
qr_p = core.Primitive("qr")
qr_p.multiple_results = True

#: LAPACK's geqrf and orgqr (ungqr), which qr_p's library lowering is made of: they appear
#: only in that lowering's program, never in a traced graph, so they need no other rule.
geqrf_p = core.Primitive("geqrf")
geqrf_p.multiple_results = True
orgqr_p = core.Primitive("orgqr")


@qr_p.def_abstract_eval
def _qr_abstract_eval(a, *, full_matrices):
    *batch, m, n = a.shape
    k = m if full_matrices else min(m, n)
    return (core.ShapedArray((*batch, m, k), a.dtype, False),
            core.ShapedArray((*batch, k, n), a.dtype, False))


@geqrf_p.def_abstract_eval
def _geqrf_abstract_eval(a):
    *batch, m, n = a.shape
    return a.strip_weak_type(), core.ShapedArray((*batch, min(m, n)), a.dtype, False)


@orgqr_p.def_abstract_eval
def _orgqr_abstract_eval(reflectors, taus):
    return reflectors.strip_weak_type()


@geqrf_p.def_lowering
def _geqrf_lowering(ctx, a):
    return ctx.custom_call("lapack.geqrf", [a])


@orgqr_p.def_lowering
def _orgqr_lowering(ctx, reflectors, taus):
    return ctx.custom_call("lapack.orgqr", [reflectors, taus])


def _lapack_qr(a, full_matrices: bool):
    """qr_p's results from geqrf's reflectors, multiplied out by orgqr: all m columns of q
    need m reflector columns (zero ones past n, whose taus do not exist: orgqr takes
    only the first k), the reduced q only the first k."""
    m, n = a.shape[-2:]
    k = min(m, n)
    factored, taus = geqrf_p.bind(a)
    if full_matrices and m > n:
        reflectors = joining.pad(factored, [(0, 0)] * (a.ndim - 1) + [(0, m - n)])
    else:
        reflectors = factored[..., :, :k]
    q = orgqr_p.bind(reflectors, taus)
    return q, joining.triu(factored if full_matrices else factored[..., :k, :])


def _qr_composite(a, full_matrices: bool):
    q, r = householder_qr(a)
    if full_matrices:
        return q, r
    k = min(a.shape[-2:])
    return q[..., :, :k], r[..., :k, :]


@qr_p.def_lowering
def _qr_lowering(ctx, a, *, full_matrices):
    if library_lowering.has_routines(ctx, "lapack.geqrf", "lapack.orgqr"):
        return library_lowering.inline(ctx, lambda a: _lapack_qr(a, full_matrices), [a])
    return library_lowering.inline(ctx, lambda a: _qr_composite(a, full_matrices), [a])


def _qr_batch_rule(axis_size, args, dims, *, full_matrices):
    a = batching.bdim_to_front(args[0], dims[0], axis_size)
    return qr_p.bind(a, full_matrices=full_matrices), [0, 0]


batching.defrule(qr_p, _qr_batch_rule)


def _tall_qr_tangents(q, r, da):
    """JAX's rule for a = q r with m >= n (q (..., m, n), r (..., n, n)): with
    C = q^H da r^-1, dq = q (Omega - C) + da r^-1 and dr = (C - Omega) r, Omega the
    skew-Hermitian part that keeps q's columns orthonormal (and, complex, r's diagonal
    real)."""
    da_r_inv = triangular.triangular_solve_p.bind(
        r, da, left_side=False, lower=False, transpose_a=False, conjugate_a=False,
        unit_diagonal=False)
    c = linalg_ops.matmul(masks.adjoint(q), da_r_inv)
    strict = joining.tril(c, -1)
    omega = strict - masks.adjoint(strict)
    n = r.shape[-1]
    omega = omega + cr.eye(n, dtype=c.dtype) * (c - float_ops.real(c).astype(c.dtype))
    return (linalg_ops.matmul(q, omega - c) + da_r_inv,
            linalg_ops.matmul(c - omega, r))


def completion_tangent(q_leading, dq_leading, q_rest):
    """The tangent of the columns ``q_rest`` that complete ``q_leading`` to a unitary
    matrix, when the leading columns move by ``dq_leading``: the smallest one that keeps
    the whole unitary, ``-q_leading dq_leading^H q_rest`` (the completion is not unique,
    and neither is its derivative; JAX has none)."""
    return -linalg_ops.matmul(q_leading,
                              linalg_ops.matmul(masks.adjoint(dq_leading), q_rest))


def _qr_jvp(primals, tangents, *, full_matrices):
    (a,), (da,) = primals, tangents
    q, r = qr_p.bind(a, full_matrices=full_matrices)
    if isinstance(da, ad_util.Zero):
        return [q, r], [ad_util.Zero(core.get_aval(q)), ad_util.Zero(core.get_aval(r))]
    m, n = a.shape[-2:]
    if m < n:
        # a = q [r1 r2]: q r1 is the QR of a's first m columns, and dr2 = q^H (da2 - dq r2)
        dq, dr1 = _tall_qr_tangents(q, r[..., :, :m], da[..., :, :m])
        dr2 = linalg_ops.matmul(masks.adjoint(q),
                                da[..., :, m:] - linalg_ops.matmul(dq, r[..., :, m:]))
        return [q, r], [dq, joining.concatenate([dr1, dr2], axis=-1)]
    dq, dr = _tall_qr_tangents(q[..., :, :n], r[..., :n, :], da)
    if full_matrices and m > n:
        dq = joining.concatenate([dq, completion_tangent(q[..., :, :n], dq, q[..., :, n:])],
                                 axis=-1)
        dr = joining.pad(dr, [(0, 0)] * (a.ndim - 2) + [(0, m - n), (0, 0)])
    return [q, r], [dq, dr]


ad.defjvp_rule(qr_p, _qr_jvp)


def qr(a, mode: str = "reduced"):
    """``jax.numpy.linalg.qr``: mode "reduced" (q (..., m, k), r (..., k, n), k = min(m, n)),
    "complete" (q (..., m, m), r (..., m, n)) or "r" (r of "reduced" alone)."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    a = masks.as_float_matrix("qr", a, allow_complex=True)
    q, r = qr_p.bind(a, full_matrices=mode == "complete")
    return r if mode == "r" else (q, r)
