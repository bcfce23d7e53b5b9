/*===- test_checks.h - the runtime C tests' assertions --------------------===*
 *
 * Each failed check prints where and why, with the runtime's last error, and
 * counts in `failures`, which the test's main returns as its status.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NUMLIR_RUNTIME_TEST_CHECKS_H
#define NUMLIR_RUNTIME_TEST_CHECKS_H

#include "numlir/runtime.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(condition)                                                       \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__,   \
              __LINE__, #condition, nlrt_last_error());                        \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* `call` returns `status` and records a message containing `text`. */
#define CHECK_FAILS(call, status, text)                                        \
  do {                                                                         \
    nlrt_status got_ = (call);                                                 \
    if (got_ != (status) || !strstr(nlrt_last_error(), (text))) {              \
      fprintf(stderr, "%s:%d: %s gave %s \"%s\", expected %s with \"%s\"\n",   \
              __FILE__, __LINE__, #call, nlrt_status_string(got_),             \
              nlrt_last_error(), nlrt_status_string(status), (text));          \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#endif /* NUMLIR_RUNTIME_TEST_CHECKS_H */
