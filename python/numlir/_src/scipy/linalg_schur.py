"""The real Schur form (Francis double-shift QR) and the Hessenberg form it starts from.

``hessenberg_form`` reduces a to H = Q^T a Q with Householder reflectors, with LAPACK's
(dgehrd's) sign conventions, so H and Q match LAPACK's to rounding. ``real_schur`` then
runs Francis double-shift QR sweeps (Golub & Van Loan, Algorithm 7.5.2) on the lowest
unreduced block of size >= 3 until every diagonal block is 1 x 1 or 2 x 2, and gives each
2 x 2 block LAPACK's standard form (dlanv2): upper triangular when its eigenvalues are
real, equal diagonal entries and off-diagonal entries of opposite signs when complex.

Both work on the matrix divided by a power of two that brings its largest entry near 1
(``power_of_two_scale``) and multiply the result back: the division is exact, and the
reflectors and shifts square entries, which for entries near 1e200 would overflow and for
entries near 1e-200 underflow. Z is the same for the scaled matrix.

Like numlir's other factorizations (docs/linear-algebra.md), every step applies one-hot
masked reflectors to the whole (..., n, n) batch, so the code runs eagerly, under jit and
under vmap. A sweep is O(n^3) here (a reflector touches every entry), so a
decomposition is O(n^4): for small and medium matrices.
"""

from __future__ import annotations

import numpy as np

from numlir._src.jit import jit
from numlir._src.lax.control_flow import while_loop
from numlir._src.lax.scan import fori_loop
from numlir._src.numpy import creation as cr
from numlir._src.numpy import cumulative, float_ops, joining, linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf
from numlir._src.scipy.schur_primitive import schur_primitive

#: LAPACK's dlahqr gives up after 30 sweeps per eigenvalue (at least 300 in all).
SWEEPS_PER_EIGENVALUE = 30


def onehot(k, n: int, dtype):
    """(..., n) with a 1 at position ``k`` ((...,) indices, or a scalar); all zero when k
    is outside [0, n)."""
    return (cr.arange(n) == cr.asarray(k)[..., None]).astype(dtype)


def _outer(u, v):
    return u[..., :, None] * v[..., None, :]


def entry(h, ei, ej):
    """h[..., i, j] for one-hot ei, ej."""
    return red.sum(h * _outer(ei, ej), axis=(-2, -1))


def unit_reflector(x, e):
    """The unit vector u with (I - 2 u u^T) x = beta e, beta = -sign(x_k) |x| for the
    position k one-hot in ``e`` (LAPACK's dlarfg); zero when x has nothing off k."""
    alpha = red.sum(x * e, axis=-1)
    rest = red.sum(uf.square(x * (1 - e)), axis=-1)
    reflect = rest > 0
    beta = -uf.where(alpha >= 0, 1, -1).astype(x.dtype) * uf.sqrt(alpha * alpha + rest)
    v = x - beta[..., None] * e
    norm = uf.sqrt(red.sum(v * v, axis=-1))
    return uf.where(reflect[..., None], v / uf.where(reflect, norm, 1)[..., None], 0)


def _reflect(h, q, u):
    """(P h P, q P) for the reflector P = I - 2 u u^T."""
    h = h - 2 * _outer(u, linalg_ops.matmul(u[..., None, :], h)[..., 0, :])
    h = h - 2 * _outer(linalg_ops.matmul(h, u[..., :, None])[..., 0], u)
    q = q - 2 * _outer(linalg_ops.matmul(q, u[..., :, None])[..., 0], u)
    return h, q


def _identity_like(a):
    return cr.zeros_like(a) + cr.eye(a.shape[-1], dtype=a.dtype)


def power_of_two_scale(a):
    """2^(e - 1) per (..., n, n) matrix (shape (..., 1, 1), real), where max |a_ij| = m 2^e
    with 1/2 <= m < 1 (so 1/2 for a zero matrix). Dividing by it is exact and brings the largest
    entry to [1, 2), so squares of entries neither overflow nor underflow; e - 1 rather
    than e keeps the scale finite for entries just below the float maximum."""
    largest = red.max(uf.abs(a), axis=(-2, -1), initial=0)
    _, exponent = float_ops.frexp(largest)
    return float_ops.ldexp(cr.ones_like(largest), exponent - 1)[..., None, None]


