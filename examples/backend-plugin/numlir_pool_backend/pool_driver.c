/* The "pool" runtime driver: devices whose buffers come from a fixed-size
 * memory pool of their own, running the cpu driver's executables on that
 * memory through the runtime's services. A plugin: it links nothing of
 * numlir's and registers itself from nlrt_plugin_init. */

#include "numlir/runtime_driver.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const nlrt_services *services;

/* Every buffer starts GUARD_BYTES after a header with a guard word and its
 * size, so that the driver can check what it is handed. */
#define GUARD 0x706f6f6c706f6f6cull
#define GUARD_BYTES 64

typedef struct pool_device {
  nlrt_device *cpu; /* where the executables run */
  size_t capacity;
  size_t used;
  pthread_mutex_t lock;
} pool_device;

typedef struct block_header {
  unsigned long long guard;
  size_t size;
} block_header;

static nlrt_status pool_open(int ordinal, const nlrt_device_option *options,
                             size_t num_options, void **out_state) {
  size_t capacity = 256u << 20;
  nlrt_device_option cpu_options[1];
  size_t num_cpu_options = 0;
  for (size_t i = 0; i < num_options; ++i) {
    if (strcmp(options[i].name, "pool_bytes") == 0 && options[i].value >= 0) {
      capacity = (size_t)options[i].value;
    } else if (strcmp(options[i].name, "num_threads") == 0) {
      cpu_options[num_cpu_options++] = options[i];
    } else {
      return services->error(NLRT_INVALID_ARGUMENT,
                             "the pool driver has no device option '%s' with "
                             "value %lld (it reads: pool_bytes >= 0, "
                             "num_threads)",
                             options[i].name, (long long)options[i].value);
    }
  }
  pool_device *device = calloc(1, sizeof(*device));
  if (!device)
    return services->error(NLRT_OUT_OF_MEMORY, "out of memory");
  nlrt_status status = services->device_open_with_options(
      "cpu", ordinal, cpu_options, num_cpu_options, &device->cpu);
  if (status != NLRT_OK) {
    free(device);
    return status;
  }
  device->capacity = capacity;
  pthread_mutex_init(&device->lock, NULL);
  *out_state = device;
  return NLRT_OK;
}

static void pool_close(void *state) {
  pool_device *device = state;
  services->device_close(device->cpu);
  pthread_mutex_destroy(&device->lock);
  free(device);
}

static nlrt_status pool_load(nlrt_device *device, const void *payload,
                             size_t size, const char *entry, const char *what,
                             void **out_state, const char **out_signature) {
  (void)what;
  pool_device *pool = services->device_state(device);
  nlrt_executable *executable = NULL;
  /* The payload is the cpu driver's shared object. */
  nlrt_status status = services->executable_load_memory(
      pool->cpu, payload, size, entry, &executable);
  if (status != NLRT_OK)
    return status;
  *out_state = executable;
  *out_signature = services->executable_signature(executable);
  return NLRT_OK;
}

static void pool_release(void *state) { services->executable_release(state); }

/* Inputs and outputs: one per ']' of the signature ("f32[4];f32[]->f32[4]"). */
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

static block_header *header_of(const void *address) {
  return (block_header *)((char *)address - GUARD_BYTES);
}

static nlrt_status pool_allocate(nlrt_device *device, size_t size,
                                 void **out_address) {
  pool_device *pool = services->device_state(device);
  pthread_mutex_lock(&pool->lock);
  int fits = size <= pool->capacity - pool->used;
  if (fits)
    pool->used += size;
  size_t used = pool->used, capacity = pool->capacity;
  pthread_mutex_unlock(&pool->lock);
  if (!fits)
    return services->error(NLRT_OUT_OF_MEMORY,
                           "pool device %d is full: %zu of %zu bytes in use, "
                           "%zu more asked",
                           services->device_ordinal(device), used, capacity,
                           size);
  char *block = services->host_allocate(size + GUARD_BYTES);
  if (!block) {
    pthread_mutex_lock(&pool->lock);
    pool->used -= size;
    pthread_mutex_unlock(&pool->lock);
    return services->error(NLRT_OUT_OF_MEMORY, "pool: no host memory for %zu "
                           "bytes", size);
  }
  block_header *header = (block_header *)block;
  header->guard = GUARD;
  header->size = size;
  *out_address = block + GUARD_BYTES;
  return NLRT_OK;
}

static void pool_free(nlrt_device *device, void *address) {
  pool_device *pool = services->device_state(device);
  block_header *header = header_of(address);
  if (header->guard != GUARD)
    abort(); /* not a pool buffer: the runtime never does this */
  header->guard = 0;
  pthread_mutex_lock(&pool->lock);
  pool->used -= header->size;
  pthread_mutex_unlock(&pool->lock);
  services->host_free(header);
}

static nlrt_status check_block(const void *address, size_t size) {
  const block_header *header = header_of(address);
  if (header->guard != GUARD || header->size != size)
    return services->error(NLRT_INTERNAL, "pool: a damaged buffer");
  return NLRT_OK;
}

static nlrt_status pool_to_device(nlrt_device *device, void *address,
                                  const void *host, size_t size) {
  (void)device;
  nlrt_status status = check_block(address, size);
  if (status == NLRT_OK)
    memcpy(address, host, size);
  return status;
}

static nlrt_status pool_to_host(nlrt_device *device, void *host,
                                const void *address, size_t size) {
  (void)device;
  nlrt_status status = check_block(address, size);
  if (status == NLRT_OK)
    memcpy(host, address, size);
  return status;
}

static const nlrt_driver pool_driver = {
    .version = NLRT_DRIVER_INTERFACE_VERSION,
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
};

__attribute__((visibility("default"))) nlrt_status
nlrt_plugin_init(const nlrt_services *runtime) {
  /* A newer runtime only appends to nlrt_services and still accepts drivers
   * of older interface versions, so only an older runtime is refused. */
  if (runtime->version < NLRT_DRIVER_INTERFACE_VERSION)
    return runtime->error(NLRT_UNAVAILABLE,
                          "the pool driver was built for driver interface "
                          "version %d, the runtime has %u",
                          NLRT_DRIVER_INTERFACE_VERSION, runtime->version);
  services = runtime;
  return runtime->register_driver(&pool_driver);
}
