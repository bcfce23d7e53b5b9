/*===- host_allocator.h - checked host heap for generated code, per call --===*
 *
 * Generated code allocates its temporary buffers through a table it exports
 * (`void *<entry>_allocator[3]`: malloc, aligned_alloc and free, in that
 * order); a driver that runs host code (the cpu driver) points the table
 * at the functions here, a service any driver may use. During
 * nlrt_host_call_run they track every live block of the call, and when an
 * allocation fails they longjmp back into nlrt_host_call_run, which frees
 * the call's blocks and reports the size. Generated code holds no other
 * resource in the frames the jump skips (no locks, files or threads), so
 * nothing else leaks.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SERVICES_HOST_ALLOCATOR_H
#define NLRT_SERVICES_HOST_ALLOCATOR_H

#include "../internal.h"

#include <stdint.h>

/* The entries of an executable's allocator table, in table order. */
void *nlrt_host_alloc(uint64_t size);
void *nlrt_host_aligned_alloc(uint64_t alignment, uint64_t size);
void nlrt_host_free(void *pointer);

/* What an allocation failure left behind, for the message. */
typedef struct nlrt_host_failure {
  uint64_t size;      /* bytes requested */
  uint64_t alignment; /* 0 for malloc-style requests */
  int error;          /* errno of the failure */
  int callback;       /* 1: a host callback failed, `size` is its id */
} nlrt_host_failure;

/* Calls entry(buffers) on this thread. Returns NLRT_OK, or
 * NLRT_OUT_OF_MEMORY with *failure filled if an allocation failed, or
 * NLRT_HOST_CALLBACK_FAILED if a host callback failed (no message is
 * recorded). Either way every block allocated during the call
 * and not freed by it is freed: generated code cannot hand one out. */
nlrt_status nlrt_host_call_run(void (*entry)(void **), void **buffers,
                               nlrt_host_failure *failure);

/* Stops the running call of this thread after a failed host callback `id`
 * (never returns); outside a call it returns. */
void nlrt_host_call_abandon_for_callback(uint64_t id);

/* The slot value of an executable's `<entry>_host_callback`: runs the
 * registered handler (host_callback.c). */
void nlrt_host_callback_dispatch(uint64_t id, void *const *operands,
                                 uint64_t num_operands, void *const *results,
                                 uint64_t num_results);

/* Frees every block the allocator keeps for reuse; returns their bytes. */
uint64_t nlrt_host_release_cached_memory(void);

/* Bytes of freed blocks kept for reuse. */
uint64_t nlrt_host_cached_bytes(void);

/* "3.64 TiB" for 4000000000000. */
void nlrt_format_bytes(uint64_t bytes, char *out, size_t capacity);

#endif /* NLRT_SERVICES_HOST_ALLOCATOR_H */
