/*===- lapack_internal.h - what lapack.c shares with the other routines ---===*
 *
 * lapack.c loads LAPACK (one loader for every routine) and keeps the
 * helpers each routine file needs: the precision index, the checks of a
 * call's buffers, the row- to column-major transpose, NaN fills and the
 * loop over a batch (OpenBLAS's threads off for small matrices). Not part
 * of the runtime's interface.
 *
 * All integers are ILP64 (int64_t, LOGICAL included); Fortran's hidden
 * string lengths trail the arguments as size_t.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SERVICES_LIBRARY_LAPACK_INTERNAL_H
#define NLRT_SERVICES_LIBRARY_LAPACK_INTERNAL_H

#include "library_calls.h"

#include <stddef.h>
#include <stdint.h>

typedef void (*potrf_fn)(const char *uplo, const int64_t *n, void *a,
                         const int64_t *lda, int64_t *info, size_t uplo_len);
typedef void (*getrf_fn)(const int64_t *m, const int64_t *n, void *a,
                         const int64_t *lda, int64_t *ipiv, int64_t *info);
typedef void (*trsm_fn)(const char *side, const char *uplo, const char *transa,
                        const char *diag, const int64_t *m, const int64_t *n,
                        const void *alpha, const void *a, const int64_t *lda,
                        void *b, const int64_t *ldb, size_t side_len,
                        size_t uplo_len, size_t transa_len, size_t diag_len);
typedef void (*geqrf_fn)(const int64_t *m, const int64_t *n, void *a,
                         const int64_t *lda, void *tau, void *work,
                         const int64_t *lwork, int64_t *info);
/* orgqr (real) and ungqr (complex) */
typedef void (*orgqr_fn)(const int64_t *m, const int64_t *n, const int64_t *k,
                         void *a, const int64_t *lda, const void *tau,
                         void *work, const int64_t *lwork, int64_t *info);
typedef void (*syevd_fn)(const char *jobz, const char *uplo, const int64_t *n,
                         void *a, const int64_t *lda, void *w, void *work,
                         const int64_t *lwork, int64_t *iwork,
                         const int64_t *liwork, int64_t *info, size_t jobz_len,
                         size_t uplo_len);
typedef void (*heevd_fn)(const char *jobz, const char *uplo, const int64_t *n,
                         void *a, const int64_t *lda, void *w, void *work,
                         const int64_t *lwork, void *rwork,
                         const int64_t *lrwork, int64_t *iwork,
                         const int64_t *liwork, int64_t *info, size_t jobz_len,
                         size_t uplo_len);
typedef void (*gesdd_real_fn)(const char *jobz, const int64_t *m,
                              const int64_t *n, void *a, const int64_t *lda,
                              void *s, void *u, const int64_t *ldu, void *vt,
                              const int64_t *ldvt, void *work,
                              const int64_t *lwork, int64_t *iwork,
                              int64_t *info, size_t jobz_len);
typedef void (*gesdd_complex_fn)(const char *jobz, const int64_t *m,
                                 const int64_t *n, void *a, const int64_t *lda,
                                 void *s, void *u, const int64_t *ldu,
                                 void *vt, const int64_t *ldvt, void *work,
                                 const int64_t *lwork, void *rwork,
                                 int64_t *iwork, int64_t *info,
                                 size_t jobz_len);
typedef void (*geev_real_fn)(const char *jobvl, const char *jobvr,
                             const int64_t *n, void *a, const int64_t *lda,
                             void *wr, void *wi, void *vl, const int64_t *ldvl,
                             void *vr, const int64_t *ldvr, void *work,
                             const int64_t *lwork, int64_t *info,
                             size_t jobvl_len, size_t jobvr_len);
typedef void (*geev_complex_fn)(const char *jobvl, const char *jobvr,
                                const int64_t *n, void *a, const int64_t *lda,
                                void *w, void *vl, const int64_t *ldvl,
                                void *vr, const int64_t *ldvr, void *work,
                                const int64_t *lwork, void *rwork,
                                int64_t *info, size_t jobvl_len,
                                size_t jobvr_len);
