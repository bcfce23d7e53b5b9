/*===- plan.c - factorizations, twiddle tables and the plan cache ---------===*
 *
 * Twiddles are computed once per length in long double from arguments
 * reduced to the first octant with integer arithmetic, so their error stays
 * near half an ulp of double for every n (a float plan rounds the same
 * values once more). Bluestein's chirp exp(-i pi k^2/n) takes k^2 mod 2n
 * from a running integer sum, exact for any n that fits in memory.
 *
 * Plans are shared through a small LRU cache under a mutex, reference
 * counted: an evicted plan that another thread still uses is freed by its
 * last user. Plans are built outside the lock, so a long build (a Bluestein
 * kernel) never stalls callers of other lengths.
 *
 *===----------------------------------------------------------------------===*/

#include "fft_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void fft_unit_root(int64_t k, int64_t n, double *c, double *s) {
  /* The angle is (pi/4) * a/n with a = 8k in [0, 8n): fold a into [0, n]
   * by the circle's symmetries, exactly, before any rounding. */
  k %= n;
  if (k < 0)
    k += n;
  uint64_t a = 8 * (uint64_t)k, un = (uint64_t)n;
  int conjugate = 0, negate_cos = 0, swap = 0;
  if (a > 4 * un) { /* (pi, 2pi): mirror about the real axis */
    a = 8 * un - a;
    conjugate = 1;
  }
  if (a > 2 * un) { /* (pi/2, pi]: pi - phi */
    a = 4 * un - a;
    negate_cos = 1;
  }
  if (a > un) { /* (pi/4, pi/2]: pi/2 - phi */
    a = 2 * un - a;
    swap = 1;
  }
  long double phi = 0.78539816339744830961566084581987572L * (long double)a /
                    (long double)un;
  double cv = (double)cosl(phi), sv = (double)sinl(phi);
  if (a == 0) {
    cv = 1;
    sv = 0;
  }
  if (swap) {
    double t = cv;
    cv = sv;
    sv = t;
  }
  if (negate_cos)
    cv = -cv;
  if (conjugate)
    sv = -sv;
  *c = cv;
  *s = sv;
}

/*===--- complex plans ----------------------------------------------------===*/

static void plan_free(fft_plan *plan) {
  if (!plan)
    return;
  free(plan->twiddles_d);
  free(plan->twiddles_f);
  free(plan->chirp_d);
  free(plan->kernel_d);
  free(plan->chirp_f);
  free(plan->kernel_f);
  free(plan->real_twiddles_d);
  free(plan->real_twiddles_f);
  plan_free(plan->sub);
  plan_free(plan->half);
  free(plan);
}

/* Relative work of a Stockham stage per point: the dedicated butterflies
 * cost about the same; a generic radix-p one does ~p/2 complex products per
 * output for each of its two sums. */
static double stage_cost(int64_t radix) { return radix <= 8 ? 2.5 : (double)radix; }

/* Splits n into stage radices (8 and 4 first, then 2, 3, 5, and odd primes);
 * returns the count, or -1 if a prime factor exceeds the generic limit. */
static int factorize(int64_t n, int *radices) {
  int count = 0;
  while (n % 8 == 0 && count < FFT_MAX_STAGES) {
    radices[count++] = 8;
    n /= 8;
  }
  while (n % 4 == 0) {
    radices[count++] = 4;
    n /= 4;
  }
  if (n % 2 == 0) {
    radices[count++] = 2;
    n /= 2;
  }
  for (int64_t p = 3; n > 1; p += 2) {
    if (p * p > n)
      p = n; /* what remains is prime */
    while (n % p == 0) {
      if (p > FFT_MAX_GENERIC_RADIX)
        return -1;
      radices[count++] = (int)p;
      n /= p;
    }
  }
  return count;
}

static double direct_cost(int64_t n, const int *radices, int count) {
  double cost = 0;
  for (int i = 0; i < count; i++)
    cost += stage_cost(radices[i]);
  return cost * (double)n;
}

