/*===- cuda_payload.h - the cuda executable payload, parsed and checked ---===*
 *
 * docs/cuda-executable.md is the format. Parsing needs no GPU: it checks
 * every size, index and range, so that what reaches the device can only
 * touch the buffers the program names, within their bounds.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_DRIVERS_CUDA_PAYLOAD_H
#define NLRT_DRIVERS_CUDA_PAYLOAD_H

#include "numlir/runtime.h"

#include <stdint.h>

#define NLRT_CUDA_PAYLOAD_VERSION 1

typedef enum nlrt_cuda_module_format {
  NLRT_CUDA_MODULE_PTX = 0,
  NLRT_CUDA_MODULE_CUBIN = 1,
  NLRT_CUDA_MODULE_FATBIN = 2,
} nlrt_cuda_module_format;

typedef enum nlrt_cuda_buffer_kind {
  NLRT_CUDA_BUFFER_INPUT = 0,
  NLRT_CUDA_BUFFER_OUTPUT = 1,
  NLRT_CUDA_BUFFER_TEMPORARY = 2,
  NLRT_CUDA_BUFFER_CONSTANT = 3,
} nlrt_cuda_buffer_kind;

typedef struct nlrt_cuda_buffer {
  uint32_t kind;   /* nlrt_cuda_buffer_kind */
  uint32_t index;  /* input or output position */
  uint64_t size;   /* bytes */
  uint64_t offset; /* constants: where their bytes start in the constant data */
} nlrt_cuda_buffer;

typedef struct nlrt_cuda_kernel {
  char *name; /* NUL-terminated, owned */
  uint32_t num_params;
} nlrt_cuda_kernel;

typedef struct nlrt_cuda_argument {
  uint32_t buffer;
  uint64_t byte_offset;
} nlrt_cuda_argument;

typedef enum nlrt_cuda_step_kind {
  NLRT_CUDA_STEP_LAUNCH = 0,
  NLRT_CUDA_STEP_COPY = 1,
  NLRT_CUDA_STEP_FILL = 2,
} nlrt_cuda_step_kind;

typedef struct nlrt_cuda_step {
  uint32_t kind; /* nlrt_cuda_step_kind */
  union {
    struct {
      uint32_t kernel;
      uint32_t grid[3];
      uint32_t block[3];
      uint32_t shared_bytes;
      uint32_t num_arguments;
      nlrt_cuda_argument *arguments; /* owned */
    } launch;
    struct {
      uint32_t source, destination;
      uint64_t source_offset, destination_offset, bytes;
    } copy;
    struct {
      uint32_t buffer, pattern_size;
      uint64_t byte_offset, bytes, pattern;
    } fill;
  };
} nlrt_cuda_step;

typedef struct nlrt_cuda_payload {
  uint32_t module_format; /* nlrt_cuda_module_format */
  uint32_t num_inputs, num_outputs;
  uint32_t num_buffers, num_kernels, num_steps;
  /* The most arguments of any launch. */
  uint32_t max_arguments;
  char *signature; /* NUL-terminated, owned */
  nlrt_cuda_buffer *buffers;
  nlrt_cuda_kernel *kernels;
  nlrt_cuda_step *steps;
  /* Point into the parsed bytes: valid only as long as they are. */
  const unsigned char *module;
  uint64_t module_size;
  const unsigned char *constants;
  uint64_t constants_size;
} nlrt_cuda_payload;

/* Parses and checks the `size` bytes at `data` into *out; `what` names them
 * in messages ("the payload of executable image (1234 bytes)").
 *   NLRT_INVALID_EXECUTABLE  anything that breaks the format (the message
 *                            says what and where); *out is left empty.
 *   NLRT_OUT_OF_MEMORY */
nlrt_status nlrt_cuda_payload_parse(const void *data, size_t size,
                                    const char *what, nlrt_cuda_payload *out);

/* Frees what parse allocated; an empty payload is fine. */
void nlrt_cuda_payload_destroy(nlrt_cuda_payload *payload);

#endif /* NLRT_DRIVERS_CUDA_PAYLOAD_H */
