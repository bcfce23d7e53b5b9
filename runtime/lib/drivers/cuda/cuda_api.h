/*===- cuda_api.h - the part of the CUDA driver API the cuda driver calls -===*
 *
 * numlir builds and imports without CUDA: nothing here comes from cuda.h.
 * The types, constants and function signatures below mirror the CUDA
 * driver API of cuda.h as of CUDA 12.4 (CUDA_VERSION 12040), where each of
 * them has kept its ABI since it appeared (the `_v2` entry points since
 * CUDA 4.0, cuDevicePrimaryCtxRelease_v2 since CUDA 11.0). libcuda.so.1 is
 * opened with dlopen when the first cuda device opens, and the functions
 * are found with dlsym.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_DRIVERS_CUDA_API_H
#define NLRT_DRIVERS_CUDA_API_H

#include "numlir/runtime.h"

#include <stddef.h>

/* CUresult (cuda.h's enum cudaError_enum): only the values the driver
 * tells apart. */
typedef int CUresult;
#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101

typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
/* CUdeviceptr_v2: a device address, 64 bits on every 64-bit host. */
typedef unsigned long long CUdeviceptr;

/* CUjit_option: the JIT options cuModuleLoadDataEx is given. */
typedef int CUjit_option;
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6

/* cuStreamCreate's flags: a stream that does not wait for the legacy
 * default stream (other libraries' work in the process). */
#define CU_STREAM_NON_BLOCKING 1

/* The functions, by the names libcuda.so.1 exports (the `_v2` names where
 * cuda.h maps the plain name to one). */
typedef struct nlrt_cuda_api {
  CUresult (*cuInit)(unsigned int flags);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceTotalMem_v2)(size_t *bytes, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned int flags);
  CUresult (*cuStreamDestroy_v2)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuMemAlloc_v2)(CUdeviceptr *address, size_t bytes);
  CUresult (*cuMemFree_v2)(CUdeviceptr address);
  CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr destination, const void *source,
                                   size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoHAsync_v2)(void *destination, CUdeviceptr source,
                                   size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoDAsync_v2)(CUdeviceptr destination, CUdeviceptr source,
                                   size_t bytes, CUstream stream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr destination, unsigned char value,
                              size_t count, CUstream stream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr destination, unsigned short value,
                               size_t count, CUstream stream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr destination, unsigned int value,
                               size_t count, CUstream stream);
  /* `height` rows of `width` 32-bit words, rows `pitch` bytes apart: with a
   * pitch of 8 and a width of 1 it writes every other word, which is how
   * an 8-byte pattern is filled (there is no cuMemsetD64). */
  CUresult (*cuMemsetD2D32Async)(CUdeviceptr destination, size_t pitch,
                                 unsigned int value, size_t width,
                                 size_t height, CUstream stream);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned int num_options,
                                 CUjit_option *options, void **option_values);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned int grid_x,
                             unsigned int grid_y, unsigned int grid_z,
                             unsigned int block_x, unsigned int block_y,
                             unsigned int block_z, unsigned int shared_bytes,
                             CUstream stream, void **parameters, void **extra);
  /* Optional (CUDA 12.4 on; NULL before): where parameter `index` of a
   * kernel lies, CUDA_ERROR_INVALID_VALUE past the last one. The driver
   * checks each kernel's parameter count against the payload with it. */
  CUresult (*cuFuncGetParamInfo)(CUfunction function, size_t index,
                                 size_t *offset, size_t *size);
} nlrt_cuda_api;

/* The functions of the process's libcuda: $NUMLIR_LIBCUDA (a path) if set,
 * else "libcuda.so.1" through the system loader. The library is loaded by
 * the first call that succeeds and stays loaded; a failed call leaves
 * nothing behind, so a later one tries again (and reads NUMLIR_LIBCUDA
 * again).
 *   NLRT_UNAVAILABLE  the library cannot be loaded (the message has the
 *                     loader's reason) or lacks a function. */
nlrt_status nlrt_cuda_api_load(const nlrt_cuda_api **out);

/* NLRT_OK for CUDA_SUCCESS. Otherwise records "cuda: <call> failed:
 * CUDA_ERROR_NAME (description)", the call being printf-formatted, and
 * returns NLRT_OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY, else `status`. */
nlrt_status nlrt_cuda_check(const nlrt_cuda_api *api, CUresult result,
                            nlrt_status status, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* NLRT_DRIVERS_CUDA_API_H */
