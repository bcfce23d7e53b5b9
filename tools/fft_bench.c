/*===- fft_bench.c - times the runtime FFT on the jax.lax.fft targets -----===*
 *
 * Build and run from the repository root (NUMLIR_NUM_THREADS=1 for one
 * thread; unset, all the CPUs the process may use):
 *   cc -std=c11 -O3 -ffp-contract=fast -D_GNU_SOURCE -pthread \
 *      -I runtime/lib/services/fft tools/fft_bench.c \
 *      runtime/lib/services/fft/\*.c runtime/lib/services/parallel_ranges.c \
 *      -o /tmp/fft_bench -lm && /tmp/fft_bench
 * Prints the best and median of 30 calls of each workload, after a warm-up
 * call that builds the plans.
 *
 *===----------------------------------------------------------------------===*/

#include "fft.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void bench(const char *name, int type, int64_t batch, int rank,
                  const int64_t *lengths, size_t in_floats, size_t out_floats,
                  double target_ms) {
  float *in = malloc(in_floats * sizeof(float));
  float *out = malloc(out_floats * sizeof(float));
  for (size_t i = 0; i < in_floats; i++)
    in[i] = (float)((double)rand() / RAND_MAX - 0.5);
  enum { RUNS = 30 };
  double times[RUNS];
  if (nlrt_fft(type, 0, batch, rank, lengths, in, out))
    abort();
  for (int r = 0; r < RUNS; r++) {
    double start = now();
    nlrt_fft(type, 0, batch, rank, lengths, in, out);
    times[r] = now() - start;
  }
  qsort(times, RUNS, sizeof(double), compare);
  printf("%-28s best %7.2f ms  median %7.2f ms  (jax/ducc0 target %5.1f ms)\n", name,
         1e3 * times[0], 1e3 * times[RUNS / 2], target_ms);
  free(in);
  free(out);
}

int main(void) {
  const char *threads = getenv("NUMLIR_NUM_THREADS");
  printf("NUMLIR_NUM_THREADS=%s\n", threads ? threads : "(unset)");
  int64_t n4096 = 4096, n4093 = 4093, plane[2] = {256, 256};
  bench("256 x c64 fft 4096", 0, 256, 1, &n4096, 256 * 4096 * 2, 256 * 4096 * 2, 1.7);
  bench("256 x c64 fft 4093", 0, 256, 1, &n4093, 256 * 4093 * 2, 256 * 4093 * 2, 17.6);
  bench("rfft2 32x256x256 f32", 2, 32, 2, plane, 32 * 256 * 256, 32 * 256 * 129 * 2, 5.0);
  bench("irfft2 32x256x256 f32", 3, 32, 2, plane, 32 * 256 * 129 * 2, 32 * 256 * 256, 5.0);
  return 0;
}
