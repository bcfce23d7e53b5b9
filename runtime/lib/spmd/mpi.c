/*===- mpi.c - libmpi through dlopen: nlrt_mpi_initialize and friends ----===*
 *
 * libnlrt builds and runs without MPI: libmpi is opened only when a program
 * asks for processes (nlrt_mpi_initialize). Its ABI is written out here by
 * hand, and only Open MPI's (4.x, 5.x) is spoken: there every handle
 * (MPI_Comm, MPI_Datatype, MPI_Request, MPI_Errhandler) is a pointer, and
 * the predefined ones are the addresses of exported objects
 * (MPI_COMM_WORLD is &ompi_mpi_comm_world). MPICH's handles are integers,
 * so a library without `ompi_mpi_comm_world` is refused rather than
 * misread. runtime/test/mpi_abi_check.c compares these constants with
 * Open MPI's mpi.h where one is installed.
 *
 *===----------------------------------------------------------------------===*/

#include "mpi.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Open MPI's values (mpi.h). */
#define MPI_SUCCESS 0
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3
#define MPI_IN_PLACE ((void *)1)
#define MPI_STATUS_IGNORE NULL
/* MPI_MAX_ERROR_STRING and MPI_MAX_LIBRARY_VERSION_STRING are 256 in 5.x;
 * larger buffers are safe whatever a version chose. */
#define ERROR_STRING_BYTES 4096
#define VERSION_STRING_BYTES 4096

/* Polling: MPI_Tests back to back (yielding the core between them) for the
 * first POLL_SPIN_NS of a wait, as MPI's own blocking calls spin; then one
 * per short sleep, so that a process waiting long for its peers (one still
 * compiling, say) does not keep a core. Sleeping from the start cost a
 * 1 MiB psum about a third of its time: each step of MPI's protocol waited
 * for the next test. */
#define POLL_SPIN_NS 20000000u
#define POLL_SLEEP_NS 30000

typedef void *mpi_handle; /* MPI_Comm, MPI_Datatype, MPI_Request, ... */

/* The functions the runtime calls, with Open MPI's signatures. */
typedef struct mpi_api {
  int (*Initialized)(int *flag);
  int (*Finalized)(int *flag);
  int (*Init_thread)(int *argc, char ***argv, int required, int *provided);
  int (*Query_thread)(int *provided);
  int (*Comm_rank)(mpi_handle comm, int *rank);
  int (*Comm_size)(mpi_handle comm, int *size);
  int (*Get_library_version)(char *version, int *length);
  int (*Error_string)(int code, char *string, int *length);
  int (*Comm_idup)(mpi_handle comm, mpi_handle *out, mpi_handle *request);
  int (*Comm_set_errhandler)(mpi_handle comm, mpi_handle handler);
  int (*Comm_free)(mpi_handle *comm);
  int (*Iallgather)(const void *send, int send_count, mpi_handle send_type,
                    void *recv, int recv_count, mpi_handle recv_type,
                    mpi_handle comm, mpi_handle *request);
  int (*Ialltoallv)(const void *send, const int send_counts[],
                    const int send_displacements[], mpi_handle send_type,
                    void *recv, const int recv_counts[],
                    const int recv_displacements[], mpi_handle recv_type,
                    mpi_handle comm, mpi_handle *request);
  int (*Iallgatherv)(const void *send, int send_count, mpi_handle send_type,
                     void *recv, const int recv_counts[],
                     const int displacements[], mpi_handle recv_type,
                     mpi_handle comm, mpi_handle *request);
  int (*Test)(mpi_handle *request, int *flag, void *status);
  int (*Finalize)(void);
  mpi_handle comm_world, byte, errors_return;
} mpi_api;

/* Everything below is guarded by `state_mutex`, which is also held around
 * every MPI call: the runtime's threads reach MPI one at a time. */
static pthread_mutex_t state_mutex = PTHREAD_MUTEX_INITIALIZER;
static void *library_handle;
static mpi_api api;
static bool ready;            /* initialized through nlrt_mpi_initialize */
static bool finalized;        /* by nlrt_mpi_finalize */
static size_t alive;          /* duplicates not yet freed */
static nlrt_mpi_info info_of_process;

