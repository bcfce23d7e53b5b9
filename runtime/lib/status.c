/*===- status.c - status names, the thread-local last error, ABI version ---===*/

#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

/* Long enough for a dlerror() message that quotes two paths. */
#define NLRT_ERROR_CAPACITY 2048

static _Thread_local char last_error[NLRT_ERROR_CAPACITY];

NLRT_API int nlrt_abi_version(void) { return NLRT_ABI_VERSION; }

NLRT_API const char *nlrt_status_string(nlrt_status status) {
  switch (status) {
  case NLRT_OK:
    return "OK";
  case NLRT_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case NLRT_NOT_FOUND:
    return "NOT_FOUND";
  case NLRT_LOAD_FAILED:
    return "LOAD_FAILED";
  case NLRT_UNAVAILABLE:
    return "UNAVAILABLE";
  case NLRT_INTERNAL:
    return "INTERNAL";
  case NLRT_OUT_OF_MEMORY:
    return "OUT_OF_MEMORY";
  case NLRT_INVALID_EXECUTABLE:
    return "INVALID_EXECUTABLE";
  case NLRT_HOST_CALLBACK_FAILED:
    return "HOST_CALLBACK_FAILED";
  case NLRT_COLLECTIVE_FAILED:
    return "COLLECTIVE_FAILED";
  }
  return "UNKNOWN";
}

NLRT_API const char *nlrt_last_error(void) { return last_error; }

nlrt_status nlrt_error(nlrt_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  /* vsnprintf truncates and always NUL-terminates: a clipped message beats
   * none. */
  vsnprintf(last_error, sizeof(last_error), format, args);
  va_end(args);
  return status;
}
