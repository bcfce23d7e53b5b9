/* The MPI transport's test: communicators spanning processes, run under
 * mpirun (test/python/test_runtime_mpi.py runs it).
 *
 *   mpi_test path/to/test_kernels.so OUT_DIR NUM_LOCAL [--without-mpi]
 *
 * Each process drives NUM_LOCAL cpu devices, holding replicas [rank *
 * NUM_LOCAL, (rank + 1) * NUM_LOCAL) of test_kernels.c's stamped SPMD
 * kernels (all_reduce_R, exchange_R, the special kernels; R = NUM_LOCAL *
 * processes, at most 4). It checks every collective against results
 * computed here from every replica's operand, and writes each local
 * replica's results to OUT_DIR/replica<r>.bin; with --without-mpi one
 * process holds all replicas and MPI is never loaded, and the pytest
 * compares the two runs' files bit for bit. Then, with two processes or
 * more: processes at different collectives or running different programs,
 * a failing replica, disagreeing creation, and a timeout, each failing
 * every process with a message that names it. Prints "all MPI checks
 * passed" on each rank.
 *
 * The checks and the reference computations are c_api_test.c's, included
 * with its main renamed. */

#define main nlrt_c_api_test_main
#include "c_api_test.c"
#undef main

#include <unistd.h>

static const char *out_dir;
static int rank_, size_ = 1;
static size_t num_local, first, num_replicas;
static FILE *replica_files[4];

/* Appends a local replica's result to its file. */
static void record_result(size_t replica, const void *data, size_t bytes) {
  FILE *file = replica_files[replica];
  CHECK(file && fwrite(data, 1, bytes, file) == bytes);
}

static void open_replica_files(void) {
  for (size_t r = first; r < first + num_local; ++r) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/replica%zu.bin", out_dir, r);
    replica_files[r] = fopen(path, "wb");
    CHECK(replica_files[r] != NULL);
  }
}

static void close_replica_files(void) {
  for (size_t r = 0; r < 4; ++r)
    if (replica_files[r])
      fclose(replica_files[r]);
}

/* A communicator over this process's devices spanning every process. */
static nlrt_status open_spanning(spmd_setup *setup, uint32_t timeout_ms) {
  memset(setup, 0, sizeof(*setup));
  setup->n = num_local;
  nlrt_device_option team = {"num_threads", 1};
  for (size_t i = 0; i < num_local; ++i)
    if (nlrt_device_open_with_options("cpu", (int)i, &team, 1,
                                      &setup->devices[i]) != NLRT_OK)
      return NLRT_INTERNAL;
  nlrt_communicator_options options = {first, num_replicas, timeout_ms};
  return nlrt_communicator_create(setup->devices, num_local, &options,
                                  &setup->comm);
}

/* The launch's buffers for this process's participants. */
#define LOCAL(per_participant) ((per_participant) + first)

/* Every all_reduce case: each local result equals the group-order
 * reduction of every replica's operand, computed here. */
