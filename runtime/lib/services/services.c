/*===- services.c - what the runtime offers drivers, and host memory ------===*
 *
 * The nlrt_services table a driver plugin's nlrt_plugin_init receives
 * (runtime_driver.h), and the public host-memory functions of runtime.h,
 * both over the host allocator (host_allocator.c) that drivers running
 * host code share.
 *
 *===----------------------------------------------------------------------===*/

#include "collectives.h"
#include "host_allocator.h"

uint64_t nlrt_release_cached_memory(void) {
  return nlrt_host_release_cached_memory();
}

uint64_t nlrt_cached_memory_bytes(void) { return nlrt_host_cached_bytes(); }

nlrt_status nlrt_host_buffer_allocate(size_t size, void **out_buffer) {
  if (!out_buffer)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_host_buffer_allocate: out_buffer is NULL");
  /* Outside an executable's call the allocator reports failure as NULL. */
  void *buffer = nlrt_host_aligned_alloc(64, size);
  if (!buffer) {
    char amount[32];
    nlrt_format_bytes(size, amount, sizeof amount);
    return nlrt_error(NLRT_OUT_OF_MEMORY,
                      "cannot allocate a host buffer of %zu bytes (%s)", size,
                      amount);
  }
  *out_buffer = buffer;
  return NLRT_OK;
}

void nlrt_host_buffer_free(void *buffer) { nlrt_host_free(buffer); }

static void *device_state(const nlrt_device *device) { return device->state; }
static int device_ordinal(const nlrt_device *device) { return device->ordinal; }
static void *executable_state(const nlrt_executable *executable) {
  return executable->state;
}
static void *host_allocate(size_t size) {
  return nlrt_host_aligned_alloc(64, size);
}

const nlrt_services nlrt_runtime_services = {
    .version = NLRT_DRIVER_INTERFACE_VERSION,
    .register_driver = nlrt_register_driver,
    .error = nlrt_error,
    .device_state = device_state,
    .device_ordinal = device_ordinal,
    .executable_state = executable_state,
    .host_allocate = host_allocate,
    .host_free = nlrt_host_free,
    .device_open_with_options = nlrt_device_open_with_options,
    .device_close = nlrt_device_close,
    .executable_load_memory = nlrt_executable_load_memory,
    .executable_release = nlrt_executable_release,
    .executable_signature = nlrt_executable_signature,
    .executable_execute = nlrt_executable_execute,
    .collective_dispatch = nlrt_collective_dispatch,
};
