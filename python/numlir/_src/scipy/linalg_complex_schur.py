"""The complex Schur form A = Z T Z^H (T upper triangular, Z unitary).

Two routes, as jax.scipy.linalg offers them:

- ``rsf2csf`` turns a real Schur form into a complex one: each 2 x 2 diagonal block (a
  complex pair) is split by one complex Givens rotation built from the block's eigenvalue
  with positive imaginary part (the one LAPACK's zgeev lists first), as scipy's rsf2csf.
- ``complex_schur`` factors a complex matrix directly: a Householder reduction to
  Hessenberg form (LAPACK's zgehrd, which ``scipy.linalg.hessenberg`` gives), then implicit
  single-shift QR sweeps (Wilkinson shifts, with an exceptional shift every 10 sweeps
  without a deflation) chased by Givens rotations, with dlahqr's deflation test (shared
  with the real form, ``linalg_schur.deflate``).

As in ``linalg_schur``, every rotation and reflector is applied to the whole (..., n, n)
batch through one-hot masks, so the code runs eagerly, under jit and under vmap; a sweep
costs O(n^3) and a decomposition O(n^4), for small and medium matrices.
"""

from __future__ import annotations

import numpy as np

from numlir._src import dtypes
from numlir._src.jit import jit
from numlir._src.lax.control_flow import while_loop
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import householder
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops, joining, linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf
from numlir._src.scipy.linalg_schur import (
    SWEEPS_PER_EIGENVALUE,
    active_window,
    deflate,
    entry,
    onehot,
    power_of_two_scale,
)
from numlir._src.scipy.schur_primitive import schur_primitive


def _conj(x):
    return float_ops.conjugate(x)


def _squared_modulus(x):
    """|x|^2 from the parts: smooth at zero, where |x| is not."""
    return uf.square(float_ops.real(x)) + uf.square(float_ops.imag(x))


def _row(x, e):
    """x[..., k, :] for one-hot e (..., n)."""
    return red.sum(x * e[..., :, None], axis=-2)


def _column(x, e):
    """x[..., :, k] for one-hot e (..., n)."""
    return red.sum(x * e[..., None, :], axis=-1)


def _set_row(x, e, values, columns=None):
    """x with row k (one-hot e) replaced by ``values`` (..., n), in ``columns`` (a boolean
    (n,) mask) only if given. Replaced, not updated by a difference, so unchanged entries
    keep their bits."""
    mask = (e != 0)[..., :, None]
    if columns is not None:
        mask = mask & columns[None, :]
    return uf.where(mask, values[..., None, :], x)


def _set_column(x, e, values, rows=None):
    """x with column k (one-hot e) replaced by ``values`` (..., n), in ``rows`` only if given."""
    mask = (e != 0)[..., None, :]
    if rows is not None:
        mask = mask & rows[:, None]
    return uf.where(mask, values[..., :, None], x)


def _rotate_rows(x, ep, eq, g11, g12, g21, g22, columns=None):
    """G x for the rotation G = [[g11, g12], [g21, g22]] on rows p, q (one-hot ep, eq);
    the g's are (...,)."""
    xp, xq = _row(x, ep), _row(x, eq)
    new_p = g11[..., None] * xp + g12[..., None] * xq
    new_q = g21[..., None] * xp + g22[..., None] * xq
    return _set_row(_set_row(x, ep, new_p, columns), eq, new_q, columns)


def _rotate_columns(x, ep, eq, g11, g12, g21, g22, rows=None):
    """x G^H for the rotation G = [[g11, g12], [g21, g22]] on columns p, q."""
    xp, xq = _column(x, ep), _column(x, eq)
    new_p = _conj(g11)[..., None] * xp + _conj(g12)[..., None] * xq
    new_q = _conj(g21)[..., None] * xp + _conj(g22)[..., None] * xq
    return _set_column(_set_column(x, ep, new_p, rows), eq, new_q, rows)


# --- real Schur form to complex Schur form ----------------------------------------------------


def upper_eigenvalue_minus_last(a, b, c, d, split):
    """lambda - d for the eigenvalue lambda of [[a, b], [c, d]] (entries (...,)) that zgeev
    lists first for a complex pair: the one with positive imaginary part. Written
    (a - d) / 2 + sqrt(((a - d) / 2)^2 + b c), so a standard block's equal diagonal cancels
    exactly. Computed only where ``split`` (elsewhere from a dummy discriminant 1): the
    square root's derivative is infinite at the zero discriminant of a block that is not
    split, and the cotangent 0 it gets there would make that NaN."""
    half_gap = (a - d) / 2
    root = uf.sqrt(uf.where(split, half_gap * half_gap + b * c, 1))
    return half_gap + uf.where(float_ops.imag(root) < 0, -root, root)


