"""jax.numpy.linalg's decompositions: signatures, result types and dtype handling."""

from __future__ import annotations

from typing import NamedTuple

from numlir._src.linalg import cholesky as _cholesky
from numlir._src.linalg import eigh as _eigh
from numlir._src.linalg import qr as _qr
from numlir._src.linalg import svd as _svd


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """The Cholesky factor of symmetric positive definite (..., n, n) ``a``: lower L with
    ``a = L @ L.T``, or upper U with ``a = U.T @ U``; NaN where ``a`` is not positive
    definite, as ``jax.numpy.linalg.cholesky``.

    Example::

        >>> jnp.linalg.cholesky(jnp.array([[4.0, 2.0], [2.0, 5.0]]))
        Array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    return _cholesky.cholesky(a, lower=not upper, symmetrize_input=symmetrize_input)


def qr(a, mode: str = "reduced"):
    """Q and R with ``a = Q @ R`` (Householder, LAPACK's signs): ``mode`` "reduced",
    "complete" or "r" (R alone)."""
    out = _qr.qr(a, mode)
    return out if mode == "r" else QRResult(*out)


def _uplo(UPLO) -> bool:  # noqa: N803 - numpy's name
    if UPLO is None or UPLO == "L":
        return True
    if UPLO == "U":
        return False
    raise ValueError(f"UPLO must be 'L' or 'U', got {UPLO!r}")


def eigh(a, UPLO=None, symmetrize_input: bool = True):  # noqa: N803
    """Eigenvalues (ascending, real) and eigenvectors (columns) of symmetric or Hermitian
    (..., n, n) ``a`` (cyclic Jacobi), with JAX's derivative rule."""
    w, v = _eigh.eigh(a, lower=_uplo(UPLO), symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input: bool = True):  # noqa: N803
    """The eigenvalues of symmetric or Hermitian ``a``, ascending and real."""
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
    """``a = U @ diag(S) @ Vh`` for real or complex (..., m, n) ``a`` (one-sided Jacobi), S
    real and descending; S alone if not ``compute_uv``. Derivatives follow JAX's rule
    (reduced matrices).

    Example::

        >>> jnp.linalg.svd(jnp.array([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
        Array([4., 3.], dtype=float32)
    """
    del hermitian  # the same factorization serves
    if subset_by_index is not None:
        raise TypeError("svd: subset_by_index is not supported; slice the result instead")
    out = _svd.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return SVDResult(*out) if compute_uv else out


def svdvals(x, /):
    """The singular values of ``x``, descending."""
    return _svd.svd(x, full_matrices=False, compute_uv=False)


__all__ = ["EighResult", "QRResult", "SVDResult", "cholesky", "eigh", "eigvalsh", "qr", "svd",
           "svdvals"]
