/*===- lapack.c - Cholesky, LU and triangular solves through LAPACK -------===*
 *
 * See lapack.h for where LAPACK comes from. A batch of small matrices is
 * spread over threads (nlrt_lapack_for_each_matrix), with OpenBLAS's own
 * threads off; LAPACK's threads work inside each matrix when it is large
 * enough to pay for them.
 *
 *===----------------------------------------------------------------------===*/

#include "lapack.h"
#include "lapack_internal.h"

#include "../host_allocator.h"
#include "../parallel_ranges.h"

#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- Loading ------------------------------------------------------------------*/

static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
static char *configured_path;         /* nlrt_set_lapack_library's */
static int attempted;                 /* the candidates were tried */
lapack_functions nlrt_lapack;         /* filled once `loaded` */
static int loaded;
static char load_message[2048];

static const char precisions[4] = {'s', 'd', 'c', 'z'};

/* The naming schemes of ILP64 OpenBLAS builds: prefix and suffix around
 * the lower-case routine name. */
static const char *const schemes[][2] = {{"scipy_", "_64_"}, {"", "_64_"}};

static void *find_symbol(void *handle, int scheme, char precision,
                         const char *name) {
  char symbol[64];
  snprintf(symbol, sizeof(symbol), "%s%c%s%s", schemes[scheme][0], precision,
           name, schemes[scheme][1]);
  return dlsym(handle, symbol);
}

/* The routines to resolve: the name of the real ones (s, d) and of the
 * complex ones (c, z), and where their four slots start. */
typedef struct symbol_entry {
  const char *real_name, *complex_name;
  size_t slots;
} symbol_entry;

static const symbol_entry symbol_table[] = {
    {"potrf", "potrf", offsetof(lapack_functions, potrf)},
    {"getrf", "getrf", offsetof(lapack_functions, getrf)},
    {"trsm", "trsm", offsetof(lapack_functions, trsm)},
    {"geqrf", "geqrf", offsetof(lapack_functions, geqrf)},
    {"orgqr", "ungqr", offsetof(lapack_functions, orgqr)},
    {"syevd", "heevd", offsetof(lapack_functions, syevd)},
    {"gesdd", "gesdd", offsetof(lapack_functions, gesdd_real)},
    {"geev", "geev", offsetof(lapack_functions, geev_real)},
    {"gees", "gees", offsetof(lapack_functions, gees_real)},
};

/* Resolves every function from `handle`; 0 and why in `why` if one is
 * missing. */
static int resolve(void *handle, const char *path, lapack_functions *out,
                   char *why, size_t capacity) {
  int scheme = -1;
  for (int s = 0; s < 2 && scheme < 0; ++s)
    if (find_symbol(handle, s, 'd', "potrf"))
      scheme = s;
  if (scheme < 0) {
    snprintf(why, capacity,
             "'%s' has no ILP64 LAPACK (neither scipy_dpotrf_64_ nor "
             "dpotrf_64_)",
             path);
    return 0;
  }
  for (size_t r = 0; r < sizeof(symbol_table) / sizeof(symbol_table[0]);
       ++r) {
    for (int p = 0; p < 4; ++p) {
      const char *name =
          p < 2 ? symbol_table[r].real_name : symbol_table[r].complex_name;
      void *symbol = find_symbol(handle, scheme, precisions[p], name);
      if (!symbol) {
        snprintf(why, capacity, "'%s' lacks %c%s", path, precisions[p], name);
        return 0;
      }
      /* dlsym gives void *; POSIX guarantees it converts to a function
       * pointer, and every function pointer has its size. */
      memcpy((char *)out + symbol_table[r].slots + (size_t)p * sizeof(void *),
             &symbol, sizeof(void *));
    }
  }
  void *set_threads = dlsym(handle, "openblas_set_num_threads_local");
  memcpy(&out->set_threads_local, &set_threads, sizeof(void *));
  return 1;
}

/* Tries `path`; on failure appends why to `tried`. */
static int try_library(const char *path, char *tried, size_t capacity) {
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  size_t used = strlen(tried);
  if (!handle) {
    snprintf(tried + used, capacity - used, "%s%s", used ? "; " : "",
             dlerror());
    return 0;
  }
  lapack_functions found;
  char why[256];
  if (!resolve(handle, path, &found, why, sizeof(why))) {
    snprintf(tried + used, capacity - used, "%s%s", used ? "; " : "", why);
    dlclose(handle);
    return 0;
  }
  nlrt_lapack = found; /* the handle stays open for the process's life */
  return 1;
}

