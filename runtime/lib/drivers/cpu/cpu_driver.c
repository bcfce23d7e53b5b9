/*===- cpu_driver.c - the "cpu" driver: host shared objects, direct calls -===*
 *
 * A CPU executable is an ELF shared object exporting the entry function and
 * its "<entry>_signature" string (see runtime.h). Buffers are host pointers
 * handed straight to the entry, which runs on the calling thread and forks
 * its parallel loops onto the OpenMP runtime's threads.
 *
 *===----------------------------------------------------------------------===*/

#include "../../services/collectives.h"
#include "../../services/host_allocator.h"
#include "../../services/library/library_calls.h"
#include "shared_object.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*entry_function)(void **buffers);

/* The driver state of a loaded executable. */
typedef struct cpu_executable {
  nlrt_shared_object object;
  entry_function entry;
  /* "<bytes> <type> <file:line:col>" lines (see EmitCEntryPoint.cpp), or
   * NULL; owned by the loaded object. */
  const char *allocation_sites;
  /* What it exports for collectives; points into the loaded object. */
  nlrt_collective_exports collectives;
} cpu_executable;

/* omp_set_num_threads of the libomp that executables with parallel loops
 * load (they link it; libnlrt does not), or NULL while none is loaded. */
typedef void (*omp_set_num_threads_function)(int);
static _Atomic(omp_set_num_threads_function) omp_set_num_threads_pointer;

/* Looks for a loaded libomp after each load: an executable that forks
 * parallel loops has just brought it in. */
static void find_openmp(void) {
  if (atomic_load_explicit(&omp_set_num_threads_pointer, memory_order_acquire))
    return;
  void *libomp = dlopen("libomp.so.5", RTLD_LAZY | RTLD_NOLOAD);
  if (!libomp)
    return;
  void *symbol = dlsym(libomp, "omp_set_num_threads");
  omp_set_num_threads_function function = NULL;
  memcpy(&function, &symbol, sizeof(function));
  if (function)
    atomic_store_explicit(&omp_set_num_threads_pointer, function,
                          memory_order_release);
  /* libomp stays loaded: the executables that loaded it hold it. */
  dlclose(libomp);
}

/* Sizes the calling thread's OpenMP team for `device`. The team size is a
 * per-thread setting in OpenMP, and each thread that forks a parallel loop
 * leads a team of its own, so devices driven from different threads run
 * on separate teams of their own sizes. */
static void use_device_threads(const nlrt_device *device) {
  if (device->num_threads <= 0)
    return;
  omp_set_num_threads_function set = atomic_load_explicit(
      &omp_set_num_threads_pointer, memory_order_acquire);
  if (set)
    set(device->num_threads);
}

/* Parallel loops in executables run on the OpenMP runtime (libomp), which
 * reads its settings from the environment once, at its first parallel
 * region: that is always after a device is opened, since executables load
 * onto one. NUMLIR_NUM_THREADS (a positive count) sets the threads; by
 * default libomp uses every core this process may run on. Idle threads
 * sleep after 1 ms instead of libomp's 200 ms of spinning, so that they do
 * not take cores from the rest of the process (XLA's or BLAS's threads, or
 * Python) between numlir's calls; an explicit KMP_BLOCKTIME wins. */
static void configure_threads(void) {
  const char *threads = getenv("NUMLIR_NUM_THREADS");
  if (threads && *threads) {
    char *end = NULL;
    long count = strtol(threads, &end, 10);
    if (*end == '\0' && count > 0)
      setenv("OMP_NUM_THREADS", threads, 1);
  }
  setenv("KMP_BLOCKTIME", "1", 0);
}

/* Checks the device options (runtime.h lists them); the runtime records
 * num_threads in the device. */
static nlrt_status check_device_options(const nlrt_device_option *options,
                                        size_t num_options) {
  for (size_t i = 0; i < num_options; ++i) {
    const nlrt_device_option *option = &options[i];
    if (strcmp(option->name, "num_threads") != 0)
      return nlrt_error(NLRT_INVALID_ARGUMENT,
                        "the cpu driver has no device option '%s' (it reads: "
                        "num_threads)",
                        option->name);
    if (option->value < 0 || option->value > 65536)
      return nlrt_error(NLRT_INVALID_ARGUMENT,
                        "cpu device option num_threads must be 0 (the "
                        "default) to 65536, got %lld",
                        (long long)option->value);
  }
  return NLRT_OK;
}

