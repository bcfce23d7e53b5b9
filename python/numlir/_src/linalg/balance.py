"""Balancing a general matrix before its eigenvalues are computed, as LAPACK's gebal with
job 'B' (which geev runs first), and taking eigenvectors back to the matrix, as gebak.

The QR iteration's error is eps times the norm of the matrix it works on. For a badly
scaled matrix ``D A D^-1`` that norm can exceed the small eigenvalues by orders of
magnitude, so they come out with no correct digits. Balancing finds a similar matrix
``b = D^-1 P^T a P D`` of much smaller norm, in two steps that are exact in floating point:

1. Permutation. A row whose entries off the diagonal vanish within the rows and columns
   not yet isolated is swapped to the bottom of that window (the last such row first);
   then a column whose entries vanish likewise to its top. ``P^T a P`` becomes
   ``[[T1, X, Y], [0, B, Z], [0, 0, T2]]`` with T1 and T2 upper triangular: their
   diagonals are eigenvalues, exactly, and only B (rows ``lo..hi``) is scaled.
2. Scaling. Sweeps over the rows of B: row i is divided and column i multiplied by a power
   of two f that makes their 2-norms ``c f`` and ``r / f`` (within B) nearly equal, if that
   cuts ``c + r`` by 5%; until a sweep changes nothing. f is the one gebal's loops reach
   (doubling while ``c f < r / (2 f)``, halving while ``c f / 2 >= r / f``), found here in
   closed form from the exponents of c and r.

An eigenvector x of b is ``P D x`` for a. The input should have its largest entry near 1
(``linalg_schur.power_of_two_scale``), as gebal's safeguards are absolute: the accumulated
factor of a row stays within [tiny / eps, eps / tiny], as gebal's. gebal also stops its
doubling loops before a norm or a row's or column's largest entry leaves [2 tiny / eps,
eps / (2 tiny)]; that is not checked here, so with the largest entry near 1 the results
can differ from gebal's only where a row's or column's entries all lie below 2 tiny / eps
(about 2e-292 in float64, 2e-31 in float32).

Every step applies masks to the whole (..., n, n) batch, with fixed loops (n swaps in each
search, n rows in a sweep) inside a ``while_loop`` on convergence, so it runs under jit and
vmap.
"""

from __future__ import annotations

import numpy as np

from numlir._src import dtypes
from numlir._src.lax.control_flow import while_loop
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg.masks import column, onehot, outer, row, squared_modulus
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops, linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf

#: gebal's test: a scaling is applied only if it reduces ``c + r`` below this fraction.
REDUCTION = 0.95
#: A bound on the scaling sweeps; gebal has none, as it converges in a few.
MAX_SWEEPS = 100


def _real_dtype(a):
    return dtypes.complex_part_dtype(a.dtype) if dtypes.is_complex(a.dtype) else a.dtype


def _transposition(j, k, n: int, dtype):
    """The permutation matrix swapping positions j and k ((...,) indices); the identity
    where j == k, or where both lie outside [0, n)."""
    d = onehot(j[..., None], n, dtype) - onehot(k[..., None], n, dtype)
    return cr.eye(n, dtype=dtype) - outer(d, d)


def _swap(b, p, j, k):
    """(s b s, p s) for the transposition s of j and k: exact, as each entry of a product
    with s is one entry of the other factor plus zeros."""
    s = _transposition(j, k, b.shape[-1], _real_dtype(b))
    b = linalg_ops.matmul(linalg_ops.matmul(s.astype(b.dtype), b), s.astype(b.dtype))
    return b, linalg_ops.matmul(p, s)


