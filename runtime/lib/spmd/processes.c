/*===- processes.c - collectives across processes, through MPI -----------===*
 *
 * Each process holds num_local consecutive replicas. At a collective whose
 * groups span processes, the leader (local participant 0) exchanges, with
 * one allgather each:
 *
 *   1. a 64-byte header: where this process is (the collective's index, the
 *      end of its program, or a failure), the record's shape and a hash of
 *      the program. Processes at different points fail together, with the
 *      same view of who is where, before any data moves: an allgather of
 *      mismatched sizes would be an MPI error, or worse, garbage.
 *   2. every local operand, one 64-byte aligned slot per global replica, so
 *      that every process holds every operand. With one local replica the
 *      slots are exactly an operand long (element aligned, which is all
 *      the combining loops need) and the allgather reads the operand where
 *      it is, instead of from a packed copy.
 *
 * Then each local participant computes its share of its own replicas'
 * results from the operands, in group order, as one process holding every
 * replica would (exchange.c): the bits equal a one-process launch's.
 *
 * An all_reduce over one group of every replica, one replica per process
 * (the common data-parallel psum), is reduced in slices instead, which
 * moves and combines about 1/P of what the allgather would per process:
 * an alltoallv hands process q slice q of every operand (a balanced split
 * of the elements, as the shares'), process q reduces its slice in group
 * order, and an in-place allgatherv hands every process every reduced
 * slice. Each element is still combined once, in group order, so the bits
 * are the same as above, and no share runs after it.
 *
 * The protocol keeps the processes in step: every allgather on the
 * duplicate is a header unless all headers of that round agreed on a
 * collective, after which every process makes the same data exchange. So a
 * process whose launch fails locally (a replica ran out of memory, its
 * replicas diverged) still sends a header, saying it failed, at the end of
 * the launch: its peers, waiting at their next exchange, fail at once.
 * What breaks the step is a timeout or an MPI error: the request stays
 * posted (MPI cannot cancel a collective), so the communicator is poisoned
 * and never used, nor its buffers freed, again.
 *
 *===----------------------------------------------------------------------===*/

#include "processes.h"

#include "../services/collectives.h"
#include "mpi.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Header points beyond any collective index. */
#define POINT_END NLRT_SPMD_END_OF_PROGRAM
#define POINT_FAILED (NLRT_SPMD_END_OF_PROGRAM - 1)
#define HEADER_MAGIC UINT64_C(0x6e6c72742d6d7069) /* "nlrt-mpi" */
#define SLOT_ALIGNMENT 64
/* A slice is reduced in chunks as exchange.c's shares are, so a chunk of
 * the result stays in the L1 cache across the group's operands. */
#define CHUNK_BYTES NLRT_SPMD_CHUNK_BYTES

/* What each process sends at an exchange. */
typedef struct header {
  uint64_t magic;
  uint64_t point; /* a collective index, POINT_END or POINT_FAILED */
  int64_t op, dtype;
  uint64_t elements;
  uint64_t program;        /* program_hash of the launch */
  uint64_t failed_replica; /* POINT_FAILED: the first to fail, or ~0 */
  int64_t failed_status;   /* POINT_FAILED: its status */
} header;

_Static_assert(sizeof(header) == 64, "a header is 64 bytes");

struct nlrt_processes {
  void *comm; /* the duplicate of MPI_COMM_WORLD */
  int rank, size;
  size_t num_local;
  uint64_t timeout_ns;
  /* The launch's program hash, and whether the processes already know how
   * it ends (an exchange failed, headers disagreed, or all ended). */
  uint64_t program;
  bool settled;
  /* Set for good at a timeout or an MPI error. */
  bool poisoned;
  char poison[1024];
  header *headers; /* size of them */
  unsigned char *staging;
  size_t staging_capacity;
  size_t stride; /* of the last exchange's slots; 0: none */
  /* A reduction in slices, in bytes, an int per process (MPI's counts):
   * where slice q is in an operand and how long, how much of it is sent
   * (all of it, but none of this process's own), and where process q's
   * slice for this one is staged and how long (none of its own: it is
   * read where it is). MPI reads them until its requests complete, so they
   * live as long as the staging. */
  int *slice_at, *slice_bytes, *sent_bytes, *staged_at, *staged_bytes;
};

