/*===- lapack_decompositions.c - QR, eigh, SVD, eig and Schur by LAPACK ---===*
 *
 * See lapack_decompositions.h for each routine's contract; lapack.c loads
 * LAPACK and holds the shared helpers. Every routine runs its batch through
 * decompose_batch: one workspace size query, one workspace per thread, and
 * the matrices spread over threads as the LU and Cholesky routines spread
 * theirs (small matrices with OpenBLAS's threads off, large ones one after
 * another with OpenBLAS's threads inside).
 *
 * Matrices arrive row-major. Each routine but gesdd copies a matrix into a
 * column-major scratch (an O(n^2) transpose next to the O(n^3) routine)
 * and its results back; gesdd factors the row-major buffer as it is (see
 * there why that is exact).
 *
 * Workspace comes from a size query (lwork = -1), which reads no matrix,
 * and is allocated for every thread at once with nlrt_host_alloc before any
 * thread starts: an allocation that fails jumps out of the call, which a
 * worker thread must never do.
 *
 * Failures follow jax: a matrix with a NaN or infinite entry, or whose
 * routine reports info != 0 (no convergence), gives NaN in every result of
 * that matrix, NaN + NaN i for complex ones (jax's eigh, svd, eig and
 * schur). LAPACK is never run on non-finite input: its scaling steps would
 * turn the NaN into a long iteration or a reported failure anyway.
 *
 *===----------------------------------------------------------------------===*/

#include "lapack_decompositions.h"
#include "lapack_internal.h"

#include "../host_allocator.h"

#include <math.h>
#include <string.h>

/*--- Helpers ----------------------------------------------------------------*/

static int is_single(int precision) { return precision == 0 || precision == 2; }

static int is_complex(int precision) { return precision >= 2; }

/* The real dtype of a precision's values (eigenvalues, singular values). */
static nlrt_dtype real_dtype(int precision) {
  return is_single(precision) ? NLRT_DTYPE_F32 : NLRT_DTYPE_F64;
}

static nlrt_dtype complex_dtype(int precision) {
  return is_single(precision) ? NLRT_DTYPE_C64 : NLRT_DTYPE_C128;
}

/* The number of float words of `elements` elements of `dtype`. */
static int64_t words(int64_t elements, nlrt_dtype dtype) {
  return dtype == NLRT_DTYPE_C64 || dtype == NLRT_DTYPE_C128 ? 2 * elements
                                                             : elements;
}

static int single_words(nlrt_dtype dtype) {
  return dtype == NLRT_DTYPE_F32 || dtype == NLRT_DTYPE_C64;
}

/* NaN in every word: NaN + NaN i for complex elements, jax's failure value
 * of these decompositions. */
static void fill_nan_everywhere(void *data, int64_t elements,
                                nlrt_dtype dtype) {
  int64_t count = words(elements, dtype);
  for (int64_t i = 0; i < count; ++i) {
    if (single_words(dtype))
      ((float *)data)[i] = NAN;
    else
      ((double *)data)[i] = NAN;
  }
}

static int all_finite(const void *data, int64_t elements, nlrt_dtype dtype) {
  int64_t count = words(elements, dtype);
  for (int64_t i = 0; i < count; ++i) {
    double value = single_words(dtype) ? (double)((const float *)data)[i]
                                       : ((const double *)data)[i];
    if (!isfinite(value))
      return 0;
  }
  return 1;
}

/* The workspace size a query left in its first element (real part for a
 * complex one), at least 1. Single-precision LAPACK before 3.11 rounds a
 * large size down to a float: the margin covers that. */
static int64_t queried_size(const void *first, int precision) {
  double size = is_single(precision) ? (double)*(const float *)first
                                     : *(const double *)first;
  int64_t count = (int64_t)ceil(size * (1.0 + 1e-6));
  return count > 1 ? count : 1;
}

static double load_real(const void *data, int64_t i, int single) {
  return single ? (double)((const float *)data)[i] : ((const double *)data)[i];
}

static void store_complex(void *data, int64_t i, double re, double im,
                          int single) {
  if (single) {
    ((float *)data)[2 * i] = (float)re;
    ((float *)data)[2 * i + 1] = (float)im;
  } else {
    ((double *)data)[2 * i] = re;
    ((double *)data)[2 * i + 1] = im;
  }
}

/* Each rows x cols matrix of the batch the identity's first columns (or
 * rows): SVD's vectors of an empty matrix. */
