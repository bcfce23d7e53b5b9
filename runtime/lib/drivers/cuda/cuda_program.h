/*===- cuda_program.h - a cuda executable loaded on a device, and its run -===*
 *
 * A program is a checked payload (cuda_payload.h) made ready on one device:
 * its module loaded, a CUfunction per kernel, its constants in device
 * memory. Running it resolves every buffer of the payload's table to a
 * device address (the caller's for inputs and outputs, the program's own
 * for temporaries and constants) and queues the steps on the device's
 * stream.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_DRIVERS_CUDA_PROGRAM_H
#define NLRT_DRIVERS_CUDA_PROGRAM_H

#include "cuda_device.h"
#include "cuda_payload.h"

typedef struct nlrt_cuda_program nlrt_cuda_program;

/* Parses, checks and loads `size` bytes of payload on `device`, which must
 * outlive the program (the runtime's executable holds its device).
 *   NLRT_INVALID_EXECUTABLE  a malformed payload, a kernel the module lacks
 *                            or whose parameters disagree with the payload.
 *   NLRT_LOAD_FAILED         the CUDA driver refused the module (the message
 *                            has its JIT error log).
 *   NLRT_OUT_OF_MEMORY       no room for the constants. */
nlrt_status nlrt_cuda_program_load(nlrt_cuda_device *device,
                                   const void *payload, size_t size,
                                   const char *what,
                                   nlrt_cuda_program **out);

/* The payload's signature text, owned by the program. */
const char *nlrt_cuda_program_signature(const nlrt_cuda_program *program);

void nlrt_cuda_program_release(nlrt_cuda_program *program);

/* Runs the program on the caller's device addresses (inputs, then outputs)
 * and waits for it. The program's temporaries are allocated by its first
 * run and kept until its release; runs of one program take turns.
 *   NLRT_OUT_OF_MEMORY  a temporary could not be allocated (the message
 *                       names its size); nothing ran.
 *   NLRT_INTERNAL       a step failed (the message names it and the CUDA
 *                       error). */
nlrt_status nlrt_cuda_program_run(nlrt_cuda_program *program,
                                  void *const *addresses);

#endif /* NLRT_DRIVERS_CUDA_PROGRAM_H */
