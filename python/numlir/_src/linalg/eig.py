"""Eigenvalues and eigenvectors of general real matrices, as LAPACK's dgeev (jnp.linalg.eig).

From the real Schur form ``a = z t z^T`` (scipy/linalg_schur.py): the eigenvalues are the
1 x 1 and 2 x 2 diagonal blocks of ``t``, a complex pair with the positive imaginary part
first. Each eigenvector of ``t`` is found by back substitution, all of them at once
(dtrevc's starting values, so the result equals LAPACK's up to rounding: ``x_k = 1`` for
a real eigenvalue; for a pair, dtrevc's choice between the two rows of the block), then
multiplied by ``z``, scaled to unit norm, and, for a complex pair, turned so that its
largest component is real with the sign of its real part (dgeev's rotation).

Small pivots are replaced by ``eps * |t|``, as dtrevc does, so a repeated eigenvalue of a
diagonalizable matrix gets independent eigenvectors. No derivative rules yet.
"""

from __future__ import annotations

import numpy as np

from numlir._src import dtypes
from numlir._src.jit import jit
from numlir._src.lax import complex_ops
from numlir._src.lax import elementwise as ew
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg.masks import as_square_matrix, onehot, row
from numlir._src.numpy import creation as cr
from numlir._src.numpy import joining, linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf
from numlir._src.scipy.linalg_schur import eigenvalue_parts, real_schur


def _pair_roles(t):
    """Masks (..., n): k is the top row of a 2 x 2 block, or its bottom row."""
    sub = joining.diagonal(t, offset=-1, axis1=-2, axis2=-1) != 0  # t[k + 1, k]
    pad = cr.zeros(sub.shape[:-1] + (1,), bool)
    top = joining.concatenate([sub, pad], axis=-1)
    bottom = joining.concatenate([pad, sub], axis=-1)
    return top, bottom


def _starting_vectors(t, w_re, w_im, top, bottom):
    """dtrevc's values in the rows of each eigenvalue's own block, zero elsewhere:
    (..., n rows, n eigenvalues), complex."""
    n = t.shape[-1]
    ctype = dtypes.complex_dtype_of(t.dtype)
    eye = cr.eye(n, dtype=t.dtype)
    sup = joining.diagonal(t, offset=1, axis1=-2, axis2=-1)  # t[k, k + 1]
    sub = joining.diagonal(t, offset=-1, axis1=-2, axis2=-1)  # t[k + 1, k]
    pad = cr.zeros(sup.shape[:-1] + (1,), t.dtype)
    b_top = joining.concatenate([sup, pad], axis=-1)  # for a top row k: t[k, k + 1]
    c_top = joining.concatenate([sub, pad], axis=-1)  # t[k + 1, k]
    b_bottom = joining.concatenate([pad, sup], axis=-1)  # for a bottom row k: t[k - 1, k]
    c_bottom = joining.concatenate([pad, sub], axis=-1)  # t[k, k - 1]
    # The top eigenvalue m + i w of a block [[m, b], [c, m]]: (1, i w / b) when |b| >= |c|,
    # else (-w / c, i); the bottom one, m - i w, has the conjugate vector.
    w_top, w_bottom = uf.abs(w_im), uf.abs(w_im)
    first_row = uf.abs(b_top) >= uf.abs(c_top)
    safe = lambda v: uf.where(v == 0, 1, v)  # noqa: E731
    upper_top = uf.where(first_row, 1, -w_top / safe(c_top)).astype(ctype)
    lower_top = uf.where(first_row, complex_ops.complex(cr.zeros_like(w_top), w_top / safe(b_top)),
                         1j).astype(ctype)
    first_row_b = uf.abs(b_bottom) >= uf.abs(c_bottom)
    upper_bottom = uf.where(first_row_b, 1, -w_bottom / safe(c_bottom)).astype(ctype)
    lower_bottom = uf.where(first_row_b, complex_ops.complex(cr.zeros_like(w_bottom),
                                                             -w_bottom / safe(b_bottom)), -1j)
    lower_bottom = lower_bottom.astype(ctype)
    diag = eye.astype(ctype)
    below = joining.roll(eye, 1, axis=-2).astype(ctype) * (cr.arange(n)[:, None] > 0)  # row k + 1
    above = joining.roll(eye, -1, axis=-2).astype(ctype) * (cr.arange(n)[:, None] < n - 1)  # k - 1
    single = ~(top | bottom)
    x = uf.where(single[..., None, :], diag, 0)
    x = x + uf.where(top[..., None, :], diag * upper_top[..., None, :]
                     + below * lower_top[..., None, :], 0)
    return x + uf.where(bottom[..., None, :], above * upper_bottom[..., None, :]
                        + diag * lower_bottom[..., None, :], 0)


