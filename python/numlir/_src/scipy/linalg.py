"""jax.scipy.linalg for real matrices: factor-and-solve pairs, expm, special matrices."""

from __future__ import annotations

import numpy as np

from numlir._src import core
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import cholesky as _cholesky
from numlir._src.linalg import decompositions, masks, solvers, triangular
from numlir._src.linalg import lu as _lu
from numlir._src.linalg import svd as _svd
from numlir._src.numpy import creation as cr
from numlir._src.numpy import joining, linalg_ops, reshaping
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf
from numlir._src.numpy.util import promote_dtypes_inexact


def _vector_rhs(b):
    b = cr.asarray(b)
    return (b[..., None], True) if b.ndim == 1 else (b, False)


def _trans(trans) -> bool:
    if trans in (0, "N"):
        return False
    if trans in (1, "T", 2, "C"):
        return True
    raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    """x with ``a x = b`` (``trans``: ``a^T x = b``) for triangular ``a``; b (n,) or (n, k)."""
    del overwrite_b, debug, check_finite
    a, b = promote_dtypes_inexact(cr.asarray(a), cr.asarray(b))
    a = masks.as_square_matrix("solve_triangular", a)
    b, vector = _vector_rhs(b)
    x = triangular.solve_left(a, b, lower=lower, transpose_a=_trans(trans),
                              unit_diagonal=unit_diagonal)
    return x[..., 0] if vector else x


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Cholesky factor: upper (scipy's default) or lower."""
    del overwrite_a, check_finite
    return _cholesky.cholesky(a, lower=lower)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """(c, lower) for ``cho_solve``; ``c`` holds the factor in the triangle ``lower`` names
    (the other triangle is zero here, where LAPACK leaves garbage)."""
    return cholesky(a, lower=lower, overwrite_a=overwrite_a, check_finite=check_finite), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """x with ``a x = b`` from ``cho_factor(a)``."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    c, b = promote_dtypes_inexact(cr.asarray(c), cr.asarray(b))
    b, vector = _vector_rhs(b)
    if lower:  # a = L L^T
        y = triangular.solve_left(c, b, lower=True)
        x = triangular.solve_left(c, y, lower=True, transpose_a=True)
    else:  # a = U^T U
        y = triangular.solve_left(c, b, lower=False, transpose_a=True)
        x = triangular.solve_left(c, y, lower=False)
    return x[..., 0] if vector else x


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """(lu, piv) as LAPACK's getrf: row i was swapped with row piv[i]."""
    del overwrite_a, check_finite
    factors, pivots, _ = _lu.lu(a)
    return factors, pivots


def lu_solve(lu_and_piv, b, trans=0, overwrite_b: bool = False, check_finite: bool = True):
    """x with ``a x = b`` (or ``a^T x = b``) from ``lu_factor(a)``."""
    del overwrite_b, check_finite
    factors, pivots = lu_and_piv
    factors, b = promote_dtypes_inexact(cr.asarray(factors), cr.asarray(b))
    b, vector = _vector_rhs(b)
    permutation = _lu.pivots_to_permutation(cr.asarray(pivots), factors.shape[-2])
    x = _lu.solve_with_factors(factors, permutation, b, transpose=_trans(trans))
    return x[..., 0] if vector else x


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """(p, l, u) with ``a = p @ l @ u``, or (p @ l, u) if ``permute_l``."""
    del overwrite_a, check_finite
    factors, _, permutation = _lu.lu(a)
    m, n = factors.shape[-2:]
    k = min(m, n)
    lower = joining.tril(factors[..., :, :k], -1) + cr.eye(m, k, dtype=factors.dtype)
    upper = joining.triu(factors[..., :k, :])
    p = _lu.permutation_matrix(permutation, factors.dtype).swapaxes(-1, -2)
    if permute_l:
        return linalg_ops.matmul(p, lower), upper
    return p, lower, upper


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """scipy's modes: "full" (q m x m), "economic" (q m x k), "r" (r alone, m x n), "raw"
    is not supported."""
    del overwrite_a, lwork, check_finite
    if pivoting:
        raise TypeError("qr: pivoting=True is not supported")
    modes = {"full": "complete", "economic": "reduced"}
    if mode == "r":
        return (decompositions.qr(a, "complete")[1],)
    if mode not in modes:
        raise ValueError(f"qr: mode must be 'full', 'economic' or 'r', got {mode!r}")
    return tuple(decompositions.qr(a, modes[mode]))


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,  # noqa: A002
         check_finite: bool = True):
    """Eigenvalues (and eigenvectors) of symmetric ``a``; ``b`` (the generalized problem)
    is not supported."""
    del overwrite_a, overwrite_b, turbo, type, check_finite
    if b is not None or eigvals is not None:
        raise TypeError("eigh: the generalized problem (b) and eigvals are not supported")
    w, v = decompositions.eigh(a, "L" if lower else "U", symmetrize_input=False)
    return w if eigvals_only else (w, v)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """``a = u diag(s) vh``; s alone if not ``compute_uv``."""
    del overwrite_a, check_finite, lapack_driver
    out = _svd.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    del overwrite_a, check_finite
    return solvers.det(a)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    del overwrite_a, check_finite
    return solvers.inv(a)


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    """x with ``a x = b``: LU for "gen", Cholesky for "pos" (and "sym"/"her", which
    scipy's LDL handles, through LU here)."""
    del overwrite_a, overwrite_b, debug, check_finite
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(f"solve: assume_a must be 'gen', 'sym', 'her' or 'pos', got {assume_a!r}")
    if assume_a == "pos":
        return cho_solve(cho_factor(a, lower=lower), b)
    b, vector = _vector_rhs(b)
    x = solvers.solve(a, b)
    return x[..., 0] if vector else x


