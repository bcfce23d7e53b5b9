/*===- launcher.c - nlrt_executable_execute_spmd and the participants ----===*
 *
 * A launch hands each participant's thread its executable and buffers,
 * waits until all have finished, and reports the first failure. Launches on
 * one communicator run one at a time (launch_mutex). A thread never waits
 * for a peer on its own thread, so the only way to deadlock a launch is to
 * launch again from inside one (a host callback), which is refused.
 *
 * Participant 0 has no thread: it runs on the calling thread for the
 * launch's duration, which saves the two cross-thread wakeups of a handoff
 * (tens of microseconds each on a busy machine; a chained 2-device pmap of
 * a small program took 45 µs a launch with a thread for every participant).
 * The device's OpenMP team is sized at every execute (cpu_driver.c), so the
 * caller's team serves as well as a thread's. The others are posted first
 * and run beside it on their own threads; the caller waits for them once
 * its part is over. A communicator of one participant starts no thread.
 *
 * Both waits of a handoff poll before they sleep: a thread done with a
 * launch watches for the next one, and the launcher for its threads'
 * ends, for HANDOFF_POLL_NS, yielding the core between looks. A loop of
 * launches (pmap after pmap) then passes work without a condition
 * variable's sleep and wakeup, which cost about 45 µs a launch on two
 * cores; a thread with nothing to do sleeps after that long.
 *
 *===----------------------------------------------------------------------===*/

#include "communicator.h"

#include "../services/collectives.h"
#include "processes.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HANDOFF_POLL_NS 100000

static uint64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Polls, yielding the core, until `ready(comm, value)` or HANDOFF_POLL_NS
 * have passed; the caller then waits on its condition variable as usual. */
static void poll_briefly(const nlrt_communicator *comm, uint64_t value,
                         bool (*ready)(const nlrt_communicator *, uint64_t)) {
  uint64_t start = now_ns();
  while (!ready(comm, value) && now_ns() - start < HANDOFF_POLL_NS)
    sched_yield();
}

static bool launch_posted(const nlrt_communicator *comm, uint64_t done) {
  return __atomic_load_n(&comm->launches, __ATOMIC_ACQUIRE) != done ||
         __atomic_load_n(&comm->stopping, __ATOMIC_ACQUIRE);
}

static bool threads_finished(const nlrt_communicator *comm, uint64_t unused) {
  (void)unused;
  return __atomic_load_n(&comm->running, __ATOMIC_ACQUIRE) == 0;
}

/* The participant whose thread this is, for the thread's whole life, or
 * for the duration of a launch on the calling thread (one participant);
 * NULL on every other thread. */
static _Thread_local nlrt_spmd_thread *this_participant;

NLRT_API int nlrt_spmd_current_participant(nlrt_communicator **communicator,
                                           size_t *local_index) {
  nlrt_spmd_thread *self = this_participant;
  if (!self)
    return 0;
  if (communicator)
    *communicator = self->participant.communicator;
  if (local_index)
    *local_index = self->participant.local;
  return 1;
}

/* Runs one launch's part on this thread. */
static void run_participant(nlrt_spmd_thread *self) {
  nlrt_communicator *comm = self->participant.communicator;
  nlrt_executable *executable = self->executable;
  nlrt_status status =
      nlrt_executable_run(executable, self->buffers, &self->participant);
  self->message[0] = '\0';
  if (status != NLRT_OK) {
    snprintf(self->message, sizeof(self->message), "%s", nlrt_last_error());
    /* A participant that stopped because the launch aborted leaves the
     * reason as it is (the first failure wins). */
    nlrt_spmd_abort(comm, self->participant.local, status, self->message);
    /* The other processes learn it at their next exchange. */
    if (comm->processes && self->participant.local == 0)
      nlrt_processes_conclude(comm, comm->collectives, false);
  } else if (comm->processes ||
             (comm->collectives && comm->collectives->count > 0)) {
    /* Across processes always: a process whose program has no collective
     * left must still meet the others' end of the program. */
    nlrt_spmd_finish(&self->participant, comm->collectives);
  }
  self->status = status;
}

void *nlrt_spmd_thread_main(void *argument) {
  nlrt_spmd_thread *self = argument;
  nlrt_communicator *comm = self->participant.communicator;
  this_participant = self;
  uint64_t done = 0;
  for (;;) {
    poll_briefly(comm, done, launch_posted);
    pthread_mutex_lock(&comm->work_mutex);
    while (comm->launches == done && !comm->stopping)
      pthread_cond_wait(&comm->work_posted, &comm->work_mutex);
    if (comm->stopping) {
      pthread_mutex_unlock(&comm->work_mutex);
      return NULL;
    }
    done = comm->launches;
    pthread_mutex_unlock(&comm->work_mutex);

    run_participant(self);

    pthread_mutex_lock(&comm->work_mutex);
    size_t left = comm->running - 1;
    __atomic_store_n(&comm->running, left, __ATOMIC_RELEASE);
    if (left == 0)
      pthread_cond_signal(&comm->work_finished);
    pthread_mutex_unlock(&comm->work_mutex);
  }
}

