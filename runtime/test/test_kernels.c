/* Hand-written stand-ins for compiler output, following the executable
 * contract in runtime.h. Each entry point is one case of c_api_test.c. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