static void fill_identities(void *data, int64_t batch, int64_t rows,
                            int64_t cols, nlrt_dtype dtype) {
  size_t size = nlrt_library_element_size(dtype);
  int single = single_words(dtype);
  int complex = words(1, dtype) == 2;
  memset(data, 0, (size_t)(batch * rows * cols) * size);
  int64_t diagonal = rows < cols ? rows : cols;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < diagonal; ++i) {
      int64_t at = b * rows * cols + i * cols + i;
      if (complex)
        store_complex(data, at, 1.0, 0.0, single);
      else if (single)
        ((float *)data)[at] = 1.0f;
      else
        ((double *)data)[at] = 1.0;
    }
}

static int batch_of_matrices(const nlrt_library_buffer *buffer, int64_t batch,
                             int64_t rows, int64_t cols, nlrt_dtype dtype) {
  return buffer->dtype == dtype && buffer->elements == batch * rows * cols;
}

/*--- One workspace per thread -----------------------------------------------*/

/* A thread's workspace is up to WORKSPACE_PARTS arrays (the scratch matrix,
 * work, rwork, iwork, ...), each starting on a cache line so that threads
 * never share one. */
#define WORKSPACE_PARTS 6
#define PART_ALIGNMENT 64

typedef struct workspace_layout {
  size_t bytes[WORKSPACE_PARTS]; /* unused parts are 0 */
} workspace_layout;

static size_t aligned(size_t bytes) {
  return (bytes + PART_ALIGNMENT - 1) / PART_ALIGNMENT * PART_ALIGNMENT;
}

static size_t layout_bytes(const workspace_layout *layout) {
  size_t total = 0;
  for (int i = 0; i < WORKSPACE_PARTS; ++i)
    total += aligned(layout->bytes[i]);
  return total;
}

/* One matrix of the batch, with its thread's workspace parts. */
typedef void (*decompose_fn)(const void *job, char *const *parts,
                             int64_t index);

typedef struct decompose_loop {
  const void *job;
  const workspace_layout *layout;
  decompose_fn fn;
  char *workspaces; /* one layout_bytes block per thread */
  size_t stride;
} decompose_loop;

static void decompose_one(void *context, int thread, int64_t index) {
  const decompose_loop *loop = context;
  char *parts[WORKSPACE_PARTS];
  char *cursor = loop->workspaces + (size_t)thread * loop->stride;
  for (int i = 0; i < WORKSPACE_PARTS; ++i) {
    parts[i] = cursor;
    cursor += aligned(loop->layout->bytes[i]);
  }
  loop->fn(loop->job, parts, index);
}

/* fn(job, parts, index) for each of `batch` matrices of `elements` elements
 * and about elements * order multiply-adds of work, spread over threads,
 * each thread with its own workspace of `layout`. */
static void decompose_batch(int64_t batch, int64_t elements, int64_t order,
                            const workspace_layout *layout, decompose_fn fn,
                            const void *job) {
  int threads = nlrt_lapack_batch_threads(batch, elements, order);
  size_t stride = layout_bytes(layout);
  decompose_loop loop = {
      job, layout, fn,
      nlrt_host_aligned_alloc(PART_ALIGNMENT,
                              (size_t)threads * stride + PART_ALIGNMENT),
      stride};
  nlrt_lapack_for_each_matrix(batch, elements, threads, decompose_one, &loop);
  nlrt_host_free(loop.workspaces);
}

/* The decompositions take some ten times an LU's n^3 / 3 multiply-adds:
 * the work per element that decompose_batch weighs. */
static int64_t decomposition_order(int64_t m, int64_t n) {
  return 3 * (m > n ? m : n);
}

/*--- QR ---------------------------------------------------------------------*/

/* geqrf's and orgqr's batch: reflectors or a (m x n) in, out (m x n) and
 * taus (k) */
typedef struct qr_job {
  const char *a;
  char *out, *taus;
  int64_t m, n, k, lwork;
  int precision;
  size_t size;
} qr_job;

enum { QR_MATRIX, QR_WORK }; /* the parts of a thread's workspace */

static workspace_layout qr_layout(const qr_job *job) {
  return (workspace_layout){{(size_t)(job->m * job->n) * job->size,
                             (size_t)job->lwork * job->size}};
}

