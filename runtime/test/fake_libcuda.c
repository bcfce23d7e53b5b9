/*===- fake_libcuda.c - the CUDA driver API subset, on the host, for tests -===*
 *
 * Stands in for libcuda.so.1 (NUMLIR_LIBCUDA=/path/libfake_cuda.so) so that
 * the cuda driver's parsing, marshalling and error paths run on machines
 * without a GPU. Device memory is host memory (a CUdeviceptr is the
 * pointer); copies and memsets run at once. Modules are PTX text, of which
 * only the `.entry NAME(...)` parameter lists are read: cuLaunchKernel
 * checks a launch against them (every parameter a .u64 pointing into a live
 * allocation) and appends a line per launch to $FAKE_CUDA_LOG:
 *
 *   launch NAME grid=X,Y,Z block=X,Y,Z shared=N args=#A+OFF,#B+OFF
 *
 * where #A is the allocation's number (cuMemAlloc_v2 calls, from 0, each
 * logged as "alloc #A BYTES") and OFF the argument's byte offset into it.
 * One kernel runs: `fake_add_f32(a, b, out)` adds floats from a and b into
 * out, as many as fit in all three from their addresses to their
 * allocations' ends. Knobs: FAKE_CUDA_DEVICES (default 1) devices;
 * FAKE_CUDA_FAIL, comma-separated function names that fail
 * (cuMemAlloc_v2 with CUDA_ERROR_OUT_OF_MEMORY, others with
 * CUDA_ERROR_UNKNOWN or, for cuModuleLoadDataEx, CUDA_ERROR_INVALID_PTX and
 * an error log).
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  NOT_INITIALIZED = 3,
  INVALID_DEVICE = 101,
  INVALID_IMAGE = 200,
  INVALID_CONTEXT = 201,
  INVALID_PTX = 218,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
  ILLEGAL_ADDRESS = 700,
  UNKNOWN = 999,
};

#define MAX_DEVICES 8
#define MAX_ENTRIES 64
#define MAX_PARAMS 64

typedef struct context {
  int device;
  int references;
} context;

typedef struct function {
  char name[256];
  int num_params;
  int all_u64; /* every parameter is a .u64 */
  struct module *module;
} function;

typedef struct module {
  int loaded;
  int num_functions;
  function functions[MAX_ENTRIES];
} module;

typedef struct stream {
  unsigned magic;
} stream;
#define STREAM_MAGIC 0x57524541u

typedef struct allocation {
  unsigned char *base;
  size_t size;
  int number;
  struct allocation *next;
} allocation;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;
static context contexts[MAX_DEVICES];
static _Thread_local context *current;
static allocation *allocations; /* live ones */
static int next_allocation;

/*===--- Knobs and the log ---------------------------------------------------===*/

static int should_fail(const char *name) {
  const char *list = getenv("FAKE_CUDA_FAIL");
  size_t length = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, ',');
    size_t item = end ? (size_t)(end - p) : strlen(p);
    if (item == length && strncmp(p, name, length) == 0)
      return 1;
    p = end ? end + 1 : NULL;
  }
  return 0;
}

static int device_count(void) {
  const char *text = getenv("FAKE_CUDA_DEVICES");
  int count = text && *text ? atoi(text) : 1;
  return count < 0 ? 0 : count > MAX_DEVICES ? MAX_DEVICES : count;
}

static void log_line(const char *format, ...) {
  const char *path = getenv("FAKE_CUDA_LOG");
  if (!path || !*path)
    return;
  FILE *file = fopen(path, "a");
  if (!file)
    return;
  va_list arguments;
  va_start(arguments, format);
  vfprintf(file, format, arguments);
  va_end(arguments);
  fputc('\n', file);
  fclose(file);
}

/* Calls that need an initialized driver and a current, retained context. */
static CUresult check_context(void) {
  if (!initialized)
    return NOT_INITIALIZED;
  if (!current || current->references == 0)
    return INVALID_CONTEXT;
  return SUCCESS;
}

/* The live allocation holding [address, address + bytes); the caller holds
 * `lock`. An address at the end of an allocation holds 0 bytes. */
static allocation *find_allocation(CUdeviceptr address, size_t bytes) {
  unsigned char *p = (unsigned char *)(uintptr_t)address;
  for (allocation *a = allocations; a; a = a->next)
    if (p >= a->base && p <= a->base + a->size &&
        bytes <= (size_t)(a->base + a->size - p))
      return a;
  return NULL;
}