@jit
def rsf2csf(t, z):
    """(t, z) of complex dtype and the same batch shape, with every subdiagonal entry of t
    that is not negligible (|t[m, m-1]| > eps (|t[m-1, m-1]| + |t[m, m]|)) rotated away,
    from the bottom up, and then every subdiagonal entry set to zero, as jax's rsf2csf."""
    n = t.shape[-1]
    eps = float(np.finfo(dtypes.complex_part_dtype(t.dtype)).eps)
    positions = cr.arange(n)

    def split_block(i, carry):
        t, z = carry
        m = n - i
        e_top, e_bottom = onehot(m - 1, n, t.dtype), onehot(m, n, t.dtype)
        a, b = entry(t, e_top, e_top), entry(t, e_top, e_bottom)
        c, d = entry(t, e_bottom, e_top), entry(t, e_bottom, e_bottom)
        split = uf.abs(c) > eps * (uf.abs(a) + uf.abs(d))
        mu = upper_eigenvalue_minus_last(a, b, c, d, split)
        r = uf.sqrt(_squared_modulus(mu) + _squared_modulus(c))
        r = uf.where(split, r, 1)
        # G = [[conj(cs), sn], [-sn, cs]]: unitary where sn is real, as for a real Schur form
        cs, sn = uf.where(split, mu / r, 1), uf.where(split, c / r, 0)
        g = (_conj(cs), sn, -sn, cs)
        # As jax: the rows change right of the block, the columns above its bottom row
        # (elsewhere a quasi-triangular t is zero in them anyway)
        t = _rotate_rows(t, e_top, e_bottom, *g, columns=positions >= m - 1)
        t = _rotate_columns(t, e_top, e_bottom, *g, rows=positions <= m)
        z = _rotate_columns(z, e_top, e_bottom, *g)
        below_block = (e_bottom[:, None] != 0) & (e_top[None, :] != 0)
        return uf.where(below_block, 0, t), z

    if n < 2:
        return t, z
    return fori_loop(1, n, split_block, (t, z))


# --- the complex Hessenberg form and QR iteration ---------------------------------------------


@jit
def complex_hessenberg_form(a):
    """(h, q) with ``a = q h q^H``, h upper Hessenberg with a real subdiagonal, q unitary, for
    complex (..., n, n) ``a``, as LAPACK's zgehrd and zunghr (so h and q are theirs, and
    JAX's, to rounding): reflector k (zlarfg's) takes column k below the diagonal to a
    real multiple of e_{k+1}. The last one has a single entry to reflect: it only turns
    that entry real."""
    n = a.shape[-1]
    rows = cr.arange(n)

    def step(k, carry):
        h, q = carry
        e = onehot(k + 1, n, a.dtype)
        column = _column(h, onehot(k, n, a.dtype))
        v, tau, beta, reflect = householder.complex_reflector(
            red.sum(column * e, axis=-1), uf.where(rows > k + 1, column, 0), e)
        v_h, tau = _conj(v), tau[..., None]
        # h becomes H^H h H for H = I - tau v v^H, and q becomes q H
        h = h - (_conj(tau) * v)[..., :, None] * linalg_ops.matmul(v_h[..., None, :], h)
        h = h - linalg_ops.matmul(h, v[..., :, None]) * (tau * v_h)[..., None, :]
        q = q - linalg_ops.matmul(q, v[..., :, None]) * (tau * v_h)[..., None, :]
        # H^H h H holds beta at (k + 1, k) only up to rounding, which would leave an
        # imaginary part: store beta itself, as LAPACK does
        at = (rows == k + 1)[:, None] & (rows == k)[None, :]
        return uf.where(at & reflect[..., None, None], beta[..., None, None], h), q

    eye = cr.zeros_like(a) + cr.eye(n, dtype=a.dtype)
    h, q = fori_loop(0, max(n - 1, 0), step, (a, eye))
    return joining.triu(h, -1), q


def _givens(x, y):
    """(c, s) with [[c, s], [-conj(s), c]] [x, y] = [r, 0], c real (held complex), r >= 0
    times the phase of x; the identity when x = y = 0."""
    size_x = uf.abs(x)
    r = uf.hypot(size_x, uf.abs(y))
    nonzero = r > 0
    safe_r = uf.where(nonzero, r, 1)
    phase = uf.where(size_x > 0, x / uf.where(size_x > 0, size_x, 1), 1)
    c = uf.where(nonzero, size_x / safe_r, 1).astype(x.dtype)
    s = uf.where(nonzero, phase * _conj(y) / safe_r, 0)
    return c, s


