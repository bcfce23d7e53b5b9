/*===- lapack_decompositions.c - QR, eigh, SVD, eig and Schur by LAPACK ---===*
 *
 * See lapack_decompositions.h for each routine's contract; lapack.c loads
 * LAPACK and holds the shared helpers. As there, every routine loops over
 * the batch on the calling thread, and small matrices keep OpenBLAS's
 * threads asleep.
 *
 * Matrices arrive row-major. Each routine but gesdd copies a matrix into a
 * column-major scratch (an O(n^2) transpose next to the O(n^3) routine)
 * and its results back; gesdd factors the row-major buffer as it is (see
 * there why that is exact).
 *
 * Workspace comes from a size query (lwork = -1) on the batch's first
 * matrix and is allocated once for the batch with nlrt_host_alloc, before
 * the thread limit is set: an allocation that fails jumps out of the call,
 * and frees every block, but would not restore the limit.
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

/*--- QR ---------------------------------------------------------------------*/

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
  size_t size = nlrt_library_element_size(a->dtype);
  size_t matrix = (size_t)(m * n) * size;
  char *column_major = nlrt_host_alloc(matrix);
  double query[2];
  int64_t lda = m, lwork = -1, info = 0;
  nlrt_lapack.geqrf[p](&m, &n, column_major, &lda, taus->data, query, &lwork,
                       &info);
  lwork = queried_size(query, p);
  void *work = nlrt_host_alloc((uint64_t)lwork * size);
  int threads = nlrt_lapack_limit_threads(m * n);
  for (int64_t b = 0; b < batch; ++b) {
    nlrt_lapack_transpose((const char *)a->data + (size_t)b * matrix,
                          column_major, m, n, size);
    nlrt_lapack.geqrf[p](&m, &n, column_major, &lda,
                         (char *)taus->data + (size_t)(b * k) * size, work,
                         &lwork, &info);
    nlrt_lapack_transpose(column_major, (char *)out->data + (size_t)b * matrix,
                          n, m, size);
  }
  nlrt_lapack_restore_threads(threads);
  nlrt_host_free(work);
  nlrt_host_free(column_major);
  return NLRT_OK;
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
  size_t size = nlrt_library_element_size(a->dtype);
  size_t matrix = (size_t)(m * n) * size;
  char *column_major = nlrt_host_alloc(matrix);
  double query[2];
  int64_t lda = m, lwork = -1, info = 0;
  nlrt_lapack.orgqr[p](&m, &n, &k, column_major, &lda, taus->data, query,
                       &lwork, &info);
  lwork = queried_size(query, p);
  void *work = nlrt_host_alloc((uint64_t)lwork * size);
  int threads = nlrt_lapack_limit_threads(m * n);
  for (int64_t b = 0; b < batch; ++b) {
    nlrt_lapack_transpose((const char *)a->data + (size_t)b * matrix,
                          column_major, m, n, size);
    nlrt_lapack.orgqr[p](&m, &n, &k, column_major, &lda,
                         (const char *)taus->data + (size_t)(b * k) * size,
                         work, &lwork, &info);
    nlrt_lapack_transpose(column_major, (char *)q->data + (size_t)b * matrix,
                          n, m, size);
  }
  nlrt_lapack_restore_threads(threads);
  nlrt_host_free(work);
  nlrt_host_free(column_major);
  return NLRT_OK;
}

/*--- Hermitian eigendecomposition -------------------------------------------*/

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
  size_t matrix = (size_t)(n * n) * size;
  char *column_major = nlrt_host_alloc(matrix);
  double query[2], rquery[2];
  int64_t iquery = 0, lwork = -1, lrwork = -1, liwork = -1, info = 0;
  if (is_complex(p))
    nlrt_lapack.heevd[p - 2]("V", uplo, &n, column_major, &n, values->data,
                             query, &lwork, rquery, &lrwork, &iquery, &liwork,
                             &info, 1, 1);
  else
    nlrt_lapack.syevd[p]("V", uplo, &n, column_major, &n, values->data, query,
                         &lwork, &iquery, &liwork, &info, 1, 1);
  lwork = queried_size(query, p);
  lrwork = is_complex(p) ? queried_size(rquery, p) : 1;
  liwork = iquery > 1 ? iquery : 1;
  void *work = nlrt_host_alloc((uint64_t)lwork * size);
  void *rwork = nlrt_host_alloc((uint64_t)lrwork * real_size);
  int64_t *iwork = nlrt_host_alloc((uint64_t)liwork * sizeof(int64_t));
  int threads = nlrt_lapack_limit_threads(n * n);
  for (int64_t b = 0; b < batch; ++b) {
    const char *source = (const char *)a->data + (size_t)b * matrix;
    char *target = (char *)vectors->data + (size_t)b * matrix;
    char *w = (char *)values->data + (size_t)(b * n) * real_size;
    info = 0;
    if (all_finite(source, n * n, a->dtype)) {
      nlrt_lapack_transpose(source, column_major, n, n, size);
      if (is_complex(p))
        nlrt_lapack.heevd[p - 2]("V", uplo, &n, column_major, &n, w, work,
                                 &lwork, rwork, &lrwork, iwork, &liwork, &info,
                                 1, 1);
      else
        nlrt_lapack.syevd[p]("V", uplo, &n, column_major, &n, w, work, &lwork,
                             iwork, &liwork, &info, 1, 1);
    } else {
      info = -1;
    }
    if (info != 0) {
      fill_nan_everywhere(target, n * n, a->dtype);
      fill_nan_everywhere(w, n, real_dtype(p));
      continue;
    }
    nlrt_lapack_transpose(column_major, target, n, n, size);
  }
  nlrt_lapack_restore_threads(threads);
  nlrt_host_free(iwork);
  nlrt_host_free(rwork);
  nlrt_host_free(work);
  nlrt_host_free(column_major);
  return NLRT_OK;
}

