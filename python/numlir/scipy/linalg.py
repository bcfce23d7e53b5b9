"""numlir.scipy.linalg: linear algebra, as jax.scipy.linalg (real matrices)."""

from numlir._src.scipy.linalg import (block_diag, cho_factor, cho_solve, cholesky, circulant, companion,
                                      det, eigh, eigh_tridiagonal, expm, hankel, hilbert, inv, lu,
                                      lu_factor, lu_solve, polar, qr, solve, solve_triangular, svd,
                                      toeplitz)

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion", "det", "eigh",
           "eigh_tridiagonal", "expm", "hankel", "hilbert", "inv", "lu", "lu_factor", "lu_solve", "polar",
           "qr", "solve", "solve_triangular", "svd", "toeplitz"]

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