static void geqrf_matrix(const void *context, char *const *parts,
                         int64_t index) {
  const qr_job *job = context;
  int64_t m = job->m, n = job->n, lda = m, info = 0;
  size_t matrix = (size_t)(m * n) * job->size;
  char *column_major = parts[QR_MATRIX];
  nlrt_lapack_transpose(job->a + (size_t)index * matrix, column_major, m, n,
                        job->size);
  nlrt_lapack.geqrf[job->precision](
      &m, &n, column_major, &lda,
      job->taus + (size_t)(index * job->k) * job->size, parts[QR_WORK],
      &job->lwork, &info);
  nlrt_lapack_transpose(column_major, job->out + (size_t)index * matrix, n, m,
                        job->size);
}

nlrt_status nlrt_lapack_geqrf(const nlrt_library_call *call) {
  if (call->num_operands != 1 || call->num_results != 2 ||
      call->num_config != 0)
    return nlrt_lapack_malformed(call,
                                 "takes one operand, two results, no config");
  const nlrt_library_buffer *a = &call->buffers[0], *out = &call->buffers[1],
                            *taus = &call->buffers[2];
  int p = nlrt_lapack_precision_of(a->dtype);
  if (p < 0 || a->rank < 2 || !nlrt_lapack_same_shape(a, out))
    return nlrt_lapack_malformed(call, "needs float or complex matrices");
  int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1];
  int64_t k = m < n ? m : n, batch = nlrt_library_batch(a, 2);
  if (!batch_of_matrices(taus, batch, 1, k, a->dtype))
    return nlrt_lapack_malformed(call, "needs taus (..., min(m, n))");
  if (batch == 0 || k == 0) /* nothing to factor, no taus */
    return NLRT_OK;
  double query[2];
  int64_t lda = m, lwork = -1, info = 0;
  nlrt_lapack.geqrf[p](&m, &n, a->data, &lda, taus->data, query, &lwork,
                       &info);
  qr_job job = {a->data, out->data, taus->data, m, n, k,
                queried_size(query, p), p, nlrt_library_element_size(a->dtype)};
  workspace_layout layout = qr_layout(&job);
  decompose_batch(batch, m * n, decomposition_order(m, n), &layout,
                  geqrf_matrix, &job);
  return NLRT_OK;
}

static void orgqr_matrix(const void *context, char *const *parts,
                         int64_t index) {
  const qr_job *job = context;
  int64_t m = job->m, n = job->n, k = job->k, lda = m, info = 0;
  size_t matrix = (size_t)(m * n) * job->size;
  char *column_major = parts[QR_MATRIX];
  nlrt_lapack_transpose(job->a + (size_t)index * matrix, column_major, m, n,
                        job->size);
  nlrt_lapack.orgqr[job->precision](
      &m, &n, &k, column_major, &lda,
      job->taus + (size_t)(index * k) * job->size, parts[QR_WORK],
      &job->lwork, &info);
  nlrt_lapack_transpose(column_major, job->out + (size_t)index * matrix, n, m,
                        job->size);
}

nlrt_status nlrt_lapack_orgqr(const nlrt_library_call *call) {
  if (call->num_operands != 2 || call->num_results != 1 ||
      call->num_config != 0)
    return nlrt_lapack_malformed(call,
                                 "takes two operands, one result, no config");
  const nlrt_library_buffer *a = &call->buffers[0], *taus = &call->buffers[1],
                            *q = &call->buffers[2];
  int p = nlrt_lapack_precision_of(a->dtype);
  if (p < 0 || a->rank < 2 || taus->rank != a->rank - 1 ||
      !nlrt_lapack_same_shape(a, q))
    return nlrt_lapack_malformed(call, "needs float or complex reflectors");
  int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1];
  int64_t k = taus->dims[taus->rank - 1], batch = nlrt_library_batch(a, 2);
  if (n > m || k > n || !batch_of_matrices(taus, batch, 1, k, a->dtype))
    return nlrt_lapack_malformed(call, "needs m >= n >= k");
  if (batch == 0 || n == 0)
    return NLRT_OK;
  double query[2];
  int64_t lda = m, lwork = -1, info = 0;
  nlrt_lapack.orgqr[p](&m, &n, &k, a->data, &lda, taus->data, query, &lwork,
                       &info);
  qr_job job = {a->data, q->data, taus->data, m, n, k,
                queried_size(query, p), p, nlrt_library_element_size(a->dtype)};
  workspace_layout layout = qr_layout(&job);
  decompose_batch(batch, m * n, decomposition_order(m, n), &layout,
                  orgqr_matrix, &job);
  return NLRT_OK;
}

/*--- Hermitian eigendecomposition -------------------------------------------*/