/*--- SVD --------------------------------------------------------------------*/

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
  size_t matrix = (size_t)(m * n) * size;
  size_t u_matrix = (size_t)(m * u_cols) * size;
  size_t vh_matrix = (size_t)(vh_rows * n) * size;
  int64_t *iwork = nlrt_host_alloc((uint64_t)(8 * k) * sizeof(int64_t));
  void *rwork = nlrt_host_alloc((uint64_t)lrwork * real_size);
  double query[2], unused[2];
  int64_t lwork = -1, info = 0;
  void *u_b = vectors ? vh->data : unused, *vt_b = vectors ? u->data : unused;
  if (is_complex(p))
    nlrt_lapack.gesdd_complex[p - 2](jobz, &lapack_m, &lapack_n, a->data, &lda,
                                     s->data, u_b, &ldu, vt_b, &ldvt, query,
                                     &lwork, rwork, iwork, &info, 1);
  else
    nlrt_lapack.gesdd_real[p](jobz, &lapack_m, &lapack_n, a->data, &lda,
                              s->data, u_b, &ldu, vt_b, &ldvt, query, &lwork,
                              iwork, &info, 1);
  lwork = queried_size(query, p);
  void *work = nlrt_host_alloc((uint64_t)lwork * size);
  int threads = nlrt_lapack_limit_threads(m * n);
  for (int64_t b = 0; b < batch; ++b) {
    char *matrix_b = (char *)a->data + (size_t)b * matrix;
    char *s_b = (char *)s->data + (size_t)(b * k) * real_size;
    if (vectors) {
      u_b = (char *)vh->data + (size_t)b * vh_matrix;
      vt_b = (char *)u->data + (size_t)b * u_matrix;
    }
    info = 0;
    if (!all_finite(matrix_b, m * n, a->dtype))
      info = -1;
    else if (is_complex(p))
      nlrt_lapack.gesdd_complex[p - 2](jobz, &lapack_m, &lapack_n, matrix_b,
                                       &lda, s_b, u_b, &ldu, vt_b, &ldvt, work,
                                       &lwork, rwork, iwork, &info, 1);
    else
      nlrt_lapack.gesdd_real[p](jobz, &lapack_m, &lapack_n, matrix_b, &lda,
                                s_b, u_b, &ldu, vt_b, &ldvt, work, &lwork,
                                iwork, &info, 1);
    if (info != 0) {
      fill_nan_everywhere(s_b, k, real_dtype(p));
      if (vectors) {
        fill_nan_everywhere(u_b, vh_rows * n, a->dtype);
        fill_nan_everywhere(vt_b, m * u_cols, a->dtype);
      }
    }
  }
  nlrt_lapack_restore_threads(threads);
  nlrt_host_free(work);
  nlrt_host_free(rwork);
  nlrt_host_free(iwork);
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
  size_t out_size = nlrt_library_element_size(out_dtype);
  size_t real_size = is_single(p) ? 4 : 8;
  size_t matrix = (size_t)(n * n) * size;
  int single = is_single(p);
  /* geev on the transpose would give A's left eigenvectors: A goes
   * column-major. */
  char *column_major = nlrt_host_alloc(matrix);
  /* real: wr and wi, then vr; complex: vr alone (w is written in place) */
  char *parts = nlrt_host_alloc(is_complex(p) ? 1 : 2 * (size_t)n * real_size);
  char *vr = nlrt_host_alloc(vectors ? matrix : size);
  void *rwork = nlrt_host_alloc(2 * (size_t)n * real_size);
  const char *jobvr = vectors ? "V" : "N";
  int64_t one = 1, ldvr = vectors ? n : 1, lwork = -1, info = 0;
  double query[2], unused[2];
  if (is_complex(p))
    nlrt_lapack.geev_complex[p - 2]("N", jobvr, &n, column_major, &n, w->data,
                                    unused, &one, vr, &ldvr, query, &lwork,
                                    rwork, &info, 1, 1);
  else
    nlrt_lapack.geev_real[p]("N", jobvr, &n, column_major, &n, parts,
                             parts + (size_t)n * real_size, unused, &one, vr,
                             &ldvr, query, &lwork, &info, 1, 1);
  lwork = queried_size(query, p);
  void *work = nlrt_host_alloc((uint64_t)lwork * size);
  int threads = nlrt_lapack_limit_threads(n * n);
  for (int64_t b = 0; b < batch; ++b) {
    const char *source = (const char *)a->data + (size_t)b * matrix;
    char *w_b = (char *)w->data + (size_t)(b * n) * out_size;
    char *v_b = vectors ? (char *)v->data + (size_t)(b * n * n) * out_size
                        : NULL;
    info = 0;
    if (!all_finite(source, n * n, a->dtype)) {
      info = -1;
    } else {
      nlrt_lapack_transpose(source, column_major, n, n, size);
      if (is_complex(p))
        nlrt_lapack.geev_complex[p - 2]("N", jobvr, &n, column_major, &n, w_b,
                                        unused, &one, vr, &ldvr, work, &lwork,
                                        rwork, &info, 1, 1);
      else
        nlrt_lapack.geev_real[p]("N", jobvr, &n, column_major, &n, parts,
                                 parts + (size_t)n * real_size, unused, &one,
                                 vr, &ldvr, work, &lwork, &info, 1, 1);
    }
    if (info != 0) {
      fill_nan_everywhere(w_b, n, out_dtype);
      if (vectors)
        fill_nan_everywhere(v_b, n * n, out_dtype);
      continue;
    }
    if (!is_complex(p))
      complex_from_real_pairs(parts, parts + (size_t)n * real_size,
                              vectors ? vr : NULL, w_b, v_b, n, single);
    else if (vectors)
      nlrt_lapack_transpose(vr, v_b, n, n, size);
  }
  nlrt_lapack_restore_threads(threads);
  nlrt_host_free(work);
  nlrt_host_free(rwork);
  nlrt_host_free(vr);
  nlrt_host_free(parts);
  nlrt_host_free(column_major);
  return NLRT_OK;
}

