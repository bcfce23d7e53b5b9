/*===- kernels.c - the transform kernels, once per precision and width ----===*
 *
 * stockham.inc and lines.inc are written once over a real type T and a lane
 * count B, and compiled here four times: B lanes of float and of double for
 * full blocks of a pass, and one lane of each for the few lines left over
 * (padding a block of 8 for one line would do 8 times the work).
 *
 *===----------------------------------------------------------------------===*/

#include "fft_internal.h"
#include "lane_transpose.h"

#include <stdlib.h>
#include <string.h>

#define T float
#define B FFT_LANES_F
#define V(name) name##_fw
#define PLAN_TABLE(plan, field) ((plan)->field##_f)
/* full blocks of rows move as transposes (lane_transpose.h) */
#define ROWS_TO_LANES fft_rows_to_lanes_f
#define LANES_TO_ROWS fft_lanes_to_rows_f
#define LANE_TILE 4
#include "stockham.inc"
#include "lines.inc"
#undef B
#undef V
#undef ROWS_TO_LANES
#undef LANES_TO_ROWS
#undef LANE_TILE
#define B 1
#define V(name) name##_f1
#include "stockham.inc"
#include "lines.inc"
#undef T
#undef B
#undef V
#undef PLAN_TABLE

#define T double
#define B FFT_LANES_D
#define V(name) name##_dw
#define PLAN_TABLE(plan, field) ((plan)->field##_d)
#define ROWS_TO_LANES fft_rows_to_lanes_d
#define LANES_TO_ROWS fft_lanes_to_rows_d
#define LANE_TILE 2
#include "stockham.inc"
#include "lines.inc"
#undef B
#undef V
#undef ROWS_TO_LANES
#undef LANES_TO_ROWS
#undef LANE_TILE
#define B 1
#define V(name) name##_d1
#include "stockham.inc"
#include "lines.inc"
#undef T
#undef B
#undef V
#undef PLAN_TABLE

double *fft_execute_d1(const fft_plan *plan, double *x, double *w1, double *w2) {
  return execute_d1(plan, x, w1, w2);
}

/* Blocks of `lanes` lines; a short last block goes one line at a time when
 * it is under a quarter full. */
#define DEFINE_LINES(name, T, lanes, wide, narrow)                            \
  int name(const fft_lines *job, int64_t first, int64_t end) {                \
    size_t bytes = (size_t)job->plan->buffer_length * 2 * (lanes) * sizeof(T); \
    bytes = (bytes + 63) & ~(size_t)63;                                        \
    T *w = aligned_alloc(64, 3 * bytes);                                       \
    if (!w)                                                                    \
      return 1;                                                                \
    T *w1 = (T *)((char *)w + bytes), *w2 = (T *)((char *)w + 2 * bytes);      \
    for (int64_t line = first; line < end; line += (lanes)) {                 \
      int64_t count = end - line < (lanes) ? end - line : (lanes);             \
      if (count * 4 >= (lanes))                                                \
        wide(job, line, (int)count, w, w1, w2);                                \
      else                                                                     \
        for (int64_t i = 0; i < count; i++)                                    \
          narrow(job, line + i, 1, w, w1, w2);                                 \
    }                                                                          \
    free(w);                                                                   \
    return 0;                                                                  \
  }

DEFINE_LINES(fft_lines_f, float, FFT_LANES_F, block_fw, block_f1)
DEFINE_LINES(fft_lines_d, double, FFT_LANES_D, block_dw, block_d1)