def _hessenberg_form(a):
    n = a.shape[-1]
    rows = cr.arange(n)

    def step(k, carry):
        h, q = carry
        column = red.sum(h * onehot(k, n, a.dtype), axis=-1)
        u = unit_reflector(uf.where(rows > k, column, 0), onehot(k + 1, n, a.dtype))
        return _reflect(h, q, u)

    h, q = fori_loop(0, max(n - 2, 0), step, (a, _identity_like(a)))
    return joining.triu(h, -1), q


@jit
def hessenberg_form(a):
    """(h, q) with ``a = q h q^T``, h upper Hessenberg, q orthogonal, for (..., n, n) ``a``.
    Reflector k zeroes column k below the subdiagonal."""
    if a.shape[-1] == 0:
        return a, a
    scale = power_of_two_scale(a)
    h, q = _hessenberg_form(a / scale)
    return h * scale, q


# --- the Francis double-shift QR iteration ------------------------------------------------


def _subdiagonal(h):
    return joining.diagonal(h, offset=-1, axis1=-2, axis2=-1)


def deflate(h):
    """h with each negligible subdiagonal entry set to zero, by LAPACK's (dlahqr's) test:
    |h[k+1, k]| at most eps times its diagonal neighbours (their own neighbours when both
    are zero), refined as Ahues & Tisseur; or tiny. h may be complex: the test reads moduli."""
    n = h.shape[-1]
    finfo = np.finfo(np.dtype(h.dtype))
    ulp, small_number = float(finfo.eps), float(finfo.tiny) * (n / float(finfo.eps))
    d = joining.diagonal(h, axis1=-2, axis2=-1)
    above, below = d[..., :-1], d[..., 1:]
    sub = uf.abs(_subdiagonal(h))
    sup = uf.abs(joining.diagonal(h, offset=1, axis1=-2, axis2=-1))
    zero_pad = cr.zeros(sub.shape[:-1] + (1,), sub.dtype)  # real, like the moduli it pads
    neighbours = (joining.concatenate([zero_pad, sub[..., :-1]], axis=-1)
                  + joining.concatenate([sub[..., 1:], zero_pad], axis=-1))
    scale = uf.abs(above) + uf.abs(below)
    scale = uf.where(scale == 0, neighbours, scale)
    ab, ba = uf.maximum(sub, sup), uf.minimum(sub, sup)
    aa = uf.maximum(uf.abs(below), uf.abs(above - below))
    bb = uf.minimum(uf.abs(below), uf.abs(above - below))
    s = _safe(aa + ab)
    refined = ba * (ab / s) <= uf.maximum(small_number, ulp * (bb * (aa / s)))
    small = (sub <= small_number) | ((sub <= ulp * scale) & refined)
    kill = cr.eye(n, k=-1, dtype=bool) & joining.concatenate(
        [small, cr.zeros(small.shape[:-1] + (1,), bool)], axis=-1)[..., None, :]
    return uf.where(kill, 0, h)


def active_window(h, min_size: int = 3):
    """(lo, hi, active): the rows of the lowest unreduced diagonal block of size >=
    ``min_size``, and whether there is one (then there is work left). The real form keeps
    2 x 2 blocks (min_size 3); the complex form reduces them too (min_size 2)."""
    n = h.shape[-1]
    positions = cr.arange(n, dtype=np.int32)
    starts = joining.concatenate(
        [cr.ones(h.shape[:-2] + (1,), np.int32), (_subdiagonal(h) == 0).astype(np.int32)], axis=-1)
    block = cumulative.cumsum(starts, axis=-1)
    sizes = red.sum(block[..., :, None] == block[..., None, :], axis=-1)
    hi = red.max(uf.where(sizes >= min_size, positions, -1), axis=-1)
    block_at_hi = red.sum(uf.where(positions == hi[..., None], block, 0), axis=-1)
    lo = red.min(uf.where(block == block_at_hi[..., None], positions, n), axis=-1)
    return lo, hi, hi >= 0


