/*===- lane_transpose.h - B interleaved rows to lane layout and back ------===*
 *
 * A full block of rows (B lines with stride 1) moves into lane layout as a
 * transpose: one vector of each row, (re, im) pairs of a few elements,
 * becomes those elements' real and imaginary lane vectors. Element by
 * element, the gather and the scatter took more time than the Stockham
 * passes themselves (57% of a 4096-point transform): each lane store is a
 * scalar one, 64 bytes from the last. As a B x B transpose in registers,
 * every load and store is a whole vector.
 *
 * Written with GCC's vector extensions, so every target clone of the
 * callers gets its own instructions (two SSE halves or one AVX register).
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SERVICES_FFT_LANE_TRANSPOSE_H
#define NLRT_SERVICES_FFT_LANE_TRANSPOSE_H

#include <string.h>

typedef float fft_v8f __attribute__((vector_size(32)));
typedef double fft_v4d __attribute__((vector_size(32)));
typedef int fft_v8i __attribute__((vector_size(32)));
typedef long long fft_v4l __attribute__((vector_size(32)));

/* The loops below must become straight-line code, or the 8 vectors live in
 * memory instead of registers. */
#if defined(__GNUC__) && !defined(__clang__)
#define FFT_UNROLLED _Pragma("GCC unroll 8")
#else
#define FFT_UNROLLED
#endif

#if defined(__clang__)
#define FFT_SHUFFLE8(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#define FFT_SHUFFLE4(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define FFT_SHUFFLE8(a, b, ...) __builtin_shuffle(a, b, (fft_v8i){__VA_ARGS__})
#define FFT_SHUFFLE4(a, b, ...) __builtin_shuffle(a, b, (fft_v4l){__VA_ARGS__})
#endif

/* r[k] becomes column k of the 8 x 8 matrix whose rows r holds. */
static inline void fft_transpose8(fft_v8f r[8]) {
  fft_v8f t[8], s[8];
  FFT_UNROLLED for (int k = 0; k < 8; k += 2) {
    t[k] = FFT_SHUFFLE8(r[k], r[k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[k + 1] = FFT_SHUFFLE8(r[k], r[k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  FFT_UNROLLED for (int k = 0; k < 8; k += 4) {
    s[k] = FFT_SHUFFLE8(t[k], t[k + 2], 0, 1, 8, 9, 4, 5, 12, 13);
    s[k + 1] = FFT_SHUFFLE8(t[k], t[k + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    s[k + 2] = FFT_SHUFFLE8(t[k + 1], t[k + 3], 0, 1, 8, 9, 4, 5, 12, 13);
    s[k + 3] = FFT_SHUFFLE8(t[k + 1], t[k + 3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
  FFT_UNROLLED for (int k = 0; k < 4; k++) {
    r[k] = FFT_SHUFFLE8(s[k], s[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[k + 4] = FFT_SHUFFLE8(s[k], s[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

/* The same for 4 x 4 doubles. */
static inline void fft_transpose4(fft_v4d r[4]) {
  fft_v4d t0 = FFT_SHUFFLE4(r[0], r[1], 0, 4, 2, 6);
  fft_v4d t1 = FFT_SHUFFLE4(r[0], r[1], 1, 5, 3, 7);
  fft_v4d t2 = FFT_SHUFFLE4(r[2], r[3], 0, 4, 2, 6);
  fft_v4d t3 = FFT_SHUFFLE4(r[2], r[3], 1, 5, 3, 7);
  r[0] = FFT_SHUFFLE4(t0, t2, 0, 1, 4, 5);
  r[1] = FFT_SHUFFLE4(t1, t3, 0, 1, 4, 5);
  r[2] = FFT_SHUFFLE4(t0, t2, 2, 3, 6, 7);
  r[3] = FFT_SHUFFLE4(t1, t3, 2, 3, 6, 7);
}

/* Elements j .. j+3 of 8 float rows (rows[b] + 2 j) into lane elements
 * `lanes` .. (16 floats each: 8 real parts, then 8 imaginary ones times
 * `sign`). */
static inline void fft_rows_to_lanes_f(const float *const rows[8], int64_t j,
                                       float *lanes, float sign) {
  fft_v8f r[8];
  FFT_UNROLLED for (int b = 0; b < 8; b++)
    memcpy(&r[b], rows[b] + 2 * j, sizeof(r[b]));
  fft_transpose8(r);
  FFT_UNROLLED for (int k = 0; k < 8; k++) {
    fft_v8f v = k % 2 ? r[k] * sign : r[k];
    memcpy(lanes + 8 * k, &v, sizeof(v));
  }
}

/* The inverse: lane elements to elements j .. j+3 of the rows, the real
 * parts times scale_re and the imaginary ones times scale_im. */
static inline void fft_lanes_to_rows_f(const float *lanes, int64_t j,
                                       float *const rows[8], float scale_re,
                                       float scale_im) {
  fft_v8f r[8];
  FFT_UNROLLED for (int k = 0; k < 8; k++) {
    memcpy(&r[k], lanes + 8 * k, sizeof(r[k]));
    r[k] = r[k] * (k % 2 ? scale_im : scale_re);
  }
  fft_transpose8(r);
  FFT_UNROLLED for (int b = 0; b < 8; b++)
    memcpy(rows[b] + 2 * j, &r[b], sizeof(r[b]));
}

/* Elements j and j+1 of 4 double rows into lane elements (8 doubles each). */
static inline void fft_rows_to_lanes_d(const double *const rows[4], int64_t j,
                                       double *lanes, double sign) {
  fft_v4d r[4];
  FFT_UNROLLED for (int b = 0; b < 4; b++)
    memcpy(&r[b], rows[b] + 2 * j, sizeof(r[b]));
  fft_transpose4(r);
  FFT_UNROLLED for (int k = 0; k < 4; k++) {
    fft_v4d v = k % 2 ? r[k] * sign : r[k];
    memcpy(lanes + 4 * k, &v, sizeof(v));
  }
}

static inline void fft_lanes_to_rows_d(const double *lanes, int64_t j,
                                       double *const rows[4], double scale_re,
                                       double scale_im) {
  fft_v4d r[4];
  FFT_UNROLLED for (int k = 0; k < 4; k++) {
    memcpy(&r[k], lanes + 4 * k, sizeof(r[k]));
    r[k] = r[k] * (k % 2 ? scale_im : scale_re);
  }
  fft_transpose4(r);
  FFT_UNROLLED for (int b = 0; b < 4; b++)
    memcpy(rows[b] + 2 * j, &r[b], sizeof(r[b]));
}

#endif /* NLRT_SERVICES_FFT_LANE_TRANSPOSE_H */