/* The smallest 2^a 3^b 5^c >= n. */
static int64_t good_length(int64_t n) {
  int64_t best = INT64_MAX;
  for (int64_t f5 = 1; f5 < best; f5 *= 5)
    for (int64_t f35 = f5; f35 < best; f35 *= 3) {
      int64_t f = f35;
      while (f < n)
        f *= 2;
      if (f < best)
        best = f;
      if (f35 > INT64_MAX / 3)
        break;
    }
  return best;
}

static int tables_alloc(double **d, float **f, size_t complex_count) {
  size_t count = complex_count ? 2 * complex_count : 2;
  *d = malloc(count * sizeof(double));
  *f = malloc(count * sizeof(float));
  return *d && *f;
}

static void tables_round(const double *d, float *f, size_t complex_count) {
  for (size_t i = 0; i < 2 * complex_count; i++)
    f[i] = (float)d[i];
}

static fft_plan *plan_create_complex(int64_t n);

static int setup_bluestein(fft_plan *plan) {
  int64_t n = plan->n, m = good_length(2 * n - 1);
  plan->sub = plan_create_complex(m);
  if (!plan->sub || !tables_alloc(&plan->chirp_d, &plan->chirp_f, (size_t)n) ||
      !tables_alloc(&plan->kernel_d, &plan->kernel_f, (size_t)m))
    return 0;
  plan->buffer_length = plan->sub->buffer_length;
  size_t work = (size_t)plan->sub->buffer_length * 2;
  double *w1 = malloc(work * sizeof(double)), *w2 = malloc(work * sizeof(double));
  if (!w1 || !w2) {
    free(w1);
    free(w2);
    return 0;
  }
  double *b = plan->kernel_d;
  memset(b, 0, (size_t)m * 2 * sizeof(double));
  uint64_t q = 0, two_n = 2 * (uint64_t)n; /* q = k^2 mod 2n */
  for (int64_t k = 0; k < n; k++) {
    double c, s;
    fft_unit_root((int64_t)q, (int64_t)two_n, &c, &s);
    plan->chirp_d[2 * k] = c;
    plan->chirp_d[2 * k + 1] = -s;
    b[2 * k] = c;
    b[2 * k + 1] = s;
    if (k) {
      b[2 * (m - k)] = c;
      b[2 * (m - k) + 1] = s;
    }
    q = (q + 2 * (uint64_t)k + 1) % two_n;
  }
  double *spectrum = fft_execute_d1(plan->sub, b, w1, w2);
  for (int64_t i = 0; i < 2 * m; i++)
    plan->kernel_d[i] = spectrum[i] / (double)m;
  free(w1);
  free(w2);
  tables_round(plan->chirp_d, plan->chirp_f, (size_t)n);
  tables_round(plan->kernel_d, plan->kernel_f, (size_t)m);
  return 1;
}

static int setup_stages(fft_plan *plan, const int *radices, int count) {
  int64_t n = plan->n;
  size_t total = 0;
  for (int64_t i = 0, length = n; i < count; i++) {
    int64_t r = radices[i];
    length /= r;
    total += (size_t)((r - 1) * length);
    if (r > 5 && r != 8)
      total += (size_t)r;
  }
  if (!tables_alloc(&plan->twiddles_d, &plan->twiddles_f, total))
    return 0;
  double *tw = plan->twiddles_d;
  size_t used = 0;
  int64_t length = n, stride = 1;
  for (int i = 0; i < count; i++) {
    int r = radices[i];
    int64_t m = length / r;
    fft_stage *stage = &plan->stages[i];
    stage->radix = r;
    stage->m = m;
    stage->s = stride;
    stage->twiddle = used;
    for (int64_t p = 0; p < m; p++)
      for (int j = 1; j < r; j++, used++)
        fft_unit_root(-(int64_t)j * p, length, &tw[2 * used], &tw[2 * used + 1]);
    stage->roots = used;
    if (r > 5 && r != 8)
      for (int k = 0; k < r; k++, used++)
        fft_unit_root(k, r, &tw[2 * used], &tw[2 * used + 1]);
    stride *= r;
    length = m;
  }
  plan->nstages = count;
  tables_round(plan->twiddles_d, plan->twiddles_f, used);
  return 1;
}