static void check_all_reduce(const spmd_setup *setup, nlrt_executable **exes) {
  spmd_buffers b;
  spmd_buffers_init(&b, 0);
  unsigned char *expected = malloc(SPMD_BYTES);
  for (size_t k = 0; k < sizeof(spmd_cases) / sizeof(spmd_cases[0]); ++k) {
    const spmd_case *c = &spmd_cases[k];
    size_t bytes = c->elements * nlrt_dtype_size(c->dtype);
    for (size_t r = 0; r < num_replicas; ++r) {
      b.record[r] = c->record;
      spmd_fill(c, r, b.operand[r]);
      memset(b.result[r], 0xa5, SPMD_BYTES);
    }
    nlrt_status statuses[4] = {99, 99, 99, 99};
    CHECK(nlrt_executable_execute_spmd(setup->comm, num_local, exes,
                                       LOCAL(b.per_participant), 3,
                                       statuses) == NLRT_OK);
    for (size_t r = first; r < first + num_local; ++r) {
      CHECK(statuses[r - first] == NLRT_OK);
      size_t members[4];
      size_t g = spmd_group(c, num_replicas, r, members);
      memcpy(expected, b.operand[members[0]], bytes);
      for (size_t m = 1; m < g; ++m)
        for (size_t e = 0; e < c->elements; ++e)
          reference_step(c, expected, b.operand[members[m]], e);
      int same = memcmp(b.result[r], expected, bytes) == 0;
#ifndef __FLT16_MAX__
      if (c->dtype == NLRT_DTYPE_F16)
        same = 1; /* no reference here: the pytest compares the files */
#endif
      if (!same)
        fprintf(stderr, "rank %d: all_reduce record %lld on %zu replicas: "
                        "replica %zu differs\n",
                rank_, (long long)c->record, num_replicas, r);
      CHECK(same);
      CHECK(b.result[r][bytes] == 0xa5 && b.result[r][SPMD_BYTES - 1] == 0xa5);
      record_result(r, b.result[r], bytes);
    }
  }
  for (size_t r = 0; r < num_replicas; ++r) {
    b.record[r] = SPMD_REPLICA_ID_RECORD;
    memset(b.result[r], 0xff, 8);
  }
  CHECK(nlrt_executable_execute_spmd(setup->comm, num_local, exes,
                                     LOCAL(b.per_participant), 3,
                                     NULL) == NLRT_OK);
  for (size_t r = first; r < first + num_local; ++r) {
    uint32_t id;
    memcpy(&id, b.result[r], 4);
    CHECK(id == r);
    record_result(r, &id, sizeof(id));
  }
  free(expected);
  spmd_buffers_free(&b);
}

/* Every all_gather, all_to_all, reduce_scatter and permute case, out of
 * place and in place, as test_spmd_exchange checks them. */
static void check_exchange(const spmd_setup *setup, nlrt_executable **exes) {
  exchange_buffers b;
  exchange_buffers_init(&b);
  unsigned char *expected = malloc(EXCHANGE_BYTES);
  unsigned char *untouched = malloc(EXCHANGE_BYTES);
  memset(untouched, 0xa5, EXCHANGE_BYTES);
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (size_t k = 0; k < sizeof(exchange_cases) / sizeof(exchange_cases[0]);
         ++k) {
      const exchange_case *c = &exchange_cases[k];
      spmd_case as = exchange_as_spmd_case(c, num_replicas);
      for (size_t r = 0; r < num_replicas; ++r) {
        b.what[r][0] = c->record;
        b.what[r][1] = in_place;
        memset(b.operand[r], 0x5a, EXCHANGE_BYTES);
        spmd_fill(&as, r, b.operand[r]);
        memset(b.result[r], 0xa5, EXCHANGE_BYTES);
      }
      nlrt_status statuses[4] = {99, 99, 99, 99};
      CHECK(nlrt_executable_execute_spmd(setup->comm, num_local, exes,
                                         LOCAL(b.per_participant), 3,
                                         statuses) == NLRT_OK);
      for (size_t r = first; r < first + num_local; ++r) {
        CHECK(statuses[r - first] == NLRT_OK);
        size_t bytes =
            exchange_expected(c, num_replicas, r, b.operand, expected);
        int same = memcmp(b.result[r], expected, bytes) == 0;
#ifndef __FLT16_MAX__
        if (c->dtype == NLRT_DTYPE_F16 && c->op == OP_REDUCE_SCATTER)
          same = 1;
#endif
        const unsigned char *past =
            in_place ? b.operand[r] + bytes : untouched;
        int kept =
            memcmp(b.result[r] + bytes, past, EXCHANGE_BYTES - bytes) == 0;
        if (!same || !kept)
          fprintf(stderr,
                  "rank %d: %s record %lld on %zu replicas%s: replica %zu's "
                  "result %s\n",
                  rank_, exchange_op_name(c->op), (long long)c->record,
                  num_replicas, in_place ? ", in place" : "", r,
                  same ? "was written past its end" : "differs");
        CHECK(same);
        CHECK(kept);
        record_result(r, b.result[r], bytes);
      }
    }
  }
  free(untouched);
  free(expected);
  exchange_buffers_free(&b);
}

/* One launch of a special kernel (i64[];f32[2]->f32[2]): replica r's
 * operand is {r + 1, 10 * (r + 1)}. */
