/*===- cuda_payload.c - reading and checking a cuda executable payload ----===*
 *
 * A reader walks the bytes front to back and asks for every field's bytes
 * before reading them, so a truncated or lying payload ends in a message,
 * never a read past its end. Counts from the header are checked against
 * the bytes left before anything is allocated for them.
 *
 *===----------------------------------------------------------------------===*/

#include "cuda_payload.h"

#include "../../internal.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char magic[8] = {'N', 'L', 'C', 'U', 'D', 'A', 0, 1};

enum {
  HEADER_BYTES = 64,
  BUFFER_BYTES = 24,
  KERNEL_MIN_BYTES = 8,
  STEP_MIN_BYTES = 40, /* every step record without launch arguments */
  ARGUMENT_BYTES = 16,
  MAX_KERNEL_NAME = 1024,
};

/* Limits every CUDA device shares (compute capability 3.0 on). */
#define MAX_BLOCK_THREADS 1024u
#define MAX_BLOCK_Z 64u
#define MAX_GRID_X 2147483647u
#define MAX_GRID_YZ 65535u

typedef struct reader {
  const unsigned char *data;
  size_t size;
  size_t position;
  const char *what;
} reader;

static nlrt_status invalid(const reader *r, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* NLRT_INVALID_EXECUTABLE: "<what>: <message>". */
static nlrt_status invalid(const reader *r, const char *format, ...) {
  char message[1024];
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(message, sizeof(message), format, arguments);
  va_end(arguments);
  return nlrt_error(NLRT_INVALID_EXECUTABLE, "%s: %s", r->what, message);
}

/* NLRT_OK if `bytes` more bytes are left for `reading`. */
static nlrt_status need(const reader *r, uint64_t bytes, const char *reading) {
  if (bytes <= r->size - r->position)
    return NLRT_OK;
  return invalid(r,
                 "truncated: reading %s needs %llu bytes at offset %zu, the "
                 "payload has %zu in all",
                 reading, (unsigned long long)bytes, r->position, r->size);
}

/* Little-endian fields, whatever the host's byte order; the caller has
 * checked that the bytes are there. */
static uint32_t read_u32(reader *r) {
  const unsigned char *p = r->data + r->position;
  r->position += 4;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static uint64_t read_u64(reader *r) {
  uint64_t low = read_u32(r);
  return low | (uint64_t)read_u32(r) << 32;
}

/* Skips the padding before a section, which starts at a multiple of 8. */
static nlrt_status align(reader *r, const char *section) {
  size_t padding = (8 - r->position % 8) % 8;
  nlrt_status status = need(r, padding, section);
  if (status == NLRT_OK)
    r->position += padding;
  return status;
}

static const char *kind_name(uint32_t kind) {
  static const char *const names[] = {"input", "output", "temporary",
                                      "constant"};
  return kind < 4 ? names[kind] : "?";
}

/*===--- Header and signature ----------------------------------------------===*/

typedef struct header {
  uint64_t signature_size, module_size, constants_size;
} header;

static nlrt_status parse_header(reader *r, nlrt_cuda_payload *out,
                                header *sizes) {
  nlrt_status status = need(r, HEADER_BYTES, "the header");
  if (status != NLRT_OK)
    return status;
  if (memcmp(r->data, magic, sizeof(magic)) != 0) {
    const unsigned char *d = r->data;
    return invalid(r,
                   "bad magic (starts with %02x %02x %02x %02x %02x %02x "
                   "%02x %02x): not a cuda payload, which starts with "
                   "\"NLCUDA\\0\\1\"",
                   d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]);
  }
  r->position = sizeof(magic);
  uint32_t version = read_u32(r);
  if (version != NLRT_CUDA_PAYLOAD_VERSION)
    return invalid(r,
                   "cuda payload version %u; this runtime reads version %d",
                   version, NLRT_CUDA_PAYLOAD_VERSION);
  out->module_format = read_u32(r);
  if (out->module_format > NLRT_CUDA_MODULE_FATBIN)
    return invalid(r,
                   "module format %u is none of 0 (PTX), 1 (cubin), 2 "
                   "(fatbin)",
                   out->module_format);
  out->num_inputs = read_u32(r);
  out->num_outputs = read_u32(r);
  out->num_buffers = read_u32(r);
  out->num_kernels = read_u32(r);
  out->num_steps = read_u32(r);
  uint32_t reserved = read_u32(r);
  if (reserved != 0)
    return invalid(r, "the header's reserved field is %u, not 0", reserved);
  sizes->signature_size = read_u64(r);
  sizes->module_size = read_u64(r);
  sizes->constants_size = read_u64(r);
  return NLRT_OK;
}

/* Copies the signature text and parses it into *signature, which the
 * buffer table is checked against. */
static nlrt_status parse_signature(reader *r, uint64_t size,
                                   nlrt_cuda_payload *out,
                                   nlrt_signature *signature) {
  nlrt_status status = need(r, size, "the signature");
  if (status != NLRT_OK)
    return status;
  const unsigned char *text = r->data + r->position;
  if (memchr(text, '\0', size))
    return invalid(r, "the signature holds a NUL byte");
  out->signature = malloc(size + 1);
  if (!out->signature)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory loading %s",
                      r->what);
  memcpy(out->signature, text, size);
  out->signature[size] = '\0';
  r->position += size;
  if (nlrt_signature_parse(out->signature, signature) != NLRT_OK) {
    char reason[1024];
    snprintf(reason, sizeof(reason), "%s", nlrt_last_error());
    return invalid(r, "%s", reason);
  }
  if (signature->num_inputs != out->num_inputs ||
      signature->num_outputs != out->num_outputs)
    return invalid(r,
                   "the header has %u inputs and %u outputs, its signature "
                   "\"%.256s\" %zu and %zu",
                   out->num_inputs, out->num_outputs, out->signature,
                   signature->num_inputs, signature->num_outputs);
  return NLRT_OK;
}

