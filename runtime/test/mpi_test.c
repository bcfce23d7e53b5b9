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
static int open_spanning(spmd_setup *setup, uint32_t timeout_ms) {
  return spmd_open_replicas(first, num_local, num_replicas, timeout_ms, setup);
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
  nlrt_status status = spmd_special(setup, exes, parameter, results, statuses);
  if (status != expected || !strstr(nlrt_last_error(), needle))
    fprintf(stderr, "rank %d: expected %s with \"%s\", got %s: %s\n", rank_,
            nlrt_status_string(expected), needle, nlrt_status_string(status),
            nlrt_last_error());
  CHECK(status == expected);
  CHECK(strstr(nlrt_last_error(), needle) != NULL);
  CHECK(spmd_special(setup, good, 0, results, statuses) == NLRT_OK);
  CHECK(spmd_summed(setup, results));
}

/* What this process hears when replica 1 `does` something else while
 * replica 0 is at all_reduce (kernels.py:10): with one local replica,
 * process 1 against process 0; with two, process 0 finds it inside, and
 * the others, at `here`, learn that it failed. */
static void replica_1_message(char *out, size_t capacity, const char *does,
                              const char *here) {
  if (num_local == 1)
    snprintf(out, capacity,
             "process 1 %s while process 0 is at all_reduce (kernels.py:10)",
             does);
  else if (rank_ == 0)
    snprintf(out, capacity,
             "replica 1 %s while replica 0 is at all_reduce (kernels.py:10)",
             does);
  else
    snprintf(out, capacity,
             "process 0 failed (COLLECTIVE_FAILED) while process %d is at %s",
             rank_, here);
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
   * kernels.py:10, the others kernels.py:20. */
  load_special(setup, "diverge", other);
  replica_1_message(message, sizeof(message),
                    "is at all_reduce (kernels.py:20)",
                    "all_reduce (kernels.py:20)");
  fails_then_recovers(setup, other, 0, NLRT_COLLECTIVE_FAILED, message, slow);
  spmd_release(setup, other);

  /* Replica 1 skips the all_reduce: its process's end of the program
   * meets the others' collective. */
  load_special(setup, "skip", other);
  replica_1_message(message, sizeof(message), "finished its program",
                    "all_reduce (kernels.py:10)");
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
  CHECK(open_spanning(&setup, 1000));
  nlrt_executable *slow[4];
  load_special(&setup, "slow", slow);
  if (rank_ == 1)
    sleep(3);
  float results[4][2];
  nlrt_status statuses[4];
  CHECK_FAILS(spmd_special(&setup, slow, 0, results, statuses),
              NLRT_COLLECTIVE_FAILED,
              "timed out after 1 s waiting for the other processes");
  if (rank_ == 0)
    CHECK(strstr(nlrt_last_error(), "all_reduce (kernels.py:10) timed out "
                                    "after 1 s waiting for the other "
                                    "processes (process 0 of") != NULL);
  CHECK_FAILS(spmd_special(&setup, slow, 0, results, statuses),
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
  snprintf(spmd_who, sizeof(spmd_who), "rank %d: ", rank_);
  num_replicas = num_local * (size_t)size_;
  if (num_local < 1 || num_replicas > 4) {
    fprintf(stderr, "%zu replicas: the test kernels have 1 to 4\n",
            num_replicas);
    return 2;
  }
  open_replica_files();
  spmd_setup setup;
  CHECK(open_spanning(&setup, 30000));
  nlrt_executable *exes[4];
  char name[32];
  snprintf(name, sizeof(name), "all_reduce_%zu", num_replicas);
  CHECK(spmd_load(&setup, name, exes));
  test_spmd_all_reduce(&setup, exes, record_result);
  spmd_release(&setup, exes);
  snprintf(name, sizeof(name), "exchange_%zu", num_replicas);
  CHECK(spmd_load(&setup, name, exes));
  test_spmd_exchange(&setup, exes, record_result);
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