typedef struct syevd_job {
  const char *a;
  char *vectors, *values;
  const char *uplo;
  int64_t n, lwork, lrwork, liwork;
  int precision;
  nlrt_dtype dtype;
  size_t size;
} syevd_job;

enum { SYEVD_MATRIX, SYEVD_WORK, SYEVD_RWORK, SYEVD_IWORK };

static void syevd_matrix(const void *context, char *const *parts,
                         int64_t index) {
  const syevd_job *job = context;
  int p = job->precision;
  int64_t n = job->n, info = 0;
  size_t matrix = (size_t)(n * n) * job->size;
  const char *source = job->a + (size_t)index * matrix;
  char *target = job->vectors + (size_t)index * matrix;
  char *w = job->values + (size_t)(index * n) * (is_single(p) ? 4 : 8);
  char *column_major = parts[SYEVD_MATRIX];
  int64_t *iwork = (int64_t *)parts[SYEVD_IWORK];
  if (all_finite(source, n * n, job->dtype)) {
    nlrt_lapack_transpose(source, column_major, n, n, job->size);
    if (is_complex(p))
      nlrt_lapack.heevd[p - 2]("V", job->uplo, &n, column_major, &n, w,
                               parts[SYEVD_WORK], &job->lwork,
                               parts[SYEVD_RWORK], &job->lrwork, iwork,
                               &job->liwork, &info, 1, 1);
    else
      nlrt_lapack.syevd[p]("V", job->uplo, &n, column_major, &n, w,
                           parts[SYEVD_WORK], &job->lwork, iwork,
                           &job->liwork, &info, 1, 1);
  } else {
    info = -1;
  }
  if (info != 0) {
    fill_nan_everywhere(target, n * n, job->dtype);
    fill_nan_everywhere(w, n, real_dtype(p));
    return;
  }
  nlrt_lapack_transpose(column_major, target, n, n, job->size);
}

nlrt_status nlrt_lapack_syevd(const nlrt_library_call *call) {
  if (call->num_operands != 1 || call->num_results != 2 ||
      call->num_config != 1)
    return nlrt_lapack_malformed(call, "takes one operand, two results and "
                                       "config [lower]");
  const nlrt_library_buffer *a = &call->buffers[0],
                            *vectors = &call->buffers[1],
                            *values = &call->buffers[2];
  int p = nlrt_lapack_precision_of(a->dtype);
  if (p < 0 || a->rank < 2 || !nlrt_lapack_same_shape(a, vectors) ||
      a->dims[a->rank - 1] != a->dims[a->rank - 2])
    return nlrt_lapack_malformed(call, "needs square float or complex "
                                       "matrices");
  int64_t n = a->dims[a->rank - 1], batch = nlrt_library_batch(a, 2);
  if (!batch_of_matrices(values, batch, 1, n, real_dtype(p)))
    return nlrt_lapack_malformed(call, "needs real values (..., n)");
  if (batch == 0 || n == 0)
    return NLRT_OK;
  /* The scratch holds A itself column-major, so its lower triangle is the
   * one config names. */
  const char *uplo = call->config[0] ? "L" : "U";
  size_t size = nlrt_library_element_size(a->dtype);
  size_t real_size = is_single(p) ? 4 : 8;
  double query[2], rquery[2];
  int64_t iquery = 0, lwork = -1, lrwork = -1, liwork = -1, info = 0;
  if (is_complex(p))
    nlrt_lapack.heevd[p - 2]("V", uplo, &n, a->data, &n, values->data, query,
                             &lwork, rquery, &lrwork, &iquery, &liwork, &info,
                             1, 1);
  else
    nlrt_lapack.syevd[p]("V", uplo, &n, a->data, &n, values->data, query,
                         &lwork, &iquery, &liwork, &info, 1, 1);
  syevd_job job = {a->data,
                   vectors->data,
                   values->data,
                   uplo,
                   n,
                   queried_size(query, p),
                   is_complex(p) ? queried_size(rquery, p) : 1,
                   iquery > 1 ? iquery : 1,
                   p,
                   a->dtype,
                   size};
  workspace_layout layout = {{(size_t)(n * n) * size,
                              (size_t)job.lwork * size,
                              (size_t)job.lrwork * real_size,
                              (size_t)job.liwork * sizeof(int64_t)}};
  decompose_batch(batch, n * n, decomposition_order(n, n), &layout,
                  syevd_matrix, &job);
  return NLRT_OK;
}

/*--- SVD --------------------------------------------------------------------*/

