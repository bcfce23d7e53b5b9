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

/* One loop: `a` is the accumulated value, `b` the next member's. */
#define REDUCE_LOOP(name, type, expression)                                    \
  static void name(void *accumulator_, const void *operand_, size_t count) {   \
    type *restrict accumulator = accumulator_;                                 \
    const type *restrict operand = operand_;                                   \
    for (size_t i = 0; i < count; ++i) {                                       \
      type a = accumulator[i], b = operand[i];                                 \
      accumulator[i] = (expression);                                           \
    }                                                                          \
  }

/* NaN wins (the earlier one in group order when both are). */
#define FLOAT_MAX(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) > (b) ? (a) : (b))
#define FLOAT_MIN(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) < (b) ? (a) : (b))

/* Float sums start from +0, as XLA's all-reduce does: `+ 0` makes the sum
 * of a group of -0s +0 (jax.pmap's psum of -0.0 on 2 devices is +0.0) and
 * changes nothing else, NaN payloads included. A group of one is a copy and
 * keeps its -0, as jax's does. */
#define FLOAT_LOOPS(suffix, type)                                              \
  REDUCE_LOOP(sum_##suffix, type, a + b + (type)0)                             \
  REDUCE_LOOP(prod_##suffix, type, a * b)                                      \
  REDUCE_LOOP(max_##suffix, type, FLOAT_MAX(a, b))                             \
  REDUCE_LOOP(min_##suffix, type, FLOAT_MIN(a, b))
FLOAT_LOOPS(f32, float)
FLOAT_LOOPS(f64, double)

/* 16-bit floats compute in f32 and round back; max and min keep the
 * winner's bits. */
#define HALF_LOOPS(suffix, to_float, from_float)                               \
  REDUCE_LOOP(sum_##suffix, uint16_t,                                          \
              from_float(to_float(a) + to_float(b) + 0.0f))                    \
  REDUCE_LOOP(prod_##suffix, uint16_t, from_float(to_float(a) * to_float(b)))  \
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
 * formula, with no special handling of infinities (as XLA's). */
#define COMPLEX_LOOPS(suffix, type)                                            \
  static void sum_##suffix(void *accumulator_, const void *operand_,           \
                           size_t count) {                                     \
    type *restrict accumulator = accumulator_;                                 \
    const type *restrict operand = operand_;                                   \
    for (size_t i = 0; i < 2 * count; ++i) /* from +0, as FLOAT_LOOPS */       \
      accumulator[i] = accumulator[i] + operand[i] + (type)0;                  \
  }                                                                            \
  static void prod_##suffix(void *accumulator_, const void *operand_,          \
                            size_t count) {                                    \
    type *restrict accumulator = accumulator_;                                 \
    const type *restrict operand = operand_;                                   \
    for (size_t i = 0; i < count; ++i) {                                       \
      type ar = accumulator[2 * i], ai = accumulator[2 * i + 1];               \
      type br = operand[2 * i], bi = operand[2 * i + 1];                       \
      accumulator[2 * i] = ar * br - ai * bi;                                  \
      accumulator[2 * i + 1] = ar * bi + ai * br;                              \
    }                                                                          \
  }
COMPLEX_LOOPS(c64, float)
COMPLEX_LOOPS(c128, double)

/*===--- Lookup ------------------------------------------------------------===*/

#define NUM_KINDS 6
#define NUM_DTYPES 15

/* [dtype][kind], in nlrt_dtype and nlrt_reduce_kind order. */
static const nlrt_reduce_function loops[NUM_DTYPES][NUM_KINDS] = {
    [NLRT_DTYPE_F16] = {sum_f16, prod_f16, max_f16, min_f16, NULL, NULL},
    [NLRT_DTYPE_BF16] = {sum_bf16, prod_bf16, max_bf16, min_bf16, NULL, NULL},
    [NLRT_DTYPE_F32] = {sum_f32, prod_f32, max_f32, min_f32, NULL, NULL},
    [NLRT_DTYPE_F64] = {sum_f64, prod_f64, max_f64, min_f64, NULL, NULL},
    /* On 0 and 1, max is or and min is and. */
    [NLRT_DTYPE_I1] = {NULL, NULL, or_i1, and_i1, and_i1, or_i1},
    [NLRT_DTYPE_I8] = {sum_i8, prod_i8, max_i8, min_i8, and_i8, or_i8},
    [NLRT_DTYPE_I16] = {sum_i16, prod_i16, max_i16, min_i16, and_i16, or_i16},
    [NLRT_DTYPE_I32] = {sum_i32, prod_i32, max_i32, min_i32, and_i32, or_i32},
    [NLRT_DTYPE_I64] = {sum_i64, prod_i64, max_i64, min_i64, and_i64, or_i64},
    [NLRT_DTYPE_UI8] = {sum_ui8, prod_ui8, max_ui8, min_ui8, and_ui8, or_ui8},
    [NLRT_DTYPE_UI16] = {sum_ui16, prod_ui16, max_ui16, min_ui16, and_ui16,
                         or_ui16},
    [NLRT_DTYPE_UI32] = {sum_ui32, prod_ui32, max_ui32, min_ui32, and_ui32,
                         or_ui32},
    [NLRT_DTYPE_UI64] = {sum_ui64, prod_ui64, max_ui64, min_ui64, and_ui64,
                         or_ui64},
    [NLRT_DTYPE_C64] = {sum_c64, prod_c64, NULL, NULL, NULL, NULL},
    [NLRT_DTYPE_C128] = {sum_c128, prod_c128, NULL, NULL, NULL, NULL},
};

nlrt_reduce_function nlrt_reduce_function_for(int64_t kind, nlrt_dtype dtype) {
  if (kind < 0 || kind >= NUM_KINDS || (int)dtype < 0 ||
      (int)dtype >= NUM_DTYPES)
    return NULL;
  return loops[dtype][kind];
}

const char *nlrt_reduce_kind_name(int64_t kind) {
  static const char *const names[NUM_KINDS] = {"sum", "prod", "max",
                                               "min", "and",  "or"};
  return kind >= 0 && kind < NUM_KINDS ? names[kind] : "?";
}