static nlrt_status special(const spmd_setup *setup, nlrt_executable **exes,
                           int64_t parameter, float results[4][2],
                           nlrt_status *statuses) {
  float operands[4][2];
  void *pointers[4][3];
  void *const *per_participant[4];
  for (size_t i = 0; i < num_local; ++i) {
    size_t r = first + i;
    operands[i][0] = (float)(r + 1);
    operands[i][1] = (float)(10 * (r + 1));
    results[i][0] = results[i][1] = -1;
    pointers[i][0] = &parameter;
    pointers[i][1] = operands[i];
    pointers[i][2] = results[i];
    per_participant[i] = pointers[i];
  }
  return nlrt_executable_execute_spmd(setup->comm, num_local, exes,
                                      per_participant, 3, statuses);
}

/* Every local result is the sum over all replicas. */
static int summed(float results[4][2]) {
  float total = (float)(num_replicas * (num_replicas + 1) / 2);
  int ok = 1;
  for (size_t i = 0; i < num_local; ++i)
    ok &= results[i][0] == total && results[i][1] == 10 * total;
  return ok;
}

static void load_special(const spmd_setup *setup, const char *kernel,
                         nlrt_executable **out) {
  char name[32];
  snprintf(name, sizeof(name), "%s_%zu", kernel, num_replicas);
  CHECK(spmd_load(setup, name, out));
}

/* The launch fails with a message holding `needle`, and the next launch of
 * `good` works. */
static void fails_then_recovers(const spmd_setup *setup,
                                nlrt_executable **exes, int64_t parameter,
                                nlrt_status expected, const char *needle,
                                nlrt_executable **good) {
  float results[4][2];
  nlrt_status statuses[4];
  nlrt_status status = special(setup, exes, parameter, results, statuses);
  if (status != expected || !strstr(nlrt_last_error(), needle))
    fprintf(stderr, "rank %d: expected %s with \"%s\", got %s: %s\n", rank_,
            nlrt_status_string(expected), needle, nlrt_status_string(status),
            nlrt_last_error());
  CHECK(status == expected);
  CHECK(strstr(nlrt_last_error(), needle) != NULL);
  CHECK(special(setup, good, 0, results, statuses) == NLRT_OK);
  CHECK(summed(results));
}

/* Processes that do not meet: each case fails every process, and the
 * communicator works again at once. */
static void check_failures(const spmd_setup *setup) {
  nlrt_executable *slow[4], *other[4];
  char message[512];
  load_special(setup, "slow", slow);

  /* Process 1 onwards run another program (diverge_R: same table and
   * signature, another entry). */
  load_special(setup, rank_ == 0 ? "slow" : "diverge", other);
  fails_then_recovers(setup, other, 0, NLRT_COLLECTIVE_FAILED,
                      "process 1 runs a different program from process 0",
                      slow);
  spmd_release(setup, other);

  /* Control flow that depends on the replica: replica 0 reaches
   * kernels.py:10, the others kernels.py:20. With two local replicas,
   * process 0 finds it inside; the others learn that it failed. */
  load_special(setup, "diverge", other);
  if (num_local == 1)
    snprintf(message, sizeof(message),
             "process 1 is at all_reduce (kernels.py:20) while process 0 is "
             "at all_reduce (kernels.py:10)");
  else if (rank_ == 0)
    snprintf(message, sizeof(message),
             "replica 1 is at all_reduce (kernels.py:20) while replica 0 is "
             "at all_reduce (kernels.py:10)");
  else
    snprintf(message, sizeof(message),
             "process 0 failed (COLLECTIVE_FAILED) while process %d is at "
             "all_reduce (kernels.py:20)",
             rank_);
  fails_then_recovers(setup, other, 0, NLRT_COLLECTIVE_FAILED, message, slow);
  spmd_release(setup, other);

  /* Replica 1 skips the all_reduce: its process's end of the program
   * meets the others' collective. */
  load_special(setup, "skip", other);
  if (num_local == 1)
    snprintf(message, sizeof(message),
             "process 1 finished its program while process 0 is at "
             "all_reduce (kernels.py:10)");
  else if (rank_ == 0)
    snprintf(message, sizeof(message),
             "replica 1 finished its program while replica 0 is at "
             "all_reduce (kernels.py:10)");
  else
    snprintf(message, sizeof(message),
             "process 0 failed (COLLECTIVE_FAILED) while process %d is at "
             "all_reduce (kernels.py:10)",
             rank_);
  fails_then_recovers(setup, other, 0, NLRT_COLLECTIVE_FAILED, message, slow);
  spmd_release(setup, other);

  /* The last replica runs out of memory before the all_reduce: the last
   * process reports it, the others learn which replica failed. */
  load_special(setup, "fail", other);
  int last = size_ - 1;
  if (rank_ == last)
    snprintf(message, sizeof(message),
             "replica %zu failed: 'fail_%zu' (i64[];f32[2]->f32[2]) ran out "
             "of memory",
             num_replicas - 1, num_replicas);
  else
    snprintf(message, sizeof(message),
             "process %d failed (replica %zu: OUT_OF_MEMORY) while process %d "
             "is at all_reduce (kernels.py:10)",
             last, num_replicas - 1, rank_);
  fails_then_recovers(setup, other, 1,
                      rank_ == last ? NLRT_OUT_OF_MEMORY
                                    : NLRT_COLLECTIVE_FAILED,
                      message, other);
  spmd_release(setup, other);
  spmd_release(setup, slow);
}