typedef struct gesdd_job {
  char *a, *s, *u, *vh;
  const char *jobz;
  int vectors;
  /* the row-major m x n matrix as gesdd sees it (see nlrt_lapack_gesdd) */
  int64_t m, n, k, lapack_m, lapack_n, ldu, ldvt, lwork;
  int64_t u_cols, vh_rows;
  int precision;
  nlrt_dtype dtype;
  size_t size;
} gesdd_job;

enum { GESDD_WORK, GESDD_RWORK, GESDD_IWORK };

static void gesdd_matrix(const void *context, char *const *parts,
                         int64_t index) {
  const gesdd_job *job = context;
  int p = job->precision;
  int64_t m = job->m, n = job->n, k = job->k, info = 0;
  char *matrix = job->a + (size_t)(index * m * n) * job->size;
  char *s = job->s + (size_t)(index * k) * (is_single(p) ? 4 : 8);
  double unused[2];
  void *u_b = unused, *vt_b = unused;
  if (job->vectors) {
    u_b = job->vh + (size_t)(index * job->vh_rows * n) * job->size;
    vt_b = job->u + (size_t)(index * m * job->u_cols) * job->size;
  }
  int64_t *iwork = (int64_t *)parts[GESDD_IWORK];
  if (!all_finite(matrix, m * n, job->dtype))
    info = -1;
  else if (is_complex(p))
    nlrt_lapack.gesdd_complex[p - 2](
        job->jobz, &job->lapack_m, &job->lapack_n, matrix, &job->lapack_m, s,
        u_b, &job->ldu, vt_b, &job->ldvt, parts[GESDD_WORK], &job->lwork,
        parts[GESDD_RWORK], iwork, &info, 1);
  else
    nlrt_lapack.gesdd_real[p](job->jobz, &job->lapack_m, &job->lapack_n,
                              matrix, &job->lapack_m, s, u_b, &job->ldu, vt_b,
                              &job->ldvt, parts[GESDD_WORK], &job->lwork,
                              iwork, &info, 1);
  if (info != 0) {
    fill_nan_everywhere(s, k, real_dtype(p));
    if (job->vectors) {
      fill_nan_everywhere(u_b, job->vh_rows * n, job->dtype);
      fill_nan_everywhere(vt_b, m * job->u_cols, job->dtype);
    }
  }
}

