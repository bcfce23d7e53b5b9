/*===- device.c - the driver registry, plugins and devices ----------------===*
 *
 * Drivers live in one table, filled at run time: the built-in cpu and cuda
 * drivers first (on first use), then whatever plugins register (nlrt_driver_load).
 * Devices are reference-counted handles around a driver's state. What the
 * runtime offers drivers is in services/.
 *
 *===----------------------------------------------------------------------===*/

#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLRT_MAX_DRIVERS 32
#define NLRT_MAX_PLUGINS 32

/* Drivers are only ever added, never removed, so a pointer read under the
 * lock stays valid after it is released. */
static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static const nlrt_driver *drivers[NLRT_MAX_DRIVERS];
static size_t num_drivers;
/* Plugins loaded, by the path they were loaded from. */
static char *plugin_paths[NLRT_MAX_PLUGINS];
static size_t num_plugins;

static nlrt_status check_driver(const nlrt_driver *driver) {
  if (!driver)
    return nlrt_error(NLRT_INVALID_ARGUMENT, "registering a NULL driver");
  /* Version 1 lacks the fields version 2 appended (collectives): the
   * runtime reads them only from a version-2 struct. */
  if (driver->version != 1 && driver->version != NLRT_DRIVER_INTERFACE_VERSION)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "driver '%s' implements driver interface version %u; "
                      "this runtime implements versions 1 and %d",
                      driver->name ? driver->name : "?", driver->version,
                      NLRT_DRIVER_INTERFACE_VERSION);
  size_t length = driver->name ? strlen(driver->name) : 0;
  if (length == 0 || length > NLRT_IMAGE_MAX_DRIVER_LENGTH)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "a driver name must have 1 to %d bytes, got %zu",
                      NLRT_IMAGE_MAX_DRIVER_LENGTH, length);
  if (!driver->device_open || !driver->device_close || !driver->load ||
      !driver->executable_release || !driver->execute)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "driver '%s' lacks a required function (device_open, "
                      "device_close, load, executable_release, execute)",
                      driver->name);
  int buffer_functions = !!driver->buffer_allocate + !!driver->buffer_free +
                         !!driver->copy_to_device + !!driver->copy_to_host;
  if (buffer_functions != 0 && buffer_functions != 4)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "driver '%s' must give all four buffer functions "
                      "(buffer_allocate, buffer_free, copy_to_device, "
                      "copy_to_host) or none",
                      driver->name);
  return NLRT_OK;
}

/* Adds `driver`; the caller holds registry_mutex. */
static nlrt_status add_driver(const nlrt_driver *driver) {
  nlrt_status status = check_driver(driver);
  if (status != NLRT_OK)
    return status;
  for (size_t i = 0; i < num_drivers; ++i)
    if (strcmp(drivers[i]->name, driver->name) == 0)
      return nlrt_error(NLRT_INVALID_ARGUMENT,
                        "a driver called '%s' is registered already",
                        driver->name);
  if (num_drivers == NLRT_MAX_DRIVERS)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "cannot register driver '%s': the runtime holds at "
                      "most %d drivers",
                      driver->name, NLRT_MAX_DRIVERS);
  drivers[num_drivers++] = driver;
  return NLRT_OK;
}

/* The cuda driver registers wherever the runtime runs: it opens libcuda
 * only when a cuda device is opened (drivers/cuda/cuda_driver.c). */
static void register_builtin_drivers(void) {
  (void)add_driver(&nlrt_cpu_driver);
  (void)add_driver(&nlrt_cuda_driver);
}

static void lock_registry(void) {
  static pthread_once_t builtins = PTHREAD_ONCE_INIT;
  pthread_once(&builtins, register_builtin_drivers);
  pthread_mutex_lock(&registry_mutex);
}

nlrt_status nlrt_register_driver(const nlrt_driver *driver) {
  lock_registry();
  nlrt_status status = add_driver(driver);
  pthread_mutex_unlock(&registry_mutex);
  return status;
}

const nlrt_driver *nlrt_find_driver(const char *name) {
  const nlrt_driver *found = NULL;
  lock_registry();
  for (size_t i = 0; i < num_drivers && !found; ++i)
    if (strcmp(drivers[i]->name, name) == 0)
      found = drivers[i];
  pthread_mutex_unlock(&registry_mutex);
  return found;
}

NLRT_API size_t nlrt_driver_count(void) {
  lock_registry();
  size_t count = num_drivers;
  pthread_mutex_unlock(&registry_mutex);
  return count;
}

NLRT_API const char *nlrt_driver_name(size_t index) {
  lock_registry();
  const char *name = index < num_drivers ? drivers[index]->name : NULL;
  pthread_mutex_unlock(&registry_mutex);
  return name;
}