def _closer_eigenvalue(a, b, c, d):
    """The eigenvalue of [[a, b], [c, d]] nearer d (the Wilkinson shift), from entries scaled
    to modulus about 1 so the discriminant neither overflows nor underflows."""
    scale = uf.abs(a) + uf.abs(b) + uf.abs(c) + uf.abs(d)
    scale = uf.where(scale == 0, 1, scale)
    a, b, c, d = a / scale, b / scale, c / scale, d / scale
    half_gap = (a - d) / 2
    root = uf.sqrt(half_gap * half_gap + b * c)
    offset = uf.where(uf.abs(half_gap - root) <= uf.abs(half_gap + root), half_gap - root,
                      half_gap + root)
    return (d + offset) * scale


def _shift(h, lo, hi, since_deflation):
    """The shift of a sweep on rows lo..hi: Wilkinson's, or after 10 and 20 sweeps without a
    deflation an exceptional one (a diagonal entry moved by 3/4 of its subdiagonal
    neighbour, at the top and then the bottom of the block, as zlahqr) that breaks the
    cycles unshifted QR can fall into (a cyclic permutation)."""
    n = h.shape[-1]

    def e(k):
        return onehot(k, n, h.dtype)

    wilkinson = _closer_eigenvalue(entry(h, e(hi - 1), e(hi - 1)), entry(h, e(hi - 1), e(hi)),
                                   entry(h, e(hi), e(hi - 1)), entry(h, e(hi), e(hi)))
    bottom = entry(h, e(hi), e(hi)) + 0.75 * uf.abs(entry(h, e(hi), e(hi - 1)))
    top = entry(h, e(lo), e(lo)) + 0.75 * uf.abs(entry(h, e(lo + 1), e(lo)))
    return uf.where(since_deflation % 20 == 0, bottom,
                    uf.where(since_deflation % 10 == 0, top, wilkinson))


def _qr_sweep(h, q, lo, hi, active, since_deflation):
    """One implicit single-shift QR sweep on rows/columns lo..hi of h (where ``active``): a
    rotation of rows lo, lo+1 by the shifted first column makes a bulge below the
    subdiagonal, which rotations chase off the bottom of the block."""
    n = h.shape[-1]

    def e(k):
        return onehot(k, n, h.dtype)

    shift = _shift(h, lo, hi, since_deflation)
    first = (entry(h, e(lo), e(lo)) - shift, entry(h, e(lo + 1), e(lo)))

    def chase(k, carry):
        h, q = carry
        p = lo + k
        ep, eq, behind = e(p), e(p + 1), e(p - 1)
        x = uf.where(k == 0, first[0], entry(h, ep, behind))  # h[p, p-1]
        y = uf.where(k == 0, first[1], entry(h, eq, behind))  # the bulge h[p+1, p-1]
        c, s = _givens(x, y)
        rotating = active & (p < hi)
        c, s = uf.where(rotating, c, 1), uf.where(rotating, s, 0)
        g = (c, s, -_conj(s), c)
        h = _rotate_columns(_rotate_rows(h, ep, eq, *g), ep, eq, *g)
        return h, _rotate_columns(q, ep, eq, *g)

    h, q = fori_loop(0, n - 1, chase, (h, q))
    return joining.triu(h, -1), q


def _complex_schur(a):
    n = a.shape[-1]
    if n < 2:
        return complex_hessenberg_form(a)  # (a, I)
    scale = power_of_two_scale(a)  # against overflow and underflow, as the real form
    h, q = complex_hessenberg_form(a / scale)
    h = deflate(h)

    def unfinished(h):
        return red.any(active_window(h, 2)[2])

    def not_done(carry):
        sweeps, _, _, work_left, _, _ = carry
        return (sweeps < SWEEPS_PER_EIGENVALUE * max(10, n)) & work_left

    def sweep(carry):
        sweeps, last_hi, since_deflation, _, h, q = carry
        lo, hi, active = active_window(h, 2)
        since_deflation = uf.where(hi == last_hi, since_deflation + 1, 1)
        h, q = _qr_sweep(h, q, lo, hi, active, since_deflation)
        h = deflate(h)
        return sweeps + 1, hi, since_deflation, unfinished(h), h, q

    counters = cr.zeros(a.shape[:-2], np.int32)
    init = (cr.asarray(0, np.int32), counters - 1, counters, unfinished(h), h, q)
    h, q = while_loop(not_done, sweep, init)[4:]
    converged = ~active_window(h, 2)[2][..., None, None]
    return uf.where(converged, joining.triu(h) * scale, np.nan), uf.where(converged, q, np.nan)


#: (t, z) with ``a = z t z^H``: t upper triangular, z unitary, for complex (..., n, n) ``a``;
#: NaN where the iteration did not converge (or, by LAPACK's gees, where a has a
#: non-finite entry).
complex_schur_p, complex_schur = schur_primitive("complex_schur", _complex_schur)