/* Creation is refused everywhere when the processes disagree: process 1
 * brings one more device than process 0 (each consistent alone). */
static void check_disagreement(void) {
  if (size_ != 2)
    return;
  size_t mine = rank_ == 0 ? 1 : 2;
  nlrt_device *devices[2] = {NULL, NULL};
  for (size_t i = 0; i < mine; ++i)
    CHECK(nlrt_device_open("cpu", (int)i, &devices[i]) == NLRT_OK);
  nlrt_communicator_options options = {rank_ * mine, 2 * mine, 30000};
  nlrt_communicator *comm = NULL;
  CHECK_FAILS(nlrt_communicator_create(devices, mine, &options, &comm),
              NLRT_UNAVAILABLE,
              "the processes disagree: process 1 has 2 local replicas of 4 "
              "from replica 2");
  CHECK(comm == NULL);
  for (size_t i = 0; i < mine; ++i)
    nlrt_device_close(devices[i]);
}

/* Process 1 comes 3 s late to a communicator that waits 1 s: every process
 * times out, and the communicator stays failed. */
static void check_timeout(void) {
  spmd_setup setup;
  CHECK(open_spanning(&setup, 1000) == NLRT_OK);
  nlrt_executable *slow[4];
  load_special(&setup, "slow", slow);
  if (rank_ == 1)
    sleep(3);
  float results[4][2];
  nlrt_status statuses[4];
  CHECK_FAILS(special(&setup, slow, 0, results, statuses),
              NLRT_COLLECTIVE_FAILED,
              "timed out after 1 s waiting for the other processes");
  if (rank_ == 0)
    CHECK(strstr(nlrt_last_error(), "all_reduce (kernels.py:10) timed out "
                                    "after 1 s waiting for the other "
                                    "processes (process 0 of") != NULL);
  CHECK_FAILS(special(&setup, slow, 0, results, statuses),
              NLRT_COLLECTIVE_FAILED,
              "the communicator failed earlier across processes: ");
  spmd_release(&setup, slow);
  spmd_close(&setup);
}

/* Before MPI: a communicator spanning processes and libraries that are not
 * there or not Open MPI are refused. */
static void check_before_mpi(void) {
  nlrt_device *device = NULL;
  CHECK(nlrt_device_open("cpu", 0, &device) == NLRT_OK);
  nlrt_communicator_options options = {0, 2, 0};
  nlrt_communicator *comm = NULL;
  CHECK_FAILS(nlrt_communicator_create(&device, 1, &options, &comm),
              NLRT_UNAVAILABLE,
              "call nlrt_mpi_initialize (numlir.distributed.initialize) "
              "first");
  nlrt_device_close(device);
  nlrt_mpi_info info;
  CHECK_FAILS(nlrt_mpi_initialize("/nonexistent/libmpi.so.40", &info),
              NLRT_UNAVAILABLE, "/nonexistent/libmpi.so.40");
  CHECK_FAILS(nlrt_mpi_initialize("libm.so.6", &info), NLRT_UNAVAILABLE,
              "is not Open MPI");
}