static nlrt_status cpu_device_open(int ordinal,
                                   const nlrt_device_option *options,
                                   size_t num_options, void **out_state) {
  /* Every cpu device runs on the host's cores; each has a thread team of
   * its own (num_threads). The devices need no state of their own. */
  static pthread_once_t threads_configured = PTHREAD_ONCE_INIT;
  pthread_once(&threads_configured, configure_threads);
  if (ordinal >= NLRT_CPU_MAX_DEVICES)
    return nlrt_error(NLRT_NOT_FOUND,
                      "the cpu driver has devices 0 to %d, got ordinal %d",
                      NLRT_CPU_MAX_DEVICES - 1, ordinal);
  nlrt_status status = check_device_options(options, num_options);
  if (status == NLRT_OK)
    *out_state = NULL;
  return status;
}

static void cpu_device_close(void *state) { (void)state; }

/* Writes `size` bytes of `values` into the executable's table
 * `<entry><suffix>`, if it has one. The bytes are only written if they
 * differ: the loader hands out the same object for a file loaded twice,
 * which may be running. */
static nlrt_status install_table(const nlrt_shared_object *object,
                                 const char *entry, const char *suffix,
                                 const char *what, const void *values,
                                 size_t size) {
  char name[256];
  snprintf(name, sizeof(name), "%s%s", entry, suffix);
  void *table = NULL;
  nlrt_status status =
      nlrt_shared_object_find_table(object, name, size, what, &table);
  if (status != NLRT_OK || !table)
    return status;
  if (memcmp(table, values, size) != 0)
    memcpy(table, values, size);
  return NLRT_OK;
}

/* Points the executable's allocator table at the checked allocator. */
static nlrt_status install_allocator(const nlrt_shared_object *object,
                                     const char *entry, const char *what) {
  void *(*alloc)(uint64_t) = nlrt_host_alloc;
  void *(*aligned)(uint64_t, uint64_t) = nlrt_host_aligned_alloc;
  void (*release)(void *) = nlrt_host_free;
  void *functions[3];
  /* Function pointers are data pointers' size on every target dlopen runs
   * on (POSIX requires it for dlsym). */
  memcpy(&functions[0], &alloc, sizeof(void *));
  memcpy(&functions[1], &aligned, sizeof(void *));
  memcpy(&functions[2], &release, sizeof(void *));
  return install_table(object, entry, "_allocator", what, functions,
                       sizeof(functions));
}

/* Points the executable's host callback slot at the runtime's dispatcher. */
static nlrt_status install_host_callback(const nlrt_shared_object *object,
                                         const char *entry, const char *what) {
  void (*dispatch)(uint64_t, void *const *, uint64_t, void *const *,
                   uint64_t) = nlrt_host_callback_dispatch;
  void *value;
  memcpy(&value, &dispatch, sizeof(void *));
  return install_table(object, entry, "_host_callback", what, &value,
                       sizeof(value));
}

/* Finds what the executable exports for collectives (runtime.h, "SPMD
 * launches") and points its slot at the runtime's dispatcher, as
 * install_host_callback does; the runtime checks the table itself once the
 * driver is done (nlrt_executable_create). The table's size is in its
 * header: its first 3 words are read, then the symbol must have exactly
 * the size they give. */
static nlrt_status install_collectives(const nlrt_shared_object *object,
                                       const char *entry, const char *what,
                                       nlrt_collective_exports *out) {
  *out = (nlrt_collective_exports){NULL, 0, 1, NULL};
  char name[256];
  void *found = NULL;
  snprintf(name, sizeof(name), "%s_num_replicas", entry);
  nlrt_status status = nlrt_shared_object_find_table(
      object, name, sizeof(int64_t), what, &found);
  if (status != NLRT_OK)
    return status;
  if (found)
    memcpy(&out->num_replicas, found, sizeof(int64_t));

  snprintf(name, sizeof(name), "%s_collectives", entry);
  status = nlrt_shared_object_find_prefix(object, name, 3 * sizeof(int64_t),
                                          what, &found);
  if (status != NLRT_OK)
    return status;
  if (found) {
    int64_t header[3];
    memcpy(header, found, sizeof(header));
    if (header[1] < 3 || (uint64_t)header[1] > SIZE_MAX / sizeof(int64_t))
      return nlrt_error(NLRT_LOAD_FAILED,
                        "%s: the collective table '%s' gives its length as "
                        "%lld words",
                        what, name, (long long)header[1]);
    status = nlrt_shared_object_find_table(
        object, name, (size_t)header[1] * sizeof(int64_t), what, &found);
    if (status != NLRT_OK)
      return status;
    out->table = found;
    out->table_words = (size_t)header[1];
  }

  snprintf(name, sizeof(name), "%s_collective_locations", entry);
  status = nlrt_shared_object_find_optional_string(object, name, what,
                                                   &out->locations);
  if (status != NLRT_OK)
    return status;
  void (*dispatch)(uint64_t, const void *, void *) = nlrt_collective_dispatch;
  void *value;
  memcpy(&value, &dispatch, sizeof(void *));
  return install_table(object, entry, "_collective", what, &value,
                       sizeof(value));
}