/*===--- Initialization, errors, devices, contexts ---------------------------===*/

EXPORT CUresult cuInit(unsigned int flags) {
  if (flags != 0)
    return INVALID_VALUE;
  if (should_fail("cuInit"))
    return UNKNOWN;
  initialized = 1;
  return SUCCESS;
}

static const char *error_name(CUresult error) {
  switch (error) {
  case SUCCESS: return "CUDA_SUCCESS";
  case INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
  case OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
  case NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
  case INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
  case INVALID_IMAGE: return "CUDA_ERROR_INVALID_IMAGE";
  case INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
  case INVALID_PTX: return "CUDA_ERROR_INVALID_PTX";
  case INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
  case NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
  case ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case UNKNOWN: return "CUDA_ERROR_UNKNOWN";
  }
  return NULL;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error_name(error);
  return *name ? SUCCESS : INVALID_VALUE;
}

EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case OUT_OF_MEMORY: *text = "out of memory"; break;
  case NOT_FOUND: *text = "named symbol not found"; break;
  case INVALID_CONTEXT: *text = "invalid device context"; break;
  case ILLEGAL_ADDRESS: *text = "an illegal memory access was encountered"; break;
  default: *text = error_name(error) ? "fake libcuda error" : NULL;
  }
  return *text ? SUCCESS : INVALID_VALUE;
}

EXPORT CUresult cuDeviceGetCount(int *count) {
  if (!initialized)
    return NOT_INITIALIZED;
  *count = device_count();
  return SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (!initialized)
    return NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= device_count())
    return INVALID_DEVICE;
  *device = ordinal;
  return SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  if (device < 0 || device >= device_count())
    return INVALID_DEVICE;
  snprintf(name, (size_t)length, "Fake CUDA Device %d", device);
  return SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
  if (device < 0 || device >= device_count())
    return INVALID_DEVICE;
  *bytes = (size_t)1 << 30;
  return SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(void **out, CUdevice device) {
  if (!initialized)
    return NOT_INITIALIZED;
  if (device < 0 || device >= device_count())
    return INVALID_DEVICE;
  if (should_fail("cuDevicePrimaryCtxRetain"))
    return UNKNOWN;
  pthread_mutex_lock(&lock);
  contexts[device].device = device;
  contexts[device].references++;
  pthread_mutex_unlock(&lock);
  *out = &contexts[device];
  return SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  if (device < 0 || device >= MAX_DEVICES)
    return INVALID_DEVICE;
  pthread_mutex_lock(&lock);
  CUresult result = contexts[device].references > 0 ? SUCCESS : INVALID_CONTEXT;
  if (result == SUCCESS)
    contexts[device].references--;
  pthread_mutex_unlock(&lock);
  return result;
}

EXPORT CUresult cuCtxSetCurrent(void *ctx) {
  context *c = ctx;
  if (c && (c < contexts || c >= contexts + MAX_DEVICES))
    return INVALID_CONTEXT;
  current = c;
  return SUCCESS;
}

/*===--- Streams -------------------------------------------------------------===*/

static CUresult check_stream(void *handle) {
  stream *s = handle;
  return s && s->magic == STREAM_MAGIC ? SUCCESS : INVALID_HANDLE;
}

EXPORT CUresult cuStreamCreate(void **out, unsigned int flags) {
  CUresult result = check_context();
  if (result != SUCCESS)
    return result;
  if (flags > 1)
    return INVALID_VALUE;
  stream *s = malloc(sizeof(*s));
  if (!s)
    return OUT_OF_MEMORY;
  s->magic = STREAM_MAGIC;
  *out = s;
  return SUCCESS;
}

EXPORT CUresult cuStreamDestroy_v2(void *handle) {
  CUresult result = check_stream(handle);
  if (result == SUCCESS) {
    ((stream *)handle)->magic = 0;
    free(handle);
  }
  return result;
}

EXPORT CUresult cuStreamSynchronize(void *handle) {
  CUresult result = check_context();
  if (result == SUCCESS)
    result = check_stream(handle);
  if (result == SUCCESS && should_fail("cuStreamSynchronize"))
    result = UNKNOWN;
  return result;
}