nlrt_status nlrt_lapack_available(void) {
  pthread_mutex_lock(&load_mutex);
  if (!loaded && !attempted) {
    attempted = 1;
    char tried[1024] = "";
    /* NUMLIR_LAPACK is a choice, not a hint: when it fails, nothing else is
     * tried, so the user never runs on a LAPACK they did not pick. */
    const char *environment = getenv("NUMLIR_LAPACK");
    int chosen = environment && *environment;
    const char *candidates[] = {chosen ? environment : configured_path,
                                chosen ? NULL : "libopenblas64.so.0"};
    for (size_t i = 0; i < 2 && !loaded; ++i)
      if (candidates[i])
        loaded = try_library(candidates[i], tried, sizeof(tried));
    if (!loaded)
      snprintf(load_message, sizeof(load_message),
               "no LAPACK library could be loaded (%s); numlir uses the "
               "OpenBLAS that NumPy's wheel ships, or the ILP64 LAPACK named "
               "by NUMLIR_LAPACK",
               tried[0] ? tried : "nowhere to look");
  }
  int ok = loaded;
  pthread_mutex_unlock(&load_mutex);
  if (ok)
    return NLRT_OK;
  return nlrt_error(NLRT_UNAVAILABLE, "%s", load_message);
}

NLRT_API nlrt_status nlrt_set_lapack_library(const char *path) {
  char *copy = path ? strdup(path) : NULL;
  if (path && !copy)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory");
  pthread_mutex_lock(&load_mutex);
  free(configured_path);
  configured_path = copy;
  if (!loaded)
    attempted = 0; /* a new place to look */
  pthread_mutex_unlock(&load_mutex);
  return NLRT_OK;
}

/*--- Shared checks and helpers ---------------------------------------------------*/

int nlrt_lapack_precision_of(nlrt_dtype dtype) {
  switch (dtype) {
  case NLRT_DTYPE_F32:
    return 0;
  case NLRT_DTYPE_F64:
    return 1;
  case NLRT_DTYPE_C64:
    return 2;
  case NLRT_DTYPE_C128:
    return 3;
  default:
    return -1;
  }
}

int nlrt_lapack_same_shape(const nlrt_library_buffer *a,
                           const nlrt_library_buffer *b) {
  if (a->dtype != b->dtype || a->rank != b->rank)
    return 0;
  for (int d = 0; d < a->rank; ++d)
    if (a->dims[d] != b->dims[d])
      return 0;
  return 1;
}

nlrt_status nlrt_lapack_malformed(const nlrt_library_call *call,
                                  const char *why) {
  return nlrt_error(NLRT_INTERNAL, "library call '%s': %s", call->routine,
                    why);
}

/* Tiles of TRANSPOSE_TILE x TRANSPOSE_TILE elements: a tile's rows and
 * columns both stay in the L1 cache, where a plain double loop strides
 * through a whole matrix column per element written. */
#define TRANSPOSE_TILE 16

/* Inlined with a constant `size`, so each element is one move instead of a
 * call to memcpy (a 128 x 128 complex64 matrix is 16384 of them). */
static inline __attribute__((always_inline)) void
transpose_tiles(const char *from, char *to, int64_t rows, int64_t cols,
                size_t size) {
  for (int64_t i0 = 0; i0 < rows; i0 += TRANSPOSE_TILE)
    for (int64_t j0 = 0; j0 < cols; j0 += TRANSPOSE_TILE) {
      int64_t i1 = i0 + TRANSPOSE_TILE < rows ? i0 + TRANSPOSE_TILE : rows;
      int64_t j1 = j0 + TRANSPOSE_TILE < cols ? j0 + TRANSPOSE_TILE : cols;
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j)
          memcpy(to + (size_t)(j * rows + i) * size,
                 from + (size_t)(i * cols + j) * size, size);
    }
}

void nlrt_lapack_transpose(const char *from, char *to, int64_t rows,
                           int64_t cols, size_t size) {
  switch (size) {
  case 4:
    transpose_tiles(from, to, rows, cols, 4);
    break;
  case 8:
    transpose_tiles(from, to, rows, cols, 8);
    break;
  case 16:
    transpose_tiles(from, to, rows, cols, 16);
    break;
  default:
    transpose_tiles(from, to, rows, cols, size);
    break;
  }
}

