/*===- numlir/runtime.h - the numlir runtime C ABI ------------------------===*
 *
 * The thin runtime that loads and runs executables produced by the numlir
 * compiler. It has no LLVM/MLIR dependency: a machine that only has
 * libnlrt.so (and this header) can run executables compiled elsewhere.
 *
 * Objects and ownership
 * ---------------------
 *   nlrt_device      A driver ("cpu", "cuda") bound to one device
 *                    ordinal. Created by nlrt_device_open, which hands the
 *                    caller one reference; nlrt_device_close drops it.
 *                    Every executable loaded on the device holds a reference
 *                    of its own, so the device may be closed while its
 *                    executables are still in use: it is destroyed when the
 *                    last of them is released.
 *   nlrt_executable  One loaded compiled program with a parsed signature.
 *                    Created by nlrt_executable_load_*, which hands the
 *                    caller the only reference; nlrt_executable_release
 *                    destroys it (and unloads its code). Every pointer the
 *                    runtime returns from an executable (signature text,
 *                    buffer dims) stays valid until that release.
 *   buffers          Always owned by the caller. The runtime never allocates,
 *                    frees or retains a buffer; it reads inputs and writes
 *                    outputs only during nlrt_executable_execute.
 *   strings          Strings passed in (driver names, paths, entry names) are
 *                    copied if needed; the caller may free them right after
 *                    the call. Strings returned are owned by the runtime.
 *
 * Errors
 * ------
 * Every fallible function returns an nlrt_status. On failure it also records
 * a human-readable message, readable with nlrt_last_error() on the same
 * thread. Out-parameters are written only on success. No function aborts the
 * process on bad input: wrong buffer counts, NULL pointers, missing files or
 * symbols and malformed signatures all come back as statuses. (A buffer that
 * is too small for its declared shape cannot be detected and is undefined
 * behaviour, as with memcpy.)
 *
 * Thread safety
 * -------------
 * All functions may be called from any thread. Distinct executables may run
 * concurrently; the same executable may be executed concurrently from several
 * threads with distinct buffers (the compiler emits reentrant entry points and
 * the runtime adds no locking on this path). Releasing an object while another
 * thread uses it is the caller's bug.
 *
 * Executable images
 * -----------------
 * What the compiler writes and load_memory/load_file read is an image: a
 * NLRT_IMAGE_HEADER_SIZE-byte header (magic, format version, payload size,
 * CRC-32 checksums, driver name; see nlrt_image_write_header) followed by
 * the driver's payload. The runtime verifies the header and checksums
 * before the payload reaches the system loader, so a truncated or damaged
 * file is an NLRT_INVALID_EXECUTABLE error, never a crash. The CPU driver
 * also accepts a bare ELF shared object (hand-written kernels); that has no
 * checksum, only bounds checks of its ELF headers.
 *
 * Executable contract (CPU driver)
 * --------------------------------
 * A CPU payload is an ELF shared object that exports
 *
 *   void numlir_entry(void **buffers);
 *   const char numlir_entry_signature[];
 *
 * where "numlir_entry" is the entry name chosen at load time (NULL selects
 * NLRT_DEFAULT_ENTRY) and the signature symbol is the entry name followed by
 * "_signature". buffers holds one pointer per argument: all inputs, then all
 * outputs (allocated by the caller). Each addresses dense, row-major data of
 * a static shape. The signature string describes them, for example
 *
 *   "f32[4,8];f32[8,3];f32[3]->f32[4]"
 *
 * inputs ';'-separated, "->", outputs ';'-separated; a scalar is "f32[]";
 * zero inputs or outputs leave that side empty. Element types are listed in
 * nlrt_dtype; i1 is stored as one byte per element (0 or 1).
 *
 * It may also export `void *numlir_entry_allocator[3]`, initialized to
 * {malloc, aligned_alloc, free}, through which its temporary buffers are
 * allocated; the runtime points it at an allocator that turns an
 * allocation failure into NLRT_OUT_OF_MEMORY (see docs/runtime.md).
 *
 * An executable compiled for several replicas (an SPMD program, run on
 * several devices at once by nlrt_executable_execute_spmd) may export
 *
 *   void (*numlir_entry_collective)(uint64_t index, const void *operand,
 *                                   void *result);   (writable: the slot)
 *   const int64_t numlir_entry_num_replicas;         (absent: 1)
 *   const int64_t numlir_entry_collectives[];        (the collective table)
 *   const char numlir_entry_collective_locations[];  ("file:line" lines)
 *
 * The runtime checks the table when it loads the executable and points the
 * slot at its dispatcher; the generated code calls the slot with the index
 * of a table record for each collective, in program order. See "SPMD
 * launches" below and docs/runtime.md for the table's format.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NUMLIR_RUNTIME_H
#define NUMLIR_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(NLRT_BUILDING_LIBRARY)
#define NLRT_API __attribute__((visibility("default")))
#else
#define NLRT_API
#endif

/* The ABI version this header describes. It changes whenever a declaration
 * here changes incompatibly (a removed or re-typed function, a reordered
 * struct or enum). Compare it with nlrt_abi_version() at startup to detect a
 * header/library mismatch. */