# --- the matrix exponential -------------------------------------------------------------------

#: Higham (2005): the [13/13] Pade approximant is accurate to unit roundoff in double
#: precision for ||A||_1 <= THETA_13.
_PADE_13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
            129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
            40840800., 960960., 16380., 182., 1.)
THETA_13 = 5.371920351148152
#: Squarings are applied under a mask up to this many: enough for ||A||_1 up to
#: THETA_13 * 2**60.
MAX_SQUARINGS = 60


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):  # noqa: N803
    """The matrix exponential (scaling and squaring with the [13/13] Pade approximant);
    differentiable. ``max_squarings`` bounds the squarings as JAX's does: a matrix whose
    1-norm needs more gives NaN."""
    del upper_triangular
    a = masks.as_square_matrix("expm", A)
    n = a.shape[-1]
    eye = cr.zeros_like(a) + cr.eye(n, dtype=a.dtype)
    norm1 = red.max(red.sum(uf.abs(a), axis=-2), axis=-1)
    squarings = uf.maximum(0, uf.ceil(uf.log2(masks.safe_divide(norm1, THETA_13))))
    squarings = uf.where(norm1 == 0, 0, squarings)
    scaled = a / uf.exp2(squarings)[..., None, None]
    b = _PADE_13
    a2 = linalg_ops.matmul(scaled, scaled)
    a4 = linalg_ops.matmul(a2, a2)
    a6 = linalg_ops.matmul(a4, a2)
    u = linalg_ops.matmul(scaled, linalg_ops.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
                          + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = linalg_ops.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) \
        + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = solvers.solve(v - u, v + u)

    def square(i, r):
        return uf.where((i < squarings)[..., None, None], linalg_ops.matmul(r, r), r)

    r = fori_loop(0, max_squarings, square, r)
    return uf.where((squarings > max_squarings)[..., None, None], np.nan, r)


# --- special matrices -------------------------------------------------------------------------


