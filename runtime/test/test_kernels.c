/* Hand-written stand-ins for compiler output, following the executable
 * contract in runtime.h. Each entry point is one case of c_api_test.c. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

/* out = a + b over f32[4]; the default entry name. */
EXPORT const char numlir_entry_signature[] = "f32[4];f32[4]->f32[4]";
EXPORT void numlir_entry(void **buffers) {
  const float *a = buffers[0], *b = buffers[1];
  float *out = buffers[2];
  for (int i = 0; i < 4; ++i)
    out[i] = a[i] + b[i];
}

/* out = mask ? x : -1 over [2,3]; i1 is one byte per element. */
EXPORT const char masked_i64_signature[] = "i64[2,3];i1[2,3]->i64[2,3]";
EXPORT void masked_i64(void **buffers) {
  const int64_t *x = buffers[0];
  const uint8_t *mask = buffers[1];
  int64_t *out = buffers[2];
  for (int i = 0; i < 6; ++i)
    out[i] = mask[i] ? x[i] : -1;
}

/* Scalars: (sum, product) of two f64[]. */
EXPORT const char scalar_pair_signature[] = "f64[];f64[]->f64[];f64[]";
EXPORT void scalar_pair(void **buffers) {
  double a = *(const double *)buffers[0], b = *(const double *)buffers[1];
  *(double *)buffers[2] = a + b;
  *(double *)buffers[3] = a * b;
}

/* No inputs: out = iota. */
EXPORT const char iota_signature[] = "->i32[5]";
EXPORT void iota(void **buffers) {
  int32_t *out = buffers[0];
  for (int i = 0; i < 5; ++i)
    out[i] = i;
}

/* Allocates through its table as generated code does: holds sizes[0]
 * bytes (touched), then asks for sizes[1] more; out = 1 if both worked. The
 * runtime points the table at its checked allocator. */
EXPORT void *hold_then_allocate_allocator[3] = {(void *)malloc,
                                                (void *)aligned_alloc,
                                                (void *)free};
EXPORT const char hold_then_allocate_signature[] = "i64[2]->i64[]";
/* Where the compiler would say each static buffer comes from. */
EXPORT const char hold_then_allocate_allocation_sites[] =
    "16 f32[4] kernels.py:3:1\n"
    "4611686018427387904 f32[1152921504606846976] kernels.py:7:3\n"
    "4611686018427387900 i8[4611686018427387900] kernels.py:9:5";
EXPORT void hold_then_allocate(void **buffers) {
  void *(*alloc)(uint64_t) = (void *(*)(uint64_t))hold_then_allocate_allocator[0];
  void *(*aligned)(uint64_t, uint64_t) =
      (void *(*)(uint64_t, uint64_t))hold_then_allocate_allocator[1];
  void (*release)(void *) = (void (*)(void *))hold_then_allocate_allocator[2];
  const int64_t *sizes = buffers[0];
  *(int64_t *)buffers[1] = 0;
  char *held = alloc((uint64_t)sizes[0]);
  memset(held, 1, (size_t)sizes[0]);
  char *more = aligned(64, (uint64_t)sizes[1]);
  *(int64_t *)buffers[1] = held != NULL && more != NULL &&
                           ((uintptr_t)more & 63) == 0;
  release(more);
  release(held);
}

/* Contract violations. */
EXPORT const char malformed_signature[] = "f32[4->f32[4]";
EXPORT void malformed(void **buffers) { (void)buffers; }

EXPORT void no_signature(void **buffers) { (void)buffers; }

EXPORT const char not_a_function_signature[] = "->";
EXPORT const int not_a_function = 42;

/* Exactly 5 bytes and no terminator: C allows this initializer. */
EXPORT const char unterminated_signature[5] = "->f32";
EXPORT void unterminated(void **buffers) { (void)buffers; }

/* An allocator table of the wrong size. */
EXPORT void *short_table_allocator[2] = {(void *)malloc, (void *)free};
EXPORT const char short_table_signature[] = "->";
EXPORT void short_table(void **buffers) { (void)buffers; }

/* Calls back into the host as compiled code does, through its slot: out =
 * the callback's result for x, then x + 1 (reached only if the callback
 * returned). The slot starts at a function that does nothing. */