def _francis_sweep(h, q, lo, hi, active, since_deflation):
    """One implicit double-shift QR sweep on rows/columns lo..hi of h (where ``active``):
    the bulge made by the shifts' first column is chased down by 3 x 3 reflectors (from
    a row below lo when h already nearly splits there, as dlahqr). The shifts are dlahqr's: the eigenvalues of the trailing 2 x 2 block (the one nearer its
    last diagonal entry, twice, when they are real), or every 10 sweeps without a
    deflation an exceptional pair."""
    n, dtype = h.shape[-1], h.dtype

    def e(k):
        return onehot(k, n, dtype)

    h11, h12 = entry(h, e(hi - 1), e(hi - 1)), entry(h, e(hi - 1), e(hi))
    h21, h22 = entry(h, e(hi), e(hi - 1)), entry(h, e(hi), e(hi))
    bottom = since_deflation % 20 == 0
    top = (since_deflation % 10 == 0) & ~bottom
    size = uf.where(bottom, uf.abs(h21) + uf.abs(entry(h, e(hi - 1), e(hi - 2))),
                    uf.abs(entry(h, e(lo + 1), e(lo))) + uf.abs(entry(h, e(lo + 2), e(lo + 1))))
    corner = uf.where(bottom, h22, entry(h, e(lo), e(lo)))
    exceptional = bottom | top
    h11 = uf.where(exceptional, 0.75 * size + corner, h11)
    h22 = uf.where(exceptional, h11, h22)
    h12 = uf.where(exceptional, -0.4375 * size, h12)
    h21 = uf.where(exceptional, size, h21)
    scale = _safe(uf.abs(h11) + uf.abs(h12) + uf.abs(h21) + uf.abs(h22))
    g11, g12, g21, g22 = h11 / scale, h12 / scale, h21 / scale, h22 / scale
    mean = (g11 + g22) / 2
    det = (g11 - mean) * (g22 - mean) - g12 * g21
    root = uf.sqrt(uf.abs(det))
    nearer = uf.where(uf.abs(mean + root - g22) <= uf.abs(mean - root - g22), mean + root,
                      mean - root)
    # s = shift1 + shift2, t = shift1 * shift2
    s = uf.where(det >= 0, 2 * mean, 2 * nearer) * scale
    t = uf.where(det >= 0, mean * mean + root * root, nearer * nearer) * scale * scale
    # The first column of (H - s1 I)(H - s2 I) started at row m: nonzero in rows m..m+2.
    # As dlahqr, start at the lowest m > lo where that would leave h[m, m-1] negligible.
    ulp = float(np.finfo(np.dtype(dtype)).eps)
    d = joining.diagonal(h, axis1=-2, axis2=-1)
    sup = joining.diagonal(h, offset=1, axis1=-2, axis2=-1)
    sub = _subdiagonal(h)
    h_mm, h_m1m1, h_mm1, h_m1m, h_m2m1 = d[..., :-2], d[..., 1:-1], sup[..., :-1], sub[..., :-1], sub[..., 1:]
    zero_pad = cr.zeros(d.shape[:-1] + (1,), dtype)
    h_before = joining.concatenate([zero_pad, sub[..., :-2]], axis=-1)  # h[m, m-1]
    d_before = joining.concatenate([zero_pad, d[..., :-3]], axis=-1)  # h[m-1, m-1]
    v = (h_mm * h_mm + h_mm1 * h_m1m - s[..., None] * h_mm + t[..., None],
         h_m1m * (h_mm + h_m1m1 - s[..., None]), h_m1m * h_m2m1)
    negligible = (uf.abs(h_before) * (uf.abs(v[1]) + uf.abs(v[2]))
                  <= ulp * uf.abs(v[0]) * (uf.abs(d_before) + uf.abs(h_mm) + uf.abs(h_m1m1)))
    rows = cr.arange(n - 2, dtype=np.int32)
    candidates = (rows > lo[..., None]) & (rows <= hi[..., None] - 2) & negligible
    start = red.max(uf.where(candidates, rows, lo[..., None]), axis=-1)
    at_start = (rows == start[..., None]).astype(dtype)
    first = tuple(red.sum(vi * at_start, axis=-1) for vi in v)

    def chase(k, carry):
        h, q = carry
        p = start + k
        ep, ep1, ep2 = e(p), e(p + 1), e(p + 2)
        behind = red.sum(h * e(p - 1)[..., None, :], axis=-1)  # h[:, p - 1]
        x, y, z = (uf.where(k == 0, f, red.sum(behind * ei, axis=-1))
                   for f, ei in zip(first, (ep, ep1, ep2)))
        z = uf.where(p + 2 <= hi, z, 0)
        u = unit_reflector(x[..., None] * ep + y[..., None] * ep1 + z[..., None] * ep2, ep)
        u = uf.where((active & (p < hi))[..., None], u, 0)
        return _reflect(h, q, u)

    h, q = fori_loop(0, n - 1, chase, (h, q))
    return joining.triu(h, -1), q