/*===--- Memory --------------------------------------------------------------===*/

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *out, size_t bytes) {
  CUresult result = check_context();
  if (result != SUCCESS)
    return result;
  if (bytes == 0)
    return INVALID_VALUE; /* as the real driver */
  if (should_fail("cuMemAlloc_v2"))
    return OUT_OF_MEMORY;
  allocation *a = malloc(sizeof(*a));
  size_t rounded = (bytes + 255) / 256 * 256;
  unsigned char *base = a ? aligned_alloc(256, rounded) : NULL;
  if (!base) {
    free(a);
    return OUT_OF_MEMORY;
  }
  memset(base, 0xcd, rounded); /* device memory starts as garbage */
  pthread_mutex_lock(&lock);
  a->base = base;
  a->size = bytes;
  a->number = next_allocation++;
  a->next = allocations;
  allocations = a;
  pthread_mutex_unlock(&lock);
  log_line("alloc #%d %zu", a->number, bytes);
  *out = (CUdeviceptr)(uintptr_t)base;
  return SUCCESS;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr address) {
  CUresult result = check_context();
  if (result != SUCCESS)
    return result;
  pthread_mutex_lock(&lock);
  allocation **link = &allocations;
  while (*link && (*link)->base != (unsigned char *)(uintptr_t)address)
    link = &(*link)->next;
  allocation *found = *link;
  if (found)
    *link = found->next;
  pthread_mutex_unlock(&lock);
  if (!found)
    return INVALID_VALUE;
  log_line("free #%d", found->number);
  free(found->base);
  free(found);
  return SUCCESS;
}

/* Whether [address, address + bytes) is device memory. */
static CUresult check_range(CUdeviceptr address, size_t bytes) {
  pthread_mutex_lock(&lock);
  allocation *a = find_allocation(address, bytes);
  pthread_mutex_unlock(&lock);
  return a ? SUCCESS : INVALID_VALUE;
}

/* Checks common to the queued operations. */
static CUresult check_queued(const char *name, void *s) {
  CUresult result = check_context();
  if (result == SUCCESS)
    result = check_stream(s);
  if (result == SUCCESS && should_fail(name))
    result = UNKNOWN;
  return result;
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination,
                                     const void *source, size_t bytes,
                                     void *s) {
  CUresult result = check_queued("cuMemcpyHtoDAsync_v2", s);
  if (result == SUCCESS)
    result = check_range(destination, bytes);
  if (result == SUCCESS)
    memcpy((void *)(uintptr_t)destination, source, bytes);
  return result;
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *destination, CUdeviceptr source,
                                     size_t bytes, void *s) {
  CUresult result = check_queued("cuMemcpyDtoHAsync_v2", s);
  if (result == SUCCESS)
    result = check_range(source, bytes);
  if (result == SUCCESS)
    memcpy(destination, (const void *)(uintptr_t)source, bytes);
  return result;
}

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr destination,
                                     CUdeviceptr source, size_t bytes,
                                     void *s) {
  CUresult result = check_queued("cuMemcpyDtoDAsync_v2", s);
  if (result == SUCCESS)
    result = check_range(source, bytes);
  if (result == SUCCESS)
    result = check_range(destination, bytes);
  if (result == SUCCESS) {
    memmove((void *)(uintptr_t)destination, (const void *)(uintptr_t)source,
            bytes);
    log_line("copy %zu", bytes);
  }
  return result;
}

/* `count` elements of `width` bytes, `pitch` bytes apart, in `rows` rows of
 * `per_row` elements (one row, contiguous, for the 1D memsets). */
static CUresult memset_elements(const char *name, void *s, CUdeviceptr at,
                                size_t pitch, size_t per_row, size_t rows,
                                unsigned width, uint32_t value) {
  CUresult result = check_queued(name, s);
  size_t extent = rows ? (rows - 1) * pitch + per_row * width : 0;
  if (result == SUCCESS)
    result = check_range(at, extent);
  if (result == SUCCESS && (at % width != 0 || pitch % width != 0))
    result = INVALID_VALUE;
  if (result != SUCCESS)
    return result;
  for (size_t r = 0; r < rows; ++r)
    for (size_t i = 0; i < per_row; ++i)
      memcpy((unsigned char *)(uintptr_t)at + r * pitch + i * width, &value,
             width); /* little-endian host */
  log_line("memset%u %zu", 8 * width, rows * per_row);
  return SUCCESS;
}

