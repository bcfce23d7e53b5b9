/* Exercises the runtime's C API directly against test_kernels.so.
 *
 *   c_api_test path/to/test_kernels.so
 *
 * Prints one line per failed check and exits non-zero if any failed. */

#include "numlir/runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static int failures;

#define CHECK(condition)                                                       \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__,   \
              __LINE__, #condition, nlrt_last_error());                        \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* A failing status whose message mentions `needle`. */
#define CHECK_FAILS(call, expected_status, needle)                             \
  do {                                                                         \
    nlrt_status status_ = (call);                                              \
    CHECK(status_ == (expected_status));                                       \
    CHECK(strstr(nlrt_last_error(), (needle)) != NULL);                        \
  } while (0)

static const char *kernels_path;
static const char *plugin_path;

static void *read_file(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  *size = (size_t)ftell(file);
  fseek(file, 0, SEEK_SET);
  void *data = malloc(*size);
  if (data && fread(data, 1, *size, file) != *size) {
    free(data);
    data = NULL;
  }
  fclose(file);
  return data;
}

static void test_versions_and_names(void) {
  CHECK(nlrt_abi_version() == NLRT_ABI_VERSION);
  CHECK(strcmp(nlrt_status_string(NLRT_LOAD_FAILED), "LOAD_FAILED") == 0);
  CHECK(strcmp(nlrt_status_string(NLRT_OUT_OF_MEMORY), "OUT_OF_MEMORY") == 0);
  CHECK(strcmp(nlrt_status_string(NLRT_INVALID_EXECUTABLE),
               "INVALID_EXECUTABLE") == 0);
  CHECK(strcmp(nlrt_status_string((nlrt_status)99), "UNKNOWN") == 0);
  CHECK(strcmp(nlrt_dtype_name(NLRT_DTYPE_BF16), "bf16") == 0);
  CHECK(nlrt_dtype_name((nlrt_dtype)99) == NULL);
  CHECK(nlrt_dtype_size(NLRT_DTYPE_I1) == 1);
  CHECK(nlrt_dtype_size(NLRT_DTYPE_UI64) == 8);
  CHECK(strcmp(nlrt_dtype_name(NLRT_DTYPE_C64), "c64") == 0);
  CHECK(strcmp(nlrt_dtype_name(NLRT_DTYPE_C128), "c128") == 0);
  CHECK(nlrt_dtype_size(NLRT_DTYPE_C64) == 8);
  CHECK(nlrt_dtype_size(NLRT_DTYPE_C128) == 16);
  CHECK(nlrt_dtype_name((nlrt_dtype)15) == NULL);
}

static void test_devices(void) {
  nlrt_device *device = NULL;
  CHECK(nlrt_device_open("cpu", 0, &device) == NLRT_OK);
  CHECK(strcmp(nlrt_device_name(device), "cpu:0") == 0);
  CHECK(strcmp(nlrt_device_driver(device), "cpu") == 0);
  nlrt_device_close(device);
  nlrt_device_close(NULL);

  nlrt_device *untouched = (nlrt_device *)&device;
  CHECK_FAILS(nlrt_device_open("tpu", 0, &untouched), NLRT_NOT_FOUND,
              "known drivers: cpu");
  CHECK(untouched == (nlrt_device *)&device);
  CHECK_FAILS(nlrt_device_open("cpu", NLRT_CPU_MAX_DEVICES, &device),
              NLRT_NOT_FOUND, "devices 0 to 1023");
  CHECK_FAILS(nlrt_device_open("cpu", -1, &device), NLRT_INVALID_ARGUMENT,
              "ordinal");
  CHECK_FAILS(nlrt_device_open(NULL, 0, &device), NLRT_INVALID_ARGUMENT,
              "NULL");
}

/* Several cpu devices, each with its own thread team size. */
static void test_device_options(void) {
  nlrt_device_option two_threads = {"num_threads", 2};
  nlrt_device *first = NULL, *third = NULL;
  CHECK(nlrt_device_open("cpu", 0, &first) == NLRT_OK);
  CHECK(nlrt_device_num_threads(first) == 0);
  CHECK(nlrt_device_open_with_options("cpu", 2, &two_threads, 1, &third) ==
        NLRT_OK);
  CHECK(strcmp(nlrt_device_name(third), "cpu:2") == 0);
  CHECK(nlrt_device_num_threads(third) == 2);
  nlrt_device_close(first);
  nlrt_device_close(third);
  CHECK(nlrt_device_num_threads(NULL) == 0);

  nlrt_device *untouched = (nlrt_device *)&first;
  nlrt_device_option unknown = {"streams", 4};
  CHECK_FAILS(nlrt_device_open_with_options("cpu", 0, &unknown, 1, &untouched),
              NLRT_INVALID_ARGUMENT, "no device option 'streams'");
  nlrt_device_option negative = {"num_threads", -1};
  CHECK_FAILS(
      nlrt_device_open_with_options("cpu", 0, &negative, 1, &untouched),
      NLRT_INVALID_ARGUMENT, "num_threads must be 0");
  nlrt_device_option unnamed = {NULL, 1};
  CHECK_FAILS(nlrt_device_open_with_options("cpu", 0, &unnamed, 1, &untouched),
              NLRT_INVALID_ARGUMENT, "has no name");
  CHECK_FAILS(nlrt_device_open_with_options("cpu", 0, NULL, 1, &untouched),
              NLRT_INVALID_ARGUMENT, "1 options at NULL");
  CHECK(untouched == (nlrt_device *)&first);
}

