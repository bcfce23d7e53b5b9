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

typedef struct nlrt_driver nlrt_driver;

/* The common head of every device; a driver's device struct embeds it as its
 * first member and allocates the whole. */
struct nlrt_device {
  const nlrt_driver *driver;
  atomic_size_t ref_count;
  int ordinal;
  /* The thread team size (the "num_threads" option); 0: the default. */
  int num_threads;
  char name[32];
};

/* The common head of every executable; a driver's executable struct embeds
 * it as its first member. Filled by nlrt_executable_init. */
struct nlrt_executable {
  nlrt_device *device; /* holds a reference */
  char *entry;
  char *signature_text;
  nlrt_signature signature;
};

/* What a driver provides. Arguments reaching these functions are already
 * validated by the public API (non-NULL, entry resolved, buffer count and
 * pointers checked). */
struct nlrt_driver {
  const char *name;
  /* `options` are validated by the driver, which rejects names it does
   * not read. */
  nlrt_status (*device_open)(const nlrt_driver *driver, int ordinal,
                             const nlrt_device_option *options,
                             size_t num_options, nlrt_device **out_device);
  void (*device_destroy)(nlrt_device *device);
  /* A file that is not an image (for the cpu driver: a bare ELF object);
   * images read from files arrive through load_memory. */
  nlrt_status (*load_file)(nlrt_device *device, const char *path,
                           const char *entry, nlrt_executable **out);
  /* A verified image's payload, or in-memory bytes that are not an image.
   * `what` names the source in messages. */
  nlrt_status (*load_memory)(nlrt_device *device, const void *data,
                             size_t size, const char *entry, const char *what,
                             nlrt_executable **out);
  void (*executable_destroy)(nlrt_executable *executable);
  nlrt_status (*execute)(nlrt_executable *executable, void **buffers);
};

extern const nlrt_driver nlrt_cpu_driver;

/* Fills the head of a driver-allocated device (reference count 1). */
void nlrt_device_init(nlrt_device *device, const nlrt_driver *driver,
                      int ordinal);
void nlrt_device_retain(nlrt_device *device);

/* Fills the head of a driver-allocated executable: copies `entry` and
 * `signature_text`, parses the signature and retains `device`. On failure
 * the head is left empty (safe to pass to nlrt_executable_deinit). */
nlrt_status nlrt_executable_init(nlrt_executable *executable,
                                 nlrt_device *device, const char *entry,
                                 const char *signature_text);
/* Frees what nlrt_executable_init allocated and drops the device reference. */
void nlrt_executable_deinit(nlrt_executable *executable);

#endif /* NLRT_INTERNAL_H */
