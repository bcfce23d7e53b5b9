/*===- collectives.h - collective tables and the collective dispatcher ---===*
 *
 * An executable compiled for SPMD exports a table of its collectives
 * (runtime.h, "SPMD launches"; the format is in docs/runtime.md) and a slot
 * that its code calls with a record's index. The runtime checks the table
 * when the executable is loaded (nlrt_collectives_create) and the driver
 * points the slot at nlrt_collective_dispatch. The dispatcher finds the
 * running executable's table and its SPMD participant, if any, in the call
 * context the runtime sets around every driver execute: the communicator
 * handle never passes through compiled code.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SERVICES_COLLECTIVES_H
#define NLRT_SERVICES_COLLECTIVES_H

#include "../internal.h"
#include "../spmd/reduce.h"

/* A record's operation. */
typedef enum nlrt_collective_op {
  NLRT_COLLECTIVE_ALL_REDUCE = 0,
  NLRT_COLLECTIVE_REPLICA_ID = 1,
  NLRT_COLLECTIVE_ALL_GATHER = 2,
  NLRT_COLLECTIVE_ALL_TO_ALL = 3,
  NLRT_COLLECTIVE_REDUCE_SCATTER = 4,
  NLRT_COLLECTIVE_PERMUTE = 5,
} nlrt_collective_op;

/* One move of a collective_permute. The steps run in order over each
 * range of elements; the order lets a result be its operand (a chain
 * a -> b -> c moves from its end, a cycle through a saved copy). */
typedef enum nlrt_permute_action {
  NLRT_PERMUTE_COPY,    /* target's result = source's operand */
  NLRT_PERMUTE_SAVE,    /* the saved copy = source's operand */
  NLRT_PERMUTE_RESTORE, /* target's result = the saved copy */
  NLRT_PERMUTE_ZERO,    /* target's result = 0: no pair sends to it */
} nlrt_permute_action;

typedef struct nlrt_permute_step {
  nlrt_permute_action action;
  size_t source, target; /* global replica ids */
} nlrt_permute_step;

/* One checked record. */
typedef struct nlrt_collective_record {
  nlrt_collective_op op;
  int64_t kind; /* nlrt_reduce_kind, -1 where the op has none */
  nlrt_dtype dtype;
  /* Of the operand. The result has as many, except all_gather's
   * (elements * group_size) and reduce_scatter's (elements / group_size). */
  size_t elements;
  size_t element_size;  /* nlrt_dtype_size(dtype) */
  size_t num_groups;    /* 0 for a replica_id without groups; permute: pairs */
  size_t group_size;    /* permute: 2 */
  /* num_groups * group_size ids, group by group (permute: source, target
   * per pair). */
  const int64_t *groups;
  /* all_reduce, reduce_scatter: the next member's row after the
   * accumulated ones, and an earlier one's before them (reduce.h). */
  nlrt_reduce_function reduce, reduce_before;
  nlrt_permute_step *steps;    /* collective_permute: the moves, in order */
  size_t num_steps;
  const char *location;  /* "file:line" inside the locations, or NULL */
  size_t location_length;
} nlrt_collective_record;

/* An executable's collectives. */
typedef struct nlrt_collectives {
  size_t num_replicas;
  size_t count;
  nlrt_collective_record *records;
  const int64_t *table; /* the executable's, for comparisons */
  size_t table_words;
} nlrt_collectives;

/* Checks what a driver found (`entry` names the executable in messages)
 * and stores the checked table in *out, or NULL where the executable has
 * no table and one replica.
 *   NLRT_LOAD_FAILED   a malformed table (the message says where and why),
 *                      a replica count below 1.
 *   NLRT_OUT_OF_MEMORY */
nlrt_status nlrt_collectives_create(const nlrt_collective_exports *exports,
                                    const char *entry, nlrt_collectives **out);
void nlrt_collectives_destroy(nlrt_collectives *collectives);

/* Whether two executables have the same table (both may be NULL). */
bool nlrt_collectives_equal(const nlrt_collectives *a,
                            const nlrt_collectives *b);

/* "all_reduce sum (model.py:42)", "replica_id (collective 3)". */
void nlrt_collective_describe(const nlrt_collectives *collectives,
                              size_t index, char *out, size_t capacity);

/* Where in its replica group `replica` is: the group's ids and the
 * position. False if no group of the record holds it. */
bool nlrt_collective_group_of(const nlrt_collective_record *record,
                              size_t replica, const int64_t **members,
                              size_t *position);

/*===--- The call context --------------------------------------------------===*/

/* Set by the runtime around each driver execute, on the calling thread;
 * calls nest (a host callback may run another executable). */
typedef struct nlrt_call_context {
  const nlrt_collectives *collectives;
  struct nlrt_spmd_participant *participant; /* NULL: a single replica */
  struct nlrt_call_context *outer;
} nlrt_call_context;

void nlrt_call_context_enter(nlrt_call_context *context);
void nlrt_call_context_leave(nlrt_call_context *context);

/* The slot value of "<entry>_collective". Runs collective `index` of the
 * executable running on this thread; on failure records the message and
 * stops the call (nlrt_host_call_abandon_for_collective). */
void nlrt_collective_dispatch(uint64_t index, const void *operand,
                              void *result);

#endif /* NLRT_SERVICES_COLLECTIVES_H */