/* Host-memory buffers of the cpu driver, and running on buffers. */
static void test_cpu_buffers(nlrt_device *device) {
  nlrt_buffer *a = NULL, *b = NULL, *out = NULL, *small = NULL;
  CHECK(nlrt_buffer_allocate(device, 16, &a) == NLRT_OK);
  CHECK(nlrt_buffer_allocate(device, 16, &b) == NLRT_OK);
  CHECK(nlrt_buffer_allocate(device, 16, &out) == NLRT_OK);
  CHECK(nlrt_buffer_allocate(device, 8, &small) == NLRT_OK);
  CHECK(nlrt_buffer_device(a) == device && nlrt_buffer_size(a) == 16);
  CHECK(nlrt_buffer_host_pointer(a) != NULL);
  float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40}, got[4] = {0};
  CHECK(nlrt_buffer_copy_from_host(a, x, sizeof x) == NLRT_OK);
  CHECK(nlrt_buffer_copy_from_host(b, y, sizeof y) == NLRT_OK);
  CHECK_FAILS(nlrt_buffer_copy_from_host(a, x, 8), NLRT_INVALID_ARGUMENT,
              "8 bytes for a buffer of 16 bytes");

  nlrt_executable *exe = NULL;
  CHECK(nlrt_executable_load_file(device, kernels_path, NULL, &exe) ==
        NLRT_OK);
  nlrt_buffer *buffers[] = {a, b, out};
  CHECK(nlrt_executable_execute_buffers(exe, buffers, 3) == NLRT_OK);
  CHECK(nlrt_buffer_copy_to_host(out, got, sizeof got) == NLRT_OK);
  CHECK(got[0] == 11 && got[3] == 44);
  nlrt_buffer *wrong_size[] = {a, b, small};
  CHECK_FAILS(nlrt_executable_execute_buffers(exe, wrong_size, 3),
              NLRT_INVALID_ARGUMENT,
              "buffer 2 (output 0) of 'numlir_entry' has 8 bytes; the "
              "executable needs 16");
  nlrt_buffer *with_null[] = {a, NULL, out};
  CHECK_FAILS(nlrt_executable_execute_buffers(exe, with_null, 3),
              NLRT_INVALID_ARGUMENT, "buffer 1 (input 1)");
  CHECK_FAILS(nlrt_executable_execute_buffers(exe, buffers, 2),
              NLRT_INVALID_ARGUMENT, "takes 3 buffers");

  /* A buffer of another device (cpu:1) is refused, and copies move it. */
  nlrt_device *other = NULL;
  nlrt_buffer *elsewhere = NULL;
  CHECK(nlrt_device_open("cpu", 1, &other) == NLRT_OK);
  CHECK(nlrt_buffer_allocate(other, 16, &elsewhere) == NLRT_OK);
  nlrt_device_close(other); /* the buffer keeps its device */
  CHECK(nlrt_buffer_copy(elsewhere, a) == NLRT_OK);
  nlrt_buffer *foreign[] = {elsewhere, b, out};
  CHECK_FAILS(nlrt_executable_execute_buffers(exe, foreign, 3),
              NLRT_INVALID_ARGUMENT, "lives on device cpu:1; the executable "
                                     "runs on cpu:0");
  CHECK_FAILS(nlrt_buffer_copy(small, a), NLRT_INVALID_ARGUMENT,
              "16 bytes into a buffer of 8");
  CHECK(nlrt_device_synchronize(device) == NLRT_OK);
  nlrt_executable_release(exe);
  nlrt_buffer_release(a);
  nlrt_buffer_release(b);
  nlrt_buffer_release(out);
  nlrt_buffer_release(small);
  nlrt_buffer_release(elsewhere);
  nlrt_buffer_release(NULL);
}

