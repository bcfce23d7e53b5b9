/*===- cuda_driver.c - the "cuda" driver: NVIDIA GPUs through libcuda -----===*
 *
 * Built into libnlrt and registered with the cpu driver, not a plugin: it
 * links nothing of CUDA's (libcuda.so.1 is opened when the first cuda
 * device opens, cuda_api.c), so it costs nothing where there is no GPU,
 * and it reads the payload with the runtime's own signature parser, which
 * a plugin could not reach. Without libcuda, or without a device, opening
 * a cuda device fails with NLRT_UNAVAILABLE and the loader's message;
 * everything else in the runtime is unaffected.
 *
 * The payload is docs/cuda-executable.md's: a GPU module and a launch
 * program (cuda_payload.c reads it, cuda_program.c runs it). Buffers are
 * device memory (cuMemAlloc); their addresses are CUdeviceptr values. The
 * payload holds one program, so the entry name is not read.
 *
 *===----------------------------------------------------------------------===*/

#include "cuda_device.h"
#include "cuda_program.h"

#include "../../internal.h"

#include <stdint.h>
#include <string.h>

static nlrt_status cuda_device_open(int ordinal,
                                    const nlrt_device_option *options,
                                    size_t num_options, void **out_state) {
  /* The runtime records num_threads for every driver, and numlir's Python
   * side passes it only where it is not 0: a cuda device has no thread
   * team, so it reads no option, num_threads included. */
  if (num_options > 0)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "the cuda driver has no device option '%s' (it reads "
                      "none)",
                      options[0].name);
  nlrt_cuda_device *device = NULL;
  nlrt_status status = nlrt_cuda_device_open(ordinal, &device);
  if (status == NLRT_OK)
    *out_state = device;
  return status;
}

static void cuda_device_close(void *state) { nlrt_cuda_device_close(state); }

static nlrt_status cuda_load(nlrt_device *device, const void *payload,
                             size_t size, const char *entry, const char *what,
                             void **out_state, const char **out_signature) {
  (void)entry;
  nlrt_cuda_program *program = NULL;
  nlrt_status status =
      nlrt_cuda_program_load(device->state, payload, size, what, &program);
  if (status != NLRT_OK)
    return status;
  *out_state = program;
  *out_signature = nlrt_cuda_program_signature(program);
  return NLRT_OK;
}

static void cuda_executable_release(void *state) {
  nlrt_cuda_program_release(state);
}

static nlrt_status cuda_execute(nlrt_executable *executable, void *state,
                                void *const *addresses) {
  (void)executable;
  return nlrt_cuda_program_run(state, addresses);
}

/* A buffer's address is its CUdeviceptr. */
static CUdeviceptr device_pointer(const void *address) {
  return (CUdeviceptr)(uintptr_t)address;
}

static nlrt_status cuda_buffer_allocate(nlrt_device *device, size_t size,
                                        void **out_address) {
  CUdeviceptr address = 0;
  nlrt_status status =
      nlrt_cuda_device_allocate(device->state, size, "a buffer", &address);
  if (status == NLRT_OK)
    *out_address = (void *)(uintptr_t)address;
  return status;
}

static void cuda_buffer_free(nlrt_device *device, void *address) {
  nlrt_cuda_device_free(device->state, device_pointer(address));
}

static nlrt_status cuda_copy_to_device(nlrt_device *device, void *address,
                                       const void *host, size_t size) {
  return nlrt_cuda_device_copy_to_device(device->state,
                                         device_pointer(address), host, size);
}

static nlrt_status cuda_copy_to_host(nlrt_device *device, void *host,
                                     const void *address, size_t size) {
  return nlrt_cuda_device_copy_to_host(device->state, host,
                                       device_pointer(address), size);
}

static nlrt_status cuda_synchronize(nlrt_device *device) {
  return nlrt_cuda_device_synchronize(device->state);
}

const nlrt_driver nlrt_cuda_driver = {
    .version = NLRT_DRIVER_INTERFACE_VERSION,
    .name = "cuda",
    .device_open = cuda_device_open,
    .device_close = cuda_device_close,
    .load = cuda_load,
    .executable_release = cuda_executable_release,
    .execute = cuda_execute,
    .buffer_allocate = cuda_buffer_allocate,
    .buffer_free = cuda_buffer_free,
    .copy_to_device = cuda_copy_to_device,
    .copy_to_host = cuda_copy_to_host,
    .synchronize = cuda_synchronize,
};