/*===--- Loading -----------------------------------------------------------===*/

/* dlopens `name`; on failure appends dlerror to `errors`. */
static void *open_library(const char *name, int flags, char *errors,
                          size_t capacity) {
  void *handle = dlopen(name, flags);
  if (!handle && errors) {
    size_t used = strlen(errors);
    const char *why = dlerror();
    snprintf(errors + used, capacity - used, "%s%s", used ? "; " : "",
             why ? why : name);
  }
  return handle;
}

/* The search order of runtime.h: `library`, else $NUMLIR_MPI_LIBRARY, a
 * libmpi the process has loaded (mpi4py's), then the system loader's. */
static void *find_library(const char *library, char *errors, size_t capacity) {
  /* RTLD_GLOBAL: Open MPI's components, which it may dlopen itself, resolve
   * their libmpi symbols through the global scope. */
  const int flags = RTLD_NOW | RTLD_GLOBAL;
  if (library)
    return open_library(library, flags, errors, capacity);
  const char *from_environment = getenv("NUMLIR_MPI_LIBRARY");
  if (from_environment && *from_environment)
    return open_library(from_environment, flags, errors, capacity);
  void *handle = dlopen("libmpi.so.40", flags | RTLD_NOLOAD);
  if (handle)
    return handle;
  handle = open_library("libmpi.so.40", flags, errors, capacity);
  if (!handle)
    handle = open_library("libmpi.so", flags, errors, capacity);
  return handle;
}

/* Resolves every symbol into `out`; false (naming the first missing) if one
 * is not there. */
static bool resolve(void *handle, mpi_api *out, char *missing,
                    size_t capacity) {
  struct {
    const char *name;
    void **slot;
  } symbols[] = {
      {"MPI_Initialized", (void **)&out->Initialized},
      {"MPI_Finalized", (void **)&out->Finalized},
      {"MPI_Init_thread", (void **)&out->Init_thread},
      {"MPI_Query_thread", (void **)&out->Query_thread},
      {"MPI_Comm_rank", (void **)&out->Comm_rank},
      {"MPI_Comm_size", (void **)&out->Comm_size},
      {"MPI_Get_library_version", (void **)&out->Get_library_version},
      {"MPI_Error_string", (void **)&out->Error_string},
      {"MPI_Comm_idup", (void **)&out->Comm_idup},
      {"MPI_Comm_set_errhandler", (void **)&out->Comm_set_errhandler},
      {"MPI_Comm_free", (void **)&out->Comm_free},
      {"MPI_Iallgather", (void **)&out->Iallgather},
      {"MPI_Ialltoallv", (void **)&out->Ialltoallv},
      {"MPI_Iallgatherv", (void **)&out->Iallgatherv},
      {"MPI_Test", (void **)&out->Test},
      {"MPI_Finalize", (void **)&out->Finalize},
      {"ompi_mpi_byte", &out->byte},
      {"ompi_mpi_errors_return", &out->errors_return},
  };
  for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); ++i) {
    *symbols[i].slot = dlsym(handle, symbols[i].name);
    if (!*symbols[i].slot) {
      snprintf(missing, capacity, "%s", symbols[i].name);
      return false;
    }
  }
  return true;
}

/* The file the library was loaded from, for nlrt_mpi_info. */
static void library_path(void *symbol, const char *fallback, char *out,
                         size_t capacity) {
  Dl_info where;
  if (dladdr(symbol, &where) && where.dli_fname)
    snprintf(out, capacity, "%s", where.dli_fname);
  else
    snprintf(out, capacity, "%s", fallback ? fallback : "libmpi");
}

/* MPI's text for an error code. The caller holds state_mutex. */
static void error_string(int code, char *out, size_t capacity) {
  char text[ERROR_STRING_BYTES] = "";
  int length = 0;
  if (api.Error_string(code, text, &length) != MPI_SUCCESS)
    snprintf(text, sizeof(text), "MPI error %d", code);
  snprintf(out, capacity, "%s", text);
}

