/*===- exchange.c - the collectives of the in-process communicator -------===*
 *
 * Two phases per collective, over all local participants even for smaller
 * groups (they all run the same program): each participant publishes its
 * buffers in its slot and arrives at the barrier; the last to arrive checks
 * that everyone reached the same collective and releases them; each then
 * does its share of the op (for an all_reduce: reduces its range of its
 * group's elements, reading every member's operand and writing every
 * member's result), and arrives at the barrier again, after which nobody
 * touches a peer's buffers.
 *
 * The barrier word is (generation << 1) | aborted. A waiter spins a little,
 * then sleeps on the word (a futex) with a deadline. Releasing a barrier
 * and aborting one are both compare-and-swaps from (generation, not
 * aborted), so exactly one of them happens: once released, no participant
 * frees what peers read (the second barrier ignores aborts: everyone who
 * passed the first one comes, since shares cannot fail).
 *
 *===----------------------------------------------------------------------===*/

#include "communicator.h"

#include "../services/collectives.h"
#include "processes.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* About 2,000 pauses (tens of microseconds) before sleeping: four
 * participants on two cores must not starve the peer they wait for. */
#define SPIN_LIMIT 2000

/* Elements are moved in chunks of NLRT_SPMD_CHUNK_BYTES, combined and
 * saved in the caller's stack, so a chunk's g reads and g writes meet in the
 * L1 cache. */
#define CHUNK_BYTES NLRT_SPMD_CHUNK_BYTES

size_t nlrt_spmd_replica(const nlrt_spmd_participant *participant) {
  return participant->replica;
}

/*===--- Waiting -----------------------------------------------------------===*/

static uint64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Sleeps while *word == expected, at most `timeout` ns (0: no limit). */
static void sleep_on(nlrt_communicator *comm, uint32_t expected,
                     uint64_t timeout) {
  atomic_fetch_add(&comm->sleepers, 1);
  if (atomic_load(&comm->word) == expected) {
#ifdef __linux__
    struct timespec relative = {(time_t)(timeout / 1000000000u),
                                (long)(timeout % 1000000000u)};
    syscall(SYS_futex, &comm->word, FUTEX_WAIT_PRIVATE, expected,
            timeout ? &relative : NULL, NULL, 0);
#else
    struct timespec pause = {0, 50000};
    (void)timeout;
    nanosleep(&pause, NULL);
#endif
  }
  atomic_fetch_sub(&comm->sleepers, 1);
}

