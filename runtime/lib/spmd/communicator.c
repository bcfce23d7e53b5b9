/*===- communicator.c - creating and destroying SPMD communicators -------===*
 *
 * A communicator of several local participants owns one thread per
 * participant for its whole life: libomp keeps a team per thread that forks
 * parallel loops, so a thread that persists keeps its device's team warm
 * between launches, where fresh threads would build N teams at every step.
 * One participant needs no thread: its launches run on the caller's
 * (launcher.c).
 *
 *===----------------------------------------------------------------------===*/

#include "communicator.h"

#include "processes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_SECONDS 600.0

/* NUMLIR_COLLECTIVE_TIMEOUT (seconds, > 0), else 600 s. */
static uint64_t timeout_from_environment(void) {
  const char *text = getenv("NUMLIR_COLLECTIVE_TIMEOUT");
  double seconds = DEFAULT_TIMEOUT_SECONDS;
  if (text && *text) {
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (errno == 0 && *end == '\0' && value > 0 && value < 1e9)
      seconds = value;
  }
  return (uint64_t)(seconds * 1e9);
}

/* The global replica count the options give (0: all are local). */
static size_t replicas_of(const nlrt_communicator_options *options,
                          size_t num_local) {
  return options && options->num_replicas ? options->num_replicas : num_local;
}

static nlrt_status check_arguments(nlrt_device *const *devices,
                                   size_t num_local,
                                   const nlrt_communicator_options *options,
                                   nlrt_communicator **out) {
  if (!devices || !out || num_local == 0)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_communicator_create needs devices, at least one, "
                      "and an out pointer");
  for (size_t i = 0; i < num_local; ++i) {
    if (!devices[i])
      return nlrt_error(NLRT_INVALID_ARGUMENT,
                        "nlrt_communicator_create: devices[%zu] is NULL", i);
    for (size_t j = 0; j < i; ++j)
      if (devices[j]->driver == devices[i]->driver &&
          devices[j]->ordinal == devices[i]->ordinal)
        return nlrt_error(NLRT_INVALID_ARGUMENT,
                          "nlrt_communicator_create: devices[%zu] and "
                          "devices[%zu] are both %s; each participant needs "
                          "a device of its own",
                          j, i, devices[i]->name);
  }
  if (!options)
    return NLRT_OK;
  size_t num_replicas = replicas_of(options, num_local);
  if (num_replicas < num_local ||
      options->first_replica > num_replicas - num_local)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_communicator_create: %zu local replicas from "
                      "replica %zu do not fit in %zu replicas",
                      num_local, options->first_replica, num_replicas);
  if (num_replicas != num_local)
    return nlrt_processes_check(num_local, options->first_replica,
                                num_replicas);
  return NLRT_OK;
}

/* Stops and joins the started threads and frees everything. */
static void destroy(nlrt_communicator *comm) {
  pthread_mutex_lock(&comm->work_mutex);
  __atomic_store_n(&comm->stopping, true, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&comm->work_posted);
  pthread_mutex_unlock(&comm->work_mutex);
  for (size_t i = 0; i < comm->num_local; ++i) {
    if (comm->threads[i].started)
      pthread_join(comm->threads[i].thread, NULL);
    nlrt_device_close(comm->devices[i]);
  }
  nlrt_processes_destroy(comm->processes);
  pthread_mutex_destroy(&comm->launch_mutex);
  pthread_mutex_destroy(&comm->work_mutex);
  pthread_mutex_destroy(&comm->failure_mutex);
  pthread_cond_destroy(&comm->work_posted);
  pthread_cond_destroy(&comm->work_finished);
  free(comm->slots);
  free(comm->threads);
  free(comm->devices);
  free(comm);
}

NLRT_API nlrt_status nlrt_communicator_create(
    nlrt_device *const *devices, size_t num_local,
    const nlrt_communicator_options *options, nlrt_communicator **out) {
  nlrt_status status = check_arguments(devices, num_local, options, out);
  if (status != NLRT_OK)
    return status;
  nlrt_communicator *comm = calloc(1, sizeof(*comm));
  void *slots = NULL;
  if (comm && posix_memalign(&slots, 64, num_local * sizeof(nlrt_spmd_slot)))
    slots = NULL;
  nlrt_spmd_thread *threads = calloc(num_local, sizeof(*threads));
  nlrt_device **held = calloc(num_local, sizeof(*held));
  if (!comm || !slots || !threads || !held) {
    free(comm);
    free(slots);
    free(threads);
    free(held);
    return nlrt_error(NLRT_OUT_OF_MEMORY,
                      "out of memory creating a communicator");
  }
  memset(slots, 0, num_local * sizeof(nlrt_spmd_slot));
  comm->num_local = num_local;
  comm->first_replica = options ? options->first_replica : 0;
  comm->num_replicas = replicas_of(options, num_local);
  comm->timeout_ns = options && options->timeout_ms
                         ? (uint64_t)options->timeout_ms * 1000000u
                         : timeout_from_environment();
  comm->failure_replica = SIZE_MAX;
  comm->slots = slots;
  comm->threads = threads;
  comm->devices = held;
  pthread_mutex_init(&comm->launch_mutex, NULL);
  pthread_mutex_init(&comm->work_mutex, NULL);
  pthread_mutex_init(&comm->failure_mutex, NULL);
  pthread_cond_init(&comm->work_posted, NULL);
  pthread_cond_init(&comm->work_finished, NULL);
  for (size_t i = 0; i < num_local; ++i) {
    nlrt_device_retain(devices[i]);
    held[i] = devices[i];
    threads[i].participant =
        (nlrt_spmd_participant){comm, i, comm->first_replica + i};
  }
  /* Across processes, creation is collective: before any thread starts,
   * so that a failure leaves nothing running. */
  if (comm->num_replicas != num_local) {
    status = nlrt_processes_create(comm, &comm->processes);
    if (status != NLRT_OK) {
      char message[2048];
      snprintf(message, sizeof(message), "%s", nlrt_last_error());
      destroy(comm);
      return nlrt_error(status, "%s", message);
    }
  }
  /* Participant 0 runs on the launching thread (launcher.c). */
  for (size_t i = 1; i < num_local; ++i) {
    int error = pthread_create(&threads[i].thread, NULL,
                               nlrt_spmd_thread_main, &threads[i]);
    if (error) {
      destroy(comm);
      return nlrt_error(NLRT_INTERNAL,
                        "cannot start the thread of participant %zu of a "
                        "communicator: %s",
                        i, strerror(error));
    }
    threads[i].started = true;
  }
  *out = comm;
  return NLRT_OK;
}

NLRT_API void nlrt_communicator_destroy(nlrt_communicator *comm) {
  if (comm)
    destroy(comm);
}