static nlrt_status unknown_driver(const char *name) {
  char known[256] = "";
  lock_registry();
  for (size_t i = 0; i < num_drivers; ++i) {
    if (i)
      strncat(known, ", ", sizeof(known) - strlen(known) - 1);
    strncat(known, drivers[i]->name, sizeof(known) - strlen(known) - 1);
  }
  pthread_mutex_unlock(&registry_mutex);
  return nlrt_error(NLRT_NOT_FOUND, "unknown driver '%s' (known drivers: %s)",
                    name, known);
}

/*===--- Plugins -----------------------------------------------------------===*/

static bool plugin_loaded(const char *path) {
  for (size_t i = 0; i < num_plugins; ++i)
    if (strcmp(plugin_paths[i], path) == 0)
      return true;
  return false;
}

NLRT_API nlrt_status nlrt_driver_load(const char *path) {
  if (!path)
    return nlrt_error(NLRT_INVALID_ARGUMENT, "nlrt_driver_load: path is NULL");
  /* One plugin loads at a time: its init registers under the lock's
   * protection of plugin_paths, and registry_mutex is taken per driver. */
  static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&load_mutex);
  nlrt_status status = NLRT_OK;
  if (plugin_loaded(path))
    goto done;
  if (num_plugins == NLRT_MAX_PLUGINS) {
    status = nlrt_error(NLRT_LOAD_FAILED,
                        "cannot load driver plugin '%s': %d are loaded "
                        "already",
                        path, NLRT_MAX_PLUGINS);
    goto done;
  }
  dlerror();
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    status = nlrt_error(NLRT_UNAVAILABLE, "cannot load driver plugin '%s': %s",
                        path, reason ? reason : "unknown error");
    goto done;
  }
  void *symbol = dlsym(handle, NLRT_PLUGIN_INIT_SYMBOL);
  if (!symbol) {
    dlclose(handle);
    status = nlrt_error(NLRT_LOAD_FAILED,
                        "driver plugin '%s' does not export %s", path,
                        NLRT_PLUGIN_INIT_SYMBOL);
    goto done;
  }
  nlrt_plugin_init_function init;
  memcpy(&init, &symbol, sizeof(init));
  status = init(&nlrt_runtime_services);
  if (status != NLRT_OK) {
    /* Its message is the last error; the plugin stays mapped, since it may
     * have registered a driver before failing. */
    goto done;
  }
  char *copy = strdup(path);
  if (!copy) {
    status = nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  plugin_paths[num_plugins++] = copy;
done:
  pthread_mutex_unlock(&load_mutex);
  return status;
}

/*===--- Devices -----------------------------------------------------------===*/

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
  int num_threads = 0;
  for (size_t i = 0; i < num_options; ++i) {
    if (!options[i].name)
      return nlrt_error(NLRT_INVALID_ARGUMENT,
                        "nlrt_device_open_with_options: option %zu has no "
                        "name",
                        i);
    if (strcmp(options[i].name, "num_threads") == 0 && options[i].value >= 0 &&
        options[i].value <= 65536)
      num_threads = (int)options[i].value;
  }
  const nlrt_driver *driver = nlrt_find_driver(driver_name);
  if (!driver)
    return unknown_driver(driver_name);
  nlrt_device *device = calloc(1, sizeof(*device));
  if (!device)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory");
  void *state = NULL;
  nlrt_status status =
      driver->device_open(ordinal, options, num_options, &state);
  if (status != NLRT_OK) {
    free(device);
    return status;
  }
  device->driver = driver;
  atomic_init(&device->ref_count, 1);
  device->ordinal = ordinal;
  device->num_threads = num_threads;
  device->state = state;
  snprintf(device->name, sizeof(device->name), "%s:%d", driver->name, ordinal);
  *out_device = device;
  return NLRT_OK;
}

NLRT_API nlrt_status nlrt_device_open(const char *driver_name, int ordinal,
                                      nlrt_device **out_device) {
  return nlrt_device_open_with_options(driver_name, ordinal, NULL, 0,
                                       out_device);
}

NLRT_API void nlrt_device_close(nlrt_device *device) {
  if (!device)
    return;
  /* acq_rel: the thread that frees must see every other holder's writes. */
  if (atomic_fetch_sub_explicit(&device->ref_count, 1, memory_order_acq_rel) ==
      1) {
    device->driver->device_close(device->state);
    free(device);
  }
}

NLRT_API const char *nlrt_device_name(const nlrt_device *device) {
  return device ? device->name : "";
}

NLRT_API const char *nlrt_device_driver(const nlrt_device *device) {
  return device ? device->driver->name : "";
}

NLRT_API int nlrt_device_num_threads(const nlrt_device *device) {
  return device ? device->num_threads : 0;
}

NLRT_API nlrt_status nlrt_device_synchronize(nlrt_device *device) {
  if (!device)
    return nlrt_error(NLRT_INVALID_ARGUMENT, "nlrt_device_synchronize: NULL");
  return device->driver->synchronize ? device->driver->synchronize(device)
                                     : NLRT_OK;
}