/* Checks participant i's executable against participant 0's and the
 * communicator. */
static nlrt_status check_participant(const nlrt_communicator *comm, size_t i,
                                     nlrt_executable *const *executables,
                                     void *const *buffers,
                                     size_t num_buffers) {
  const nlrt_executable *executable = executables[i], *first = executables[0];
  if (!executable)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_executable_execute_spmd: executables[%zu] is NULL",
                      i);
  if (executable->device != comm->devices[i])
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_executable_execute_spmd: executables[%zu] is "
                      "loaded on %s; participant %zu runs on %s",
                      i, executable->device->name, i, comm->devices[i]->name);
  if (executable->num_replicas != comm->num_replicas)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_executable_execute_spmd: '%s' is compiled for %zu "
                      "replica%s; the communicator has %zu",
                      executable->entry, executable->num_replicas,
                      executable->num_replicas == 1 ? "" : "s",
                      comm->num_replicas);
  if (strcmp(executable->signature_text, first->signature_text) != 0 ||
      strcmp(executable->entry, first->entry) != 0)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_executable_execute_spmd: executables[%zu] is "
                      "'%s' (%s), executables[0] '%s' (%s): every participant "
                      "runs the same program",
                      i, executable->entry, executable->signature_text,
                      first->entry, first->signature_text);
  if (!nlrt_collectives_equal(executable->collectives, first->collectives))
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_executable_execute_spmd: the collective table of "
                      "executables[%zu] differs from that of executables[0]: "
                      "every participant runs the same program",
                      i);
  nlrt_status status =
      nlrt_executable_check_buffers(executable, buffers, num_buffers);
  if (status != NLRT_OK) {
    char message[2048];
    snprintf(message, sizeof(message), "%s", nlrt_last_error());
    return nlrt_error(status, "nlrt_executable_execute_spmd: participant %zu: %s",
                      i, message);
  }
  return NLRT_OK;
}

static nlrt_status check_launch(const nlrt_communicator *comm,
                                size_t num_local,
                                nlrt_executable *const *executables,
                                void *const *const *buffers,
                                size_t num_buffers) {
  if (this_participant)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_executable_execute_spmd called on the thread of "
                      "participant %zu of a launch (from a host callback?): "
                      "a launch inside a launch would wait for itself",
                      this_participant->participant.local);
  if (!comm || !executables || !buffers)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_executable_execute_spmd: NULL communicator, "
                      "executables or buffers");
  if (num_local != comm->num_local)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_executable_execute_spmd: the communicator has %zu "
                      "participants, got %zu",
                      comm->num_local, num_local);
  for (size_t i = 0; i < num_local; ++i) {
    nlrt_status status =
        check_participant(comm, i, executables, buffers[i], num_buffers);
    if (status != NLRT_OK)
      return status;
  }
  return NLRT_OK;
}

NLRT_API nlrt_status nlrt_executable_execute_spmd(
    nlrt_communicator *comm, size_t num_local,
    nlrt_executable *const *executables, void *const *const *buffers,
    size_t num_buffers, nlrt_status *participant_status) {
  nlrt_status status =
      check_launch(comm, num_local, executables, buffers, num_buffers);
  if (status != NLRT_OK)
    return status;

  pthread_mutex_lock(&comm->launch_mutex);
  if (comm->processes) {
    status = nlrt_processes_begin(comm->processes, executables[0]);
    if (status != NLRT_OK) {
      pthread_mutex_unlock(&comm->launch_mutex);
      return status;
    }
  }
  comm->collectives = executables[0]->collectives;
  for (size_t i = 0; i < num_local; ++i) {
    comm->threads[i].executable = executables[i];
    comm->threads[i].buffers = buffers[i];
  }
  if (num_local > 1) {
    pthread_mutex_lock(&comm->work_mutex);
    comm->running = num_local - 1;
    __atomic_store_n(&comm->launches, comm->launches + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&comm->work_posted);
    pthread_mutex_unlock(&comm->work_mutex);
  }
  /* This thread is participant 0 until its part is over (check_launch made
   * sure it was no participant before). */
  this_participant = &comm->threads[0];
  run_participant(&comm->threads[0]);
  this_participant = NULL;
  if (num_local > 1) {
    poll_briefly(comm, 0, threads_finished);
    pthread_mutex_lock(&comm->work_mutex);
    while (comm->running > 0)
      pthread_cond_wait(&comm->work_finished, &comm->work_mutex);
    pthread_mutex_unlock(&comm->work_mutex);
  }

  if (participant_status)
    for (size_t i = 0; i < num_local; ++i)
      participant_status[i] = comm->threads[i].status;
  /* Every participant has returned: the failure, if any, is settled. */
  pthread_mutex_lock(&comm->failure_mutex);
  status = comm->failure_status;
  if (status != NLRT_OK)
    nlrt_error(status, "%s", comm->failure_message);
  pthread_mutex_unlock(&comm->failure_mutex);
  if (status != NLRT_OK)
    nlrt_spmd_reset(comm);
  pthread_mutex_unlock(&comm->launch_mutex);
  return status;
}
