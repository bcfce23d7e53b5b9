/*===- cuda_program.c - loading a cuda payload on a device, running it ----===*/

#include "cuda_program.h"

#include "../../internal.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nlrt_cuda_program {
  nlrt_cuda_device *device; /* borrowed */
  /* Its module and constants pointers are cleared after load: they point
   * into the caller's bytes. */
  nlrt_cuda_payload payload;
  CUmodule module;
  bool module_loaded;
  CUfunction *functions; /* one per kernel */
  /* Per buffer of the table: the program's own memory (constants from
   * load, temporaries from the first run), 0 for the caller's buffers. */
  CUdeviceptr *memory;
  bool temporaries_allocated;
  /* Scratch of a run, under `lock`: each buffer's address, and one launch's
   * argument values and the pointers to them that cuLaunchKernel reads. */
  CUdeviceptr *addresses;
  CUdeviceptr *argument_values;
  void **argument_pointers;
  pthread_mutex_t lock;
};

static const char *format_name(uint32_t format) {
  return format == NLRT_CUDA_MODULE_PTX     ? "PTX"
         : format == NLRT_CUDA_MODULE_CUBIN ? "cubin"
                                            : "fatbin";
}

/* Loads the module through the CUDA driver (which JIT-compiles PTX for the
 * device), with its error log in the message on failure. */
