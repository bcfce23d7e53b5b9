/*===- internal.h - shared definitions inside libnlrt ---------------------===*
 *
 * The object layouts behind the opaque handles of runtime.h, the driver
 * vtable every driver implements, error reporting and signature parsing.
 * Nothing here is exported from libnlrt.so.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_INTERNAL_H
#define NLRT_INTERNAL_H

#include "numlir/runtime.h"

#include <stdatomic.h>
#include <stdbool.h>

/*===--- Errors ------------------------------------------------------------===*/

/* Records a printf-style message as this thread's last error and returns
 * `status`, so failures read `return nlrt_error(NLRT_NOT_FOUND, ...);`. */
nlrt_status nlrt_error(nlrt_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/*===--- Element types -----------------------------------------------------===*/

/* Looks up the dtype spelled by the `length` characters at `name`. */
bool nlrt_dtype_from_name(const char *name, size_t length, nlrt_dtype *out);

/*===--- Executable images -----------------------------------------------===*/

/* Whether `data` starts with the image magic. */
bool nlrt_image_has_magic(const void *data, size_t size);

/* Verifies an image (see image.c); `what` names it in messages ("executable
 * 'model.nlx'"). On success `driver` (NLRT_IMAGE_MAX_DRIVER_LENGTH + 1
 * bytes) holds the driver name and *payload points into `image`. */
nlrt_status nlrt_image_check(const void *image, size_t size, const char *what,
                             char *driver, const void **payload,
                             size_t *payload_size);

/* NLRT_INVALID_EXECUTABLE for data that starts with neither the image magic
 * nor, if `alternative` is not NULL, the magic it names ("an ELF shared
 * object (7f 45 4c 46)"); the message shows the first bytes. */
nlrt_status nlrt_image_bad_magic(const char *what, const void *data,
                                 size_t size, const char *alternative);

/*===--- Signatures --------------------------------------------------------===*/

/* A parsed executable signature: one nlrt_buffer_info per buffer, inputs
 * first. The dims of all buffers share one allocation. */
typedef struct nlrt_signature {
  size_t num_inputs;
  size_t num_outputs;
  nlrt_buffer_info *buffers;
  int64_t *dims;
} nlrt_signature;

/* Parses `text` into *out. On failure returns NLRT_LOAD_FAILED with a message
 * naming the offending offset, and leaves *out empty. */
nlrt_status nlrt_signature_parse(const char *text, nlrt_signature *out);
void nlrt_signature_destroy(nlrt_signature *signature);

/*===--- Drivers -----------------------------------------------------------===*/

#include "numlir/runtime_driver.h"

/* The head of every device; the driver's own state hangs off it. */
struct nlrt_device {
  const nlrt_driver *driver;
  atomic_size_t ref_count;
  int ordinal;
  /* The "num_threads" option, recorded for every driver (0: not given). */
  int num_threads;
  void *state;
  char name[32];
};

struct nlrt_collectives; /* services/collectives.h */
struct nlrt_spmd_participant; /* spmd/communicator.h */

/* The head of every executable. */
struct nlrt_executable {
  nlrt_device *device; /* holds a reference */
  char *entry;
  char *signature_text;
  nlrt_signature signature;
  void *state;
  /* The checked collective table (NULL: the executable has none). */
  struct nlrt_collectives *collectives;
  /* "<entry>_num_replicas" (1 where absent). */
  size_t num_replicas;
};

struct nlrt_buffer {
  nlrt_device *device; /* holds a reference */
  size_t size;
  void *address;     /* the driver's, or host memory (host_memory) */
  bool host_memory;  /* from the runtime's allocator: the driver has no buffers */
};

/* The built-in drivers (drivers/<name>/). */
extern const nlrt_driver nlrt_cpu_driver;
extern const nlrt_driver nlrt_cuda_driver;

/* The registered driver called `name`, or NULL. */
const nlrt_driver *nlrt_find_driver(const char *name);

/* Adds a driver to the registry (services->register_driver). */
nlrt_status nlrt_register_driver(const nlrt_driver *driver);

/* The services handed to plugins (services/services.c). */
extern const nlrt_services nlrt_runtime_services;

void nlrt_device_retain(nlrt_device *device);

/* Wraps a loaded executable's driver state in a handle: copies `entry` and
 * `signature_text`, parses the signature, checks the collective table the
 * driver reports and retains `device`. On failure releases `state` through
 * the driver. */
nlrt_status nlrt_executable_create(nlrt_device *device, const char *entry,
                                   const char *signature_text, void *state,
                                   nlrt_executable **out);

/* Runs the executable's driver on checked `addresses`, with its
 * collectives dispatched as participant `participant` of an SPMD launch
 * (NULL: a single replica). */
nlrt_status nlrt_executable_run(nlrt_executable *executable,
                                void *const *addresses,
                                struct nlrt_spmd_participant *participant);

/* The checks nlrt_executable_execute makes of `buffers` (count, NULL
 * pointers), without the refusal of several replicas. */
nlrt_status nlrt_executable_check_buffers(const nlrt_executable *executable,
                                          void *const *buffers,
                                          size_t num_buffers);

#endif /* NLRT_INTERNAL_H */
