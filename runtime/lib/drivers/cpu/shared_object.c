/*===- shared_object.c - dlopen from a path, a memfd or a temporary file --===*
 *
 * glibc's loader reuses an already-loaded object whose path matches the one
 * requested, so every path used for an in-memory image must be unique among
 * the loaded objects: a memfd's /proc/self/fd/N stays open (reserving N) until
 * its object is unloaded, and a temporary file's name is checked with
 * RTLD_NOLOAD before use.
 *
 * Held memfds count against the process's descriptor limit (often 1024), and
 * an eager program may keep thousands of small executables alive. So only a
 * budget of them goes through memfds; the rest use temporary files, which
 * hold no descriptor once loaded.
 *
 *===----------------------------------------------------------------------===*/

#include "shared_object.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <link.h>
#define NLRT_HAVE_DLADDR1 1
#endif

static const char *loader_error(void) {
  const char *message = dlerror();
  return message ? message : "unknown loader error";
}

static bool is_loaded(const char *path) {
  void *handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (!handle)
    return false;
  dlclose(handle); /* balance the reference RTLD_NOLOAD added */
  return true;
}

static bool write_all(int fd, const void *data, size_t size) {
  const char *bytes = data;
  while (size > 0) {
    ssize_t written = write(fd, bytes, size);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    bytes += written;
    size -= (size_t)written;
  }
  return true;
}

nlrt_status nlrt_shared_object_open_file(const char *path,
                                         nlrt_shared_object *out) {
  struct stat info;
  if (stat(path, &info) != 0)
    return nlrt_error(errno == ENOENT ? NLRT_NOT_FOUND : NLRT_LOAD_FAILED,
                      "cannot open executable '%s': %s", path,
                      strerror(errno));
  if (!S_ISREG(info.st_mode))
    return nlrt_error(NLRT_LOAD_FAILED,
                      "cannot open executable '%s': not a regular file", path);

  /* Without a '/', dlopen would search the library path instead of the
   * current directory. */
  char *relative = NULL;
  if (!strchr(path, '/')) {
    size_t size = strlen(path) + 3;
    relative = malloc(size);
    if (!relative)
      return nlrt_error(NLRT_INTERNAL, "out of memory");
    snprintf(relative, size, "./%s", path);
  }
  void *handle = dlopen(relative ? relative : path, RTLD_NOW | RTLD_LOCAL);
  free(relative);
  if (!handle)
    return nlrt_error(NLRT_LOAD_FAILED, "cannot load executable '%s': %s",
                      path, loader_error());
  out->handle = handle;
  out->memfd = -1;
  return NLRT_OK;
}

/* How many memfds the runtime holds at most: an eighth of the soft
 * descriptor limit, capped at 128, so the application keeps the rest. */
static size_t memfd_budget(void) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return 128;
  size_t budget = (size_t)(limit.rlim_cur / 8);
  return budget < 128 ? budget : 128;
}

static atomic_size_t held_memfds;

/* Loads `data` through a memfd. Fails quietly (returns false) so that the
 * caller can fall back to a temporary file; a loader complaint is copied to
 * `loader_message` (left empty otherwise). */
static bool open_memfd(const void *data, size_t size, nlrt_shared_object *out,
                       char *loader_message, size_t capacity) {
  loader_message[0] = '\0';
  if (atomic_fetch_add(&held_memfds, 1) >= memfd_budget()) {
    atomic_fetch_sub(&held_memfds, 1);
    return false;
  }
  int fd = memfd_create("numlir-executable", MFD_CLOEXEC);
  void *handle = NULL;
  if (fd >= 0) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    /* Someone else in the process may use the same trick carelessly. */
    if (write_all(fd, data, size) && !is_loaded(path)) {
      handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (!handle)
        snprintf(loader_message, capacity, "%s", loader_error());
    }
  }
  if (!handle) {
    if (fd >= 0)
      close(fd);
    atomic_fetch_sub(&held_memfds, 1);
    return false;
  }
  out->handle = handle;
  out->memfd = fd;
  return true;
}

static nlrt_status open_temporary_file(const void *data, size_t size,
                                       nlrt_shared_object *out) {
  const char *directory = getenv("TMPDIR");
  if (!directory || !*directory)
    directory = "/tmp";
  char path[4096];
  /* A few tries, in case a name is still held by a loaded object whose file
   * was already unlinked (see the file comment). */
  for (int attempt = 0; attempt < 8; ++attempt) {
    int length =
        snprintf(path, sizeof(path), "%s/numlir-executable-XXXXXX.so",
                 directory);
    if (length < 0 || (size_t)length >= sizeof(path))
      return nlrt_error(NLRT_INTERNAL, "TMPDIR path is too long");
    int fd = mkostemps(path, 3, O_CLOEXEC);
    if (fd < 0)
      return nlrt_error(NLRT_INTERNAL,
                        "cannot create a temporary file in '%s': %s",
                        directory, strerror(errno));
    bool written = write_all(fd, data, size);
    int write_errno = errno;
    close(fd);
    if (!written) {
      unlink(path);
      return nlrt_error(NLRT_INTERNAL, "cannot write '%s': %s", path,
                        strerror(write_errno));
    }
    if (is_loaded(path)) {
      unlink(path);
      continue;
    }
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    /* The mapping outlives the name; unlink now so nothing is left behind
     * even if the process dies. */
    nlrt_status status = NLRT_OK;
    if (!handle)
      status = nlrt_error(NLRT_LOAD_FAILED,
                          "cannot load executable image (%zu bytes): %s", size,
                          loader_error());
    unlink(path);
    if (status != NLRT_OK)
      return status;
    out->handle = handle;
    out->memfd = -1;
    return NLRT_OK;
  }
  return nlrt_error(NLRT_INTERNAL,
                    "no unused temporary file name in '%s' after 8 tries",
                    directory);
}