/* Opens and checks libmpi into `api`, then initializes MPI unless it is
 * already. The caller holds state_mutex. */
static nlrt_status load_and_initialize(const char *library) {
  char errors[2048] = "";
  void *handle = find_library(library, errors, sizeof(errors));
  if (!handle)
    return nlrt_error(NLRT_UNAVAILABLE,
                      "cannot load libmpi (%s): install Open MPI (make setup "
                      "installs it) or name the library with "
                      "NUMLIR_MPI_LIBRARY",
                      errors);
  char path[1024];
  mpi_api loaded;
  memset(&loaded, 0, sizeof(loaded));
  loaded.comm_world = dlsym(handle, "ompi_mpi_comm_world");
  void *any = dlsym(handle, "MPI_Init_thread");
  library_path(any ? any : loaded.comm_world, library, path, sizeof(path));
  if (!loaded.comm_world) {
    dlclose(handle);
    return nlrt_error(NLRT_UNAVAILABLE,
                      "%s is not Open MPI (it has no ompi_mpi_comm_world): "
                      "the runtime speaks only Open MPI's ABI (4.x, 5.x)",
                      path);
  }
  char missing[64];
  if (!resolve(handle, &loaded, missing, sizeof(missing))) {
    dlclose(handle);
    return nlrt_error(NLRT_UNAVAILABLE,
                      "%s lacks %s: the runtime needs Open MPI 4.x or 5.x "
                      "(MPI-3)",
                      path, missing);
  }
  api = loaded;
  int flag = 0;
  api.Finalized(&flag);
  if (flag) {
    dlclose(handle);
    return nlrt_error(NLRT_UNAVAILABLE,
                      "MPI was finalized already: it cannot be initialized "
                      "again in this process");
  }
  api.Initialized(&flag);
  int provided = 0, initialized_here = 0;
  if (!flag) {
    int code = api.Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    if (code != MPI_SUCCESS) {
      dlclose(handle);
      return nlrt_error(NLRT_INTERNAL, "MPI_Init_thread (%s) failed: code %d",
                        path, code);
    }
    initialized_here = 1;
  } else {
    api.Query_thread(&provided);
  }
  if (provided < MPI_THREAD_SERIALIZED)
    /* libmpi stays loaded: MPI is initialized, and a later call finds it
     * again with the same answer. */
    return nlrt_error(NLRT_UNAVAILABLE,
                      "MPI was initialized with thread level %d; the runtime "
                      "needs MPI_THREAD_SERIALIZED (2) or MPI_THREAD_MULTIPLE "
                      "(3), because device threads make its calls (with "
                      "mpi4py, set mpi4py.rc.thread_level = \"multiple\" "
                      "before importing MPI)",
                      provided);
  nlrt_mpi_info *info = &info_of_process;
  memset(info, 0, sizeof(*info));
  api.Comm_rank(api.comm_world, &info->rank);
  api.Comm_size(api.comm_world, &info->size);
  info->initialized_here = initialized_here;
  info->thread_level = provided;
  snprintf(info->library, sizeof(info->library), "%s", path);
  char version[VERSION_STRING_BYTES] = "";
  int length = 0;
  if (api.Get_library_version(version, &length) == MPI_SUCCESS) {
    version[sizeof(version) - 1] = '\0';
    version[strcspn(version, "\n")] = '\0';
    snprintf(info->version, sizeof(info->version), "%.*s",
             (int)sizeof(info->version) - 1, version);
  }
  library_handle = handle;
  ready = true;
  return NLRT_OK;
}

/* Whether `library` names the libmpi already loaded. */
static bool is_loaded_library(const char *library) {
  void *handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
  if (!handle)
    return false;
  bool same = handle == library_handle;
  dlclose(handle);
  return same;
}