def _back_substitute(t, w, x, top, bottom):
    """Solve ``(t - w_k) y_k = 0`` upwards from each eigenvalue's block, all k at once."""
    n = t.shape[-1]
    ctype = x.dtype
    finfo = np.finfo(np.dtype(t.dtype))
    smin = red.max(uf.abs(t), axis=(-2, -1), keepdims=True)[..., 0] * finfo.eps
    smin = uf.maximum(smin, finfo.tiny)  # (..., 1)
    idx = cr.arange(n)
    start = uf.where(bottom, idx - 1, idx)  # the first row of k's block: rows >= it are fixed
    tc = t.astype(ctype)

    def solve_row(s, x):
        i = n - 1 - s
        ei = onehot(i, n, t.dtype)
        eh = onehot(i - 1, n, t.dtype)
        ti, th = row(tc, ei), row(tc, eh)  # (..., n)
        rhs_i = -linalg_ops.matmul(ti[..., None, :], x)[..., 0, :]  # (..., k)
        rhs_h = -linalg_ops.matmul(th[..., None, :], x)[..., 0, :]
        tii = red.sum(ti * ei, axis=-1)[..., None]
        tih = red.sum(ti * eh, axis=-1)[..., None]  # t[i, i - 1]
        thh = red.sum(th * eh, axis=-1)[..., None]
        thi = red.sum(th * ei, axis=-1)[..., None]  # t[i - 1, i]
        is_bottom = red.sum(bottom.astype(t.dtype) * ei, axis=-1)[..., None] > 0
        is_top = red.sum(top.astype(t.dtype) * ei, axis=-1)[..., None] > 0
        active = i < start  # (..., k)

        def pivot(d, floor):
            return uf.where(uf.abs(d) < floor, floor.astype(ctype), d)

        # A 1 x 1 block.
        y_single = rhs_i / pivot(tii - w, smin)
        # A 2 x 2 block (rows i - 1, i), by Cramer's rule.
        a, b, c, d = thh - w, thi, tih, tii - w
        det = pivot(a * d - b * c, smin * smin)
        y_h = (rhs_h * d - b * rhs_i) / det
        y_i = (a * rhs_i - c * rhs_h) / det
        new_i = uf.where(is_bottom, y_i, y_single)
        write_i = active & ~is_top  # a top row was written with the bottom one
        write_h = active & is_bottom & (i >= 1)
        x = uf.where(ei.astype(bool)[:, None] & write_i[..., None, :], new_i[..., None, :], x)
        return uf.where(eh.astype(bool)[:, None] & write_h[..., None, :], y_h[..., None, :], x)

    return fori_loop(0, n, solve_row, x)


def _normalize(v, complex_pair):
    """Unit columns; a complex pair's column turned so that its largest component is real
    with the sign of its real part (dgeev: dlartg on that component)."""
    v = v / uf.sqrt(red.sum(uf.abs(v) ** 2, axis=-2, keepdims=True)).astype(v.dtype)
    big = red.argmax(uf.abs(v) ** 2, axis=-2, keepdims=True)
    picked = red.sum(uf.where(cr.arange(v.shape[-2])[:, None] == big, v, 0), axis=-2,
                     keepdims=True)
    f, g = complex_ops.real(picked), complex_ops.imag(picked)
    r = uf.where(f < 0, -1, 1).astype(f.dtype) * uf.sqrt(f * f + g * g)
    r = uf.where(r == 0, 1, r)
    turn = complex_ops.complex(f / r, -g / r)
    return uf.where(complex_pair[..., None, :], v * turn, v)


def _eig(a):
    t, z = real_schur(a)
    w_re, w_im = eigenvalue_parts(t)
    w = complex_ops.complex(w_re, w_im)
    top, bottom = _pair_roles(t)
    x = _starting_vectors(t, w_re, w_im, top, bottom)
    y = _back_substitute(t, w, x, top, bottom)
    v = linalg_ops.matmul(z.astype(y.dtype), y)
    v = _normalize(v, top)
    # The bottom eigenvalue's vector is exactly the conjugate of the top one's.
    shifted = joining.roll(v, 1, axis=-1)
    v = uf.where(bottom[..., None, :], complex_ops.conj(shifted), v)
    return w, v


_eig_jit = jit(_eig)


def _checked(name, a):
    a = as_square_matrix(name, a)
    if dtypes.is_complex(a.dtype):
        raise TypeError(f"{name}: complex input is not supported yet")
    return ew.no_derivative(a, f"differentiation of {name}")


def eig(a):
    """Eigenvalues ``w`` and unit right eigenvectors ``v`` (columns) of square real ``a``,
    ``a @ v = v * w``, as ``jnp.linalg.eig`` (LAPACK's dgeev): complex results, pairs of
    conjugate eigenvalues with the positive imaginary part first. Batched over leading axes.
    """
    return tuple(_eig_jit(_checked("eig", a)))


def eigvals(a):
    """The eigenvalues of square real ``a``, as ``jnp.linalg.eigvals`` (complex, dgeev's
    order)."""
    a = _checked("eigvals", a)
    t, _ = real_schur(a)
    return complex_ops.complex(*eigenvalue_parts(t))