#define NLRT_ABI_VERSION 4

/* The entry point name the numlir compiler emits by default. */
#define NLRT_DEFAULT_ENTRY "numlir_entry"

/* Returns the NLRT_ABI_VERSION libnlrt.so was built with. */
NLRT_API int nlrt_abi_version(void);

/*===--- Status and errors -------------------------------------------------===*/

typedef enum nlrt_status {
  NLRT_OK = 0,
  /* A caller error: NULL where an object is required, a wrong buffer count,
   * an out-of-range index. */
  NLRT_INVALID_ARGUMENT = 1,
  /* A named thing does not exist: driver, device ordinal, file, entry
   * symbol, signature symbol. */
  NLRT_NOT_FOUND = 2,
  /* The object exists but is not a valid executable: not loadable by the
   * system loader, or it breaks the contract (malformed signature, an entry
   * that is not a function). */
  NLRT_LOAD_FAILED = 3,
  /* The driver is known but cannot run here (no libcuda.so.1, no GPU). */
  NLRT_UNAVAILABLE = 4,
  /* The runtime itself failed (a system call failed, no usable TMPDIR). */
  NLRT_INTERNAL = 5,
  /* Memory ran out: the runtime's own bookkeeping, or a temporary buffer the
   * executable needed during nlrt_executable_execute (the message gives its
   * size). The call had no other effect: everything it allocated is freed,
   * the outputs may be partly written. */
  NLRT_OUT_OF_MEMORY = 6,
  /* The image is not an intact executable: bad magic, a format version this
   * runtime does not read, a size that disagrees with the header, a
   * checksum mismatch, or an image made for another driver. Nothing was
   * mapped or run. */
  NLRT_INVALID_EXECUTABLE = 7,
  /* A host callback of the executable reported a failure (its handler
   * returned non-zero; see "Host callbacks"). The call stopped there:
   * everything it allocated is freed, the outputs may be partly written. */
  NLRT_HOST_CALLBACK_FAILED = 8,
  /* A collective of an SPMD launch could not complete: the participants
   * reached different collectives (control flow that depends on the
   * replica), one of them waited past the communicator's timeout, or a peer
   * failed ("replica 2 failed: ..."). The message names the collectives, their
   * source lines and the replicas. The call stopped there: everything it
   * allocated is freed, the outputs may be partly written. */
  NLRT_COLLECTIVE_FAILED = 9,
} nlrt_status;

/* The enumerator's name without prefix ("INVALID_ARGUMENT"); "UNKNOWN" for
 * values outside the enum. The string is static. */
NLRT_API const char *nlrt_status_string(nlrt_status status);

/* The message recorded by the most recent failing call on this thread, or ""
 * if none failed yet. Successful calls leave it unchanged (like errno). The
 * string is thread-local and owned by the runtime; it is overwritten by the
 * next failure on this thread. */
NLRT_API const char *nlrt_last_error(void);

/*===--- Element types -----------------------------------------------------===*/

typedef enum nlrt_dtype {
  NLRT_DTYPE_F16 = 0,
  NLRT_DTYPE_BF16 = 1,
  NLRT_DTYPE_F32 = 2,
  NLRT_DTYPE_F64 = 3,
  NLRT_DTYPE_I1 = 4, /* one byte per element */
  NLRT_DTYPE_I8 = 5,
  NLRT_DTYPE_I16 = 6,
  NLRT_DTYPE_I32 = 7,
  NLRT_DTYPE_I64 = 8,
  NLRT_DTYPE_UI8 = 9,
  NLRT_DTYPE_UI16 = 10,
  NLRT_DTYPE_UI32 = 11,
  NLRT_DTYPE_UI64 = 12,
  /* Complex numbers: (real, imaginary) pairs of f32 or f64, the layout of
   * C's float _Complex and numpy's complex64 (8 bytes) and complex128. */
  NLRT_DTYPE_C64 = 13,
  NLRT_DTYPE_C128 = 14,
} nlrt_dtype;

