/*===- collectives.c - collective tables and the collective dispatcher ---===*
 *
 * The table an executable exports is checked once, at load, into records
 * the dispatcher can trust: every later step (a launch, a collective) only
 * compares indices. The table format (docs/runtime.md):
 *
 *   [0] 1 (format version)  [1] length in words  [2] count
 *   [3 .. 3 + count)        each record's offset from the table's start
 *   a record: op, kind, dtype, elements, num_groups, group_size,
 *             num_groups * group_size replica ids, location index
 *
 *===----------------------------------------------------------------------===*/

#include "collectives.h"

#include "../spmd/communicator.h"
#include "host_allocator.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More replicas than any machine room holds; keeps sizes far from overflow. */
#define NLRT_MAX_REPLICAS ((int64_t)1 << 20)
#define RECORD_HEADER_WORDS 6

static const char *const op_names[] = {"all_reduce", "replica_id",
                                       "all_gather", "all_to_all",
                                       "reduce_scatter", "collective_permute"};

static nlrt_status malformed(const char *entry, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static nlrt_status malformed(const char *entry, const char *format, ...) {
  char detail[512];
  va_list args;
  va_start(args, format);
  vsnprintf(detail, sizeof(detail), format, args);
  va_end(args);
  return nlrt_error(NLRT_LOAD_FAILED,
                    "'%s' has a malformed collective table "
                    "('%s_collectives'): %s",
                    entry, entry, detail);
}

/* Line `index` of the '\n'-separated locations, or false. */
static bool find_location(const char *locations, int64_t index,
                          const char **start, size_t *length) {
  const char *line = locations;
  for (int64_t i = 0; line; ++i) {
    const char *end = strchr(line, '\n');
    if (i == index) {
      *start = line;
      *length = end ? (size_t)(end - line) : strlen(line);
      return true;
    }
    line = end ? end + 1 : NULL;
  }
  return false;
}

/* Checks that the groups split replicas 0 .. num_replicas - 1 among them,
 * each exactly once. `seen` has num_replicas bytes. */
static nlrt_status check_groups(const char *entry, size_t record,
                                const nlrt_collective_record *r,
                                size_t num_replicas, unsigned char *seen) {
  if (r->num_groups * r->group_size != num_replicas)
    return malformed(entry,
                     "record %zu has %zu groups of %zu replicas; the "
                     "executable runs on %zu",
                     record, r->num_groups, r->group_size, num_replicas);
  memset(seen, 0, num_replicas);
  for (size_t i = 0; i < num_replicas; ++i) {
    int64_t id = r->groups[i];
    if (id < 0 || (uint64_t)id >= num_replicas)
      return malformed(entry,
                       "record %zu names replica %lld; the executable runs "
                       "on replicas 0 to %zu",
                       record, (long long)id, num_replicas - 1);
    if (seen[id]++)
      return malformed(entry, "record %zu names replica %lld twice", record,
                       (long long)id);
  }
  return NLRT_OK;
}

/* "an all_gather", "a reduce_scatter". */
static const char *article(nlrt_collective_op op) {
  return op_names[op][0] == 'a' ? "an" : "a";
}

/* Checks a collective_permute's pairs (sources distinct, targets distinct,
 * ids in range) and plans its moves into r->steps: first every chain,
 * from a replica nothing sends to, moved from its far end so each operand
 * is read before its own result is written; then the cycles, each through
 * a saved copy of one member. Every replica that is no pair's target gets
 * zeros. */
static nlrt_status plan_permute(const char *entry, size_t record,
                                nlrt_collective_record *r,
                                size_t num_replicas, unsigned char *seen) {
  if (r->group_size != 2)
    return malformed(entry,
                     "record %zu: a collective_permute has pairs "
                     "(source, target: group size 2), not groups of %zu",
                     record, r->group_size);
  const size_t none = SIZE_MAX;
  size_t *source_of = malloc(2 * num_replicas * sizeof(size_t));
  r->steps = malloc(2 * num_replicas * sizeof(*r->steps));
  if (!source_of || !r->steps) {
    free(source_of);
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory");
  }
  size_t *target_of = source_of + num_replicas;
  for (size_t i = 0; i < num_replicas; ++i)
    source_of[i] = target_of[i] = none;
  nlrt_status status = NLRT_OK;
  for (size_t p = 0; p < r->num_groups && status == NLRT_OK; ++p) {
    int64_t source = r->groups[2 * p], target = r->groups[2 * p + 1];
    bool source_fits = source >= 0 && (uint64_t)source < num_replicas;
    bool target_fits = target >= 0 && (uint64_t)target < num_replicas;
    if (!source_fits || !target_fits)
      status = malformed(entry,
                         "record %zu names replica %lld; the executable runs "
                         "on replicas 0 to %zu",
                         record, (long long)(source_fits ? target : source),
                         num_replicas - 1);
    else if (target_of[source] != none)
      status = malformed(entry,
                         "record %zu: replica %lld is the source of two "
                         "pairs of a collective_permute",
                         record, (long long)source);
    else if (source_of[target] != none)
      status = malformed(entry,
                         "record %zu: replica %lld is the target of two "
                         "pairs of a collective_permute",
                         record, (long long)target);
    else
      target_of[source] = (size_t)target, source_of[target] = (size_t)source;
  }
  if (status != NLRT_OK) {
    free(source_of);
    return status;
  }
  nlrt_permute_step *step = r->steps;
  memset(seen, 0, num_replicas);
  for (size_t start = 0; start < num_replicas; ++start) {
    if (source_of[start] != none)
      continue;
    size_t end = start;
    while (target_of[end] != none)
      end = target_of[end];
    for (size_t t = end; t != start; t = source_of[t]) {
      *step++ = (nlrt_permute_step){NLRT_PERMUTE_COPY, source_of[t], t};
      seen[t] = 1;
    }
    *step++ = (nlrt_permute_step){NLRT_PERMUTE_ZERO, none, start};
    seen[start] = 1;
  }
  for (size_t x = 0; x < num_replicas; ++x) {
    if (seen[x])
      continue;
    if (source_of[x] == x) {
      *step++ = (nlrt_permute_step){NLRT_PERMUTE_COPY, x, x};
      seen[x] = 1;
      continue;
    }
    *step++ = (nlrt_permute_step){NLRT_PERMUTE_SAVE, x, none};
    size_t t = x;
    for (; source_of[t] != x; t = source_of[t]) {
      *step++ = (nlrt_permute_step){NLRT_PERMUTE_COPY, source_of[t], t};
      seen[t] = 1;
    }
    *step++ = (nlrt_permute_step){NLRT_PERMUTE_RESTORE, none, t};
    seen[t] = 1;
  }
  r->num_steps = (size_t)(step - r->steps);
  free(source_of);
  return NLRT_OK;
}

/* Checks record `index` at `words` (which has `available` words up to the
 * table's end) and fills *r. */
static nlrt_status check_record(const char *entry, size_t index,
                                const int64_t *words, size_t available,
                                const nlrt_collective_exports *exports,
                                size_t num_replicas, unsigned char *seen,
                                nlrt_collective_record *r) {
  if (available < RECORD_HEADER_WORDS + 1)
    return malformed(entry, "record %zu runs past the table's end", index);
  int64_t op = words[0], kind = words[1], dtype = words[2];
  int64_t elements = words[3], num_groups = words[4], group_size = words[5];
  if (num_groups < 0 || group_size < 0 ||
      (group_size > 0 && num_groups > (int64_t)available / group_size) ||
      (size_t)(num_groups * group_size) > available - RECORD_HEADER_WORDS - 1)
    return malformed(entry,
                     "record %zu: %lld groups of %lld replicas run past the "
                     "table's end",
                     index, (long long)num_groups, (long long)group_size);
  if (op < NLRT_COLLECTIVE_ALL_REDUCE || op > NLRT_COLLECTIVE_PERMUTE)
    return malformed(entry, "record %zu has unknown op %lld", index,
                     (long long)op);
  if (!nlrt_dtype_name((nlrt_dtype)dtype) || dtype < 0)
    return malformed(entry, "record %zu has unknown dtype %lld", index,
                     (long long)dtype);
  r->op = (nlrt_collective_op)op;
  r->kind = kind;
  r->dtype = (nlrt_dtype)dtype;
  r->element_size = nlrt_dtype_size(r->dtype);
  if (elements < 0 || elements > INT64_MAX / (int64_t)r->element_size)
    return malformed(entry, "record %zu has %lld elements", index,
                     (long long)elements);
  r->elements = (size_t)elements;
  r->num_groups = (size_t)num_groups;
  r->group_size = (size_t)group_size;
  r->groups = words + RECORD_HEADER_WORDS;
  int64_t location = r->groups[num_groups * group_size];
  const char *name = op_names[op];

  nlrt_status status = NLRT_OK;
  switch (r->op) {
  case NLRT_COLLECTIVE_REPLICA_ID:
    if (kind != -1 || r->dtype != NLRT_DTYPE_UI32 || elements != 1)
      return malformed(entry,
                       "record %zu: a replica_id has kind -1, dtype ui32 and "
                       "1 element (got kind %lld, %s, %lld elements)",
                       index, (long long)kind, nlrt_dtype_name(r->dtype),
                       (long long)elements);
    /* Its groups say nothing; where given they must still be well formed. */
    if (num_groups * group_size != 0)
      status = check_groups(entry, index, r, num_replicas, seen);
    break;
  case NLRT_COLLECTIVE_ALL_REDUCE:
  case NLRT_COLLECTIVE_REDUCE_SCATTER:
    if (kind < NLRT_REDUCE_SUM || kind > NLRT_REDUCE_OR)
      return malformed(entry, "record %zu has unknown reduction kind %lld",
                       index, (long long)kind);
    nlrt_reduce_loops loops = nlrt_reduce_loops_for(kind, r->dtype);
    r->reduce = loops.after;
    r->reduce_before = loops.before;
    if (!r->reduce)
      return malformed(entry,
                       "record %zu: %s %s %s cannot combine %s "
                       "(sum and prod take no i1, max and min no complex, "
                       "and and or only integers and i1)",
                       index, article(r->op), name,
                       nlrt_reduce_kind_name(kind),
                       nlrt_dtype_name(r->dtype));
    status = check_groups(entry, index, r, num_replicas, seen);
    break;
  case NLRT_COLLECTIVE_ALL_GATHER:
  case NLRT_COLLECTIVE_ALL_TO_ALL:
  case NLRT_COLLECTIVE_PERMUTE:
    if (kind != -1)
      return malformed(entry,
                       "record %zu: %s %s takes no reduction kind (kind -1), "
                       "got kind %lld",
                       index, article(r->op), name, (long long)kind);
    status = r->op == NLRT_COLLECTIVE_PERMUTE
                 ? plan_permute(entry, index, r, num_replicas, seen)
                 : check_groups(entry, index, r, num_replicas, seen);
    break;
  }
  if (status != NLRT_OK)
    return status;
  /* The groups are checked: group_size >= 1. */
  if ((r->op == NLRT_COLLECTIVE_ALL_TO_ALL ||
       r->op == NLRT_COLLECTIVE_REDUCE_SCATTER) &&
      r->elements % r->group_size != 0)
    return malformed(entry,
                     "record %zu: %s %s of %zu elements does not split into "
                     "%zu equal blocks, one per member of its groups",
                     index, article(r->op), name, r->elements, r->group_size);
  if (r->op == NLRT_COLLECTIVE_ALL_GATHER &&
      r->elements > (size_t)INT64_MAX / r->element_size / r->group_size)
    return malformed(entry,
                     "record %zu: an all_gather of %zu elements in groups of "
                     "%zu has a result too large to address",
                     index, r->elements, r->group_size);
  if (location < -1 ||
      (location >= 0 && exports->locations &&
       !find_location(exports->locations, location, &r->location,
                      &r->location_length)))
    return malformed(entry, "record %zu has location %lld, which '%s_"
                     "collective_locations' does not have",
                     index, (long long)location, entry);
  return NLRT_OK;
}

static nlrt_status check_table(const nlrt_collective_exports *exports,
                               const char *entry, nlrt_collectives *c,
                               unsigned char *seen) {
  const int64_t *table = exports->table;
  size_t words = exports->table_words;
  if (words < 3)
    return malformed(entry, "it has %zu words; its header alone has 3",
                     words);
  if (table[0] != 1)
    return malformed(entry,
                     "format version %lld; this runtime reads version 1",
                     (long long)table[0]);
  if (table[1] < 0 || (uint64_t)table[1] != words)
    return malformed(entry, "its header says %lld words, the symbol holds %zu",
                     (long long)table[1], words);
  int64_t count = table[2];
  if (count < 0 || (uint64_t)count > words - 3 || count >= UINT32_MAX)
    return malformed(entry, "%lld records do not fit in %zu words",
                     (long long)count, words);
  c->count = (size_t)count;
  c->records = calloc(c->count ? c->count : 1, sizeof(*c->records));
  if (!c->records)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory");
  size_t first_record = 3 + c->count;
  for (size_t i = 0; i < c->count; ++i) {
    int64_t offset = table[3 + i];
    if (offset < (int64_t)first_record || (uint64_t)offset >= words)
      return malformed(entry,
                       "record %zu is at word %lld, outside words %zu to %zu",
                       i, (long long)offset, first_record, words - 1);
    nlrt_status status =
        check_record(entry, i, table + offset, words - (size_t)offset,
                     exports, c->num_replicas, seen, &c->records[i]);
    if (status != NLRT_OK)
      return status;
  }
  return NLRT_OK;
}

nlrt_status nlrt_collectives_create(const nlrt_collective_exports *exports,
                                    const char *entry,
                                    nlrt_collectives **out) {
  *out = NULL;
  if (exports->num_replicas < 1 || exports->num_replicas > NLRT_MAX_REPLICAS)
    return nlrt_error(NLRT_LOAD_FAILED,
                      "'%s_num_replicas' is %lld; an executable runs on 1 to "
                      "%lld replicas",
                      entry, (long long)exports->num_replicas,
                      (long long)NLRT_MAX_REPLICAS);
  if (!exports->table && exports->num_replicas == 1)
    return NLRT_OK;
  nlrt_collectives *c = calloc(1, sizeof(*c));
  unsigned char *seen = malloc((size_t)exports->num_replicas);
  if (!c || !seen) {
    free(c);
    free(seen);
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory");
  }
  c->num_replicas = (size_t)exports->num_replicas;
  c->table = exports->table;
  c->table_words = exports->table ? exports->table_words : 0;
  nlrt_status status =
      exports->table ? check_table(exports, entry, c, seen) : NLRT_OK;
  free(seen);
  if (status != NLRT_OK) {
    nlrt_collectives_destroy(c);
    return status;
  }
  *out = c;
  return NLRT_OK;
}

void nlrt_collectives_destroy(nlrt_collectives *collectives) {
  if (!collectives)
    return;
  for (size_t i = 0; collectives->records && i < collectives->count; ++i)
    free(collectives->records[i].steps);
  free(collectives->records);
  free(collectives);
}

bool nlrt_collectives_equal(const nlrt_collectives *a,
                            const nlrt_collectives *b) {
  if (!a || !b)
    return a == b;
  return a->num_replicas == b->num_replicas &&
         a->table_words == b->table_words &&
         (a->table_words == 0 ||
          memcmp(a->table, b->table, a->table_words * sizeof(int64_t)) == 0);
}

void nlrt_collective_describe(const nlrt_collectives *collectives,
                              size_t index, char *out, size_t capacity) {
  const nlrt_collective_record *r = &collectives->records[index];
  if (r->location)
    snprintf(out, capacity, "%s (%.*s)", op_names[r->op],
             (int)r->location_length, r->location);
  else
    snprintf(out, capacity, "%s (collective %zu)", op_names[r->op], index);
}

bool nlrt_collective_group_of(const nlrt_collective_record *record,
                              size_t replica, const int64_t **members,
                              size_t *position) {
  size_t total = record->num_groups * record->group_size;
  for (size_t i = 0; i < total; ++i) {
    if (record->groups[i] == (int64_t)replica) {
      *members = record->groups + (i - i % record->group_size);
      *position = i % record->group_size;
      return true;
    }
  }
  return false;
}

/*===--- The call context and the dispatcher ------------------------------===*/

static _Thread_local nlrt_call_context *current_context;

void nlrt_call_context_enter(nlrt_call_context *context) {
  context->outer = current_context;
  current_context = context;
}

void nlrt_call_context_leave(nlrt_call_context *context) {
  current_context = context->outer;
}

void nlrt_collective_dispatch(uint64_t index, const void *operand,
                              void *result) {
  const nlrt_call_context *context = current_context;
  if (!context) /* code run outside the runtime: nothing to go by */
    return;
  const nlrt_collectives *collectives = context->collectives;
  size_t count = collectives ? collectives->count : 0;
  if (index >= count) {
    nlrt_error(NLRT_COLLECTIVE_FAILED,
               "collective %llu was called, but the running executable's "
               "collective table has %zu records",
               (unsigned long long)index, count);
    nlrt_host_call_abandon_for_collective();
    return;
  }
  const nlrt_collective_record *record = &collectives->records[index];
  struct nlrt_spmd_participant *participant = context->participant;
  if (record->op == NLRT_COLLECTIVE_REPLICA_ID) {
    uint32_t id = participant ? (uint32_t)nlrt_spmd_replica(participant) : 0;
    memcpy(result, &id, sizeof(id));
    return;
  }
  if (!participant) {
    /* One replica: every group is {0}, so each op copies its operand (a
     * reduction of one, the one block of a reduce_scatter), except a
     * permute without the pair (0, 0), the only one it can have. */
    size_t bytes = record->elements * record->element_size;
    if (record->op == NLRT_COLLECTIVE_PERMUTE && record->num_groups == 0) {
      if (bytes)
        memset(result, 0, bytes);
    } else if (bytes && result != operand) {
      memmove(result, operand, bytes);
    }
    return;
  }
  if (nlrt_spmd_collective(participant, collectives, (size_t)index, operand,
                           result) != NLRT_OK)
    nlrt_host_call_abandon_for_collective();
}
