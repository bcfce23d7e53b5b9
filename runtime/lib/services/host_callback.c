/*===- host_callback.c - calls from generated code back into the host -----===*
 *
 * Every executable with host callbacks exports a slot `<entry>_host_callback`
 * that a driver running host code (the cpu driver) points at
 * nlrt_host_callback_dispatch, a service of the runtime. The dispatcher
 * hands the call to the process-wide handler (the Python extension registers
 * one) and, when the handler fails, abandons the running call through the
 * same jump an allocation failure takes (host_allocator.c).
 *
 *===----------------------------------------------------------------------===*/

#include "host_allocator.h"

#include <pthread.h>

/* The registered pair, copied in and out under one mutex. The runtime
 * allocates nothing for a registration, so replacing or unregistering a
 * handler leaves nothing to free. (It used to swap a malloc'd {handler,
 * user_data} entry as one atomic pointer; a callback on another thread may
 * still hold the entry it loaded, so a replaced entry could never be freed
 * and LeakSanitizer reported it.) The lock is held only while the two words
 * are copied, never while a handler runs, so a handler may register another
 * handler or run executables that call back; a callback never sees one
 * handler with another's user data. */
static pthread_mutex_t handler_mutex = PTHREAD_MUTEX_INITIALIZER;
static nlrt_host_callback_handler current_handler;
static void *current_user_data;

NLRT_API void nlrt_set_host_callback_handler(nlrt_host_callback_handler handler,
                                             void *user_data) {
  pthread_mutex_lock(&handler_mutex);
  current_handler = handler;
  current_user_data = handler ? user_data : NULL;
  pthread_mutex_unlock(&handler_mutex);
}

void nlrt_host_callback_dispatch(uint64_t id, void *const *operands,
                                 uint64_t num_operands, void *const *results,
                                 uint64_t num_results) {
  pthread_mutex_lock(&handler_mutex);
  nlrt_host_callback_handler handler = current_handler;
  void *user_data = current_user_data;
  pthread_mutex_unlock(&handler_mutex);
  if (!handler || handler(user_data, id, operands, (size_t)num_operands,
                          results, (size_t)num_results) != 0)
    nlrt_host_call_abandon_for_callback(id);
}
