/*===- parallel_ranges.c - a loop split over short-lived threads ----------===*
 *
 * See parallel_ranges.h.
 *
 *===----------------------------------------------------------------------===*/

#include "parallel_ranges.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

int nlrt_thread_count(void) {
  const char *setting = getenv("NUMLIR_NUM_THREADS");
  if (setting && *setting) {
    char *end;
    long value = strtol(setting, &end, 10);
    if (*end == '\0' && value > 0)
      return value < NLRT_MAX_RANGE_THREADS ? (int)value
                                            : NLRT_MAX_RANGE_THREADS;
  }
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) {
    int count = CPU_COUNT(&cpus);
    if (count > 0)
      return count < NLRT_MAX_RANGE_THREADS ? count : NLRT_MAX_RANGE_THREADS;
  }
  return 1;
}

typedef struct range {
  void (*fn)(void *context, int thread, int64_t begin, int64_t end);
  void *context;
  int thread;
  int64_t begin, end;
} range;

static void *run(void *argument) {
  range *r = argument;
  if (r->begin < r->end)
    r->fn(r->context, r->thread, r->begin, r->end);
  return NULL;
}

void nlrt_parallel_ranges(int64_t count, int64_t granule, int threads,
                          void (*fn)(void *context, int thread, int64_t begin,
                                     int64_t end),
                          void *context) {
  if (granule < 1)
    granule = 1;
  int64_t blocks = (count + granule - 1) / granule;
  if (threads > blocks)
    threads = (int)blocks;
  if (threads > NLRT_MAX_RANGE_THREADS)
    threads = NLRT_MAX_RANGE_THREADS;
  if (threads < 1)
    threads = 1;
  range ranges[NLRT_MAX_RANGE_THREADS];
  pthread_t ids[NLRT_MAX_RANGE_THREADS];
  int started[NLRT_MAX_RANGE_THREADS] = {0};
  for (int t = 0; t < threads; t++) {
    /* whole granules per thread, so only the last range ends short */
    int64_t begin = blocks * t / threads * granule;
    int64_t end = blocks * (t + 1) / threads * granule;
    ranges[t] = (range){fn, context, t, begin, end < count ? end : count};
  }
  for (int t = 1; t < threads; t++)
    started[t] = pthread_create(&ids[t], NULL, run, &ranges[t]) == 0;
  run(&ranges[0]);
  for (int t = 1; t < threads; t++) {
    if (started[t])
      pthread_join(ids[t], NULL);
    else
      run(&ranges[t]); /* no thread to spare: do its share here */
  }
}
