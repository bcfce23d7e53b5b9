/*===- library_calls.h - routines of libraries that generated code calls --===*
 *
 * hlo.custom_call lowers to a call through the executable's slot
 * `<entry>_library_call` (docs/runtime.md#library-calls), which the cpu
 * driver points at nlrt_library_call_dispatch. Each call names a routine
 * ("lapack.potrf", "numlir.fft") and passes a descriptor of its buffers:
 *
 *   [version, num_operands, num_results,
 *    per buffer: dtype, rank, dims..., num_config, config...]
 *
 * The dispatcher parses it into an nlrt_library_call and hands it to the
 * routine, which checks it against its contract before it touches memory:
 * the compiler's verifier already did, but a routine never trusts a table
 * it did not write. Operand buffers may be overwritten by the routine
 * (they are the call's own copies); results must be written completely.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SERVICES_LIBRARY_LIBRARY_CALLS_H
#define NLRT_SERVICES_LIBRARY_LIBRARY_CALLS_H

#include "../../internal.h"

#include <stdint.h>

#define NLRT_LIBRARY_DESCRIPTOR_VERSION 1
#define NLRT_LIBRARY_MAX_BUFFERS 8
#define NLRT_LIBRARY_MAX_RANK 64

typedef struct nlrt_library_buffer {
  nlrt_dtype dtype;
  int rank;
  const int64_t *dims;
  int64_t elements;
  void *data;
} nlrt_library_buffer;

typedef struct nlrt_library_call {
  const char *routine;
  int num_operands, num_results;
  nlrt_library_buffer buffers[NLRT_LIBRARY_MAX_BUFFERS]; /* operands, results */
  int num_config;
  const int64_t *config;
} nlrt_library_call;

/* Parses `descriptor` (see above) over `buffers`; NLRT_INTERNAL with a
 * message when it is malformed. */
nlrt_status nlrt_library_call_parse(const char *routine,
                                     const int64_t *descriptor,
                                     void *const *buffers,
                                     nlrt_library_call *out);

/* The slot value of an executable's `<entry>_library_call`: runs the
 * routine, and stops the running call with its message when it fails. */
void nlrt_library_call_dispatch(const char *routine, const int64_t *descriptor,
                                void *const *buffers);

/* NLRT_OK when every routine of the newline-separated `routines` exists
 * and its library loads; otherwise NLRT_LOAD_FAILED naming the first that
 * does not, for the executable `what`. */
nlrt_status nlrt_library_routines_check(const char *routines,
                                        const char *what);

/*--- Helpers for routines ----------------------------------------------------*/

/* The product of the buffer's leading `rank - trailing` dimensions. */
int64_t nlrt_library_batch(const nlrt_library_buffer *buffer, int trailing);

/* Bytes per element of a routine's float or complex dtype (0 otherwise). */
size_t nlrt_library_element_size(nlrt_dtype dtype);

#endif /* NLRT_SERVICES_LIBRARY_LIBRARY_CALLS_H */
