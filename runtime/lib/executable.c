/*===- executable.c - loading dispatch, introspection, checked execute ----===*
 *
 * Everything about an executable that does not depend on the driver: argument
 * checks before loading, the parsed signature, and buffer validation before
 * the driver's execute.
 *
 *===----------------------------------------------------------------------===*/

#include "internal.h"
#include "services/collectives.h"

#include <errno.h>
#include <stdarg.h>
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

/* Checks the collectives a version-2 driver reports into
 * executable->collectives and num_replicas. */
static nlrt_status check_collectives(const nlrt_driver *driver, void *state,
                                     const char *entry,
                                     nlrt_executable *executable) {
  executable->num_replicas = 1;
  if (driver->version < 2 || !driver->collectives)
    return NLRT_OK;
  nlrt_collective_exports exports = {NULL, 0, 1, NULL};
  driver->collectives(state, &exports);
  nlrt_status status =
      nlrt_collectives_create(&exports, entry, &executable->collectives);
  if (status == NLRT_OK && executable->collectives)
    executable->num_replicas = executable->collectives->num_replicas;
  return status;
}

nlrt_status nlrt_executable_create(nlrt_device *device, const char *entry,
                                   const char *signature_text, void *state,
                                   nlrt_executable **out) {
  nlrt_executable *executable = calloc(1, sizeof(*executable));
  char *entry_copy = copy_string(entry);
  char *text_copy = signature_text ? copy_string(signature_text) : NULL;
  nlrt_status status = NLRT_OK;
  if (!executable || !entry_copy || (signature_text && !text_copy))
    status = nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory loading an executable");
  else if (!signature_text)
    status = nlrt_error(NLRT_LOAD_FAILED,
                        "the '%s' driver loaded '%s' without a signature",
                        device->driver->name, entry);
  else
    status = nlrt_signature_parse(signature_text, &executable->signature);
  if (status == NLRT_OK)
    status = check_collectives(device->driver, state, entry, executable);
  if (status != NLRT_OK) {
    nlrt_signature_destroy(&executable->signature);
    free(executable);
    free(entry_copy);
    free(text_copy);
    device->driver->executable_release(state);
    return status;
  }
  nlrt_device_retain(device);
  executable->device = device;
  executable->entry = entry_copy;
  executable->signature_text = text_copy;
  executable->state = state;
  *out = executable;
  return NLRT_OK;
}

/* Runs the driver's load (`from_file`: its load_file) and wraps the result. */
static nlrt_status load_with_driver(nlrt_device *device, const void *data,
                                    size_t size, const char *path,
                                    const char *entry, const char *what,
                                    nlrt_executable **out) {
  void *state = NULL;
  const char *signature = NULL;
  nlrt_status status =
      path ? device->driver->load_file(device, path, entry, &state, &signature)
           : device->driver->load(device, data, size, entry, what, &state,
                                  &signature);
  if (status != NLRT_OK)
    return status;
  return nlrt_executable_create(device, entry, signature, state, out);
}

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
  return load_with_driver(device, payload, payload_size, NULL, entry,
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
    if (!device->driver->load_file)
      return nlrt_error(NLRT_INVALID_EXECUTABLE,
                        "'%s' is not an executable image, and the '%s' driver "
                        "loads nothing else",
                        path, device->driver->name);
    return load_with_driver(device, NULL, 0, path, entry, path, out);
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
  return load_with_driver(device, data, size, NULL, entry, what,
                          out_executable);
}