NLRT_API nlrt_status nlrt_mpi_initialize(const char *library,
                                         nlrt_mpi_info *info) {
  pthread_mutex_lock(&state_mutex);
  nlrt_status status = NLRT_OK;
  if (finalized) {
    status = nlrt_error(NLRT_UNAVAILABLE,
                        "nlrt_mpi_initialize after nlrt_mpi_finalize: MPI "
                        "cannot be initialized twice in one process");
  } else if (ready) {
    if (library && !is_loaded_library(library))
      status = nlrt_error(NLRT_INVALID_ARGUMENT,
                          "nlrt_mpi_initialize: MPI is initialized with %s "
                          "already; it cannot switch to %s",
                          info_of_process.library, library);
  } else {
    status = load_and_initialize(library);
  }
  if (status == NLRT_OK && info)
    *info = info_of_process;
  pthread_mutex_unlock(&state_mutex);
  return status;
}

NLRT_API void nlrt_mpi_finalize(void) {
  pthread_mutex_lock(&state_mutex);
  if (ready && alive == 0 && info_of_process.initialized_here) {
    int flag = 0;
    api.Finalized(&flag);
    if (!flag)
      api.Finalize();
    ready = false;
    finalized = true;
  }
  pthread_mutex_unlock(&state_mutex);
}

bool nlrt_mpi_ready(int *rank, int *size) {
  pthread_mutex_lock(&state_mutex);
  bool is_ready = ready;
  if (ready) {
    *rank = info_of_process.rank;
    *size = info_of_process.size;
  }
  pthread_mutex_unlock(&state_mutex);
  return is_ready;
}

/*===--- Requests ----------------------------------------------------------===*/

static uint64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Polls `request` until it completes, fails or `timeout_ns` passes.
 * MPI_Test drives MPI's progress, so a caller that sleeps between tests
 * still moves data; the lock is dropped while sleeping so that other
 * communicators' leaders get their turn. */
static nlrt_mpi_outcome wait_for(mpi_handle *request, uint64_t timeout_ns,
                                 const char *what, char *message,
                                 size_t capacity) {
  uint64_t start = now_ns(), deadline = start + timeout_ns;
  for (;;) {
    int done = 0;
    pthread_mutex_lock(&state_mutex);
    int code = api.Test(request, &done, MPI_STATUS_IGNORE);
    char text[512] = "";
    if (code != MPI_SUCCESS)
      error_string(code, text, sizeof(text));
    pthread_mutex_unlock(&state_mutex);
    if (code != MPI_SUCCESS) {
      snprintf(message, capacity, "%s failed: %s", what, text);
      return NLRT_MPI_FAILED;
    }
    if (done)
      return NLRT_MPI_DONE;
    uint64_t now = now_ns();
    if (now >= deadline) {
      snprintf(message, capacity, "%s timed out", what);
      return NLRT_MPI_TIMED_OUT;
    }
    if (now - start < POLL_SPIN_NS) {
      sched_yield();
      continue;
    }
    struct timespec pause = {0, POLL_SLEEP_NS};
    nanosleep(&pause, NULL);
  }
}

nlrt_mpi_outcome nlrt_mpi_dup_world(void **out_comm, uint64_t timeout_ns,
                                    char *message, size_t capacity) {
  /* Static storage for a dup that times out: MPI may write the handle
   * whenever the other processes come, long after this call returned. */
  mpi_handle *comm = malloc(sizeof(*comm));
  if (!comm) {
    snprintf(message, capacity, "out of memory");
    return NLRT_MPI_FAILED;
  }
  *comm = NULL;
  mpi_handle request = NULL;
  pthread_mutex_lock(&state_mutex);
  int code = api.Comm_idup(api.comm_world, comm, &request);
  char text[512] = "";
  if (code != MPI_SUCCESS)
    error_string(code, text, sizeof(text));
  pthread_mutex_unlock(&state_mutex);
  if (code != MPI_SUCCESS) {
    free(comm);
    snprintf(message, capacity, "MPI_Comm_idup failed: %s", text);
    return NLRT_MPI_FAILED;
  }
  nlrt_mpi_outcome outcome =
      wait_for(&request, timeout_ns, "MPI_Comm_idup", message, capacity);
  if (outcome != NLRT_MPI_DONE)
    return outcome; /* `comm` is MPI's now: never freed */
  pthread_mutex_lock(&state_mutex);
  code = api.Comm_set_errhandler(*comm, api.errors_return);
  if (code != MPI_SUCCESS) {
    error_string(code, text, sizeof(text));
    api.Comm_free(comm);
  } else {
    ++alive;
  }
  pthread_mutex_unlock(&state_mutex);
  if (code != MPI_SUCCESS) {
    free(comm);
    snprintf(message, capacity, "MPI_Comm_set_errhandler failed: %s", text);
    return NLRT_MPI_FAILED;
  }
  *out_comm = *comm;
  free(comm);
  return NLRT_MPI_DONE;
}