def _isolate_eigenvalues(a):
    """(P^T a P, P, lo, hi): P^T a P is zero below its diagonal outside the block of rows and
    columns lo..hi."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    positions = cr.arange(n, dtype=np.int32)
    off_diagonal = ~cr.eye(n, dtype=bool)

    def isolate_row(_, carry):
        b, p, hi = carry
        inside = positions <= hi[..., None]
        couplings = (b != 0) & off_diagonal & inside[..., None, :]
        isolated = inside & ~red.any(couplings, axis=-1)
        j = red.max(uf.where(isolated, positions, -1), axis=-1)
        found = j >= 0
        b, p = _swap(b, p, uf.where(found, j, hi), hi)
        return b, p, hi - found.astype(np.int32)

    def isolate_column(_, carry):
        b, p, lo = carry
        inside = (positions >= lo[..., None]) & (positions <= hi[..., None])
        couplings = (b != 0) & off_diagonal & inside[..., :, None]
        isolated = inside & ~red.any(couplings, axis=-2)
        j = red.min(uf.where(isolated, positions, n), axis=-1)
        found = j < n
        b, p = _swap(b, p, uf.where(found, j, lo), lo)
        return b, p, lo + found.astype(np.int32)

    p = cr.zeros(batch + (n, n), _real_dtype(a)) + cr.eye(n, dtype=_real_dtype(a))
    last = cr.zeros(batch, np.int32) + (n - 1)
    b, p, hi = fori_loop(0, n, isolate_row, (a, p, last))
    b, p, lo = fori_loop(0, n, isolate_column, (b, p, cr.zeros(batch, np.int32)))
    return b, p, lo, hi


def _norm(x):
    """The 2-norm over the last axis, scaled by a power of two first so that squares of
    tiny entries do not underflow (LAPACK's nrm2 is safe in the same way)."""
    largest = red.max(uf.abs(x), axis=-1)
    _, exponent = float_ops.frexp(largest)
    scale = float_ops.ldexp(cr.ones_like(largest), exponent)
    return scale * uf.sqrt(red.sum(squared_modulus(x / scale[..., None].astype(x.dtype)), axis=-1))


def _balancing_exponent(c, r):
    """k such that gebal scales row i by 2^-k and column i by 2^k, from column and row norms
    c, r > 0: the least k >= 0 with ``c 2^(2k+1) >= r``, else minus the least j >= 0 with
    ``r 2^(2j+1) > c``. From c = mc 2^ec and r = mr 2^er (1/2 <= m < 1) the test
    ``2^(2k+1) >= r / c`` needs ``2k + 1 >= er - ec`` with equality only when mc >= mr."""
    mc, ec = float_ops.frexp(c)
    mr, er = float_ops.frexp(r)
    gap = er - ec
    up = gap // 2 + (((gap & 1) == 1) & (mc < mr)).astype(np.int32)
    down = (-gap) // 2 + ((((-gap) & 1) == 1) & (mc >= mr)).astype(np.int32)
    return uf.maximum(up, 0) - uf.maximum(down, 0)


def _scale(b, lo, hi):
    """(D^-1 b D, d) for the powers of two d = diag(D), rows lo..hi balanced, others 1."""
    n = b.shape[-1]
    real = _real_dtype(b)
    finfo = np.finfo(np.dtype(real))
    smallest_scale = float(finfo.tiny) / float(finfo.eps)  # gebal's sfmin1
    largest_scale = 1 / smallest_scale
    positions = cr.arange(n, dtype=np.int32)
    inside = (positions >= lo[..., None]) & (positions <= hi[..., None])  # (..., n)

    def balance_row(i, carry):
        b, d, changed = carry
        e = onehot(i, n, real)
        c = _norm(uf.where(inside, column(b, e.astype(b.dtype)), 0))
        r = _norm(uf.where(inside, row(b, e.astype(b.dtype)), 0))
        k = _balancing_exponent(c, r)
        f = float_ops.ldexp(cr.ones_like(c), k)
        d_i = red.sum(d * e, axis=-1)
        apply = (red.any(inside & (e != 0), axis=-1) & (c > 0) & (r > 0)
                 & (c * f + r / f < REDUCTION * (c + r))
                 # gebal keeps the accumulated scale within [sfmin1, sfmax1]
                 & ~((f < 1) & (d_i < 1) & (f * d_i <= smallest_scale))
                 & ~((f > 1) & (d_i > 1) & (d_i >= largest_scale / f)))
        f = uf.where(apply, f, 1)[..., None]
        on_row = uf.where(e[:, None] != 0, 1 / f[..., None], 1)
        on_column = uf.where(e[None, :] != 0, f[..., None], 1)
        b = b * on_row.astype(b.dtype) * on_column.astype(b.dtype)
        return b, uf.where(e != 0, d * f, d), changed | apply

    def not_done(carry):
        sweeps, _, _, changed = carry
        return (sweeps < MAX_SWEEPS) & changed

    def sweep(carry):
        sweeps, b, d, _ = carry
        b, d, changed = fori_loop(0, n, balance_row, (b, d, cr.zeros(b.shape[:-2], bool)))
        return sweeps + 1, b, d, red.any(changed)

    d = cr.ones(b.shape[:-1], real)
    return while_loop(not_done, sweep, (cr.asarray(0, np.int32), b, d, cr.asarray(True)))[1:3]


def balance(a):
    """(b, p, d) with ``b = D^-1 P^T a P D``, D = diag(d) (powers of two, real) and P a
    permutation matrix (real), for (..., n, n) ``a``, as LAPACK's gebal with job 'B'."""
    if a.shape[-1] == 0:
        return a, cr.zeros(a.shape, _real_dtype(a)), cr.ones(a.shape[:-1], _real_dtype(a))
    b, p, lo, hi = _isolate_eigenvalues(a)
    b, d = _scale(b, lo, hi)
    return b, p, d


def unbalance_vectors(v, p, d):
    """``P D v``: the eigenvectors of a from those (columns of v) of its balanced form."""
    return linalg_ops.matmul(p.astype(v.dtype), v * d[..., :, None].astype(v.dtype))