def block_diag(*arrs):
    """The block-diagonal matrix of the (at most 2-D) arrays."""
    if not arrs:
        return cr.zeros((1, 0))
    blocks = [cr.asarray(x) for x in arrs]
    blocks = [x.reshape(1, -1) if x.ndim < 2 else x for x in blocks]
    if any(x.ndim != 2 for x in blocks):
        raise core.value_error("block_diag: arguments must have dimension at most 2")
    cols = sum(x.shape[1] for x in blocks)
    rows, offset = [], 0
    for x in blocks:
        rows.append(joining.pad(x, ((0, 0), (offset, cols - offset - x.shape[1]))))
        offset += x.shape[1]
    return joining.concatenate(rows, axis=0)


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (default c)."""
    c = reshaping.ravel(cr.asarray(c))
    r = c if r is None else reshaping.ravel(cr.asarray(r))
    values = joining.concatenate([joining.flip(r[1:], axis=0), c])  # r reversed, then c
    i = np.arange(c.shape[0])[:, None]
    j = np.arange(r.shape[0])[None, :]
    return joining.take(values, cr.asarray(r.shape[0] - 1 + i - j))


def circulant(c):
    """The circulant matrix whose first column is ``c``."""
    c = reshaping.ravel(cr.asarray(c))
    n = c.shape[0]
    index = (np.arange(n)[:, None] - np.arange(n)[None, :]) % n
    return joining.take(c, cr.asarray(index))


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (default zeros)."""
    c = reshaping.ravel(cr.asarray(c))
    r = cr.zeros_like(c) if r is None else reshaping.ravel(cr.asarray(r))
    values = joining.concatenate([c, r[1:]])
    index = np.arange(c.shape[0])[:, None] + np.arange(r.shape[0])[None, :]
    return joining.take(values, cr.asarray(index))


def hilbert(n: int):
    """The n x n Hilbert matrix 1 / (i + j + 1)."""
    i = np.arange(n)
    return cr.asarray(1.0 / (i[:, None] + i[None, :] + 1), dtype=cr.asarray(1.0).dtype)


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a`` (highest first)."""
    a = reshaping.ravel(cr.asarray(a))
    if a.shape[0] < 2:
        raise core.value_error("companion: a must have at least two coefficients")
    n = a.shape[0] - 1
    (a,) = promote_dtypes_inexact(a)
    first = -a[1:] / a[0]
    below = cr.eye(n - 1, n, dtype=a.dtype)
    return joining.concatenate([first[None, :], below], axis=0)


def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """(u, p) with a = u p (side "right") or a = p u ("left"). Both methods compute it
    from the SVD here (the decomposition is unique for a nonsingular ``a``)."""
    del eps, max_iterations
    if side not in ("right", "left"):
        raise ValueError(f"polar: side must be 'right' or 'left', got {side!r}")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"polar: method must be 'qdwh' or 'svd', got {method!r}")
    u_svd, s, vt = _svd.svd(a, full_matrices=False)
    unitary = linalg_ops.matmul(u_svd, vt)
    if side == "right":
        p = linalg_ops.matmul(vt.swapaxes(-1, -2) * s[..., None, :], vt)
    else:
        p = linalg_ops.matmul(u_svd * s[..., None, :], u_svd.swapaxes(-1, -2))
    return unitary, p


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None):
    """The eigenvalues of the symmetric tridiagonal matrix with diagonal ``d`` and
    off-diagonal ``e`` (only ``eigvals_only=True`` and ``select="a"``, as JAX)."""
    del tol
    if not eigvals_only or select != "a" or select_range is not None:
        raise TypeError("eigh_tridiagonal: only eigvals_only=True with select='a' is supported, "
                        "as in JAX")
    d, e = promote_dtypes_inexact(cr.asarray(d), cr.asarray(e))
    n = d.shape[-1]
    matrix = (d[..., :, None] * cr.eye(n, dtype=d.dtype)
              + joining.pad(e[..., :, None] * cr.eye(n - 1, dtype=d.dtype),
                            [(0, 0)] * (e.ndim - 1) + [(1, 0), (0, 1)]))
    matrix = matrix + joining.tril(matrix, -1).swapaxes(-1, -2)
    return decompositions.eigvalsh(matrix)