/*===--- Messages ----------------------------------------------------------===*/

/* "all_reduce (f.py:6)", "the end of the program" or "the report of a
 * failure": what this process exchanged at. */
static void describe_exchange(const nlrt_collectives *collectives,
                              uint64_t point, char *out, size_t capacity) {
  if (point == POINT_END)
    snprintf(out, capacity, "the end of the program");
  else if (point == POINT_FAILED)
    snprintf(out, capacity, "the report of a failure");
  else
    nlrt_collective_describe(collectives, (size_t)point, out, capacity);
}

/* "is at all_reduce (f.py:6)", "finished its program", "failed (replica 3:
 * OUT_OF_MEMORY)": where process `h` is. */
static void describe_header(const nlrt_collectives *collectives,
                            const header *h, char *out, size_t capacity) {
  if (h->point == POINT_END) {
    snprintf(out, capacity, "finished its program");
  } else if (h->point == POINT_FAILED) {
    const char *status = nlrt_status_string((nlrt_status)h->failed_status);
    if (h->failed_replica != UINT64_MAX)
      snprintf(out, capacity, "failed (replica %llu: %s)",
               (unsigned long long)h->failed_replica, status);
    else
      snprintf(out, capacity, "failed (%s)", status);
  } else {
    char what[256];
    nlrt_collective_describe(collectives, (size_t)h->point, what,
                             sizeof(what));
    snprintf(out, capacity, "is at %s", what);
  }
}

/* Marks the communicator unusable: MPI may still write its buffers. */
static nlrt_status poison(nlrt_processes *p, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static nlrt_status poison(nlrt_processes *p, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(p->poison, sizeof(p->poison), format, args);
  va_end(args);
  p->poisoned = true;
  p->settled = true;
  return nlrt_error(NLRT_COLLECTIVE_FAILED, "%s", p->poison);
}

/* An allgather on the duplicate that failed: poisons, naming `what`. */
static nlrt_status exchange_failed(nlrt_processes *p, nlrt_mpi_outcome outcome,
                                   const char *what, const char *detail) {
  if (outcome == NLRT_MPI_TIMED_OUT) {
    char after[32];
    nlrt_spmd_describe_timeout(p->timeout_ns, after, sizeof(after));
    return poison(p,
                  "%s timed out after %s waiting for the other processes "
                  "(process %d of %d is at it)",
                  what, after, p->rank, p->size);
  }
  return poison(p, "%s failed across processes (process %d of %d): %s", what,
                p->rank, p->size, detail);
}

/*===--- Creation ----------------------------------------------------------===*/

nlrt_status nlrt_processes_check(size_t num_local, size_t first_replica,
                                 size_t num_replicas) {
  int rank = 0, size = 0;
  if (!nlrt_mpi_ready(&rank, &size))
    return nlrt_error(NLRT_UNAVAILABLE,
                      "nlrt_communicator_create: %zu of %zu replicas are in "
                      "this process, and the others need MPI: call "
                      "nlrt_mpi_initialize (numlir.distributed.initialize) "
                      "first",
                      num_local, num_replicas);
  if (num_replicas != num_local * (size_t)size ||
      first_replica != (size_t)rank * num_local)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_communicator_create: with %d processes of %zu "
                      "local replicas each, num_replicas must be %zu and "
                      "process %d's first_replica %zu (got %zu and %zu): "
                      "process p holds replicas [p * num_local, (p + 1) * "
                      "num_local)",
                      size, num_local, num_local * (size_t)size, rank,
                      (size_t)rank * num_local, num_replicas, first_replica);
  return NLRT_OK;
}