/* The spelling used in signatures ("f32", "ui8", "c64"); NULL for an invalid
 * value.
 * The string is static. */
NLRT_API const char *nlrt_dtype_name(nlrt_dtype dtype);

/* Bytes per element (1 for i1); 0 for an invalid value. */
NLRT_API size_t nlrt_dtype_size(nlrt_dtype dtype);

/*===--- Devices -----------------------------------------------------------===*/

typedef struct nlrt_device nlrt_device;

/* Opens device `ordinal` of the driver called `driver_name` ("cpu") and
 * stores a new reference in *out_device.
 *   NLRT_NOT_FOUND        unknown driver (the message lists the known ones),
 *                         or no device with that ordinal (the cpu driver:
 *                         NLRT_CPU_MAX_DEVICES or more).
 *   NLRT_UNAVAILABLE      the driver cannot work on this machine.
 *   NLRT_INVALID_ARGUMENT NULL name or out pointer, negative ordinal. */
NLRT_API nlrt_status nlrt_device_open(const char *driver_name, int ordinal,
                                      nlrt_device **out_device);

/* A device setting for nlrt_device_open_with_options, like PJRT's named
 * values: each driver documents the names it reads and rejects the others.
 * The cpu driver reads:
 *   "num_threads"  how many threads this device's parallel loops use (its
 *                  thread team); 0, the default, leaves it to the OpenMP
 *                  runtime (NUMLIR_NUM_THREADS, else every core). Several
 *                  cpu devices that run at once each get their own team, so
 *                  devices given disjoint shares of the cores never
 *                  oversubscribe them. */
typedef struct nlrt_device_option {
  const char *name;
  int64_t value;
} nlrt_device_option;

/* Like nlrt_device_open, with `num_options` settings (NULL when 0). Each
 * call opens a new device object; two objects for one ordinal are the same
 * device to the driver, but each keeps the settings it was opened with.
 *   NLRT_INVALID_ARGUMENT a name the driver does not read, a value out of
 *                         range (the message says which and why), or NULL
 *                         options with num_options > 0.
 * The cpu driver's ordinals are 0 .. NLRT_CPU_MAX_DEVICES - 1: how many of
 * them a program uses is its own choice (numlir's jax_num_cpu_devices). */
NLRT_API nlrt_status nlrt_device_open_with_options(
    const char *driver_name, int ordinal, const nlrt_device_option *options,
    size_t num_options, nlrt_device **out_device);

/* The most cpu devices one process may open. */
#define NLRT_CPU_MAX_DEVICES 1024

/* The "num_threads" option the device was opened with: its thread team
 * size (0 when not given: the driver's default). */
NLRT_API int nlrt_device_num_threads(const nlrt_device *device);

/* Drops the reference from nlrt_device_open. NULL is ignored. */
NLRT_API void nlrt_device_close(nlrt_device *device);

/* A printable name such as "cpu:0", owned by the device. */
NLRT_API const char *nlrt_device_name(const nlrt_device *device);

/* The driver name the device was opened with ("cpu"), static. */
NLRT_API const char *nlrt_device_driver(const nlrt_device *device);

/* Waits until the work queued on the device has finished (a no-op for
 * drivers that run each call to completion, as the cpu driver does). */
NLRT_API nlrt_status nlrt_device_synchronize(nlrt_device *device);

/*===--- Drivers -----------------------------------------------------------===*/

/* The "cpu" and "cuda" drivers are built in ("cuda" opens libcuda.so.1, or
 * $NUMLIR_LIBCUDA, only when a cuda device is opened, and fails there with
 * NLRT_UNAVAILABLE without it; docs/runtime.md). Others come from driver
 * plugins: shared objects that export nlrt_plugin_init
 * (numlir/runtime_driver.h says how to write one). */

/* Loads the driver plugin at `path` and registers its drivers. Loading a
 * path again does nothing.
 *   NLRT_UNAVAILABLE      the system loader cannot load it, e.g. a vendor
 *                         library it needs is missing (the loader's message
 *                         says which).
 *   NLRT_LOAD_FAILED      it has no nlrt_plugin_init, or that failed.
 *   NLRT_INVALID_ARGUMENT NULL path; a driver it registers is malformed or
 *                         its name is taken. */