nlrt_status nlrt_lapack_gesdd(const nlrt_library_call *call) {
  if (call->num_operands != 1 || call->num_config != 2)
    return nlrt_lapack_malformed(call, "takes one operand and config "
                                       "[full_matrices, compute_uv]");
  int full = call->config[0] != 0, vectors = call->config[1] != 0;
  if (call->num_results != (vectors ? 3 : 1))
    return nlrt_lapack_malformed(call, "gives s, and u and vh with "
                                       "compute_uv");
  const nlrt_library_buffer *a = &call->buffers[0], *s = &call->buffers[1];
  const nlrt_library_buffer *u = vectors ? &call->buffers[2] : NULL;
  const nlrt_library_buffer *vh = vectors ? &call->buffers[3] : NULL;
  int p = nlrt_lapack_precision_of(a->dtype);
  if (p < 0 || a->rank < 2)
    return nlrt_lapack_malformed(call, "needs float or complex matrices");
  int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1];
  int64_t k = m < n ? m : n, batch = nlrt_library_batch(a, 2);
  int64_t u_cols = full ? m : k, vh_rows = full ? n : k;
  if (!batch_of_matrices(s, batch, 1, k, real_dtype(p)) ||
      (vectors && (!batch_of_matrices(u, batch, m, u_cols, a->dtype) ||
                   !batch_of_matrices(vh, batch, vh_rows, n, a->dtype))))
    return nlrt_lapack_malformed(call, "needs s (..., k), u (..., m, m or k) "
                                       "and vh (..., n or k, n)");
  size_t size = nlrt_library_element_size(a->dtype);
  size_t real_size = is_single(p) ? 4 : 8;
  if (batch == 0)
    return NLRT_OK;
  if (k == 0) { /* no singular values; the vectors are an identity's */
    if (vectors) {
      fill_identities(u->data, batch, m, u_cols, a->dtype);
      fill_identities(vh->data, batch, vh_rows, n, a->dtype);
    }
    return NLRT_OK;
  }
  /* Row-major A (m x n) is column-major B = A^T (n x m), factored as it is:
   * B = U_B S VT_B gives A = B^T = VT_B^T S U_B^T, an SVD of A with
   * u = VT_B^T and vh = U_B^T (U_B^T is V^H: B = conj(V) S U^T). Column-
   * major U_B (n x k or n x n, ld n) read row-major is U_B^T, and column-
   * major VT_B (k x m or m x m) read row-major is VT_B^T: gesdd writes vh
   * and u row-major directly, without a transpose or a conjugation. */
  int64_t lapack_m = n, lapack_n = m, lda = n;
  int64_t ldu = vectors ? n : 1, ldvt = vectors ? u_cols : 1;
  const char *jobz = vectors ? (full ? "A" : "S") : "N";
  int64_t larger = m > n ? m : n;
  int64_t lrwork =
      !is_complex(p) ? 1
      : vectors      ? (5 * k * k + 5 * k > 2 * larger * k + 2 * k * k + k
                            ? 5 * k * k + 5 * k
                            : 2 * larger * k + 2 * k * k + k)
                     : 7 * k;
  double query[2], rquery[2], unused[2];
  int64_t iquery[1], lwork = -1, info = 0;
  void *u_b = vectors ? vh->data : unused, *vt_b = vectors ? u->data : unused;
  if (is_complex(p))
    nlrt_lapack.gesdd_complex[p - 2](jobz, &lapack_m, &lapack_n, a->data, &lda,
                                     s->data, u_b, &ldu, vt_b, &ldvt, query,
                                     &lwork, rquery, iquery, &info, 1);
  else
    nlrt_lapack.gesdd_real[p](jobz, &lapack_m, &lapack_n, a->data, &lda,
                              s->data, u_b, &ldu, vt_b, &ldvt, query, &lwork,
                              iquery, &info, 1);
  gesdd_job job = {a->data,
                   s->data,
                   vectors ? u->data : NULL,
                   vectors ? vh->data : NULL,
                   jobz,
                   vectors,
                   m,
                   n,
                   k,
                   lapack_m,
                   lapack_n,
                   ldu,
                   ldvt,
                   queried_size(query, p),
                   u_cols,
                   vh_rows,
                   p,
                   a->dtype,
                   size};
  workspace_layout layout = {{(size_t)job.lwork * size,
                              (size_t)lrwork * real_size,
                              (size_t)(8 * k) * sizeof(int64_t)}};
  decompose_batch(batch, m * n, decomposition_order(m, n), &layout,
                  gesdd_matrix, &job);
  return NLRT_OK;
}

/*--- General eigendecomposition ---------------------------------------------*/

/* dgeev's real results as complex ones: w_j = wr_j + i wi_j, and a pair of
 * conjugate eigenvalues (wi_j > 0, wi_{j+1} = -wi_j) shares columns j and
 * j + 1 of vr: v_j = vr_j + i vr_{j+1}, v_{j+1} = conj(v_j). `vr` is
 * column-major, `v` row-major; with vr NULL only w is written. */
static void complex_from_real_pairs(const void *wr, const void *wi,
                                    const void *vr, void *w, void *v,
                                    int64_t n, int single) {
  for (int64_t j = 0; j < n; ++j)
    store_complex(w, j, load_real(wr, j, single), load_real(wi, j, single),
                  single);
  if (!vr)
    return;
  for (int64_t j = 0; j < n; ++j) {
    int pair = load_real(wi, j, single) != 0.0 && j + 1 < n;
    for (int64_t i = 0; i < n; ++i) {
      double re = load_real(vr, j * n + i, single);
      double im = pair ? load_real(vr, (j + 1) * n + i, single) : 0.0;
      store_complex(v, i * n + j, re, im, single);
      if (pair)
        store_complex(v, i * n + j + 1, re, -im, single);
    }
    j += pair;
  }
}

typedef struct geev_job {
  const char *a;
  char *w, *v;
  const char *jobvr;
  int64_t n, ldvr, lwork;
  int precision;
  nlrt_dtype dtype;
  size_t size;
} geev_job;

/* real: wr and wi in GEEV_VALUES; complex: w is written in place */
enum { GEEV_MATRIX, GEEV_VR, GEEV_VALUES, GEEV_RWORK, GEEV_WORK };