/* The agreement check's values: what process p said. */
typedef struct shape {
  int64_t num_local, num_replicas, first_replica;
} shape;

/* Whether process p's shape fits process 0's. */
static bool agrees(const shape *s, const shape *first, int p) {
  return s->num_local == first->num_local &&
         s->num_replicas == first->num_replicas &&
         s->first_replica == (int64_t)p * first->num_local;
}

/* Every process gives its shape; all must fit process 0's. Each process
 * compares all of them the same way, so all fail alike, with one message. */
static nlrt_status check_agreement(nlrt_processes *p, const shape *mine) {
  shape *shapes = calloc((size_t)p->size, sizeof(*shapes));
  if (!shapes)
    return poison(p, "out of memory creating a communicator");
  shapes[p->rank] = *mine;
  char detail[512];
  nlrt_mpi_outcome outcome =
      nlrt_mpi_allgather(p->comm, NULL, shapes, sizeof(shape), p->timeout_ns,
                         detail, sizeof(detail));
  if (outcome != NLRT_MPI_DONE) /* `shapes` is MPI's now: never freed */
    return exchange_failed(p, outcome, "creating a communicator", detail);
  nlrt_status status = NLRT_OK;
  for (int q = 1; q < p->size; ++q) {
    if (agrees(&shapes[q], &shapes[0], q))
      continue;
    const shape *s = &shapes[q], *first = &shapes[0];
    status = nlrt_error(
        NLRT_UNAVAILABLE,
        "nlrt_communicator_create: the processes disagree: process %d has "
        "%lld local replicas of %lld from replica %lld, process 0 %lld of "
        "%lld from replica 0; every process creates its communicators in "
        "the same order, each with as many devices",
        q, (long long)s->num_local, (long long)s->num_replicas,
        (long long)s->first_replica, (long long)first->num_local,
        (long long)first->num_replicas);
    break;
  }
  free(shapes);
  return status;
}

nlrt_status nlrt_processes_create(const nlrt_communicator *comm,
                                  nlrt_processes **out) {
  nlrt_processes *p = calloc(1, sizeof(*p));
  header *headers = NULL;
  int *counts = NULL;
  int rank = 0, size = 0;
  nlrt_mpi_ready(&rank, &size);
  if (p) {
    headers = calloc((size_t)size, sizeof(header));
    counts = calloc(5 * (size_t)size, sizeof(int));
  }
  if (!p || !headers || !counts) {
    free(p);
    free(headers);
    free(counts);
    return nlrt_error(NLRT_OUT_OF_MEMORY,
                      "out of memory creating a communicator");
  }
  p->slice_at = counts;
  p->slice_bytes = counts + size;
  p->sent_bytes = counts + 2 * size;
  p->staged_at = counts + 3 * size;
  p->staged_bytes = counts + 4 * size;
  p->rank = rank;
  p->size = size;
  p->num_local = comm->num_local;
  p->timeout_ns = comm->timeout_ns;
  p->headers = headers;
  char detail[512];
  nlrt_mpi_outcome outcome =
      nlrt_mpi_dup_world(&p->comm, p->timeout_ns, detail, sizeof(detail));
  if (outcome != NLRT_MPI_DONE) {
    /* The duplicate may still come: its handle is MPI's, and so is p. */
    return exchange_failed(p, outcome,
                           "creating a communicator (MPI_Comm_idup)", detail);
  }
  shape mine = {(int64_t)comm->num_local, (int64_t)comm->num_replicas,
                (int64_t)comm->first_replica};
  nlrt_status status = check_agreement(p, &mine);
  if (status != NLRT_OK) {
    nlrt_processes_destroy(p);
    return status;
  }
  *out = p;
  return NLRT_OK;
}