/*--- Schur form -------------------------------------------------------------*/

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
  char *column_major = nlrt_host_alloc(matrix);
  char *vs = nlrt_host_alloc(matrix);
  /* the eigenvalues, which t's diagonal (blocks) holds too: wr and wi for
   * real a, w for complex a */
  char *values = nlrt_host_alloc(2 * (size_t)n * real_size);
  void *rwork = nlrt_host_alloc((size_t)n * real_size);
  /* only read with sort = 'S' */
  int64_t *bwork = nlrt_host_alloc((size_t)n * sizeof(int64_t));
  int64_t sdim = 0, lwork = -1, info = 0;
  double query[2];
  if (is_complex(p))
    nlrt_lapack.gees_complex[p - 2]("V", "N", NULL, &n, column_major, &n,
                                    &sdim, values, vs, &n, query, &lwork,
                                    rwork, bwork, &info, 1, 1);
  else
    nlrt_lapack.gees_real[p]("V", "N", NULL, &n, column_major, &n, &sdim,
                             values, values + (size_t)n * real_size, vs, &n,
                             query, &lwork, bwork, &info, 1, 1);
  lwork = queried_size(query, p);
  void *work = nlrt_host_alloc((uint64_t)lwork * size);
  int threads = nlrt_lapack_limit_threads(n * n);
  for (int64_t b = 0; b < batch; ++b) {
    const char *source = (const char *)a->data + (size_t)b * matrix;
    char *t_b = (char *)t->data + (size_t)b * matrix;
    char *z_b = (char *)z->data + (size_t)b * matrix;
    info = 0;
    if (!all_finite(source, n * n, a->dtype)) {
      info = -1;
    } else {
      nlrt_lapack_transpose(source, column_major, n, n, size);
      if (is_complex(p))
        nlrt_lapack.gees_complex[p - 2]("V", "N", NULL, &n, column_major, &n,
                                        &sdim, values, vs, &n, work, &lwork,
                                        rwork, bwork, &info, 1, 1);
      else
        nlrt_lapack.gees_real[p]("V", "N", NULL, &n, column_major, &n, &sdim,
                                 values, values + (size_t)n * real_size, vs,
                                 &n, work, &lwork, bwork, &info, 1, 1);
    }
    if (info != 0) {
      fill_nan_everywhere(t_b, n * n, a->dtype);
      fill_nan_everywhere(z_b, n * n, a->dtype);
      continue;
    }
    nlrt_lapack_transpose(column_major, t_b, n, n, size);
    nlrt_lapack_transpose(vs, z_b, n, n, size);
  }
  nlrt_lapack_restore_threads(threads);
  nlrt_host_free(work);
  nlrt_host_free(bwork);
  nlrt_host_free(rwork);
  nlrt_host_free(values);
  nlrt_host_free(vs);
  nlrt_host_free(column_major);
  return NLRT_OK;
}