static fft_plan *plan_create_complex(int64_t n) {
  fft_plan *plan = calloc(1, sizeof(fft_plan));
  if (!plan)
    return NULL;
  plan->n = n;
  plan->buffer_length = n;
  int radices[FFT_MAX_STAGES];
  int count = factorize(n, radices);
  int bluestein = count < 0;
  if (!bluestein && n > 64) {
    int64_t m = good_length(2 * n - 1);
    int sub_radices[FFT_MAX_STAGES];
    int sub_count = factorize(m, sub_radices);
    bluestein = 2 * direct_cost(m, sub_radices, sub_count) + 6.0 * (double)m <
                direct_cost(n, radices, count);
  }
  int ok = bluestein ? setup_bluestein(plan) : setup_stages(plan, radices, count);
  if (!ok) {
    plan_free(plan);
    return NULL;
  }
  return plan;
}

static fft_plan *plan_create_real(int64_t n) {
  fft_plan *plan = calloc(1, sizeof(fft_plan));
  if (!plan)
    return NULL;
  plan->n = n;
  plan->real = 1;
  int64_t h = n / 2;
  plan->half = plan_create_complex(n % 2 ? n : h);
  if (!plan->half)
    goto fail;
  plan->buffer_length = plan->half->buffer_length + 1;
  if (n % 2 == 0) {
    if (!tables_alloc(&plan->real_twiddles_d, &plan->real_twiddles_f, (size_t)h + 1))
      goto fail;
    for (int64_t k = 0; k <= h; k++)
      fft_unit_root(-k, n, &plan->real_twiddles_d[2 * k],
                    &plan->real_twiddles_d[2 * k + 1]);
    tables_round(plan->real_twiddles_d, plan->real_twiddles_f, (size_t)h + 1);
  }
  return plan;
fail:
  plan_free(plan);
  return NULL;
}

/*===--- the cache --------------------------------------------------------===*/

#define CACHE_SIZE 32

static struct {
  fft_plan *plan;
  uint64_t last_use;
} cache[CACHE_SIZE];
static uint64_t cache_clock;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static fft_plan *cache_find(int64_t n, int real) {
  for (int i = 0; i < CACHE_SIZE; i++)
    if (cache[i].plan && cache[i].plan->n == n && cache[i].plan->real == real) {
      cache[i].last_use = ++cache_clock;
      cache[i].plan->references++;
      return cache[i].plan;
    }
  return NULL;
}

fft_plan *fft_plan_acquire(int64_t n, int real) {
  pthread_mutex_lock(&cache_lock);
  fft_plan *plan = cache_find(n, real);
  pthread_mutex_unlock(&cache_lock);
  if (plan)
    return plan;
  fft_plan *built = real ? plan_create_real(n) : plan_create_complex(n);
  if (!built)
    return NULL;
  pthread_mutex_lock(&cache_lock);
  plan = cache_find(n, real); /* another thread may have built it meanwhile */
  if (plan) {
    pthread_mutex_unlock(&cache_lock);
    plan_free(built);
    return plan;
  }
  built->references = 1;
  int victim = -1;
  for (int i = 0; i < CACHE_SIZE; i++) {
    if (!cache[i].plan) {
      victim = i;
      break;
    }
    if (victim < 0 || cache[i].last_use < cache[victim].last_use)
      victim = i;
  }
  fft_plan *evicted = cache[victim].plan;
  if (evicted) {
    evicted->cached = 0;
    if (evicted->references)
      evicted = NULL; /* its last user frees it */
  }
  built->cached = 1;
  cache[victim].plan = built;
  cache[victim].last_use = ++cache_clock;
  pthread_mutex_unlock(&cache_lock);
  plan_free(evicted);
  return built;
}

void fft_plan_release(fft_plan *plan) {
  pthread_mutex_lock(&cache_lock);
  int unused = --plan->references == 0 && !plan->cached;
  pthread_mutex_unlock(&cache_lock);
  if (unused)
    plan_free(plan);
}