EXPORT CUresult cuMemsetD8Async(CUdeviceptr at, unsigned char value,
                                size_t count, void *s) {
  return memset_elements("cuMemsetD8Async", s, at, count, count, 1, 1, value);
}

EXPORT CUresult cuMemsetD16Async(CUdeviceptr at, unsigned short value,
                                 size_t count, void *s) {
  return memset_elements("cuMemsetD16Async", s, at, 2 * count, count, 1, 2,
                         value);
}

EXPORT CUresult cuMemsetD32Async(CUdeviceptr at, unsigned int value,
                                 size_t count, void *s) {
  return memset_elements("cuMemsetD32Async", s, at, 4 * count, count, 1, 4,
                         value);
}

EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr at, size_t pitch,
                                   unsigned int value, size_t width,
                                   size_t height, void *s) {
  if (pitch < 4 * width)
    return INVALID_VALUE;
  return memset_elements("cuMemsetD2D32Async", s, at, pitch, width, height, 4,
                         value);
}

/*===--- Modules -------------------------------------------------------------===*/

static const char *skip_space(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    ++p;
  return p;
}

static int is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
}

/* Reads ".entry NAME ( params )" at `p` (just after ".entry") into `f`;
 * returns where it ended, or NULL if it is malformed. */
static const char *parse_entry(const char *p, function *f) {
  p = skip_space(p);
  size_t length = 0;
  while (is_name_char(p[length]))
    ++length;
  if (length == 0 || length >= sizeof(f->name))
    return NULL;
  memcpy(f->name, p, length);
  f->name[length] = '\0';
  p = skip_space(p + length);
  if (*p != '(')
    return NULL;
  const char *close = strchr(p, ')');
  if (!close)
    return NULL;
  f->num_params = 0;
  f->all_u64 = 1;
  for (const char *q = p + 1; q < close;) {
    q = skip_space(q);
    if (q >= close)
      break;
    const char *comma = memchr(q, ',', (size_t)(close - q));
    const char *end = comma ? comma : close;
    char text[256];
    size_t size = (size_t)(end - q) < sizeof(text) - 1 ? (size_t)(end - q)
                                                        : sizeof(text) - 1;
    memcpy(text, q, size);
    text[size] = '\0';
    if (strncmp(text, ".param", 6) != 0)
      return NULL;
    if (!strstr(text, ".u64"))
      f->all_u64 = 0;
    if (++f->num_params > MAX_PARAMS)
      return NULL;
    q = comma ? comma + 1 : close;
  }
  return close + 1;
}

static void write_log(void *buffer, size_t size, const char *message) {
  if (buffer && size)
    snprintf(buffer, size, "%s", message);
}

EXPORT CUresult cuModuleLoadDataEx(void **out, const void *image,
                                   unsigned int num_options, int *options,
                                   void **values) {
  CUresult result = check_context();
  if (result != SUCCESS)
    return result;
  char *log = NULL;
  size_t log_size = 0;
  for (unsigned i = 0; i < num_options; ++i) {
    if (options[i] == 5)
      log = values[i];
    else if (options[i] == 6)
      log_size = (size_t)(uintptr_t)values[i];
  }
  const char *text = image;
  if (should_fail("cuModuleLoadDataEx")) {
    write_log(log, log_size, "fake ptxas: failure injected by FAKE_CUDA_FAIL");
    return INVALID_PTX;
  }
  if (memcmp(text, "\x7f" "ELF", 4) == 0)
    return INVALID_IMAGE; /* only PTX text here */
  if (!strstr(text, ".version")) {
    write_log(log, log_size, "fake ptxas: no .version directive");
    return INVALID_PTX;
  }
  module *m = calloc(1, sizeof(*m));
  if (!m)
    return OUT_OF_MEMORY;
  for (const char *p = strstr(text, ".entry"); p; p = strstr(p, ".entry")) {
    if (m->num_functions == MAX_ENTRIES) {
      free(m);
      return INVALID_PTX;
    }
    function *f = &m->functions[m->num_functions];
    p = parse_entry(p + 6, f);
    if (!p) {
      write_log(log, log_size, "fake ptxas: a malformed .entry");
      free(m);
      return INVALID_PTX;
    }
    f->module = m;
    m->num_functions++;
  }
  m->loaded = 1;
  *out = m;
  log_line("module %d entries", m->num_functions);
  return SUCCESS;
}

