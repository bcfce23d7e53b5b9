/*===- buffer.c - device buffers and copies between them ------------------===*
 *
 * A buffer is a handle on memory a driver owns. Drivers without buffer
 * functions (the cpu driver) get host memory from the runtime's allocator;
 * the others allocate, free and copy their own. A copy between two devices
 * goes through the host unless both buffers are host memory.
 *
 *===----------------------------------------------------------------------===*/

#include "internal.h"
#include "services/host_allocator.h"

#include <stdlib.h>
#include <string.h>

static bool driver_owns_buffers(const nlrt_device *device) {
  return device->driver->buffer_allocate != NULL;
}

NLRT_API nlrt_status nlrt_buffer_allocate(nlrt_device *device, size_t size,
                                          nlrt_buffer **out_buffer) {
  if (!device || !out_buffer)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_buffer_allocate: NULL device or out pointer");
  nlrt_buffer *buffer = calloc(1, sizeof(*buffer));
  if (!buffer)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory");
  nlrt_status status = NLRT_OK;
  if (driver_owns_buffers(device)) {
    status = device->driver->buffer_allocate(device, size, &buffer->address);
  } else {
    buffer->host_memory = true;
    buffer->address = nlrt_host_aligned_alloc(64, size);
    if (!buffer->address) {
      char amount[32];
      nlrt_format_bytes(size, amount, sizeof amount);
      status = nlrt_error(NLRT_OUT_OF_MEMORY,
                          "cannot allocate a buffer of %zu bytes (%s) on %s",
                          size, amount, device->name);
    }
  }
  if (status != NLRT_OK) {
    free(buffer);
    return status;
  }
  nlrt_device_retain(device);
  buffer->device = device;
  buffer->size = size;
  *out_buffer = buffer;
  return NLRT_OK;
}

NLRT_API void nlrt_buffer_release(nlrt_buffer *buffer) {
  if (!buffer)
    return;
  if (buffer->host_memory)
    nlrt_host_free(buffer->address);
  else
    buffer->device->driver->buffer_free(buffer->device, buffer->address);
  nlrt_device_close(buffer->device);
  free(buffer);
}

NLRT_API nlrt_device *nlrt_buffer_device(const nlrt_buffer *buffer) {
  return buffer ? buffer->device : NULL;
}

NLRT_API size_t nlrt_buffer_size(const nlrt_buffer *buffer) {
  return buffer ? buffer->size : 0;
}

NLRT_API void *nlrt_buffer_host_pointer(const nlrt_buffer *buffer) {
  return buffer && buffer->host_memory ? buffer->address : NULL;
}

static nlrt_status check_copy(const nlrt_buffer *buffer, const void *host,
                              size_t size, const char *what) {
  if (!buffer || (!host && size))
    return nlrt_error(NLRT_INVALID_ARGUMENT, "%s: NULL buffer or host memory",
                      what);
  if (size != buffer->size)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "%s: %zu bytes for a buffer of %zu bytes", what, size,
                      buffer->size);
  return NLRT_OK;
}

NLRT_API nlrt_status nlrt_buffer_copy_from_host(nlrt_buffer *buffer,
                                                const void *host, size_t size) {
  nlrt_status status =
      check_copy(buffer, host, size, "nlrt_buffer_copy_from_host");
  if (status != NLRT_OK || size == 0)
    return status;
  if (buffer->host_memory) {
    memcpy(buffer->address, host, size);
    return NLRT_OK;
  }
  return buffer->device->driver->copy_to_device(buffer->device,
                                                buffer->address, host, size);
}

NLRT_API nlrt_status nlrt_buffer_copy_to_host(const nlrt_buffer *buffer,
                                              void *host, size_t size) {
  nlrt_status status =
      check_copy(buffer, host, size, "nlrt_buffer_copy_to_host");
  if (status != NLRT_OK || size == 0)
    return status;
  if (buffer->host_memory) {
    memcpy(host, buffer->address, size);
    return NLRT_OK;
  }
  return buffer->device->driver->copy_to_host(buffer->device, host,
                                              buffer->address, size);
}

NLRT_API nlrt_status nlrt_buffer_copy(nlrt_buffer *destination,
                                      const nlrt_buffer *source) {
  if (!destination || !source)
    return nlrt_error(NLRT_INVALID_ARGUMENT, "nlrt_buffer_copy: NULL buffer");
  if (destination->size != source->size)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_buffer_copy: %zu bytes into a buffer of %zu",
                      source->size, destination->size);
  if (source->size == 0)
    return NLRT_OK;
  if (source->host_memory)
    return nlrt_buffer_copy_from_host(destination, source->address,
                                      source->size);
  if (destination->host_memory)
    return nlrt_buffer_copy_to_host(source, destination->address,
                                    source->size);
  /* Two drivers' own memories: through a host staging buffer. */
  void *staging = nlrt_host_aligned_alloc(64, source->size);
  if (!staging)
    return nlrt_error(NLRT_OUT_OF_MEMORY,
                      "out of memory staging a copy of %zu bytes", source->size);
  nlrt_status status = nlrt_buffer_copy_to_host(source, staging, source->size);
  if (status == NLRT_OK)
    status = nlrt_buffer_copy_from_host(destination, staging, source->size);
  nlrt_host_free(staging);
  return status;
}
