/*===- fft_internal.h - plans and kernels shared by the fft sources -------===*
 *
 * A plan holds everything about one length that does not depend on the
 * data: the factorization into Stockham stages and their twiddles, or the
 * Bluestein chirp and kernel, or (real plans) the half-length complex plan
 * and the post-twiddles. Tables exist in double and in float (the float ones
 * rounded from the double ones), so one plan serves both precisions.
 *
 * Kernels work on "lane" buffers: element j of B transforms at once, stored
 * as B real parts then B imaginary parts. Every inner loop runs over the B
 * lanes with the same twiddle, so it vectorizes whatever the radix or
 * stride. B is 8 for float and 4 for double, 32 bytes: one AVX2 vector,
 * and small enough that a block of 4096-point transforms (two 256 KiB
 * buffers) stays in L2; 16 floats measured 30% slower there.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SERVICES_FFT_INTERNAL_H
#define NLRT_SERVICES_FFT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Hot loops are compiled for three x86 levels and picked at load time: the
 * runtime is built for baseline x86-64 and runs on other machines. Not
 * under ThreadSanitizer: the clones' ifunc resolvers run before its runtime
 * is set up, and the program crashes at startup. */
#if defined(__SANITIZE_THREAD__) && !defined(NLRT_FFT_NO_CLONES)
#define NLRT_FFT_NO_CLONES
#endif
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(NLRT_FFT_NO_CLONES)
#define FFT_HOT                                                                \
  __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#endif
#endif
#ifndef FFT_HOT
#define FFT_HOT
#endif

/* Loops over the lanes of a block: the pointers of a butterfly's outputs
 * never overlap, which GCC cannot prove and would otherwise check at run
 * time (or, past its limit of checks, not vectorize at all); and the loop
 * must stay a loop, not be unrolled into scalars before the vectorizer
 * sees it. */
#if defined(__GNUC__) && !defined(__clang__)
#define FFT_LANES_LOOP(b, count)                                               \
  _Pragma("GCC ivdep") _Pragma("GCC unroll 1") for (int b = 0; b < (count); b++)
#else
#define FFT_LANES_LOOP(b, count) for (int b = 0; b < (count); b++)
#endif

#define FFT_LANES_F 8
#define FFT_LANES_D 4

/* The largest prime a generic butterfly handles; the cost model sends most
 * lengths with primes above ~50 to Bluestein long before this. */
#define FFT_MAX_GENERIC_RADIX 127
#define FFT_MAX_STAGES 64

typedef struct fft_stage {
  int radix;
  int64_t m;      /* transforms of this length follow the stage */
  int64_t s;      /* stride: the product of earlier radices */
  size_t twiddle; /* complex offset of (radix-1)*m twiddles */
  size_t roots;   /* generic radix: complex offset of its radix roots */
} fft_stage;

typedef struct fft_plan {
  int64_t n;
  int real; /* a real plan: `half` does the complex work */
  /* Lane elements each of the three work buffers needs. */
  int64_t buffer_length;
  int nstages;
  fft_stage stages[FFT_MAX_STAGES];
  double *twiddles_d; /* complex pairs */
  float *twiddles_f;
  /* Bluestein: a plan of length `sub->n` >= 2n-1 does the convolution. */
  struct fft_plan *sub;
  double *chirp_d, *kernel_d; /* exp(-i pi k^2/n); FFT of the conjugate / m */
  float *chirp_f, *kernel_f;
  /* Real plans: the complex plan of length n/2 (even n) or n (odd n), and
   * for even n exp(-2 pi i k/n) for k = 0..n/2. */
  struct fft_plan *half;
  double *real_twiddles_d;
  float *real_twiddles_f;
  /* Cache bookkeeping, under the cache's mutex. */
  int references;
  int cached;
} fft_plan;

/* A plan of length n (complex, or real when `real`), shared through the
 * cache; NULL if memory ran out. Give it back with fft_plan_release. */
fft_plan *fft_plan_acquire(int64_t n, int real);
void fft_plan_release(fft_plan *plan);

/* exp(2 pi i k/n), accurate to about half an ulp whatever k and n. */
void fft_unit_root(int64_t k, int64_t n, double *c, double *s);

enum fft_line_kind {
  FFT_LINES_FORWARD,  /* complex -> complex */
  FFT_LINES_INVERSE,  /* complex -> complex, exp(+...) */
  FFT_LINES_REAL,     /* real n -> complex n/2+1 */
  FFT_LINES_HALF      /* complex n/2+1 -> real n, exp(+...) */
};

/* One pass: `lines` 1-D transforms of plan->n points. Line i starts at
 * element (i / cols) * outer_stride + (i % cols) of its array and steps by
 * element_stride (elements are complex or real as the kind says). */
typedef struct fft_lines {
  enum fft_line_kind kind;
  const fft_plan *plan;
  const void *in;
  void *out;
  int64_t lines, cols;
  int64_t in_outer_stride, in_element_stride;
  int64_t out_outer_stride, out_element_stride;
  double scale; /* multiplies every output */
} fft_lines;

/* Lines [first, end) of the pass, in blocks of the lane count; nonzero if
 * memory ran out. */
int fft_lines_f(const fft_lines *job, int64_t first, int64_t end);
int fft_lines_d(const fft_lines *job, int64_t first, int64_t end);

/* A complex forward transform of one double line in place-ish: x, w1 and w2
 * hold plan->buffer_length complex values each; returns the one holding the
 * result. For plan building (Bluestein kernels). */
double *fft_execute_d1(const fft_plan *plan, double *x, double *w1, double *w2);

#endif /* NLRT_SERVICES_FFT_INTERNAL_H */
