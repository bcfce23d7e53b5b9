/*===- cpu_driver.c - the "cpu" driver: host shared objects, direct calls -===*
 *
 * A CPU executable is an ELF shared object exporting the entry function and
 * its "<entry>_signature" string (see runtime.h). Buffers are host pointers
 * handed straight to the entry, which runs on the calling thread.
 *
 *===----------------------------------------------------------------------===*/

#include "shared_object.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*entry_function)(void **buffers);

typedef struct cpu_executable {
  nlrt_executable base; /* first: the public handle points here */
  nlrt_shared_object object;
  entry_function entry;
} cpu_executable;

static nlrt_status cpu_device_open(const nlrt_driver *driver, int ordinal,
                                   nlrt_device **out_device) {
  /* The host is one device; threading is the compiled code's business. */
  if (ordinal != 0)
    return nlrt_error(NLRT_NOT_FOUND,
                      "the cpu driver has one device (ordinal 0), got %d",
                      ordinal);
  nlrt_device *device = malloc(sizeof(*device));
  if (!device)
    return nlrt_error(NLRT_INTERNAL, "out of memory");
  nlrt_device_init(device, driver, ordinal);
  *out_device = device;
  return NLRT_OK;
}

static void cpu_device_destroy(nlrt_device *device) { free(device); }

/* Resolves the entry and signature in a freshly opened object and builds the
 * executable. Takes ownership of `object` (closed on failure). */
static nlrt_status finish_load(nlrt_device *device, nlrt_shared_object object,
                               const char *entry, const char *what,
                               nlrt_executable **out) {
  char signature_name[256];
  snprintf(signature_name, sizeof(signature_name), "%s_signature", entry);

  void *function = NULL;
  const char *signature = NULL;
  cpu_executable *executable = NULL;
  nlrt_status status =
      nlrt_shared_object_find_function(&object, entry, what, &function);
  if (status == NLRT_OK)
    status = nlrt_shared_object_find_string(&object, signature_name, what,
                                            &signature);
  if (status == NLRT_OK) {
    executable = calloc(1, sizeof(*executable));
    if (!executable)
      status = nlrt_error(NLRT_INTERNAL, "out of memory");
  }
  if (status == NLRT_OK)
    status = nlrt_executable_init(&executable->base, device, entry, signature);
  if (status != NLRT_OK) {
    free(executable);
    nlrt_shared_object_close(&object);
    return status;
  }
  executable->object = object;
  /* dlsym returns void *; POSIX guarantees it converts to a function
   * pointer, ISO C does not, so copy the bits. */
  memcpy(&executable->entry, &function, sizeof(executable->entry));
  *out = &executable->base;
  return NLRT_OK;
}

static nlrt_status cpu_load_file(nlrt_device *device, const char *path,
                                 const char *entry, nlrt_executable **out) {
  nlrt_shared_object object;
  nlrt_status status = nlrt_shared_object_open_file(path, &object);
  if (status != NLRT_OK)
    return status;
  char what[512];
  snprintf(what, sizeof(what), "executable '%s'", path);
  return finish_load(device, object, entry, what, out);
}

static nlrt_status cpu_load_memory(nlrt_device *device, const void *data,
                                   size_t size, const char *entry,
                                   nlrt_executable **out) {
  nlrt_shared_object object;
  nlrt_status status = nlrt_shared_object_open_memory(data, size, &object);
  if (status != NLRT_OK)
    return status;
  char what[64];
  snprintf(what, sizeof(what), "executable image (%zu bytes)", size);
  return finish_load(device, object, entry, what, out);
}

static void cpu_executable_destroy(nlrt_executable *base) {
  cpu_executable *executable = (cpu_executable *)base;
  nlrt_executable_deinit(&executable->base);
  nlrt_shared_object_close(&executable->object);
  free(executable);
}

static nlrt_status cpu_execute(nlrt_executable *base, void **buffers) {
  ((cpu_executable *)base)->entry(buffers);
  return NLRT_OK;
}

const nlrt_driver nlrt_cpu_driver = {
    .name = "cpu",
    .device_open = cpu_device_open,
    .device_destroy = cpu_device_destroy,
    .load_file = cpu_load_file,
    .load_memory = cpu_load_memory,
    .executable_destroy = cpu_executable_destroy,
    .execute = cpu_execute,
};