/*===--- Buffers and kernels -----------------------------------------------===*/

static nlrt_status check_buffer(const reader *r, uint32_t i,
                                const nlrt_cuda_buffer *buffer,
                                const nlrt_signature *signature,
                                const char *text, uint64_t constants_size,
                                bool *seen) {
  const char *kind = kind_name(buffer->kind);
  switch (buffer->kind) {
  case NLRT_CUDA_BUFFER_INPUT:
  case NLRT_CUDA_BUFFER_OUTPUT: {
    bool input = buffer->kind == NLRT_CUDA_BUFFER_INPUT;
    size_t count = input ? signature->num_inputs : signature->num_outputs;
    if (buffer->index >= count)
      return invalid(r, "buffer %u is %s %u of %zu", i, kind, buffer->index,
                     count);
    size_t position = (input ? 0 : signature->num_inputs) + buffer->index;
    if (seen[position])
      return invalid(r, "buffer %u is %s %u, which an earlier buffer is", i,
                     kind, buffer->index);
    seen[position] = true;
    size_t expected = signature->buffers[position].byte_size;
    if (buffer->size != expected)
      return invalid(r,
                     "buffer %u (%s %u) has %llu bytes, the signature "
                     "\"%.256s\" gives it %zu",
                     i, kind, buffer->index,
                     (unsigned long long)buffer->size, text, expected);
    if (buffer->offset != 0)
      return invalid(r, "buffer %u (%s %u) has offset %llu, not 0", i, kind,
                     buffer->index, (unsigned long long)buffer->offset);
    return NLRT_OK;
  }
  case NLRT_CUDA_BUFFER_TEMPORARY:
    if (buffer->index != 0 || buffer->offset != 0)
      return invalid(r, "buffer %u (temporary) has index %u and offset %llu, "
                        "not 0 and 0",
                     i, buffer->index, (unsigned long long)buffer->offset);
    return NLRT_OK;
  case NLRT_CUDA_BUFFER_CONSTANT:
    if (buffer->index != 0)
      return invalid(r, "buffer %u (constant) has index %u, not 0", i,
                     buffer->index);
    if (buffer->offset > constants_size ||
        buffer->size > constants_size - buffer->offset)
      return invalid(r,
                     "buffer %u (constant) is bytes %llu to %llu of the "
                     "constant data, which has %llu",
                     i, (unsigned long long)buffer->offset,
                     (unsigned long long)buffer->offset +
                         (unsigned long long)buffer->size,
                     (unsigned long long)constants_size);
    return NLRT_OK;
  }
  return invalid(r,
                 "buffer %u has kind %u, none of 0 (input), 1 (output), 2 "
                 "(temporary), 3 (constant)",
                 i, buffer->kind);
}