# --- 2 x 2 blocks in standard form ----------------------------------------------------------


def _sign(x):
    return uf.where(x >= 0, 1, -1).astype(x.dtype)


def _safe(x):
    return uf.where(x == 0, 1, x)


def _standard_rotation(a, b, c, d):
    """LAPACK's dlanv2 on the blocks [[a, b], [c, d]], elementwise: (cs, sn) with
    G = [[cs, sn], [-sn, cs]] making G B G^T standard, and that block's entries."""
    eps = float(np.finfo(np.dtype(a.dtype)).eps)
    one, zero = cr.ones_like(a), cr.zeros_like(a)
    temp = a - d
    p = 0.5 * temp
    bcmax = uf.maximum(uf.abs(b), uf.abs(c))
    bcmis = uf.minimum(uf.abs(b), uf.abs(c)) * _sign(b) * _sign(c)
    scale = _safe(uf.maximum(uf.abs(p), bcmax))
    z = (p / scale) * p + (bcmax / scale) * bcmis
    # real eigenvalues: triangularize
    zr = _safe(p + _sign(p) * uf.sqrt(scale) * uf.sqrt(uf.maximum(z, 0)))
    tau = _safe(uf.hypot(c, zr))
    real = (d + zr, b - c, zero, d - (bcmax / zr) * bcmis, zr / tau, c / tau)
    # complex (or nearly equal real) eigenvalues: equalize the diagonal
    sigma = b + c
    tau = _safe(uf.hypot(sigma, temp))
    cs = uf.sqrt(0.5 * (1 + uf.abs(sigma) / tau))
    sn = -(p / (tau * cs)) * _sign(sigma)
    aa, bb = a * cs + b * sn, -a * sn + b * cs
    cc, dd = c * cs + d * sn, -c * sn + d * cs
    b2, c2 = bb * cs + dd * sn, -aa * sn + cc * cs
    mid = 0.5 * ((aa * cs + cc * sn) + (-bb * sn + dd * cs))
    # ... which may turn out real after all: then triangularize that block
    sab, sac = uf.sqrt(uf.abs(b2)), uf.sqrt(uf.abs(c2))
    pp = _sign(c2) * sab * sac
    tau2 = 1 / uf.sqrt(_safe(uf.abs(b2 + c2)))
    cs1, sn1 = sab * tau2, sac * tau2
    split = (mid + pp, b2 - c2, zero, mid - pp, cs * cs1 - sn * sn1, cs * sn1 + sn * cs1)
    flip = (mid, -c2, zero, mid, -sn, cs)
    equal = (mid, b2, c2, mid, cs, sn)
    is_split = (c2 != 0) & (b2 != 0) & (_sign(b2) == _sign(c2))
    is_flip = (c2 != 0) & (b2 == 0)
    complex_case = tuple(uf.where(is_split, s_, uf.where(is_flip, f_, e_))
                         for s_, f_, e_ in zip(split, flip, equal))
    general = tuple(uf.where(z >= 4 * eps, r_, c_) for r_, c_ in zip(real, complex_case))
    keep = (a, b, c, d, one, zero)
    swap = (d, -c, zero, a, zero, one)
    standard_already = (temp == 0) & (_sign(b) != _sign(c))
    return tuple(uf.where(c == 0, k_, uf.where(b == 0, s_, uf.where(standard_already, k_, g_)))
                 for k_, s_, g_ in zip(keep, swap, general))


def _band(values, offset: int, n: int):
    """The (..., n, n) matrix with ``values`` (..., n - |offset|) on diagonal ``offset``."""
    pad = cr.zeros(values.shape[:-1] + (abs(offset),), values.dtype)
    full = joining.concatenate([values, pad], axis=-1)
    mask = cr.eye(n, k=offset, dtype=values.dtype)
    return mask * (full[..., :, None] if offset >= 0 else full[..., None, :])