NLRT_API nlrt_status nlrt_driver_load(const char *path);

/* How many drivers are registered, and the name of driver `index` in
 * registration order (NULL out of range; the string lives as long as the
 * process). */
NLRT_API size_t nlrt_driver_count(void);
NLRT_API const char *nlrt_driver_name(size_t index);

/*===--- Buffers -----------------------------------------------------------===*/

/* Memory on a device, owned by its driver. A buffer holds a reference to its
 * device. Drivers whose memory is the host's hand out host pointers
 * (nlrt_buffer_host_pointer); others keep their memory to themselves, and
 * contents move with the copy functions. */
typedef struct nlrt_buffer nlrt_buffer;

/* A new buffer of `size` bytes on `device` (size 0 is allowed).
 *   NLRT_OUT_OF_MEMORY    the device has no room (the message names the
 *                         size).
 *   NLRT_INVALID_ARGUMENT NULL device or out pointer. */
NLRT_API nlrt_status nlrt_buffer_allocate(nlrt_device *device, size_t size,
                                          nlrt_buffer **out_buffer);

/* Frees the buffer and drops its device reference. NULL is ignored. */
NLRT_API void nlrt_buffer_release(nlrt_buffer *buffer);

NLRT_API nlrt_device *nlrt_buffer_device(const nlrt_buffer *buffer);
NLRT_API size_t nlrt_buffer_size(const nlrt_buffer *buffer);

/* The buffer's memory where it is host memory (the cpu driver's), else
 * NULL. */
NLRT_API void *nlrt_buffer_host_pointer(const nlrt_buffer *buffer);

/* Copies `size` bytes, which must be the buffer's size, between host memory
 * and the buffer.
 *   NLRT_INVALID_ARGUMENT a size that is not the buffer's, NULL pointers. */
NLRT_API nlrt_status nlrt_buffer_copy_from_host(nlrt_buffer *buffer,
                                                const void *host, size_t size);
NLRT_API nlrt_status nlrt_buffer_copy_to_host(const nlrt_buffer *buffer,
                                              void *host, size_t size);

/* Copies `source` into `destination`, on the same device or not (through
 * the host where neither driver can do better).
 *   NLRT_INVALID_ARGUMENT buffers of different sizes, NULL pointers. */
NLRT_API nlrt_status nlrt_buffer_copy(nlrt_buffer *destination,
                                      const nlrt_buffer *source);

/*===--- Executables -------------------------------------------------------===*/

typedef struct nlrt_executable nlrt_executable;

/* Loads the executable in the file at `path` on `device`; `entry` names the
 * entry point (NULL: NLRT_DEFAULT_ENTRY). On success *out_executable receives
 * the only reference, which also keeps `device` alive.
 *   NLRT_NOT_FOUND          no such file; no entry or signature symbol.
 *   NLRT_INVALID_EXECUTABLE a damaged image (see "Executable images"), an
 *                           image for another driver, or neither an image
 *                           nor an object the driver takes.
 *   NLRT_LOAD_FAILED        the system loader refused the payload (e.g. an
 *                           undefined symbol); malformed signature.
 * An image file is read and verified, then loaded like load_memory. A bare
 * ELF object goes to the system loader by path, which caches objects by
 * path: a bare file rewritten in place while an executable loaded from it
 * is still alive resolves to the old code. */
NLRT_API nlrt_status nlrt_executable_load_file(nlrt_device *device,
                                               const char *path,
                                               const char *entry,
                                               nlrt_executable **out_executable);

/* Like nlrt_executable_load_file, from `size` bytes at `data`. The bytes are
 * copied; the caller may free them when the call returns. The CPU driver
 * writes the payload to an anonymous memory file (memfd_create) and loads
 * that, closing the descriptor once loaded; where memfds cannot be loaded
 * it falls back to a file in $TMPDIR (or /tmp) that is unlinked once
 * loaded, and fails with NLRT_INTERNAL naming TMPDIR if it cannot write
 * one. Loaded executables hold no file descriptor either way. */
NLRT_API nlrt_status nlrt_executable_load_memory(
    nlrt_device *device, const void *data, size_t size, const char *entry,
    nlrt_executable **out_executable);

/* Destroys the executable and unloads its code; drops its device reference.
 * NULL is ignored. */
NLRT_API void nlrt_executable_release(nlrt_executable *executable);

/* The device the executable was loaded on (borrowed: no new reference). */
NLRT_API nlrt_device *nlrt_executable_device(const nlrt_executable *executable);

