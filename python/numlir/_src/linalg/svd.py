"""Singular value decomposition: LAPACK's gesdd where the backend calls it, else one-sided
Jacobi rotations; with JAX's JVP rule.

Complex matrices use the same one-sided (Hestenes) method with the complex Jacobi step of
eigh.py on each 2 x 2 block of the Gram matrix X^H X: every step is unitary, so the
singular values are accurate to eps * |A| and the vectors come out unitary without
having to be separated from the doubled singular values of a real embedding."""

from __future__ import annotations

import numpy as np

from numlir._src import batching, core
from numlir._src.custom_derivatives import custom_jvp
from numlir._src.lax.control_flow import while_loop
from numlir._src.lax import library_lowering
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import eigh, masks, qr
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops
from numlir._src.numpy import joining, linalg_ops, sorting
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf

MAX_SWEEPS = 30


def _column_orthogonality(x):
    """max over column pairs of |x_i^H x_j| / (|x_i| |x_j|): 0 when the columns are
    orthogonal."""
    gram = linalg_ops.matmul(masks.adjoint(x), x)
    norms = uf.sqrt(float_ops.real(joining.diagonal(gram, axis1=-2, axis2=-1)))
    scale = norms[..., :, None] * norms[..., None, :]
    n = x.shape[-1]
    cosines = masks.safe_divide(uf.abs(gram), scale) * (1 - cr.eye(n, dtype=scale.dtype))
    return red.max(cosines, axis=(-2, -1))


def _jacobi(a):
    """(x, v) with x = a v having orthogonal columns, v orthogonal; a (..., m, n), m >= n."""
    n = a.shape[-1]
    table_p, table_q = (cr.asarray(t) for t in eigh.pair_tables(n))
    pairs = table_p.shape[0]
    positions = cr.arange(n, dtype=np.int32)
    tolerance = float(np.finfo(np.dtype(a.dtype)).eps) * n
    complex_entries = masks.is_complex(a)

    def rotate(k, carry):
        x, v = carry
        ep = (positions == joining.take(table_p, k)).astype(a.dtype)
        eq = (positions == joining.take(table_q, k)).astype(a.dtype)
        xp, xq = masks.column(x, ep), masks.column(x, eq)
        # the step that diagonalizes the Gram block [[|xp|^2, xp^H xq], [xq^H xp, |xq|^2]]
        c, s, phase = eigh.pair_rotation(
            red.sum(masks.squared_modulus(xp), axis=-1),
            red.sum(masks.squared_modulus(xq), axis=-1),
            red.sum(float_ops.conjugate(xp) * xq, axis=-1), complex_entries)
        c, s = c[..., None], s[..., None]
        phase = None if phase is None else phase[..., None]
        return (masks.rotate_columns(x, ep, eq, c, s, phase),
                masks.rotate_columns(v, ep, eq, c, s, phase))

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


def _unitary_householder_qr(a):
    """(q, r) with a = q r for complex (..., m, n) ``a``, q unitary: step k reflects
    x = r[k:, k] onto beta e_k, beta = -phase(x_0) |x|, and skips columns with nothing
    below the diagonal. (qr.py's Householder QR takes real matrices.)"""
    m, n = a.shape[-2:]
    rows = cr.arange(m)
    q0 = cr.zeros(a.shape[:-2] + (m, m), a.dtype) + cr.eye(m, dtype=a.dtype)

    def step(k, carry):
        r, q = carry
        e = masks.onehot(k, m, a.dtype)
        x = uf.where(rows >= k, masks.column(r, masks.onehot(k, n, a.dtype)), 0)
        alpha = red.sum(x * e, axis=-1)
        below_squared = red.sum(uf.where(rows > k, masks.squared_modulus(x), 0), axis=-1)
        reflect = below_squared > 0
        norm = uf.sqrt(masks.squared_modulus(alpha) + below_squared)
        beta = -masks.unit_phase(alpha) * norm.astype(a.dtype)
        v = x - beta[..., None] * e
        v_norm = uf.sqrt(red.sum(masks.squared_modulus(v), axis=-1))
        v = uf.where(reflect[..., None], v / uf.where(reflect, v_norm, 1)[..., None], 0)
        v_conj = float_ops.conjugate(v)
        # the reflection I - 2 v v^H from the left on r, from the right on q
        r = r - 2 * masks.outer(v, linalg_ops.matmul(v_conj[..., None, :], r)[..., 0, :])
        q = q - 2 * masks.outer(linalg_ops.matmul(q, v[..., :, None])[..., 0], v_conj)
        return r, q

    r, q = fori_loop(0, min(m, n), step, (a, q0))
    return q, joining.triu(r)