/* A driver from a plugin: its own buffers, the cpu driver's code. */
static void test_driver_plugin(void) {
  CHECK_FAILS(nlrt_driver_load("/nonexistent/plugin.so"), NLRT_UNAVAILABLE,
              "cannot load driver plugin '/nonexistent/plugin.so'");
  CHECK_FAILS(nlrt_driver_load(kernels_path), NLRT_LOAD_FAILED,
              "does not export nlrt_plugin_init");
  setenv("NLRT_TEST_PLUGIN_FAIL", "1", 1);
  CHECK_FAILS(nlrt_driver_load(plugin_path), NLRT_UNAVAILABLE,
              "no pool hardware here");
  unsetenv("NLRT_TEST_PLUGIN_FAIL");
  size_t before = nlrt_driver_count();
  CHECK(nlrt_driver_load(plugin_path) == NLRT_OK);
  CHECK(nlrt_driver_load(plugin_path) == NLRT_OK); /* again: nothing */
  CHECK(nlrt_driver_count() == before + 1);
  CHECK(strcmp(nlrt_driver_name(0), "cpu") == 0);
  CHECK(strcmp(nlrt_driver_name(before), "pool") == 0);
  CHECK(nlrt_driver_name(before + 1) == NULL);

  nlrt_device *pool = NULL, *untouched = NULL;
  CHECK_FAILS(nlrt_device_open("pool", 2, &untouched), NLRT_NOT_FOUND,
              "pool has devices 0 and 1");
  CHECK_FAILS(nlrt_device_open("broken", 0, &untouched), NLRT_NOT_FOUND,
              "known drivers: cpu, pool");
  CHECK(nlrt_device_open("pool", 1, &pool) == NLRT_OK);
  if (!pool)
    return;
  CHECK(strcmp(nlrt_device_name(pool), "pool:1") == 0);
  nlrt_buffer *a = NULL, *b = NULL, *out = NULL;
  CHECK(nlrt_buffer_allocate(pool, 16, &a) == NLRT_OK);
  CHECK(nlrt_buffer_allocate(pool, 16, &b) == NLRT_OK);
  CHECK(nlrt_buffer_allocate(pool, 16, &out) == NLRT_OK);
  CHECK(nlrt_buffer_host_pointer(a) == NULL); /* the driver's memory */
  float x[4] = {1, 2, 3, 4}, got[4] = {0};
  CHECK(nlrt_buffer_copy_from_host(a, x, sizeof x) == NLRT_OK);
  CHECK(nlrt_buffer_copy(b, a) == NLRT_OK); /* pool to pool, via the host */

  size_t size = 0;
  void *image = read_file(kernels_path, &size);
  nlrt_executable *exe = NULL;
  CHECK(nlrt_executable_load_memory(pool, image, size, NULL, &exe) == NLRT_OK);
  free(image);
  nlrt_buffer *buffers[] = {a, b, out};
  CHECK(nlrt_executable_execute_buffers(exe, buffers, 3) == NLRT_OK);
  CHECK(nlrt_buffer_copy_to_host(out, got, sizeof got) == NLRT_OK);
  CHECK(got[0] == 2 && got[1] == 4 && got[2] == 6 && got[3] == 8);

  /* Between the pool and the cpu driver, both ways. */
  nlrt_device *cpu = NULL;
  nlrt_buffer *host = NULL;
  CHECK(nlrt_device_open("cpu", 0, &cpu) == NLRT_OK);
  CHECK(nlrt_buffer_allocate(cpu, 16, &host) == NLRT_OK);
  CHECK(nlrt_buffer_copy(host, out) == NLRT_OK);
  CHECK(((float *)nlrt_buffer_host_pointer(host))[3] == 8);
  CHECK(nlrt_buffer_copy(a, host) == NLRT_OK);
  nlrt_buffer *mixed[] = {a, host, out};
  CHECK_FAILS(nlrt_executable_execute_buffers(exe, mixed, 3),
              NLRT_INVALID_ARGUMENT, "lives on device cpu:0");
  int (*synchronize_count)(void) = NULL;
  void *plugin = dlopen(plugin_path, RTLD_NOW | RTLD_NOLOAD);
  if (plugin) {
    void *symbol = dlsym(plugin, "pool_synchronize_count");
    memcpy(&synchronize_count, &symbol, sizeof(synchronize_count));
  }
  CHECK(synchronize_count != NULL);
  int count = synchronize_count ? synchronize_count() : 0;
  CHECK(nlrt_device_synchronize(pool) == NLRT_OK);
  CHECK(synchronize_count && synchronize_count() == count + 1);
  if (plugin)
    dlclose(plugin);

  nlrt_executable_release(exe);
  nlrt_buffer_release(a);
  nlrt_buffer_release(b);
  nlrt_buffer_release(out);
  nlrt_buffer_release(host);
  nlrt_device_close(cpu);
  nlrt_device_close(pool);
}

static void test_add_from_file(nlrt_device *device) {
  nlrt_executable *exe = NULL;
  CHECK(nlrt_executable_load_file(device, kernels_path, NULL, &exe) ==
        NLRT_OK);
  if (!exe)
    return;
  CHECK(strcmp(nlrt_executable_entry(exe), "numlir_entry") == 0);
  CHECK(strcmp(nlrt_executable_signature(exe), "f32[4];f32[4]->f32[4]") == 0);
  CHECK(nlrt_executable_num_inputs(exe) == 2);
  CHECK(nlrt_executable_num_outputs(exe) == 1);
  CHECK(nlrt_executable_device(exe) == device);

  nlrt_buffer_info info;
  CHECK(nlrt_executable_buffer_info(exe, 2, &info) == NLRT_OK);
  CHECK(info.dtype == NLRT_DTYPE_F32 && info.rank == 1 && info.dims[0] == 4);
  CHECK(info.element_size == 4 && info.num_elements == 4 &&
        info.byte_size == 16);
  CHECK_FAILS(nlrt_executable_buffer_info(exe, 3, &info),
              NLRT_INVALID_ARGUMENT, "out of range");

  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, out[4] = {0};
  void *buffers[] = {a, b, out};
  CHECK(nlrt_executable_execute(exe, buffers, 3) == NLRT_OK);
  CHECK(out[0] == 11 && out[1] == 22 && out[2] == 33 && out[3] == 44);

  CHECK_FAILS(nlrt_executable_execute(exe, buffers, 2), NLRT_INVALID_ARGUMENT,
              "takes 3 buffers (2 inputs, 1 output), got 2");
  CHECK_FAILS(nlrt_executable_execute(exe, NULL, 3), NLRT_INVALID_ARGUMENT,
              "NULL");
  void *with_null[] = {a, b, NULL};
  CHECK_FAILS(nlrt_executable_execute(exe, with_null, 3),
              NLRT_INVALID_ARGUMENT, "buffer 2 (output 0)");
  CHECK_FAILS(nlrt_executable_execute(NULL, buffers, 3),
              NLRT_INVALID_ARGUMENT, "NULL");
  nlrt_executable_release(exe);
  nlrt_executable_release(NULL);
}