/* The entry point name, owned by the executable. */
NLRT_API const char *nlrt_executable_entry(const nlrt_executable *executable);

/* The raw signature string, owned by the executable. */
NLRT_API const char *nlrt_executable_signature(
    const nlrt_executable *executable);

NLRT_API size_t nlrt_executable_num_inputs(const nlrt_executable *executable);
NLRT_API size_t nlrt_executable_num_outputs(const nlrt_executable *executable);

/* Describes one buffer of an executable's signature. */
typedef struct nlrt_buffer_info {
  nlrt_dtype dtype;
  /* Number of dimensions; 0 for a scalar. */
  size_t rank;
  /* `rank` extents, outermost first; owned by the executable. May be NULL
   * when rank is 0. */
  const int64_t *dims;
  /* Bytes per element (nlrt_dtype_size(dtype)). */
  size_t element_size;
  /* Product of the dims (1 for a scalar, 0 if any extent is 0). */
  size_t num_elements;
  /* element_size * num_elements: how many bytes the buffer must hold. */
  size_t byte_size;
} nlrt_buffer_info;

/* Fills *out_info for buffer `index`, counting inputs first and then outputs
 * (index num_inputs is output 0).
 *   NLRT_INVALID_ARGUMENT index >= num_inputs + num_outputs, NULL arguments. */
NLRT_API nlrt_status nlrt_executable_buffer_info(
    const nlrt_executable *executable, size_t index,
    nlrt_buffer_info *out_info);

/* Runs the executable once. `buffers` holds num_inputs + num_outputs
 * pointers, inputs first, each addressing at least byte_size bytes laid out
 * as that buffer's info describes (for the CPU driver: host memory). Outputs
 * are written in place. Returns when the computation is complete.
 *   NLRT_INVALID_ARGUMENT wrong num_buffers, a NULL buffer (even for a
 *                         zero-sized one), NULL executable or array; an
 *                         executable compiled for several replicas (see
 *                         nlrt_executable_execute_spmd).
 *   NLRT_OUT_OF_MEMORY    a temporary buffer could not be allocated; the
 *                         message names its size. Every temporary the call
 *                         allocated is freed; outputs may be partly
 *                         written. */
NLRT_API nlrt_status nlrt_executable_execute(nlrt_executable *executable,
                                             void *const *buffers,
                                             size_t num_buffers);


/* nlrt_executable_execute on buffers: each must live on the executable's
 * device and have exactly its byte_size (inputs first, then outputs).
 *   NLRT_INVALID_ARGUMENT a buffer on another device (the message names
 *                         both), of another size, NULL; a wrong count.
 * Other failures as for nlrt_executable_execute. */
NLRT_API nlrt_status nlrt_executable_execute_buffers(
    nlrt_executable *executable, nlrt_buffer *const *buffers,
    size_t num_buffers);

/* How many replicas the executable was compiled for: its
 * "<entry>_num_replicas", 1 where it exports none (0 for NULL). Above 1 it
 * runs only through nlrt_executable_execute_spmd. */
NLRT_API size_t nlrt_executable_num_replicas(const nlrt_executable *executable);

/*===--- SPMD launches -----------------------------------------------------===*/

/* An SPMD program (pmap) is one executable compiled for N replicas and
 * loaded once per device; nlrt_executable_execute_spmd runs the N copies at
 * once, one per device, and their collectives (all_reduce, all_gather,
 * all_to_all, reduce_scatter, collective_permute, replica_id) meet in a
 * communicator. Replica r of the program runs on the communicator's local
 * participant r - first_replica.
 *
 * Outside an SPMD launch (nlrt_executable_execute of an executable compiled
 * for 1 replica) every group is {0}: the collectives copy their operand (a
 * permute without the pair (0, 0) writes zeros) and the replica id is 0.
 *
 * A reduction combines the operands of its replica group in group order,
 * ((x_g0 + x_g1) + x_g2) + ..., for every element, whatever the timing of
 * the threads, so every member gets the same bits. docs/runtime.md, "SPMD
 * launches", says what each collective computes. */
typedef struct nlrt_communicator nlrt_communicator;