static void geev_matrix(const void *context, char *const *parts,
                        int64_t index) {
  const geev_job *job = context;
  int p = job->precision, single = is_single(p);
  int64_t n = job->n, one = 1, info = 0;
  nlrt_dtype out_dtype = complex_dtype(p);
  size_t out_size = nlrt_library_element_size(out_dtype);
  size_t real_size = single ? 4 : 8;
  const char *source = job->a + (size_t)(index * n * n) * job->size;
  char *w = job->w + (size_t)(index * n) * out_size;
  char *v = job->v ? job->v + (size_t)(index * n * n) * out_size : NULL;
  char *column_major = parts[GEEV_MATRIX], *vr = parts[GEEV_VR];
  char *wr = parts[GEEV_VALUES], *wi = wr + (size_t)n * real_size;
  double unused[2];
  if (!all_finite(source, n * n, job->dtype)) {
    info = -1;
  } else {
    nlrt_lapack_transpose(source, column_major, n, n, job->size);
    if (is_complex(p))
      nlrt_lapack.geev_complex[p - 2]("N", job->jobvr, &n, column_major, &n, w,
                                      unused, &one, vr, &job->ldvr,
                                      parts[GEEV_WORK], &job->lwork,
                                      parts[GEEV_RWORK], &info, 1, 1);
    else
      nlrt_lapack.geev_real[p]("N", job->jobvr, &n, column_major, &n, wr, wi,
                               unused, &one, vr, &job->ldvr, parts[GEEV_WORK],
                               &job->lwork, &info, 1, 1);
  }
  if (info != 0) {
    fill_nan_everywhere(w, n, out_dtype);
    if (v)
      fill_nan_everywhere(v, n * n, out_dtype);
    return;
  }
  if (!is_complex(p))
    complex_from_real_pairs(wr, wi, v ? vr : NULL, w, v, n, single);
  else if (v)
    nlrt_lapack_transpose(vr, v, n, n, job->size);
}

nlrt_status nlrt_lapack_geev(const nlrt_library_call *call) {
  if (call->num_operands != 1 || call->num_config != 1)
    return nlrt_lapack_malformed(call, "takes one operand and config "
                                       "[compute_right_vectors]");
  int vectors = call->config[0] != 0;
  if (call->num_results != (vectors ? 2 : 1))
    return nlrt_lapack_malformed(call, "gives w, and v with vectors");
  const nlrt_library_buffer *a = &call->buffers[0], *w = &call->buffers[1];
  const nlrt_library_buffer *v = vectors ? &call->buffers[2] : NULL;
  int p = nlrt_lapack_precision_of(a->dtype);
  if (p < 0 || a->rank < 2 || a->dims[a->rank - 1] != a->dims[a->rank - 2])
    return nlrt_lapack_malformed(call, "needs square float or complex "
                                       "matrices");
  int64_t n = a->dims[a->rank - 1], batch = nlrt_library_batch(a, 2);
  nlrt_dtype out_dtype = complex_dtype(p);
  if (!batch_of_matrices(w, batch, 1, n, out_dtype) ||
      (vectors && !batch_of_matrices(v, batch, n, n, out_dtype)))
    return nlrt_lapack_malformed(call, "needs complex w (..., n) and v "
                                       "(..., n, n)");
  if (batch == 0 || n == 0)
    return NLRT_OK;
  size_t size = nlrt_library_element_size(a->dtype);
  size_t real_size = is_single(p) ? 4 : 8;
  size_t matrix = (size_t)(n * n) * size;
  /* geev on the transpose would give A's left eigenvectors: A goes
   * column-major. */
  const char *jobvr = vectors ? "V" : "N";
  int64_t one = 1, ldvr = vectors ? n : 1, lwork = -1, info = 0;
  double query[2], unused[2], values_query[4];
  if (is_complex(p))
    nlrt_lapack.geev_complex[p - 2]("N", jobvr, &n, a->data, &n, w->data,
                                    unused, &one, unused, &ldvr, query, &lwork,
                                    unused, &info, 1, 1);
  else
    nlrt_lapack.geev_real[p]("N", jobvr, &n, a->data, &n, values_query,
                             values_query + 2, unused, &one, unused, &ldvr,
                             query, &lwork, &info, 1, 1);
  geev_job job = {a->data, w->data, vectors ? v->data : NULL,
                  jobvr,   n,       ldvr,
                  queried_size(query, p), p, a->dtype, size};
  workspace_layout layout = {{matrix, vectors ? matrix : 0,
                              is_complex(p) ? 0 : 2 * (size_t)n * real_size,
                              2 * (size_t)n * real_size,
                              (size_t)job.lwork * size}};
  decompose_batch(batch, n * n, decomposition_order(n, n), &layout,
                  geev_matrix, &job);
  return NLRT_OK;
}

