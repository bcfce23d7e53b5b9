/*===- host_callback.c - calls from generated code back into the host -----===*
 *
 * Every executable with host callbacks exports a slot `<entry>_host_callback`
 * that the cpu driver points at nlrt_host_callback_dispatch. The dispatcher
 * hands the call to the process-wide handler (the Python extension registers
 * one) and, when the handler fails, abandons the running call through the
 * same jump an allocation failure takes (host_allocator.c).
 *
 *===----------------------------------------------------------------------===*/

#include "host_allocator.h"

#include <stdatomic.h>
#include <stdlib.h>

typedef struct handler_entry {
  nlrt_host_callback_handler handler;
  void *user_data;
} handler_entry;

/* Swapped as one pointer, so a callback never sees a handler with another
 * handler's user data. Entries are never freed: a handler is registered once
 * or twice per process. */
static _Atomic(handler_entry *) current_handler;

NLRT_API void nlrt_set_host_callback_handler(nlrt_host_callback_handler handler,
                                             void *user_data) {
  handler_entry *entry = NULL;
  if (handler) {
    entry = malloc(sizeof(*entry));
    if (!entry)
      return;
    entry->handler = handler;
    entry->user_data = user_data;
  }
  atomic_store(&current_handler, entry);
}

void nlrt_host_callback_dispatch(uint64_t id, void *const *operands,
                                 uint64_t num_operands, void *const *results,
                                 uint64_t num_results) {
  handler_entry *entry = atomic_load(&current_handler);
  if (!entry || entry->handler(entry->user_data, id, operands,
                               (size_t)num_operands, results,
                               (size_t)num_results) != 0)
    nlrt_host_call_abandon_for_callback(id);
}