typedef void (*host_callback_slot)(uint64_t, void *const *, uint64_t,
                                   void *const *, uint64_t);
static void no_host_callback(uint64_t id, void *const *operands, uint64_t n,
                             void *const *results, uint64_t m) {
  (void)id, (void)operands, (void)n, (void)results, (void)m;
}
EXPORT host_callback_slot call_host_host_callback = no_host_callback;
EXPORT const char call_host_signature[] = "f32[2]->f32[2];f32[2]";
EXPORT void call_host(void **buffers) {
  void *operands[1] = {buffers[0]};
  void *results[1] = {buffers[1]};
  call_host_host_callback(42, operands, 1, results, 1);
  const float *x = buffers[0];
  float *after = buffers[2];
  for (int i = 0; i < 2; ++i)
    after[i] = x[i] + 1;
}

/*===--- SPMD stand-ins: collectives through the slot ---------------------===*
 *
 * As the compiler emits them for an entry E: a writable slot
 * `E_collective` (the runtime points it at its dispatcher),
 * `E_num_replicas`, the constant table `E_collectives` (format version,
 * length in words, record count, record offsets, records) and
 * `E_collective_locations`. Each kernel is stamped out for 1 to 4 replicas
 * (all_reduce_4, diverge_2, ...); their tables are built by the macros
 * below as constant initializers. */

/* nlrt_dtype values, spelled out: these kernels see no runtime header. */
enum { F16 = 0, BF16 = 1, F32 = 2, F64 = 3, I1 = 4, I8 = 5, I16 = 6, I32 = 7,
       I64 = 8, UI8 = 9, UI16 = 10, UI32 = 11, UI64 = 12, C64 = 13, C128 = 14 };
enum { ALL_REDUCE = 0, REPLICA_ID = 1, ALL_GATHER = 2, ALL_TO_ALL = 3,
       REDUCE_SCATTER = 4, PERMUTE = 5 };
enum { SUM = 0, PROD = 1, MAX = 2, MIN = 3, AND = 4, OR = 5, NO_KIND = -1 };

typedef void (*collective_slot)(uint64_t, const void *, void *);
static void no_collective(uint64_t index, const void *operand, void *result) {
  (void)index, (void)operand, (void)result;
}

/* Replica groups, as num_groups, group_size, ids: ALL_R is one group of all
 * R replicas; ROTATED_R the same group out of rank order, the last replica
 * first; SPLIT_R is [[0, 2], [1, 3]] on 4, singletons below. Each has R
 * ids, so every record of these tables has 7 + R words. */
#define ALL_1 1, 1, 0
#define ALL_2 1, 2, 0, 1
#define ALL_3 1, 3, 0, 1, 2
#define ALL_4 1, 4, 0, 1, 2, 3
#define ROTATED_1 1, 1, 0
#define ROTATED_2 1, 2, 1, 0
#define ROTATED_3 1, 3, 2, 0, 1
#define ROTATED_4 1, 4, 3, 0, 1, 2
#define SPLIT_1 1, 1, 0
#define SPLIT_2 2, 1, 0, 1
#define SPLIT_3 3, 1, 0, 1, 2
#define SPLIT_4 2, 2, 0, 2, 1, 3

#define TABLE_WORDS(count, replicas) (3 + (count) + (count) * (7 + (replicas)))
/* Where record i of `count` starts. */
#define AT(count, replicas, i) (3 + (count) + (i) * (7 + (replicas)))

/* all_reduce_R's records; c_api_test.c's spmd_cases mirror them. Record
 * 15 is the replica_id; records GENERIC_IN_PLACE to GENERIC_IN_PLACE_END - 1
 * run in place (the result buffer is the operand). From 26 on, sizes that
 * split unevenly into slices, or leave some empty, on 2 and 3 processes
 * (processes.c's reduction in slices), some with the group out of order. */