void nlrt_processes_destroy(nlrt_processes *p) {
  if (!p)
    return;
  if (p->comm)
    nlrt_mpi_free(p->comm, !p->poisoned);
  if (p->poisoned)
    return; /* MPI may still use the headers, the staging, the counts */
  free(p->headers);
  free(p->staging);
  free(p->slice_at); /* all five arrays */
  free(p);
}

/*===--- Launches ----------------------------------------------------------===*/

/* FNV-1a over `bytes`, continuing from `hash`. */
static uint64_t hash_bytes(uint64_t hash, const void *data, size_t bytes) {
  const unsigned char *at = data;
  for (size_t i = 0; i < bytes; ++i) {
    hash ^= at[i];
    hash *= UINT64_C(0x100000001b3);
  }
  return hash;
}

/* What identifies the program across processes: its collective table,
 * signature and entry (the launcher checked that every local participant
 * runs the same). */
static uint64_t program_hash(const nlrt_executable *executable) {
  uint64_t hash = UINT64_C(0xcbf29ce484222325);
  const nlrt_collectives *c = executable->collectives;
  if (c && c->table)
    hash = hash_bytes(hash, c->table, c->table_words * sizeof(int64_t));
  hash = hash_bytes(hash, executable->signature_text,
                    strlen(executable->signature_text) + 1);
  return hash_bytes(hash, executable->entry, strlen(executable->entry) + 1);
}

nlrt_status nlrt_processes_begin(nlrt_processes *p,
                                 const nlrt_executable *executable) {
  if (p->poisoned)
    return nlrt_error(NLRT_COLLECTIVE_FAILED,
                      "the communicator failed earlier across processes: %s",
                      p->poison);
  p->program = program_hash(executable);
  p->settled = false;
  p->stride = 0;
  return NLRT_OK;
}

bool nlrt_processes_spans(const nlrt_communicator *comm,
                          const nlrt_collective_record *record) {
  size_t g = record->group_size, n = record->num_groups * g;
  for (size_t start = 0; start < n; start += g) {
    int64_t process = record->groups[start] / (int64_t)comm->num_local;
    for (size_t k = 1; k < g; ++k)
      if (record->groups[start + k] / (int64_t)comm->num_local != process)
        return true;
  }
  return false;
}

static bool same_point(const header *a, const header *b) {
  return a->point == b->point && a->op == b->op && a->dtype == b->dtype &&
         a->elements == b->elements;
}

/* After the headers came: NLRT_OK if every process is where this one is;
 * else the first difference, the same on every process, as the failure
 * (the processes all know: the launch is settled). */
static nlrt_status compare_headers(nlrt_processes *p,
                                   const nlrt_collectives *collectives) {
  const header *all = p->headers, *mine = &all[p->rank];
  char here[300], there[300];
  describe_header(collectives, mine, here, sizeof(here));
  for (int q = 0; q < p->size; ++q) {
    if (all[q].magic != HEADER_MAGIC) {
      p->settled = true;
      return poison(p, "process %d sent a malformed header to process %d: "
                       "another program uses this communicator's MPI "
                       "duplicate?",
                    q, p->rank);
    }
  }
  for (int q = 0; q < p->size; ++q) {
    if (all[q].point != POINT_FAILED)
      continue;
    p->settled = true;
    describe_header(collectives, &all[q], there, sizeof(there));
    if (q == p->rank)
      return nlrt_error(NLRT_COLLECTIVE_FAILED, "process %d %s", q, there);
    return nlrt_error(NLRT_COLLECTIVE_FAILED, "process %d %s while process %d %s",
                      q, there, p->rank, here);
  }
  for (int q = 0; q < p->size; ++q) {
    if (all[q].program == all[0].program)
      continue;
    p->settled = true;
    return nlrt_error(NLRT_COLLECTIVE_FAILED,
                      "process %d runs a different program from process 0 "
                      "(its collective table or signature differs): every "
                      "process launches the same programs in the same order",
                      q);
  }
  for (int q = 1; q < p->size; ++q) {
    if (same_point(&all[q], &all[0]))
      continue;
    p->settled = true;
    describe_header(collectives, &all[q], there, sizeof(there));
    describe_header(collectives, &all[0], here, sizeof(here));
    return nlrt_error(NLRT_COLLECTIVE_FAILED,
                      "process %d %s while process 0 %s: the program's "
                      "control flow depends on the process, so its "
                      "collectives cannot meet",
                      q, there, here);
  }
  return NLRT_OK;
}

