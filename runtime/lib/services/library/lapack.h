/*===- lapack.h - LAPACK routines for library calls -----------------------===*
 *
 * LAPACK is loaded at run time, never linked: numlir builds and imports
 * without one, and a machine without one still runs every executable that
 * does not call it. The runtime loads NUMLIR_LAPACK (a path) when it is set,
 * and nothing else; otherwise the path nlrt_set_lapack_library gave
 * (numlir's Python package gives the OpenBLAS that NumPy's wheel ships),
 * then libopenblas64.so.0. It takes
 * the ILP64 interface (64-bit integers: no size limit below the memory's),
 * under the names OpenBLAS's ILP64 builds export: `scipy_dpotrf_64_` in
 * NumPy's and SciPy's wheels, `dpotrf_64_` in others.
 *
 * Matrices arrive row-major; LAPACK reads them column-major. Each routine
 * says how it bridges the two (lapack.c).
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SERVICES_LIBRARY_LAPACK_H
#define NLRT_SERVICES_LIBRARY_LAPACK_H

#include "library_calls.h"

/* NLRT_OK once LAPACK is loaded; NLRT_UNAVAILABLE with a message that says
 * where it looked otherwise. */
nlrt_status nlrt_lapack_available(void);

/* lapack.potrf: the lower Cholesky factor of each matrix of operand 0
 * (..., n, n); NaN in the lower triangle of a matrix that is not positive
 * definite, as jax's. */
nlrt_status nlrt_lapack_potrf(const nlrt_library_call *call);

/* lapack.getrf: LU with partial pivoting of each (..., m, n) matrix: the
 * factors as getrf stores them, the 0-based pivots (..., min(m, n)) and the
 * row permutation (..., m), both int32, as jax.lax.linalg.lu's. */
nlrt_status nlrt_lapack_getrf(const nlrt_library_call *call);

/* lapack.trsm: X with op(A) X = B (left side) or X op(A) = B, A triangular;
 * config [left_side, lower, transpose (0, 1 T, 2 H), unit_diagonal]. */
nlrt_status nlrt_lapack_trsm(const nlrt_library_call *call);

#endif /* NLRT_SERVICES_LIBRARY_LAPACK_H */
