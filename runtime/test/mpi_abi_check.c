/* Checks the Open MPI ABI that runtime/lib/spmd/mpi.c writes out by hand
 * against an installed mpi.h: the constants, that predefined handles are
 * the exported objects mpi.c looks up with dlsym, and the functions'
 * signatures (each is assigned to a pointer of the type mpi.c calls it
 * through, handles being pointers). Built and run by
 * test/python/test_runtime_mpi.py where Open MPI's mpi.h is installed:
 *
 *   cc mpi_abi_check.c -I<prefix>/include -L<prefix>/lib -lmpi -ldl */

#define _GNU_SOURCE
#include <mpi.h>

#include <dlfcn.h>
#include <stdio.h>

_Static_assert(MPI_SUCCESS == 0, "MPI_SUCCESS");
_Static_assert(MPI_THREAD_SERIALIZED == 2, "MPI_THREAD_SERIALIZED");
_Static_assert(MPI_THREAD_MULTIPLE == 3, "MPI_THREAD_MULTIPLE");
_Static_assert(MPI_MAX_ERROR_STRING <= 4096, "error strings fit 4096 bytes");
_Static_assert(MPI_MAX_LIBRARY_VERSION_STRING <= 4096,
               "version strings fit 4096 bytes");
_Static_assert(sizeof(MPI_Comm) == sizeof(void *), "MPI_Comm is a pointer");
_Static_assert(sizeof(MPI_Datatype) == sizeof(void *), "MPI_Datatype");
_Static_assert(sizeof(MPI_Request) == sizeof(void *), "MPI_Request");
_Static_assert(sizeof(MPI_Errhandler) == sizeof(void *), "MPI_Errhandler");

/* mpi.c's signatures, with Open MPI's handle types: a mismatch does not
 * compile (-Werror=incompatible-pointer-types). */
static int (*const init_thread)(int *, char ***, int, int *) = MPI_Init_thread;
static int (*const idup)(MPI_Comm, MPI_Comm *, MPI_Request *) = MPI_Comm_idup;
static int (*const set_errhandler)(MPI_Comm, MPI_Errhandler) =
    MPI_Comm_set_errhandler;
static int (*const iallgather)(const void *, int, MPI_Datatype, void *, int,
                               MPI_Datatype, MPI_Comm,
                               MPI_Request *) = MPI_Iallgather;
static int (*const ialltoallv)(const void *, const int[], const int[],
                               MPI_Datatype, void *, const int[], const int[],
                               MPI_Datatype, MPI_Comm,
                               MPI_Request *) = MPI_Ialltoallv;
static int (*const iallgatherv)(const void *, int, MPI_Datatype, void *,
                                const int[], const int[], MPI_Datatype,
                                MPI_Comm, MPI_Request *) = MPI_Iallgatherv;
static int (*const test)(MPI_Request *, int *, MPI_Status *) = MPI_Test;
static int (*const version)(char *, int *) = MPI_Get_library_version;
static int (*const error_string)(int, char *, int *) = MPI_Error_string;

static int failures;

static void same(const void *header, const char *symbol) {
  void *exported = dlsym(RTLD_DEFAULT, symbol);
  if (exported != header) {
    fprintf(stderr, "mpi.h's handle is %p, %s is at %p\n", header, symbol,
            exported);
    ++failures;
  }
}

int main(void) {
  same(MPI_COMM_WORLD, "ompi_mpi_comm_world");
  same(MPI_BYTE, "ompi_mpi_byte");
  same(MPI_INT64_T, "ompi_mpi_int64_t");
  same(MPI_ERRORS_RETURN, "ompi_mpi_errors_return");
  if (MPI_IN_PLACE != (void *)1 || MPI_STATUS_IGNORE != NULL) {
    fprintf(stderr, "MPI_IN_PLACE or MPI_STATUS_IGNORE differs\n");
    ++failures;
  }
  (void)init_thread, (void)idup, (void)set_errhandler, (void)iallgather;
  (void)ialltoallv, (void)iallgatherv;
  (void)test, (void)version, (void)error_string;
  if (failures)
    return 1;
  printf("the Open MPI ABI matches\n");
  return 0;
}
