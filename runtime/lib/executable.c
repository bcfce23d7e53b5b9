/*===- executable.c - loading dispatch, introspection, checked execute ----===*
 *
 * Everything about an executable that does not depend on the driver: argument
 * checks before loading, the parsed signature, and buffer validation before
 * the driver's execute.
 *
 *===----------------------------------------------------------------------===*/

#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Entry names become symbol names; this bound keeps messages and the
 * "<entry>_signature" lookup small and is far above what the compiler emits. */
#define NLRT_MAX_ENTRY_LENGTH 200

static char *copy_string(const char *s) {
  size_t size = strlen(s) + 1;
  char *copy = malloc(size);
  if (copy)
    memcpy(copy, s, size);
  return copy;
}

nlrt_status nlrt_executable_init(nlrt_executable *executable,
                                 nlrt_device *device, const char *entry,
                                 const char *signature_text) {
  memset(executable, 0, sizeof(*executable));
  nlrt_signature signature;
  nlrt_status status = nlrt_signature_parse(signature_text, &signature);
  if (status != NLRT_OK)
    return status;
  char *entry_copy = copy_string(entry);
  char *text_copy = copy_string(signature_text);
  if (!entry_copy || !text_copy) {
    free(entry_copy);
    free(text_copy);
    nlrt_signature_destroy(&signature);
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory loading an executable");
  }
  nlrt_device_retain(device);
  executable->device = device;
  executable->entry = entry_copy;
  executable->signature_text = text_copy;
  executable->signature = signature;
  return NLRT_OK;
}

void nlrt_executable_deinit(nlrt_executable *executable) {
  free(executable->entry);
  free(executable->signature_text);
  nlrt_signature_destroy(&executable->signature);
  nlrt_device_close(executable->device);
  memset(executable, 0, sizeof(*executable));
}

/* Shared checks of both load functions; resolves a NULL entry to the
 * default. */
static nlrt_status check_load_arguments(const nlrt_device *device,
                                        const char **entry,
                                        nlrt_executable **out) {
  if (!device || !out)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "loading an executable needs a device and an out "
                      "pointer (got NULL)");
  if (!*entry)
    *entry = NLRT_DEFAULT_ENTRY;
  size_t length = strlen(*entry);
  if (length == 0 || length > NLRT_MAX_ENTRY_LENGTH)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "entry name must have 1 to %d characters, got %zu",
                      NLRT_MAX_ENTRY_LENGTH, length);
  return NLRT_OK;
}

/* Verifies an image and hands its payload to the device's driver. */
static nlrt_status load_image(nlrt_device *device, const void *data,
                              size_t size, const char *entry,
                              const char *what, nlrt_executable **out) {
  char driver[NLRT_IMAGE_MAX_DRIVER_LENGTH + 1];
  const void *payload;
  size_t payload_size;
  nlrt_status status =
      nlrt_image_check(data, size, what, driver, &payload, &payload_size);
  if (status != NLRT_OK)
    return status;
  if (strcmp(driver, device->driver->name) != 0)
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s was compiled for the '%s' driver and cannot run on "
                      "device %s",
                      what, driver, device->name);
  char payload_what[600];
  snprintf(payload_what, sizeof(payload_what), "the payload of %s", what);
  return device->driver->load_memory(device, payload, payload_size, entry,
                                     payload_what, out);
}

static bool read_all(int fd, void *data, size_t size) {
  char *bytes = data;
  while (size > 0) {
    ssize_t got = read(fd, bytes, size);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    bytes += got;
    size -= (size_t)got;
  }
  return true;
}

/* An image file is read whole and loaded from memory, so nothing of it is
 * mapped before its checksum is verified; anything else is the driver's. */
static nlrt_status load_file(nlrt_device *device, const char *path,
                             const char *entry, nlrt_executable **out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return nlrt_error(errno == ENOENT ? NLRT_NOT_FOUND : NLRT_LOAD_FAILED,
                      "cannot open executable '%s': %s", path,
                      strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return nlrt_error(NLRT_LOAD_FAILED,
                      "cannot open executable '%s': not a regular file", path);
  }
  size_t size = (size_t)info.st_size;
  unsigned char start[8];
  if (size < sizeof(start) || pread(fd, start, sizeof(start), 0) !=
                                  (ssize_t)sizeof(start) ||
      !nlrt_image_has_magic(start, sizeof(start))) {
    close(fd);
    return device->driver->load_file(device, path, entry, out);
  }
  void *data = malloc(size);
  if (!data) {
    close(fd);
    return nlrt_error(NLRT_OUT_OF_MEMORY,
                      "out of memory reading executable '%s' (%zu bytes)",
                      path, size);
  }
  bool complete = read_all(fd, data, size);
  int read_errno = errno;
  close(fd);
  nlrt_status status;
  if (!complete) {
    status = nlrt_error(NLRT_LOAD_FAILED, "cannot read executable '%s': %s",
                        path, read_errno ? strerror(read_errno)
                                         : "it shrank while being read");
  } else {
    char what[512];
    snprintf(what, sizeof(what), "executable '%s'", path);
    status = load_image(device, data, size, entry, what, out);
  }
  free(data);
  return status;
}