static nlrt_status parse_buffers(reader *r, nlrt_cuda_payload *out,
                                 const nlrt_signature *signature,
                                 uint64_t constants_size) {
  nlrt_status status =
      need(r, (uint64_t)out->num_buffers * BUFFER_BYTES, "the buffer table");
  if (status != NLRT_OK)
    return status;
  size_t callers = signature->num_inputs + signature->num_outputs;
  out->buffers = calloc(out->num_buffers ? out->num_buffers : 1,
                        sizeof(*out->buffers));
  bool *seen = calloc(callers ? callers : 1, sizeof(bool));
  if (!out->buffers || !seen) {
    free(seen);
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory loading %s",
                      r->what);
  }
  for (uint32_t i = 0; i < out->num_buffers && status == NLRT_OK; ++i) {
    nlrt_cuda_buffer *buffer = &out->buffers[i];
    buffer->kind = read_u32(r);
    buffer->index = read_u32(r);
    buffer->size = read_u64(r);
    buffer->offset = read_u64(r);
    status = check_buffer(r, i, buffer, signature, out->signature,
                          constants_size, seen);
  }
  /* Every input and output has its buffer, so each caller address has a
   * place in the program. */
  for (size_t i = 0; i < callers && status == NLRT_OK; ++i)
    if (!seen[i]) {
      bool input = i < signature->num_inputs;
      status = invalid(r, "no buffer is %s %zu", input ? "input" : "output",
                       input ? i : i - signature->num_inputs);
    }
  free(seen);
  return status;
}

static nlrt_status parse_kernels(reader *r, nlrt_cuda_payload *out) {
  nlrt_status status = need(r, (uint64_t)out->num_kernels * KERNEL_MIN_BYTES,
                            "the kernel table");
  if (status != NLRT_OK)
    return status;
  out->kernels = calloc(out->num_kernels ? out->num_kernels : 1,
                        sizeof(*out->kernels));
  if (!out->kernels)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory loading %s",
                      r->what);
  for (uint32_t i = 0; i < out->num_kernels; ++i) {
    nlrt_cuda_kernel *kernel = &out->kernels[i];
    if ((status = need(r, KERNEL_MIN_BYTES, "a kernel record")) != NLRT_OK)
      return status;
    uint32_t name_size = read_u32(r);
    kernel->num_params = read_u32(r);
    if (name_size == 0 || name_size > MAX_KERNEL_NAME)
      return invalid(r, "kernel %u's name has %u bytes; 1 to %d are allowed",
                     i, name_size, MAX_KERNEL_NAME);
    uint64_t padded = ((uint64_t)name_size + 7) / 8 * 8;
    if ((status = need(r, padded, "a kernel name")) != NLRT_OK)
      return status;
    const unsigned char *name = r->data + r->position;
    if (memchr(name, '\0', name_size))
      return invalid(r, "kernel %u's name holds a NUL byte", i);
    kernel->name = malloc(name_size + 1);
    if (!kernel->name)
      return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory loading %s",
                        r->what);
    memcpy(kernel->name, name, name_size);
    kernel->name[name_size] = '\0';
    r->position += padded;
  }
  return NLRT_OK;
}

/*===--- Steps -------------------------------------------------------------===*/

/* Whether bytes [offset, offset + bytes) lie inside `buffer`. */
static bool in_bounds(const nlrt_cuda_buffer *buffer, uint64_t offset,
                      uint64_t bytes) {
  return offset <= buffer->size && bytes <= buffer->size - offset;
}

/* Steps write only the program's own memory: outputs and temporaries
 * (inputs are the caller's, constants are shared by every call). */
static bool writable(const nlrt_cuda_buffer *buffer) {
  return buffer->kind == NLRT_CUDA_BUFFER_OUTPUT ||
         buffer->kind == NLRT_CUDA_BUFFER_TEMPORARY;
}

