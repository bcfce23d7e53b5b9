"""numlir.scipy.linalg: linear algebra, as jax.scipy.linalg (eigh and svd take real matrices;
the solves, Cholesky, LU, QR, expm, schur, rsf2csf, sqrtm and funm complex ones too)."""

from numlir._src.scipy.linalg import (block_diag, cho_factor, cho_solve, cholesky, circulant, companion,
                                      det, eigh, eigh_tridiagonal, expm, expm_frechet, funm, hankel,
                                      hessenberg, hilbert, inv, lu, lu_factor, lu_solve, polar, qr,
                                      qr_multiply, rsf2csf, schur, solve, solve_sylvester,
                                      solve_triangular, sqrtm, svd, toeplitz)
from numlir._src.scipy.linalg_special_matrices import (convolution_matrix, dft, fiedler, fiedler_companion,
                                                       hadamard, helmert, invhilbert, invpascal, leslie,
                                                       pascal)

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
           "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm", "expm_frechet", "fiedler",
           "fiedler_companion", "funm", "hadamard", "hankel", "helmert", "hessenberg", "hilbert", "inv",
           "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve", "pascal", "polar", "qr",
           "qr_multiply", "rsf2csf", "schur", "solve", "solve_sylvester", "solve_triangular", "sqrtm", "svd",
           "toeplitz"]

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