static void wake_all(nlrt_communicator *comm) {
  /* Sequentially consistent with sleep_on's increment and re-check: either
   * the sleeper sees the new word or the waker sees the sleeper. */
  if (atomic_load(&comm->sleepers) == 0)
    return;
#ifdef __linux__
  syscall(SYS_futex, &comm->word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#endif
}

/*===--- Failure -----------------------------------------------------------===*/

/* Records why the launch failed and sets the aborted bit, unless it is set
 * already; with `expected` (not NULL) only if the word still holds it. The
 * caller holds failure_mutex. True if this call aborted. */
static bool abort_locked(nlrt_communicator *comm, const uint32_t *expected,
                         nlrt_status status, const char *message) {
  uint32_t word = atomic_load(&comm->word);
  if (word & 1u)
    return false;
  if (expected) {
    uint32_t seen = *expected;
    if (!atomic_compare_exchange_strong(&comm->word, &seen, seen | 1u))
      return false;
  } else {
    atomic_fetch_or(&comm->word, 1u);
  }
  comm->failure_status = status;
  snprintf(comm->failure_message, sizeof(comm->failure_message), "%s",
           message);
  return true;
}

void nlrt_spmd_abort(nlrt_communicator *comm, size_t local,
                     nlrt_status status, const char *message) {
  char reason[sizeof(comm->failure_message)];
  snprintf(reason, sizeof(reason), "replica %zu failed: %s",
           comm->first_replica + local, message);
  pthread_mutex_lock(&comm->failure_mutex);
  if (abort_locked(comm, NULL, status, reason))
    comm->failure_replica = comm->first_replica + local;
  pthread_mutex_unlock(&comm->failure_mutex);
  wake_all(comm);
}

void nlrt_spmd_fail(nlrt_communicator *comm, nlrt_status status,
                    const char *message) {
  pthread_mutex_lock(&comm->failure_mutex);
  abort_locked(comm, NULL, status, message);
  pthread_mutex_unlock(&comm->failure_mutex);
  wake_all(comm);
}

/* A participant leaves a collective because the launch aborted: its
 * message is the launch's reason. */
static nlrt_status abandon(nlrt_communicator *comm) {
  pthread_mutex_lock(&comm->failure_mutex);
  nlrt_error(NLRT_COLLECTIVE_FAILED, "%s", comm->failure_message);
  pthread_mutex_unlock(&comm->failure_mutex);
  return NLRT_COLLECTIVE_FAILED;
}

void nlrt_spmd_reset(nlrt_communicator *comm) {
  /* A fresh generation: slots that arrived at the aborted barrier do not
   * look arrived at the next one. */
  uint32_t generation = atomic_load(&comm->word) >> 1;
  atomic_store(&comm->arrived, 0);
  atomic_store(&comm->word, (generation + 1) << 1);
  pthread_mutex_lock(&comm->failure_mutex);
  comm->failure_status = NLRT_OK;
  comm->failure_message[0] = '\0';
  comm->failure_replica = SIZE_MAX;
  pthread_mutex_unlock(&comm->failure_mutex);
}

/*===--- Messages ----------------------------------------------------------===*/

static uint64_t arrival_of(uint32_t generation, uint32_t point) {
  return ((uint64_t)generation + 1) << 32 | point;
}

/* "is at all_reduce (model.py:42)" or "finished its program". */
static void describe_point(const nlrt_collectives *collectives, uint32_t point,
                           char *out, size_t capacity) {
  if (point == NLRT_SPMD_END_OF_PROGRAM) {
    snprintf(out, capacity, "finished its program");
    return;
  }
  char what[256];
  nlrt_collective_describe(collectives, point, what, sizeof(what));
  snprintf(out, capacity, "is at %s", what);
}

/* Appends `format` to `out` (which has `capacity` bytes) as far as it fits. */
static void append(char *out, size_t capacity, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *out, size_t capacity, const char *format, ...) {
  size_t used = strlen(out);
  if (used + 1 >= capacity)
    return;
  va_list args;
  va_start(args, format);
  vsnprintf(out + used, capacity - used, format, args);
  va_end(args);
}

/* "replica 2", "replicas 1, 3" of the local participants with
 * `arrived[i] == want`. */
static void list_replicas(const nlrt_communicator *comm, const bool *arrived,
                          bool want, char *out, size_t capacity) {
  size_t count = 0;
  for (size_t i = 0; i < comm->num_local; ++i)
    count += arrived[i] == want;
  snprintf(out, capacity, "replica%s", count == 1 ? "" : "s");
  const char *separator = " ";
  for (size_t i = 0; i < comm->num_local; ++i) {
    if (arrived[i] != want)
      continue;
    append(out, capacity, "%s%zu", separator, comm->first_replica + i);
    separator = ", ";
  }
}

void nlrt_spmd_describe_timeout(uint64_t timeout_ns, char *out,
                                size_t capacity) {
  uint64_t ms = timeout_ns / 1000000u;
  if (ms % 1000 == 0)
    snprintf(out, capacity, "%llu s", (unsigned long long)(ms / 1000));
  else
    snprintf(out, capacity, "%llu ms", (unsigned long long)ms);
}

/* "all_reduce (model.py:42) timed out after 2 s: replica 2 never reached
 * it (replicas 0, 1, 3 waited)"; where the waiters are at different
 * collectives, each is named. */
static void timeout_message(nlrt_communicator *comm,
                            const nlrt_collectives *collectives,
                            uint32_t generation, uint32_t own_point,
                            char *out, size_t capacity) {
  bool arrived[comm->num_local];
  uint32_t points[comm->num_local];
  bool same_point = true;
  for (size_t i = 0; i < comm->num_local; ++i) {
    uint64_t arrival = atomic_load(&comm->slots[i].arrival);
    arrived[i] = (arrival >> 32) == (uint64_t)generation + 1;
    points[i] = (uint32_t)arrival;
    same_point &= !arrived[i] || points[i] == own_point;
  }
  char what[256], after[32], missing[512], waiting[768];
  nlrt_collective_describe(collectives, own_point, what, sizeof(what));
  nlrt_spmd_describe_timeout(comm->timeout_ns, after, sizeof(after));
  list_replicas(comm, arrived, false, missing, sizeof(missing));
  if (same_point) {
    list_replicas(comm, arrived, true, waiting, sizeof(waiting));
    append(waiting, sizeof(waiting), " waited");
  } else {
    waiting[0] = '\0';
    for (size_t i = 0; i < comm->num_local; ++i) {
      if (!arrived[i])
        continue;
      char where[300];
      describe_point(collectives, points[i], where, sizeof(where));
      append(waiting, sizeof(waiting), "%sreplica %zu %s",
             waiting[0] ? ", " : "", comm->first_replica + i, where);
    }
  }
  snprintf(out, capacity, "%s timed out after %s: %s never reached it (%s)",
           what, after, missing, waiting);
}

/*===--- The barrier -------------------------------------------------------===*/

/* The last arrival's check: did everyone reach the same point? If not,
 * aborts with a message naming two that differ, and returns false. */
static bool check_same_point(nlrt_communicator *comm,
                             const nlrt_collectives *collectives,
                             uint32_t generation) {
  uint32_t first = (uint32_t)atomic_load(&comm->slots[0].arrival);
  for (size_t i = 1; i < comm->num_local; ++i) {
    uint32_t point = (uint32_t)atomic_load(&comm->slots[i].arrival);
    if (point == first)
      continue;
    char here[300], there[300], message[1024];
    describe_point(collectives, point, here, sizeof(here));
    describe_point(collectives, first, there, sizeof(there));
    snprintf(message, sizeof(message),
             "replica %zu %s while replica %zu %s: the program's control "
             "flow depends on the replica, so its collectives cannot meet",
             comm->first_replica + i, here, comm->first_replica, there);
    uint32_t expected = generation << 1;
    pthread_mutex_lock(&comm->failure_mutex);
    abort_locked(comm, &expected, NLRT_COLLECTIVE_FAILED, message);
    pthread_mutex_unlock(&comm->failure_mutex);
    wake_all(comm);
    return false;
  }
  return true;
}

/* Arrives at the barrier at `point` and waits for the others. Aborts (and
 * returns NLRT_COLLECTIVE_FAILED) if the launch aborted, if they reached
 * different points, or, when `timed`, if they do not come in time. */
static nlrt_status arrive(nlrt_spmd_participant *self,
                          const nlrt_collectives *collectives, uint32_t point,
                          bool timed) {
  nlrt_communicator *comm = self->communicator;
  uint32_t word = atomic_load(&comm->word);
  if (word & 1u)
    return abandon(comm);
  uint32_t generation = word >> 1;
  atomic_store(&comm->slots[self->local].arrival,
               arrival_of(generation, point));
  if (atomic_fetch_add(&comm->arrived, 1) + 1 == comm->num_local) {
    if (!check_same_point(comm, collectives, generation))
      return abandon(comm);
    atomic_store(&comm->arrived, 0);
    uint32_t expected = generation << 1;
    if (!atomic_compare_exchange_strong(&comm->word, &expected,
                                        (generation + 1) << 1))
      return abandon(comm); /* a waiter timed out just now */
    wake_all(comm);
    return NLRT_OK;
  }
  uint64_t deadline = 0;
  for (unsigned spins = 0;; ++spins) {
    word = atomic_load(&comm->word);
    if ((word >> 1) != generation)
      return NLRT_OK;
    if (word & 1u)
      return abandon(comm);
    if (spins < SPIN_LIMIT) {
      cpu_relax();
      continue;
    }
    uint64_t now = now_ns();
    if (timed && !deadline)
      deadline = now + comm->timeout_ns;
    if (timed && now >= deadline) {
      char message[2048];
      pthread_mutex_lock(&comm->failure_mutex);
      timeout_message(comm, collectives, generation, point, message,
                      sizeof(message));
      bool aborted =
          abort_locked(comm, &word, NLRT_COLLECTIVE_FAILED, message);
      pthread_mutex_unlock(&comm->failure_mutex);
      if (aborted) {
        wake_all(comm);
        return abandon(comm);
      }
      continue; /* released or aborted meanwhile: look again */
    }
    sleep_on(comm, word, timed ? deadline - now : 0);
  }
}

/* The second barrier of a collective: everyone who passed the first comes,
 * so it neither aborts nor times out. */
static void depart(nlrt_spmd_participant *self) {
  nlrt_communicator *comm = self->communicator;
  uint32_t generation = atomic_load(&comm->word) >> 1;
  if (atomic_fetch_add(&comm->arrived, 1) + 1 == comm->num_local) {
    atomic_store(&comm->arrived, 0);
    atomic_fetch_add(&comm->word, 2u);
    wake_all(comm);
    return;
  }
  for (unsigned spins = 0;; ++spins) {
    uint32_t word = atomic_load(&comm->word);
    if ((word >> 1) != generation)
      return;
    if (spins < SPIN_LIMIT)
      cpu_relax();
    else
      sleep_on(comm, word, 0);
  }
}

/*===--- The collectives ---------------------------------------------------===*
 *
 * Every share is a range of element offsets *within a block* (all_reduce,
 * all_gather, permute: the whole operand is one block), and its owner
 * moves those offsets of every block it handles: no two participants touch
 * the same bytes, and each owner orders its reads and writes so that a
 * result may be its own operand (for all_gather and reduce_scatter: begin
 * where the operand begins).
 */

static bool is_local(const nlrt_communicator *comm, int64_t replica) {
  return (uint64_t)(replica - (int64_t)comm->first_replica) < comm->num_local;
}

/* A local replica's operand is in its slot; another process's is where
 * the leader's exchange put it (NULL when the collective exchanged
 * nothing: only a permute's steps between other processes' replicas ask). */
static const char *operand_of(const nlrt_communicator *comm, int64_t replica) {
  if (is_local(comm, replica))
    return comm->slots[replica - (int64_t)comm->first_replica].operand;
  return nlrt_processes_operand(comm->processes, (size_t)replica);
}

/* NULL for another process's replica: its own process writes its result. */
static char *result_of(const nlrt_communicator *comm, int64_t replica) {
  if (!is_local(comm, replica))
    return NULL;
  return comm->slots[replica - (int64_t)comm->first_replica].result;
}

/* memmove where the two may be one place. */
static void move_bytes(void *to, const void *from, size_t bytes) {
  if (bytes && to != from)
    memmove(to, from, bytes);
}

void nlrt_spmd_share_of(size_t elements, size_t participants,
                        size_t position, size_t *start, size_t *count) {
  size_t base = elements / participants, extra = elements % participants;
  *start = position * base + (position < extra ? position : extra);
  *count = base + (position < extra ? 1 : 0);
}

/* all_reduce: elements [start, start + count) of the group's operands,
 * reduced in group order, into every member's result. */
static void all_reduce_share(nlrt_communicator *comm,
                             const nlrt_collective_record *record,
                             const int64_t *members, size_t start,
                             size_t count) {
  unsigned char chunk[CHUNK_BYTES] __attribute__((aligned(64)));
  size_t size = record->element_size, g = record->group_size;
  size_t per_chunk = CHUNK_BYTES / size;
  for (size_t done = 0; done < count;) {
    size_t n = count - done < per_chunk ? count - done : per_chunk;
    size_t offset = (start + done) * size, bytes = n * size;
    memcpy(chunk, operand_of(comm, members[0]) + offset, bytes);
    for (size_t k = 1; k < g; ++k)
      record->reduce(chunk, operand_of(comm, members[k]) + offset, n);
    /* Written only after every read of this chunk: a member's result may
     * be its operand. */
    for (size_t k = 0; k < g; ++k) {
      char *result = result_of(comm, members[k]);
      if (result)
        memcpy(result + offset, chunk, bytes);
    }
    done += n;
  }
}

/* all_gather: elements [start, start + count) of member k's operand into
 * block k of every member's result. From the last block to the first: a
 * result that begins at its operand is overwritten there (block 0) only
 * after that operand was copied everywhere. */
static void all_gather_share(nlrt_communicator *comm,
                             const nlrt_collective_record *record,
                             const int64_t *members, size_t start,
                             size_t count) {
  size_t size = record->element_size, g = record->group_size;
  size_t per_chunk = CHUNK_BYTES / size;
  for (size_t k = g; k-- > 0;) {
    const char *from = operand_of(comm, members[k]) + start * size;
    size_t to = (k * record->elements + start) * size;
    /* Chunk by chunk, so each piece of the operand is read from memory
     * once and written g times. */
    for (size_t done = 0; done < count;) {
      size_t n = count - done < per_chunk ? count - done : per_chunk;
      for (size_t i = 0; i < g; ++i) {
        char *result = result_of(comm, members[i]);
        if (result)
          move_bytes(result + to + done * size, from + done * size, n * size);
      }
      done += n;
    }
  }
}

/* all_to_all: offsets [start, start + count) of every block. Member a's
 * result block b is member b's operand block a: each pair a < b swaps
 * through a saved copy, so a result may be its operand. */
static void all_to_all_share(nlrt_communicator *comm,
                             const nlrt_collective_record *record,
                             const int64_t *members, size_t start,
                             size_t count) {
  unsigned char saved[CHUNK_BYTES] __attribute__((aligned(64)));
  size_t size = record->element_size, g = record->group_size;
  size_t block = record->elements / g, per_chunk = CHUNK_BYTES / size;
  for (size_t a = 0; a < g; ++a) {
    const char *operand_a = operand_of(comm, members[a]);
    char *result_a = result_of(comm, members[a]);
    for (size_t b = a; b < g; ++b) {
      const char *operand_b = operand_of(comm, members[b]);
      char *result_b = result_of(comm, members[b]);
      for (size_t done = 0; done < count;) {
        size_t n = count - done < per_chunk ? count - done : per_chunk;
        size_t bytes = n * size;
        size_t at_ab = (b * block + start + done) * size; /* a's block b */
        size_t at_ba = (a * block + start + done) * size; /* b's block a */
        if (a == b) {
          if (result_a)
            move_bytes(result_a + at_ab, operand_a + at_ab, bytes);
        } else if (result_a || result_b) {
          memcpy(saved, operand_a + at_ab, bytes);
          if (result_a)
            memcpy(result_a + at_ab, operand_b + at_ba, bytes);
          if (result_b)
            memcpy(result_b + at_ba, saved, bytes);
        }
        done += n;
      }
    }
  }
}

/* reduce_scatter: offsets [start, start + count) of every block. Member
 * j's result is block j of the group's operands reduced in group order.
 * Blocks go in member order: a result that begins at its operand is
 * written only after block 0 was read. */
static void reduce_scatter_share(nlrt_communicator *comm,
                                 const nlrt_collective_record *record,
                                 const int64_t *members, size_t start,
                                 size_t count) {
  unsigned char accumulated[CHUNK_BYTES] __attribute__((aligned(64)));
  size_t size = record->element_size, g = record->group_size;
  size_t block = record->elements / g, per_chunk = CHUNK_BYTES / size;
  for (size_t j = 0; j < g; ++j) {
    char *result = result_of(comm, members[j]);
    if (!result)
      continue; /* another process's member computes its own block */
    for (size_t done = 0; done < count;) {
      size_t n = count - done < per_chunk ? count - done : per_chunk;
      size_t offset = (j * block + start + done) * size;
      memcpy(accumulated, operand_of(comm, members[0]) + offset, n * size);
      for (size_t k = 1; k < g; ++k)
        record->reduce(accumulated, operand_of(comm, members[k]) + offset, n);
      memcpy(result + (start + done) * size, accumulated, n * size);
      done += n;
    }
  }
}

/* collective_permute: elements [start, start + count) of every pair, by
 * the steps the loader planned (a result may be its operand). */
static void permute_share(nlrt_communicator *comm,
                          const nlrt_collective_record *record, size_t start,
                          size_t count) {
  unsigned char saved[CHUNK_BYTES] __attribute__((aligned(64)));
  size_t size = record->element_size, per_chunk = CHUNK_BYTES / size;
  for (size_t done = 0; done < count;) {
    size_t n = count - done < per_chunk ? count - done : per_chunk;
    size_t offset = (start + done) * size, bytes = n * size;
    for (size_t i = 0; i < record->num_steps; ++i) {
      const nlrt_permute_step *step = &record->steps[i];
      /* Steps of other processes' targets are theirs; a save only feeds
       * a restore of its cycle, skipped with it where the operand is not
       * here. */
      char *target = step->action == NLRT_PERMUTE_SAVE
                         ? NULL
                         : result_of(comm, (int64_t)step->target);
      const char *source = step->action == NLRT_PERMUTE_COPY ||
                                   step->action == NLRT_PERMUTE_SAVE
                               ? operand_of(comm, (int64_t)step->source)
                               : NULL;
      switch (step->action) {
      case NLRT_PERMUTE_COPY:
        if (target)
          move_bytes(target + offset, source + offset, bytes);
        break;
      case NLRT_PERMUTE_SAVE:
        if (source)
          memcpy(saved, source + offset, bytes);
        break;
      case NLRT_PERMUTE_RESTORE:
        if (target)
          memcpy(target + offset, saved, bytes);
        break;
      case NLRT_PERMUTE_ZERO:
        if (target)
          memset(target + offset, 0, bytes);
        break;
      }
    }
    done += n;
  }
}

/* This participant's share of the collective, between the barriers. */
static void run_share(nlrt_spmd_participant *self,
                      const nlrt_collective_record *record) {
  nlrt_communicator *comm = self->communicator;
  size_t start = 0, count = 0;
  if (record->elements == 0)
    return; /* nothing to move, and no exchanged operands to point at */
  if (record->op == NLRT_COLLECTIVE_PERMUTE) {
    /* Pairs span the communicator: every participant takes a range. */
    nlrt_spmd_share_of(record->elements, comm->num_local, self->local, &start,
                       &count);
    permute_share(comm, record, start, count);
    return;
  }
  const int64_t *members = NULL;
  size_t position = 0, g = record->group_size;
  /* The table was checked at load: every replica is in one group. */
  if (!nlrt_collective_group_of(record, self->replica, &members, &position))
    return;
  /* The group's members in this process split the work: all of them in
   * one process, fewer where the group spans processes. */
  if (g == 1) {
    /* A group of one: every op's result is its operand (a reduction of one,
     * the one block gathered, scattered or sent). In place, nothing moves. */
    move_bytes(result_of(comm, members[0]), operand_of(comm, members[0]),
               record->elements * record->element_size);
    return;
  }
  size_t sharers = 0, rank = 0;
  for (size_t k = 0; k < g; ++k) {
    if (!is_local(comm, members[k]))
      continue;
    rank += k < position;
    ++sharers;
  }
  switch (record->op) {
  case NLRT_COLLECTIVE_ALL_REDUCE:
    nlrt_spmd_share_of(record->elements, sharers, rank, &start, &count);
    all_reduce_share(comm, record, members, start, count);
    break;
  case NLRT_COLLECTIVE_ALL_GATHER:
    nlrt_spmd_share_of(record->elements, sharers, rank, &start, &count);
    all_gather_share(comm, record, members, start, count);
    break;
  case NLRT_COLLECTIVE_ALL_TO_ALL:
    nlrt_spmd_share_of(record->elements / g, sharers, rank, &start,
                       &count);
    all_to_all_share(comm, record, members, start, count);
    break;
  case NLRT_COLLECTIVE_REDUCE_SCATTER:
    nlrt_spmd_share_of(record->elements / g, sharers, rank, &start,
                       &count);
    reduce_scatter_share(comm, record, members, start, count);
    break;
  default: /* replica_id never comes here; permute did above */
    break;
  }
}

/* Between the first barrier and the shares of a collective that spans
 * processes: the leader brings every other process's operands (or, for a
 * reduction in slices, the results) while the other local participants
 * wait at a barrier of their own (untimed: the leader's MPI calls are),
 * which the leader aborts if it fails. */
static nlrt_status exchange_across_processes(
    nlrt_spmd_participant *self, const nlrt_collectives *collectives,
    size_t index) {
  nlrt_communicator *comm = self->communicator;
  if (self->local == 0) {
    nlrt_status status = nlrt_processes_exchange(comm, collectives, index);
    if (status != NLRT_OK) {
      nlrt_spmd_fail(comm, status, nlrt_last_error());
      return abandon(comm);
    }
  }
  return arrive(self, collectives, (uint32_t)index, false);
}

nlrt_status nlrt_spmd_collective(nlrt_spmd_participant *self,
                                 const nlrt_collectives *collectives,
                                 size_t index, const void *operand,
                                 void *result) {
  nlrt_communicator *comm = self->communicator;
  nlrt_spmd_slot *slot = &comm->slots[self->local];
  slot->operand = operand;
  slot->result = result;
  nlrt_status status = arrive(self, collectives, (uint32_t)index, true);
  if (status != NLRT_OK)
    return status;
  const nlrt_collective_record *record = &collectives->records[index];
  bool computed = false; /* by the exchange: no share is left */
  if (comm->processes && nlrt_processes_spans(comm, record)) {
    status = exchange_across_processes(self, collectives, index);
    if (status != NLRT_OK)
      return status;
    computed = nlrt_processes_reduces(comm, record);
  }
  if (!computed)
    run_share(self, record);
  depart(self);
  return NLRT_OK;
}

void nlrt_spmd_finish(nlrt_spmd_participant *self,
                      const nlrt_collectives *collectives) {
  /* Failure here means a peer failed or diverged: the launch reports it,
   * while this participant's own program did finish. */
  nlrt_status status =
      arrive(self, collectives, NLRT_SPMD_END_OF_PROGRAM, false);
  if (self->communicator->processes && self->local == 0)
    nlrt_processes_conclude(self->communicator, collectives,
                            status == NLRT_OK);
}
