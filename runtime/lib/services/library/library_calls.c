/*===- library_calls.c - the dispatcher of library calls ------------------===*
 *
 * See library_calls.h. The routines sit in one table: a name, the check
 * that its library is there, and the function that runs it.
 *
 *===----------------------------------------------------------------------===*/

#include "library_calls.h"

#include "../host_allocator.h"
#include "fft_routine.h"
#include "lapack.h"
#include "lapack_decompositions.h"

#include <stdio.h>
#include <string.h>

typedef struct routine_entry {
  const char *name;
  nlrt_status (*available)(void); /* NULL: always there */
  nlrt_status (*run)(const nlrt_library_call *call);
} routine_entry;

static const routine_entry routines[] = {
    {"lapack.potrf", nlrt_lapack_available, nlrt_lapack_potrf},
    {"lapack.getrf", nlrt_lapack_available, nlrt_lapack_getrf},
    {"lapack.trsm", nlrt_lapack_available, nlrt_lapack_trsm},
    {"lapack.geqrf", nlrt_lapack_available, nlrt_lapack_geqrf},
    {"lapack.orgqr", nlrt_lapack_available, nlrt_lapack_orgqr},
    {"lapack.syevd", nlrt_lapack_available, nlrt_lapack_syevd},
    {"lapack.gesdd", nlrt_lapack_available, nlrt_lapack_gesdd},
    {"lapack.geev", nlrt_lapack_available, nlrt_lapack_geev},
    {"lapack.gees", nlrt_lapack_available, nlrt_lapack_gees},
    {"numlir.fft", NULL, nlrt_fft_routine},
};

static const routine_entry *find(const char *name, size_t length) {
  for (size_t i = 0; i < sizeof(routines) / sizeof(routines[0]); ++i)
    if (strlen(routines[i].name) == length &&
        memcmp(routines[i].name, name, length) == 0)
      return &routines[i];
  return NULL;
}

nlrt_status nlrt_library_call_parse(const char *routine,
                                    const int64_t *descriptor,
                                    void *const *buffers,
                                    nlrt_library_call *out) {
  if (descriptor[0] != NLRT_LIBRARY_DESCRIPTOR_VERSION)
    return nlrt_error(NLRT_INTERNAL,
                      "library call '%s': descriptor version %lld, this "
                      "runtime reads version %d",
                      routine, (long long)descriptor[0],
                      NLRT_LIBRARY_DESCRIPTOR_VERSION);
  int64_t operands = descriptor[1], results = descriptor[2];
  if (operands < 0 || results < 0 ||
      operands + results > NLRT_LIBRARY_MAX_BUFFERS)
    return nlrt_error(NLRT_INTERNAL,
                      "library call '%s': %lld operands and %lld results",
                      routine, (long long)operands, (long long)results);
  out->routine = routine;
  out->num_operands = (int)operands;
  out->num_results = (int)results;
  const int64_t *word = descriptor + 3;
  for (int i = 0; i < operands + results; ++i) {
    nlrt_library_buffer *buffer = &out->buffers[i];
    int64_t dtype = word[0], rank = word[1];
    if (dtype < 0 || dtype > NLRT_DTYPE_C128 || rank < 0 ||
        rank > NLRT_LIBRARY_MAX_RANK)
      return nlrt_error(NLRT_INTERNAL,
                        "library call '%s': buffer %d has dtype %lld and "
                        "rank %lld",
                        routine, i, (long long)dtype, (long long)rank);
    buffer->dtype = (nlrt_dtype)dtype;
    buffer->rank = (int)rank;
    buffer->dims = word + 2;
    buffer->elements = 1;
    for (int d = 0; d < rank; ++d) {
      if (buffer->dims[d] < 0)
        return nlrt_error(NLRT_INTERNAL,
                          "library call '%s': buffer %d has a negative "
                          "dimension",
                          routine, i);
      buffer->elements *= buffer->dims[d];
    }
    buffer->data = buffers[i];
    word += 2 + rank;
  }
  out->num_config = (int)word[0];
  out->config = word + 1;
  if (word[0] < 0)
    return nlrt_error(NLRT_INTERNAL, "library call '%s': negative config size",
                      routine);
  return NLRT_OK;
}

void nlrt_library_call_dispatch(const char *routine, const int64_t *descriptor,
                                void *const *buffers) {
  const routine_entry *found = find(routine, strlen(routine));
  nlrt_library_call call;
  nlrt_status status =
      found ? nlrt_library_call_parse(routine, descriptor, buffers, &call)
            : nlrt_error(NLRT_INTERNAL, "no library routine '%s'", routine);
  if (status == NLRT_OK && found->available)
    status = found->available();
  if (status == NLRT_OK)
    status = found->run(&call);
  if (status != NLRT_OK)
    nlrt_host_call_abandon_for_library(status);
}

nlrt_status nlrt_library_routines_check(const char *routines_text,
                                        const char *what) {
  const char *line = routines_text;
  while (line && *line) {
    const char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line) : strlen(line);
    const routine_entry *found = find(line, length);
    if (!found)
      return nlrt_error(NLRT_LOAD_FAILED,
                        "%s calls the library routine '%.*s', which this "
                        "runtime does not have",
                        what, (int)length, line);
    if (found->available && found->available() != NLRT_OK) {
      /* The reason is this thread's last error, which nlrt_error rewrites. */
      char reason[2048];
      snprintf(reason, sizeof(reason), "%s", nlrt_last_error());
      return nlrt_error(NLRT_LOAD_FAILED, "%s calls '%s': %s", what,
                        found->name, reason);
    }
    line = end ? end + 1 : NULL;
  }
  return NLRT_OK;
}

int64_t nlrt_library_batch(const nlrt_library_buffer *buffer, int trailing) {
  int64_t batch = 1;
  for (int d = 0; d < buffer->rank - trailing; ++d)
    batch *= buffer->dims[d];
  return batch;
}

size_t nlrt_library_element_size(nlrt_dtype dtype) {
  switch (dtype) {
  case NLRT_DTYPE_F32:
    return 4;
  case NLRT_DTYPE_F64:
  case NLRT_DTYPE_C64:
    return 8;
  case NLRT_DTYPE_C128:
    return 16;
  default:
    return 0;
  }
}

NLRT_API int nlrt_library_routine_available(const char *routine) {
  if (!routine)
    return nlrt_error(NLRT_INVALID_ARGUMENT, "routine is NULL"), 0;
  const routine_entry *found = find(routine, strlen(routine));
  if (!found)
    return nlrt_error(NLRT_NOT_FOUND, "no library routine '%s'", routine), 0;
  return !found->available || found->available() == NLRT_OK;
}