static nlrt_status load_module(nlrt_cuda_program *program, const char *what) {
  const nlrt_cuda_api *api = program->device->api;
  const nlrt_cuda_payload *payload = &program->payload;
  /* PTX is text the driver reads up to a NUL, which the payload does not
   * hold; cubins and fatbins are copied too, to give them malloc's
   * alignment. The driver copies the image, so the copy goes right after. */
  char *image = malloc(payload->module_size + 1);
  if (!image)
    return nlrt_error(NLRT_OUT_OF_MEMORY,
                      "out of memory copying the %llu-byte module of %s",
                      (unsigned long long)payload->module_size, what);
  memcpy(image, payload->module, payload->module_size);
  image[payload->module_size] = '\0';
  char log[4096] = "";
  CUjit_option options[2] = {CU_JIT_ERROR_LOG_BUFFER,
                             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[2] = {log, (void *)(uintptr_t)sizeof(log)};
  CUresult result =
      api->cuModuleLoadDataEx(&program->module, image, 2, options, values);
  free(image);
  nlrt_status status = nlrt_cuda_check(
      api, result, NLRT_LOAD_FAILED,
      "cuModuleLoadDataEx of the %s module (%llu bytes) of %s on cuda:%d",
      format_name(payload->module_format),
      (unsigned long long)payload->module_size, what,
      program->device->ordinal);
  if (status != NLRT_OK) {
    log[sizeof(log) - 1] = '\0';
    if (log[0]) {
      char message[2048];
      snprintf(message, sizeof(message), "%s", nlrt_last_error());
      nlrt_error(status, "%s; the JIT's error log: %s", message, log);
    }
    return status;
  }
  program->module_loaded = true;
  return NLRT_OK;
}

/* Where the CUDA driver can say (cuFuncGetParamInfo, CUDA 12.4 on), checks
 * that kernel `k` takes exactly the payload's count of 8-byte parameters:
 * cuLaunchKernel reads as many parameters as the kernel has. */
static nlrt_status check_parameters(const nlrt_cuda_program *program,
                                    uint32_t k, const char *what) {
  const nlrt_cuda_api *api = program->device->api;
  if (!api->cuFuncGetParamInfo)
    return NLRT_OK;
  const nlrt_cuda_kernel *kernel = &program->payload.kernels[k];
  CUfunction function = program->functions[k];
  for (size_t i = 0; i <= kernel->num_params; ++i) {
    size_t offset = 0, size = 0;
    CUresult result = api->cuFuncGetParamInfo(function, i, &offset, &size);
    bool expected = i < kernel->num_params;
    if (expected && result == CUDA_ERROR_INVALID_VALUE)
      return nlrt_error(NLRT_INVALID_EXECUTABLE,
                        "%s: kernel %u '%s' takes %zu parameters in the "
                        "module, the payload says %u",
                        what, k, kernel->name, i, kernel->num_params);
    if (!expected && result == CUDA_SUCCESS)
      return nlrt_error(NLRT_INVALID_EXECUTABLE,
                        "%s: kernel %u '%s' takes more than the %u "
                        "parameters the payload says",
                        what, k, kernel->name, kernel->num_params);
    if (expected) {
      nlrt_status status =
          nlrt_cuda_check(api, result, NLRT_INTERNAL,
                          "cuFuncGetParamInfo (kernel '%s', parameter %zu)",
                          kernel->name, i);
      if (status != NLRT_OK)
        return status;
      if (size != sizeof(CUdeviceptr))
        return nlrt_error(NLRT_INVALID_EXECUTABLE,
                          "%s: parameter %zu of kernel %u '%s' has %zu "
                          "bytes; the payload passes device pointers (8)",
                          what, i, k, kernel->name, size);
    }
  }
  return NLRT_OK;
}

static nlrt_status find_functions(nlrt_cuda_program *program,
                                  const char *what) {
  const nlrt_cuda_api *api = program->device->api;
  for (uint32_t k = 0; k < program->payload.num_kernels; ++k) {
    const char *name = program->payload.kernels[k].name;
    nlrt_status status = nlrt_cuda_check(
        api, api->cuModuleGetFunction(&program->functions[k], program->module,
                                      name),
        NLRT_INVALID_EXECUTABLE,
        "cuModuleGetFunction: kernel %u '%s' of %s is not in its module", k,
        name, what);
    if (status == NLRT_OK)
      status = check_parameters(program, k, what);
    if (status != NLRT_OK)
      return status;
  }
  return NLRT_OK;
}

/* Copies each constant buffer into device memory of its own. */
static nlrt_status upload_constants(nlrt_cuda_program *program,
                                    const char *what) {
  const nlrt_cuda_payload *payload = &program->payload;
  for (uint32_t i = 0; i < payload->num_buffers; ++i) {
    const nlrt_cuda_buffer *buffer = &payload->buffers[i];
    if (buffer->kind != NLRT_CUDA_BUFFER_CONSTANT)
      continue;
    char purpose[600];
    snprintf(purpose, sizeof(purpose), "constant buffer %u of %s", i, what);
    nlrt_status status = nlrt_cuda_device_allocate(
        program->device, buffer->size, purpose, &program->memory[i]);
    if (status == NLRT_OK && buffer->size > 0)
      status = nlrt_cuda_device_copy_to_device(
          program->device, program->memory[i],
          payload->constants + buffer->offset, buffer->size);
    if (status != NLRT_OK)
      return status;
  }
  return NLRT_OK;
}

static nlrt_status allocate_scratch(nlrt_cuda_program *program) {
  const nlrt_cuda_payload *payload = &program->payload;
  size_t buffers = payload->num_buffers ? payload->num_buffers : 1;
  size_t arguments = payload->max_arguments ? payload->max_arguments : 1;
  program->functions = calloc(
      payload->num_kernels ? payload->num_kernels : 1, sizeof(CUfunction));
  program->memory = calloc(buffers, sizeof(CUdeviceptr));
  program->addresses = calloc(buffers, sizeof(CUdeviceptr));
  program->argument_values = calloc(arguments, sizeof(CUdeviceptr));
  program->argument_pointers = calloc(arguments, sizeof(void *));
  if (!program->functions || !program->memory || !program->addresses ||
      !program->argument_values || !program->argument_pointers)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory loading a cuda "
                                          "executable");
  return NLRT_OK;
}

nlrt_status nlrt_cuda_program_load(nlrt_cuda_device *device,
                                   const void *payload, size_t size,
                                   const char *what,
                                   nlrt_cuda_program **out) {
  nlrt_cuda_program *program = calloc(1, sizeof(*program));
  if (!program)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory loading %s", what);
  program->device = device;
  pthread_mutex_init(&program->lock, NULL);
  nlrt_status status =
      nlrt_cuda_payload_parse(payload, size, what, &program->payload);
  if (status == NLRT_OK)
    status = allocate_scratch(program);
  if (status == NLRT_OK)
    status = nlrt_cuda_device_enter(device);
  if (status == NLRT_OK)
    status = load_module(program, what);
  if (status == NLRT_OK)
    status = find_functions(program, what);
  if (status == NLRT_OK)
    status = upload_constants(program, what);
  program->payload.module = NULL;
  program->payload.constants = NULL;
  if (status != NLRT_OK) {
    nlrt_cuda_program_release(program);
    return status;
  }
  *out = program;
  return NLRT_OK;
}

