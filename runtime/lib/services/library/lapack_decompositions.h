/*===- lapack_decompositions.h - QR, eigh, SVD, eig, Schur through LAPACK -===*
 *
 * Library routines over batches of row-major (..., m, n) matrices of f32,
 * f64, complex64 or complex128, with the contracts hlo.custom_call's
 * verifier checks (dialects/hlo/lib/IR/HLOCustomCallOps.cpp). LAPACK comes
 * from lapack.c's loader (lapack.h); availability is
 * nlrt_lapack_available. A matrix with a non-finite entry, or on which
 * LAPACK reports a failure, gives NaN results (NaN + NaN i for complex
 * ones), as jax's decompositions.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SERVICES_LIBRARY_LAPACK_DECOMPOSITIONS_H
#define NLRT_SERVICES_LIBRARY_LAPACK_DECOMPOSITIONS_H

#include "library_calls.h"

/* lapack.geqrf: a (..., m, n) -> (R on and above the diagonal with the
 * Householder reflectors below it, as geqrf stores them; taus (..., k),
 * k = min(m, n)). */
nlrt_status nlrt_lapack_geqrf(const nlrt_library_call *call);

/* lapack.orgqr: (reflectors (..., m, n), taus (..., k)), m >= n >= k ->
 * the first n columns of Q = H_1 ... H_k (orgqr, ungqr). */
nlrt_status nlrt_lapack_orgqr(const nlrt_library_call *call);

/* lapack.syevd: Hermitian a (..., n, n), config [lower: the triangle read]
 * -> (eigenvectors as columns, eigenvalues (..., n) ascending, real)
 * (syevd, heevd). */
nlrt_status nlrt_lapack_syevd(const nlrt_library_call *call);

/* lapack.gesdd: a (..., m, n), config [full_matrices, compute_uv] -> s
 * (..., k) real descending, then with compute_uv u (..., m, m or k) and
 * vh (..., n or k, n); an empty matrix gives identities. */
nlrt_status nlrt_lapack_gesdd(const nlrt_library_call *call);

/* lapack.geev: a (..., n, n), config [compute_right_vectors] -> w (..., n)
 * complex, then with vectors the right eigenvectors (..., n, n) complex,
 * as geev normalizes them (unit 2-norm, largest component real). */
nlrt_status nlrt_lapack_geev(const nlrt_library_call *call);

/* lapack.gees: a (..., n, n) -> (t, z), a = z t z^H: the real Schur form
 * (2 x 2 blocks for complex pairs) of real a, the complex one of complex
 * a; eigenvalues unsorted. */
nlrt_status nlrt_lapack_gees(const nlrt_library_call *call);

#endif /* NLRT_SERVICES_LIBRARY_LAPACK_DECOMPOSITIONS_H */