typedef struct nlrt_communicator_options {
  /* This process's first global replica id (0 when one process holds all
   * replicas). */
  size_t first_replica;
  /* The global replica count (0: num_local). Above num_local, the other
   * replicas live in other processes, which meet through MPI: see
   * "Processes" below (nlrt_mpi_initialize first). */
  size_t num_replicas;
  /* How long a participant waits at a collective for its peers before the
   * launch fails with NLRT_COLLECTIVE_FAILED, in milliseconds. 0: the
   * NUMLIR_COLLECTIVE_TIMEOUT environment variable (seconds, read at
   * creation), else 600 s. */
  uint32_t timeout_ms;
} nlrt_communicator_options;

/* Creates a communicator over `num_local` devices of this process, one
 * participant each, and starts one thread per participant but the first:
 * the thread that runs that device's executables in every launch (and
 * leads its OpenMP team, which the thread keeps between launches).
 * Participant 0's part of every launch runs on the thread that makes it.
 * The communicator holds a
 * reference to each device. `options` may be NULL: one process, num_local
 * replicas, the default timeout.
 *   NLRT_INVALID_ARGUMENT NULL arguments, num_local 0, a device given
 *                         twice, options inconsistent with num_local.
 *   NLRT_UNAVAILABLE      num_replicas > num_local and MPI is not
 *                         initialized (nlrt_mpi_initialize), or the
 *                         processes disagree (see "Processes").
 *   NLRT_COLLECTIVE_FAILED the processes did not all create it in time, or
 *                         an MPI call failed.
 *   NLRT_INTERNAL         a thread could not be started.
 * On failure *out is untouched and nothing is left running. */
NLRT_API nlrt_status nlrt_communicator_create(
    nlrt_device *const *devices, size_t num_local,
    const nlrt_communicator_options *options, nlrt_communicator **out);

/* Stops the participants' threads and drops the device references. NULL is
 * ignored. Destroying a communicator during a launch on it is the caller's
 * bug. */
NLRT_API void nlrt_communicator_destroy(nlrt_communicator *communicator);

/* Runs executables[i] on the communicator's device i with buffers[i]
 * (num_buffers pointers each, inputs then outputs, as for
 * nlrt_executable_execute), all at once, each on its participant's thread,
 * and returns when every one has finished; participant 0 on the calling
 * thread, which is that participant's thread for the duration of the
 * launch. Launches on one communicator from several threads run one after
 * the other.
 *
 * Checked first (NLRT_INVALID_ARGUMENT, nothing runs): num_local is the
 * communicator's; every executable lives on its participant's device; all
 * have one entry signature, one collective table, and as many replicas as
 * the communicator; buffer counts and NULL buffers as for
 * nlrt_executable_execute; the call is not made from inside a launch (a
 * host callback of a participant cannot launch: it would wait for itself).
 *
 * If a participant fails, the communicator aborts: peers waiting in (or
 * later reaching) a collective stop with NLRT_COLLECTIVE_FAILED and
 * "replica 2 failed: <its message>". The call returns the first failure's
 * status and records its message ("replica 2 failed: ..."; for a
 * divergence or a timeout the collective's own message). If
 * `participant_status` is not NULL and the launch ran (it passed the
 * checks), it receives each participant's own status (NLRT_OK for those
 * that finished their program). After a failure the communicator is
 * reset: the next launch works. */
NLRT_API nlrt_status nlrt_executable_execute_spmd(
    nlrt_communicator *communicator, size_t num_local,
    nlrt_executable *const *executables, void *const *const *buffers,
    size_t num_buffers, nlrt_status *participant_status);

/* On a participant's thread during a launch (in its executable, or in a
 * host callback the executable makes; for participant 0 the thread that
 * launched), stores the communicator and the
 * participant's local index and returns 1; elsewhere returns 0 and stores
 * nothing. The pair identifies the participant among all launches running
 * in the process (for instance to keep a host callback's error per
 * participant). */
NLRT_API int nlrt_spmd_current_participant(nlrt_communicator **communicator,
                                           size_t *local_index);