/* MPI itself: initialized once, the same answer every time. */
static void initialize_mpi(void) {
  nlrt_mpi_info info, again;
  nlrt_status status = nlrt_mpi_initialize(NULL, &info);
  if (status != NLRT_OK) {
    fprintf(stderr, "nlrt_mpi_initialize: %s\n", nlrt_last_error());
    exit(1);
  }
  rank_ = info.rank;
  size_ = info.size;
  CHECK(info.thread_level >= 2);
  CHECK(info.initialized_here == 1);
  CHECK(strstr(info.version, "Open MPI") != NULL);
  CHECK(info.library[0] == '/');
  CHECK(nlrt_mpi_initialize(NULL, &again) == NLRT_OK);
  CHECK(memcmp(&info, &again, sizeof(info)) == 0);
  CHECK(nlrt_mpi_initialize(info.library, NULL) == NLRT_OK);
  CHECK_FAILS(nlrt_mpi_initialize("libm.so.6", NULL), NLRT_INVALID_ARGUMENT,
              "cannot switch to libm.so.6");
}

/* Shapes that do not split the replicas evenly are refused locally. */
static void check_bad_shapes(void) {
  nlrt_device *device = NULL;
  CHECK(nlrt_device_open("cpu", 0, &device) == NLRT_OK);
  nlrt_communicator *comm = NULL;
  nlrt_communicator_options too_many = {(size_t)rank_, (size_t)size_ + 1, 0};
  CHECK_FAILS(nlrt_communicator_create(&device, 1, &too_many, &comm),
              NLRT_INVALID_ARGUMENT, "num_replicas must be");
  if (size_ > 1) {
    nlrt_communicator_options shifted = {(size_t)(rank_ + 1) % (size_t)size_,
                                         (size_t)size_, 0};
    CHECK_FAILS(nlrt_communicator_create(&device, 1, &shifted, &comm),
                NLRT_INVALID_ARGUMENT, "first_replica");
  }
  CHECK(comm == NULL);
  nlrt_device_close(device);
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr,
            "usage: %s test_kernels.so OUT_DIR NUM_LOCAL [--without-mpi]\n",
            argv[0]);
    return 2;
  }
  kernels_path = argv[1];
  out_dir = argv[2];
  num_local = (size_t)atoi(argv[3]);
  int with_mpi = argc == 4;
  if (with_mpi) {
    check_before_mpi();
    initialize_mpi();
    check_bad_shapes();
  }
  first = (size_t)rank_ * num_local;
  num_replicas = num_local * (size_t)size_;
  if (num_local < 1 || num_replicas > 4) {
    fprintf(stderr, "%zu replicas: the test kernels have 1 to 4\n",
            num_replicas);
    return 2;
  }
  open_replica_files();
  spmd_setup setup;
  CHECK(open_spanning(&setup, 30000) == NLRT_OK);
  nlrt_executable *exes[4];
  char name[32];
  snprintf(name, sizeof(name), "all_reduce_%zu", num_replicas);
  CHECK(spmd_load(&setup, name, exes));
  check_all_reduce(&setup, exes);
  spmd_release(&setup, exes);
  snprintf(name, sizeof(name), "exchange_%zu", num_replicas);
  CHECK(spmd_load(&setup, name, exes));
  check_exchange(&setup, exes);
  spmd_release(&setup, exes);
  close_replica_files();
  if (size_ > 1)
    check_failures(&setup);
  spmd_close(&setup);
  if (size_ > 1) {
    check_disagreement();
    check_timeout();
  }
  if (with_mpi)
    nlrt_mpi_finalize();

  if (failures) {
    fprintf(stderr, "rank %d: %d check(s) failed\n", rank_, failures);
    return 1;
  }
  printf("all MPI checks passed (rank %d of %d)\n", rank_, size_);
  return 0;
}