def _unitary_completion(u):
    """The complex case of _orthonormal_completion: the phases of r's diagonal, not its
    signs, turn q's leading columns back into u's."""
    q, r = _unitary_householder_qr(u)
    n = u.shape[-1]
    phases = masks.unit_phase(joining.diagonal(r, axis1=-2, axis2=-1))
    phases = joining.concatenate(
        [phases, cr.ones(phases.shape[:-1] + (q.shape[-1] - n,), u.dtype)], axis=-1)
    return q * phases[..., None, :]


def _orthonormal_completion(u):
    """An orthogonal (unitary) (..., m, m) matrix whose first n columns are u's nonzero
    columns: its zero columns (zero singular values) and the columns past n span the
    rest."""
    if masks.is_complex(u):
        return _unitary_completion(u)
    q, r = qr.householder_qr(u)
    n = u.shape[-1]
    signs = uf.where(joining.diagonal(r, axis1=-2, axis2=-1) < 0, -1, 1).astype(u.dtype)
    signs = joining.concatenate(
        [signs, cr.ones(signs.shape[:-1] + (q.shape[-1] - n,), u.dtype)], axis=-1)
    return q * signs[..., None, :]


def _tall_svd(a):
    """(u (..., m, n), s descending, vt (..., n, n)) of (..., m, n) ``a``, m >= n."""
    x, v = _jacobi(a)
    s = uf.sqrt(red.sum(masks.squared_modulus(x), axis=-2))
    order = sorting.argsort(-s, axis=-1)
    s = joining.take_along_axis(s, order, axis=-1)
    x = joining.take_along_axis(x, order[..., None, :], axis=-1)
    v = joining.take_along_axis(v, order[..., None, :], axis=-1)
    u = masks.safe_divide(x, s[..., None, :].astype(x.dtype))
    u = _orthonormal_completion(u)[..., :, :a.shape[-1]]
    return u, s, masks.adjoint(v)


def _reduced_composite(a):
    """(u (..., m, k), s (..., k) descending and real, vh (..., k, n)), k = min(m, n)."""
    m, n = a.shape[-2:]
    if m >= n:
        return _tall_svd(a)
    u, s, vt = _tall_svd(masks.adjoint(a))
    return masks.adjoint(vt), s, masks.adjoint(u)


def _identities(a, rows: int, cols: int):
    return cr.zeros(a.shape[:-2] + (rows, cols), a.dtype) + cr.eye(rows, cols, dtype=a.dtype)


def _svd_composite(a, full_matrices: bool, compute_uv: bool):
    m, n = a.shape[-2:]
    k = min(m, n)
    if k == 0:
        s = cr.zeros(a.shape[:-2] + (0,), np.finfo(np.dtype(a.dtype)).dtype)
        if not compute_uv:
            return [s]
        if full_matrices:
            return [s, _identities(a, m, m), _identities(a, n, n)]
        return [s, _identities(a, m, k), _identities(a, k, n)]
    u, s, vt = _reduced_composite(a)
    if not compute_uv:
        return [s]
    if full_matrices:
        if m > n:
            u = _orthonormal_completion(u)
        elif n > m:
            vt = masks.adjoint(_orthonormal_completion(masks.adjoint(vt)))
    return [s, u, vt]


#: [s] or [s, u, vh] of a (..., m, n) operand, in lapack.gesdd's order: s (..., k) real and
#: descending, u (..., m, m or k), vh (..., n or k, n) with ``full_matrices``. Its
#: derivatives are those of reduced_svd, full_svd and singular_values.
svd_p = core.Primitive("svd")
svd_p.multiple_results = True


@svd_p.def_abstract_eval
def _svd_abstract_eval(a, *, full_matrices, compute_uv):
    *batch, m, n = a.shape
    k = min(m, n)
    s = core.ShapedArray((*batch, k), np.finfo(np.dtype(a.dtype)).dtype, False)
    if not compute_uv:
        return [s]
    u_cols, vh_rows = (m, n) if full_matrices else (k, k)
    return [s, core.ShapedArray((*batch, m, u_cols), a.dtype, False),
            core.ShapedArray((*batch, vh_rows, n), a.dtype, False)]


@svd_p.def_lowering
def _svd_lowering(ctx, a, *, full_matrices, compute_uv):
    return library_lowering.lower(
        ctx, "lapack.gesdd", [a], lambda a: _svd_composite(a, full_matrices, compute_uv),
        [int(full_matrices), int(compute_uv)])