/* Checks that every library routine the executable calls is there (a
 * missing LAPACK fails the load, not a later call) and points its slot at
 * the runtime's dispatcher. */
static nlrt_status install_library_calls(const nlrt_shared_object *object,
                                         const char *entry, const char *what) {
  char name[256];
  const char *routines = NULL;
  snprintf(name, sizeof(name), "%s_library_routines", entry);
  nlrt_status status =
      nlrt_shared_object_find_optional_string(object, name, what, &routines);
  if (status != NLRT_OK || !routines)
    return status;
  status = nlrt_library_routines_check(routines, what);
  if (status != NLRT_OK)
    return status;
  void (*dispatch)(const char *, const int64_t *, void *const *) =
      nlrt_library_call_dispatch;
  void *value;
  memcpy(&value, &dispatch, sizeof(void *));
  return install_table(object, entry, "_library_call", what, &value,
                       sizeof(value));
}

/* Resolves the entry and signature in a freshly opened object and builds the
 * executable's state. Takes ownership of `object` (closed on failure). */
static nlrt_status finish_load(nlrt_shared_object object, const char *entry,
                               const char *what, void **out_state,
                               const char **out_signature) {
  char signature_name[256];
  snprintf(signature_name, sizeof(signature_name), "%s_signature", entry);

  void *function = NULL;
  const char *signature = NULL;
  const char *sites = NULL;
  nlrt_collective_exports collectives;
  cpu_executable *executable = NULL;
  nlrt_status status =
      nlrt_shared_object_find_function(&object, entry, what, &function);
  if (status == NLRT_OK)
    status = nlrt_shared_object_find_string(&object, signature_name, what,
                                            &signature);
  if (status == NLRT_OK)
    status = install_allocator(&object, entry, what);
  if (status == NLRT_OK)
    status = install_host_callback(&object, entry, what);
  if (status == NLRT_OK)
    status = install_collectives(&object, entry, what, &collectives);
  if (status == NLRT_OK)
    status = install_library_calls(&object, entry, what);
  if (status == NLRT_OK) {
    char sites_name[256];
    snprintf(sites_name, sizeof(sites_name), "%s_allocation_sites", entry);
    status = nlrt_shared_object_find_optional_string(&object, sites_name,
                                                     what, &sites);
  }
  if (status == NLRT_OK) {
    executable = calloc(1, sizeof(*executable));
    if (!executable)
      status = nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory");
  }
  if (status != NLRT_OK) {
    nlrt_shared_object_close(&object);
    return status;
  }
  executable->object = object;
  executable->allocation_sites = sites;
  executable->collectives = collectives;
  /* dlsym returns void *; POSIX guarantees it converts to a function
   * pointer, ISO C does not, so copy the bits. */
  memcpy(&executable->entry, &function, sizeof(executable->entry));
  find_openmp();
  *out_state = executable;
  *out_signature = signature;
  return NLRT_OK;
}

static nlrt_status cpu_load_file(nlrt_device *device, const char *path,
                                 const char *entry, void **out_state,
                                 const char **out_signature) {
  (void)device;
  char what[512];
  snprintf(what, sizeof(what), "executable '%s'", path);
  nlrt_shared_object object;
  nlrt_status status = nlrt_shared_object_open_file(path, what, &object);
  if (status != NLRT_OK)
    return status;
  return finish_load(object, entry, what, out_state, out_signature);
}

