/*===- host_allocator.c - checked heap for generated code, per call -------===*
 *
 * Every block carries a header just below the pointer handed out, linking it
 * into the running call's list of live blocks (a doubly linked ring, so free
 * is O(1)). The call's state lives in a thread-local pointer: one call per
 * thread at a time, and the jump target is always a frame of this thread.
 * Work handed to other threads would need a call of its own there.
 *
 * Freed blocks of at least NLRT_CACHE_MIN_BYTES are kept in a cache shared
 * by all threads and handed out again for a request of the same size and
 * alignment, up to a byte budget (NUMLIR_ALLOCATOR_CACHE_BYTES, default
 * 1 GiB; 0 turns it off). A jitted function called in a loop asks for the
 * same temporaries every call; without the cache each large one is a fresh
 * mmap whose pages all fault again (16,385 faults per call for a 64 MiB
 * temporary). Before an allocation is reported as failed the cache is
 * emptied and the request retried, so cached memory never causes an
 * out-of-memory error.
 *
 *===----------------------------------------------------------------------===*/

#include "host_allocator.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct block {
  struct block *previous, *next;
  void *base; /* what malloc or posix_memalign returned */
  uint64_t size;
  uint64_t alignment; /* 0 for malloc-style blocks */
} block;

/* The header keeps malloc's 16-byte alignment for the pointer above it. */
#define HEADER_SIZE ((sizeof(block) + 15) & ~(size_t)15)

typedef struct host_call {
  jmp_buf jump;
  block live; /* ring sentinel */
  nlrt_host_failure failure;
} host_call;

static _Thread_local host_call *current_call;

static void ring_insert_after(block *position, block *b) {
  b->next = position->next;
  b->previous = position;
  position->next->previous = b;
  position->next = b;
}

static void link_block(block *b) {
  host_call *call = current_call;
  if (!call) {
    /* Called outside nlrt_host_call_run (a caller that bypassed the
     * runtime): an untracked block, a ring of its own. */
    b->previous = b->next = b;
    return;
  }
  ring_insert_after(&call->live, b);
}

static void unlink_block(block *b) {
  b->previous->next = b->next;
  b->next->previous = b->previous;
}

/*===--- The cache of freed blocks ----------------------------------------===*/

/* Smaller blocks come from malloc's own free lists without page faults. */
#define NLRT_CACHE_MIN_BYTES ((uint64_t)64 << 10)

static pthread_mutex_t cache_mutex = PTHREAD_MUTEX_INITIALIZER;
static block cached = {&cached, &cached, NULL, 0, 0}; /* most recent first */
static uint64_t cached_bytes;
static uint64_t cache_budget;
static int cache_budget_read;

static uint64_t read_cache_budget(void) {
  const char *text = getenv("NUMLIR_ALLOCATOR_CACHE_BYTES");
  if (!text || !*text)
    return (uint64_t)1 << 30;
  char *end = NULL;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno || *end != '\0')
    return (uint64_t)1 << 30; /* unparsable: the default, never a crash */
  return value;
}


/* A cached block for exactly this request, unlinked, or NULL. */
static block *take_cached(uint64_t size, uint64_t alignment) {
  if (size < NLRT_CACHE_MIN_BYTES)
    return NULL;
  block *found = NULL;
  pthread_mutex_lock(&cache_mutex);
  for (block *b = cached.next; b != &cached; b = b->next) {
    if (b->size == size && b->alignment == alignment) {
      unlink_block(b);
      cached_bytes -= b->size;
      found = b;
      break;
    }
  }
  pthread_mutex_unlock(&cache_mutex);
  return found;
}

/* Frees `b`, or keeps it for reuse when the budget allows (evicting the
 * least recently freed blocks to make room). */
static void release_block(block *b) {
  if (b->size < NLRT_CACHE_MIN_BYTES) {
    free(b->base);
    return;
  }
  block *evicted = NULL; /* freed outside the lock */
  pthread_mutex_lock(&cache_mutex);
  if (!cache_budget_read) {
    cache_budget = read_cache_budget();
    cache_budget_read = 1;
  }
  if (b->size > cache_budget) {
    pthread_mutex_unlock(&cache_mutex);
    free(b->base);
    return;
  }
  while (cached_bytes + b->size > cache_budget) {
    block *oldest = cached.previous;
    unlink_block(oldest);
    cached_bytes -= oldest->size;
    oldest->next = evicted;
    evicted = oldest;
  }
  ring_insert_after(&cached, b);
  cached_bytes += b->size;
  pthread_mutex_unlock(&cache_mutex);
  while (evicted) {
    block *next = evicted->next;
    free(evicted->base);
    evicted = next;
  }
}