EXPORT CUresult cuModuleUnload(void *handle) {
  module *m = handle;
  if (!m || !m->loaded)
    return INVALID_HANDLE;
  m->loaded = 0;
  free(m);
  return SUCCESS;
}

EXPORT CUresult cuModuleGetFunction(void **out, void *handle,
                                    const char *name) {
  module *m = handle;
  if (!m || !m->loaded)
    return INVALID_HANDLE;
  for (int i = 0; i < m->num_functions; ++i)
    if (strcmp(m->functions[i].name, name) == 0) {
      *out = &m->functions[i];
      return SUCCESS;
    }
  return NOT_FOUND;
}

EXPORT CUresult cuFuncGetParamInfo(void *handle, size_t index, size_t *offset,
                                   size_t *size) {
  function *f = handle;
  if (!f || !f->module->loaded)
    return INVALID_HANDLE;
  if (index >= (size_t)f->num_params)
    return INVALID_VALUE;
  /* Only .u64 parameters are told apart: others count as 4 bytes. */
  *size = f->all_u64 ? 8 : 4;
  *offset = index * *size;
  return SUCCESS;
}

/*===--- Launches ------------------------------------------------------------===*/

/* The one kernel the fake runs: out[i] = a[i] + b[i]. */
static void add_f32(CUdeviceptr pointers[3], allocation *owners[3]) {
  size_t count = SIZE_MAX;
  for (int i = 0; i < 3; ++i) {
    size_t left = (size_t)(owners[i]->base + owners[i]->size -
                           (unsigned char *)(uintptr_t)pointers[i]);
    if (left / 4 < count)
      count = left / 4;
  }
  const unsigned char *a = (const void *)(uintptr_t)pointers[0];
  const unsigned char *b = (const void *)(uintptr_t)pointers[1];
  unsigned char *out = (void *)(uintptr_t)pointers[2];
  for (size_t i = 0; i < count; ++i) {
    float x, y;
    memcpy(&x, a + 4 * i, 4);
    memcpy(&y, b + 4 * i, 4);
    float sum = x + y;
    memcpy(out + 4 * i, &sum, 4);
  }
}

EXPORT CUresult cuLaunchKernel(void *handle, unsigned grid_x, unsigned grid_y,
                               unsigned grid_z, unsigned block_x,
                               unsigned block_y, unsigned block_z,
                               unsigned shared_bytes, void *s,
                               void **parameters, void **extra) {
  CUresult result = check_queued("cuLaunchKernel", s);
  if (result != SUCCESS)
    return result;
  function *f = handle;
  if (!f || !f->module->loaded)
    return INVALID_HANDLE;
  if (extra || !f->all_u64 || (f->num_params > 0 && !parameters))
    return INVALID_VALUE;
  if (!grid_x || !grid_y || !grid_z || !block_x || !block_y || !block_z ||
      (unsigned long long)block_x * block_y * block_z > 1024)
    return INVALID_VALUE;
  char arguments[64 * MAX_PARAMS] = "";
  CUdeviceptr pointers[MAX_PARAMS];
  allocation *owners[MAX_PARAMS];
  pthread_mutex_lock(&lock);
  for (int i = 0; i < f->num_params && result == SUCCESS; ++i) {
    memcpy(&pointers[i], parameters[i], sizeof(CUdeviceptr));
    owners[i] = find_allocation(pointers[i], 0);
    if (!owners[i]) {
      result = ILLEGAL_ADDRESS; /* a real GPU faults */
      break;
    }
    size_t used = strlen(arguments);
    snprintf(arguments + used, sizeof(arguments) - used, "%s#%d+%zu",
             i ? "," : "", owners[i]->number,
             (size_t)((unsigned char *)(uintptr_t)pointers[i] -
                      owners[i]->base));
  }
  if (result == SUCCESS && strcmp(f->name, "fake_add_f32") == 0 &&
      f->num_params == 3)
    add_f32(pointers, owners);
  pthread_mutex_unlock(&lock);
  if (result != SUCCESS)
    return result;
  log_line("launch %s grid=%u,%u,%u block=%u,%u,%u shared=%u args=%s",
           f->name, grid_x, grid_y, grid_z, block_x, block_y, block_z,
           shared_bytes, arguments);
  return SUCCESS;
}
