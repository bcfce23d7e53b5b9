/* The collectives' combining loops (runtime/lib/spmd/reduce.c), built for
 * baseline x86-64, AVX2 and AVX-512: on rows of edge values (zeros of both
 * signs, infinities, quiet and signalling NaNs with payloads, subnormals,
 * integer extremes) every width this CPU runs gives the bits of the
 * baseline loop, in vector bodies and scalar tails alike (but a complex
 * product's NaN payloads), each `before` loop equals its `after` loop with
 * the rows swapped, and of two NaNs a float sum or product keeps the
 * earlier one's payload. Built and
 * run by test/python/test_runtime.py with reduce.c's own flags:
 *
 *   cc -std=c11 -O3 -fno-trapping-math -ffp-contract=off
 *      -I runtime/include reduce_loops_test.c */

#include "../lib/spmd/reduce.c"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Odd, so that every vector width leaves a scalar tail. */
#define ELEMENTS 203
#define MAX_BYTES 16 /* complex128 */

static const char *const dtype_names[NUM_DTYPES] = {
    "f16",  "bf16", "f32", "f64", "i1",   "i8",   "i16", "i32",
    "i64",  "ui8",  "ui16", "ui32", "ui64", "c64", "c128"};

static size_t element_bytes(int dtype) {
  static const size_t bytes[NUM_DTYPES] = {2, 2, 4, 8, 1, 1, 2, 4,
                                           8, 1, 2, 4, 8, 8, 16};
  return bytes[dtype];
}

/* Bit patterns of one `bytes`-wide scalar worth mixing in: as floats of
 * that width (f16 and bf16 share 2 bytes) and as integers. */
static uint64_t edge_pattern(size_t bytes, unsigned which) {
  static const uint64_t two[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e01,
                                 0x7c01, 0x7f80, 0xff80, 0x7fc1, 0x7f81,
                                 0x0001, 0x8001, 0x7bff, 0x7f7f, 0xffff};
  static const uint64_t four[] = {
      0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00001,
      0x7fc00002, 0x7f800001, 0xffc00003, 0x00000001, 0x80000001,
      0x7f7fffff, 0xff7fffff, 0x3f800000, 0x7fffffff, 0xffffffff};
  static const uint64_t eight[] = {
      0x0000000000000000, 0x8000000000000000, 0x7ff0000000000000,
      0xfff0000000000000, 0x7ff8000000000001, 0x7ff8000000000002,
      0x7ff0000000000001, 0xfff8000000000003, 0x0000000000000001,
      0x8000000000000001, 0x7fefffffffffffff, 0xffefffffffffffff,
      0x3ff0000000000000, 0x7fffffffffffffff, 0xffffffffffffffff};
  static const uint64_t one[] = {0x00, 0x01, 0x80, 0x7f, 0xff, 0x02, 0xfe};
  switch (bytes) {
  case 1:
    return one[which % 7];
  case 2:
    return two[which % 15];
  case 4:
    return four[which % 15];
  default:
    return eight[which % 15];
  }
}

/* A row of `count` scalars of `bytes` each: mostly edge patterns, every
 * third one random, so that pairs of NaNs, zeros and infinities meet. */
static void fill(unsigned char *row, size_t count, size_t bytes,
                 unsigned *seed) {
  for (size_t i = 0; i < count; ++i) {
    uint64_t value = 0;
    if (rand_r(seed) % 3 == 0)
      for (size_t b = 0; b < 8; ++b)
        value |= (uint64_t)(rand_r(seed) & 0xff) << (8 * b);
    else
      value = edge_pattern(bytes, (unsigned)rand_r(seed));
    memcpy(row + i * bytes, &value, bytes); /* little-endian: low bytes */
  }
}

static int failures;

static bool is_nan(const unsigned char *part, size_t bytes) {
  if (bytes == 4) {
    float value;
    memcpy(&value, part, 4);
    return value != value;
  }
  double value;
  memcpy(&value, part, 8);
  return value != value;
}

/* Where a complex product's part is NaN in both, the bits may differ: the
 * product mixes payloads from four products and two sums (reduce.c). */
static bool same(int dtype, int kind, const unsigned char *want,
                 const unsigned char *got, size_t bytes, size_t *at) {
  bool complex = dtype == NLRT_DTYPE_C64 || dtype == NLRT_DTYPE_C128;
  size_t part = dtype == NLRT_DTYPE_C64 ? 4 : 8;
  for (*at = 0; *at < bytes; ++*at) {
    if (want[*at] == got[*at])
      continue;
    size_t start = *at / part * part;
    if (complex && kind == NLRT_REDUCE_PROD && is_nan(want + start, part) &&
        is_nan(got + start, part)) {
      *at = start + part - 1;
      continue;
    }
    return false;
  }
  return true;
}

