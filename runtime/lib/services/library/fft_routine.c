/*===- fft_routine.c - numlir.fft through the runtime's FFT library -------===*
 *
 * Checks the call against jax.lax.fft's shape rules, then hands the batch
 * to nlrt_fft (services/fft/fft.h), which reads and writes the same dense
 * row-major layouts.
 *
 *===----------------------------------------------------------------------===*/

#include "fft_routine.h"

#include "../fft/fft.h"

static nlrt_status malformed(const char *why) {
  return nlrt_error(NLRT_INTERNAL, "library call 'numlir.fft': %s", why);
}

static int is_complex(nlrt_dtype dtype) {
  return dtype == NLRT_DTYPE_C64 || dtype == NLRT_DTYPE_C128;
}

nlrt_status nlrt_fft_routine(const nlrt_library_call *call) {
  if (call->num_operands != 1 || call->num_results != 1 ||
      call->num_config < 2 || call->num_config > 4)
    return malformed("takes one operand, one result and [fft_type, 1 to 3 "
                     "lengths]");
  const nlrt_library_buffer *x = &call->buffers[0], *y = &call->buffers[1];
  int type = (int)call->config[0], rank = call->num_config - 1;
  const int64_t *lengths = call->config + 1;
  if (type < 0 || type > 3 || x->rank < rank || y->rank != x->rank)
    return malformed("fft_type or ranks out of range");
  int x_complex = type != 2, y_complex = type != 3;
  if (is_complex(x->dtype) != x_complex || is_complex(y->dtype) != y_complex)
    return malformed("operand or result of the wrong kind");
  int is_double = x->dtype == NLRT_DTYPE_F64 || x->dtype == NLRT_DTYPE_C128;
  int y_double = y->dtype == NLRT_DTYPE_F64 || y->dtype == NLRT_DTYPE_C128;
  if (is_double != y_double || (!is_double && x->dtype != NLRT_DTYPE_F32 &&
                                x->dtype != NLRT_DTYPE_C64))
    return malformed("operand and result precisions differ");
  int64_t points = 1;
  for (int d = 0; d < rank; ++d) {
    int last = d == rank - 1;
    int64_t n = lengths[d], half = n / 2 + 1;
    int64_t x_dim = x->dims[x->rank - rank + d];
    int64_t y_dim = y->dims[y->rank - rank + d];
    if (n < 1 || x_dim != (last && type == 3 ? half : n) ||
        y_dim != (last && type == 2 ? half : n))
      return malformed("trailing dimensions do not match the lengths");
    points *= n;
  }
  int64_t batch = nlrt_library_batch(x, rank);
  if (nlrt_library_batch(y, rank) != batch)
    return malformed("operand and result batches differ");
  if (batch == 0 || points == 0)
    return NLRT_OK;
  if (nlrt_fft(type, is_double, batch, rank, lengths, x->data, y->data) != 0)
    return nlrt_error(NLRT_OUT_OF_MEMORY,
                      "the FFT of %lld points ran out of memory for its "
                      "scratch buffers",
                      (long long)points);
  return NLRT_OK;
}
