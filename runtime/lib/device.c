/*===- device.c - the driver registry and device reference counting -------===*/

#include "internal.h"
#include "drivers/cpu/host_allocator.h"

#include <stdio.h>
#include <string.h>

/* Every driver built into libnlrt. A new driver adds one line here and its
 * own directory under drivers/. */
static const nlrt_driver *const drivers[] = {
    &nlrt_cpu_driver,
};

#define NUM_DRIVERS (sizeof(drivers) / sizeof(drivers[0]))

static nlrt_status unknown_driver(const char *name) {
  char known[256] = "";
  for (size_t i = 0; i < NUM_DRIVERS; ++i) {
    if (i)
      strncat(known, ", ", sizeof(known) - strlen(known) - 1);
    strncat(known, drivers[i]->name, sizeof(known) - strlen(known) - 1);
  }
  return nlrt_error(NLRT_NOT_FOUND, "unknown driver '%s' (known drivers: %s)",
                    name, known);
}

void nlrt_device_init(nlrt_device *device, const nlrt_driver *driver,
                      int ordinal) {
  device->driver = driver;
  atomic_init(&device->ref_count, 1);
  device->ordinal = ordinal;
  device->num_threads = 0;
  snprintf(device->name, sizeof(device->name), "%s:%d", driver->name, ordinal);
}

void nlrt_device_retain(nlrt_device *device) {
  atomic_fetch_add_explicit(&device->ref_count, 1, memory_order_relaxed);
}

NLRT_API nlrt_status nlrt_device_open_with_options(
    const char *driver_name, int ordinal, const nlrt_device_option *options,
    size_t num_options, nlrt_device **out_device) {
  if (!driver_name || !out_device)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_device_open: driver name and out pointer must "
                      "not be NULL");
  if (ordinal < 0)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "device ordinal must be >= 0, got %d", ordinal);
  if (num_options > 0 && !options)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_device_open_with_options: %zu options at NULL",
                      num_options);
  for (size_t i = 0; i < num_options; ++i)
    if (!options[i].name)
      return nlrt_error(NLRT_INVALID_ARGUMENT,
                        "nlrt_device_open_with_options: option %zu has no "
                        "name",
                        i);
  for (size_t i = 0; i < NUM_DRIVERS; ++i)
    if (strcmp(drivers[i]->name, driver_name) == 0)
      return drivers[i]->device_open(drivers[i], ordinal, options,
                                     num_options, out_device);
  return unknown_driver(driver_name);
}

NLRT_API nlrt_status nlrt_device_open(const char *driver_name, int ordinal,
                                      nlrt_device **out_device) {
  return nlrt_device_open_with_options(driver_name, ordinal, NULL, 0,
                                       out_device);
}

NLRT_API int nlrt_device_num_threads(const nlrt_device *device) {
  return device ? device->num_threads : 0;
}

NLRT_API void nlrt_device_close(nlrt_device *device) {
  if (!device)
    return;
  /* acq_rel: the thread that frees must see every other holder's writes. */
  if (atomic_fetch_sub_explicit(&device->ref_count, 1, memory_order_acq_rel) ==
      1)
    device->driver->device_destroy(device);
}

NLRT_API const char *nlrt_device_name(const nlrt_device *device) {
  return device ? device->name : "";
}

NLRT_API const char *nlrt_device_driver(const nlrt_device *device) {
  return device ? device->driver->name : "";
}

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