/*--- Schur form -------------------------------------------------------------*/

typedef struct gees_job {
  const char *a;
  char *t, *z;
  int64_t n, lwork;
  int precision;
  nlrt_dtype dtype;
  size_t size;
} gees_job;

/* GEES_VALUES: the eigenvalues, which t's diagonal (blocks) holds too: wr
 * and wi for real a, w for complex a. GEES_BWORK is only read with
 * sort = 'S'. */
enum {
  GEES_MATRIX,
  GEES_VS,
  GEES_VALUES,
  GEES_RWORK,
  GEES_BWORK,
  GEES_WORK
};

static void gees_matrix(const void *context, char *const *parts,
                        int64_t index) {
  const gees_job *job = context;
  int p = job->precision;
  int64_t n = job->n, sdim = 0, info = 0;
  size_t matrix = (size_t)(n * n) * job->size;
  size_t real_size = is_single(p) ? 4 : 8;
  const char *source = job->a + (size_t)index * matrix;
  char *t = job->t + (size_t)index * matrix;
  char *z = job->z + (size_t)index * matrix;
  char *column_major = parts[GEES_MATRIX], *vs = parts[GEES_VS];
  char *values = parts[GEES_VALUES];
  if (!all_finite(source, n * n, job->dtype)) {
    info = -1;
  } else {
    nlrt_lapack_transpose(source, column_major, n, n, job->size);
    if (is_complex(p))
      nlrt_lapack.gees_complex[p - 2](
          "V", "N", NULL, &n, column_major, &n, &sdim, values, vs, &n,
          parts[GEES_WORK], &job->lwork, parts[GEES_RWORK],
          (int64_t *)parts[GEES_BWORK], &info, 1, 1);
    else
      nlrt_lapack.gees_real[p]("V", "N", NULL, &n, column_major, &n, &sdim,
                               values, values + (size_t)n * real_size, vs, &n,
                               parts[GEES_WORK], &job->lwork,
                               (int64_t *)parts[GEES_BWORK], &info, 1, 1);
  }
  if (info != 0) {
    fill_nan_everywhere(t, n * n, job->dtype);
    fill_nan_everywhere(z, n * n, job->dtype);
    return;
  }
  nlrt_lapack_transpose(column_major, t, n, n, job->size);
  nlrt_lapack_transpose(vs, z, n, n, job->size);
}

nlrt_status nlrt_lapack_gees(const nlrt_library_call *call) {
  if (call->num_operands != 1 || call->num_results != 2 ||
      call->num_config != 0)
    return nlrt_lapack_malformed(call,
                                 "takes one operand, two results, no config");
  const nlrt_library_buffer *a = &call->buffers[0], *t = &call->buffers[1],
                            *z = &call->buffers[2];
  int p = nlrt_lapack_precision_of(a->dtype);
  if (p < 0 || a->rank < 2 || a->dims[a->rank - 1] != a->dims[a->rank - 2] ||
      !nlrt_lapack_same_shape(a, t) || !nlrt_lapack_same_shape(a, z))
    return nlrt_lapack_malformed(call, "needs square float or complex "
                                       "matrices");
  int64_t n = a->dims[a->rank - 1], batch = nlrt_library_batch(a, 2);
  if (batch == 0 || n == 0)
    return NLRT_OK;
  size_t size = nlrt_library_element_size(a->dtype);
  size_t real_size = is_single(p) ? 4 : 8;
  size_t matrix = (size_t)(n * n) * size;
  int64_t sdim = 0, bwork[1], lwork = -1, info = 0;
  double query[2], unused[2];
  if (is_complex(p))
    nlrt_lapack.gees_complex[p - 2]("V", "N", NULL, &n, a->data, &n, &sdim,
                                    unused, unused, &n, query, &lwork, unused,
                                    bwork, &info, 1, 1);
  else
    nlrt_lapack.gees_real[p]("V", "N", NULL, &n, a->data, &n, &sdim, unused,
                             unused, unused, &n, query, &lwork, bwork, &info,
                             1, 1);
  gees_job job = {a->data, t->data, z->data, n, queried_size(query, p),
                  p,       a->dtype, size};
  workspace_layout layout = {{matrix, matrix, 2 * (size_t)n * real_size,
                              (size_t)n * real_size,
                              (size_t)n * sizeof(int64_t),
                              (size_t)job.lwork * size}};
  decompose_batch(batch, n * n, decomposition_order(n, n), &layout,
                  gees_matrix, &job);
  return NLRT_OK;
}