nlrt_status nlrt_shared_object_open_memory(const void *data, size_t size,
                                           nlrt_shared_object *out) {
  /* Catch the common mistake early, with a clearer message than the
   * loader's, and without touching the file system. */
  if (size < 4 || memcmp(data, "\x7f" "ELF", 4) != 0)
    return nlrt_error(NLRT_LOAD_FAILED,
                      "executable image (%zu bytes) is not an ELF shared "
                      "object (bad magic)",
                      size);
  char loader_message[1024];
  if (open_memfd(data, size, out, loader_message, sizeof(loader_message)))
    return NLRT_OK;
  /* No memfd (old kernel, seccomp, no /proc, over budget) or the loader
   * refused it: the temporary file either works or reports the loader's
   * complaint, unless it could not even be written. */
  nlrt_status status = open_temporary_file(data, size, out);
  if (status == NLRT_INTERNAL && loader_message[0])
    return nlrt_error(NLRT_LOAD_FAILED,
                      "cannot load executable image (%zu bytes): %s", size,
                      loader_message);
  return status;
}

void nlrt_shared_object_close(nlrt_shared_object *object) {
  if (object->handle)
    dlclose(object->handle);
  if (object->memfd >= 0) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", object->memfd);
    /* An object marked NODELETE (e.g. one with STB_GNU_UNIQUE symbols) stays
     * loaded; keep its descriptor open for good so its path is never
     * reused. */
    if (!is_loaded(path)) {
      close(object->memfd);
      atomic_fetch_sub(&held_memfds, 1);
    }
  }
  object->handle = NULL;
  object->memfd = -1;
}

static void *find_symbol(const nlrt_shared_object *object, const char *name) {
  dlerror(); /* clear a stale error */
  return dlsym(object->handle, name);
}

/* Reads the ELF symbol table entry of the symbol at `address`: its type
 * (STT_*) and size. False where the platform cannot tell. */
static bool describe_symbol(const void *address, int *type, size_t *size) {
#ifdef NLRT_HAVE_DLADDR1
  Dl_info info;
  const ElfW(Sym) *symbol = NULL;
  if (dladdr1(address, &info, (void **)&symbol, RTLD_DL_SYMENT) && symbol &&
      info.dli_saddr == address) {
    /* The type bits sit in the same place in ELF32 and ELF64. */
    *type = ELF32_ST_TYPE(symbol->st_info);
    *size = symbol->st_size;
    return true;
  }
#else
  (void)address;
  (void)type;
  (void)size;
#endif
  return false;
}

nlrt_status nlrt_shared_object_find_function(const nlrt_shared_object *object,
                                             const char *name,
                                             const char *what, void **out) {
  void *symbol = find_symbol(object, name);
  if (!symbol)
    return nlrt_error(NLRT_NOT_FOUND,
                      "%s has no entry point '%s' (expected "
                      "void %s(void **buffers))",
                      what, name, name);
  int type;
  size_t size;
  if (describe_symbol(symbol, &type, &size) && type != STT_FUNC &&
      type != STT_GNU_IFUNC)
    return nlrt_error(NLRT_LOAD_FAILED,
                      "%s: entry point '%s' is not a function", what, name);
  *out = symbol;
  return NLRT_OK;
}

nlrt_status nlrt_shared_object_find_string(const nlrt_shared_object *object,
                                           const char *name, const char *what,
                                           const char **out) {
  const char *symbol = find_symbol(object, name);
  if (!symbol)
    return nlrt_error(NLRT_NOT_FOUND,
                      "%s has no signature symbol '%s' (expected "
                      "const char %s[])",
                      what, name, name);
  /* The symbol table knows the array's size: check the terminator is inside
   * it rather than trusting the object and reading past its end. */
  int type;
  size_t size;
  if (describe_symbol(symbol, &type, &size)) {
    if (type == STT_FUNC || type == STT_GNU_IFUNC)
      return nlrt_error(NLRT_LOAD_FAILED,
                        "%s: signature symbol '%s' is a function, expected "
                        "const char %s[]",
                        what, name, name);
    if (size > 0 && strnlen(symbol, size) == size)
      return nlrt_error(NLRT_LOAD_FAILED,
                        "%s: signature symbol '%s' is not NUL-terminated",
                        what, name);
  }
  *out = symbol;
  return NLRT_OK;
}
