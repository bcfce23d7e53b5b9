/*===- launcher.c - nlrt_executable_execute_spmd and the participants ----===*
 *
 * A launch hands each participant's thread its executable and buffers,
 * waits until all have finished, and reports the first failure. Launches on
 * one communicator run one at a time (launch_mutex). A thread never waits
 * for a peer on its own thread, so the only way to deadlock a launch is to
 * launch again from inside one (a host callback), which is refused.
 *
 * A communicator of one participant has no thread: its launches run on the
 * calling thread, as participant 0 for the launch's duration, which saves
 * the two cross-thread wakeups of a handoff (tens of microseconds each on a
 * busy machine). With no peer in this process there is nothing to run
 * beside it, and the device's OpenMP team is sized at every execute
 * (cpu_driver.c), so the caller's team serves as well as a thread's.
 *
 *===----------------------------------------------------------------------===*/

#include "communicator.h"

#include "../services/collectives.h"
#include "processes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (--comm->running == 0)
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
  if (num_local == 1) {
    /* This thread is participant 0 until the launch is over (check_launch
     * made sure it was no participant before). */
    nlrt_spmd_thread *self = &comm->threads[0];
    comm->collectives = executables[0]->collectives;
    self->executable = executables[0];
    self->buffers = buffers[0];
    this_participant = self;
    run_participant(self);
    this_participant = NULL;
  } else {
    pthread_mutex_lock(&comm->work_mutex);
    comm->collectives = executables[0]->collectives;
    for (size_t i = 0; i < num_local; ++i) {
      comm->threads[i].executable = executables[i];
      comm->threads[i].buffers = buffers[i];
    }
    comm->running = num_local;
    ++comm->launches;
    pthread_cond_broadcast(&comm->work_posted);
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
