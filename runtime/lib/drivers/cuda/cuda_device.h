/*===- cuda_device.h - one CUDA device: its context, stream and memory ----===*
 *
 * A cuda device runs on the device's primary context (the one the CUDA
 * runtime and other libraries in the process share) and a stream of its
 * own, on which everything the driver queues runs in order. Every function
 * here makes the context current on the calling thread first: the runtime
 * may be called from any thread.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_DRIVERS_CUDA_DEVICE_H
#define NLRT_DRIVERS_CUDA_DEVICE_H

#include "cuda_api.h"

typedef struct nlrt_cuda_device {
  const nlrt_cuda_api *api;
  int ordinal;
  CUdevice device;
  CUcontext context;
  CUstream stream;
  char name[256];
  size_t total_memory;
} nlrt_cuda_device;

/* Loads libcuda, initializes it and opens device `ordinal` into a new
 * *out.
 *   NLRT_UNAVAILABLE  no libcuda, or cuInit fails (no device or driver).
 *   NLRT_NOT_FOUND    no device `ordinal` (the message gives the count).
 *   others            a failing call, named in the message. */
nlrt_status nlrt_cuda_device_open(int ordinal, nlrt_cuda_device **out);
void nlrt_cuda_device_close(nlrt_cuda_device *device);

/* Makes the device's context current on this thread. */
nlrt_status nlrt_cuda_device_enter(const nlrt_cuda_device *device);

/* Device memory of `size` bytes (0 included: it then holds one byte, so
 * that every buffer has an address of its own), 256-byte aligned.
 *   NLRT_OUT_OF_MEMORY  the message names the size and the device. */
nlrt_status nlrt_cuda_device_allocate(const nlrt_cuda_device *device,
                                      size_t size, const char *purpose,
                                      CUdeviceptr *out);
void nlrt_cuda_device_free(const nlrt_cuda_device *device,
                           CUdeviceptr address);

/* Copies queued on the device's stream, waited for before returning. */
nlrt_status nlrt_cuda_device_copy_to_device(const nlrt_cuda_device *device,
                                            CUdeviceptr address,
                                            const void *host, size_t size);
nlrt_status nlrt_cuda_device_copy_to_host(const nlrt_cuda_device *device,
                                          void *host, CUdeviceptr address,
                                          size_t size);

/* Waits for the work queued on the device's stream. */
nlrt_status nlrt_cuda_device_synchronize(const nlrt_cuda_device *device);

#endif /* NLRT_DRIVERS_CUDA_DEVICE_H */