static nlrt_status cpu_load(nlrt_device *device, const void *data, size_t size,
                            const char *entry, const char *what,
                            void **out_state, const char **out_signature) {
  (void)device;
  nlrt_shared_object object;
  nlrt_status status =
      nlrt_shared_object_open_memory(data, size, what, &object);
  if (status != NLRT_OK)
    return status;
  return finish_load(object, entry, what, out_state, out_signature);
}

static void cpu_collectives(void *state, nlrt_collective_exports *out) {
  *out = ((const cpu_executable *)state)->collectives;
}

static void cpu_executable_release(void *state) {
  cpu_executable *executable = state;
  nlrt_shared_object_close(&executable->object);
  free(executable);
}

/* Whether a static buffer of `bytes` explains a request of `size` bytes
 * (aligned requests are rounded up to a multiple of the alignment). */
static bool site_matches(unsigned long long bytes,
                         const nlrt_host_failure *failure) {
  if (bytes == failure->size)
    return true;
  uint64_t alignment = failure->alignment;
  return alignment && bytes <= failure->size &&
         failure->size - bytes < alignment && failure->size % alignment == 0;
}

/* " f32[1000000,1000000]" and " for the operation at x.py:3:5 (or ...)"
 * from the allocation sites whose size matches the failed request. */
static void describe_sites(const char *sites, const nlrt_host_failure *failure,
                           char *type, size_t type_capacity, char *where,
                           size_t where_capacity) {
  type[0] = where[0] = '\0';
  int matches = 0;
  for (const char *line = sites; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line) : strlen(line);
    char text[1024];
    if (length < sizeof(text)) {
      memcpy(text, line, length);
      text[length] = '\0';
      unsigned long long bytes;
      int type_start, type_end, location;
      if (sscanf(text, "%llu %n%*s%n %n", &bytes, &type_start, &type_end,
                 &location) == 1 &&
          text[location] != '\0' && site_matches(bytes, failure) && matches < 3) {
        if (matches == 0)
          snprintf(type, type_capacity, " %.*s", type_end - type_start,
                   text + type_start);
        size_t used = strlen(where);
        snprintf(where + used, where_capacity - used, "%s%s",
                 matches == 0 ? " for the operation at "
                              : (matches == 1 ? " (or " : ", "),
                 text + location);
        ++matches;
      }
    }
    line = end ? end + 1 : NULL;
  }
  if (matches > 1) {
    size_t used = strlen(where);
    snprintf(where + used, where_capacity - used, ")");
  }
}

static nlrt_status cpu_execute(nlrt_executable *base, void *state,
                               void *const *buffers) {
  cpu_executable *executable = state;
  use_device_threads(base->device);
  nlrt_host_failure failure;
  /* The entry takes void ** by contract but never writes the array. */
  nlrt_status status =
      nlrt_host_call_run(executable->entry, (void **)buffers, &failure);
  if (status == NLRT_OK)
    return NLRT_OK;
  if (failure.recorded) /* the collective or library dispatcher said why */
    return status;
  if (status == NLRT_HOST_CALLBACK_FAILED)
    return nlrt_error(NLRT_HOST_CALLBACK_FAILED,
                      "'%s' (%s): host callback %llu failed", base->entry,
                      base->signature_text,
                      (unsigned long long)failure.size);
  char human[32], type[256], where[1024];
  nlrt_format_bytes(failure.size, human, sizeof(human));
  describe_sites(executable->allocation_sites, &failure, type, sizeof(type),
                 where, sizeof(where));
  return nlrt_error(NLRT_OUT_OF_MEMORY,
                    "'%s' (%s) ran out of memory: allocating a temporary%s "
                    "buffer of %llu bytes (%s)%s failed (%s)",
                    base->entry, base->signature_text, type,
                    (unsigned long long)failure.size, human, where,
                    strerror(failure.error));
}

/* Buffers are host memory from the runtime's allocator (no buffer
 * functions), and calls run to completion (no synchronize). */
const nlrt_driver nlrt_cpu_driver = {
    .version = NLRT_DRIVER_INTERFACE_VERSION,
    .name = "cpu",
    .device_open = cpu_device_open,
    .device_close = cpu_device_close,
    .load = cpu_load,
    .load_file = cpu_load_file,
    .executable_release = cpu_executable_release,
    .execute = cpu_execute,
    .collectives = cpu_collectives,
};