uint64_t nlrt_host_release_cached_memory(void) {
  pthread_mutex_lock(&cache_mutex);
  /* Detach the ring as a NULL-terminated list (empty: NULL). */
  block *list = cached.next == &cached ? NULL : cached.next;
  cached.previous->next = NULL;
  cached.next = cached.previous = &cached;
  uint64_t released = cached_bytes;
  cached_bytes = 0;
  pthread_mutex_unlock(&cache_mutex);
  while (list) {
    block *next = list->next;
    free(list->base);
    list = next;
  }
  return released;
}

uint64_t nlrt_host_cached_bytes(void) {
  pthread_mutex_lock(&cache_mutex);
  uint64_t bytes = cached_bytes;
  pthread_mutex_unlock(&cache_mutex);
  return bytes;
}

/* Never returns inside a call; outside one, generated code gets NULL as it
 * would from malloc. */
static void *fail(uint64_t size, uint64_t alignment, int error) {
  host_call *call = current_call;
  if (!call)
    return NULL;
  call->failure.cause = NLRT_OUT_OF_MEMORY;
  call->failure.size = size;
  call->failure.alignment = alignment;
  call->failure.error = error;
  call->failure.recorded = 0;
  longjmp(call->jump, 1);
}

/* Leaves the running call for a reason other than memory. */
static void abandon(nlrt_status cause, uint64_t id, int recorded) {
  host_call *call = current_call;
  if (!call)
    return;
  call->failure.cause = cause;
  call->failure.size = id;
  call->failure.alignment = 0;
  call->failure.error = 0;
  call->failure.recorded = recorded;
  longjmp(call->jump, 1);
}

void nlrt_host_call_abandon_for_callback(uint64_t id) {
  abandon(NLRT_HOST_CALLBACK_FAILED, id, 0);
}

void nlrt_host_call_abandon_for_collective(void) {
  abandon(NLRT_COLLECTIVE_FAILED, 0, 1);
}

void nlrt_host_call_abandon_for_library(nlrt_status cause) {
  abandon(cause, 0, 1);
}

/* malloc or posix_memalign with a retry after emptying the cache; 0 or an
 * errno value. */
static int allocate(void **base, uint64_t alignment, size_t bytes) {
  for (int attempt = 0;; ++attempt) {
    int error = 0;
    if (alignment == 0) {
      errno = 0;
      *base = malloc(bytes);
      if (!*base)
        error = errno ? errno : ENOMEM;
    } else {
      error = posix_memalign(base, (size_t)alignment, bytes);
    }
    if (!error || attempt == 1 || nlrt_host_release_cached_memory() == 0)
      return error;
  }
}

void *nlrt_host_alloc(uint64_t size) {
  block *b = take_cached(size, 0);
  if (b) {
    link_block(b);
    return (char *)b->base + HEADER_SIZE;
  }
  if (size > SIZE_MAX - HEADER_SIZE)
    return fail(size, 0, ENOMEM);
  void *base = NULL;
  int error = allocate(&base, 0, HEADER_SIZE + (size_t)size);
  if (error)
    return fail(size, 0, error);
  b = base;
  b->base = base;
  b->size = size;
  b->alignment = 0;
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
  block *b = take_cached(size, alignment);
  if (b) {
    link_block(b);
    return (char *)b->base + offset;
  }
  if (size > SIZE_MAX - offset)
    return fail(size, alignment, ENOMEM);
  void *base = NULL;
  int error = allocate(&base, alignment, offset + (size_t)size);
  if (error)
    return fail(size, alignment, error);
  b = (block *)((char *)base + offset - HEADER_SIZE);
  b->base = base;
  b->size = size;
  b->alignment = alignment;
  link_block(b);
  return (char *)base + offset;
}

void nlrt_host_free(void *pointer) {
  if (!pointer)
    return;
  block *b = (block *)((char *)pointer - HEADER_SIZE);
  unlink_block(b);
  release_block(b);
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
    release_block(b);
  }
  if (!failed)
    return NLRT_OK;
  *failure = call.failure;
  return failure->cause;
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
