/* A driver plugin for c_api_test.c: "pool" devices keep buffers in memory of
 * their own (not host memory as far as the runtime knows) and run the cpu
 * driver's executables on it, through the runtime's services. Two more
 * drivers, "broken" and "future", are refused at registration, and
 * NLRT_TEST_PLUGIN_FAIL makes init fail. */

#include "numlir/runtime_driver.h"

#include <stdlib.h>
#include <string.h>

static const nlrt_services *services;

typedef struct pool_device {
  nlrt_device *cpu; /* where executables run */
  size_t live_buffers;
} pool_device;

static nlrt_status pool_open(int ordinal, const nlrt_device_option *options,
                             size_t num_options, void **out_state) {
  if (num_options)
    return services->error(NLRT_INVALID_ARGUMENT,
                           "the pool driver has no option '%s'",
                           options[0].name);
  if (ordinal > 1)
    return services->error(NLRT_NOT_FOUND, "pool has devices 0 and 1, not %d",
                           ordinal);
  pool_device *device = calloc(1, sizeof(*device));
  if (!device)
    return services->error(NLRT_OUT_OF_MEMORY, "out of memory");
  nlrt_status status =
      services->device_open_with_options("cpu", 0, NULL, 0, &device->cpu);
  if (status != NLRT_OK) {
    free(device);
    return status;
  }
  *out_state = device;
  return NLRT_OK;
}

static void pool_close(void *state) {
  pool_device *device = state;
  services->device_close(device->cpu);
  free(device);
}

static nlrt_status pool_load(nlrt_device *device, const void *payload,
                             size_t size, const char *entry, const char *what,
                             void **out_state, const char **out_signature) {
  (void)what;
  pool_device *pool = services->device_state(device);
  nlrt_executable *executable = NULL;
  nlrt_status status = services->executable_load_memory(
      pool->cpu, payload, size, entry, &executable);
  if (status != NLRT_OK)
    return status;
  *out_state = executable;
  *out_signature = services->executable_signature(executable);
  return NLRT_OK;
}

static void pool_release(void *state) { services->executable_release(state); }

static size_t count_buffers(const char *signature) {
  size_t count = 0;
  for (const char *c = signature; *c; ++c)
    count += *c == ']';
  return count;
}

static nlrt_status pool_execute(nlrt_executable *executable, void *state,
                                void *const *addresses) {
  (void)executable;
  const char *signature = services->executable_signature(state);
  return services->executable_execute(state, addresses,
                                      count_buffers(signature));
}

/* Each buffer is a malloc'd block with a guard word in front. */
#define GUARD 0x706f6f6cu

static nlrt_status pool_allocate(nlrt_device *device, size_t size,
                                 void **out_address) {
  unsigned *block = malloc(size + 64);
  if (!block)
    return services->error(NLRT_OUT_OF_MEMORY, "pool: no room for %zu bytes",
                           size);
  block[0] = GUARD;
  ((pool_device *)services->device_state(device))->live_buffers++;
  *out_address = (char *)block + 64;
  return NLRT_OK;
}

static unsigned *block_of(const void *address) {
  return (unsigned *)((char *)address - 64);
}

static void pool_free(nlrt_device *device, void *address) {
  unsigned *block = block_of(address);
  if (block[0] != GUARD)
    abort();
  block[0] = 0;
  ((pool_device *)services->device_state(device))->live_buffers--;
  free(block);
}

static nlrt_status pool_to_device(nlrt_device *device, void *address,
                                  const void *host, size_t size) {
  (void)device;
  memcpy(address, host, size);
  return NLRT_OK;
}

static nlrt_status pool_to_host(nlrt_device *device, void *host,
                                const void *address, size_t size) {
  (void)device;
  if (block_of(address)[0] != GUARD)
    return services->error(NLRT_INTERNAL, "pool: not a pool buffer");
  memcpy(host, address, size);
  return NLRT_OK;
}

static int synchronized;

static nlrt_status pool_synchronize(nlrt_device *device) {
  (void)device;
  ++synchronized;
  return NLRT_OK;
}

/* Written against driver interface version 1 (no collectives), which the
 * runtime still accepts. */
static const nlrt_driver pool_driver = {
    .version = 1,
    .name = "pool",
    .device_open = pool_open,
    .device_close = pool_close,
    .load = pool_load,
    .executable_release = pool_release,
    .execute = pool_execute,
    .buffer_allocate = pool_allocate,
    .buffer_free = pool_free,
    .copy_to_device = pool_to_device,
    .copy_to_host = pool_to_host,
    .synchronize = pool_synchronize,
};

/* Half the buffer functions: refused. */
static const nlrt_driver broken_driver = {
    .version = NLRT_DRIVER_INTERFACE_VERSION,
    .name = "broken",
    .device_open = pool_open,
    .device_close = pool_close,
    .load = pool_load,
    .executable_release = pool_release,
    .execute = pool_execute,
    .buffer_allocate = pool_allocate,
};

/* A version from the future: refused. */
static const nlrt_driver future_driver = {
    .version = NLRT_DRIVER_INTERFACE_VERSION + 1,
    .name = "future",
    .device_open = pool_open,
    .device_close = pool_close,
    .load = pool_load,
    .executable_release = pool_release,
    .execute = pool_execute,
};

/* For the test's checks. */
__attribute__((visibility("default"))) int pool_synchronize_count(void) {
  return synchronized;
}

__attribute__((visibility("default"))) nlrt_status
nlrt_plugin_init(const nlrt_services *runtime) {
  services = runtime;
  if (getenv("NLRT_TEST_PLUGIN_FAIL"))
    return runtime->error(NLRT_UNAVAILABLE, "pool: no pool hardware here");
  if (runtime->register_driver(&broken_driver) == NLRT_OK)
    return runtime->error(NLRT_INTERNAL, "the broken driver was accepted");
  if (runtime->register_driver(&future_driver) == NLRT_OK)
    return runtime->error(NLRT_INTERNAL, "the future driver was accepted");
  if (runtime->version != NLRT_DRIVER_INTERFACE_VERSION ||
      runtime->collective_dispatch == NULL)
    return runtime->error(NLRT_INTERNAL, "services of version %u",
                          runtime->version);
  return runtime->register_driver(&pool_driver);
}