static nlrt_status check_dimensions(const reader *r, uint32_t i,
                                    const uint32_t grid[3],
                                    const uint32_t block[3]) {
  for (int d = 0; d < 3; ++d)
    if (grid[d] == 0 || block[d] == 0)
      return invalid(r, "step %u launches a grid of (%u, %u, %u) blocks of "
                        "(%u, %u, %u) threads: every dimension must be at "
                        "least 1",
                     i, grid[0], grid[1], grid[2], block[0], block[1],
                     block[2]);
  uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
  if (threads > MAX_BLOCK_THREADS || block[0] > MAX_BLOCK_THREADS ||
      block[1] > MAX_BLOCK_THREADS || block[2] > MAX_BLOCK_Z)
    return invalid(r, "step %u launches blocks of (%u, %u, %u) threads: at "
                      "most %u threads, %u in z, fit in a block",
                   i, block[0], block[1], block[2], MAX_BLOCK_THREADS,
                   MAX_BLOCK_Z);
  if (grid[0] > MAX_GRID_X || grid[1] > MAX_GRID_YZ || grid[2] > MAX_GRID_YZ)
    return invalid(r, "step %u launches a grid of (%u, %u, %u) blocks: at "
                      "most (%u, %u, %u) fit",
                   i, grid[0], grid[1], grid[2], MAX_GRID_X, MAX_GRID_YZ,
                   MAX_GRID_YZ);
  return NLRT_OK;
}

static nlrt_status parse_launch(reader *r, uint32_t i, uint32_t count,
                                nlrt_cuda_payload *out, nlrt_cuda_step *step) {
  nlrt_status status = need(r, STEP_MIN_BYTES - 8, "a launch step");
  if (status != NLRT_OK)
    return status;
  step->launch.kernel = read_u32(r);
  for (int d = 0; d < 3; ++d)
    step->launch.grid[d] = read_u32(r);
  for (int d = 0; d < 3; ++d)
    step->launch.block[d] = read_u32(r);
  step->launch.shared_bytes = read_u32(r);
  uint32_t k = step->launch.kernel;
  if (k >= out->num_kernels)
    return invalid(r, "step %u launches kernel %u of %u", i, k,
                   out->num_kernels);
  const nlrt_cuda_kernel *kernel = &out->kernels[k];
  if (count != kernel->num_params)
    return invalid(r,
                   "step %u passes %u arguments to kernel %u '%s', which "
                   "takes %u",
                   i, count, k, kernel->name, kernel->num_params);
  if ((status = check_dimensions(r, i, step->launch.grid,
                                 step->launch.block)) != NLRT_OK)
    return status;
  if ((status = need(r, (uint64_t)count * ARGUMENT_BYTES,
                     "a launch's arguments")) != NLRT_OK)
    return status;
  step->launch.arguments =
      calloc(count ? count : 1, sizeof(*step->launch.arguments));
  if (!step->launch.arguments)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory loading %s",
                      r->what);
  step->launch.num_arguments = count;
  for (uint32_t a = 0; a < count; ++a) {
    nlrt_cuda_argument *argument = &step->launch.arguments[a];
    argument->buffer = read_u32(r);
    uint32_t reserved = read_u32(r);
    argument->byte_offset = read_u64(r);
    if (argument->buffer >= out->num_buffers)
      return invalid(r, "step %u's argument %u is buffer %u of %u", i, a,
                     argument->buffer, out->num_buffers);
    if (reserved != 0)
      return invalid(r, "step %u's argument %u has reserved field %u, not 0",
                     i, a, reserved);
    const nlrt_cuda_buffer *buffer = &out->buffers[argument->buffer];
    if (argument->byte_offset > buffer->size)
      return invalid(r,
                     "step %u's argument %u is byte %llu of buffer %u (%s), "
                     "which has %llu",
                     i, a, (unsigned long long)argument->byte_offset,
                     argument->buffer, kind_name(buffer->kind),
                     (unsigned long long)buffer->size);
  }
  if (count > out->max_arguments)
    out->max_arguments = count;
  return NLRT_OK;
}