/*===--- Processes: replicas in other processes, through MPI ----------------===*
 *
 * A communicator whose num_replicas exceeds num_local spans processes: P
 * processes (MPI_COMM_WORLD's ranks) with num_local participants each,
 * process p holding replicas [p * num_local, (p + 1) * num_local), which
 * must be its first_replica. Every process creates such communicators in the
 * same order (creation is collective: it duplicates MPI_COMM_WORLD and
 * checks that all processes agree on num_local and num_replicas) and
 * launches on them in the same order (the SPMD contract).
 *
 * At a collective whose groups span processes, local participant 0 makes
 * the MPI calls: first an exchange of a small header (which collective,
 * which program), so that processes at different collectives or running
 * different programs fail with NLRT_COLLECTIVE_FAILED ("process 1 is at
 * all_gather (f.py:7) while process 0 is at all_reduce (f.py:6)") instead
 * of exchanging mismatched data; then an allgather of every local operand.
 * Each process then computes its own replicas' results from all operands in
 * group order, exactly as one process holding every replica would: the bits
 * are the same on every process and equal to a one-process launch. The end
 * of a program is also exchanged, so a process that skips a collective its
 * peers make fails them at once. Groups inside one process never touch MPI.
 *
 * Every MPI call is non-blocking and polled against the communicator's
 * timeout. A timeout or an MPI error fails the launch with
 * NLRT_COLLECTIVE_FAILED naming the collective, the process and the MPI
 * error string, and leaves the communicator unusable (its MPI requests
 * cannot be cancelled): later launches on it fail at once. libmpi is loaded
 * at run time (dlopen), so the runtime builds and runs without MPI; only
 * Open MPI's ABI (4.x and 5.x) is supported. */

typedef struct nlrt_mpi_info {
  int rank;             /* this process's rank in MPI_COMM_WORLD */
  int size;             /* the number of processes */
  int initialized_here; /* 1 if nlrt_mpi_initialize called MPI_Init_thread */
  int thread_level;     /* MPI_Query_thread: 2 SERIALIZED, 3 MULTIPLE */
  char library[1024];   /* the path of the libmpi in use */
  char version[256];    /* the first line of MPI_Get_library_version */
} nlrt_mpi_info;

/* Loads libmpi and initializes MPI unless it is initialized already (by
 * mpi4py, for instance); then fills *info (may be NULL). `library` is a
 * path or soname to dlopen; NULL searches: $NUMLIR_MPI_LIBRARY, a libmpi the
 * process has loaded already (dlopen RTLD_NOLOAD of "libmpi.so.40"), then
 * "libmpi.so.40" and "libmpi.so" through the system loader. MPI is
 * initialized with MPI_Init_thread(MPI_THREAD_MULTIPLE); the runtime needs
 * at least MPI_THREAD_SERIALIZED, because device threads make the calls
 * (one at a time: the runtime serializes them). Calling it again returns
 * the same info (with another `library` than the one loaded:
 * NLRT_INVALID_ARGUMENT).
 *   NLRT_UNAVAILABLE  no libmpi could be loaded (the message has dlerror
 *                     and the fix), it is not Open MPI, a symbol is
 *                     missing, MPI was finalized, or the thread level is
 *                     below SERIALIZED.
 *   NLRT_INTERNAL     MPI_Init_thread failed. */
NLRT_API nlrt_status nlrt_mpi_initialize(const char *library,
                                         nlrt_mpi_info *info);

/* Calls MPI_Finalize if nlrt_mpi_initialize initialized MPI, it is not
 * finalized, and no communicator spanning processes is alive; otherwise does
 * nothing. After it, nlrt_mpi_initialize fails. */
NLRT_API void nlrt_mpi_finalize(void);

/*===--- Memory kept for reuse ---------------------------------------------===*/

/* Executables' temporary buffers of 64 KiB and more are not returned to the
 * system when freed: the runtime keeps them, up to NUMLIR_ALLOCATOR_CACHE_BYTES
 * (default 1 GiB, 0 disables it) across all devices and threads, and hands
 * one out again for a request of the same size, so a function called in a
 * loop takes no page faults for its temporaries. An allocation that fails
 * empties the cache and retries before reporting NLRT_OUT_OF_MEMORY. */

/* Frees all memory kept for reuse; returns how many bytes that was. */
NLRT_API uint64_t nlrt_release_cached_memory(void);

/* Bytes currently kept for reuse. */
NLRT_API uint64_t nlrt_cached_memory_bytes(void);

/* Allocates `size` bytes of host memory, 64-byte aligned, from the same
 * allocator and cache, e.g. for an executable's outputs: freed with
 * nlrt_host_buffer_free, a block of 64 KiB or more is kept for reuse, so a
 * caller that drops last call's outputs before the next call takes no page
 * faults for them either. *out_buffer is set (non-NULL even for size 0).
 *   NLRT_INVALID_ARGUMENT out_buffer is NULL.
 *   NLRT_OUT_OF_MEMORY    the memory could not be allocated (message names
 *                         the size). */
NLRT_API nlrt_status nlrt_host_buffer_allocate(size_t size, void **out_buffer);

