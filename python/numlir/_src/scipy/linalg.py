"""jax.scipy.linalg: factor-and-solve pairs for real matrices, expm, special matrices, the
real and complex Schur forms and the matrix functions built on the complex one (sqrtm, funm)."""

from __future__ import annotations

import functools

import numpy as np

from numlir._src import core, dtypes
from numlir._src.forward_mode import jvp
from numlir._src.jit import jit
from numlir._src.lax.elementwise import no_derivative, stop_gradient
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import cholesky as _cholesky
from numlir._src.linalg import decompositions, masks, solvers, triangular
from numlir._src.linalg import lu as _lu
from numlir._src.linalg import qr as _qr
from numlir._src.linalg import svd as _svd
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops, joining, linalg_ops, reshaping
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf
from numlir._src.numpy.util import promote_dtypes_inexact
from numlir._src.scipy import linalg_complex_schur, linalg_matrix_functions, linalg_schur


def _vector_rhs(b):
    b = cr.asarray(b)
    return (b[..., None], True) if b.ndim == 1 else (b, False)


def _trans(trans) -> tuple[bool, bool]:
    """(transpose, conjugate) for scipy's ``trans``: 0/"N" a, 1/"T" a^T, 2/"C" a^H."""
    if trans in (0, "N"):
        return False, False
    if trans in (1, "T"):
        return True, False
    if trans in (2, "C"):
        return True, True
    raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    """x with ``a x = b`` (``trans``: ``a^T x = b``, or ``a^H x = b`` for 2/"C") for
    triangular ``a``; b (n,) or (n, k)."""
    del overwrite_b, debug, check_finite
    a, b = promote_dtypes_inexact(cr.asarray(a), cr.asarray(b))
    a = masks.as_square_matrix("solve_triangular", a, allow_complex=True)
    b, vector = _vector_rhs(b)
    transpose, conjugate = _trans(trans)
    x = triangular.solve_left(a, b, lower=lower, transpose_a=transpose, conjugate_a=conjugate,
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
    if lower:  # a = L L^H
        y = triangular.solve_left(c, b, lower=True)
        x = triangular.solve_left(c, y, lower=True, transpose_a=True, conjugate_a=True)
    else:  # a = U^H U
        y = triangular.solve_left(c, b, lower=False, transpose_a=True, conjugate_a=True)
        x = triangular.solve_left(c, y, lower=False)
    return x[..., 0] if vector else x


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """(lu, piv) as LAPACK's getrf: row i was swapped with row piv[i]."""
    del overwrite_a, check_finite
    factors, pivots, _ = _lu.lu(a)
    return factors, pivots


def lu_solve(lu_and_piv, b, trans=0, overwrite_b: bool = False, check_finite: bool = True):
    """x with ``a x = b`` (or ``a^T x = b``, ``a^H x = b``, as ``trans`` says) from
    ``lu_factor(a)``."""
    del overwrite_b, check_finite
    factors, pivots = lu_and_piv
    factors, b = promote_dtypes_inexact(cr.asarray(factors), cr.asarray(b))
    b, vector = _vector_rhs(b)
    permutation = _lu.pivots_to_permutation(cr.asarray(pivots), factors.shape[-2])
    transpose, conjugate = _trans(trans)
    x = _lu.solve_with_factors(factors, permutation, b, transpose=transpose,
                               conjugate=conjugate)
    return x[..., 0] if vector else x


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """(p, l, u) with ``a = p @ l @ u``, or (p @ l, u) if ``permute_l``."""
    del overwrite_a, check_finite
    factors, _, permutation = _lu.lu(a)
    m, n = factors.shape[-2:]
    k = min(m, n)
    lower = joining.tril(factors[..., :, :k], -1) + cr.eye(m, k, dtype=factors.dtype)
    upper = joining.triu(factors[..., :k, :])
    # p is real even for complex a, as JAX's
    real_dtype = np.finfo(factors.dtype).dtype
    p = _lu.permutation_matrix(permutation, real_dtype).swapaxes(-1, -2)
    if permute_l:
        return linalg_ops.matmul(p, lower), upper
    return p, lower, upper


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """scipy's modes: "full" (q m x m), "economic" (q m x k), "r" (r alone, m x n); with
    ``pivoting`` also the column permutation p (int32), ``a[:, p] = q @ r``, LAPACK's geqp3
    choices (the remaining column of largest norm first). "raw" is not supported.

    Example::

        >>> q, r, p = jsl.qr(jnp.array([[1., 4.], [2., 3.]]), pivoting=True)
        >>> p
        Array([1, 0], dtype=int32)
    """
    del overwrite_a, lwork, check_finite
    modes = {"full": "complete", "economic": "reduced", "r": "complete"}
    if mode not in modes:
        raise ValueError(f"qr: mode must be 'full', 'economic' or 'r', got {mode!r}")
    if pivoting:
        a = masks.as_float_matrix("qr", a, allow_complex=True)
        q, r, p = _qr.pivoted_householder_qr(a)
        if mode == "r":
            return r, p
        if mode == "economic":
            k = min(a.shape[-2:])
            q, r = q[..., :, :k], r[..., :k, :]
        return q, r, p
    if mode == "r":
        return (decompositions.qr(a, "complete")[1],)
    return tuple(decompositions.qr(a, modes[mode]))


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """(q @ c, r) (``mode="left"``, c (..., k, p)) or (c @ q, r) (``mode="right"``, c
    (..., p, m)) for ``a = q r`` (..., m, n), k = min(m, n), r (..., k, n); with
    ``pivoting`` the column permutation too. ``conjugate`` puts conj(q) in place of q. A
    1-D c is a column (left) or row (right) vector and the product comes back 1-D.

    Example::

        >>> a = jnp.array([[1., 1.], [1., 2.], [1., 3.], [1., 4.]])
        >>> qtb, r = jsl.qr_multiply(a, jnp.array([2., 4., 5., 4.]))
        >>> jsl.solve_triangular(r, qtb)   # the least-squares fit
        Array([2.5, 0.5], dtype=float32)
    """
    del overwrite_a, overwrite_c
    a, c = promote_dtypes_inexact(cr.asarray(a), cr.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    a = masks.as_float_matrix("qr_multiply", a, allow_complex=True)
    vector = c.ndim == 1
    if vector:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise core.value_error(
            f"Array shapes are not compatible for Q @ c operation: a has shape {a.shape} so Q "
            f"has {k} columns, but c has {c.shape[-2]} rows (expected {k}).")
    if mode == "right" and c.shape[-1] != m:
        raise core.value_error(
            f"Array shapes are not compatible for c @ Q operation: a has shape {a.shape} so Q "
            f"has {m} rows, but c has {c.shape[-1]} columns (expected {m}).")
    return _qr_multiply(a, c, mode, pivoting, vector, conjugate)


@functools.partial(jit, static_argnums=(2, 3, 4, 5))
def _qr_multiply(a, c, mode: str, pivoting: bool, vector: bool, conjugate: bool):
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = tuple(np.broadcast_shapes(a.shape[:-2], c.shape[:-2]))
    a = reshaping.broadcast_to(a, batch + a.shape[-2:])
    c = reshaping.broadcast_to(c, batch + c.shape[-2:])
    if pivoting:
        q, r, p = _qr.pivoted_householder_qr(a)
    else:
        q, r = decompositions.qr(a, "complete")
    if conjugate:  # scipy's conjugate multiplies by conj(Q), not Q^H
        q = float_ops.conj(q)
    product = (linalg_ops.matmul(q[..., :, :k], c) if mode == "left"
               else linalg_ops.matmul(c, q)[..., :k])
    if vector:
        product = reshaping.ravel(product)
    r = r[..., :k, :]
    return (product, r, p) if pivoting else (product, r)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,  # noqa: A002
         check_finite: bool = True):
    """Eigenvalues (and eigenvectors) of symmetric or Hermitian ``a`` (of its Hermitian
    part, as jax); ``b`` (the generalized problem) is not supported."""
    del overwrite_a, overwrite_b, turbo, type, check_finite
    if b is not None or eigvals is not None:
        raise TypeError("eigh: the generalized problem (b) and eigvals are not supported")
    # as jax's, which calls lax.linalg.eigh with its default symmetrize_input=True: the
    # Hermitian part (a + a^H) / 2 is factored, whatever ``lower`` says
    w, v = decompositions.eigh(a, "L" if lower else "U", symmetrize_input=True)
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
    a = masks.as_square_matrix("expm", A, allow_complex=True)
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
    # p is Hermitian positive semidefinite: V S V^H, or U S U^H for side "left"
    if side == "right":
        p = linalg_ops.matmul(masks.adjoint(vt) * s[..., None, :], vt)
    else:
        p = linalg_ops.matmul(u_svd * s[..., None, :], masks.adjoint(u_svd))
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


# --- Hessenberg and Schur forms, the Sylvester equation ---------------------------------------


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Hessenberg form h of (..., n, n) ``a`` (zero below the first subdiagonal), and
    with ``calc_q`` the orthogonal (unitary, for complex ``a``) q with ``a = q @ h @ q^H``:
    Householder reflectors with LAPACK's conventions (gehrd), so both match jax's and
    scipy's to rounding; a complex h has a real subdiagonal, as LAPACK's. Differentiable
    through the reflections (jax has no derivative here).

    Example::

        >>> h, q = jsl.hessenberg(a, calc_q=True)
        >>> jnp.allclose(q @ h @ q.conj().T, a, atol=1e-5)
        Array(True, dtype=bool)
    """
    del overwrite_a, check_finite
    a = masks.as_square_matrix("hessenberg", a, allow_complex=True)
    if masks.is_complex(a):
        h, q = linalg_complex_schur.complex_hessenberg_form(a)
    else:
        h, q = linalg_schur.hessenberg_form(a)
    return (h, q) if calc_q else h


def schur(a, output: str = "real"):
    """(t, z) with ``a = z @ t @ z^H`` for (..., n, n) ``a``, z orthogonal (unitary).

    ``output="real"`` on a real matrix gives the real Schur form: t quasi upper
    triangular, each 2 x 2 diagonal block holding a complex pair in LAPACK's standard form
    (Francis double-shift QR; the order of the eigenvalues along t's diagonal may differ
    from LAPACK's). ``output="complex"`` gives t upper triangular and complex: for a real
    matrix its real form turned complex by ``rsf2csf``; a complex matrix gets the complex
    form whatever ``output`` says, as in JAX (complex Hessenberg reduction, then
    single-shift QR). The result is complex64 or complex128 as JAX's (integers and
    float16 go to complex64, 64-bit integers to complex128). Not differentiable, as in JAX.

    Example::

        >>> t, z = jsl.schur(jnp.array([[0., 3., 3.], [0., 1., 2.], [2., 0., 1.]]))
        >>> jnp.allclose(z @ t @ z.T, a, atol=1e-5)
        Array(True, dtype=bool)
        >>> tc, zc = jsl.schur(a, output="complex")
        >>> jnp.allclose(zc @ tc @ zc.conj().T, a, atol=1e-5)
        Array(True, dtype=bool)
    """
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    a = masks.as_square_matrix("schur", a, allow_complex=True)
    a = no_derivative(a, "Differentiation rule for 'schur'")
    if output == "complex" or dtypes.is_complex(a.dtype):
        return _complex_schur_form(a)
    return linalg_schur.real_schur(a)


def _complex_schur_form(a):
    """(t, z) with ``a = z t z^H``, t upper triangular: a complex matrix factored directly, a
    real one through its real Schur form and rsf2csf, in the precision of the complex
    dtype JAX gives it (float16 in float32)."""
    if dtypes.is_complex(a.dtype):
        return linalg_complex_schur.complex_schur(a)
    complex_dtype = dtypes.complex_dtype_of(a.dtype)
    t, z = linalg_schur.real_schur(a.astype(dtypes.complex_part_dtype(complex_dtype)))
    return linalg_complex_schur.rsf2csf(t.astype(complex_dtype), z.astype(complex_dtype))


def rsf2csf(T, Z, check_finite: bool = True):
    """The complex Schur form (t, z) of the real Schur form (T, Z) (``schur(a)``): each
    2 x 2 diagonal block of T, a complex pair, is split by a complex Givens rotation, so t
    is upper triangular and ``a = z @ t @ z^H``; both complex64 or complex128. T and Z
    are (..., n, n), their batch dimensions broadcast. Differentiable, as in JAX.

    Example::

        >>> tr, zr = jsl.schur(a)
        >>> tc, zc = jsl.rsf2csf(tr, zr)
        >>> jnp.allclose(zc @ tc @ zc.conj().T, a, atol=1e-5)
        Array(True, dtype=bool)
    """
    del check_finite
    t, z = cr.asarray(T), cr.asarray(Z)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise core.value_error("Input 'T' must be square.")
    if z.ndim < 2 or z.shape[-1] != z.shape[-2]:
        raise core.value_error("Input 'Z' must be square.")
    if t.shape[-1] != z.shape[-1]:
        raise core.value_error(f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
    try:
        batch = tuple(np.broadcast_shapes(t.shape[:-2], z.shape[:-2]))
    except ValueError:
        raise core.value_error(f"rsf2csf: the batch dimensions of T {t.shape} and Z {z.shape} "
                               "do not broadcast") from None
    t, z = promote_dtypes_inexact(t, z)
    complex_dtype = dtypes.complex_dtype_of(t.dtype)
    t, z = (reshaping.broadcast_to(x.astype(complex_dtype), batch + x.shape[-2:]) for x in (t, z))
    return linalg_complex_schur.rsf2csf(t, z)


def _as_single_square_matrix(name: str, a):
    """``a`` checked to be one square matrix (as JAX, sqrtm and funm do not batch: vmap
    them), promoted to an inexact dtype."""
    a = cr.asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise core.value_error(f"{name}: expected a square 2-D matrix, got shape {a.shape} (for "
                               "a batch of matrices, vmap it, as in JAX)")
    (a,) = promote_dtypes_inexact(a)
    return no_derivative(a, "Differentiation rule for 'schur'")


def sqrtm(A, blocksize: int = 1):
    """The principal square root of the (n, n) matrix A, complex as JAX's (complex64 or
    complex128 whatever A's dtype): from the complex Schur form A = Z T Z^H, the upper
    triangular root U of T (Björck & Hammarling's recurrence, ``blocksize=1``) and then
    Z U Z^H. Not differentiable (the Schur form is not), as in JAX.

    Example::

        >>> r = jsl.sqrtm(jnp.array([[4., 1.], [0., 9.]]))
        >>> r.real
        Array([[2. , 0.2],
               [0. , 3. ]], dtype=float32)
    """
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    a = _as_single_square_matrix("sqrtm", A)
    return _sqrtm(a)


@jit
def _sqrtm(a):
    t, z = _complex_schur_form(a)
    root = linalg_matrix_functions.triangular_sqrt(t)
    return linalg_ops.matmul(linalg_ops.matmul(z, root), float_ops.conjugate(z).swapaxes(-1, -2))


def funm(A, func, disp: bool = True):
    """func(A) for the (n, n) matrix A and a scalar function ``func`` (applied elementwise
    to the eigenvalues, so it must take complex arrays): the complex Schur form
    A = Z T Z^H, then F = func(T) by Parlett's recurrence, then Z F Z^H, complex as JAX's.
    Parlett's recurrence divides by differences of eigenvalues, so repeated or close
    eigenvalues give inaccurate or non-finite results, as in JAX and SciPy. With
    ``disp=False`` also JAX's error estimate (a real scalar). Not differentiable.

    Example::

        >>> jnp.allclose(jsl.funm(a, jnp.exp), jsl.expm(a), rtol=1e-4)
        Array(True, dtype=bool)
    """
    a = _as_single_square_matrix("funm", A)
    t, z = _complex_schur_form(a)
    f_diagonal = cr.asarray(func(joining.diagonal(t, axis1=-2, axis2=-1))).astype(t.dtype)
    f, minden = linalg_matrix_functions.parlett(f_diagonal, t)
    f = linalg_ops.matmul(linalg_ops.matmul(z, f), float_ops.conjugate(z).swapaxes(-1, -2))
    if disp:
        return f
    return f, linalg_matrix_functions.parlett_error(f, t, minden)


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """X with ``A @ X + X @ B = C`` for A (..., m, m), B (..., n, n), C (..., m, n), batch
    dimensions broadcast. NaN where some eigenvalues of A and B sum to less than ``tol`` in
    magnitude (the equation is then singular or nearly so), as JAX's.

    Both methods solve the mn x mn system ``(I (x) A + B^T (x) I) vec(X) = vec(C)`` by LU
    with partial pivoting (backward stable; O(m^3 n^3), for small equations); the
    eigenvalues come from the real Schur forms of A and B. Differentiable in A, B and C.

    Example::

        >>> a, b = jnp.array([[2., 1.], [0., 3.]]), jnp.array([[1.]])
        >>> jsl.solve_sylvester(a, b, jnp.array([[1.], [2.]]))
        Array([[0.16666667],
               [0.5       ]], dtype=float32)
    """
    A, B, C = promote_dtypes_inexact(cr.asarray(A), cr.asarray(B), cr.asarray(C))
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise core.value_error(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\n"
                               f"B: {B.shape}\nC: {C.shape}")
    if method not in ("schur", "eigen"):
        raise ValueError(f'Unrecognized method {method}. The two valid methods are either "schur" '
                         'or "eigen".')
    return _solve_sylvester(A, B, C, tol)


@jit
def _solve_sylvester(a, b, c, tol):
    m, n = c.shape[-2:]
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2]))
    a, b, c = (reshaping.broadcast_to(x, batch + x.shape[-2:]) for x in (a, b, c))
    eye_m, eye_n = cr.eye(m, dtype=a.dtype), cr.eye(n, dtype=a.dtype)
    # K[(j, i), (l, k)] = delta_jl a_ik + b_lj delta_ik, vec stacking x's columns
    kron = (eye_n[:, None, :, None] * a[..., None, :, None, :]
            + b.swapaxes(-1, -2)[..., :, None, :, None] * eye_m[None, :, None, :])
    kron = reshaping.reshape(kron, batch + (n * m, n * m))
    vec_c = reshaping.reshape(c.swapaxes(-1, -2), batch + (n * m, 1))
    x = reshaping.reshape(solvers.solve(kron, vec_c), batch + (n, m)).swapaxes(-1, -2)
    # the eigenvalues of a and b, from one Schur form of diag(a, b): its blocks never mix
    both = joining.concatenate([joining.pad(stop_gradient(a), [(0, 0)] * len(batch) + [(0, 0), (0, n)]),
                                joining.pad(stop_gradient(b), [(0, 0)] * len(batch) + [(0, 0), (m, 0)])],
                               axis=-2)
    re, im = linalg_schur.eigenvalue_parts(linalg_schur.real_schur(both)[0])
    sums = uf.hypot(re[..., :m, None] + re[..., None, m:], im[..., :m, None] + im[..., None, m:])
    singular = red.any(sums < tol, axis=(-2, -1))
    return uf.where(singular[..., None, None], np.nan, x)


def expm_frechet(A, E, *, method: str | None = None, compute_expm: bool = True):
    """The Frechet derivative of ``expm`` at A in the direction E (both (..., n, n)): the
    forward-mode derivative of ``expm``; with ``compute_expm`` (default) ``(expm(A), that)``.

    Example::

        >>> expm_a, frechet = jsl.expm_frechet(a, e)
        >>> jnp.allclose(frechet, numlir.jvp(jsl.expm, (a,), (e,))[1])
        Array(True, dtype=bool)
    """
    del method
    A, E = cr.asarray(A), cr.asarray(E)
    if A.ndim < 2 or A.shape[-2] != A.shape[-1]:
        raise core.value_error(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
    if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
        raise core.value_error(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
    if A.shape != E.shape:
        raise core.value_error(f"expected A and E to be the same shape, got A.shape={A.shape} "
                               f"E.shape={E.shape}")
    A, E = promote_dtypes_inexact(A, E)
    return _expm_frechet(A, E, compute_expm)


@functools.partial(jit, static_argnums=2)
def _expm_frechet(a, e, compute_expm: bool):
    expm_a, frechet = jvp(lambda x: expm(x, max_squarings=16), (a,), (e,))
    return (expm_a, frechet) if compute_expm else frechet
