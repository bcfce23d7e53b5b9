/*===- fft_test.c - the FFT library against a long double DFT -------------===*
 *
 * Built from the fft sources directly (their symbols are hidden inside
 * libnlrt), by test/python/test_runtime_fft.py:
 *   cc -std=c11 -O2 -D_GNU_SOURCE -pthread -I runtime/lib/services/fft \
 *      runtime/test/fft_test.c runtime/lib/services/fft/\*.c -lm
 * Every transform is compared with a separable O(n^2) DFT in long double,
 * per batch item, in the L2 norm: ||got - want|| <= tol * log2(N+1) * ||want||
 * with tol 1.2e-7 for float and 2.5e-16 for double (a few times the worst
 * errors seen). Prints each failure and returns the failure count.
 *
 *===----------------------------------------------------------------------===*/

#include "fft.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(condition, ...)                                                  \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__,         \
              #condition);                                                     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static const char *type_names[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
static double worst[2]; /* the largest error / bound seen, per precision */

static uint64_t random_state = 0x9e3779b97f4a7c15u;
static double uniform(void) { /* [-1, 1) */
  random_state = random_state * 6364136223846793005u + 1442695040888963407u;
  return (double)(random_state >> 11) * 0x1p-52 - 1.0;
}

typedef struct shape {
  int64_t batch;
  int rank;
  int64_t lengths[3];
} shape;

static int64_t product(const int64_t *lengths, int count) {
  int64_t p = 1;
  for (int i = 0; i < count; i++)
    p *= lengths[i];
  return p;
}

/* Elements (complex or real) per batch item of the input and output. */
static int64_t item_count(const shape *s, int half_last) {
  int64_t n = s->lengths[s->rank - 1];
  return product(s->lengths, s->rank - 1) * (half_last ? n / 2 + 1 : n);
}

/* An in-place DFT of `length` complex values at stride `stride`. */
/* With `every` > 1 only every every-th output (and the last few) is
 * computed; the others become NaN, which the comparison skips. */
static void dft(long double *re, long double *im, int64_t length, int64_t stride,
                int sign, long double *scratch, int64_t every) {
  const long double pi = 3.141592653589793238462643383279502884L;
  long double *roots = malloc(2 * length * sizeof(long double));
  for (int64_t k = 0; k < length; k++) {
    long double angle = sign * 2 * pi * (long double)k / (long double)length;
    roots[2 * k] = cosl(angle);
    roots[2 * k + 1] = sinl(angle);
  }
  for (int64_t j = 0; j < length; j++) {
    long double sr = 0, si = 0;
    if (j % every && j + 4 < length) {
      scratch[2 * j] = scratch[2 * j + 1] = NAN;
      continue;
    }
    for (int64_t k = 0, jk = 0; k < length; k++) {
      long double c = roots[2 * jk], s = roots[2 * jk + 1];
      long double xr = re[k * stride], xi = im[k * stride];
      sr += xr * c - xi * s;
      si += xr * s + xi * c;
      jk += j;
      if (jk >= length)
        jk -= length;
    }
    scratch[2 * j] = sr;
    scratch[2 * j + 1] = si;
  }
  for (int64_t j = 0; j < length; j++) {
    re[j * stride] = scratch[2 * j];
    im[j * stride] = scratch[2 * j + 1];
  }
  free(roots);
}

/* Long 1-D references compute ~500 outputs, with strides prime to n. */
static int64_t sampling(int64_t n) {
  if (n <= 2000)
    return 1;
  int64_t every = n / 500;
  while (n % every == 0 || every % 2 == 0)
    every++;
  return every;
}

/* The DFT of one item along every axis, in place on a full (n_0..n_r-1)
 * complex array. */
static void dft_all_axes(long double *re, long double *im, const shape *s,
                         int sign, long double *scratch) {
  int64_t total = product(s->lengths, s->rank);
  for (int a = 0; a < s->rank; a++) {
    int64_t length = s->lengths[a], inner = product(s->lengths + a + 1, s->rank - a - 1);
    for (int64_t line = 0; line < total / length; line++) {
      int64_t outer = line / inner, col = line % inner;
      int64_t base = outer * length * inner + col;
      dft(re + base, im + base, length, inner, sign, scratch, s->rank == 1 ? sampling(length) : 1);
    }
  }
}

/* The expected output of one batch item: `in` holds it as long doubles
 * (pairs for complex), `want` receives the output likewise. */
