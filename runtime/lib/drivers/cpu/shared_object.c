/*===- shared_object.c - dlopen from a path, a memfd or a temporary file --===*
 *
 * glibc's loader reuses an already-loaded object whose path string matches
 * the one requested, so every path used for an in-memory image must differ
 * from the names of all loaded objects. A memfd is loaded as
 * /proc/self/fd/N, and N is reused as soon as the descriptor is closed; so
 * the path also spells a per-process serial number, as the pattern of single
 * and double slashes before a chain of "." components (the kernel resolves
 * them all to the same file). With unique names the descriptor can be closed
 * right after dlopen: the mappings keep the memory file alive, and a loaded
 * executable holds no descriptor, however many are loaded.
 *
 * Where memfds cannot be loaded (no memfd_create, no /proc, memfds mapped
 * noexec), the image goes through a file in $TMPDIR that is unlinked as soon
 * as it is loaded; a name still held by a loaded object is never reused
 * (checked with RTLD_NOLOAD).
 *
 * Before the loader sees an object, its ELF and program headers are bounds
 * checked: a truncated object would otherwise be mapped past its end and
 * fault (SIGBUS) during relocation.
 *
 *===----------------------------------------------------------------------===*/

#include "shared_object.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __GLIBC__
#define NLRT_HAVE_DLADDR1 1
#endif

/* Asks for an executable memfd where the kernel distinguishes them (Linux
 * 6.3, vm.memfd_noexec); older kernels refuse the unknown flag. */
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

static const char *loader_error(void) {
  const char *message = dlerror();
  return message ? message : "unknown loader error";
}

static bool is_loaded(const char *path) {
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
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

/*===--- ELF bounds checks -------------------------------------------------===*/

#if UINTPTR_MAX > 0xffffffffu
#define NLRT_ELF_CLASS ELFCLASS64
#else
#define NLRT_ELF_CLASS ELFCLASS32
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NLRT_ELF_DATA ELFDATA2LSB
#else
#define NLRT_ELF_DATA ELFDATA2MSB
#endif

/* Whether [offset, offset + length) lies inside an object of `size` bytes. */
static bool in_bounds(uint64_t offset, uint64_t length, size_t size) {
  return offset <= size && length <= size - offset;
}

nlrt_status nlrt_elf_check(const void *data, size_t size, const char *what) {
  const unsigned char *bytes = data;
  if (size < SELFMAG || memcmp(bytes, ELFMAG, SELFMAG) != 0)
    return nlrt_image_bad_magic(what, data, size,
                                "an ELF shared object (7f 45 4c 46)");
  if (size < sizeof(ElfW(Ehdr)))
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s is a truncated ELF object: %zu bytes, shorter than "
                      "its %zu-byte ELF header",
                      what, size, sizeof(ElfW(Ehdr)));
  ElfW(Ehdr) header;
  memcpy(&header, bytes, sizeof(header));
  if (header.e_ident[EI_CLASS] != NLRT_ELF_CLASS ||
      header.e_ident[EI_DATA] != NLRT_ELF_DATA)
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s is an ELF object for another kind of machine "
                      "(class %u, byte order %u)",
                      what, header.e_ident[EI_CLASS], header.e_ident[EI_DATA]);
  if (header.e_type != ET_DYN)
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s is an ELF object of type %u, not a shared object",
                      what, header.e_type);
  if (header.e_phnum == 0 || header.e_phentsize != sizeof(ElfW(Phdr)) ||
      !in_bounds(header.e_phoff, (uint64_t)header.e_phnum * sizeof(ElfW(Phdr)),
                 size))
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s is a truncated or damaged ELF object: its %u "
                      "program headers at offset %llu do not fit in %zu bytes",
                      what, header.e_phnum,
                      (unsigned long long)header.e_phoff, size);
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    ElfW(Phdr) segment;
    memcpy(&segment, bytes + header.e_phoff + i * sizeof(segment),
           sizeof(segment));
    if (segment.p_type == PT_NULL)
      continue;
    if (!in_bounds(segment.p_offset, segment.p_filesz, size) ||
        (segment.p_type == PT_LOAD && segment.p_filesz > segment.p_memsz))
      return nlrt_error(NLRT_INVALID_EXECUTABLE,
                        "%s is a truncated or damaged ELF object: segment %u "
                        "(bytes %llu to %llu) runs past its %zu bytes",
                        what, i, (unsigned long long)segment.p_offset,
                        (unsigned long long)segment.p_offset +
                            segment.p_filesz,
                        size);
  }
  return NLRT_OK;
}

/*===--- Loading -----------------------------------------------------------===*/