def _svd_batch_rule(axis_size, args, dims, *, full_matrices, compute_uv):
    a = batching.bdim_to_front(args[0], dims[0], axis_size)
    outs = svd_p.bind(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return outs, [0] * len(outs)


batching.defrule(svd_p, _svd_batch_rule)


@custom_jvp
def reduced_svd(a):
    """(u (..., m, k), s (..., k) descending and real, vh (..., k, n)), k = min(m, n). The
    signs (phases) of u's columns and vh's rows are the routine's: LAPACK's and Jacobi's
    differ, as LAPACK builds' do."""
    s, u, vh = svd_p.bind(a, full_matrices=False, compute_uv=True)
    return u, s, vh


@reduced_svd.defjvp
def _svd_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    u, s, vt = reduced_svd(a)
    return (u, s, vt), _reduced_tangents(a, da, u, s, vt)


def _reduced_tangents(a, da, u, s, vt):
    """JAX's (du, ds, dvh) of the reduced SVD a = u diag(s) vt moved by da."""
    ut, v = masks.adjoint(u), masks.adjoint(vt)
    k = s.shape[-1]
    eye = cr.eye(k, dtype=s.dtype)
    ds_full = linalg_ops.matmul(linalg_ops.matmul(ut, da), v)
    # singular values stay real: only Re diag(U^H dA V) moves them
    ds = float_ops.real(joining.diagonal(ds_full, axis1=-2, axis2=-1))
    row_s, col_s = s[..., None, :], s[..., :, None]
    # F_ij = 1 / (s_j^2 - s_i^2) off the diagonal
    gaps = (row_s + col_s) * (row_s - col_s)
    f = uf.reciprocal(gaps + eye) - eye
    scaled_right = row_s * ds_full   # dS diag(s)
    scaled_left = col_s * ds_full    # diag(s) dS
    du = linalg_ops.matmul(u, f * (scaled_right + masks.adjoint(scaled_right)))
    dv = linalg_ops.matmul(v, f * (scaled_left + masks.adjoint(scaled_left)))
    inverse_s = masks.safe_divide(cr.ones_like(s), s)[..., None, :]
    if masks.is_complex(a):
        # the imaginary part of diag(U^H dA V) turns u_i and v_i by a common phase; as
        # JAX, it is given to U alone (zero for real matrices)
        du = du + linalg_ops.matmul(u, (ds_full - masks.adjoint(ds_full)) / 2 * eye
                                    * inverse_s)
    m, n = a.shape[-2:]
    if m > n:
        dav = linalg_ops.matmul(da, v)
        du = du + (dav - linalg_ops.matmul(u, linalg_ops.matmul(ut, dav))) * inverse_s
    if n > m:
        dau = linalg_ops.matmul(masks.adjoint(da), u)
        dv = dv + (dau - linalg_ops.matmul(v, linalg_ops.matmul(vt, dau))) * inverse_s
    return du, ds, masks.adjoint(dv)


@custom_jvp
def full_svd(a):
    """(u (..., m, m), s, vh (..., n, n)): reduced_svd's, completed to unitary matrices."""
    s, u, vh = svd_p.bind(a, full_matrices=True, compute_uv=True)
    return u, s, vh


@full_svd.defjvp
def _full_svd_jvp(primals, tangents):
    # JAX has no rule here. The leading k columns move as reduced_svd's; the completing
    # ones by qr.completion_tangent, the smallest change that keeps u and v unitary.
    (a,), (da,) = primals, tangents
    u, s, vh = full_svd(a)
    k = s.shape[-1]
    du, ds, dvh = _reduced_tangents(a, da, u[..., :, :k], s, vh[..., :k, :])
    if u.shape[-1] > k:
        du = joining.concatenate(
            [du, qr.completion_tangent(u[..., :, :k], du, u[..., :, k:])], axis=-1)
    if vh.shape[-2] > k:
        v, dv = masks.adjoint(vh), masks.adjoint(dvh)
        dv_rest = qr.completion_tangent(v[..., :, :k], dv, v[..., :, k:])
        dvh = joining.concatenate([dvh, masks.adjoint(dv_rest)], axis=-2)
    return (u, s, vh), (du, ds, dvh)


@custom_jvp
def singular_values(a):
    """s (..., k) descending: gesdd without vectors where it runs."""
    return svd_p.bind(a, full_matrices=False, compute_uv=False)[0]


@singular_values.defjvp
def _singular_values_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    u, s, vt = reduced_svd(a)
    projected = linalg_ops.matmul(linalg_ops.matmul(masks.adjoint(u), da), masks.adjoint(vt))
    return s, float_ops.real(joining.diagonal(projected, axis1=-2, axis2=-1))


def svd(a, *, full_matrices: bool = True, compute_uv: bool = True):
    """``jax.numpy.linalg.svd``: (u, s, vh) with a = u diag(s) vh, or s; s is real (float32
    for complex64, float64 for complex128)."""
    a = masks.as_float_matrix("svd", a, allow_complex=True)
    m, n = a.shape[-2:]
    if min(m, n) == 0:  # nothing to differentiate: the empty decomposition itself
        s, *vectors = _svd_composite(a, full_matrices, compute_uv)
        return (vectors[0], s, vectors[1]) if compute_uv else s
    if not compute_uv:
        return singular_values(a)
    if full_matrices and m != n:
        return full_svd(a)
    return reduced_svd(a)