def _standardize_blocks(t, z):
    """t and z with every 2 x 2 diagonal block of quasi-triangular t in standard form."""
    n = t.shape[-1]
    d = joining.diagonal(t, axis1=-2, axis2=-1)
    sup = joining.diagonal(t, offset=1, axis1=-2, axis2=-1)
    sub = _subdiagonal(t)
    a2, b2, c2, d2, cs, sn = _standard_rotation(d[..., :-1], sup, sub, d[..., 1:])
    block = sub != 0
    cs, sn = uf.where(block, cs, 1), uf.where(block, sn, 0)
    zero_pad = cr.zeros(cs.shape[:-1] + (1,), t.dtype)
    diagonal_of_g = (1 + joining.concatenate([cs - 1, zero_pad], axis=-1)
                     + joining.concatenate([zero_pad, cs - 1], axis=-1))
    g = _band(diagonal_of_g, 0, n) + _band(sn, 1, n) + _band(-sn, -1, n)
    t = linalg_ops.matmul(linalg_ops.matmul(g, t), g.swapaxes(-1, -2))
    z = linalg_ops.matmul(z, g.swapaxes(-1, -2))
    # the blocks' entries as dlanv2 computed them, exactly (a zero stays zero)
    flag = block.astype(t.dtype)
    starts = joining.concatenate([flag, zero_pad], axis=-1)
    ends = joining.concatenate([zero_pad, flag], axis=-1)
    new_diagonal = (starts * joining.concatenate([a2, zero_pad], axis=-1)
                    + ends * joining.concatenate([zero_pad, d2], axis=-1))
    replaced = _band(starts + ends, 0, n) + _band(flag, 1, n) + _band(flag, -1, n)
    values = _band(new_diagonal, 0, n) + _band(b2, 1, n) + _band(c2, -1, n)
    return uf.where(replaced != 0, values, t), z


def _real_schur(a):
    n = a.shape[-1]
    if n < 2:
        return a, _identity_like(a)
    scale = power_of_two_scale(a)
    h, q = _hessenberg_form(a / scale)
    h = deflate(h)
    if n > 2:
        def not_done(carry):
            sweeps, _, _, unfinished, _, _ = carry
            return (sweeps < SWEEPS_PER_EIGENVALUE * max(10, n)) & unfinished

        def sweep(carry):
            sweeps, last_hi, since_deflation, _, h, q = carry
            lo, hi, active = active_window(h)
            since_deflation = uf.where(hi == last_hi, since_deflation + 1, 1)
            h, q = _francis_sweep(h, q, lo, hi, active, since_deflation)
            h = deflate(h)
            return sweeps + 1, hi, since_deflation, red.any(active_window(h)[2]), h, q

        counters = cr.zeros(a.shape[:-2], np.int32)
        init = (cr.asarray(0, np.int32), counters - 1, counters, red.any(active_window(h)[2]), h, q)
        h, q = while_loop(not_done, sweep, init)[4:]
    converged = ~active_window(h)[2][..., None, None]
    t, z = _standardize_blocks(h, q)
    return uf.where(converged, t * scale, np.nan), uf.where(converged, z, np.nan)


#: (t, z) with ``a = z t z^T``: t quasi upper triangular in LAPACK's standard form, z
#: orthogonal, for real (..., n, n) ``a``; NaN where the iteration did not converge (or, by
#: LAPACK's gees, where a has a non-finite entry).
real_schur_p, real_schur = schur_primitive("real_schur", _real_schur)


def eigenvalue_parts(t):
    """(real, imaginary) parts of the eigenvalues of quasi-triangular ``t`` in standard form,
    each (..., n): a 2 x 2 block [[m, b], [c, m]] holds m +- i sqrt(|b|) sqrt(|c|) (dlanv2's
    product, which neither overflows nor underflows where b c would)."""
    d = joining.diagonal(t, axis1=-2, axis2=-1)
    sup = joining.diagonal(t, offset=1, axis1=-2, axis2=-1)
    sub = _subdiagonal(t)
    im = uf.sqrt(uf.abs(sup)) * uf.sqrt(uf.abs(sub)) * (sub != 0)
    zero_pad = cr.zeros(im.shape[:-1] + (1,), t.dtype)
    return d, joining.concatenate([im, zero_pad], axis=-1) - joining.concatenate([zero_pad, im],
                                                                                   axis=-1)