static bool read_file(const char *path, void **data, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat info;
  bool ok = fstat(fd, &info) == 0;
  *size = ok ? (size_t)info.st_size : 0;
  *data = ok ? malloc(*size ? *size : 1) : NULL;
  ok = *data != NULL;
  for (size_t done = 0; ok && done < *size;) {
    ssize_t got = pread(fd, (char *)*data + done, *size - done, (off_t)done);
    if (got < 0 && errno == EINTR)
      continue;
    ok = got > 0;
    done += ok ? (size_t)got : 0;
  }
  int saved = errno;
  close(fd);
  if (!ok) {
    free(*data);
    *data = NULL;
  }
  errno = saved;
  return ok;
}

nlrt_status nlrt_shared_object_open_file(const char *path, const char *what,
                                         nlrt_shared_object *out) {
  void *data;
  size_t size;
  if (!read_file(path, &data, &size))
    return nlrt_error(NLRT_LOAD_FAILED, "cannot read %s: %s", what,
                      strerror(errno));
  nlrt_status status = nlrt_elf_check(data, size, what);
  free(data);
  if (status != NLRT_OK)
    return status;

  /* Without a '/', dlopen would search the library path instead of the
   * current directory. */
  char *relative = NULL;
  if (!strchr(path, '/')) {
    size_t length = strlen(path) + 3;
    relative = malloc(length);
    if (!relative)
      return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory");
    snprintf(relative, length, "./%s", path);
  }
  void *handle = dlopen(relative ? relative : path, RTLD_NOW | RTLD_LOCAL);
  free(relative);
  if (!handle)
    return nlrt_error(NLRT_LOAD_FAILED, "cannot load %s: %s", what,
                      loader_error());
  out->handle = handle;
  return NLRT_OK;
}

static atomic_uint_least64_t memfd_serial;

/* "/proc/self/fd" + the bits of `serial` (most significant first; none for
 * 0) as "/." for 0 and "//." for 1 + "/N": distinct serials give distinct
 * strings, all naming descriptor N. */
static void memfd_path(int fd, uint64_t serial, char *out, size_t capacity) {
  size_t used = (size_t)snprintf(out, capacity, "/proc/self/fd");
  int top = 63;
  while (top >= 0 && !((serial >> top) & 1))
    --top;
  for (int bit = top; bit >= 0; --bit)
    used += (size_t)snprintf(out + used, capacity - used, "%s",
                             ((serial >> bit) & 1) ? "//." : "/.");
  snprintf(out + used, capacity - used, "/%d", fd);
}

static int create_memfd(void) {
  int fd = memfd_create("numlir-executable", MFD_CLOEXEC | MFD_EXEC);
  if (fd < 0 && errno == EINVAL)
    fd = memfd_create("numlir-executable", MFD_CLOEXEC);
  return fd;
}

/* Loads `data` through a memfd. Fails quietly (returns false) so that the
 * caller can fall back to a temporary file; a loader complaint is copied to
 * `loader_message` (left empty otherwise). */
static bool open_memfd(const void *data, size_t size, nlrt_shared_object *out,
                       char *loader_message, size_t capacity) {
  loader_message[0] = '\0';
  int fd = create_memfd();
  if (fd < 0)
    return false;
  /* 13 + 3 * 64 + 12 characters at most. */
  char path[256];
  memfd_path(fd, atomic_fetch_add(&memfd_serial, 1), path, sizeof(path));
  void *handle = NULL;
  /* is_loaded: someone else in the process may use the same trick. */
  if (write_all(fd, data, size) && !is_loaded(path)) {
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      snprintf(loader_message, capacity, "%s", loader_error());
  }
  close(fd);
  if (!handle)
    return false;
  out->handle = handle;
  return true;
}

static const char *temporary_directory(bool *from_environment) {
  const char *directory = getenv("TMPDIR");
  *from_environment = directory && *directory;
  return *from_environment ? directory : "/tmp";
}

/* Why `directory` cannot hold the temporary file, naming TMPDIR. */
static nlrt_status temporary_file_error(const char *directory,
                                        bool from_environment,
                                        const char *action, int error) {
  return nlrt_error(
      NLRT_INTERNAL,
      "cannot %s a temporary file for an executable in %s'%s': %s. Memory "
      "files (memfd_create) cannot be loaded here, so executables loaded "
      "from memory go through $TMPDIR; set TMPDIR to a writable directory "
      "on a file system that allows executables",
      action, from_environment ? "TMPDIR=" : "/tmp (TMPDIR is unset) ",
      directory, strerror(error));
}