/* Exchanges this process's header; then compares them all. */
static nlrt_status exchange_headers(nlrt_processes *p,
                                    const nlrt_collectives *collectives,
                                    const header *mine) {
  if (p->poisoned)
    return nlrt_error(NLRT_COLLECTIVE_FAILED,
                      "the communicator failed earlier across processes: %s",
                      p->poison);
  p->headers[p->rank] = *mine;
  char detail[512], what[256];
  nlrt_mpi_outcome outcome =
      nlrt_mpi_allgather(p->comm, NULL, p->headers, sizeof(header),
                         p->timeout_ns, detail, sizeof(detail));
  if (outcome != NLRT_MPI_DONE) {
    describe_exchange(collectives, mine->point, what, sizeof(what));
    return exchange_failed(p, outcome, what, detail);
  }
  return compare_headers(p, collectives);
}

static size_t round_up(size_t bytes, size_t to) {
  return (bytes + to - 1) / to * to;
}

/* Room for `bytes` of staging. Grown only between exchanges, when no MPI
 * request can write the old one. */
static bool reserve_staging(nlrt_processes *p, size_t bytes) {
  if (bytes <= p->staging_capacity)
    return true;
  void *grown = NULL;
  if (posix_memalign(&grown, SLOT_ALIGNMENT, bytes))
    return false;
  free(p->staging);
  p->staging = grown;
  p->staging_capacity = bytes;
  return true;
}

/* Every local operand into its slot of the staging, on every process: the
 * allgather after which the shares read any replica's operand. */
static nlrt_status gather_operands(nlrt_communicator *comm,
                                   const nlrt_collective_record *record,
                                   const char *what) {
  nlrt_processes *p = comm->processes;
  size_t bytes = record->elements * record->element_size;
  /* One local operand is sent from where it is, so its slot is its size
   * (a multiple of the element size: every slot stays element aligned);
   * several are packed into 64-byte aligned slots and sent in place. After
   * a timeout MPI may still read a direct operand, which is the caller's
   * and may be freed: MPI reads nothing more unless the peers come after
   * all, and then this launch has failed already. */
  bool direct = p->num_local == 1;
  size_t stride = direct ? bytes : round_up(bytes, SLOT_ALIGNMENT);
  size_t per_process = stride * p->num_local;
  if (per_process > INT32_MAX) {
    p->settled = true; /* every process stops here */
    return nlrt_error(NLRT_COLLECTIVE_FAILED,
                      "%s: the operands of one process (%zu bytes) exceed "
                      "what one MPI allgather moves (%d bytes)",
                      what, per_process, INT32_MAX);
  }
  if (!reserve_staging(p, per_process * (size_t)p->size))
    /* The peers wait in the allgather this process will not make. */
    return poison(p, "%s: out of memory for %zu bytes of operands from "
                     "every process",
                  what, per_process * (size_t)p->size);
  if (!direct)
    for (size_t i = 0; i < p->num_local; ++i)
      memcpy(p->staging + (comm->first_replica + i) * stride,
             comm->slots[i].operand, bytes);
  char detail[512];
  nlrt_mpi_outcome outcome = nlrt_mpi_allgather(
      p->comm, direct ? comm->slots[0].operand : NULL, p->staging,
      per_process, p->timeout_ns, detail, sizeof(detail));
  if (outcome != NLRT_MPI_DONE)
    return exchange_failed(p, outcome, what, detail);
  p->stride = stride;
  return NLRT_OK;
}