/* Sets every element of the n-element matrix at `data` to NaN (complex:
 * NaN + NaN i, as jax's failed factorizations and decompositions give). */
void nlrt_lapack_fill_nan(void *data, int64_t n, nlrt_dtype dtype) {
  for (int64_t i = 0; i < n; ++i) {
    switch (dtype) {
    case NLRT_DTYPE_F32:
      ((float *)data)[i] = NAN;
      break;
    case NLRT_DTYPE_F64:
      ((double *)data)[i] = NAN;
      break;
    case NLRT_DTYPE_C64:
      ((float *)data)[2 * i] = NAN;
      ((float *)data)[2 * i + 1] = NAN;
      break;
    default:
      ((double *)data)[2 * i] = NAN;
      ((double *)data)[2 * i + 1] = NAN;
      break;
    }
  }
}

/* Matrices up to this many elements are factored on the calling thread
 * alone: OpenBLAS's threads cost more to wake than such a matrix takes,
 * and on a busy machine its spinning threads made a batch of 128 x 128
 * solves 20 times slower. Larger ones use OpenBLAS's threads. */
#define SINGLE_THREAD_MAX_ELEMENTS (256 * 256)

/* OpenBLAS's thread count for this process's next LAPACK calls (1 when
 * `elements` is small); returns what to give restore_threads. The count is
 * process-wide: OpenBLAS 0.3.31's openblas_set_num_threads_local sets the
 * global count despite its name. */
static int limit_threads(int64_t elements) {
  if (!nlrt_lapack.set_threads_local ||
      elements > SINGLE_THREAD_MAX_ELEMENTS)
    return 0;
  return nlrt_lapack.set_threads_local(1);
}

static void restore_threads(int previous) {
  if (nlrt_lapack.set_threads_local && previous > 0)
    nlrt_lapack.set_threads_local(previous);
}

/* Small matrices (SINGLE_THREAD_MAX_ELEMENTS) of a batch are spread over
 * threads, one matrix per thread at a time with OpenBLAS's threads off,
 * when the batch holds enough work to pay for the threads' start
 * (PARALLEL_MIN_WORK multiply-adds, about a millisecond). Larger matrices
 * run one after another, with OpenBLAS's threads inside. */
#define PARALLEL_MIN_WORK ((int64_t)1 << 22)

typedef struct batch_loop {
  nlrt_lapack_matrix_fn fn;
  void *context;
} batch_loop;

int nlrt_lapack_batch_threads(int64_t batch, int64_t elements, int64_t order) {
  if (elements > SINGLE_THREAD_MAX_ELEMENTS || batch < 2 ||
      batch * elements * order < PARALLEL_MIN_WORK)
    return 1;
  int threads = nlrt_thread_count();
  return batch < threads ? (int)batch : threads;
}

static void run_range(void *context, int thread, int64_t begin, int64_t end) {
  batch_loop *loop = context;
  for (int64_t index = begin; index < end; ++index)
    loop->fn(loop->context, thread, index);
}

void nlrt_lapack_for_each_matrix(int64_t batch, int64_t elements,
                                 int threads, nlrt_lapack_matrix_fn fn,
                                 void *context) {
  if (elements > SINGLE_THREAD_MAX_ELEMENTS) {
    for (int64_t index = 0; index < batch; ++index)
      fn(context, 0, index);
    return;
  }
  /* Set once around all the threads, not by each: the count is global, and
   * a thread that restored it while another still ran woke OpenBLAS's
   * threads under that one (a third of a batch of 128 x 128 LUs' time went
   * to OpenBLAS's thread server). */
  int previous = limit_threads(0);
  batch_loop loop = {fn, context};
  nlrt_parallel_ranges(batch, 1, threads, run_range, &loop);
  restore_threads(previous);
}

/*--- Routines -------------------------------------------------------------------*/

typedef struct potrf_job {
  char *factors;
  int64_t n;
  int precision;
  nlrt_dtype dtype;
  size_t size;
} potrf_job;