static void test_entries_from_memory(nlrt_device *device) {
  size_t size = 0;
  void *image = read_file(kernels_path, &size);
  CHECK(image != NULL);
  if (!image)
    return;

  nlrt_executable *masked = NULL, *scalars = NULL, *iota = NULL;
  CHECK(nlrt_executable_load_memory(device, image, size, "masked_i64",
                                    &masked) == NLRT_OK);
  CHECK(nlrt_executable_load_memory(device, image, size, "scalar_pair",
                                    &scalars) == NLRT_OK);
  CHECK(nlrt_executable_load_memory(device, image, size, "iota", &iota) ==
        NLRT_OK);
  /* The image was copied: scribbling over it must not matter. */
  memset(image, 0, size);
  free(image);

  if (masked) {
    nlrt_buffer_info info;
    CHECK(nlrt_executable_buffer_info(masked, 1, &info) == NLRT_OK);
    CHECK(info.dtype == NLRT_DTYPE_I1 && info.rank == 2 &&
          info.byte_size == 6);
    int64_t x[6] = {1, 2, 3, 4, 5, 6}, out[6];
    uint8_t mask[6] = {1, 0, 1, 0, 1, 0};
    void *buffers[] = {x, mask, out};
    CHECK(nlrt_executable_execute(masked, buffers, 3) == NLRT_OK);
    CHECK(out[0] == 1 && out[1] == -1 && out[4] == 5 && out[5] == -1);
  }
  if (scalars) {
    nlrt_buffer_info info;
    CHECK(nlrt_executable_buffer_info(scalars, 3, &info) == NLRT_OK);
    CHECK(info.rank == 0 && info.num_elements == 1 && info.byte_size == 8);
    double a = 3, b = 4, sum = 0, product = 0;
    void *buffers[] = {&a, &b, &sum, &product};
    CHECK(nlrt_executable_execute(scalars, buffers, 4) == NLRT_OK);
    CHECK(sum == 7 && product == 12);
  }
  if (iota) {
    CHECK(nlrt_executable_num_inputs(iota) == 0);
    int32_t out[5] = {0};
    void *buffers[] = {out};
    CHECK(nlrt_executable_execute(iota, buffers, 1) == NLRT_OK);
    CHECK(out[0] == 0 && out[4] == 4);
  }
  nlrt_executable_release(masked);
  nlrt_executable_release(scalars);
  nlrt_executable_release(iota);
}

static void test_contract_violations(nlrt_device *device) {
  nlrt_executable *exe = NULL;
  CHECK_FAILS(nlrt_executable_load_file(device, kernels_path, "missing", &exe),
              NLRT_NOT_FOUND, "no entry point 'missing'");
  CHECK_FAILS(
      nlrt_executable_load_file(device, kernels_path, "malformed", &exe),
      NLRT_LOAD_FAILED, "malformed signature \"f32[4->f32[4]\"");
  CHECK_FAILS(
      nlrt_executable_load_file(device, kernels_path, "no_signature", &exe),
      NLRT_NOT_FOUND, "no signature symbol 'no_signature_signature'");
  CHECK_FAILS(
      nlrt_executable_load_file(device, kernels_path, "not_a_function", &exe),
      NLRT_LOAD_FAILED, "not a function");
  CHECK_FAILS(
      nlrt_executable_load_file(device, kernels_path, "unterminated", &exe),
      NLRT_LOAD_FAILED, "not NUL-terminated");
  CHECK_FAILS(nlrt_executable_load_file(device, kernels_path, "", &exe),
              NLRT_INVALID_ARGUMENT, "entry name");
  CHECK(exe == NULL);
}

static void test_bad_files(nlrt_device *device) {
  nlrt_executable *exe = NULL;
  CHECK_FAILS(nlrt_executable_load_file(device, "/nonexistent/x.so", NULL,
                                        &exe),
              NLRT_NOT_FOUND, "/nonexistent/x.so");
  CHECK_FAILS(nlrt_executable_load_file(device, "/", NULL, &exe),
              NLRT_LOAD_FAILED, "not a regular file");

  char garbage_path[] = "/tmp/nlrt-c-api-garbage-XXXXXX";
  int fd = mkstemp(garbage_path);
  CHECK(fd >= 0);
  if (fd >= 0) {
    CHECK(write(fd, "not an ELF file", 15) == 15);
    close(fd);
    CHECK_FAILS(nlrt_executable_load_file(device, garbage_path, NULL, &exe),
                NLRT_INVALID_EXECUTABLE, garbage_path);
    unlink(garbage_path);
  }

  CHECK_FAILS(nlrt_executable_load_memory(device, "garbage", 7, NULL, &exe),
              NLRT_INVALID_EXECUTABLE, "bad magic (starts with 67 61 72");
  /* Right magic, nothing after it. */
  CHECK_FAILS(nlrt_executable_load_memory(device, "\x7f" "ELF\2\1\1", 7, NULL,
                                          &exe),
              NLRT_INVALID_EXECUTABLE, "truncated ELF object");
  CHECK_FAILS(nlrt_executable_load_memory(device, NULL, 0, NULL, &exe),
              NLRT_INVALID_ARGUMENT, "empty");
  CHECK_FAILS(nlrt_executable_load_memory(NULL, "x", 1, NULL, &exe),
              NLRT_INVALID_ARGUMENT, "device");
  CHECK(exe == NULL);
}