static void reference(int type, const shape *s, const long double *in,
                      long double *want) {
  int64_t n = s->lengths[s->rank - 1], h = n / 2;
  int64_t rows = product(s->lengths, s->rank - 1), total = rows * n;
  long double *re = malloc(total * sizeof(long double));
  long double *im = malloc(total * sizeof(long double));
  long double *scratch = malloc(2 * (total + 1) * sizeof(long double));
  for (int64_t r = 0; r < rows; r++)
    for (int64_t k = 0; k < n; k++) {
      int64_t i = r * n + k;
      if (type < 2) {
        re[i] = in[2 * i];
        im[i] = in[2 * i + 1];
      } else if (type == 2) {
        re[i] = in[i];
        im[i] = 0;
      }
    }
  if (type == 3) {
    /* numpy's irfftn: inverse DFTs of the half spectrum along the leading
     * axes, then the Hermitian extension along the last one (imaginary
     * parts of its DC and Nyquist bins dropped) and an inverse DFT. */
    shape lead = *s;
    lead.lengths[s->rank - 1] = h + 1;
    int64_t half_total = rows * (h + 1);
    long double *hr = malloc(half_total * sizeof(long double));
    long double *hi = malloc(half_total * sizeof(long double));
    for (int64_t i = 0; i < half_total; i++) {
      hr[i] = in[2 * i];
      hi[i] = in[2 * i + 1];
    }
    for (int a = 0; a < s->rank - 1; a++) {
      int64_t length = lead.lengths[a], inner = product(lead.lengths + a + 1, s->rank - a - 1);
      for (int64_t line = 0; line < half_total / length; line++) {
        int64_t base = line / inner * length * inner + line % inner;
        dft(hr + base, hi + base, length, inner, 1, scratch, 1);
      }
    }
    for (int64_t r = 0; r < rows; r++) {
      for (int64_t k = 0; k < n; k++) {
        int64_t i = r * n + k, src = k <= h ? k : n - k;
        long double xr = hr[r * (h + 1) + src], xi = hi[r * (h + 1) + src];
        re[i] = xr;
        im[i] = (k == 0 || 2 * k == n) ? 0 : (k <= h ? xi : -xi);
      }
      dft(re + r * n, im + r * n, n, 1, 1, scratch, s->rank == 1 ? sampling(n) : 1);
      for (int64_t k = 0; k < n; k++)
        want[r * n + k] = re[r * n + k] / (long double)product(s->lengths, s->rank);
    }
    free(hr);
    free(hi);
  } else {
    dft_all_axes(re, im, s, type == 1 ? 1 : -1, scratch);
    long double scale = type == 1 ? 1.0L / (long double)total : 1.0L;
    for (int64_t r = 0; r < rows; r++)
      for (int64_t k = 0; k < (type == 2 ? h + 1 : n); k++) {
        int64_t o = type == 2 ? r * (h + 1) + k : r * n + k;
        want[2 * o] = re[r * n + k] * scale;
        want[2 * o + 1] = im[r * n + k] * scale;
      }
  }
  free(re);
  free(im);
  free(scratch);
}

static long double element(const void *data, int dp, int64_t i) {
  return dp ? ((const double *)data)[i] : ((const float *)data)[i];
}

/* Random input for every item (item `nan_item`, if >= 0, gets a NaN), the
 * call, and the comparison item by item. */