#define NUM_GENERIC 37
#define GENERIC_REPLICA_ID 15
#define GENERIC_IN_PLACE 24
#define GENERIC_IN_PLACE_END 31
#define GENERIC_TABLE(R)                                                       \
  {1, TABLE_WORDS(NUM_GENERIC, R), NUM_GENERIC,                                \
   AT(NUM_GENERIC, R, 0), AT(NUM_GENERIC, R, 1), AT(NUM_GENERIC, R, 2),        \
   AT(NUM_GENERIC, R, 3), AT(NUM_GENERIC, R, 4), AT(NUM_GENERIC, R, 5),        \
   AT(NUM_GENERIC, R, 6), AT(NUM_GENERIC, R, 7), AT(NUM_GENERIC, R, 8),        \
   AT(NUM_GENERIC, R, 9), AT(NUM_GENERIC, R, 10), AT(NUM_GENERIC, R, 11),      \
   AT(NUM_GENERIC, R, 12), AT(NUM_GENERIC, R, 13), AT(NUM_GENERIC, R, 14),     \
   AT(NUM_GENERIC, R, 15), AT(NUM_GENERIC, R, 16), AT(NUM_GENERIC, R, 17),     \
   AT(NUM_GENERIC, R, 18), AT(NUM_GENERIC, R, 19), AT(NUM_GENERIC, R, 20),     \
   AT(NUM_GENERIC, R, 21), AT(NUM_GENERIC, R, 22), AT(NUM_GENERIC, R, 23),     \
   AT(NUM_GENERIC, R, 24), AT(NUM_GENERIC, R, 25), AT(NUM_GENERIC, R, 26),     \
   AT(NUM_GENERIC, R, 27), AT(NUM_GENERIC, R, 28), AT(NUM_GENERIC, R, 29),     \
   AT(NUM_GENERIC, R, 30), AT(NUM_GENERIC, R, 31), AT(NUM_GENERIC, R, 32),     \
   AT(NUM_GENERIC, R, 33), AT(NUM_GENERIC, R, 34), AT(NUM_GENERIC, R, 35),     \
   AT(NUM_GENERIC, R, 36),                                                     \
   ALL_REDUCE, SUM, F32, 7, ALL_##R, -1,                                       \
   ALL_REDUCE, MAX, F64, 5, ALL_##R, -1,                                       \
   ALL_REDUCE, SUM, I32, 9, ALL_##R, -1,                                       \
   ALL_REDUCE, OR, I1, 11, ALL_##R, -1,                                        \
   ALL_REDUCE, SUM, BF16, 13, ALL_##R, -1,                                     \
   ALL_REDUCE, SUM, C64, 3, ALL_##R, -1,                                       \
   ALL_REDUCE, SUM, F16, 6, ALL_##R, -1,                                       \
   ALL_REDUCE, PROD, C128, 3, ALL_##R, -1,                                     \
   ALL_REDUCE, MIN, I8, 5, ALL_##R, -1,                                        \
   ALL_REDUCE, AND, UI16, 4, ALL_##R, -1,                                      \
   ALL_REDUCE, PROD, I64, 3, ALL_##R, -1,                                      \
   ALL_REDUCE, MIN, F32, 5, ALL_##R, -1,                                       \
   ALL_REDUCE, SUM, F32, 10007, ALL_##R, -1,                                   \
   ALL_REDUCE, SUM, F32, 0, ALL_##R, -1,                                       \
   ALL_REDUCE, SUM, F32, 7, SPLIT_##R, -1,                                     \
   REPLICA_ID, NO_KIND, UI32, 1, ALL_##R, 0,                                   \
   ALL_REDUCE, MAX, BF16, 5, ALL_##R, -1,                                      \
   ALL_REDUCE, AND, I1, 4, ALL_##R, -1,                                        \
   ALL_REDUCE, MAX, F32, 8, ALL_##R, -1,                                       \
   ALL_REDUCE, MIN, F32, 8, ALL_##R, -1,                                       \
   ALL_REDUCE, MAX, F16, 8, ALL_##R, -1,                                       \
   ALL_REDUCE, MIN, F16, 8, ALL_##R, -1,                                       \
   ALL_REDUCE, MIN, BF16, 8, ALL_##R, -1,                                      \
   ALL_REDUCE, MAX, F64, 8, ALL_##R, -1,                                       \
   ALL_REDUCE, SUM, F32, 1000, ALL_##R, -1,                                    \
   ALL_REDUCE, MAX, F16, 8, ALL_##R, -1,                                       \
   ALL_REDUCE, SUM, F32, 1, ALL_##R, -1,                                       \
   ALL_REDUCE, SUM, F32, 2, ALL_##R, -1,                                       \
   ALL_REDUCE, SUM, F32, 10007, ROTATED_##R, -1,                               \
   ALL_REDUCE, MIN, BF16, 8, ROTATED_##R, -1,                                  \
   ALL_REDUCE, SUM, I32, 0, ALL_##R, -1,                                       \
   ALL_REDUCE, SUM, F32, 1, ALL_##R, -1,                                       \
   ALL_REDUCE, MAX, F64, 2, ALL_##R, -1,                                       \
   ALL_REDUCE, SUM, F32, 10007, ROTATED_##R, -1,                               \
   ALL_REDUCE, MAX, F32, 8, ROTATED_##R, -1,                                   \
   ALL_REDUCE, PROD, C128, 5, ROTATED_##R, -1,                                 \
   ALL_REDUCE, SUM, F16, 7, ROTATED_##R, -1}

/* The special kernels' records: 0 replica_id (kernels.py:5), 1 all_reduce
 * sum f32[2] (kernels.py:10), 2 the same at kernels.py:20. */
#define NUM_SPECIAL 3
#define SPECIAL_LOCATIONS                                                      \
  "kernels.py:5\nkernels.py:10\nkernels.py:20\nkernels.py:30"
#define SPECIAL_TABLE(R)                                                       \
  {1, TABLE_WORDS(NUM_SPECIAL, R), NUM_SPECIAL,                                \
   AT(NUM_SPECIAL, R, 0), AT(NUM_SPECIAL, R, 1), AT(NUM_SPECIAL, R, 2),        \
   REPLICA_ID, NO_KIND, UI32, 1, ALL_##R, 0,                                   \
   ALL_REDUCE, SUM, F32, 2, ALL_##R, 1,                                        \
   ALL_REDUCE, SUM, F32, 2, ALL_##R, 2}

/* all_reduce_R: runs record buffers[0] on buffers[1] into buffers[2], raw
 * bytes (the replica_id record gets no operand). */
static void run_generic(collective_slot slot, void **buffers) {
  int64_t record = *(const int64_t *)buffers[0];
  int in_place = record >= GENERIC_IN_PLACE && record < GENERIC_IN_PLACE_END;
  slot((uint64_t)record,
       record == GENERIC_REPLICA_ID ? NULL : in_place ? buffers[2] : buffers[1],
       buffers[2]);
}

static uint32_t replica_of(collective_slot slot) {
  uint32_t id = 99;
  slot(0, NULL, &id); /* record 0 of the special tables: replica_id */
  return id;
}

/* diverge_R: replica 0 reaches record 1 (kernels.py:10), the others record
 * 2 (kernels.py:20). */
static void run_diverge(collective_slot slot, void **buffers) {
  slot(replica_of(slot) == 0 ? 1 : 2, buffers[1], buffers[2]);
}

/* skip_R: replica 1 returns without the all_reduce the others wait in. */
static void run_skip(collective_slot slot, void **buffers) {
  if (replica_of(slot) != 1)
    slot(1, buffers[1], buffers[2]);
}

/* slow_R: replica 1 first sleeps buffers[0] milliseconds. */
static void run_slow(collective_slot slot, void **buffers) {
  int64_t ms = *(const int64_t *)buffers[0];
  if (replica_of(slot) == 1 && ms > 0) {
    struct timespec pause = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};
    while (nanosleep(&pause, &pause) != 0) {
    }
  }
  slot(1, buffers[1], buffers[2]);
}

/* fail_R: the last replica asks its allocator for 2^62 bytes (when
 * buffers[0] is non-zero), the others reach the all_reduce. */
static void run_fail(collective_slot slot, void *const *allocator,
                     int64_t replicas, void **buffers) {
  if (*(const int64_t *)buffers[0] && replica_of(slot) == replicas - 1) {
    void *(*alloc)(uint64_t) = (void *(*)(uint64_t))allocator[0];
    void (*release)(void *) = (void (*)(void *))allocator[2];
    release(alloc((uint64_t)1 << 62));
  }
  slot(1, buffers[1], buffers[2]);
}

#define SPECIAL_KERNEL(name, R, ...)                                           \
  EXPORT const int64_t name##_##R##_num_replicas = R;                          \
  EXPORT collective_slot name##_##R##_collective = no_collective;              \
  EXPORT const int64_t name##_##R##_collectives[] = SPECIAL_TABLE(R);          \
  EXPORT const char name##_##R##_collective_locations[] = SPECIAL_LOCATIONS;   \
  EXPORT const char name##_##R##_signature[] = "i64[];f32[2]->f32[2]";         \
  EXPORT void name##_##R(void **buffers) {                                     \
    run_##name(name##_##R##_collective, __VA_ARGS__ buffers);                  \
  }

