"""numlir.lax.linalg: the factorizations with ``jax.lax.linalg``'s signatures, for real and
complex (..., m, n) matrices, batched over the leading axes.

The algorithms are numlir compositions (numlir._src.linalg, docs/linear-algebra.md) with
LAPACK's conventions, so the factors, LU's pivots and QR's signs are JAX's.

Example::

    >>> import numlir.lax.linalg as lax_linalg
    >>> lax_linalg.cholesky(jnp.array([[4.0, 2.0], [2.0, 5.0]]))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
"""

from __future__ import annotations

from numlir._src.linalg import cholesky as _cholesky
from numlir._src.linalg import eig as _eig
from numlir._src.linalg import lu as _lu
from numlir._src.linalg import masks as _masks
from numlir._src.linalg import qr as _qr
from numlir._src.linalg.triangular import triangular_solve
from numlir._src.numpy import creation as _creation


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor L, ``x = L L^H``; NaN where ``x`` is not positive definite."""
    return _cholesky.cholesky(x, lower=True, symmetrize_input=symmetrize_input)


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation=None):
    """[w, vl, vr] as LAPACK's geev (vl and vr only if asked): eigenvalues, left eigenvectors
    (``vl^H x = w vl^H``) and right ones (``x vr = vr w``), unit columns. The eigenvalues are
    differentiable; the eigenvectors only with ``enable_eigvec_derivs=True``, as in JAX."""
    del implementation
    return _eig.lax_eig(x, compute_left_eigenvectors=compute_left_eigenvectors,
                        compute_right_eigenvectors=compute_right_eigenvectors,
                        enable_eigvec_derivs=enable_eigvec_derivs)


def lu(x):
    """(lu, pivots, permutation) as LAPACK's getrf: ``x[permutation] = L @ U``."""
    return _lu.lu(x)


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The row order the swaps (i, pivots[i]) give, of length ``permutation_size``."""
    return _lu.pivots_to_permutation(_creation.asarray(pivots), permutation_size)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """(q, r) with ``x = q r``: q (..., m, m) and r (..., m, n) if ``full_matrices``, else
    the reduced (..., m, k), (..., k, n), k = min(m, n). With ``pivoting``, (q, r, p) with
    ``x[..., :, p] = q r`` and p (..., n) int32, in LAPACK's geqp3 column order (the
    remaining column of largest norm first), so ``abs(diag(r))`` does not increase.
    Derivatives are JAX's rule, the QR derivative of ``x[..., :, p]``.

    Example::

        >>> q, r, p = lax_linalg.qr(jnp.array([[1., 4.], [2., 3.]]), pivoting=True)
        >>> p
        Array([1, 0], dtype=int32)
    """
    del use_magma
    x = _masks.as_float_matrix("qr", x, allow_complex=True)
    if not pivoting:
        return tuple(_qr.qr(x, "complete" if full_matrices else "reduced"))
    q, r, p = _qr.pivoted_householder_qr(x)
    if not full_matrices:
        k = min(x.shape[-2:])
        q, r = q[..., :, :k], r[..., :k, :]
    return q, r, p


__all__ = ["cholesky", "eig", "lu", "lu_pivots_to_permutation", "qr", "triangular_solve"]

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
