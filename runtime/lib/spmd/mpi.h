/*===- mpi.h - libmpi, loaded at run time, inside --------------------------===*
 *
 * The runtime never links libmpi: mpi.c dlopens it (nlrt_mpi_initialize)
 * and reaches it through these few functions, which hide Open MPI's ABI
 * (handles are the addresses of exported objects) and serialize every MPI
 * call behind one process-wide mutex, so device threads of several
 * communicators may call at once even at MPI_THREAD_SERIALIZED.
 *
 * Every operation is non-blocking and polled against a deadline: a peer
 * that never comes is a timeout, never a hang. A request that timed out
 * cannot be cancelled (MPI has no way to cancel a collective), so its
 * buffers must stay allocated for the life of the process.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SPMD_MPI_H
#define NLRT_SPMD_MPI_H

#include "../internal.h"

/* What a wait ended with. */
typedef enum nlrt_mpi_outcome {
  NLRT_MPI_DONE,      /* the operation completed */
  NLRT_MPI_TIMED_OUT, /* the deadline passed first: the request is left */
  NLRT_MPI_FAILED,    /* MPI returned an error (the message says which) */
} nlrt_mpi_outcome;

/* Whether MPI is initialized (and not finalized) through
 * nlrt_mpi_initialize; if so, this process's rank and the size of
 * MPI_COMM_WORLD. */
bool nlrt_mpi_ready(int *rank, int *size);

/* A duplicate of MPI_COMM_WORLD that returns errors (MPI_ERRORS_RETURN),
 * made with MPI_Comm_idup and polled for at most `timeout_ns`. On
 * NLRT_MPI_FAILED or NLRT_MPI_TIMED_OUT, `message` says why and nothing is
 * stored. Each successful dup counts as a communicator spanning processes
 * (nlrt_mpi_finalize refuses while one is alive) until nlrt_mpi_free. */
nlrt_mpi_outcome nlrt_mpi_dup_world(void **out_comm, uint64_t timeout_ns,
                                    char *message, size_t capacity);

/* Frees a duplicate (with `really` false it is left to MPI, as after a
 * timeout, and only stops counting). */
void nlrt_mpi_free(void *comm, bool really);

/* An allgather of `bytes` bytes per process on `comm`: process p's part
 * lands in recv[p * bytes, (p + 1) * bytes). With `send` NULL it is in
 * place (this process's part is already in recv); otherwise this process's
 * part is read from `send`, which must not overlap recv, and which MPI may
 * still read after a timeout, like recv (the request cannot be cancelled).
 * `bytes` must be at most INT_MAX. Polled for at most `timeout_ns`
 * (spinning a little, then short sleeps). */
nlrt_mpi_outcome nlrt_mpi_allgather(void *comm, const void *send, void *recv,
                                    size_t bytes, uint64_t timeout_ns,
                                    char *message, size_t capacity);

/* An all-to-all of byte ranges on `comm`: send[send_at[q], + send_bytes[q])
 * goes to process q, and process q's range for this process lands at
 * recv[recv_at[q], + recv_bytes[q]). Each array holds an int per process;
 * MPI reads them, like the buffers, until the request completes (after a
 * timeout, for good), so they must outlive it. send and recv must not
 * overlap. Polled like nlrt_mpi_allgather. */
nlrt_mpi_outcome nlrt_mpi_alltoallv(void *comm, const void *send,
                                    const int *send_bytes, const int *send_at,
                                    void *recv, const int *recv_bytes,
                                    const int *recv_at, uint64_t timeout_ns,
                                    char *message, size_t capacity);

/* An allgather of byte ranges in place on `comm`: process q's range,
 * buffer[at[q], + bytes[q]), is already in its buffer and lands in every
 * process's. The arrays are read as nlrt_mpi_alltoallv's are. */
nlrt_mpi_outcome nlrt_mpi_allgatherv(void *comm, void *buffer,
                                     const int *bytes, const int *at,
                                     uint64_t timeout_ns, char *message,
                                     size_t capacity);

#endif /* NLRT_SPMD_MPI_H */