/* Bytes the C heap has handed out and not taken back; 0 where unknown. */
static size_t heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#else
  return 0;
#endif
}

/* `image` with a header: the format the compiler writes. */
static void *make_image(const void *payload, size_t size, const char *driver,
                        size_t *image_size) {
  *image_size = NLRT_IMAGE_HEADER_SIZE + size;
  unsigned char *image = malloc(*image_size);
  if (!image)
    return NULL;
  if (nlrt_image_write_header(driver, payload, size, image) != NLRT_OK) {
    free(image);
    return NULL;
  }
  memcpy(image + NLRT_IMAGE_HEADER_SIZE, payload, size);
  return image;
}

static void test_images(nlrt_device *device) {
  size_t size = 0, image_size = 0;
  void *payload = read_file(kernels_path, &size);
  unsigned char *image = payload ? make_image(payload, size, "cpu",
                                              &image_size)
                                 : NULL;
  CHECK(image != NULL);
  if (!image) {
    free(payload);
    return;
  }
  char driver[NLRT_IMAGE_MAX_DRIVER_LENGTH + 1];
  const void *found = NULL;
  size_t found_size = 0;
  CHECK(nlrt_image_verify(image, image_size, driver, &found, &found_size) ==
        NLRT_OK);
  CHECK(strcmp(driver, "cpu") == 0);
  CHECK(found == image + NLRT_IMAGE_HEADER_SIZE && found_size == size);

  nlrt_executable *exe = NULL;
  CHECK(nlrt_executable_load_memory(device, image, image_size, "iota", &exe) ==
        NLRT_OK);
  if (exe) {
    int32_t out[5] = {0};
    void *buffers[] = {out};
    CHECK(nlrt_executable_execute(exe, buffers, 1) == NLRT_OK);
    CHECK(out[4] == 4);
    nlrt_executable_release(exe);
    exe = NULL;
  }

  char path[] = "/tmp/nlrt-c-api-image-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0) {
    CHECK(write(fd, image, image_size) == (ssize_t)image_size);
    close(fd);
    CHECK(nlrt_executable_load_file(device, path, "iota", &exe) == NLRT_OK);
    nlrt_executable_release(exe);
    exe = NULL;
    /* Truncated on disk: refused by name, before the loader maps it. */
    CHECK(truncate(path, (off_t)(image_size / 2)) == 0);
    CHECK_FAILS(nlrt_executable_load_file(device, path, NULL, &exe),
                NLRT_INVALID_EXECUTABLE, "truncated");
    CHECK_FAILS(nlrt_executable_load_file(device, path, NULL, &exe),
                NLRT_INVALID_EXECUTABLE, path);
    unlink(path);
  }

  CHECK_FAILS(nlrt_executable_load_memory(device, image, image_size - 1, NULL,
                                          &exe),
              NLRT_INVALID_EXECUTABLE, "wrong size");
  CHECK_FAILS(nlrt_executable_load_memory(device, image, 20, NULL, &exe),
              NLRT_INVALID_EXECUTABLE, "shorter than the 64-byte header");

  image[image_size - 100] ^= 0x40;
  CHECK_FAILS(nlrt_executable_load_memory(device, image, image_size, NULL,
                                          &exe),
              NLRT_INVALID_EXECUTABLE, "payload checksum mismatch");
  image[image_size - 100] ^= 0x40;

  image[20] ^= 1; /* the payload size */
  CHECK_FAILS(nlrt_executable_load_memory(device, image, image_size, NULL,
                                          &exe),
              NLRT_INVALID_EXECUTABLE, "header checksum mismatch");
  image[20] ^= 1;

  image[8] = 2; /* the format version */
  CHECK_FAILS(nlrt_executable_load_memory(device, image, image_size, NULL,
                                          &exe),
              NLRT_INVALID_EXECUTABLE, "unsupported format version 2");
  image[8] = 1;

  image[1] = 'M';
  CHECK_FAILS(nlrt_executable_load_memory(device, image, image_size, NULL,
                                          &exe),
              NLRT_INVALID_EXECUTABLE, "bad magic (starts with 7f 4d 4c 58");
  image[1] = 'N';
  CHECK(exe == NULL);
  free(image);

  image = make_image(payload, size, "cuda", &image_size);
  CHECK(image != NULL);
  if (image)
    CHECK_FAILS(nlrt_executable_load_memory(device, image, image_size, NULL,
                                            &exe),
                NLRT_INVALID_EXECUTABLE, "compiled for the 'cuda' driver");
  free(image);

  unsigned char header[NLRT_IMAGE_HEADER_SIZE];
  CHECK_FAILS(nlrt_image_write_header("", payload, size, header),
              NLRT_INVALID_ARGUMENT, "driver name");
  CHECK_FAILS(nlrt_image_write_header("a-very-long-driver", payload, size,
                                      header),
              NLRT_INVALID_ARGUMENT, "driver name");
  free(payload);
}