static nlrt_status parse_copy(reader *r, uint32_t i,
                              const nlrt_cuda_payload *out,
                              nlrt_cuda_step *step) {
  nlrt_status status = need(r, STEP_MIN_BYTES - 8, "a copy step");
  if (status != NLRT_OK)
    return status;
  step->copy.source = read_u32(r);
  step->copy.destination = read_u32(r);
  step->copy.source_offset = read_u64(r);
  step->copy.destination_offset = read_u64(r);
  step->copy.bytes = read_u64(r);
  uint32_t s = step->copy.source, d = step->copy.destination;
  if (s >= out->num_buffers || d >= out->num_buffers)
    return invalid(r, "step %u copies buffer %u into buffer %u of %u", i, s,
                   d, out->num_buffers);
  const nlrt_cuda_buffer *source = &out->buffers[s];
  const nlrt_cuda_buffer *destination = &out->buffers[d];
  uint64_t bytes = step->copy.bytes;
  uint64_t from = step->copy.source_offset, to = step->copy.destination_offset;
  if (!in_bounds(source, from, bytes) || !in_bounds(destination, to, bytes))
    return invalid(r,
                   "step %u copies %llu bytes from byte %llu of buffer %u "
                   "(%llu bytes) to byte %llu of buffer %u (%llu bytes): out "
                   "of range",
                   i, (unsigned long long)bytes, (unsigned long long)from, s,
                   (unsigned long long)source->size, (unsigned long long)to,
                   d, (unsigned long long)destination->size);
  if (!writable(destination))
    return invalid(r, "step %u copies into buffer %u, %s %s", i, d,
                   destination->kind == NLRT_CUDA_BUFFER_INPUT ? "an" : "a",
                   kind_name(destination->kind));
  if (s == d && bytes > 0 && from < to + bytes && to < from + bytes)
    return invalid(r, "step %u copies overlapping bytes of buffer %u", i, s);
  return NLRT_OK;
}

static nlrt_status parse_fill(reader *r, uint32_t i,
                              const nlrt_cuda_payload *out,
                              nlrt_cuda_step *step) {
  nlrt_status status = need(r, STEP_MIN_BYTES - 8, "a fill step");
  if (status != NLRT_OK)
    return status;
  step->fill.buffer = read_u32(r);
  step->fill.pattern_size = read_u32(r);
  step->fill.byte_offset = read_u64(r);
  step->fill.bytes = read_u64(r);
  step->fill.pattern = read_u64(r);
  uint32_t b = step->fill.buffer, width = step->fill.pattern_size;
  uint64_t offset = step->fill.byte_offset, bytes = step->fill.bytes;
  if (b >= out->num_buffers)
    return invalid(r, "step %u fills buffer %u of %u", i, b,
                   out->num_buffers);
  if (width != 1 && width != 2 && width != 4 && width != 8)
    return invalid(r, "step %u fills with a pattern of %u bytes, not 1, 2, "
                      "4 or 8",
                   i, width);
  if (offset % width != 0 || bytes % width != 0)
    return invalid(r,
                   "step %u fills %llu bytes at byte %llu with a %u-byte "
                   "pattern: both must be multiples of %u",
                   i, (unsigned long long)bytes, (unsigned long long)offset,
                   width, width);
  if (width < 8 && step->fill.pattern >> (8 * width) != 0)
    return invalid(r,
                   "step %u's %u-byte pattern 0x%llx has bits above its "
                   "size",
                   i, width, (unsigned long long)step->fill.pattern);
  const nlrt_cuda_buffer *buffer = &out->buffers[b];
  if (!in_bounds(buffer, offset, bytes))
    return invalid(r,
                   "step %u fills %llu bytes at byte %llu of buffer %u, which "
                   "has %llu: out of range",
                   i, (unsigned long long)bytes, (unsigned long long)offset, b,
                   (unsigned long long)buffer->size);
  if (!writable(buffer))
    return invalid(r, "step %u fills buffer %u, %s %s", i, b,
                   buffer->kind == NLRT_CUDA_BUFFER_INPUT ? "an" : "a",
                   kind_name(buffer->kind));
  return NLRT_OK;
}

