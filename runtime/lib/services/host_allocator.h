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

/* What stopped a call, for the message. */
typedef struct nlrt_host_failure {
  /* NLRT_OUT_OF_MEMORY, NLRT_HOST_CALLBACK_FAILED or
   * NLRT_COLLECTIVE_FAILED. */
  nlrt_status cause;
  uint64_t size;      /* bytes requested; a failed host callback's id */
  uint64_t alignment; /* 0 for malloc-style requests */
  int error;          /* errno of the failure */
  int recorded;       /* the message is recorded already (collectives,
                         library calls) */
} nlrt_host_failure;

/* Calls entry(buffers) on this thread. Returns NLRT_OK, or the cause of
 * the jump that stopped it with *failure filled: NLRT_OUT_OF_MEMORY if an
 * allocation failed, NLRT_HOST_CALLBACK_FAILED if a host callback failed,
 * NLRT_COLLECTIVE_FAILED if a collective failed (no message is recorded
 * here; the collective dispatcher recorded its own). Either way every block
 * allocated during the call and not freed by it is freed: generated code
 * cannot hand one out. */
nlrt_status nlrt_host_call_run(void (*entry)(void **), void **buffers,
                               nlrt_host_failure *failure);

/* Stops the running call of this thread after a failed host callback `id`
 * (never returns); outside a call it returns. */
void nlrt_host_call_abandon_for_callback(uint64_t id);

/* Stops the running call of this thread after a failed collective, whose
 * message the caller has recorded (never returns); outside a call it
 * returns. */
void nlrt_host_call_abandon_for_collective(void);

/* Stops the running call of this thread after a failed library call,
 * whose message the caller has recorded, with `cause` (never returns);
 * outside a call it returns. */
void nlrt_host_call_abandon_for_library(nlrt_status cause);

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