/* `select` is never called with sort = 'N'; NULL is passed. */
typedef void (*gees_real_fn)(const char *jobvs, const char *sort,
                             const void *select, const int64_t *n, void *a,
                             const int64_t *lda, int64_t *sdim, void *wr,
                             void *wi, void *vs, const int64_t *ldvs,
                             void *work, const int64_t *lwork, int64_t *bwork,
                             int64_t *info, size_t jobvs_len, size_t sort_len);
typedef void (*gees_complex_fn)(const char *jobvs, const char *sort,
                                const void *select, const int64_t *n, void *a,
                                const int64_t *lda, int64_t *sdim, void *w,
                                void *vs, const int64_t *ldvs, void *work,
                                const int64_t *lwork, void *rwork,
                                int64_t *bwork, int64_t *info,
                                size_t jobvs_len, size_t sort_len);

typedef int (*set_threads_fn)(int threads);

/* One entry per precision in the order s, d, c, z. Where the real and
 * complex routines differ in their arguments, a pair of real ones (s, d)
 * is followed directly by the pair of complex ones (c, z): the loader
 * fills the four slots in a row. */
typedef struct lapack_functions {
  potrf_fn potrf[4];
  getrf_fn getrf[4];
  trsm_fn trsm[4];
  geqrf_fn geqrf[4];
  orgqr_fn orgqr[4]; /* sorgqr, dorgqr, cungqr, zungqr */
  syevd_fn syevd[2];
  heevd_fn heevd[2];
  gesdd_real_fn gesdd_real[2];
  gesdd_complex_fn gesdd_complex[2];
  geev_real_fn geev_real[2];
  geev_complex_fn geev_complex[2];
  gees_real_fn gees_real[2];
  gees_complex_fn gees_complex[2];
  /* OpenBLAS's openblas_set_num_threads_local, where it has one. */
  set_threads_fn set_threads_local;
} lapack_functions;

/* Filled once nlrt_lapack_available() has returned NLRT_OK. */
extern lapack_functions nlrt_lapack;

/* The precision index (s, d, c, z) of a float or complex dtype, or -1. */
int nlrt_lapack_precision_of(nlrt_dtype dtype);

/* Whether two buffers have one dtype and one shape. */
int nlrt_lapack_same_shape(const nlrt_library_buffer *a,
                           const nlrt_library_buffer *b);

/* NLRT_INTERNAL: the call does not fit the routine's contract. */
nlrt_status nlrt_lapack_malformed(const nlrt_library_call *call,
                                  const char *why);

/* The transpose of the rows x cols row-major matrix `from` (elements of
 * `size` bytes) into `to`: `from` laid out column-major. */
void nlrt_lapack_transpose(const char *from, char *to, int64_t rows,
                           int64_t cols, size_t size);

/* Every element of the n-element `data` NaN (complex: NaN + NaN i, as jax). */
void nlrt_lapack_fill_nan(void *data, int64_t n, nlrt_dtype dtype);

/* One matrix of a batch, on thread `thread` of the loop (0 <= thread <
 * the loop's thread count), for per-thread scratch. */
typedef void (*nlrt_lapack_matrix_fn)(void *context, int thread,
                                      int64_t index);

/* How many threads nlrt_lapack_for_each_matrix uses for `batch` matrices
 * of `elements` elements whose work is about elements * order
 * multiply-adds each (a routine sizes per-thread scratch by it). */
int nlrt_lapack_batch_threads(int64_t batch, int64_t elements, int64_t order);

/* fn(context, thread, index) for every matrix of the batch, on `threads`
 * threads from nlrt_lapack_batch_threads. Small matrices run with
 * OpenBLAS's threads off; large ones one after another on the calling
 * thread, with OpenBLAS's threads inside. */
void nlrt_lapack_for_each_matrix(int64_t batch, int64_t elements,
                                 int threads, nlrt_lapack_matrix_fn fn,
                                 void *context);

#endif /* NLRT_SERVICES_LIBRARY_LAPACK_INTERNAL_H */