NLRT_API nlrt_status nlrt_executable_load_file(
    nlrt_device *device, const char *path, const char *entry,
    nlrt_executable **out_executable) {
  nlrt_status status = check_load_arguments(device, &entry, out_executable);
  if (status != NLRT_OK)
    return status;
  if (!path || !*path)
    return nlrt_error(NLRT_INVALID_ARGUMENT, "executable path is empty");
  return load_file(device, path, entry, out_executable);
}

NLRT_API nlrt_status nlrt_executable_load_memory(
    nlrt_device *device, const void *data, size_t size, const char *entry,
    nlrt_executable **out_executable) {
  nlrt_status status = check_load_arguments(device, &entry, out_executable);
  if (status != NLRT_OK)
    return status;
  if (!data || size == 0)
    return nlrt_error(NLRT_INVALID_ARGUMENT, "executable image is empty");
  char what[64];
  snprintf(what, sizeof(what), "executable image (%zu bytes)", size);
  if (nlrt_image_has_magic(data, size))
    return load_image(device, data, size, entry, what, out_executable);
  return device->driver->load_memory(device, data, size, entry, what,
                                     out_executable);
}

NLRT_API void nlrt_executable_release(nlrt_executable *executable) {
  if (executable)
    executable->device->driver->executable_destroy(executable);
}

NLRT_API nlrt_device *
nlrt_executable_device(const nlrt_executable *executable) {
  return executable ? executable->device : NULL;
}

NLRT_API const char *nlrt_executable_entry(const nlrt_executable *executable) {
  return executable ? executable->entry : "";
}

NLRT_API const char *
nlrt_executable_signature(const nlrt_executable *executable) {
  return executable ? executable->signature_text : "";
}

NLRT_API size_t nlrt_executable_num_inputs(const nlrt_executable *executable) {
  return executable ? executable->signature.num_inputs : 0;
}

NLRT_API size_t
nlrt_executable_num_outputs(const nlrt_executable *executable) {
  return executable ? executable->signature.num_outputs : 0;
}

static size_t num_buffers_of(const nlrt_executable *executable) {
  return executable->signature.num_inputs + executable->signature.num_outputs;
}

NLRT_API nlrt_status nlrt_executable_buffer_info(
    const nlrt_executable *executable, size_t index,
    nlrt_buffer_info *out_info) {
  if (!executable || !out_info)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_executable_buffer_info: NULL argument");
  if (index >= num_buffers_of(executable))
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "buffer index %zu out of range: '%s' has %zu buffers",
                      index, executable->entry, num_buffers_of(executable));
  *out_info = executable->signature.buffers[index];
  return NLRT_OK;
}

NLRT_API nlrt_status nlrt_executable_execute(nlrt_executable *executable,
                                             void *const *buffers,
                                             size_t num_buffers) {
  if (!executable)
    return nlrt_error(NLRT_INVALID_ARGUMENT, "executable is NULL");
  const nlrt_signature *signature = &executable->signature;
  size_t expected = num_buffers_of(executable);
  if (num_buffers != expected)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "'%s' takes %zu buffers (%zu input%s, %zu output%s), "
                      "got %zu",
                      executable->entry, expected, signature->num_inputs,
                      signature->num_inputs == 1 ? "" : "s",
                      signature->num_outputs,
                      signature->num_outputs == 1 ? "" : "s", num_buffers);
  if (expected && !buffers)
    return nlrt_error(NLRT_INVALID_ARGUMENT, "buffer array is NULL");
  for (size_t i = 0; i < expected; ++i) {
    if (buffers[i])
      continue;
    bool is_input = i < signature->num_inputs;
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "buffer %zu (%s %zu) of '%s' is NULL", i,
                      is_input ? "input" : "output",
                      is_input ? i : i - signature->num_inputs,
                      executable->entry);
  }
  /* The entry takes void ** by contract but never writes the array. */
  return executable->device->driver->execute(executable, (void **)buffers);
}