static void check(int type, int dp, const shape *s, int64_t nan_item,
                  const char *label) {
  int in_complex = type != 2, out_complex = type != 3;
  int64_t in_items = item_count(s, type == 3) * (in_complex ? 2 : 1);
  int64_t out_items = item_count(s, type == 2) * (out_complex ? 2 : 1);
  size_t size = dp ? sizeof(double) : sizeof(float);
  void *in = malloc(s->batch * in_items * size);
  void *copy = malloc(s->batch * in_items * size);
  void *out = malloc(s->batch * out_items * size);
  for (int64_t i = 0; i < s->batch * in_items; i++) {
    double v = uniform();
    if (dp)
      ((double *)in)[i] = v;
    else
      ((float *)in)[i] = (float)v;
  }
  if (nan_item >= 0) {
    if (dp)
      ((double *)in)[nan_item * in_items] = NAN;
    else
      ((float *)in)[nan_item * in_items] = NAN;
  }
  memcpy(copy, in, s->batch * in_items * size);
  memset(out, 0xff, s->batch * out_items * size);
  int status = nlrt_fft(type, dp, s->batch, s->rank, s->lengths, in, out);
  CHECK(status == 0, "%s: status %d", label, status);
  CHECK(memcmp(copy, in, s->batch * in_items * size) == 0, "%s: input modified", label);
  long double *x = malloc(in_items * sizeof(long double));
  long double *want = malloc(out_items * sizeof(long double));
  int64_t total = product(s->lengths, s->rank);
  double bound = (dp ? 2.5e-16 : 1.2e-7) * log2((double)total + 1);
  for (int64_t item = 0; item < s->batch; item++) {
    if (item == nan_item) {
      for (int64_t i = 0; i < out_items; i += out_complex ? 2 : 1) {
        long double v = element(out, dp, item * out_items + i);
        long double w = out_complex ? element(out, dp, item * out_items + i + 1) : 0;
        if (!isnan(v) && !isnan(w)) {
          CHECK(0, "%s: item %lld element %lld is not NaN", label, (long long)item,
                (long long)i);
          break;
        }
      }
      continue;
    }
    /* Large batches: a sample of items, including ones next to the NaN
     * and in the last, partial block of lanes. */
    if (s->batch > 40 && item > 3 && item % 17 && item + 1 != s->batch &&
        item != nan_item + 1 && item + 1 != nan_item)
      continue;
    for (int64_t i = 0; i < in_items; i++)
      x[i] = element(in, dp, item * in_items + i);
    reference(type, s, x, want);
    long double error = 0, norm = 0;
    for (int64_t i = 0; i < out_items; i++) {
      if (isnan(want[i])) /* not computed */
        continue;
      long double d = element(out, dp, item * out_items + i) - want[i];
      error += d * d;
      norm += want[i] * want[i];
    }
    double relative = (double)sqrtl(error / (norm > 0 ? norm : 1));
    if (relative / bound > worst[dp])
      worst[dp] = relative / bound;
    if (!(relative <= bound)) {
      CHECK(0, "%s: item %lld relative error %.3g > %.3g", label, (long long)item,
            relative, bound);
      break;
    }
  }
  free(in);
  free(copy);
  free(out);
  free(x);
  free(want);
}

/* The types in `types` (a bit mask), both precisions. */
static void check_types(const shape *s, int64_t nan_item, int types) {
  for (int dp = 0; dp < 2; dp++)
    for (int type = 0; type < 4; type++) {
      if (!(types >> type & 1))
        continue;
      char label[160];
      snprintf(label, sizeof(label), "%s %s batch %lld lengths (%lld, %lld, %lld)[:%d]",
               type_names[type], dp ? "double" : "float", (long long)s->batch,
               (long long)s->lengths[0], (long long)s->lengths[1],
               (long long)s->lengths[2], s->rank);
      check(type, dp, s, nan_item, label);
    }
}

static void check_all_types(const shape *s, int64_t nan_item) { check_types(s, nan_item, 15); }

/* IFFT(FFT(x)) and IRFFT(RFFT(x)) give x back. */
static void check_round_trips(int dp, const shape *s) {
  int64_t count = s->batch * item_count(s, 0);
  size_t size = dp ? sizeof(double) : sizeof(float);
  void *x = malloc(2 * count * size), *y = malloc(2 * count * size);
  void *z = malloc(2 * count * size);
  for (int64_t i = 0; i < 2 * count; i++) {
    if (dp)
      ((double *)x)[i] = uniform();
    else
      ((float *)x)[i] = (float)uniform();
  }
  double bound = (dp ? 5e-16 : 2.4e-7) * log2((double)product(s->lengths, s->rank) + 1);
  for (int real = 0; real < 2; real++) {
    int64_t values = real ? count : 2 * count;
    CHECK(nlrt_fft(real ? 2 : 0, dp, s->batch, s->rank, s->lengths, x, y) == 0, "status");
    CHECK(nlrt_fft(real ? 3 : 1, dp, s->batch, s->rank, s->lengths, y, z) == 0, "status");
    long double error = 0, norm = 0;
    for (int64_t i = 0; i < values; i++) {
      long double d = element(z, dp, i) - element(x, dp, i);
      error += d * d;
      norm += element(x, dp, i) * element(x, dp, i);
    }
    double relative = (double)sqrtl(error / norm);
    CHECK(relative <= bound, "%s round trip of length %lld: %.3g > %.3g",
          real ? "real" : "complex", (long long)s->lengths[s->rank - 1], relative, bound);
  }
  free(x);
  free(y);
  free(z);
}

