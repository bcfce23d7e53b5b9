/*===- shared_object.h - load ELF shared objects from files or memory -----===*/

#ifndef NLRT_CPU_SHARED_OBJECT_H
#define NLRT_CPU_SHARED_OBJECT_H

#include "../../internal.h"

/* An object opened by the system loader (dlopen). It holds no file
 * descriptor. */
typedef struct nlrt_shared_object {
  void *handle;
} nlrt_shared_object;

/* NLRT_INVALID_EXECUTABLE unless the `size` bytes at `data` start like an
 * ELF shared object for this machine whose program headers and segments lie
 * inside those bytes. `what` names the object in messages. */
nlrt_status nlrt_elf_check(const void *data, size_t size, const char *what);

/* Opens the existing regular file at `path` (bounds checked first).
 * INVALID_EXECUTABLE if it is not an ELF shared object, LOAD_FAILED if the
 * loader refuses it. */
nlrt_status nlrt_shared_object_open_file(const char *path, const char *what,
                                         nlrt_shared_object *out);

/* Opens an object from an in-memory image (copied; see runtime.h). */
nlrt_status nlrt_shared_object_open_memory(const void *data, size_t size,
                                           const char *what,
                                           nlrt_shared_object *out);

void nlrt_shared_object_close(nlrt_shared_object *object);

/* Looks up the function `name`. NOT_FOUND if absent, LOAD_FAILED if the
 * symbol is not a function. `what` names the object in messages. */
nlrt_status nlrt_shared_object_find_function(const nlrt_shared_object *object,
                                             const char *name,
                                             const char *what, void **out);

/* Looks up the NUL-terminated string constant `name` (a const char[]).
 * NOT_FOUND if absent, LOAD_FAILED if it is not NUL-terminated within its
 * symbol size. */
nlrt_status nlrt_shared_object_find_string(const nlrt_shared_object *object,
                                           const char *name, const char *what,
                                           const char **out);

/* Like nlrt_shared_object_find_string, but *out is NULL (and no error is
 * recorded) if the symbol is absent. */
nlrt_status nlrt_shared_object_find_optional_string(
    const nlrt_shared_object *object, const char *name, const char *what,
    const char **out);

/* Looks up the optional variable `name` of `size` bytes: *out is NULL if it
 * is absent, LOAD_FAILED if it is a function or has another size. */
nlrt_status nlrt_shared_object_find_table(const nlrt_shared_object *object,
                                          const char *name, size_t size,
                                          const char *what, void **out);

/* Like nlrt_shared_object_find_table for a variable of `size` bytes or
 * more: reads the header of a variable whose header gives its length. */
nlrt_status nlrt_shared_object_find_prefix(const nlrt_shared_object *object,
                                           const char *name, size_t size,
                                           const char *what, void **out);

#endif /* NLRT_CPU_SHARED_OBJECT_H */