bool nlrt_processes_reduces(const nlrt_communicator *comm,
                            const nlrt_collective_record *record) {
  /* The loader checked that each replica is in one group: a single group
   * as long as num_replicas holds them all. */
  return record->op == NLRT_COLLECTIVE_ALL_REDUCE && comm->num_local == 1 &&
         record->num_groups == 1 && record->group_size == comm->num_replicas;
}

/* MPI's counts for a reduction in slices of `elements` elements of `size`
 * bytes, this process's slice being `mine` bytes: slice q of the operand
 * goes to process q, and the slices every process sends this one are
 * staged in process order. The caller checked that all fit an int. */
static void plan_slices(nlrt_processes *p, size_t elements, size_t size,
                        size_t mine) {
  for (int q = 0; q < p->size; ++q) {
    size_t start = 0, count = 0;
    nlrt_spmd_share_of(elements, (size_t)p->size, (size_t)q, &start, &count);
    bool own = q == p->rank;
    p->slice_at[q] = (int)(start * size);
    p->slice_bytes[q] = (int)(count * size);
    p->sent_bytes[q] = own ? 0 : p->slice_bytes[q];
    p->staged_at[q] = (int)((size_t)q * mine);
    p->staged_bytes[q] = own ? 0 : (int)mine;
  }
}

/* Where member `member`'s slice for this process is staged, from byte
 * `offset` on. */
static const void *staged(const nlrt_processes *p, int64_t member,
                          size_t offset) {
  return p->staging + p->staged_at[member] + offset;
}

/* This process's slice of the result, `count` elements at `to`, from its
 * own slice `own` of its operand and the staged slices of every other
 * member, combined in group order (the group's ids are the processes: one
 * replica each). The own slice is read where it is, and `to` accumulates
 * it in place: the members after it are combined after, those before it
 * (combined first in a chunk on the stack when there are several) before
 * it, so that nothing is copied but that chunk. `own` is either `to` (a
 * donated operand) or apart from it. */
static void reduce_staged_slices(const nlrt_processes *p,
                                 const nlrt_collective_record *record,
                                 const char *own, char *to, size_t count) {
  size_t size = record->element_size, per_chunk = CHUNK_BYTES / size;
  size_t g = record->group_size, position = 0;
  const int64_t *members = record->groups;
  while (members[position] != p->rank)
    ++position;
  _Alignas(SLOT_ALIGNMENT) unsigned char earlier[CHUNK_BYTES];
  for (size_t done = 0; done < count;) {
    size_t n = count - done < per_chunk ? count - done : per_chunk;
    size_t offset = done * size;
    char *accumulated = to + offset;
    if (own != to)
      memcpy(accumulated, own + offset, n * size);
    if (position > 0) {
      const void *before = staged(p, members[0], offset);
      if (position > 1) {
        memcpy(earlier, before, n * size);
        for (size_t k = 1; k < position; ++k)
          record->reduce(earlier, staged(p, members[k], offset), n);
        before = earlier;
      }
      record->reduce_before(accumulated, before, n);
    }
    for (size_t k = position + 1; k < g; ++k)
      record->reduce(accumulated, staged(p, members[k], offset), n);
    done += n;
  }
}

/* The all_reduce of nlrt_processes_reduces: an alltoallv brings this
 * process slice `rank` of every operand, it reduces them, and an in-place
 * allgatherv brings every process's reduced slice into the result. After
 * a timeout MPI may still read the operand or write the result, which are
 * the caller's (as gather_operands' direct operand). */