static void test_out_of_memory(nlrt_device *device) {
  nlrt_executable *exe = NULL;
  CHECK(nlrt_executable_load_file(device, kernels_path, "hold_then_allocate",
                                  &exe) == NLRT_OK);
  if (!exe)
    return;
  int64_t sizes[2] = {1 << 20, 4096}, ok = 0;
  void *buffers[] = {sizes, &ok};
  CHECK(nlrt_executable_execute(exe, buffers, 2) == NLRT_OK);
  CHECK(ok == 1);
  /* 2^62 bytes: no machine has them. The held MiB is freed by the runtime;
   * the next call works. */
  sizes[1] = (int64_t)1 << 62;
  size_t heap_before = heap_in_use();
  for (int i = 0; i < 3; ++i)
    CHECK_FAILS(nlrt_executable_execute(exe, buffers, 2), NLRT_OUT_OF_MEMORY,
                "'hold_then_allocate' (i64[2]->i64[]) ran out of memory: "
                "allocating a temporary f32[1152921504606846976] buffer of "
                "4611686018427387904 bytes (4.00 EiB) for the operation at "
                "kernels.py:7:3 (or kernels.py:9:5) failed (");
  CHECK(heap_in_use() <= heap_before + 4096);
  /* A size no site explains. */
  sizes[1] = (int64_t)3 << 60;
  CHECK_FAILS(nlrt_executable_execute(exe, buffers, 2), NLRT_OUT_OF_MEMORY,
              "allocating a temporary buffer of 3458764513820540928 bytes "
              "(3.00 EiB) failed (");
  sizes[1] = 16;
  CHECK(nlrt_executable_execute(exe, buffers, 2) == NLRT_OK);
  CHECK(ok == 1);
  nlrt_executable_release(exe);

  CHECK_FAILS(nlrt_executable_load_file(device, kernels_path, "short_table",
                                        &exe),
              NLRT_LOAD_FAILED, "'short_table_allocator' is not a 24-byte");
}

/* The handler the call_host kernel reaches: doubles its operand, or fails
 * when asked to. */
static int host_calls;
static int double_or_fail(void *user_data, uint64_t id, void *const *operands,
                          size_t num_operands, void *const *results,
                          size_t num_results) {
  ++host_calls;
  int *fail = user_data;
  if (*fail || id != 42 || num_operands != 1 || num_results != 1)
    return 1;
  const float *x = operands[0];
  float *out = results[0];
  out[0] = 2 * x[0];
  out[1] = 2 * x[1];
  return 0;
}

static void test_host_callbacks(nlrt_device *device) {
  nlrt_executable *exe = NULL;
  CHECK(nlrt_executable_load_file(device, kernels_path, "call_host", &exe) ==
        NLRT_OK);
  if (!exe)
    return;
  float x[2] = {1, 2}, doubled[2] = {0, 0}, after[2] = {0, 0};
  void *buffers[] = {x, doubled, after};
  /* No handler: the call stops at the callback. */
  nlrt_set_host_callback_handler(NULL, NULL);
  CHECK_FAILS(nlrt_executable_execute(exe, buffers, 3),
              NLRT_HOST_CALLBACK_FAILED,
              "'call_host' (f32[2]->f32[2];f32[2]): host callback 42 failed");
  CHECK(after[0] == 0);
  int fail = 0;
  nlrt_set_host_callback_handler(double_or_fail, &fail);
  CHECK(nlrt_executable_execute(exe, buffers, 3) == NLRT_OK);
  CHECK(host_calls == 1 && doubled[0] == 2 && doubled[1] == 4);
  CHECK(after[0] == 2 && after[1] == 3);
  /* A failing handler stops the call before the code after the callback. */
  fail = 1;
  after[0] = after[1] = 0;
  CHECK_FAILS(nlrt_executable_execute(exe, buffers, 3),
              NLRT_HOST_CALLBACK_FAILED, "host callback 42 failed");
  CHECK(host_calls == 2 && after[0] == 0);
  CHECK(strcmp(nlrt_status_string(NLRT_HOST_CALLBACK_FAILED),
               "HOST_CALLBACK_FAILED") == 0);
  nlrt_set_host_callback_handler(NULL, NULL);
  nlrt_executable_release(exe);
}

/* Handlers that scale or shift call_host's operand by their user data; each
 * checks that the user data it got is its own kind, so a callback that saw
 * one handler with another's user data would fail. */
typedef struct scaled_handler_data {
  int kind; /* 1: scale, 2: shift */
  float amount;
  _Atomic int calls;
} scaled_handler_data;

static int apply(scaled_handler_data *data, int kind, void *const *operands,
                 void *const *results) {
  if (!data || data->kind != kind)
    return 1;
  ++data->calls;
  const float *x = operands[0];
  float *out = results[0];
  for (int i = 0; i < 2; ++i)
    out[i] = kind == 1 ? x[i] * data->amount : x[i] + data->amount;
  return 0;
}

static int scale_handler(void *user_data, uint64_t id, void *const *operands,
                         size_t num_operands, void *const *results,
                         size_t num_results) {
  (void)id, (void)num_operands, (void)num_results;
  return apply(user_data, 1, operands, results);
}

static int shift_handler(void *user_data, uint64_t id, void *const *operands,
                         size_t num_operands, void *const *results,
                         size_t num_results) {
  (void)id, (void)num_operands, (void)num_results;
  return apply(user_data, 2, operands, results);
}

typedef struct handler_swap_args {
  nlrt_executable *exe;
  _Atomic int *stop;
  _Atomic int calls;
  int failed;
} handler_swap_args;