/* Frees a buffer from nlrt_host_buffer_allocate. NULL is ignored. */
NLRT_API void nlrt_host_buffer_free(void *buffer);

/*===--- Host callbacks ----------------------------------------------------===*/

/* Executables may call back into the process that runs them (hlo.host_callback:
 * debug printing, pure_callback). The generated code passes a callback id,
 * chosen by whoever compiled the module in this process, and dense row-major
 * buffers: the operands, which the handler may read, and the results, which
 * it must fill completely; their shapes and dtypes are known to whoever
 * registered the id, not to the runtime. Buffers are valid only during the
 * call. The handler runs on the thread that called nlrt_executable_execute
 * (the compiler never places a callback inside a parallel loop), in program
 * order, and may itself execute executables. It returns 0 on success;
 * anything else stops the running call, which then returns
 * NLRT_HOST_CALLBACK_FAILED (the handler keeps the details of the failure
 * itself). With no handler registered a callback fails the same way. */
typedef int (*nlrt_host_callback_handler)(void *user_data, uint64_t id,
                                          void *const *operands,
                                          size_t num_operands,
                                          void *const *results,
                                          size_t num_results);

/* Registers the process-wide handler (NULL unregisters), replacing any
 * previous one. The runtime copies the pair and allocates nothing, so there
 * is nothing to free, however often it is replaced; `user_data` stays the
 * caller's, and the runtime never frees or dereferences it. The pair is read
 * at each callback, as one: a callback never sees a handler with another
 * handler's user data. Safe from any thread, including inside a handler. A
 * callback that had already read the pair when it was replaced still runs
 * the old handler with the old user data, so keep those valid until
 * executables that may be calling back on other threads have returned. */
NLRT_API void nlrt_set_host_callback_handler(nlrt_host_callback_handler handler,
                                             void *user_data);

/*===--- Library calls -----------------------------------------------------===*/

/* Executables may call routines of libraries the runtime provides
 * (hlo.custom_call): LAPACK's Cholesky, LU and triangular solves
 * ("lapack.potrf", "lapack.getrf", "lapack.trsm"), loaded at run time, and
 * the runtime's own FFT ("numlir.fft"). Loading an executable that calls a
 * routine whose library is missing fails with NLRT_LOAD_FAILED. */

/* 1 if `routine` exists and its library loads; otherwise 0, with the reason
 * as this thread's last error. Loads the library on first use. */
NLRT_API int nlrt_library_routine_available(const char *routine);

/* Where to look for an ILP64 LAPACK before libopenblas64.so.0 (NULL: only
 * there). NUMLIR_LAPACK, when set, is the only place looked at. Has no
 * effect once a LAPACK is loaded. numlir's Python package passes the
 * OpenBLAS of NumPy's wheel. */
NLRT_API nlrt_status nlrt_set_lapack_library(const char *path);

/*===--- Executable images -------------------------------------------------===*/

/* Bytes in the header that precedes every image's payload. */
#define NLRT_IMAGE_HEADER_SIZE 64
/* The header format this runtime writes and reads. */
#define NLRT_IMAGE_FORMAT_VERSION 1
/* A driver name in the header has at most this many bytes (NUL-padded). */
#define NLRT_IMAGE_MAX_DRIVER_LENGTH 15

/* Writes into `header` the NLRT_IMAGE_HEADER_SIZE bytes that, followed by
 * the `payload_size` bytes at `payload`, form an image for the driver
 * `driver` ("cpu": the payload is an ELF shared object).
 *   NLRT_INVALID_ARGUMENT NULL pointers, a driver name of 0 or more than
 *                         NLRT_IMAGE_MAX_DRIVER_LENGTH bytes. */
NLRT_API nlrt_status nlrt_image_write_header(const char *driver,
                                             const void *payload,
                                             size_t payload_size,
                                             void *header);

/* Verifies the image of `size` bytes at `image` (magic, version, sizes,
 * checksums) without loading anything. On success stores its driver name in
 * `driver` (NLRT_IMAGE_MAX_DRIVER_LENGTH + 1 bytes) and where its payload
 * lies inside `image`.
 *   NLRT_INVALID_EXECUTABLE the message says what is wrong.
 *   NLRT_INVALID_ARGUMENT   NULL pointers. */
NLRT_API nlrt_status nlrt_image_verify(const void *image, size_t size,
                                       char *driver, const void **payload,
                                       size_t *payload_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NUMLIR_RUNTIME_H */
