/*===- host_allocator.c - checked heap for generated code, per call -------===*
 *
 * Every block carries a header just below the pointer handed out, linking it
 * into the running call's list of live blocks (a doubly linked ring, so free
 * is O(1)). The call's state lives in a thread-local pointer: one call per
 * thread at a time, and the jump target is always a frame of this thread.
 * Work handed to other threads would need a call of its own there.
 *
 *===----------------------------------------------------------------------===*/

#include "host_allocator.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct block {
  struct block *previous, *next;
  void *base; /* what malloc or posix_memalign returned */
  uint64_t size;
} block;

/* The header keeps malloc's 16-byte alignment for the pointer above it. */
#define HEADER_SIZE ((sizeof(block) + 15) & ~(size_t)15)

typedef struct host_call {
  jmp_buf jump;
  block live; /* ring sentinel */
  nlrt_host_failure failure;
} host_call;

static _Thread_local host_call *current_call;

static void link_block(block *b) {
  host_call *call = current_call;
  if (!call) {
    /* Called outside nlrt_host_call_run (a caller that bypassed the
     * runtime): an untracked block, a ring of its own. */
    b->previous = b->next = b;
    return;
  }
  b->next = call->live.next;
  b->previous = &call->live;
  call->live.next->previous = b;
  call->live.next = b;
}

static void unlink_block(block *b) {
  b->previous->next = b->next;
  b->next->previous = b->previous;
}

/* Never returns inside a call; outside one, generated code gets NULL as it
 * would from malloc. */
static void *fail(uint64_t size, uint64_t alignment, int error) {
  host_call *call = current_call;
  if (!call)
    return NULL;
  call->failure.size = size;
  call->failure.alignment = alignment;
  call->failure.error = error;
  longjmp(call->jump, 1);
}

void *nlrt_host_alloc(uint64_t size) {
  if (size > SIZE_MAX - HEADER_SIZE)
    return fail(size, 0, ENOMEM);
  void *base = malloc(HEADER_SIZE + (size_t)size);
  if (!base)
    return fail(size, 0, errno ? errno : ENOMEM);
  block *b = base;
  b->base = base;
  b->size = size;
  link_block(b);
  return (char *)base + HEADER_SIZE;
}

void *nlrt_host_aligned_alloc(uint64_t alignment, uint64_t size) {
  if (alignment < sizeof(void *))
    alignment = sizeof(void *);
  /* posix_memalign needs a power of two; round a stray request up. */
  if (alignment & (alignment - 1)) {
    uint64_t power = sizeof(void *);
    while (power < alignment && power <= (UINT64_MAX >> 1))
      power <<= 1;
    alignment = power;
  }
  if (alignment > SIZE_MAX / 2)
    return fail(size, alignment, EINVAL);
  size_t offset = HEADER_SIZE > alignment ? HEADER_SIZE : (size_t)alignment;
  if (size > SIZE_MAX - offset)
    return fail(size, alignment, ENOMEM);
  void *base = NULL;
  int error = posix_memalign(&base, (size_t)alignment, offset + (size_t)size);
  if (error)
    return fail(size, alignment, error);
  block *b = (block *)((char *)base + offset - HEADER_SIZE);
  b->base = base;
  b->size = size;
  link_block(b);
  return (char *)base + offset;
}

void nlrt_host_free(void *pointer) {
  if (!pointer)
    return;
  block *b = (block *)((char *)pointer - HEADER_SIZE);
  unlink_block(b);
  free(b->base);
}

/* Kept out of line so that no local of nlrt_host_call_run is live across the
 * setjmp (their values would be indeterminate after the longjmp). */
static __attribute__((noinline)) int run(void (*entry)(void **),
                                         void **buffers, host_call *call) {
  if (setjmp(call->jump))
    return 1;
  entry(buffers);
  return 0;
}

nlrt_status nlrt_host_call_run(void (*entry)(void **), void **buffers,
                               nlrt_host_failure *failure) {
  host_call call;
  call.live.previous = call.live.next = &call.live;
  host_call *outer = current_call;
  current_call = &call;
  int failed = run(entry, buffers, &call);
  current_call = outer;
  while (call.live.next != &call.live) {
    block *b = call.live.next;
    unlink_block(b);
    free(b->base);
  }
  if (!failed)
    return NLRT_OK;
  *failure = call.failure;
  return NLRT_OUT_OF_MEMORY;
}

void nlrt_format_bytes(uint64_t bytes, char *out, size_t capacity) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB",
                                      "EiB"};
  if (bytes < 1024) {
    snprintf(out, capacity, "%llu B", (unsigned long long)bytes);
    return;
  }
  double value = (double)bytes / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof(units) / sizeof(units[0])) {
    value /= 1024;
    ++unit;
  }
  snprintf(out, capacity, "%.2f %s", value, units[unit]);
}