static void potrf_matrix(void *context, int thread, int64_t index) {
  (void)thread;
  const potrf_job *job = context;
  int64_t n = job->n, info = 0;
  char *m = job->factors + (size_t)(index * n * n) * job->size;
  /* Row-major A is column-major A^T = conj(A) (A is Hermitian), whose upper
   * factor U (U^H U = conj(A)) read row-major is U^T = L with L L^H = A. */
  if (n > 0)
    nlrt_lapack.potrf[job->precision]("U", &n, m, &n, &info, 1);
  if (info != 0) /* jax: NaN in the lower triangle, zeros above */
    nlrt_lapack_fill_nan(m, n * n, job->dtype);
  for (int64_t i = 0; i < n; ++i) /* the strict upper triangle is A's */
    memset(m + (size_t)(i * n + i + 1) * job->size, 0,
           (size_t)(n - i - 1) * job->size);
}

nlrt_status nlrt_lapack_potrf(const nlrt_library_call *call) {
  if (call->num_operands != 1 || call->num_results != 1 ||
      call->num_config != 0)
    return nlrt_lapack_malformed(call,
                                 "takes one operand, one result and no config");
  const nlrt_library_buffer *a = &call->buffers[0], *l = &call->buffers[1];
  int p = nlrt_lapack_precision_of(a->dtype);
  if (p < 0 || a->rank < 2 || !nlrt_lapack_same_shape(a, l) ||
      a->dims[a->rank - 1] != a->dims[a->rank - 2])
    return nlrt_lapack_malformed(call,
                                 "needs square float or complex matrices");
  int64_t n = a->dims[a->rank - 1], batch = nlrt_library_batch(a, 2);
  potrf_job job = {l->data, n, p, a->dtype, nlrt_library_element_size(a->dtype)};
  memcpy(l->data, a->data, (size_t)(batch * n * n) * job.size);
  nlrt_lapack_for_each_matrix(batch, n * n,
                              nlrt_lapack_batch_threads(batch, n * n, n),
                              potrf_matrix, &job);
  return NLRT_OK;
}

typedef struct getrf_job {
  const char *a;
  char *lu;
  int32_t *pivots, *permutation;
  char *scratch; /* one column-major matrix per thread */
  int64_t *ipiv; /* k pivots per thread */
  int64_t m, n, k;
  int precision;
  size_t size;
} getrf_job;

static void getrf_matrix(void *context, int thread, int64_t index) {
  const getrf_job *job = context;
  int64_t m = job->m, n = job->n, k = job->k;
  size_t matrix = (size_t)(m * n) * job->size;
  char *column_major = job->scratch + (size_t)thread * matrix;
  int64_t *ipiv = job->ipiv + thread * k;
  nlrt_lapack_transpose(job->a + (size_t)index * matrix, column_major, m, n,
                        job->size);
  int64_t info = 0, lda = m > 1 ? m : 1;
  if (m > 0 && n > 0)
    nlrt_lapack.getrf[job->precision](&m, &n, column_major, &lda, ipiv, &info);
  /* info > 0 names an exact zero pivot: the factors are still complete, and
   * jax returns them as they are. */
  nlrt_lapack_transpose(column_major, job->lu + (size_t)index * matrix, n, m,
                        job->size);
  int32_t *row_pivots = job->pivots + index * k;
  int32_t *rows = job->permutation + index * m;
  for (int64_t i = 0; i < m; ++i)
    rows[i] = (int32_t)i;
  for (int64_t i = 0; i < k; ++i) {
    int64_t swap = ipiv[i] - 1;
    row_pivots[i] = (int32_t)swap;
    int32_t held = rows[i];
    rows[i] = rows[swap];
    rows[swap] = held;
  }
}

nlrt_status nlrt_lapack_getrf(const nlrt_library_call *call) {
  if (call->num_operands != 1 || call->num_results != 3 ||
      call->num_config != 0)
    return nlrt_lapack_malformed(
        call, "takes one operand, three results and no config");
  const nlrt_library_buffer *a = &call->buffers[0], *lu = &call->buffers[1],
                            *pivots = &call->buffers[2],
                            *permutation = &call->buffers[3];
  int p = nlrt_lapack_precision_of(a->dtype);
  if (p < 0 || a->rank < 2 || !nlrt_lapack_same_shape(a, lu))
    return nlrt_lapack_malformed(call, "needs float or complex matrices");
  int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1];
  int64_t k = m < n ? m : n, batch = nlrt_library_batch(a, 2);
  if (pivots->dtype != NLRT_DTYPE_I32 || permutation->dtype != NLRT_DTYPE_I32 ||
      pivots->elements != batch * k || permutation->elements != batch * m)
    return nlrt_lapack_malformed(call, "needs int32 pivots and permutation");
  size_t size = nlrt_library_element_size(a->dtype);
  int threads = nlrt_lapack_batch_threads(batch, m * n, k);
  /* Scratch comes from the call's allocator (a failure leaves the call);
   * the threads allocate nothing. */
  size_t matrix = (size_t)(m * n) * size;
  getrf_job job = {a->data, lu->data, pivots->data, permutation->data,
                   nlrt_host_alloc((size_t)threads * matrix + 1),
                   nlrt_host_alloc((size_t)(threads * k + 1) * sizeof(int64_t)),
                   m, n, k, p, size};
  nlrt_lapack_for_each_matrix(batch, m * n, threads, getrf_matrix, &job);
  nlrt_host_free(job.ipiv);
  nlrt_host_free(job.scratch);
  return NLRT_OK;
}