static nlrt_status reduce_in_slices(nlrt_communicator *comm,
                                    const nlrt_collective_record *record,
                                    const char *what) {
  nlrt_processes *p = comm->processes;
  size_t processes = (size_t)p->size, size = record->element_size;
  size_t start = 0, count = 0;
  /* Slice 0 is as long as any: no count or offset reaches P times it. */
  nlrt_spmd_share_of(record->elements, processes, 0, &start, &count);
  if (processes * count * size > INT32_MAX) {
    p->settled = true; /* every process stops here */
    return nlrt_error(NLRT_COLLECTIVE_FAILED,
                      "%s: %zu slices of %zu bytes exceed what one MPI "
                      "alltoallv moves (%d bytes)",
                      what, processes, count * size, INT32_MAX);
  }
  nlrt_spmd_share_of(record->elements, processes, (size_t)p->rank, &start,
                     &count);
  size_t mine = count * size;
  plan_slices(p, record->elements, size, mine);
  if (!reserve_staging(p, processes * mine))
    /* The peers wait in the alltoallv this process will not make. */
    return poison(p, "%s: out of memory for %zu bytes of slices from every "
                     "process",
                  what, processes * mine);
  char detail[512];
  const char *operand = comm->slots[0].operand;
  nlrt_mpi_outcome outcome = nlrt_mpi_alltoallv(
      p->comm, operand, p->sent_bytes, p->slice_at, p->staging,
      p->staged_bytes, p->staged_at, p->timeout_ns, detail, sizeof(detail));
  if (outcome != NLRT_MPI_DONE)
    return exchange_failed(p, outcome, what, detail);
  char *result = comm->slots[0].result;
  reduce_staged_slices(p, record, operand + start * size, result + start * size,
                       count);
  outcome = nlrt_mpi_allgatherv(p->comm, result, p->slice_bytes, p->slice_at,
                                p->timeout_ns, detail, sizeof(detail));
  if (outcome != NLRT_MPI_DONE)
    return exchange_failed(p, outcome, what, detail);
  return NLRT_OK;
}

nlrt_status nlrt_processes_exchange(nlrt_communicator *comm,
                                    const nlrt_collectives *collectives,
                                    size_t index) {
  nlrt_processes *p = comm->processes;
  const nlrt_collective_record *record = &collectives->records[index];
  p->stride = 0;
  header mine = {HEADER_MAGIC, index, record->op, record->dtype,
                 record->elements, p->program, UINT64_MAX, 0};
  nlrt_status status = exchange_headers(p, collectives, &mine);
  if (status != NLRT_OK)
    return status;

  /* Every process is here, with the same sizes: what follows fails or
   * succeeds alike everywhere, until the data moves. */
  if (record->elements * record->element_size == 0)
    return NLRT_OK;
  char what[256];
  nlrt_collective_describe(collectives, index, what, sizeof(what));
  if (nlrt_processes_reduces(comm, record))
    return reduce_in_slices(comm, record, what);
  return gather_operands(comm, record, what);
}

const char *nlrt_processes_operand(const nlrt_processes *p, size_t replica) {
  if (!p || p->stride == 0)
    return NULL;
  return (const char *)p->staging + replica * p->stride;
}

void nlrt_processes_conclude(nlrt_communicator *comm,
                             const nlrt_collectives *collectives,
                             bool finished) {
  nlrt_processes *p = comm->processes;
  p->stride = 0;
  if (p->settled)
    return;
  header mine = {HEADER_MAGIC, POINT_END, -1, -1, 0, p->program, UINT64_MAX,
                 0};
  if (!finished) {
    mine.point = POINT_FAILED;
    pthread_mutex_lock(&comm->failure_mutex);
    mine.failed_status = comm->failure_status;
    mine.failed_replica = comm->failure_replica == SIZE_MAX
                              ? UINT64_MAX
                              : (uint64_t)comm->failure_replica;
    pthread_mutex_unlock(&comm->failure_mutex);
  }
  nlrt_status status = exchange_headers(p, collectives, &mine);
  p->settled = true;
  if (status != NLRT_OK)
    /* Where this process failed already, its own failure stays first. */
    nlrt_spmd_fail(comm, status, nlrt_last_error());
}