static void *call_host_until_stopped(void *opaque) {
  handler_swap_args *args = opaque;
  while (!atomic_load(args->stop)) {
    float x[2] = {1, 2}, out[2] = {0, 0}, after[2] = {0, 0};
    void *buffers[] = {x, out, after};
    if (nlrt_executable_execute(args->exe, buffers, 3) != NLRT_OK)
      args->failed = 1;
    /* Either handler, with any of its amounts (2..5) below. */
    else if (!(out[1] == 2 * out[0] && out[0] >= 2 && out[0] <= 5) &&
             !(out[1] == out[0] + 1 && out[0] >= 3 && out[0] <= 6))
      args->failed = 1;
    ++args->calls;
  }
  return NULL;
}

/* Registering, replacing and unregistering the handler many times keeps
 * nothing allocated (LeakSanitizer checks this under `make test-asan`) and
 * every call reaches the handler registered at the time, with its own user
 * data, also while other threads are calling back. */
static void test_replacing_host_callback_handler(nlrt_device *device) {
  nlrt_executable *exe = NULL;
  CHECK(nlrt_executable_load_file(device, kernels_path, "call_host", &exe) ==
        NLRT_OK);
  if (!exe)
    return;
  scaled_handler_data scales[4], shifts[4];
  for (int i = 0; i < 4; ++i) {
    scales[i] = (scaled_handler_data){1, (float)(i + 2), 0};
    shifts[i] = (scaled_handler_data){2, (float)(i + 2), 0};
  }
  for (int round = 0; round < 100; ++round) {
    int i = round % 4;
    float x[2] = {1, 2}, out[2] = {0, 0}, after[2] = {0, 0};
    void *buffers[] = {x, out, after};
    scaled_handler_data *data = (round % 3 == 2) ? &shifts[i] : &scales[i];
    nlrt_set_host_callback_handler(data->kind == 1 ? scale_handler
                                                   : shift_handler,
                                   data);
    int calls = data->calls;
    CHECK(nlrt_executable_execute(exe, buffers, 3) == NLRT_OK);
    CHECK(data->calls == calls + 1);
    if (data->kind == 1)
      CHECK(out[0] == 1 * data->amount && out[1] == 2 * data->amount);
    else
      CHECK(out[0] == 1 + data->amount && out[1] == 2 + data->amount);
    CHECK(after[0] == 2 && after[1] == 3);
    if (round % 10 == 9) { /* unregistered: the callback fails again */
      nlrt_set_host_callback_handler(NULL, data);
      CHECK_FAILS(nlrt_executable_execute(exe, buffers, 3),
                  NLRT_HOST_CALLBACK_FAILED, "host callback 42 failed");
      CHECK(data->calls == calls + 1);
    }
  }

  /* Replaced while 3 threads call back: each call sees one whole pair. */
  enum { NUM_THREADS = 3 };
  _Atomic int stop = 0;
  pthread_t threads[NUM_THREADS];
  handler_swap_args args[NUM_THREADS];
  nlrt_set_host_callback_handler(scale_handler, &scales[0]);
  for (int t = 0; t < NUM_THREADS; ++t) {
    args[t] = (handler_swap_args){exe, &stop, 0, 0};
    pthread_create(&threads[t], NULL, call_host_until_stopped, &args[t]);
  }
  /* At least 2000 swaps, and on until every thread has called back 100
   * times (threads may start only after the first swaps). */
  for (int swap = 0;; ++swap) {
    int all_called = 1;
    for (int t = 0; t < NUM_THREADS; ++t)
      all_called &= atomic_load(&args[t].calls) >= 100;
    if (swap >= 2000 && all_called)
      break;
    scaled_handler_data *data =
        (swap % 2) ? &shifts[swap % 4] : &scales[swap % 4];
    nlrt_set_host_callback_handler(data->kind == 1 ? scale_handler
                                                   : shift_handler,
                                   data);
    if (swap % 64 == 0)
      sched_yield();
  }
  atomic_store(&stop, 1);
  for (int t = 0; t < NUM_THREADS; ++t) {
    pthread_join(threads[t], NULL);
    CHECK(!args[t].failed && args[t].calls > 0);
  }
  nlrt_set_host_callback_handler(NULL, NULL);
  nlrt_executable_release(exe);
}

static void test_executable_outlives_device_handle(void) {
  nlrt_device *device = NULL;
  nlrt_executable *exe = NULL;
  CHECK(nlrt_device_open("cpu", 0, &device) == NLRT_OK);
  CHECK(nlrt_executable_load_file(device, kernels_path, "iota", &exe) ==
        NLRT_OK);
  nlrt_device_close(device);
  if (!exe)
    return;
  CHECK(strcmp(nlrt_device_name(nlrt_executable_device(exe)), "cpu:0") == 0);
  int32_t out[5];
  void *buffers[] = {out};
  CHECK(nlrt_executable_execute(exe, buffers, 1) == NLRT_OK);
  CHECK(out[3] == 3);
  nlrt_executable_release(exe);
}

/* Threads that load from memory, run and release over and over: memfd paths
 * get reused, which must never hand back another thread's object. */
typedef struct worker_args {
  nlrt_device *device;
  const void *image;
  size_t size;
  int failed;
} worker_args;

static void *worker(void *opaque) {
  worker_args *args = opaque;
  for (int i = 0; i < 50; ++i) {
    const char *entry = (i % 2) ? "iota" : "numlir_entry";
    nlrt_executable *exe = NULL;
    if (nlrt_executable_load_memory(args->device, args->image, args->size,
                                    entry, &exe) != NLRT_OK ||
        strcmp(nlrt_executable_entry(exe), entry) != 0) {
      args->failed = 1;
      nlrt_executable_release(exe);
      continue;
    }
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 1, 1}, out[5] = {0};
    void *add_buffers[] = {a, b, out};
    void *iota_buffers[] = {out};
    if (i % 2) {
      nlrt_executable_execute(exe, iota_buffers, 1);
      args->failed |= ((int32_t *)out)[4] != 4;
    } else {
      nlrt_executable_execute(exe, add_buffers, 3);
      args->failed |= out[3] != 5;
    }
    nlrt_executable_release(exe);
  }
  return NULL;
}

