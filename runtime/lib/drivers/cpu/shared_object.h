/*===- shared_object.h - load ELF shared objects from files or memory -----===*/

#ifndef NLRT_CPU_SHARED_OBJECT_H
#define NLRT_CPU_SHARED_OBJECT_H

#include "../../internal.h"

/* An object opened by the system loader (dlopen). */
typedef struct nlrt_shared_object {
  void *handle;
  /* >= 0 when the object was loaded from a memfd through /proc/self/fd/N.
   * The descriptor stays open while the object is loaded: the loader caches
   * objects by path, so the number must not be reused for another image
   * until this one is gone. */
  int memfd;
} nlrt_shared_object;

/* Opens the object at `path`. NOT_FOUND if it does not exist, LOAD_FAILED if
 * the loader refuses it. */
nlrt_status nlrt_shared_object_open_file(const char *path,
                                         nlrt_shared_object *out);

/* Opens an object from an in-memory image (copied; see runtime.h). */
nlrt_status nlrt_shared_object_open_memory(const void *data, size_t size,
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

#endif /* NLRT_CPU_SHARED_OBJECT_H */