const char *nlrt_cuda_program_signature(const nlrt_cuda_program *program) {
  return program->payload.signature;
}

/* Frees the program's own memory: constants and temporaries. */
static void free_memory(nlrt_cuda_program *program) {
  if (!program->memory)
    return;
  for (uint32_t i = 0; i < program->payload.num_buffers; ++i)
    if (program->memory[i]) {
      nlrt_cuda_device_free(program->device, program->memory[i]);
      program->memory[i] = 0;
    }
}

void nlrt_cuda_program_release(nlrt_cuda_program *program) {
  free_memory(program);
  if (program->module_loaded &&
      nlrt_cuda_device_enter(program->device) == NLRT_OK)
    program->device->api->cuModuleUnload(program->module);
  nlrt_cuda_payload_destroy(&program->payload);
  free(program->functions);
  free(program->memory);
  free(program->addresses);
  free(program->argument_values);
  free(program->argument_pointers);
  pthread_mutex_destroy(&program->lock);
  free(program);
}

/* Allocates the temporaries, once for all runs; on failure frees what it
 * allocated. */
static nlrt_status allocate_temporaries(nlrt_cuda_program *program) {
  const nlrt_cuda_payload *payload = &program->payload;
  for (uint32_t i = 0; i < payload->num_buffers; ++i) {
    const nlrt_cuda_buffer *buffer = &payload->buffers[i];
    if (buffer->kind != NLRT_CUDA_BUFFER_TEMPORARY)
      continue;
    char purpose[400];
    snprintf(purpose, sizeof(purpose),
             "temporary buffer %u of the cuda executable (%.256s)", i,
             payload->signature);
    nlrt_status status = nlrt_cuda_device_allocate(
        program->device, buffer->size, purpose, &program->memory[i]);
    if (status != NLRT_OK) {
      for (uint32_t j = 0; j < i; ++j)
        if (payload->buffers[j].kind == NLRT_CUDA_BUFFER_TEMPORARY &&
            program->memory[j]) {
          nlrt_cuda_device_free(program->device, program->memory[j]);
          program->memory[j] = 0;
        }
      return status;
    }
  }
  program->temporaries_allocated = true;
  return NLRT_OK;
}

/* Each buffer's device address for this run. */
static void resolve_addresses(nlrt_cuda_program *program,
                              void *const *addresses) {
  const nlrt_cuda_payload *payload = &program->payload;
  for (uint32_t i = 0; i < payload->num_buffers; ++i) {
    const nlrt_cuda_buffer *buffer = &payload->buffers[i];
    switch (buffer->kind) {
    case NLRT_CUDA_BUFFER_INPUT:
      program->addresses[i] = (CUdeviceptr)(uintptr_t)addresses[buffer->index];
      break;
    case NLRT_CUDA_BUFFER_OUTPUT:
      program->addresses[i] = (CUdeviceptr)(uintptr_t)
          addresses[payload->num_inputs + buffer->index];
      break;
    default:
      program->addresses[i] = program->memory[i];
    }
  }
}

static nlrt_status launch(nlrt_cuda_program *program, uint32_t index,
                          const nlrt_cuda_step *step) {
  const nlrt_cuda_api *api = program->device->api;
  uint32_t k = step->launch.kernel;
  /* The bare-pointer convention: parameter a is the address of argument
   * a's buffer plus its offset; cuLaunchKernel reads each through a
   * pointer to it, and copies them before it returns. */
  for (uint32_t a = 0; a < step->launch.num_arguments; ++a) {
    const nlrt_cuda_argument *argument = &step->launch.arguments[a];
    program->argument_values[a] =
        program->addresses[argument->buffer] + argument->byte_offset;
    program->argument_pointers[a] = &program->argument_values[a];
  }
  const uint32_t *grid = step->launch.grid, *block = step->launch.block;
  return nlrt_cuda_check(
      api,
      api->cuLaunchKernel(program->functions[k], grid[0], grid[1], grid[2],
                          block[0], block[1], block[2],
                          step->launch.shared_bytes, program->device->stream,
                          program->argument_pointers, NULL),
      NLRT_INTERNAL, "cuLaunchKernel of kernel '%s' (step %u of %.256s)",
      program->payload.kernels[k].name, index, program->payload.signature);
}