static nlrt_status open_temporary_file(const void *data, size_t size,
                                       const char *what,
                                       nlrt_shared_object *out) {
  bool from_environment;
  const char *directory = temporary_directory(&from_environment);
  char path[4096];
  /* A few tries, in case a name is still held by a loaded object whose file
   * was already unlinked (see the file comment). */
  for (int attempt = 0; attempt < 8; ++attempt) {
    int length = snprintf(path, sizeof(path),
                          "%s/numlir-executable-XXXXXX.so", directory);
    if (length < 0 || (size_t)length >= sizeof(path))
      return temporary_file_error(directory, from_environment, "name",
                                  ENAMETOOLONG);
    int fd = mkostemps(path, 3, O_CLOEXEC);
    if (fd < 0)
      return temporary_file_error(directory, from_environment, "create",
                                  errno);
    bool written = write_all(fd, data, size);
    int write_errno = errno;
    close(fd);
    if (!written) {
      unlink(path);
      return temporary_file_error(directory, from_environment, "write",
                                  write_errno);
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
                          "cannot load %s (through a temporary file in "
                          "'%s'): %s",
                          what, directory, loader_error());
    unlink(path);
    if (status != NLRT_OK)
      return status;
    out->handle = handle;
    return NLRT_OK;
  }
  return nlrt_error(NLRT_INTERNAL,
                    "no unused temporary file name in '%s' after 8 tries",
                    directory);
}

nlrt_status nlrt_shared_object_open_memory(const void *data, size_t size,
                                           const char *what,
                                           nlrt_shared_object *out) {
  nlrt_status status = nlrt_elf_check(data, size, what);
  if (status != NLRT_OK)
    return status;
  char loader_message[1024];
  if (open_memfd(data, size, out, loader_message, sizeof(loader_message)))
    return NLRT_OK;
  /* No memfd (old kernel, seccomp, no /proc, noexec memfds) or the loader
   * refused it: the temporary file either works or reports the loader's
   * complaint, unless it could not even be written. */
  status = open_temporary_file(data, size, what, out);
  if (status == NLRT_INTERNAL && loader_message[0])
    return nlrt_error(NLRT_LOAD_FAILED, "cannot load %s: %s", what,
                      loader_message);
  return status;
}

void nlrt_shared_object_close(nlrt_shared_object *object) {
  if (object->handle)
    dlclose(object->handle);
  object->handle = NULL;
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

/* The string constant `name`, checked to be NUL-terminated within its
 * symbol; records no error when it is absent and not `required`. */
static nlrt_status find_string(const nlrt_shared_object *object,
                               const char *name, const char *what,
                               bool required, const char **out) {
  const char *symbol = find_symbol(object, name);
  if (!symbol) {
    *out = NULL;
    if (!required)
      return NLRT_OK;
    return nlrt_error(NLRT_NOT_FOUND,
                      "%s has no signature symbol '%s' (expected "
                      "const char %s[])",
                      what, name, name);
  }
  /* The symbol table knows the array's size: check the terminator is inside
   * it rather than trusting the object and reading past its end. */
  int type;
  size_t size;
  if (describe_symbol(symbol, &type, &size)) {
    if (type == STT_FUNC || type == STT_GNU_IFUNC)
      return nlrt_error(NLRT_LOAD_FAILED,
                        "%s: symbol '%s' is a function, expected "
                        "const char %s[]",
                        what, name, name);
    if (size > 0 && strnlen(symbol, size) == size)
      return nlrt_error(NLRT_LOAD_FAILED,
                        "%s: symbol '%s' is not NUL-terminated", what, name);
  }
  *out = symbol;
  return NLRT_OK;
}

nlrt_status nlrt_shared_object_find_string(const nlrt_shared_object *object,
                                           const char *name, const char *what,
                                           const char **out) {
  return find_string(object, name, what, true, out);
}

nlrt_status nlrt_shared_object_find_optional_string(
    const nlrt_shared_object *object, const char *name, const char *what,
    const char **out) {
  return find_string(object, name, what, false, out);
}

/* The optional variable `name` of `size` bytes, or (`at_least`) of `size`
 * bytes or more. */
static nlrt_status find_variable(const nlrt_shared_object *object,
                                 const char *name, size_t size, bool at_least,
                                 const char *what, void **out) {
  void *symbol = find_symbol(object, name);
  if (!symbol) {
    *out = NULL;
    return NLRT_OK;
  }
  int type;
  size_t actual;
  if (describe_symbol(symbol, &type, &actual) &&
      (type != STT_OBJECT || (at_least ? actual < size : actual != size)))
    return nlrt_error(NLRT_LOAD_FAILED,
                      "%s: '%s' is not a %s%zu-byte variable (type %d, %zu "
                      "bytes)",
                      what, name, at_least ? "at least " : "", size, type,
                      actual);
  *out = symbol;
  return NLRT_OK;
}

nlrt_status nlrt_shared_object_find_table(const nlrt_shared_object *object,
                                          const char *name, size_t size,
                                          const char *what, void **out) {
  return find_variable(object, name, size, false, what, out);
}

nlrt_status nlrt_shared_object_find_prefix(const nlrt_shared_object *object,
                                           const char *name, size_t size,
                                           const char *what, void **out) {
  return find_variable(object, name, size, true, what, out);
}