void nlrt_mpi_free(void *comm, bool really) {
  pthread_mutex_lock(&state_mutex);
  if (really) {
    mpi_handle handle = comm;
    api.Comm_free(&handle);
  }
  --alive;
  pthread_mutex_unlock(&state_mutex);
}

/* A collective just posted (state_mutex released), whose poster returned
 * `code`: waits for `request`, or says why there is none. */
static nlrt_mpi_outcome await_posted(int code, mpi_handle *request,
                                     const char *what, uint64_t timeout_ns,
                                     char *message, size_t capacity) {
  if (code != MPI_SUCCESS) {
    char text[512] = "";
    pthread_mutex_lock(&state_mutex);
    error_string(code, text, sizeof(text));
    pthread_mutex_unlock(&state_mutex);
    snprintf(message, capacity, "%s failed: %s", what, text);
    return NLRT_MPI_FAILED;
  }
  return wait_for(request, timeout_ns, what, message, capacity);
}

nlrt_mpi_outcome nlrt_mpi_allgather(void *comm, const void *send, void *recv,
                                    size_t bytes, uint64_t timeout_ns,
                                    char *message, size_t capacity) {
  if (bytes > INT_MAX) {
    snprintf(message, capacity,
             "%zu bytes per process exceed MPI's count limit (%d)", bytes,
             INT_MAX);
    return NLRT_MPI_FAILED;
  }
  mpi_handle request = NULL;
  pthread_mutex_lock(&state_mutex);
  int code = send ? api.Iallgather(send, (int)bytes, api.byte, recv,
                                   (int)bytes, api.byte, comm, &request)
                   : api.Iallgather(MPI_IN_PLACE, 0, api.byte, recv,
                                    (int)bytes, api.byte, comm, &request);
  pthread_mutex_unlock(&state_mutex);
  return await_posted(code, &request, "MPI_Iallgather", timeout_ns, message,
                      capacity);
}

nlrt_mpi_outcome nlrt_mpi_alltoallv(void *comm, const void *send,
                                    const int *send_bytes, const int *send_at,
                                    void *recv, const int *recv_bytes,
                                    const int *recv_at, uint64_t timeout_ns,
                                    char *message, size_t capacity) {
  mpi_handle request = NULL;
  pthread_mutex_lock(&state_mutex);
  int code = api.Ialltoallv(send, send_bytes, send_at, api.byte, recv,
                            recv_bytes, recv_at, api.byte, comm, &request);
  pthread_mutex_unlock(&state_mutex);
  return await_posted(code, &request, "MPI_Ialltoallv", timeout_ns, message,
                      capacity);
}

nlrt_mpi_outcome nlrt_mpi_allgatherv(void *comm, void *buffer,
                                     const int *bytes, const int *at,
                                     uint64_t timeout_ns, char *message,
                                     size_t capacity) {
  mpi_handle request = NULL;
  pthread_mutex_lock(&state_mutex);
  int code = api.Iallgatherv(MPI_IN_PLACE, 0, api.byte, buffer, bytes, at,
                             api.byte, comm, &request);
  pthread_mutex_unlock(&state_mutex);
  return await_posted(code, &request, "MPI_Iallgatherv", timeout_ns, message,
                      capacity);
}
