/*===- parallel_ranges.h - a loop split over short-lived threads ----------===*
 *
 * Library routines (the FFT, LAPACK over a batch) split their outer loop
 * over threads they start for the call and join before returning: the
 * calls are large (the callers only split work of a millisecond or more),
 * so a thread's start costs little against it, and no pool outlives a call
 * to compete with the executables' own OpenMP threads between calls.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SERVICES_PARALLEL_RANGES_H
#define NLRT_SERVICES_PARALLEL_RANGES_H

#include <stdint.h>

#define NLRT_MAX_RANGE_THREADS 256

/* NUMLIR_NUM_THREADS when it is a positive integer, else the CPUs this
 * process may run on (at most NLRT_MAX_RANGE_THREADS). */
int nlrt_thread_count(void);

/* Runs fn(context, thread, begin, end) over [0, count) split into at most
 * `threads` contiguous ranges whose bounds are multiples of `granule`
 * (except `count` itself); range 0 runs on the calling thread, and a range
 * whose thread cannot start runs there too. Returns when all are done. */
void nlrt_parallel_ranges(int64_t count, int64_t granule, int threads,
                          void (*fn)(void *context, int thread, int64_t begin,
                                     int64_t end),
                          void *context);

#endif /* NLRT_SERVICES_PARALLEL_RANGES_H */