typedef struct trsm_job {
  const char *side, *uplo, *transa, *diag;
  int64_t m, n, lda, ldb;
  const void *alpha;
  const char *a;
  char *x;
  size_t a_matrix, b_matrix;
  int precision;
} trsm_job;

static void trsm_matrix(void *context, int thread, int64_t index) {
  (void)thread;
  const trsm_job *job = context;
  nlrt_lapack.trsm[job->precision](
      job->side, job->uplo, job->transa, job->diag, &job->m, &job->n,
      job->alpha, job->a + (size_t)index * job->a_matrix, &job->lda,
      job->x + (size_t)index * job->b_matrix, &job->ldb, 1, 1, 1, 1);
}

nlrt_status nlrt_lapack_trsm(const nlrt_library_call *call) {
  if (call->num_operands != 2 || call->num_results != 1 ||
      call->num_config != 4)
    return nlrt_lapack_malformed(call, "takes two operands, one result and 4 "
                                       "config values");
  const nlrt_library_buffer *a = &call->buffers[0], *b = &call->buffers[1],
                            *x = &call->buffers[2];
  const int64_t *config = call->config;
  int left = config[0] != 0, lower = config[1] != 0, unit = config[3] != 0;
  int64_t trans = config[2];
  int p = nlrt_lapack_precision_of(a->dtype);
  if (p < 0 || a->rank < 2 || b->rank != a->rank || b->dtype != a->dtype ||
      !nlrt_lapack_same_shape(b, x) || trans < 0 || trans > 2)
    return nlrt_lapack_malformed(call,
                                 "needs float or complex a, b of one rank");
  int64_t order = a->dims[a->rank - 1];
  int64_t rows = b->dims[b->rank - 2], cols = b->dims[b->rank - 1];
  int64_t batch = nlrt_library_batch(a, 2);
  if (a->dims[a->rank - 2] != order || (left ? rows : cols) != order ||
      nlrt_library_batch(b, 2) != batch)
    return nlrt_lapack_malformed(call, "a's order does not match b");
  size_t size = nlrt_library_element_size(a->dtype);
  memcpy(x->data, b->data, (size_t)x->elements * size);
  if (rows == 0 || cols == 0)
    return NLRT_OK;
  /* Row-major B (rows x cols) is column-major B^T, and A is column-major
   * A^T: op(A) X = B is X^T op(A)^T = B^T, a right-side solve with A^T, and
   * X op(A) = B a left-side one. op(A)^T is A^T, (A^T)^T or conj(A^T) for
   * op = none, T or H, so the transpose flag carries over, and A's lower
   * triangle is A^T's upper one. */
  const char *side = left ? "R" : "L";
  const char *uplo = lower ? "U" : "L";
  const char *transa = trans == 0 ? "N" : trans == 1 ? "T" : "C";
  const char *diag = unit ? "U" : "N";
  int64_t m = cols, n = rows, lda = order, ldb = cols;
  static const double one[2] = {1.0, 0.0};
  static const float one_single[2] = {1.0f, 0.0f};
  const void *alpha = (p == 0 || p == 2) ? (const void *)one_single
                                         : (const void *)one;
  trsm_job job = {side, uplo, transa, diag, m, n, lda, ldb, alpha, a->data,
                  x->data, (size_t)(order * order) * size,
                  (size_t)(rows * cols) * size, p};
  int64_t elements = order * (rows > cols ? rows : cols);
  nlrt_lapack_for_each_matrix(batch, elements,
                              nlrt_lapack_batch_threads(batch, elements,
                                                        order),
                              trsm_matrix, &job);
  return NLRT_OK;
}
