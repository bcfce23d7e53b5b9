/*===- cuda_api.c - loading libcuda.so.1 and naming its errors ------------===*
 *
 * The CUDA driver library is opened at run time, when the first cuda device
 * opens, never at build or link time: a machine without an NVIDIA driver
 * builds, imports and runs numlir, and only opening a cuda device fails
 * (NLRT_UNAVAILABLE, with the loader's reason).
 *
 *===----------------------------------------------------------------------===*/

#include "cuda_api.h"

#include "../../internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_LIBRARY "libcuda.so.1"

/* Each function pointer of nlrt_cuda_api, by its exported name. */
typedef struct symbol {
  const char *name;
  size_t offset;
  bool optional;
} symbol;

#define REQUIRED(name) {#name, offsetof(nlrt_cuda_api, name), false}
#define OPTIONAL(name) {#name, offsetof(nlrt_cuda_api, name), true}

static const symbol symbols[] = {
    REQUIRED(cuInit),
    REQUIRED(cuGetErrorName),
    REQUIRED(cuGetErrorString),
    REQUIRED(cuDeviceGetCount),
    REQUIRED(cuDeviceGet),
    REQUIRED(cuDeviceGetName),
    REQUIRED(cuDeviceTotalMem_v2),
    REQUIRED(cuDevicePrimaryCtxRetain),
    REQUIRED(cuDevicePrimaryCtxRelease_v2),
    REQUIRED(cuCtxSetCurrent),
    REQUIRED(cuStreamCreate),
    REQUIRED(cuStreamDestroy_v2),
    REQUIRED(cuStreamSynchronize),
    REQUIRED(cuMemAlloc_v2),
    REQUIRED(cuMemFree_v2),
    REQUIRED(cuMemcpyHtoDAsync_v2),
    REQUIRED(cuMemcpyDtoHAsync_v2),
    REQUIRED(cuMemcpyDtoDAsync_v2),
    REQUIRED(cuMemsetD8Async),
    REQUIRED(cuMemsetD16Async),
    REQUIRED(cuMemsetD32Async),
    REQUIRED(cuMemsetD2D32Async),
    REQUIRED(cuModuleLoadDataEx),
    REQUIRED(cuModuleUnload),
    REQUIRED(cuModuleGetFunction),
    REQUIRED(cuLaunchKernel),
    OPTIONAL(cuFuncGetParamInfo),
};

static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Written once, under load_mutex, before `loaded` is set; read-only after. */
static nlrt_cuda_api api;
static bool loaded;

/* Fills `table` from `handle`; NLRT_UNAVAILABLE naming a missing function. */
static nlrt_status resolve(void *handle, const char *library,
                           nlrt_cuda_api *table) {
  for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); ++i) {
    void *address = dlsym(handle, symbols[i].name);
    if (!address && !symbols[i].optional)
      return nlrt_error(NLRT_UNAVAILABLE,
                        "the cuda driver needs %s from %s, which lacks it: "
                        "the NVIDIA driver is older than CUDA 11 supports",
                        symbols[i].name, library);
    /* POSIX guarantees dlsym's result converts to a function pointer; ISO C
     * does not, so copy the bits. */
    memcpy((char *)table + symbols[i].offset, &address, sizeof(address));
  }
  return NLRT_OK;
}

nlrt_status nlrt_cuda_api_load(const nlrt_cuda_api **out) {
  pthread_mutex_lock(&load_mutex);
  nlrt_status status = NLRT_OK;
  if (!loaded) {
    const char *override = getenv("NUMLIR_LIBCUDA");
    const char *library = override && *override ? override : DEFAULT_LIBRARY;
    dlerror();
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *reason = dlerror();
      status = nlrt_error(
          NLRT_UNAVAILABLE, "the cuda driver needs %s (%s): %s", library,
          library == override ? "NUMLIR_LIBCUDA names it"
                              : "the NVIDIA driver; NUMLIR_LIBCUDA may name "
                                "another path",
          reason ? reason : "unknown error");
    } else {
      nlrt_cuda_api table;
      status = resolve(handle, library, &table);
      if (status == NLRT_OK) {
        /* libcuda stays loaded for the life of the process: contexts and
         * modules outlive any one device. */
        api = table;
        loaded = true;
      } else {
        dlclose(handle);
      }
    }
  }
  pthread_mutex_unlock(&load_mutex);
  if (status == NLRT_OK)
    *out = &api;
  return status;
}

nlrt_status nlrt_cuda_check(const nlrt_cuda_api *api, CUresult result,
                            nlrt_status status, const char *format, ...) {
  if (result == CUDA_SUCCESS)
    return NLRT_OK;
  char call[512];
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(call, sizeof(call), format, arguments);
  va_end(arguments);
  const char *name = NULL, *text = NULL;
  if (api->cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "an unknown CUresult";
  if (api->cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "no description";
  return nlrt_error(result == CUDA_ERROR_OUT_OF_MEMORY ? NLRT_OUT_OF_MEMORY
                                                       : status,
                    "cuda: %s failed: %s %d (%s)", call, name, result, text);
}