static nlrt_status copy(nlrt_cuda_program *program, uint32_t index,
                        const nlrt_cuda_step *step) {
  if (step->copy.bytes == 0)
    return NLRT_OK;
  const nlrt_cuda_api *api = program->device->api;
  CUdeviceptr source =
      program->addresses[step->copy.source] + step->copy.source_offset;
  CUdeviceptr destination = program->addresses[step->copy.destination] +
                            step->copy.destination_offset;
  return nlrt_cuda_check(
      api,
      api->cuMemcpyDtoDAsync_v2(destination, source, step->copy.bytes,
                                program->device->stream),
      NLRT_INTERNAL, "cuMemcpyDtoDAsync_v2 of %llu bytes (step %u of %.256s)",
      (unsigned long long)step->copy.bytes, index, program->payload.signature);
}

/* Queues the memsets of a fill; an 8-byte pattern is two strided 32-bit
 * memsets (its low and high words), or one where they are equal. */
static CUresult queue_fill(const nlrt_cuda_api *api, CUstream stream,
                           CUdeviceptr at, uint32_t width, uint64_t bytes,
                           uint64_t pattern) {
  switch (width) {
  case 1:
    return api->cuMemsetD8Async(at, (unsigned char)pattern, bytes, stream);
  case 2:
    return api->cuMemsetD16Async(at, (unsigned short)pattern, bytes / 2,
                                 stream);
  case 4:
    return api->cuMemsetD32Async(at, (unsigned int)pattern, bytes / 4, stream);
  }
  unsigned int low = (unsigned int)pattern, high = (unsigned int)(pattern >> 32);
  if (low == high)
    return api->cuMemsetD32Async(at, low, bytes / 4, stream);
  CUresult result = api->cuMemsetD2D32Async(at, 8, low, 1, bytes / 8, stream);
  if (result == CUDA_SUCCESS)
    result = api->cuMemsetD2D32Async(at + 4, 8, high, 1, bytes / 8, stream);
  return result;
}

static nlrt_status fill(nlrt_cuda_program *program, uint32_t index,
                        const nlrt_cuda_step *step) {
  if (step->fill.bytes == 0)
    return NLRT_OK;
  const nlrt_cuda_api *api = program->device->api;
  CUdeviceptr at = program->addresses[step->fill.buffer] + step->fill.byte_offset;
  return nlrt_cuda_check(
      api,
      queue_fill(api, program->device->stream, at, step->fill.pattern_size,
                 step->fill.bytes, step->fill.pattern),
      NLRT_INTERNAL, "a %u-byte cuMemset of %llu bytes (step %u of %.256s)",
      step->fill.pattern_size, (unsigned long long)step->fill.bytes, index,
      program->payload.signature);
}

static nlrt_status run_steps(nlrt_cuda_program *program) {
  nlrt_status status = NLRT_OK;
  for (uint32_t i = 0; i < program->payload.num_steps && status == NLRT_OK;
       ++i) {
    const nlrt_cuda_step *step = &program->payload.steps[i];
    switch (step->kind) {
    case NLRT_CUDA_STEP_LAUNCH:
      status = launch(program, i, step);
      break;
    case NLRT_CUDA_STEP_COPY:
      status = copy(program, i, step);
      break;
    default:
      status = fill(program, i, step);
    }
  }
  /* Wait in any case: steps queued before a failure still use the buffers.
   * A failed step keeps its message. */
  const nlrt_cuda_device *device = program->device;
  if (status != NLRT_OK) {
    device->api->cuStreamSynchronize(device->stream);
    return status;
  }
  return nlrt_cuda_device_synchronize(device);
}

nlrt_status nlrt_cuda_program_run(nlrt_cuda_program *program,
                                  void *const *addresses) {
  pthread_mutex_lock(&program->lock);
  nlrt_status status = nlrt_cuda_device_enter(program->device);
  if (status == NLRT_OK && !program->temporaries_allocated)
    status = allocate_temporaries(program);
  if (status == NLRT_OK) {
    resolve_addresses(program, addresses);
    status = run_steps(program);
  }
  pthread_mutex_unlock(&program->lock);
  return status;
}
