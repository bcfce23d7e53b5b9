/*===- fft.c - nlrt_fft: passes over the axes, threads over the lines -----===*
 *
 * An n-D transform is one pass of 1-D transforms per axis: the last axis on
 * contiguous rows (where the real transforms happen), the others on columns
 * in place, B neighbouring columns at a time so every gather reads whole
 * cache lines. IRFFT runs its complex passes first, into a scratch copy,
 * because `in` may be read-only and `out` is real.
 *
 * Threads: each pass splits its lines into one contiguous range per thread,
 * created and joined per pass. A pass worth threading moves at least 2^17
 * points, hundreds of microseconds of work, which dwarfs the ~20us of
 * creating and joining a couple of threads; a persistent pool would save
 * that but bring shutdown, fork and reentrancy questions into a library
 * that is otherwise stateless but for its plan cache.
 *
 *===----------------------------------------------------------------------===*/

#include "fft.h"
#include "fft_internal.h"

#include "../parallel_ranges.h"

#include <stdlib.h>

#define THREADING_POINTS ((int64_t)1 << 17)

typedef struct pass {
  const fft_lines *job;
  int double_precision;
  int failed[NLRT_MAX_RANGE_THREADS];
} pass;

static void run_lines(void *context, int thread, int64_t first, int64_t end) {
  pass *p = context;
  p->failed[thread] = p->double_precision
                          ? fft_lines_d(p->job, first, end)
                          : fft_lines_f(p->job, first, end);
}

static int run_pass(const fft_lines *job, int double_precision, int threads) {
  pass p = {job, double_precision, {0}};
  /* whole blocks of lanes per thread, so only the last range ends short */
  int64_t lanes = double_precision ? FFT_LANES_D : FFT_LANES_F;
  nlrt_parallel_ranges(job->lines, lanes, threads, run_lines, &p);
  int failed = 0;
  for (int t = 0; t < NLRT_MAX_RANGE_THREADS; t++)
    failed |= p.failed[t];
  return failed;
}

int nlrt_fft(int fft_type, int double_precision, int64_t batch, int rank,
             const int64_t *lengths, const void *in, void *out) {
  int64_t points = batch;
  for (int a = 0; a < rank; a++)
    points *= lengths[a];
  if (points == 0)
    return 0;
  const int64_t n = lengths[rank - 1];
  const int real = fft_type >= 2, inverse = fft_type == 1 || fft_type == 3;
  /* Complex elements along the last axis, on the complex side. */
  const int64_t last = real ? n / 2 + 1 : n;
  const double scale = inverse ? 1.0 / (double)(points / batch) : 1.0;
  const int threads = points > THREADING_POINTS ? nlrt_thread_count() : 1;
  const size_t complex_size = double_precision ? 2 * sizeof(double) : 2 * sizeof(float);

  fft_plan *plans[3] = {NULL, NULL, NULL};
  int failed = 0;
  for (int a = 0; a < rank && !failed; a++) {
    plans[a] = fft_plan_acquire(lengths[a], real && a == rank - 1);
    failed = !plans[a];
  }
  int64_t rows = points / n; /* lines along the last axis */
  fft_lines last_pass = {
      .kind = real ? (inverse ? FFT_LINES_HALF : FFT_LINES_REAL)
                   : (inverse ? FFT_LINES_INVERSE : FFT_LINES_FORWARD),
      .plan = plans[rank - 1], .in = in, .out = out, .lines = rows, .cols = 1,
      .in_outer_stride = fft_type == 3 ? last : n, .in_element_stride = 1,
      .out_outer_stride = fft_type == 2 ? last : n, .out_element_stride = 1,
      .scale = 1.0};
  /* IRFFT's complex passes go to scratch; the others work in out. */
  void *scratch = NULL;
  const void *source = in;
  void *complex_data = out;
  if (!failed && fft_type == 3 && rank > 1) {
    scratch = malloc((size_t)(rows * last) * complex_size);
    failed = !scratch;
    complex_data = scratch;
    last_pass.in = scratch;
  }
  if (!failed && fft_type != 3) {
    last_pass.scale = rank == 1 ? scale : 1.0;
    failed = run_pass(&last_pass, double_precision, threads);
    source = out;
  }
  /* The other axes, innermost first (any order gives the same result). */
  int64_t inner = last;
  for (int a = rank - 2; a >= 0 && !failed; a--) {
    int64_t length = lengths[a];
    fft_lines pass = {.kind = inverse ? FFT_LINES_INVERSE : FFT_LINES_FORWARD,
                      .plan = plans[a], .in = source, .out = complex_data,
                      .lines = rows * last / length, .cols = inner,
                      .in_outer_stride = length * inner,
                      .in_element_stride = inner,
                      .out_outer_stride = length * inner,
                      .out_element_stride = inner,
                      .scale = a == 0 && fft_type == 1 ? scale : 1.0};
    failed = run_pass(&pass, double_precision, threads);
    source = complex_data;
    inner *= length;
  }
  if (!failed && fft_type == 3) {
    last_pass.scale = scale;
    failed = run_pass(&last_pass, double_precision, threads);
  }
  free(scratch);
  for (int a = 0; a < rank; a++)
    if (plans[a])
      fft_plan_release(plans[a]);
  return failed;
}
