/*===- processes.h - communicators spanning processes, inside ------------===*
 *
 * A communicator whose replicas live in several processes keeps, beside
 * its in-process barrier, an nlrt_processes: a duplicate of MPI_COMM_WORLD
 * and the buffers of its exchanges. Only local participant 0 (the leader)
 * touches it during a launch, between the barriers of exchange.c, while
 * the other local participants wait; the launcher touches it before it
 * posts a launch. processes.c has the protocol.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SPMD_PROCESSES_H
#define NLRT_SPMD_PROCESSES_H

#include "communicator.h"

struct nlrt_collective_record;
typedef struct nlrt_processes nlrt_processes;

/* The check of nlrt_communicator_create for num_replicas > num_local: MPI
 * is initialized and the replicas split evenly, this process's from
 * rank * num_local. */
nlrt_status nlrt_processes_check(size_t num_local, size_t first_replica,
                                 size_t num_replicas);

/* Collective over every process: duplicates MPI_COMM_WORLD and checks that
 * all processes agree on the communicator's shape. On failure nothing is
 * left but what MPI may still write (never freed). */
nlrt_status nlrt_processes_create(const nlrt_communicator *comm,
                                  nlrt_processes **out);
void nlrt_processes_destroy(nlrt_processes *processes);

/* Before a launch of `executable` (every participant runs its program):
 * fails at once if the communicator failed earlier across processes;
 * otherwise notes the program's hash for the headers. */
nlrt_status nlrt_processes_begin(nlrt_processes *processes,
                                 const nlrt_executable *executable);

/* Whether a group (or a pair) of the record has members in two processes. */
bool nlrt_processes_spans(const nlrt_communicator *comm,
                          const struct nlrt_collective_record *record);

/* Whether the exchange of `record` computes every local result itself, so
 * that no participant has a share to run: an all_reduce over one group of
 * every replica, one replica per process (processes.c reduces it in
 * slices). */
bool nlrt_processes_reduces(const nlrt_communicator *comm,
                            const struct nlrt_collective_record *record);

/* The leader's part of collective `index`, after the first barrier: the
 * header exchange, then the allgather of every local operand (or, where
 * nlrt_processes_reduces, the whole reduction). NLRT_OK, or a failure with
 * its message recorded (nlrt_last_error). */
nlrt_status nlrt_processes_exchange(nlrt_communicator *comm,
                                    const struct nlrt_collectives *collectives,
                                    size_t index);

/* Replica `replica`'s operand (another process's) as the last exchange
 * brought it; NULL where the current collective exchanged nothing. */
const char *nlrt_processes_operand(const nlrt_processes *processes,
                                   size_t replica);

/* The leader's last part of a launch: tells the other processes that this
 * one finished its program (`finished`) or failed, unless they know
 * already, and fails the launch (nlrt_spmd_fail) where they did not all
 * finish. */
void nlrt_processes_conclude(nlrt_communicator *comm,
                             const struct nlrt_collectives *collectives,
                             bool finished);

#endif /* NLRT_SPMD_PROCESSES_H */
