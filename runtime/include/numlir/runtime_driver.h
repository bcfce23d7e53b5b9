/*===- numlir/runtime_driver.h - writing a driver for the numlir runtime --===*
 *
 * A driver gives the runtime a kind of device: how to open one, load an
 * executable's payload on it, run it, and hold its buffers. numlir's own
 * "cpu" driver is built in; any other arrives at run time from a shared
 * object that exports
 *
 *   nlrt_status nlrt_plugin_init(const nlrt_services *services);
 *
 * which registers its drivers with services->register_driver. The runtime
 * loads it with nlrt_driver_load (runtime.h), by path; numlir's Python side
 * calls that for the drivers backends name (docs/backends.md). A plugin
 * does not link libnlrt: everything it needs from the runtime is in
 * `services`, which stays valid for the life of the process.
 *
 * Objects: the runtime owns the nlrt_device, nlrt_executable and
 * nlrt_buffer handles and keeps the driver's own state for each as an
 * opaque pointer (services->device_state, ...). Errors: a driver function
 * that fails returns services->error(status, format, ...), which records
 * the message for nlrt_last_error.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NUMLIR_RUNTIME_DRIVER_H
#define NUMLIR_RUNTIME_DRIVER_H

#include "numlir/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of nlrt_driver and nlrt_services this header describes.
 * Version 2 added nlrt_driver.collectives and
 * nlrt_services.collective_dispatch (SPMD programs); drivers of version 1
 * are still accepted (their executables have no collectives and one
 * replica), any other version is refused at registration. */
#define NLRT_DRIVER_INTERFACE_VERSION 2

/* What an executable exports for its collectives (runtime.h, "SPMD
 * launches"), as a driver found it; the runtime checks it. */
typedef struct nlrt_collective_exports {
  /* "<entry>_collectives": `table_words` int64 words, or NULL. */
  const int64_t *table;
  size_t table_words;
  /* "<entry>_num_replicas", 1 where absent. */
  int64_t num_replicas;
  /* "<entry>_collective_locations", or NULL. */
  const char *locations;
} nlrt_collective_exports;

typedef struct nlrt_driver nlrt_driver;

/* What a driver implements. Arguments reaching these functions are already
 * checked by the runtime (non-NULL, buffer counts and sizes, the device a
 * buffer lives on). */
struct nlrt_driver {
  /* NLRT_DRIVER_INTERFACE_VERSION. */
  uint32_t version;
  /* The driver's name: 1 to NLRT_IMAGE_MAX_DRIVER_LENGTH bytes, unique in
   * the process. Executable images name the driver that runs them. */
  const char *name;

  /* Opens device `ordinal` with `options` (runtime.h's device options; the
   * driver refuses names it does not read with NLRT_INVALID_ARGUMENT) and
   * stores the driver's state for it in *out_state. Returns NLRT_NOT_FOUND
   * for a device that does not exist and NLRT_UNAVAILABLE where the driver
   * cannot work at all (no vendor library, no hardware). */
  nlrt_status (*device_open)(int ordinal, const nlrt_device_option *options,
                             size_t num_options, void **out_state);
  void (*device_close)(void *state);

  /* Loads `size` bytes of payload (an image's, already verified, or bytes
   * that are not an image) on `device`, for entry point `entry`. Stores the
   * executable's state in *out_state and its signature text (runtime.h's
   * format, owned by that state) in *out_signature. `what` names the
   * source in messages. */
  nlrt_status (*load)(nlrt_device *device, const void *payload, size_t size,
                      const char *entry, const char *what, void **out_state,
                      const char **out_signature);
  /* Optional (NULL: such files are refused): a file that is not an image. */
  nlrt_status (*load_file)(nlrt_device *device, const char *path,
                           const char *entry, void **out_state,
                           const char **out_signature);
  void (*executable_release)(void *state);
  /* Runs the executable once on device addresses, inputs first (see
   * nlrt_executable_execute); returns when it has finished. */
  nlrt_status (*execute)(nlrt_executable *executable, void *state,
                         void *const *addresses);

  /* Buffers. Where all five are NULL, buffers are host memory from the
   * runtime's allocator and nlrt_buffer_host_pointer gives it. */
  nlrt_status (*buffer_allocate)(nlrt_device *device, size_t size,
                                 void **out_address);
  void (*buffer_free)(nlrt_device *device, void *address);
  nlrt_status (*copy_to_device)(nlrt_device *device, void *address,
                                const void *host, size_t size);
  nlrt_status (*copy_to_host)(nlrt_device *device, void *host,
                              const void *address, size_t size);
  /* Waits for work queued on the device; NULL when calls are synchronous. */
  nlrt_status (*synchronize)(nlrt_device *device);

  /* Version 2 on (the runtime reads no further in a version-1 struct). */

  /* Optional (NULL: no collectives, one replica): what the executable
   * exports for collectives. The pointers stay valid until the
   * executable's release. The runtime checks them after load (a malformed
   * table fails the load with NLRT_LOAD_FAILED). A driver whose code calls
   * collectives points the executable's slot at
   * services->collective_dispatch and runs the entry so that a failed
   * collective can stop it (the cpu driver runs it under the host
   * allocator's call, whose jump frees the call's temporaries). */
  void (*collectives)(void *state, nlrt_collective_exports *out);
};

/* What the runtime offers drivers. */
typedef struct nlrt_services {
  /* NLRT_DRIVER_INTERFACE_VERSION. */
  uint32_t version;
  /* Adds a driver. The struct must stay valid for the life of the process.
   *   NLRT_INVALID_ARGUMENT another version, a bad name, a missing
   *                         function, a name already registered. */
  nlrt_status (*register_driver)(const nlrt_driver *driver);
  /* Records a printf-style message as this thread's last error and returns
   * `status`. */
  nlrt_status (*error)(nlrt_status status, const char *format, ...)
      __attribute__((format(printf, 2, 3)));
  /* The driver state of a device, an executable. */
  void *(*device_state)(const nlrt_device *device);
  int (*device_ordinal)(const nlrt_device *device);
  void *(*executable_state)(const nlrt_executable *executable);
  /* The runtime's host allocator (64-byte aligned; large blocks are kept
   * for reuse), for drivers whose buffers are host memory of their own. */
  void *(*host_allocate)(size_t size);
  void (*host_free)(void *pointer);
  /* The public API, for drivers that run code through another driver (a
   * driver may, for instance, run the cpu driver's executables on memory
   * it keeps itself). */
  nlrt_status (*device_open_with_options)(const char *driver, int ordinal,
                                          const nlrt_device_option *options,
                                          size_t num_options,
                                          nlrt_device **out_device);
  void (*device_close)(nlrt_device *device);
  nlrt_status (*executable_load_memory)(nlrt_device *device, const void *data,
                                        size_t size, const char *entry,
                                        nlrt_executable **out_executable);
  void (*executable_release)(nlrt_executable *executable);
  const char *(*executable_signature)(const nlrt_executable *executable);
  nlrt_status (*executable_execute)(nlrt_executable *executable,
                                    void *const *buffers, size_t num_buffers);

  /* Version 2 on. */

  /* The value of an executable's "<entry>_collective" slot: runs
   * collective `index` of the executable running on this thread. */
  void (*collective_dispatch)(uint64_t index, const void *operand,
                              void *result);
} nlrt_services;

/* The function a driver plugin exports. */
typedef nlrt_status (*nlrt_plugin_init_function)(const nlrt_services *services);
#define NLRT_PLUGIN_INIT_SYMBOL "nlrt_plugin_init"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NUMLIR_RUNTIME_DRIVER_H */
