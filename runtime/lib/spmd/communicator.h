/*===- communicator.h - the in-process SPMD communicator, inside ---------===*
 *
 * A communicator has one persistent thread per local participant (device),
 * which runs that participant's executable in every launch (launcher.c;
 * with a single participant the calling thread runs it instead), and a
 * barrier over all local participants through which their collectives meet
 * (exchange.c). docs/design-pmap.md §3 gives the design.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SPMD_COMMUNICATOR_H
#define NLRT_SPMD_COMMUNICATOR_H

#include "../internal.h"

#include <pthread.h>

struct nlrt_collectives;
struct nlrt_processes;

/* Who runs: handed to the collective dispatcher through the call context. */
typedef struct nlrt_spmd_participant {
  nlrt_communicator *communicator;
  size_t local;   /* 0 .. num_local - 1 */
  size_t replica; /* first_replica + local */
} nlrt_spmd_participant;

/* What participant `local` publishes at a collective. `arrival` packs
 * (barrier generation + 1) << 32 with the collective's index (or
 * NLRT_SPMD_END_OF_PROGRAM): where it waits, for the divergence check and
 * the timeout message. operand and result are read by peers only between
 * the collective's two barriers. One cache line each: participants write
 * their own slot while others read theirs. */
typedef struct nlrt_spmd_slot {
  _Atomic uint64_t arrival;
  const void *operand;
  void *result;
} __attribute__((aligned(64))) nlrt_spmd_slot;

#define NLRT_SPMD_END_OF_PROGRAM UINT32_MAX

/* A participant's persistent thread and its part of the current launch.
 * Participant 0's thread is never started (started stays false): the
 * launcher runs its part on the calling thread (launcher.c). */
typedef struct nlrt_spmd_thread {
  nlrt_spmd_participant participant;
  pthread_t thread;
  bool started;
  /* Written by the launcher under work_mutex before it posts a launch. */
  nlrt_executable *executable;
  void *const *buffers;
  /* Written by the thread before it reports the launch finished. */
  nlrt_status status;
  char message[2048]; /* its nlrt_last_error when it failed */
} nlrt_spmd_thread;

struct nlrt_communicator {
  size_t num_local;
  size_t first_replica;
  size_t num_replicas;
  uint64_t timeout_ns;
  nlrt_device **devices; /* each holds a reference */
  nlrt_spmd_thread *threads;
  nlrt_spmd_slot *slots;

  /* Held for the whole of a launch: launches run one at a time. */
  pthread_mutex_t launch_mutex;
  /* Hands launches to the threads and collects them. */
  pthread_mutex_t work_mutex;
  pthread_cond_t work_posted;
  pthread_cond_t work_finished;
  /* Written under work_mutex, read also without it (atomically) by the
   * waits that poll before they sleep (launcher.c). */
  uint64_t launches; /* posted so far */
  size_t running;    /* threads not finished with the current launch */
  bool stopping;
  /* The collective table of the current launch (the same in every
   * participant's executable). */
  const struct nlrt_collectives *collectives;

  /* The barrier: how many have arrived, and (generation << 1) | aborted,
   * the word participants wait on (a futex). */
  _Atomic uint32_t arrived;
  _Atomic uint32_t word;
  _Atomic uint32_t sleepers; /* waiting in the kernel: wake them */

  /* The first failure of the launch; written before the aborted bit is set,
   * both under failure_mutex. */
  pthread_mutex_t failure_mutex;
  nlrt_status failure_status;
  char failure_message[2112];
  size_t failure_replica; /* whose failure it was; SIZE_MAX: no replica's */

  /* NULL unless replicas live in other processes (processes.h). */
  struct nlrt_processes *processes;
};

/* launcher.c: the body of a participant's thread (`argument`: its
 * nlrt_spmd_thread). */
void *nlrt_spmd_thread_main(void *argument);

/* exchange.c: the collectives. */

/* The participant's global replica id. */
size_t nlrt_spmd_replica(const nlrt_spmd_participant *participant);

/* Collective `index` (any op but replica_id): publishes the buffers,
 * waits for every local participant (checking they all reached this same
 * collective), does this participant's share of the op, reading peers'
 * operands and writing peers' results, and waits until every share is
 * done. NLRT_OK, or NLRT_COLLECTIVE_FAILED with the message recorded
 * (divergence, timeout, a failed peer). */
nlrt_status nlrt_spmd_collective(nlrt_spmd_participant *participant,
                                 const struct nlrt_collectives *collectives,
                                 size_t index, const void *operand,
                                 void *result);

/* Called when the participant's program has returned: waits until every
 * participant has (a peer still waiting at a collective is a divergence:
 * its program reaches a collective this one never called), or the launch
 * aborted. Across processes the leader then tells the other processes
 * how the launch ended here. */
void nlrt_spmd_finish(nlrt_spmd_participant *participant,
                      const struct nlrt_collectives *collectives);

/* The bytes a collective's kernels move or combine at a time (exchange.c's
 * shares, processes.c's slices): a chunk of each operand and of the result
 * fits in the L1 cache together. */
#define NLRT_SPMD_CHUNK_BYTES 16384

/* A participant's share of a collective: a balanced split of `elements`
 * into `participants` ranges (the first elements % participants of them
 * one longer), range `position`. */
void nlrt_spmd_share_of(size_t elements, size_t participants,
                        size_t position, size_t *start, size_t *count);

/* Aborts the current launch for participant `local`'s failure (first
 * failure wins): peers waiting at collectives stop with "replica 2 failed:
 * <message>". */
void nlrt_spmd_abort(nlrt_communicator *communicator, size_t local,
                     nlrt_status status, const char *message);

/* Fails the current launch with `message` as it is (first failure wins),
 * for a reason that is no replica's own: the processes disagreed. */
void nlrt_spmd_fail(nlrt_communicator *communicator, nlrt_status status,
                    const char *message);

/* "2 s" or "1500 ms": a timeout for messages. */
void nlrt_spmd_describe_timeout(uint64_t timeout_ns, char *out,
                                size_t capacity);

/* Readies the barrier for the next launch; no participant may be running. */
void nlrt_spmd_reset(nlrt_communicator *communicator);

#endif /* NLRT_SPMD_COMMUNICATOR_H */
