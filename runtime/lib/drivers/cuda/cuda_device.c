/*===- cuda_device.c - opening a CUDA device, its memory and copies -------===*/

#include "cuda_device.h"

#include "../../internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Finds device `ordinal` among those libcuda sees. */
static nlrt_status find_device(const nlrt_cuda_api *api, int ordinal,
                               CUdevice *out) {
  /* cuInit is cheap after its first success and may be called again; a
   * machine with a driver but no GPU fails here (CUDA_ERROR_NO_DEVICE). */
  nlrt_status status =
      nlrt_cuda_check(api, api->cuInit(0), NLRT_UNAVAILABLE, "cuInit");
  int count = 0;
  if (status == NLRT_OK)
    status = nlrt_cuda_check(api, api->cuDeviceGetCount(&count),
                             NLRT_UNAVAILABLE, "cuDeviceGetCount");
  if (status != NLRT_OK)
    return status;
  if (count == 0)
    return nlrt_error(NLRT_UNAVAILABLE,
                      "the cuda driver found no CUDA device (libcuda reports "
                      "0; check CUDA_VISIBLE_DEVICES)");
  if (ordinal >= count)
    return nlrt_error(NLRT_NOT_FOUND,
                      "the cuda driver has devices 0 to %d, got ordinal %d",
                      count - 1, ordinal);
  CUresult result = api->cuDeviceGet(out, ordinal);
  return nlrt_cuda_check(api, result,
                         result == CUDA_ERROR_INVALID_DEVICE ? NLRT_NOT_FOUND
                                                             : NLRT_INTERNAL,
                         "cuDeviceGet (ordinal %d)", ordinal);
}

nlrt_status nlrt_cuda_device_open(int ordinal, nlrt_cuda_device **out) {
  const nlrt_cuda_api *api = NULL;
  nlrt_status status = nlrt_cuda_api_load(&api);
  if (status != NLRT_OK)
    return status;
  nlrt_cuda_device *device = calloc(1, sizeof(*device));
  if (!device)
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory opening cuda:%d",
                      ordinal);
  device->api = api;
  device->ordinal = ordinal;
  status = find_device(api, ordinal, &device->device);
  if (status == NLRT_OK)
    status = nlrt_cuda_check(
        api,
        api->cuDeviceGetName(device->name, (int)sizeof(device->name),
                             device->device),
        NLRT_INTERNAL, "cuDeviceGetName (device %d)", ordinal);
  if (status == NLRT_OK)
    status = nlrt_cuda_check(
        api, api->cuDeviceTotalMem_v2(&device->total_memory, device->device),
        NLRT_INTERNAL, "cuDeviceTotalMem_v2 (device %d)", ordinal);
  if (status == NLRT_OK)
    status = nlrt_cuda_check(
        api, api->cuDevicePrimaryCtxRetain(&device->context, device->device),
        NLRT_INTERNAL, "cuDevicePrimaryCtxRetain (device %d)", ordinal);
  if (status != NLRT_OK) {
    free(device);
    return status;
  }
  status = nlrt_cuda_device_enter(device);
  /* Non-blocking: the stream does not wait for work other libraries queue
   * on the legacy default stream, and the driver never relies on it. */
  if (status == NLRT_OK)
    status = nlrt_cuda_check(
        api, api->cuStreamCreate(&device->stream, CU_STREAM_NON_BLOCKING),
        NLRT_INTERNAL, "cuStreamCreate (device %d)", ordinal);
  if (status != NLRT_OK) {
    api->cuDevicePrimaryCtxRelease_v2(device->device);
    free(device);
    return status;
  }
  *out = device;
  return NLRT_OK;
}

void nlrt_cuda_device_close(nlrt_cuda_device *device) {
  const nlrt_cuda_api *api = device->api;
  /* Nothing can be reported from here: a failure leaves the context to the
   * driver's own cleanup at exit. */
  if (nlrt_cuda_device_enter(device) == NLRT_OK) {
    api->cuStreamSynchronize(device->stream);
    api->cuStreamDestroy_v2(device->stream);
  }
  api->cuDevicePrimaryCtxRelease_v2(device->device);
  free(device);
}

nlrt_status nlrt_cuda_device_enter(const nlrt_cuda_device *device) {
  return nlrt_cuda_check(device->api, device->api->cuCtxSetCurrent(device->context),
                         NLRT_INTERNAL, "cuCtxSetCurrent (device %d)",
                         device->ordinal);
}

nlrt_status nlrt_cuda_device_allocate(const nlrt_cuda_device *device,
                                      size_t size, const char *purpose,
                                      CUdeviceptr *out) {
  nlrt_status status = nlrt_cuda_device_enter(device);
  if (status != NLRT_OK)
    return status;
  CUdeviceptr address = 0;
  status = nlrt_cuda_check(
      device->api, device->api->cuMemAlloc_v2(&address, size ? size : 1),
      NLRT_INTERNAL, "cuMemAlloc_v2 of %zu bytes for %s on cuda:%d (%s)",
      size, purpose, device->ordinal, device->name);
  if (status == NLRT_OK)
    *out = address;
  return status;
}

void nlrt_cuda_device_free(const nlrt_cuda_device *device,
                           CUdeviceptr address) {
  if (nlrt_cuda_device_enter(device) == NLRT_OK)
    device->api->cuMemFree_v2(address);
}

nlrt_status nlrt_cuda_device_synchronize(const nlrt_cuda_device *device) {
  nlrt_status status = nlrt_cuda_device_enter(device);
  if (status != NLRT_OK)
    return status;
  return nlrt_cuda_check(device->api,
                         device->api->cuStreamSynchronize(device->stream),
                         NLRT_INTERNAL, "cuStreamSynchronize (cuda:%d)",
                         device->ordinal);
}

/* Waits for a copy queued with `status`: the host memory is the caller's
 * again only once the copy is done. A failed copy keeps its message. */
static nlrt_status finish_copy(const nlrt_cuda_device *device,
                               nlrt_status status) {
  if (status == NLRT_OK)
    return nlrt_cuda_device_synchronize(device);
  device->api->cuStreamSynchronize(device->stream);
  return status;
}

nlrt_status nlrt_cuda_device_copy_to_device(const nlrt_cuda_device *device,
                                            CUdeviceptr address,
                                            const void *host, size_t size) {
  nlrt_status status = nlrt_cuda_device_enter(device);
  if (status == NLRT_OK)
    status = nlrt_cuda_check(
        device->api,
        device->api->cuMemcpyHtoDAsync_v2(address, host, size, device->stream),
        NLRT_INTERNAL, "cuMemcpyHtoDAsync_v2 of %zu bytes (cuda:%d)", size,
        device->ordinal);
  return finish_copy(device, status);
}

nlrt_status nlrt_cuda_device_copy_to_host(const nlrt_cuda_device *device,
                                          void *host, CUdeviceptr address,
                                          size_t size) {
  nlrt_status status = nlrt_cuda_device_enter(device);
  if (status == NLRT_OK)
    status = nlrt_cuda_check(
        device->api,
        device->api->cuMemcpyDtoHAsync_v2(host, address, size, device->stream),
        NLRT_INTERNAL, "cuMemcpyDtoHAsync_v2 of %zu bytes (cuda:%d)", size,
        device->ordinal);
  return finish_copy(device, status);
}