static void compare(const char *what, int dtype, int kind,
                    const unsigned char *want, const unsigned char *got,
                    size_t bytes) {
  size_t at = 0;
  if (same(dtype, kind, want, got, bytes, &at))
    return;
  fprintf(stderr, "%s %s %s: byte %zu differs (%02x, want %02x)\n",
          nlrt_reduce_kind_name(kind), dtype_names[dtype], what, at, got[at],
          want[at]);
  ++failures;
}

/* Runs `loop` on copies of the rows, into `out`. */
static void run(nlrt_reduce_function loop, const unsigned char *accumulator,
                const unsigned char *operand, unsigned char *out,
                size_t bytes) {
  memcpy(out, accumulator, bytes);
  loop(out, operand, ELEMENTS);
}

/* Of two NaNs, a float sum or product keeps the earlier one's payload,
 * quieted (reduce.c's NAN_FIRST): `want` is after(a, b). */
static void check_nan_first(int dtype, int kind, const unsigned char *a,
                            const unsigned char *b,
                            const unsigned char *want) {
  if ((dtype != NLRT_DTYPE_F32 && dtype != NLRT_DTYPE_F64) ||
      (kind != NLRT_REDUCE_SUM && kind != NLRT_REDUCE_PROD))
    return;
  for (size_t i = 0; i < ELEMENTS; ++i) {
    bool both, kept;
    if (dtype == NLRT_DTYPE_F32) {
      uint32_t x, y, r;
      memcpy(&x, a + 4 * i, 4), memcpy(&y, b + 4 * i, 4);
      memcpy(&r, want + 4 * i, 4);
      both = (x & 0x7fffffffu) > 0x7f800000u && (y & 0x7fffffffu) > 0x7f800000u;
      kept = r == (x | 0x00400000u);
    } else {
      uint64_t x, y, r;
      memcpy(&x, a + 8 * i, 8), memcpy(&y, b + 8 * i, 8);
      memcpy(&r, want + 8 * i, 8);
      uint64_t magnitude = UINT64_C(0x7fffffffffffffff);
      uint64_t infinity = UINT64_C(0x7ff0000000000000);
      both = (x & magnitude) > infinity && (y & magnitude) > infinity;
      kept = r == (x | UINT64_C(0x0008000000000000));
    }
    if (both && !kept) {
      fprintf(stderr, "%s %s: element %zu keeps the later NaN\n",
              nlrt_reduce_kind_name(kind), dtype_names[dtype], i);
      ++failures;
      return;
    }
  }
}

int main(void) {
  const loop_table *widths[3] = {&baseline, NULL, NULL};
  const char *width_names[3] = {"baseline", "avx2", "avx512"};
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2"))
    widths[1] = &avx2;
  if (__builtin_cpu_supports("avx512f"))
    widths[2] = &avx512;
#endif
  unsigned seed = 12345;
  static unsigned char a[ELEMENTS * MAX_BYTES], b[ELEMENTS * MAX_BYTES];
  static unsigned char want[ELEMENTS * MAX_BYTES], got[ELEMENTS * MAX_BYTES];
  size_t checked = 0;
  for (int dtype = 0; dtype < NUM_DTYPES; ++dtype) {
    for (int kind = 0; kind < NUM_KINDS; ++kind) {
      nlrt_reduce_loops reference = baseline[dtype][kind];
      if (!reference.after)
        continue;
      size_t scalar = element_bytes(dtype), bytes = ELEMENTS * scalar;
      /* Complex types pair two float scalars. */
      size_t part = dtype == NLRT_DTYPE_C64    ? 4
                    : dtype == NLRT_DTYPE_C128 ? 8
                                               : scalar;
      for (int trial = 0; trial < 20; ++trial) {
        fill(a, bytes / part, part, &seed);
        fill(b, bytes / part, part, &seed);
        run(reference.after, a, b, want, bytes);
        check_nan_first(dtype, kind, a, b, want);
        /* before(a, b) is b combined before a: after(b, a). */
        run(reference.before, a, b, got, bytes);
        unsigned char swapped[ELEMENTS * MAX_BYTES];
        run(reference.after, b, a, swapped, bytes);
        compare("before", dtype, kind, swapped, got, bytes);
        for (int w = 1; w < 3; ++w) {
          if (!widths[w])
            continue;
          nlrt_reduce_loops loops = (*widths[w])[dtype][kind];
          run(loops.after, a, b, got, bytes);
          compare(width_names[w], dtype, kind, want, got, bytes);
          run(loops.before, a, b, got, bytes);
          compare(width_names[w], dtype, kind, swapped, got, bytes);
        }
        ++checked;
      }
    }
  }
  if (failures)
    return 1;
  printf("reduce loops agree: %zu rows (avx2 %s, avx512 %s)\n", checked,
         widths[1] ? "checked" : "absent", widths[2] ? "checked" : "absent");
  return 0;
}