NLRT_API void nlrt_executable_release(nlrt_executable *executable) {
  if (!executable)
    return;
  executable->device->driver->executable_release(executable->state);
  free(executable->entry);
  free(executable->signature_text);
  nlrt_signature_destroy(&executable->signature);
  nlrt_collectives_destroy(executable->collectives);
  nlrt_device_close(executable->device);
  free(executable);
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

NLRT_API size_t
nlrt_executable_num_replicas(const nlrt_executable *executable) {
  return executable ? executable->num_replicas : 0;
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

/* Checks the number of buffers an executable is given. */
static nlrt_status check_buffer_count(const nlrt_executable *executable,
                                      const void *buffers,
                                      size_t num_buffers) {
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
  return NLRT_OK;
}

/* Checks the executable, that it runs alone (one replica), and the number
 * of buffers it is given. */
static nlrt_status check_execute_arguments(const nlrt_executable *executable,
                                           const void *buffers,
                                           size_t num_buffers) {
  if (!executable)
    return nlrt_error(NLRT_INVALID_ARGUMENT, "executable is NULL");
  if (executable->num_replicas > 1)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "'%s' (%s) is compiled for %zu replicas: use "
                      "nlrt_executable_execute_spmd",
                      executable->entry, executable->signature_text,
                      executable->num_replicas);
  return check_buffer_count(executable, buffers, num_buffers);
}

/* NLRT_INVALID_ARGUMENT with "buffer 3 (output 1) of 'f' " and `format`. */
static nlrt_status bad_buffer(const nlrt_executable *executable, size_t i,
                              const char *format, ...) {
  size_t inputs = executable->signature.num_inputs;
  bool is_input = i < inputs;
  char what[256];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof(what), format, args);
  va_end(args);
  return nlrt_error(NLRT_INVALID_ARGUMENT, "buffer %zu (%s %zu) of '%s' %s", i,
                    is_input ? "input" : "output", is_input ? i : i - inputs,
                    executable->entry, what);
}

nlrt_status nlrt_executable_run(nlrt_executable *executable,
                                void *const *addresses,
                                struct nlrt_spmd_participant *participant) {
  nlrt_call_context context = {executable->collectives, participant, NULL};
  nlrt_call_context_enter(&context);
  nlrt_status status = executable->device->driver->execute(
      executable, executable->state, addresses);
  nlrt_call_context_leave(&context);
  return status;
}

/* The checks of nlrt_executable_execute after the executable's own. */
static nlrt_status check_host_buffers(const nlrt_executable *executable,
                                      void *const *buffers,
                                      size_t num_buffers) {
  for (size_t i = 0; i < num_buffers; ++i)
    if (!buffers[i])
      return bad_buffer(executable, i, "is NULL");
  return NLRT_OK;
}

nlrt_status nlrt_executable_check_buffers(const nlrt_executable *executable,
                                          void *const *buffers,
                                          size_t num_buffers) {
  nlrt_status status = check_buffer_count(executable, buffers, num_buffers);
  if (status != NLRT_OK)
    return status;
  return check_host_buffers(executable, buffers, num_buffers);
}

NLRT_API nlrt_status nlrt_executable_execute(nlrt_executable *executable,
                                             void *const *buffers,
                                             size_t num_buffers) {
  nlrt_status status =
      check_execute_arguments(executable, buffers, num_buffers);
  if (status == NLRT_OK)
    status = check_host_buffers(executable, buffers, num_buffers);
  if (status != NLRT_OK)
    return status;
  return nlrt_executable_run(executable, buffers, NULL);
}

/* At most this many buffers go through the stack; more are malloc'd. */
#define NLRT_STACK_BUFFERS 64

NLRT_API nlrt_status nlrt_executable_execute_buffers(
    nlrt_executable *executable, nlrt_buffer *const *buffers,
    size_t num_buffers) {
  nlrt_status status =
      check_execute_arguments(executable, buffers, num_buffers);
  if (status != NLRT_OK)
    return status;
  for (size_t i = 0; i < num_buffers; ++i) {
    const nlrt_buffer *buffer = buffers[i];
    if (!buffer)
      return bad_buffer(executable, i, "is NULL");
    if (buffer->device != executable->device)
      return bad_buffer(executable, i,
                        "lives on device %s; the executable runs on %s",
                        buffer->device->name, executable->device->name);
    size_t want = executable->signature.buffers[i].byte_size;
    if (buffer->size != want)
      return bad_buffer(executable, i, "has %zu bytes; the executable needs %zu",
                        buffer->size, want);
  }
  void *stack[NLRT_STACK_BUFFERS];
  void **addresses = stack;
  if (num_buffers > NLRT_STACK_BUFFERS) {
    addresses = malloc(num_buffers * sizeof(void *));
    if (!addresses)
      return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory");
  }
  for (size_t i = 0; i < num_buffers; ++i)
    addresses[i] = buffers[i]->address;
  status = nlrt_executable_run(executable, addresses, NULL);
  if (addresses != stack)
    free(addresses);
  return status;
}