static nlrt_status parse_steps(reader *r, nlrt_cuda_payload *out) {
  nlrt_status status = need(r, (uint64_t)out->num_steps * STEP_MIN_BYTES,
                            "the steps");
  if (status != NLRT_OK)
    return status;
  out->steps =
      calloc(out->num_steps ? out->num_steps : 1, sizeof(*out->steps));
  if (!out->steps)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory loading %s",
                      r->what);
  for (uint32_t i = 0; i < out->num_steps && status == NLRT_OK; ++i) {
    nlrt_cuda_step *step = &out->steps[i];
    if ((status = need(r, 8, "a step")) != NLRT_OK)
      return status;
    step->kind = read_u32(r);
    uint32_t count = read_u32(r);
    if (step->kind != NLRT_CUDA_STEP_LAUNCH && count != 0)
      return invalid(r, "step %u (kind %u) has count %u, not 0", i,
                     step->kind, count);
    switch (step->kind) {
    case NLRT_CUDA_STEP_LAUNCH:
      status = parse_launch(r, i, count, out, step);
      break;
    case NLRT_CUDA_STEP_COPY:
      status = parse_copy(r, i, out, step);
      break;
    case NLRT_CUDA_STEP_FILL:
      status = parse_fill(r, i, out, step);
      break;
    default:
      return invalid(r,
                     "step %u has kind %u, none of 0 (launch), 1 (copy), 2 "
                     "(fill)",
                     i, step->kind);
    }
  }
  return status;
}

/*===--- Module and constants ----------------------------------------------===*/

static nlrt_status parse_module_and_constants(reader *r, const header *sizes,
                                              nlrt_cuda_payload *out) {
  nlrt_status status = align(r, "the module");
  if (status == NLRT_OK)
    status = need(r, sizes->module_size, "the module");
  if (status != NLRT_OK)
    return status;
  if (sizes->module_size == 0)
    return invalid(r, "the module is empty");
  out->module = r->data + r->position;
  out->module_size = sizes->module_size;
  if (out->module_format == NLRT_CUDA_MODULE_PTX &&
      memchr(out->module, '\0', out->module_size))
    return invalid(r, "the PTX module holds a NUL byte");
  r->position += sizes->module_size;
  if ((status = align(r, "the constants")) != NLRT_OK ||
      (status = need(r, sizes->constants_size, "the constants")) != NLRT_OK)
    return status;
  out->constants = r->data + r->position;
  out->constants_size = sizes->constants_size;
  r->position += sizes->constants_size;
  if (r->position != r->size)
    return invalid(r, "%zu bytes follow the constants, which end the payload",
                   r->size - r->position);
  return NLRT_OK;
}

nlrt_status nlrt_cuda_payload_parse(const void *data, size_t size,
                                    const char *what, nlrt_cuda_payload *out) {
  memset(out, 0, sizeof(*out));
  reader r = {data, size, 0, what};
  header sizes = {0, 0, 0};
  nlrt_signature signature = {0};
  nlrt_status status = parse_header(&r, out, &sizes);
  if (status == NLRT_OK)
    status = parse_signature(&r, sizes.signature_size, out, &signature);
  if (status == NLRT_OK)
    status = align(&r, "the buffer table");
  if (status == NLRT_OK)
    status = parse_buffers(&r, out, &signature, sizes.constants_size);
  if (status == NLRT_OK)
    status = parse_kernels(&r, out);
  if (status == NLRT_OK)
    status = parse_steps(&r, out);
  if (status == NLRT_OK)
    status = parse_module_and_constants(&r, &sizes, out);
  nlrt_signature_destroy(&signature);
  if (status != NLRT_OK)
    nlrt_cuda_payload_destroy(out);
  return status;
}

void nlrt_cuda_payload_destroy(nlrt_cuda_payload *payload) {
  if (payload->kernels)
    for (uint32_t i = 0; i < payload->num_kernels; ++i)
      free(payload->kernels[i].name);
  if (payload->steps)
    for (uint32_t i = 0; i < payload->num_steps; ++i)
      if (payload->steps[i].kind == NLRT_CUDA_STEP_LAUNCH)
        free(payload->steps[i].launch.arguments);
  free(payload->kernels);
  free(payload->steps);
  free(payload->buffers);
  free(payload->signature);
  memset(payload, 0, sizeof(*payload));
}