/* Several threads transforming many lengths at once: more lengths than the
 * plan cache holds, so plans are evicted while others still use them. */
typedef struct concurrent {
  int first;
  int failed;
} concurrent;

static void *concurrent_worker(void *argument) {
  concurrent *c = argument;
  for (int round = 0; round < 3; round++)
    for (int n = c->first; n < c->first + 48; n++) {
      double x[2 * 100], y[2 * 100], z[2 * 100];
      for (int i = 0; i < 2 * n; i++)
        x[i] = (double)((i * 7919 + n) % 101) / 50.0 - 1.0;
      int64_t length = n;
      if (nlrt_fft(0, 1, 1, 1, &length, x, y) || nlrt_fft(1, 1, 1, 1, &length, y, z))
        c->failed = 1;
      for (int i = 0; i < 2 * n; i++)
        if (fabs(z[i] - x[i]) > 1e-13)
          c->failed = 1;
    }
  return NULL;
}

int main(void) {
  /* Every length up to 130 and the special ones, one item and several. */
  static const int64_t special[] = {127, 128, 243, 256, 625, 1000, 1024,
                                    2310, 4093, 4096, 8191, 10007, 30030};
  for (int64_t n = 1; n <= 130; n++) {
    shape s = {n % 3 == 0 ? 1 : 19, 1, {n, 1, 1}};
    check_all_types(&s, -1);
  }
  for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
    shape s = {special[i] > 5000 ? 1 : 3, 1, {special[i], 1, 1}};
    check_all_types(&s, -1);
    for (int dp = 0; dp < 2; dp++)
      check_round_trips(dp, &s);
  }
  /* Ranks 2 and 3, odd and even last axes. */
  static const shape multi[] = {{1, 3, {3, 5, 6}}, {2, 3, {7, 8, 9}},
                                {4, 2, {16, 17, 1}}, {3, 2, {1, 1, 1}},
                                {5, 2, {6, 1, 1}}, {2, 2, {1, 7, 1}},
                                {17, 2, {12, 10, 1}}, {2, 3, {4, 1, 2}},
                                {1, 2, {61, 67, 1}}};
  for (size_t i = 0; i < sizeof(multi) / sizeof(multi[0]); i++) {
    check_all_types(&multi[i], -1);
    for (int dp = 0; dp < 2; dp++)
      check_round_trips(dp, &multi[i]);
  }
  /* A NaN in one item poisons that item only. */
  {
    shape rows = {21, 1, {60, 1, 1}}, blue = {3, 1, {4093, 1, 1}};
    shape cube = {3, 3, {4, 5, 6}};
    check_all_types(&rows, 5);
    check_all_types(&blue, 1);
    check_all_types(&cube, 2);
  }
  /* The threaded path: forced to two threads and to one. */
  static const char *settings[] = {"2", "1"};
  for (int i = 0; i < 2; i++) {
    setenv("NUMLIR_NUM_THREADS", settings[i], 1);
    shape rows = {600, 1, {256, 1, 1}}, odd = {301, 1, {500, 1, 1}};
    shape planes = {40, 2, {64, 60, 1}}, cube = {9, 3, {16, 30, 31}};
    check_all_types(&rows, 7);
    check_all_types(&odd, -1);
    check_all_types(&planes, -1);
    check_all_types(&cube, -1);
  }
  unsetenv("NUMLIR_NUM_THREADS");
  {
    pthread_t threads[4];
    concurrent work[4];
    for (int t = 0; t < 4; t++) {
      work[t] = (concurrent){1 + 12 * t, 0};
      pthread_create(&threads[t], NULL, concurrent_worker, &work[t]);
    }
    for (int t = 0; t < 4; t++) {
      pthread_join(threads[t], NULL);
      CHECK(!work[t].failed, "concurrent worker %d", t);
    }
  }
  /* Empty arrays: nothing written. */
  {
    int64_t lengths[2] = {4, 0};
    float sentinel = 7;
    CHECK(nlrt_fft(0, 0, 3, 2, lengths, &sentinel, &sentinel) == 0, "empty");
    CHECK(nlrt_fft(2, 0, 0, 1, lengths, &sentinel, &sentinel) == 0, "empty batch");
    CHECK(sentinel == 7, "empty wrote");
  }
  printf("worst error / bound: float %.3f, double %.3f\n", worst[0], worst[1]);
  printf("%d failures\n", failures);
  return failures != 0;
}