/* Two cpu devices, each with a thread team of its own, driven from two
 * threads at once on buffers of their own: the same results as one after
 * the other (run under ThreadSanitizer by `make test-tsan-runtime`). */
typedef struct device_worker_args {
  int ordinal;
  const void *image;
  size_t size;
  float sum;
  int failed;
} device_worker_args;

static void *device_worker(void *opaque) {
  device_worker_args *args = opaque;
  nlrt_device_option team = {"num_threads", 1};
  nlrt_device *device = NULL;
  nlrt_executable *exe = NULL;
  nlrt_buffer *buffers[3] = {NULL, NULL, NULL};
  args->failed =
      nlrt_device_open_with_options("cpu", args->ordinal, &team, 1, &device) !=
          NLRT_OK ||
      nlrt_executable_load_memory(device, args->image, args->size, NULL,
                                  &exe) != NLRT_OK;
  for (int i = 0; i < 3 && !args->failed; ++i)
    args->failed = nlrt_buffer_allocate(device, 16, &buffers[i]) != NLRT_OK;
  float a[4] = {1, 2, 3, 4}, step[4], out[4] = {0};
  for (int i = 0; i < 4; ++i)
    step[i] = (float)(args->ordinal + 1);
  if (!args->failed) {
    nlrt_buffer_copy_from_host(buffers[0], a, sizeof a);
    nlrt_buffer_copy_from_host(buffers[1], step, sizeof step);
  }
  /* out = a + step, then a = out: a grows by `step` per call. */
  for (int i = 0; i < 500 && !args->failed; ++i) {
    args->failed = nlrt_executable_execute_buffers(exe, buffers, 3) != NLRT_OK ||
                   nlrt_buffer_copy(buffers[0], buffers[2]) != NLRT_OK;
  }
  if (!args->failed)
    nlrt_buffer_copy_to_host(buffers[2], out, sizeof out);
  args->sum = out[0] + out[1] + out[2] + out[3];
  for (int i = 0; i < 3; ++i)
    nlrt_buffer_release(buffers[i]);
  nlrt_executable_release(exe);
  nlrt_device_close(device);
  return NULL;
}

static void test_concurrent_devices(void) {
  size_t size = 0;
  void *image = read_file(kernels_path, &size);
  CHECK(image != NULL);
  if (!image)
    return;
  device_worker_args sequential[2], concurrent[2];
  for (int d = 0; d < 2; ++d) {
    sequential[d] = (device_worker_args){d, image, size, 0, 0};
    device_worker(&sequential[d]);
  }
  pthread_t threads[2];
  for (int d = 0; d < 2; ++d) {
    concurrent[d] = (device_worker_args){d, image, size, 0, 0};
    pthread_create(&threads[d], NULL, device_worker, &concurrent[d]);
  }
  for (int d = 0; d < 2; ++d) {
    pthread_join(threads[d], NULL);
    CHECK(!sequential[d].failed && !concurrent[d].failed);
    CHECK(concurrent[d].sum == sequential[d].sum);
    /* 10 + 4 * 500 * (d + 1) */
    CHECK(sequential[d].sum == 10.0f + 2000.0f * (float)(d + 1));
  }
  free(image);
}

static void test_concurrent_loads(nlrt_device *device) {
  size_t size = 0;
  void *image = read_file(kernels_path, &size);
  CHECK(image != NULL);
  if (!image)
    return;
  enum { NUM_THREADS = 4 };
  pthread_t threads[NUM_THREADS];
  worker_args args[NUM_THREADS];
  for (int t = 0; t < NUM_THREADS; ++t) {
    args[t] = (worker_args){device, image, size, 0};
    pthread_create(&threads[t], NULL, worker, &args[t]);
  }
  for (int t = 0; t < NUM_THREADS; ++t) {
    pthread_join(threads[t], NULL);
    CHECK(!args[t].failed);
  }
  free(image);
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr,
            "usage: %s path/to/test_kernels.so [path/to/test_driver_plugin.so]\n",
            argv[0]);
    return 2;
  }
  kernels_path = argv[1];
  plugin_path = argc > 2 ? argv[2] : NULL;

  test_versions_and_names();
  test_devices();
  test_device_options();

  nlrt_device *device = NULL;
  if (nlrt_device_open("cpu", 0, &device) != NLRT_OK) {
    fprintf(stderr, "cannot open the cpu device: %s\n", nlrt_last_error());
    return 1;
  }
  test_add_from_file(device);
  test_cpu_buffers(device);
  test_entries_from_memory(device);
  test_contract_violations(device);
  test_bad_files(device);
  test_images(device);
  test_out_of_memory(device);
  test_host_callbacks(device);
  test_replacing_host_callback_handler(device);
  test_executable_outlives_device_handle();
  test_concurrent_loads(device);
  test_concurrent_devices();
  nlrt_device_close(device);
  if (plugin_path)
    test_driver_plugin();

  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("all C API checks passed\n");
  return 0;
}