#define SPMD_KERNELS(R)                                                        \
  EXPORT const int64_t all_reduce_##R##_num_replicas = R;                      \
  EXPORT collective_slot all_reduce_##R##_collective = no_collective;          \
  EXPORT const int64_t all_reduce_##R##_collectives[] = GENERIC_TABLE(R);      \
  EXPORT const char all_reduce_##R##_collective_locations[] = "kernels.py:3";  \
  EXPORT const char all_reduce_##R##_signature[] =                             \
      "i64[];ui8[40960]->ui8[40960]";                                          \
  EXPORT void all_reduce_##R(void **buffers) {                                 \
    run_generic(all_reduce_##R##_collective, buffers);                         \
  }                                                                            \
  SPECIAL_KERNEL(diverge, R)                                                   \
  SPECIAL_KERNEL(skip, R)                                                      \
  SPECIAL_KERNEL(slow, R)                                                      \
  EXPORT void *fail_##R##_allocator[3] = {(void *)malloc,                      \
                                          (void *)aligned_alloc, (void *)free};\
  SPECIAL_KERNEL(fail, R, fail_##R##_allocator, R,)

SPMD_KERNELS(1)
SPMD_KERNELS(2)
SPMD_KERNELS(3)
SPMD_KERNELS(4)

/* exchange_R: the other collectives, records mirrored by c_api_test.c's
 * exchange_cases. A record here is 7 + 2R words, room for R pairs: group
 * records are padded with R zeros after their location. */
#define PAD_1 0
#define PAD_2 0, 0
#define PAD_3 0, 0, 0
#define PAD_4 0, 0, 0, 0
/* The group sizes of ALL_R and SPLIT_R. */
#define ALL_SIZE_1 1
#define ALL_SIZE_2 2
#define ALL_SIZE_3 3
#define ALL_SIZE_4 4
#define SPLIT_SIZE_1 1
#define SPLIT_SIZE_2 1
#define SPLIT_SIZE_3 1
#define SPLIT_SIZE_4 2
#define GROUPED(op, kind, dtype, elements, groups, R)                          \
  op, kind, dtype, elements, groups##_##R, -1, PAD_##R
/* all_to_all and reduce_scatter records give a block size: their operand
 * has one block per member. */
#define BLOCKED(op, kind, dtype, block, groups, R)                             \
  GROUPED(op, kind, dtype, (block) * groups##_SIZE_##R, groups, R)

/* Permutation pairs, as num_pairs, 2, source, target..., location and
 * padding. RING_R: i -> i + 1 mod R. CHAIN_R: i -> i + 1 for i < R - 1
 * (replica 0 gets zeros). MIXED_R: a self-pair on 1 and 2 replicas; on 3,
 * 0 <-> 2 and 1 gets zeros; on 4, 1 <-> 3, 2 -> 0 and 2 gets zeros. */
#define RING_1 1, 2, 0, 0, -1
#define RING_2 2, 2, 0, 1, 1, 0, -1
#define RING_3 3, 2, 0, 1, 1, 2, 2, 0, -1
#define RING_4 4, 2, 0, 1, 1, 2, 2, 3, 3, 0, -1
#define CHAIN_1 0, 2, -1, 0, 0
#define CHAIN_2 1, 2, 0, 1, -1, 0, 0
#define CHAIN_3 2, 2, 0, 1, 1, 2, -1, 0, 0
#define CHAIN_4 3, 2, 0, 1, 1, 2, 2, 3, -1, 0, 0
#define MIXED_1 1, 2, 0, 0, -1
#define MIXED_2 1, 2, 1, 1, -1, 0, 0
#define MIXED_3 2, 2, 2, 0, 0, 2, -1, 0, 0
#define MIXED_4 3, 2, 1, 3, 3, 1, 2, 0, -1, 0, 0
#define PERMUTED(dtype, elements, pairs, R)                                    \
  PERMUTE, NO_KIND, dtype, elements, pairs##_##R

#define NUM_EXCHANGE 47
#define EXCHANGE_AT(R, i) (3 + NUM_EXCHANGE + (i) * (7 + 2 * (R)))
#define EXCHANGE_AT_8(R, i)                                                    \
  EXCHANGE_AT(R, i), EXCHANGE_AT(R, i + 1), EXCHANGE_AT(R, i + 2),             \
      EXCHANGE_AT(R, i + 3), EXCHANGE_AT(R, i + 4), EXCHANGE_AT(R, i + 5),     \
      EXCHANGE_AT(R, i + 6), EXCHANGE_AT(R, i + 7)
#define EXCHANGE_TABLE(R)                                                      \
  {1, EXCHANGE_AT(R, NUM_EXCHANGE), NUM_EXCHANGE,                              \
   EXCHANGE_AT_8(R, 0), EXCHANGE_AT_8(R, 8), EXCHANGE_AT_8(R, 16),             \
   EXCHANGE_AT_8(R, 24), EXCHANGE_AT_8(R, 32), EXCHANGE_AT(R, 40),             \
   EXCHANGE_AT(R, 41), EXCHANGE_AT(R, 42), EXCHANGE_AT(R, 43),                 \
   EXCHANGE_AT(R, 44), EXCHANGE_AT(R, 45), EXCHANGE_AT(R, 46),                 \
   GROUPED(ALL_GATHER, NO_KIND, F32, 7, ALL, R),                /* 0 */        \
   GROUPED(ALL_GATHER, NO_KIND, F64, 5, ALL, R),                               \
   GROUPED(ALL_GATHER, NO_KIND, I32, 9, ALL, R),                               \
   GROUPED(ALL_GATHER, NO_KIND, I1, 11, ALL, R),                               \
   GROUPED(ALL_GATHER, NO_KIND, BF16, 13, ALL, R),                             \
   GROUPED(ALL_GATHER, NO_KIND, C64, 3, ALL, R),                               \
   GROUPED(ALL_GATHER, NO_KIND, F32, 0, ALL, R),                               \
   GROUPED(ALL_GATHER, NO_KIND, F32, 7, SPLIT, R),                             \
   GROUPED(ALL_GATHER, NO_KIND, C128, 3, ALL, R),                              \
   GROUPED(ALL_GATHER, NO_KIND, F16, 5, ALL, R),                               \
   GROUPED(ALL_GATHER, NO_KIND, F64, 30011, ALL, R),            /* 10 */       \
   BLOCKED(ALL_TO_ALL, NO_KIND, F32, 7, ALL, R),                /* 11 */       \
   BLOCKED(ALL_TO_ALL, NO_KIND, F64, 5, ALL, R),                               \
   BLOCKED(ALL_TO_ALL, NO_KIND, I32, 9, ALL, R),                               \
   BLOCKED(ALL_TO_ALL, NO_KIND, I1, 11, ALL, R),                               \
   BLOCKED(ALL_TO_ALL, NO_KIND, BF16, 13, ALL, R),                             \
   BLOCKED(ALL_TO_ALL, NO_KIND, C64, 3, ALL, R),                               \
   BLOCKED(ALL_TO_ALL, NO_KIND, F32, 0, ALL, R),                               \
   BLOCKED(ALL_TO_ALL, NO_KIND, F32, 7, SPLIT, R),                             \
   BLOCKED(ALL_TO_ALL, NO_KIND, I8, 5, ALL, R),                                \
   BLOCKED(ALL_TO_ALL, NO_KIND, F64, 30011, ALL, R),            /* 20 */       \
   BLOCKED(REDUCE_SCATTER, SUM, F32, 7, ALL, R),                /* 21 */       \
   BLOCKED(REDUCE_SCATTER, MAX, F64, 5, ALL, R),                               \
   BLOCKED(REDUCE_SCATTER, SUM, I32, 9, ALL, R),                               \
   BLOCKED(REDUCE_SCATTER, OR, I1, 11, ALL, R),                                \
   BLOCKED(REDUCE_SCATTER, SUM, BF16, 13, ALL, R),                             \
   BLOCKED(REDUCE_SCATTER, SUM, C64, 3, ALL, R),                               \
   BLOCKED(REDUCE_SCATTER, SUM, F32, 0, ALL, R),                               \
   BLOCKED(REDUCE_SCATTER, SUM, F32, 7, SPLIT, R),                             \
   BLOCKED(REDUCE_SCATTER, SUM, F16, 6, ALL, R),                               \
   BLOCKED(REDUCE_SCATTER, PROD, C128, 3, ALL, R),                             \
   BLOCKED(REDUCE_SCATTER, MIN, F32, 5, ALL, R),                /* 31 */       \
   BLOCKED(REDUCE_SCATTER, SUM, F32, 30011, ALL, R),                           \
   BLOCKED(REDUCE_SCATTER, MAX, BF16, 5, ALL, R),                              \
   BLOCKED(REDUCE_SCATTER, AND, I1, 4, ALL, R),                                \
   BLOCKED(REDUCE_SCATTER, AND, UI16, 4, ALL, R),               /* 35 */       \
   PERMUTED(F32, 7, RING, R),                                   /* 36 */       \
   PERMUTED(F64, 5, RING, R),                                                  \
   PERMUTED(I32, 9, CHAIN, R),                                                 \
   PERMUTED(I1, 11, MIXED, R),                                                 \
   PERMUTED(BF16, 13, RING, R),                                 /* 40 */       \
   PERMUTED(C64, 3, CHAIN, R),                                                 \
   PERMUTED(F32, 0, RING, R),                                                  \
   PERMUTED(F64, 30011, RING, R),                                              \
   PERMUTED(I64, 4, MIXED, R),                                                 \
   PERMUTED(C128, 3, MIXED, R),                                                \
   PERMUTED(I8, 5, CHAIN, R)}                                   /* 46 */

/* exchange_R: buffers[0] is {record, in_place}. Runs the record on
 * buffers[1] into buffers[2]; in place, copies buffers[1] to buffers[2]
 * first and runs it on buffers[2] into buffers[2]. */
#define EXCHANGE_BYTES 1048576
static void run_exchange(collective_slot slot, void **buffers) {
  const int64_t *what = buffers[0];
  if (what[1]) {
    memcpy(buffers[2], buffers[1], EXCHANGE_BYTES);
    slot((uint64_t)what[0], buffers[2], buffers[2]);
  } else {
    slot((uint64_t)what[0], buffers[1], buffers[2]);
  }
}

#define EXCHANGE_KERNEL(R)                                                     \
  EXPORT const int64_t exchange_##R##_num_replicas = R;                        \
  EXPORT collective_slot exchange_##R##_collective = no_collective;            \
  EXPORT const int64_t exchange_##R##_collectives[] = EXCHANGE_TABLE(R);       \
  EXPORT const char exchange_##R##_signature[] =                               \
      "i64[2];ui8[1048576]->ui8[1048576]";                                     \
  EXPORT void exchange_##R(void **buffers) {                                   \
    run_exchange(exchange_##R##_collective, buffers);                          \
  }

EXCHANGE_KERNEL(1)
EXCHANGE_KERNEL(2)
EXCHANGE_KERNEL(3)
EXCHANGE_KERNEL(4)

/* Collective tables that break the format, each on 2 replicas: loading
 * them fails. `<name>_collectives` is written out word by word. */
#define MALFORMED(name, ...)                                                   \
  EXPORT const int64_t name##_num_replicas = 2;                                \
  EXPORT collective_slot name##_collective = no_collective;                    \
  EXPORT const int64_t name##_collectives[] = {__VA_ARGS__};                   \
  EXPORT const char name##_collective_locations[] = "bad.py:1";                \
  EXPORT const char name##_signature[] = "->";                                 \
  EXPORT void name(void **buffers) { (void)buffers; }

/* One all_reduce sum f32[2] over [[0, 1]] at word 4, with the given group
 * words in place of "1, 2, 0, 1" (num_groups, group_size, ids). */
MALFORMED(bad_version, 2, 3, 0)
MALFORMED(bad_length, 1, 5, 0)
MALFORMED(bad_offset, 1, 13, 1, 99, 0, 0, 2, 2, 1, 2, 0, 1, -1)
MALFORMED(bad_replica, 1, 13, 1, 4, 0, 0, 2, 2, 1, 2, 0, 5, -1)
MALFORMED(repeated_replica, 1, 13, 1, 4, 0, 0, 2, 2, 1, 2, 1, 1, -1)
MALFORMED(uncovered_replica, 1, 12, 1, 4, 0, 0, 2, 2, 1, 1, 0, -1)
MALFORMED(unknown_op, 1, 13, 1, 4, 9, 0, 2, 2, 1, 2, 0, 1, -1)
MALFORMED(unknown_dtype, 1, 13, 1, 4, 0, 0, 20, 2, 1, 2, 0, 1, -1)
MALFORMED(unknown_kind, 1, 13, 1, 4, 0, 7, 2, 2, 1, 2, 0, 1, -1)
MALFORMED(sum_of_i1, 1, 13, 1, 4, 0, 0, 4, 2, 1, 2, 0, 1, -1)
MALFORMED(max_of_c64, 1, 13, 1, 4, 0, 2, 13, 2, 1, 2, 0, 1, -1)
MALFORMED(replica_id_f32, 1, 13, 1, 4, 1, -1, 2, 1, 1, 2, 0, 1, -1)
MALFORMED(bad_location, 1, 13, 1, 4, 0, 0, 2, 2, 1, 2, 0, 1, 5)
MALFORMED(past_the_end, 1, 9, 1, 4, 0, 0, 2, 2, 1)
/* The other ops' rules, each against one all_* or permute record. */
MALFORMED(all_gather_with_kind, 1, 13, 1, 4, 2, 0, 2, 2, 1, 2, 0, 1, -1)
MALFORMED(all_to_all_with_kind, 1, 13, 1, 4, 3, 1, 2, 2, 1, 2, 0, 1, -1)
MALFORMED(permute_with_kind, 1, 13, 1, 4, 5, 0, 2, 2, 1, 2, 0, 1, -1)
MALFORMED(reduce_scatter_without_kind, 1, 13, 1, 4, 4, -1, 2, 2, 1, 2, 0, 1,
          -1)
MALFORMED(reduce_scatter_of_i1, 1, 13, 1, 4, 4, 0, 4, 2, 1, 2, 0, 1, -1)
MALFORMED(all_to_all_indivisible, 1, 13, 1, 4, 3, -1, 2, 3, 1, 2, 0, 1, -1)
MALFORMED(reduce_scatter_indivisible, 1, 13, 1, 4, 4, 0, 2, 5, 1, 2, 0, 1,
          -1)
MALFORMED(all_gather_uncovered, 1, 12, 1, 4, 2, -1, 2, 2, 1, 1, 0, -1)
MALFORMED(all_to_all_repeated, 1, 13, 1, 4, 3, -1, 2, 2, 1, 2, 1, 1, -1)
MALFORMED(reduce_scatter_bad_replica, 1, 13, 1, 4, 4, 0, 2, 2, 1, 2, 0, 2,
          -1)
MALFORMED(all_gather_too_large, 1, 13, 1, 4, 2, -1, 2,
          (int64_t)1 << 60, 1, 2, 0, 1, -1)
MALFORMED(permute_not_pairs, 1, 14, 1, 4, 5, -1, 2, 2, 1, 3, 0, 1, 0, -1)
MALFORMED(permute_repeated_source, 1, 15, 1, 4, 5, -1, 2, 2, 2, 2, 0, 1, 0,
          0, -1)
MALFORMED(permute_repeated_target, 1, 15, 1, 4, 5, -1, 2, 2, 2, 2, 0, 1, 1,
          1, -1)
MALFORMED(permute_bad_target, 1, 13, 1, 4, 5, -1, 2, 2, 1, 2, 0, 2, -1)
MALFORMED(permute_negative_source, 1, 13, 1, 4, 5, -1, 2, 2, 1, 2, -1, 0, -1)

/* Compiled for 4 replicas, no collective at all. */
EXPORT const int64_t four_replicas_num_replicas = 4;
EXPORT const char four_replicas_signature[] = "->i32[1]";
EXPORT void four_replicas(void **buffers) { *(int32_t *)buffers[0] = 4; }

/* A table and num_replicas 0. */
EXPORT const int64_t no_replicas_num_replicas = 0;
EXPORT const char no_replicas_signature[] = "->";
EXPORT void no_replicas(void **buffers) { (void)buffers; }
