/*===- reduce.c - elementwise combining loops of the collectives ---------===*
 *
 * One loop per (kind, dtype), made by macros and compiled with -O3 (see
 * CMakeLists.txt): each step combines two rows element by element, so the
 * loops vectorize across elements and never reassociate across replicas. A
 * collective's result is ((x0 op x1) op x2) ... in group order, bit for bit
 * the same on every member whichever thread computes it.
 *
 *===----------------------------------------------------------------------===*/

#include "reduce.h"

#include <stdint.h>
#include <string.h>

/*===--- 16-bit floats, rounded to nearest even at every step -------------===*/

static float float_from_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

static uint32_t bits_from_float(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

static float bf16_to_float(uint16_t h) { return float_from_bits((uint32_t)h << 16); }

static uint16_t bf16_from_float(float value) {
  uint32_t bits = bits_from_float(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it a quiet NaN */
    return (uint16_t)((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

static float f16_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f) /* inf, NaN */
    return float_from_bits(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) { /* zero, subnormal: mantissa units of 2^-24 */
    float magnitude = (float)mantissa * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return float_from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

static uint16_t f16_from_float(float value) {
  uint32_t bits = bits_from_float(value);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) /* NaN */
    return (uint16_t)(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u) /* 65520 and up round to inf */
    return (uint16_t)(sign | 0x7c00u);
  if (magnitude >= 0x38800000u) { /* a normal f16: rebias, round */
    uint32_t rebiased = magnitude - 0x38000000u;
    rebiased += 0xfffu + ((rebiased >> 13) & 1u);
    return (uint16_t)(sign | (rebiased >> 13));
  }
  /* Subnormal: the value in units of 2^-24 is M * 2^(e - 126) for the
   * 24-bit significand M; shift it down, rounding to even. */
  uint32_t exponent = magnitude >> 23;
  if (exponent < 102) /* below 2^-25: rounds to zero */
    return sign;
  uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exponent; /* 14 .. 24 */
  uint32_t quotient = significand >> shift;
  uint32_t remainder = significand & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (remainder > half || (remainder == half && (quotient & 1u)))
    ++quotient;
  return (uint16_t)(sign | quotient);
}

/*===--- The loops ---------------------------------------------------------===*/

/* Each loop is built three times, for baseline x86-64, AVX2 and AVX-512,
 * and the lookup picks the widest the host runs: the rows a collective
 * combines are often in the cache, where the loop's width, not memory,
 * sets its speed. (Chosen by a plain check, not an ifunc: ifunc resolvers
 * run before a sanitizer's runtime is up.) None contracts a*b+c into a
 * fused multiply-add (-ffp-contract=off), so all three give the same bits. */
#if defined(__x86_64__)
#define TARGET_AVX2 __attribute__((target("avx2")))
#define TARGET_AVX512 __attribute__((target("avx512f")))
#else
#define TARGET_AVX2
#define TARGET_AVX512
#endif

/* The two loops of `expression`, whose `a` comes before `b` in group
 * order: `name` combines the next member's value after the accumulated
 * one, and `name##_before` an earlier member's (or members') value before
 * it, so that a member's own row can accumulate in place wherever it
 * stands. */
#define REDUCE_ONE(name, type, expression, target, a_row, b_row)               \
  target static void name(void *accumulator_, const void *operand_,            \
                          size_t count) {                                      \
    type *restrict accumulator = accumulator_;                                 \
    const type *restrict operand = operand_;                                   \
    for (size_t i = 0; i < count; ++i) {                                       \
      type a = a_row[i], b = b_row[i];                                         \
      accumulator[i] = (expression);                                           \
    }                                                                          \
  }
#define REDUCE_PAIR(name, type, expression, target)                            \
  REDUCE_ONE(name, type, expression, target, accumulator, operand)             \
  REDUCE_ONE(name##_before, type, expression, target, operand, accumulator)
#define REDUCE_LOOP(name, type, expression)                                    \
  REDUCE_PAIR(name, type, expression, )                                        \
  REDUCE_PAIR(name##_avx2, type, expression, TARGET_AVX2)                      \
  REDUCE_PAIR(name##_avx512, type, expression, TARGET_AVX512)

/* NaN wins (the earlier one in group order when both are). */
#define FLOAT_MAX(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) > (b) ? (a) : (b))
#define FLOAT_MIN(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) < (b) ? (a) : (b))

/* `expression` of a and b, except that of two NaNs the earlier one's
 * payload wins (quieted, as the operation would). With one NaN operand the
 * hardware keeps its payload; with two, the first operand's, and which one
 * a compiler puts first (the operations commute) may differ between a
 * loop's vector body and its scalar tail, so the bits would depend on how
 * the elements were split between threads and processes. */
#define NAN_FIRST(a, b, expression) ((a) != (a) ? (a) + 0 : (expression))

/* Float sums start from +0, as XLA's all-reduce does: `+ 0` makes the sum
 * of a group of -0s +0 (jax.pmap's psum of -0.0 on 2 devices is +0.0) and
 * changes nothing else, NaN payloads included. A group of one is a copy and
 * keeps its -0, as jax's does. */
#define FLOAT_LOOPS(suffix, type)                                              \
  REDUCE_LOOP(sum_##suffix, type, NAN_FIRST(a, b, a + b + (type)0))            \
  REDUCE_LOOP(prod_##suffix, type, NAN_FIRST(a, b, a * b))                     \
  REDUCE_LOOP(max_##suffix, type, FLOAT_MAX(a, b))                             \
  REDUCE_LOOP(min_##suffix, type, FLOAT_MIN(a, b))
FLOAT_LOOPS(f32, float)
FLOAT_LOOPS(f64, double)

/* 16-bit floats compute in f32 and round back; max and min keep the
 * winner's bits. */
#define HALF_LOOPS(suffix, to_float, from_float)                               \
  REDUCE_LOOP(sum_##suffix, uint16_t,                                          \
              from_float(NAN_FIRST(to_float(a), to_float(b),                   \
                                   to_float(a) + to_float(b) + 0.0f)))         \
  REDUCE_LOOP(prod_##suffix, uint16_t,                                         \
              from_float(NAN_FIRST(to_float(a), to_float(b),                   \
                                   to_float(a) * to_float(b))))                \
  REDUCE_LOOP(max_##suffix, uint16_t,                                          \
              to_float(a) != to_float(a)   ? a                                 \
              : to_float(b) != to_float(b) ? b                                 \
              : to_float(a) > to_float(b)  ? a                                 \
                                           : b)                                \
  REDUCE_LOOP(min_##suffix, uint16_t,                                          \
              to_float(a) != to_float(a)   ? a                                 \
              : to_float(b) != to_float(b) ? b                                 \
              : to_float(a) < to_float(b)  ? a                                 \
                                           : b)
HALF_LOOPS(f16, f16_to_float, f16_from_float)
HALF_LOOPS(bf16, bf16_to_float, bf16_from_float)

/* Integers add and multiply in the unsigned type of their width, which
 * wraps (two's complement) where the signed one would be undefined. */
#define INTEGER_LOOPS(suffix, type, unsigned_type)                             \
  REDUCE_LOOP(sum_##suffix, type,                                              \
              (type)((unsigned_type)a + (unsigned_type)b))                     \
  REDUCE_LOOP(prod_##suffix, type,                                             \
              (type)((unsigned_type)a * (unsigned_type)b))                     \
  REDUCE_LOOP(max_##suffix, type, a > b ? a : b)                               \
  REDUCE_LOOP(min_##suffix, type, a < b ? a : b)                               \
  REDUCE_LOOP(and_##suffix, type, (type)(a & b))                               \
  REDUCE_LOOP(or_##suffix, type, (type)(a | b))
/* Narrow types promote to int before multiplying: multiply as unsigned int
 * so 0xffff * 0xffff cannot overflow a signed int. */
INTEGER_LOOPS(i8, int8_t, unsigned)
INTEGER_LOOPS(i16, int16_t, unsigned)
INTEGER_LOOPS(i32, int32_t, uint32_t)
INTEGER_LOOPS(i64, int64_t, uint64_t)
INTEGER_LOOPS(ui8, uint8_t, unsigned)
INTEGER_LOOPS(ui16, uint16_t, unsigned)
INTEGER_LOOPS(ui32, uint32_t, uint32_t)
INTEGER_LOOPS(ui64, uint64_t, uint64_t)

/* i1 is a byte per element; any non-zero byte is true, results are 0 or 1. */
REDUCE_LOOP(and_i1, uint8_t, (uint8_t)((a != 0) & (b != 0)))
REDUCE_LOOP(or_i1, uint8_t, (uint8_t)((a != 0) | (b != 0)))

/* Complex numbers are (real, imaginary) pairs; the product is the textbook
 * formula, with no special handling of infinities (as XLA's), nor of NaN
 * payloads, which it mixes from four products. As in REDUCE_LOOP, (ar, ai)
 * comes before (br, bi) in group order. */
#define COMPLEX_LOOP(name, type, accumulator_first, real, imaginary, target)   \
  target static void name(void *accumulator_, const void *operand_,            \
                          size_t count) {                                      \
    type *restrict accumulator = accumulator_;                                 \
    const type *restrict operand = operand_;                                   \
    for (size_t i = 0; i < count; ++i) {                                       \
      const type *x = accumulator + 2 * i, *y = operand + 2 * i;               \
      const type *a = accumulator_first ? x : y;                               \
      const type *b = accumulator_first ? y : x;                               \
      type ar = a[0], ai = a[1], br = b[0], bi = b[1];                         \
      accumulator[2 * i] = (real);                                             \
      accumulator[2 * i + 1] = (imaginary);                                    \
    }                                                                          \
  }
#define COMPLEX_PAIR(name, type, real, imaginary, target)                      \
  COMPLEX_LOOP(name, type, 1, real, imaginary, target)                         \
  COMPLEX_LOOP(name##_before, type, 0, real, imaginary, target)
#define COMPLEX_LOOPS(name, type, real, imaginary)                             \
  COMPLEX_PAIR(name, type, real, imaginary, )                                  \
  COMPLEX_PAIR(name##_avx2, type, real, imaginary, TARGET_AVX2)                \
  COMPLEX_PAIR(name##_avx512, type, real, imaginary, TARGET_AVX512)
/* Sums start from +0, as FLOAT_LOOPS', each part its own NAN_FIRST. */
COMPLEX_LOOPS(sum_c64, float, NAN_FIRST(ar, br, ar + br + 0.0f),
              NAN_FIRST(ai, bi, ai + bi + 0.0f))
COMPLEX_LOOPS(sum_c128, double, NAN_FIRST(ar, br, ar + br + 0.0),
              NAN_FIRST(ai, bi, ai + bi + 0.0))
/* Products stay baseline code under every width's name: with AVX-512, GCC
 * makes a*b - c*d a fused multiply-add even under -ffp-contract=off, which
 * changes values where a product overflows (inf - inf is NaN, fused it is
 * -inf). */
#define COMPLEX_PRODUCTS(name, type)                                           \
  COMPLEX_PAIR(name, type, ar * br - ai * bi, ar * bi + ai * br, )             \
  COMPLEX_PAIR(name##_avx2, type, ar * br - ai * bi, ar * bi + ai * br, )      \
  COMPLEX_PAIR(name##_avx512, type, ar * br - ai * bi, ar * bi + ai * br, )
COMPLEX_PRODUCTS(prod_c64, float)
COMPLEX_PRODUCTS(prod_c128, double)

/*===--- Lookup ------------------------------------------------------------===*/

#define NUM_KINDS 6
#define NUM_DTYPES 15

#define BASELINE(loop) {loop, loop##_before}
#define AVX2(loop) {loop##_avx2, loop##_avx2_before}
#define AVX512(loop) {loop##_avx512, loop##_avx512_before}
#define NONE {NULL, NULL}

/* [dtype][kind], in nlrt_dtype and nlrt_reduce_kind order, of V's loops. */
#define FLOAT_KINDS(V, t)                                                      \
  {V(sum_##t), V(prod_##t), V(max_##t), V(min_##t), NONE, NONE}
#define INTEGER_KINDS(V, t)                                                    \
  {V(sum_##t), V(prod_##t), V(max_##t), V(min_##t), V(and_##t), V(or_##t)}
#define LOOP_TABLE(V)                                                          \
  {                                                                            \
    [NLRT_DTYPE_F16] = FLOAT_KINDS(V, f16),                                    \
    [NLRT_DTYPE_BF16] = FLOAT_KINDS(V, bf16),                                  \
    [NLRT_DTYPE_F32] = FLOAT_KINDS(V, f32),                                    \
    [NLRT_DTYPE_F64] = FLOAT_KINDS(V, f64),                                    \
    /* On 0 and 1, max is or and min is and. */                                \
    [NLRT_DTYPE_I1] = {NONE, NONE, V(or_i1), V(and_i1), V(and_i1), V(or_i1)},  \
    [NLRT_DTYPE_I8] = INTEGER_KINDS(V, i8),                                    \
    [NLRT_DTYPE_I16] = INTEGER_KINDS(V, i16),                                  \
    [NLRT_DTYPE_I32] = INTEGER_KINDS(V, i32),                                  \
    [NLRT_DTYPE_I64] = INTEGER_KINDS(V, i64),                                  \
    [NLRT_DTYPE_UI8] = INTEGER_KINDS(V, ui8),                                  \
    [NLRT_DTYPE_UI16] = INTEGER_KINDS(V, ui16),                                \
    [NLRT_DTYPE_UI32] = INTEGER_KINDS(V, ui32),                                \
    [NLRT_DTYPE_UI64] = INTEGER_KINDS(V, ui64),                                \
    [NLRT_DTYPE_C64] = {V(sum_c64), V(prod_c64), NONE, NONE, NONE, NONE},      \
    [NLRT_DTYPE_C128] = {V(sum_c128), V(prod_c128), NONE, NONE, NONE, NONE},   \
  }

typedef nlrt_reduce_loops loop_table[NUM_DTYPES][NUM_KINDS];
static const loop_table baseline = LOOP_TABLE(BASELINE);
static const loop_table avx2 = LOOP_TABLE(AVX2);
static const loop_table avx512 = LOOP_TABLE(AVX512);

static const loop_table *widest_loops(void) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    return &avx512;
  if (__builtin_cpu_supports("avx2"))
    return &avx2;
#endif
  return &baseline;
}

nlrt_reduce_loops nlrt_reduce_loops_for(int64_t kind, nlrt_dtype dtype) {
  if (kind < 0 || kind >= NUM_KINDS || (int)dtype < 0 ||
      (int)dtype >= NUM_DTYPES)
    return (nlrt_reduce_loops)NONE;
  return (*widest_loops())[dtype][kind];
}

const char *nlrt_reduce_kind_name(int64_t kind) {
  static const char *const names[NUM_KINDS] = {"sum", "prod", "max",
                                               "min", "and",  "or"};
  return kind >= 0 && kind < NUM_KINDS ? names[kind] : "?";
}
