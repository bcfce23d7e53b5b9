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

#include "test_checks.h"

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
              "known drivers: cpu, cuda, pool");
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

/*===--- SPMD launches: the communicator and its collectives ---------------===*/

/* N cpu devices (ordinals 0 .. N-1, one thread each) and a communicator
 * over them, holding replicas [first, first + n) of `replicas`: all of
 * them here, this process's share in mpi_test.c. A launch passes the
 * per-participant buffers of replicas first .. first + n - 1. */
typedef struct spmd_setup {
  size_t n, first, replicas;
  nlrt_device *devices[4];
  nlrt_communicator *comm;
} spmd_setup;

static int spmd_open_replicas(size_t first, size_t n, size_t replicas,
                              uint32_t timeout_ms, spmd_setup *setup) {
  memset(setup, 0, sizeof(*setup));
  setup->n = n;
  setup->first = first;
  setup->replicas = replicas;
  nlrt_device_option team = {"num_threads", 1};
  for (size_t i = 0; i < n; ++i)
    if (nlrt_device_open_with_options("cpu", (int)i, &team, 1,
                                      &setup->devices[i]) != NLRT_OK)
      return 0;
  nlrt_communicator_options options = {first, replicas, timeout_ms};
  return nlrt_communicator_create(setup->devices, n, &options,
                                  &setup->comm) == NLRT_OK;
}

/* All n replicas. */
static int spmd_open(size_t n, uint32_t timeout_ms, spmd_setup *setup) {
  return spmd_open_replicas(0, n, n, timeout_ms, setup);
}

/* Put before the SPMD checks' messages: "rank R: " in mpi_test.c. */
static char spmd_who[32];

/* Receives each local replica's checked result (mpi_test.c writes them to
 * files); NULL where nothing does. */
typedef void spmd_recorder(size_t replica, const void *data, size_t bytes);

static void spmd_close(spmd_setup *setup) {
  nlrt_communicator_destroy(setup->comm);
  for (size_t i = 0; i < setup->n; ++i)
    nlrt_device_close(setup->devices[i]);
}

/* Loads `entry` on every device from memory: a separate copy of the code
 * per participant, as a compiled pmap is. */
static int spmd_load(const spmd_setup *setup, const char *entry,
                     nlrt_executable **out) {
  size_t size = 0;
  void *image = read_file(kernels_path, &size);
  int ok = image != NULL;
  for (size_t i = 0; i < setup->n; ++i) {
    out[i] = NULL;
    if (ok)
      ok = nlrt_executable_load_memory(setup->devices[i], image, size, entry,
                                       &out[i]) == NLRT_OK;
  }
  free(image);
  return ok;
}

static void spmd_release(const spmd_setup *setup, nlrt_executable **exes) {
  for (size_t i = 0; i < setup->n; ++i)
    nlrt_executable_release(exes[i]);
}

/* The dtypes and kinds as the collective table spells them. */
enum { K_SUM, K_PROD, K_MAX, K_MIN, K_AND, K_OR };

/* test_kernels.c's generic_records: record, dtype, kind, elements, split
 * (bit 0: SPLIT_R groups, else ALL_R), and in that word the forms below. */
typedef struct spmd_case {
  int64_t record;
  nlrt_dtype dtype;
  int kind;
  size_t elements;
  int split;
} spmd_case;

/* Float max and min operands whose result depends on the order of the
 * operands: signed zeros, NaNs with different payloads and signs,
 * infinities (spmd_edge_fill). */
#define SPMD_EDGE 2
/* The kernel runs the record in place: the result buffer holds the
 * operand (test_kernels.c's GENERIC_IN_PLACE). */
#define SPMD_IN_PLACE 4
/* One group of every replica, the last first (test_kernels.c's ROTATED_R):
 * the group order is not the rank order. */
#define SPMD_ROTATED 8

static const spmd_case spmd_cases[] = {
    {0, NLRT_DTYPE_F32, K_SUM, 7, 0},      {1, NLRT_DTYPE_F64, K_MAX, 5, 0},
    {2, NLRT_DTYPE_I32, K_SUM, 9, 0},      {3, NLRT_DTYPE_I1, K_OR, 11, 0},
    {4, NLRT_DTYPE_BF16, K_SUM, 13, 0},    {5, NLRT_DTYPE_C64, K_SUM, 3, 0},
    {6, NLRT_DTYPE_F16, K_SUM, 6, 0},      {7, NLRT_DTYPE_C128, K_PROD, 3, 0},
    {8, NLRT_DTYPE_I8, K_MIN, 5, 0},       {9, NLRT_DTYPE_UI16, K_AND, 4, 0},
    {10, NLRT_DTYPE_I64, K_PROD, 3, 0},    {11, NLRT_DTYPE_F32, K_MIN, 5, 0},
    {12, NLRT_DTYPE_F32, K_SUM, 10007, 0}, {13, NLRT_DTYPE_F32, K_SUM, 0, 0},
    {14, NLRT_DTYPE_F32, K_SUM, 7, 1},     {16, NLRT_DTYPE_BF16, K_MAX, 5, 0},
    {17, NLRT_DTYPE_I1, K_AND, 4, 0},
    {18, NLRT_DTYPE_F32, K_MAX, 8, SPMD_EDGE},
    {19, NLRT_DTYPE_F32, K_MIN, 8, SPMD_EDGE},
    {20, NLRT_DTYPE_F16, K_MAX, 8, SPMD_EDGE},
    {21, NLRT_DTYPE_F16, K_MIN, 8, SPMD_EDGE},
    {22, NLRT_DTYPE_BF16, K_MIN, 8, SPMD_EDGE},
    {23, NLRT_DTYPE_F64, K_MAX, 8, SPMD_EDGE},
    {24, NLRT_DTYPE_F32, K_SUM, 1000, SPMD_IN_PLACE},
    {25, NLRT_DTYPE_F16, K_MAX, 8, SPMD_EDGE | SPMD_IN_PLACE},
    /* Fewer elements than 3 slices, uneven slices, a group out of order;
     * in place, then not. */
    {26, NLRT_DTYPE_F32, K_SUM, 1, SPMD_IN_PLACE},
    {27, NLRT_DTYPE_F32, K_SUM, 2, SPMD_IN_PLACE},
    {28, NLRT_DTYPE_F32, K_SUM, 10007, SPMD_ROTATED | SPMD_IN_PLACE},
    {29, NLRT_DTYPE_BF16, K_MIN, 8, SPMD_EDGE | SPMD_ROTATED | SPMD_IN_PLACE},
    {30, NLRT_DTYPE_I32, K_SUM, 0, SPMD_IN_PLACE},
    {31, NLRT_DTYPE_F32, K_SUM, 1, 0},
    {32, NLRT_DTYPE_F64, K_MAX, 2, 0},
    {33, NLRT_DTYPE_F32, K_SUM, 10007, SPMD_ROTATED},
    {34, NLRT_DTYPE_F32, K_MAX, 8, SPMD_EDGE | SPMD_ROTATED},
    {35, NLRT_DTYPE_C128, K_PROD, 5, SPMD_ROTATED},
    {36, NLRT_DTYPE_F16, K_SUM, 7, SPMD_ROTATED},
};
#define SPMD_REPLICA_ID_RECORD 15
#define SPMD_BYTES 40960

static float bits_to_float(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

static uint16_t reference_bf16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  if (value != value)
    return (uint16_t)((bits >> 16) | 0x40);
  uint32_t lower = bits & 0xffffu, upper = bits >> 16;
  if (lower > 0x8000u || (lower == 0x8000u && (upper & 1u)))
    ++upper;
  return (uint16_t)upper;
}

static float reference_bf16_value(uint16_t h) {
  return bits_to_float((uint32_t)h << 16);
}

/* The SPMD_EDGE classes of values, by element. */
enum { EDGE_NEG_ZERO, EDGE_ZERO, EDGE_NAN, EDGE_NEG_NAN, EDGE_ONE, EDGE_INF,
       EDGE_NEG_INF, EDGE_TWO };

/* The bits of `class` in a float type of `bytes` bytes (2: f16, or bf16 when
 * `brain`); NaNs carry `payload`, EDGE_TWO is 2 plus `payload` ulps. */
static uint64_t edge_bits(size_t bytes, int brain, int class,
                          uint64_t payload) {
  /* sign, quiet NaN, infinity, one, two; by format. */
  static const uint64_t formats[4][5] = {
      {0x8000u, 0x7e00u, 0x7c00u, 0x3c00u, 0x4000u},             /* f16 */
      {0x8000u, 0x7fc0u, 0x7f80u, 0x3f80u, 0x4000u},             /* bf16 */
      {0x80000000u, 0x7fc00000u, 0x7f800000u, 0x3f800000u, 0x40000000u},
      {UINT64_C(1) << 63, UINT64_C(0x7ff8000000000000),
       UINT64_C(0x7ff0000000000000), UINT64_C(0x3ff0000000000000),
       UINT64_C(0x4000000000000000)},
  };
  const uint64_t *f = formats[bytes == 2 ? (brain ? 1 : 0) : bytes == 4 ? 2 : 3];
  switch (class) {
  case EDGE_NEG_ZERO: return f[0];
  case EDGE_ZERO: return 0;
  case EDGE_NAN: return f[1] | payload;
  case EDGE_NEG_NAN: return f[0] | f[1] | payload;
  case EDGE_ONE: return f[3];
  case EDGE_INF: return f[2];
  case EDGE_NEG_INF: return f[0] | f[2];
  default: return f[4] + payload;
  }
}

/* Element e of participant r's operand for SPMD_EDGE: -0 against +0 both
 * ways, NaNs of every replica (the first in group order wins), a negative
 * NaN, a NaN against a number both ways, infinities, equal magnitudes. */
static void spmd_edge_fill(const spmd_case *c, size_t r, void *data) {
  size_t bytes = nlrt_dtype_size(c->dtype);
  for (size_t e = 0; e < c->elements; ++e) {
    int class = EDGE_TWO;
    uint64_t payload = r + 1;
    switch (e % 8) {
    case 0: class = r % 2 ? EDGE_ZERO : EDGE_NEG_ZERO; break;
    case 1: class = r % 2 ? EDGE_NEG_ZERO : EDGE_ZERO; break;
    case 2: class = EDGE_NAN; break;
    case 3: class = r == 0 ? EDGE_NEG_NAN : EDGE_ONE; payload = 5; break;
    case 4: class = r == 0 ? EDGE_ONE : EDGE_NAN; break;
    case 5: class = r == 0 ? EDGE_INF : EDGE_NEG_INF; break;
    case 6: class = EDGE_TWO; payload = r; break;
    case 7: class = r == 1 ? EDGE_NEG_ZERO : EDGE_ZERO; break;
    }
    uint64_t bits =
        edge_bits(bytes, c->dtype == NLRT_DTYPE_BF16, class, payload);
    if (bytes == 2) {
      uint16_t narrow = (uint16_t)bits;
      memcpy((char *)data + e * 2, &narrow, 2);
    } else if (bytes == 4) {
      uint32_t word = (uint32_t)bits;
      memcpy((char *)data + e * 4, &word, 4);
    } else {
      memcpy((char *)data + e * 8, &bits, 8);
    }
  }
}

/* The value of a float element of `bytes` bytes (bf16 when `brain`). */
static double edge_value(const void *data, size_t e, size_t bytes, int brain) {
  if (bytes == 8) {
    double d;
    memcpy(&d, (const char *)data + e * 8, 8);
    return d;
  }
  if (bytes == 4) {
    float f;
    memcpy(&f, (const char *)data + e * 4, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, (const char *)data + e * 2, 2);
  if (brain)
    return bits_to_float((uint32_t)h << 16);
  double sign = h & 0x8000u ? -1.0 : 1.0;
  unsigned exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f)
    return mantissa ? (double)bits_to_float(0x7fc00000u) : sign * (double)bits_to_float(0x7f800000u);
  double magnitude = exponent ? (1024.0 + mantissa) / 1024.0 : mantissa / 1024.0;
  int power = exponent ? (int)exponent - 15 : -14;
  for (; power > 0; --power)
    magnitude *= 2.0;
  for (; power < 0; ++power)
    magnitude /= 2.0;
  return sign * magnitude;
}

/* acc = max or min (acc, operand) for SPMD_EDGE element e, as hlo's
 * combiner in group order: a NaN accumulated stays, else a NaN operand
 * wins; else the operand unless the accumulated one is strictly greater
 * (max) or smaller (min), so +0 and -0 keep the later. Bits are moved
 * whole, so NaN payloads and signs survive. */
static void edge_reference_step(const spmd_case *c, void *acc, const void *b,
                                size_t e) {
  size_t bytes = nlrt_dtype_size(c->dtype);
  int brain = c->dtype == NLRT_DTYPE_BF16;
  double x = edge_value(acc, e, bytes, brain), y = edge_value(b, e, bytes, brain);
  int keep = x != x ||
             (y == y && (c->kind == K_MAX ? x > y : x < y));
  if (!keep)
    memcpy((char *)acc + e * bytes, (const char *)b + e * bytes, bytes);
}

/* Element e of participant r's operand: values whose sums depend on the
 * order (large and small magnitudes), NaN in a few places, integers near
 * their limits so that sums and products wrap. */
static void spmd_fill(const spmd_case *c, size_t r, void *data) {
  if (c->split & SPMD_EDGE) {
    spmd_edge_fill(c, r, data);
    return;
  }
  for (size_t e = 0; e < c->elements; ++e) {
    double x = (double)((e * 7 + r * 3) % 11) * 0.1 +
               (r % 2 ? 1e7 : 1.0) * (double)(e % 5) + 0.01 * (double)r;
    switch (c->dtype) {
    case NLRT_DTYPE_F32:
      ((float *)data)[e] = (c->kind == K_MIN && r == 0 && e == 0)
                               ? bits_to_float(0x7fc00000u)
                               : (float)x;
      break;
    case NLRT_DTYPE_F64:
      ((double *)data)[e] = (r == 1 && e == 2) || (r == 0 && e == 4)
                                ? bits_to_float(0x7fc00000u)
                                : x * (e % 2 ? -1 : 1);
      break;
    case NLRT_DTYPE_I32:
      ((int32_t *)data)[e] = INT32_MAX - (int32_t)(r * 5) + (int32_t)e;
      break;
    case NLRT_DTYPE_I1:
      ((uint8_t *)data)[e] = c->kind == K_OR ? (e + r) % 3 == 0 : (e + r) % 4 != 0;
      break;
    case NLRT_DTYPE_BF16:
      ((uint16_t *)data)[e] = reference_bf16((float)(x * (e % 3 ? 1 : -1)));
      break;
    case NLRT_DTYPE_C64:
      ((float *)data)[2 * e] = (float)x;
      ((float *)data)[2 * e + 1] = (float)(x * 0.5 - 3.0);
      break;
    case NLRT_DTYPE_F16: {
#ifdef __FLT16_MAX__
      _Float16 h = (_Float16)(0.3 * (double)(e + 1) + 1000.0 * (double)r + 0.7);
      memcpy((uint16_t *)data + e, &h, 2);
#else
      ((uint16_t *)data)[e] = (uint16_t)(0x3c00 + r + e);
#endif
      break;
    }
    case NLRT_DTYPE_C128:
      ((double *)data)[2 * e] = 1.0 + 0.25 * (double)(r + e);
      ((double *)data)[2 * e + 1] = 0.5 - 0.125 * (double)r;
      break;
    case NLRT_DTYPE_I8:
      ((int8_t *)data)[e] = (int8_t)(e * 37 - r * 50);
      break;
    case NLRT_DTYPE_UI16:
      ((uint16_t *)data)[e] = (uint16_t)(0xffffu ^ (1u << ((e + r) % 16)));
      break;
    case NLRT_DTYPE_I64:
      ((int64_t *)data)[e] = (int64_t)0x7000000000000001 - (int64_t)(r + e);
      break;
    default:
      break;
    }
  }
}

/* acc (op)= operand for one element, written independently of reduce.c. */
static void reference_step(const spmd_case *c, void *acc, const void *b,
                           size_t e) {
  if (c->split & SPMD_EDGE) {
    edge_reference_step(c, acc, b, e);
    return;
  }
  switch (c->dtype) {
  case NLRT_DTYPE_F32: {
    float *a = (float *)acc + e, y = ((const float *)b)[e];
    if (c->kind == K_SUM)
      *a = *a + y;
    else if (*a != *a)
      ; /* NaN stays */
    else if (y != y || y < *a)
      *a = y;
    break;
  }
  case NLRT_DTYPE_F64: {
    double *a = (double *)acc + e, y = ((const double *)b)[e];
    if (*a == *a && (y != y || y > *a))
      *a = y;
    break;
  }
  case NLRT_DTYPE_I32: {
    uint32_t sum = (uint32_t)((int32_t *)acc)[e] + (uint32_t)((const int32_t *)b)[e];
    memcpy((int32_t *)acc + e, &sum, 4);
    break;
  }
  case NLRT_DTYPE_I1: {
    uint8_t *a = (uint8_t *)acc + e, y = ((const uint8_t *)b)[e];
    *a = c->kind == K_OR ? (*a || y) : (*a && y);
    break;
  }
  case NLRT_DTYPE_BF16: {
    uint16_t *a = (uint16_t *)acc + e, y = ((const uint16_t *)b)[e];
    float fa = reference_bf16_value(*a), fy = reference_bf16_value(y);
    if (c->kind == K_SUM)
      *a = reference_bf16(fa + fy);
    else if (fa == fa && (fy != fy || fy > fa))
      *a = y;
    break;
  }
  case NLRT_DTYPE_C64:
    ((float *)acc)[2 * e] += ((const float *)b)[2 * e];
    ((float *)acc)[2 * e + 1] += ((const float *)b)[2 * e + 1];
    break;
  case NLRT_DTYPE_F16: {
#ifdef __FLT16_MAX__
    _Float16 a, y;
    memcpy(&a, (uint16_t *)acc + e, 2);
    memcpy(&y, (const uint16_t *)b + e, 2);
    _Float16 sum = (_Float16)((float)a + (float)y);
    memcpy((uint16_t *)acc + e, &sum, 2);
#else
    (void)acc, (void)b;
#endif
    break;
  }
  case NLRT_DTYPE_C128: {
    double *a = (double *)acc + 2 * e;
    const double *y = (const double *)b + 2 * e;
    double real = a[0] * y[0] - a[1] * y[1], imag = a[0] * y[1] + a[1] * y[0];
    a[0] = real, a[1] = imag;
    break;
  }
  case NLRT_DTYPE_I8: {
    int8_t *a = (int8_t *)acc + e, y = ((const int8_t *)b)[e];
    if (y < *a)
      *a = y;
    break;
  }
  case NLRT_DTYPE_UI16:
    ((uint16_t *)acc)[e] &= ((const uint16_t *)b)[e];
    break;
  case NLRT_DTYPE_I64: {
    uint64_t product = (uint64_t)((int64_t *)acc)[e] * (uint64_t)((const int64_t *)b)[e];
    memcpy((int64_t *)acc + e, &product, 8);
    break;
  }
  default:
    break;
  }
}

/* The members of participant r's group for a case on n replicas. */
static size_t spmd_group(const spmd_case *c, size_t n, size_t r,
                         size_t *members) {
  if (c->split & SPMD_ROTATED) {
    for (size_t i = 0; i < n; ++i)
      members[i] = (i + n - 1) % n;
    return n;
  }
  if (!(c->split & 1)) {
    for (size_t i = 0; i < n; ++i)
      members[i] = i;
    return n;
  }
  if (n == 4) {
    members[0] = r % 2, members[1] = r % 2 + 2;
    return 2;
  }
  members[0] = r;
  return 1;
}

/* Buffers of one generic launch: per participant a record, an operand and
 * a result. */
typedef struct spmd_buffers {
  int64_t record[4];
  unsigned char *operand[4], *result[4];
  void *pointers[4][3];
  void *const *per_participant[4];
} spmd_buffers;

static void spmd_buffers_init(spmd_buffers *b, int64_t record) {
  for (size_t i = 0; i < 4; ++i) {
    b->record[i] = record;
    b->operand[i] = calloc(1, SPMD_BYTES);
    b->result[i] = calloc(1, SPMD_BYTES);
    b->pointers[i][0] = &b->record[i];
    b->pointers[i][1] = b->operand[i];
    b->pointers[i][2] = b->result[i];
    b->per_participant[i] = b->pointers[i];
  }
}

static void spmd_buffers_free(spmd_buffers *b) {
  for (size_t i = 0; i < 4; ++i) {
    free(b->operand[i]);
    free(b->result[i]);
  }
}

/* Every case of the generic kernel on the setup's replicas: each local
 * replica's result equals the group-order reduction of every replica's
 * operand computed here, bit for bit. */
static void test_spmd_all_reduce(const spmd_setup *setup,
                                 nlrt_executable **exes,
                                 spmd_recorder *record) {
  size_t n = setup->replicas, first = setup->first, local = setup->n;
  spmd_buffers b;
  spmd_buffers_init(&b, 0);
  unsigned char *expected = malloc(SPMD_BYTES);
  for (size_t k = 0; k < sizeof(spmd_cases) / sizeof(spmd_cases[0]); ++k) {
    const spmd_case *c = &spmd_cases[k];
    size_t bytes = c->elements * nlrt_dtype_size(c->dtype);
    for (size_t r = 0; r < n; ++r) {
      b.record[r] = c->record;
      spmd_fill(c, r, b.operand[r]);
      memset(b.result[r], 0xa5, SPMD_BYTES);
      if (c->split & SPMD_IN_PLACE)
        memcpy(b.result[r], b.operand[r], bytes);
    }
    nlrt_status statuses[4] = {99, 99, 99, 99};
    CHECK(nlrt_executable_execute_spmd(setup->comm, local, exes,
                                       b.per_participant + first, 3,
                                       statuses) == NLRT_OK);
    for (size_t r = first; r < first + local; ++r) {
      CHECK(statuses[r - first] == NLRT_OK);
      size_t members[4];
      size_t g = spmd_group(c, n, r, members);
      memcpy(expected, b.operand[members[0]], bytes);
      for (size_t m = 1; m < g; ++m)
        for (size_t e = 0; e < c->elements; ++e)
          reference_step(c, expected, b.operand[members[m]], e);
      int same = memcmp(b.result[r], expected, bytes) == 0;
#ifndef __FLT16_MAX__
      /* No reference: the members agree (with members[0] in another
       * process, test_runtime_mpi.py compares the files). */
      if (c->dtype == NLRT_DTYPE_F16)
        same = members[0] < first || members[0] >= first + local ||
               memcmp(b.result[r], b.result[members[0]], bytes) == 0;
#endif
      if (!same)
        fprintf(stderr, "%sall_reduce record %lld on %zu replicas: replica "
                        "%zu differs\n",
                spmd_who, (long long)c->record, n, r);
      CHECK(same);
      /* Nothing past the result was written. */
      CHECK(b.result[r][bytes] == 0xa5 && b.result[r][SPMD_BYTES - 1] == 0xa5);
      if (record)
        record(r, b.result[r], bytes);
    }
  }

  /* replica_id: each gets its own id. */
  for (size_t r = 0; r < n; ++r) {
    b.record[r] = SPMD_REPLICA_ID_RECORD;
    memset(b.result[r], 0xff, 8);
  }
  CHECK(nlrt_executable_execute_spmd(setup->comm, local, exes,
                                     b.per_participant + first, 3,
                                     NULL) == NLRT_OK);
  for (size_t r = first; r < first + local; ++r) {
    uint32_t id;
    memcpy(&id, b.result[r], 4);
    CHECK(id == r);
    if (record)
      record(r, &id, sizeof(id));
  }
  free(expected);
  spmd_buffers_free(&b);
}

/*===--- all_gather, all_to_all, reduce_scatter, collective_permute ------===*/

enum { OP_ALL_GATHER = 2, OP_ALL_TO_ALL, OP_REDUCE_SCATTER, OP_PERMUTE };
/* test_kernels.c's RING_R, CHAIN_R and MIXED_R pairs. */
enum { NO_PAIRS, RING, CHAIN, MIXED };

/* test_kernels.c's exchange_R records. */
typedef struct exchange_case {
  int64_t record;
  int op;
  nlrt_dtype dtype;
  int kind; /* reduce_scatter's, else -1 */
  /* all_gather, permute: the operand's; all_to_all, reduce_scatter: a
   * block's (the operand has one block per group member). */
  size_t elements;
  int split; /* test_kernels.c's SPLIT_R groups, else ALL_R */
  int pairs; /* permute */
} exchange_case;

static const exchange_case exchange_cases[] = {
    {0, OP_ALL_GATHER, NLRT_DTYPE_F32, -1, 7, 0, 0},
    {1, OP_ALL_GATHER, NLRT_DTYPE_F64, -1, 5, 0, 0},
    {2, OP_ALL_GATHER, NLRT_DTYPE_I32, -1, 9, 0, 0},
    {3, OP_ALL_GATHER, NLRT_DTYPE_I1, -1, 11, 0, 0},
    {4, OP_ALL_GATHER, NLRT_DTYPE_BF16, -1, 13, 0, 0},
    {5, OP_ALL_GATHER, NLRT_DTYPE_C64, -1, 3, 0, 0},
    {6, OP_ALL_GATHER, NLRT_DTYPE_F32, -1, 0, 0, 0},
    {7, OP_ALL_GATHER, NLRT_DTYPE_F32, -1, 7, 1, 0},
    {8, OP_ALL_GATHER, NLRT_DTYPE_C128, -1, 3, 0, 0},
    {9, OP_ALL_GATHER, NLRT_DTYPE_F16, -1, 5, 0, 0},
    {10, OP_ALL_GATHER, NLRT_DTYPE_F64, -1, 30011, 0, 0},
    {11, OP_ALL_TO_ALL, NLRT_DTYPE_F32, -1, 7, 0, 0},
    {12, OP_ALL_TO_ALL, NLRT_DTYPE_F64, -1, 5, 0, 0},
    {13, OP_ALL_TO_ALL, NLRT_DTYPE_I32, -1, 9, 0, 0},
    {14, OP_ALL_TO_ALL, NLRT_DTYPE_I1, -1, 11, 0, 0},
    {15, OP_ALL_TO_ALL, NLRT_DTYPE_BF16, -1, 13, 0, 0},
    {16, OP_ALL_TO_ALL, NLRT_DTYPE_C64, -1, 3, 0, 0},
    {17, OP_ALL_TO_ALL, NLRT_DTYPE_F32, -1, 0, 0, 0},
    {18, OP_ALL_TO_ALL, NLRT_DTYPE_F32, -1, 7, 1, 0},
    {19, OP_ALL_TO_ALL, NLRT_DTYPE_I8, -1, 5, 0, 0},
    {20, OP_ALL_TO_ALL, NLRT_DTYPE_F64, -1, 30011, 0, 0},
    {21, OP_REDUCE_SCATTER, NLRT_DTYPE_F32, K_SUM, 7, 0, 0},
    {22, OP_REDUCE_SCATTER, NLRT_DTYPE_F64, K_MAX, 5, 0, 0},
    {23, OP_REDUCE_SCATTER, NLRT_DTYPE_I32, K_SUM, 9, 0, 0},
    {24, OP_REDUCE_SCATTER, NLRT_DTYPE_I1, K_OR, 11, 0, 0},
    {25, OP_REDUCE_SCATTER, NLRT_DTYPE_BF16, K_SUM, 13, 0, 0},
    {26, OP_REDUCE_SCATTER, NLRT_DTYPE_C64, K_SUM, 3, 0, 0},
    {27, OP_REDUCE_SCATTER, NLRT_DTYPE_F32, K_SUM, 0, 0, 0},
    {28, OP_REDUCE_SCATTER, NLRT_DTYPE_F32, K_SUM, 7, 1, 0},
    {29, OP_REDUCE_SCATTER, NLRT_DTYPE_F16, K_SUM, 6, 0, 0},
    {30, OP_REDUCE_SCATTER, NLRT_DTYPE_C128, K_PROD, 3, 0, 0},
    {31, OP_REDUCE_SCATTER, NLRT_DTYPE_F32, K_MIN, 5, 0, 0},
    {32, OP_REDUCE_SCATTER, NLRT_DTYPE_F32, K_SUM, 30011, 0, 0},
    {33, OP_REDUCE_SCATTER, NLRT_DTYPE_BF16, K_MAX, 5, 0, 0},
    {34, OP_REDUCE_SCATTER, NLRT_DTYPE_I1, K_AND, 4, 0, 0},
    {35, OP_REDUCE_SCATTER, NLRT_DTYPE_UI16, K_AND, 4, 0, 0},
    {36, OP_PERMUTE, NLRT_DTYPE_F32, -1, 7, 0, RING},
    {37, OP_PERMUTE, NLRT_DTYPE_F64, -1, 5, 0, RING},
    {38, OP_PERMUTE, NLRT_DTYPE_I32, -1, 9, 0, CHAIN},
    {39, OP_PERMUTE, NLRT_DTYPE_I1, -1, 11, 0, MIXED},
    {40, OP_PERMUTE, NLRT_DTYPE_BF16, -1, 13, 0, RING},
    {41, OP_PERMUTE, NLRT_DTYPE_C64, -1, 3, 0, CHAIN},
    {42, OP_PERMUTE, NLRT_DTYPE_F32, -1, 0, 0, RING},
    {43, OP_PERMUTE, NLRT_DTYPE_F64, -1, 30011, 0, RING},
    {44, OP_PERMUTE, NLRT_DTYPE_I64, -1, 4, 0, MIXED},
    {45, OP_PERMUTE, NLRT_DTYPE_C128, -1, 3, 0, MIXED},
    {46, OP_PERMUTE, NLRT_DTYPE_I8, -1, 5, 0, CHAIN},
};
#define EXCHANGE_BYTES 1048576

static const char *exchange_op_name(int op) {
  static const char *const names[] = {"all_gather", "all_to_all",
                                      "reduce_scatter", "collective_permute"};
  return names[op - OP_ALL_GATHER];
}

/* Which replica sends replica r its permuted operand on n replicas, or -1
 * (it gets zeros). */
static int exchange_source(int pairs, size_t n, size_t r) {
  static const int mixed[5][4] = {
      {0}, {0}, {-1, 1}, {2, -1, 0}, {2, 3, -1, 1}};
  switch (pairs) {
  case RING:
    return (int)((r + n - 1) % n);
  case CHAIN:
    return (int)r - 1;
  default:
    return mixed[n][r];
  }
}

/* The case as spmd_fill and reference_step see it, with the operand's
 * element count on n replicas. */
static spmd_case exchange_as_spmd_case(const exchange_case *c, size_t n) {
  spmd_case as = {c->record, c->dtype, c->kind, c->elements, c->split};
  if (c->op == OP_ALL_TO_ALL || c->op == OP_REDUCE_SCATTER) {
    size_t members[4];
    as.elements *= spmd_group(&as, n, 0, members);
  }
  return as;
}

/* Participant r's result, computed here from the operands into `out`;
 * returns its size in bytes. */
static size_t exchange_expected(const exchange_case *c, size_t n, size_t r,
                                unsigned char *const *operands,
                                unsigned char *out) {
  spmd_case as = exchange_as_spmd_case(c, n);
  size_t block = c->elements * nlrt_dtype_size(c->dtype);
  if (c->op == OP_PERMUTE) {
    int source = exchange_source(c->pairs, n, r);
    if (source < 0)
      memset(out, 0, block);
    else
      memcpy(out, operands[source], block);
    return block;
  }
  size_t members[4], position = 0;
  size_t g = spmd_group(&as, n, r, members);
  while (members[position] != r)
    ++position;
  switch (c->op) {
  case OP_ALL_GATHER: /* block k: member k's operand */
    for (size_t k = 0; k < g; ++k)
      memcpy(out + k * block, operands[members[k]], block);
    return g * block;
  case OP_ALL_TO_ALL: /* block j: block `position` of member j's operand */
    for (size_t j = 0; j < g; ++j)
      memcpy(out + j * block, operands[members[j]] + position * block, block);
    return g * block;
  default: /* reduce_scatter: block `position` reduced in group order */
    memcpy(out, operands[members[0]] + position * block, block);
    for (size_t m = 1; m < g; ++m)
      for (size_t e = 0; e < c->elements; ++e)
        reference_step(&as, out, operands[members[m]] + position * block, e);
    return block;
  }
}

/* Buffers of exchange_R launches: per participant {record, in_place}, an
 * operand and a result. */
typedef struct exchange_buffers {
  int64_t what[4][2];
  unsigned char *operand[4], *result[4];
  void *pointers[4][3];
  void *const *per_participant[4];
} exchange_buffers;

static void exchange_buffers_init(exchange_buffers *b) {
  for (size_t i = 0; i < 4; ++i) {
    b->what[i][0] = b->what[i][1] = 0;
    b->operand[i] = calloc(1, EXCHANGE_BYTES);
    b->result[i] = calloc(1, EXCHANGE_BYTES);
    b->pointers[i][0] = b->what[i];
    b->pointers[i][1] = b->operand[i];
    b->pointers[i][2] = b->result[i];
    b->per_participant[i] = b->pointers[i];
  }
}

static void exchange_buffers_free(exchange_buffers *b) {
  for (size_t i = 0; i < 4; ++i) {
    free(b->operand[i]);
    free(b->result[i]);
  }
}

/* Every exchange case on the setup's replicas (setup NULL: a plain execute
 * of exes[0], one replica), out of place and in place: each local result
 * equals the one computed here from every replica's operand, bit for bit,
 * and nothing past it was written (in place: past it the result buffer
 * still holds the operand). */
static void test_spmd_exchange(const spmd_setup *setup, nlrt_executable **exes,
                               spmd_recorder *record) {
  size_t n = setup ? setup->replicas : 1, first = setup ? setup->first : 0,
         local = setup ? setup->n : 1;
  exchange_buffers b;
  exchange_buffers_init(&b);
  unsigned char *expected = malloc(EXCHANGE_BYTES);
  unsigned char *untouched = malloc(EXCHANGE_BYTES);
  memset(untouched, 0xa5, EXCHANGE_BYTES);
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (size_t k = 0; k < sizeof(exchange_cases) / sizeof(exchange_cases[0]);
         ++k) {
      const exchange_case *c = &exchange_cases[k];
      spmd_case as = exchange_as_spmd_case(c, n);
      for (size_t r = 0; r < n; ++r) {
        b.what[r][0] = c->record;
        b.what[r][1] = in_place;
        memset(b.operand[r], 0x5a, EXCHANGE_BYTES);
        spmd_fill(&as, r, b.operand[r]);
        memset(b.result[r], 0xa5, EXCHANGE_BYTES);
      }
      nlrt_status statuses[4] = {99, 99, 99, 99};
      if (setup)
        CHECK(nlrt_executable_execute_spmd(setup->comm, local, exes,
                                           b.per_participant + first, 3,
                                           statuses) == NLRT_OK);
      else
        CHECK((statuses[0] = nlrt_executable_execute(exes[0], b.pointers[0],
                                                     3)) == NLRT_OK);
      for (size_t r = first; r < first + local; ++r) {
        CHECK(statuses[r - first] == NLRT_OK);
        size_t bytes = exchange_expected(c, n, r, b.operand, expected);
        int same = memcmp(b.result[r], expected, bytes) == 0;
#ifndef __FLT16_MAX__
        if (c->dtype == NLRT_DTYPE_F16 && c->op == OP_REDUCE_SCATTER)
          same = 1; /* no reference */
#endif
        const unsigned char *past =
            in_place ? b.operand[r] + bytes : untouched;
        int kept = memcmp(b.result[r] + bytes, past,
                          EXCHANGE_BYTES - bytes) == 0;
        if (!same || !kept)
          fprintf(stderr,
                  "%s%s record %lld on %zu replica(s)%s: replica %zu's result "
                  "%s\n",
                  spmd_who, exchange_op_name(c->op), (long long)c->record, n,
                  in_place ? ", in place" : "", r,
                  same ? "was written past its end" : "differs");
        CHECK(same);
        CHECK(kept);
        if (record)
          record(r, b.result[r], bytes);
      }
    }
  }
  free(untouched);
  free(expected);
  exchange_buffers_free(&b);
}

/* Participants at different ops diverge, with both ops named; the next
 * launch works. */
static void test_spmd_exchange_divergence(const spmd_setup *setup,
                                          nlrt_executable **exes) {
  size_t n = setup->n;
  if (n < 2)
    return;
  exchange_buffers b;
  exchange_buffers_init(&b);
  for (size_t r = 0; r < n; ++r)
    b.what[r][0] = r == 0 ? 0 : 11;
  nlrt_status statuses[4];
  CHECK_FAILS(nlrt_executable_execute_spmd(setup->comm, n, exes,
                                           b.per_participant, 3, statuses),
              NLRT_COLLECTIVE_FAILED,
              "replica 1 is at all_to_all (collective 11) while replica 0 is "
              "at all_gather (collective 0)");
  for (size_t r = 0; r < n; ++r) {
    CHECK(statuses[r] == NLRT_COLLECTIVE_FAILED);
    b.what[r][0] = 36; /* the ring */
    ((float *)b.operand[r])[6] = (float)r;
  }
  CHECK(nlrt_executable_execute_spmd(setup->comm, n, exes, b.per_participant,
                                     3, NULL) == NLRT_OK);
  for (size_t r = 0; r < n; ++r)
    CHECK(((float *)b.result[r])[6] == (float)((r + n - 1) % n));
  exchange_buffers_free(&b);
}

/* One launch of a special kernel (i64[];f32[2]->f32[2]): replica r's
 * operand is {r + 1, 10 * (r + 1)}; results[i] is participant i's. */
static nlrt_status spmd_special(const spmd_setup *setup, nlrt_executable **exes,
                                int64_t parameter, float results[4][2],
                                nlrt_status *statuses) {
  float operands[4][2];
  void *pointers[4][3];
  void *const *per_participant[4];
  for (size_t i = 0; i < setup->n; ++i) {
    size_t r = setup->first + i;
    operands[i][0] = (float)(r + 1);
    operands[i][1] = (float)(10 * (r + 1));
    results[i][0] = results[i][1] = -1;
    pointers[i][0] = &parameter;
    pointers[i][1] = operands[i];
    pointers[i][2] = results[i];
    per_participant[i] = pointers[i];
  }
  return nlrt_executable_execute_spmd(setup->comm, setup->n, exes,
                                      per_participant, 3, statuses);
}

/* The special kernels' all_reduce worked: every local result is the sum
 * over all replicas. */
static int spmd_summed(const spmd_setup *setup, float results[4][2]) {
  float total = (float)(setup->replicas * (setup->replicas + 1) / 2);
  int ok = 1;
  for (size_t i = 0; i < setup->n; ++i)
    ok &= results[i][0] == total && results[i][1] == 10 * total;
  return ok;
}

/* "replicas 0, 2, 3" of 0 .. n-1 without `missing`. */
static void spmd_others(size_t n, size_t missing, char *out, size_t capacity) {
  snprintf(out, capacity, "replica%s", n - 1 == 1 ? "" : "s");
  const char *separator = " ";
  for (size_t r = 0; r < n; ++r) {
    if (r == missing)
      continue;
    size_t used = strlen(out);
    snprintf(out + used, capacity - used, "%s%zu", separator, r);
    separator = ", ";
  }
}

/* Control flow that depends on the replica, a skipped collective, a peer
 * that never comes, a peer that fails: each fails the launch with a message
 * that names the collectives, their lines and the replicas; the next launch
 * on the same communicator works. */
static void test_spmd_failures(const spmd_setup *setup) {
  size_t n = setup->n;
  nlrt_executable *slow[4], *other[4];
  float results[4][2];
  nlrt_status statuses[4];
  char message[256];
  char name[32];
  snprintf(name, sizeof(name), "slow_%zu", n);
  CHECK(spmd_load(setup, name, slow));

  if (n >= 2) {
    /* Divergence. */
    snprintf(name, sizeof(name), "diverge_%zu", n);
    CHECK(spmd_load(setup, name, other));
    CHECK_FAILS(spmd_special(setup, other, 0, results, statuses),
                NLRT_COLLECTIVE_FAILED,
                "replica 1 is at all_reduce (kernels.py:20) while replica 0 "
                "is at all_reduce (kernels.py:10)");
    for (size_t r = 0; r < n; ++r)
      CHECK(statuses[r] == NLRT_COLLECTIVE_FAILED);
    spmd_release(setup, other);
    CHECK(spmd_special(setup, slow, 0, results, statuses) == NLRT_OK);
    CHECK(spmd_summed(setup, results));

    /* A replica that skips the collective: found when it finishes. */
    snprintf(name, sizeof(name), "skip_%zu", n);
    CHECK(spmd_load(setup, name, other));
    CHECK_FAILS(spmd_special(setup, other, 0, results, statuses),
                NLRT_COLLECTIVE_FAILED,
                "replica 1 finished its program while replica 0 is at "
                "all_reduce (kernels.py:10)");
    CHECK(statuses[1] == NLRT_OK && statuses[0] == NLRT_COLLECTIVE_FAILED);
    spmd_release(setup, other);
    CHECK(spmd_special(setup, slow, 0, results, statuses) == NLRT_OK);
    CHECK(spmd_summed(setup, results));

    /* Replica 1 comes 2 s late to a communicator that waits 1 s. */
    char others[64];
    spmd_others(n, 1, others, sizeof(others));
    snprintf(message, sizeof(message),
             "all_reduce (kernels.py:10) timed out after 1 s: replica 1 never "
             "reached it (%s waited)",
             others);
    CHECK_FAILS(spmd_special(setup, slow, 2000, results, statuses),
                NLRT_COLLECTIVE_FAILED, message);
    for (size_t r = 0; r < n; ++r)
      CHECK(statuses[r] == NLRT_COLLECTIVE_FAILED);
    CHECK(spmd_special(setup, slow, 0, results, statuses) == NLRT_OK);
    CHECK(spmd_summed(setup, results));
  }

  /* The last replica runs out of memory before the collective. */
  snprintf(name, sizeof(name), "fail_%zu", n);
  CHECK(spmd_load(setup, name, other));
  snprintf(message, sizeof(message),
           "replica %zu failed: 'fail_%zu' (i64[];f32[2]->f32[2]) ran out of "
           "memory: allocating a temporary buffer of 4611686018427387904",
           n - 1, n);
  for (int round = 0; round < 2; ++round) {
    CHECK_FAILS(spmd_special(setup, other, 1, results, statuses),
                NLRT_OUT_OF_MEMORY, message);
    for (size_t r = 0; r < n; ++r)
      CHECK(statuses[r] ==
            (r == n - 1 ? NLRT_OUT_OF_MEMORY : NLRT_COLLECTIVE_FAILED));
    CHECK(spmd_special(setup, other, 0, results, statuses) == NLRT_OK);
    CHECK(spmd_summed(setup, results));
  }
  spmd_release(setup, other);
  spmd_release(setup, slow);
}

/* What a launch checks before anything runs. */
static void test_spmd_refusals(const spmd_setup *setup,
                               nlrt_executable **exes) {
  size_t n = setup->n;
  spmd_buffers b;
  spmd_buffers_init(&b, 0);
  if (n > 1) {
    char message[256];
    snprintf(message, sizeof(message),
             "'all_reduce_%zu' (i64[];ui8[40960]->ui8[40960]) is compiled "
             "for %zu replicas: use nlrt_executable_execute_spmd",
             n, n);
    CHECK_FAILS(nlrt_executable_execute(exes[0], b.pointers[0], 3),
                NLRT_INVALID_ARGUMENT, message);
  }
  CHECK(nlrt_executable_num_replicas(exes[0]) == n);
  CHECK_FAILS(nlrt_executable_execute_spmd(setup->comm, n + 1, exes,
                                           b.per_participant, 3, NULL),
              NLRT_INVALID_ARGUMENT, "the communicator has");
  CHECK_FAILS(nlrt_executable_execute_spmd(setup->comm, n, exes,
                                           b.per_participant, 2, NULL),
              NLRT_INVALID_ARGUMENT, "takes 3 buffers");
  void *saved = b.pointers[n - 1][2];
  b.pointers[n - 1][2] = NULL;
  char message[128];
  snprintf(message, sizeof(message),
           "participant %zu: buffer 2 (output 0) of 'all_reduce_%zu' is NULL",
           n - 1, n);
  CHECK_FAILS(nlrt_executable_execute_spmd(setup->comm, n, exes,
                                           b.per_participant, 3, NULL),
              NLRT_INVALID_ARGUMENT, message);
  b.pointers[n - 1][2] = saved;
  if (n > 1) {
    nlrt_executable *swapped[4];
    memcpy(swapped, exes, n * sizeof(*exes));
    swapped[0] = exes[1], swapped[1] = exes[0];
    CHECK_FAILS(nlrt_executable_execute_spmd(setup->comm, n, swapped,
                                             b.per_participant, 3, NULL),
                NLRT_INVALID_ARGUMENT,
                "executables[0] is loaded on cpu:1; participant 0 runs on "
                "cpu:0");
    /* Compiled for another replica count; another program. */
    nlrt_executable *one = NULL, *mixed[4];
    CHECK(nlrt_executable_load_file(setup->devices[n - 1], kernels_path,
                                    "all_reduce_1", &one) == NLRT_OK);
    memcpy(mixed, exes, n * sizeof(*exes));
    mixed[n - 1] = one;
    CHECK_FAILS(nlrt_executable_execute_spmd(setup->comm, n, mixed,
                                             b.per_participant, 3, NULL),
                NLRT_INVALID_ARGUMENT,
                "'all_reduce_1' is compiled for 1 replica; the communicator "
                "has");
    nlrt_executable_release(one);
    char entry[32];
    snprintf(entry, sizeof(entry), "slow_%zu", n);
    CHECK(nlrt_executable_load_file(setup->devices[n - 1], kernels_path, entry,
                                    &one) == NLRT_OK);
    mixed[n - 1] = one;
    CHECK_FAILS(nlrt_executable_execute_spmd(setup->comm, n, mixed,
                                             b.per_participant, 3, NULL),
                NLRT_INVALID_ARGUMENT, "every participant runs the same "
                                       "program");
    nlrt_executable_release(one);
  }
  CHECK_FAILS(nlrt_executable_execute_spmd(NULL, n, exes, b.per_participant,
                                           3, NULL),
              NLRT_INVALID_ARGUMENT, "NULL communicator");
  spmd_buffers_free(&b);
}

/* Plain execution of a one-replica SPMD program: the all_reduce copies,
 * the replica id is 0. */
static void test_spmd_single_replica(nlrt_device *device) {
  nlrt_executable *exe = NULL;
  CHECK(nlrt_executable_load_file(device, kernels_path, "all_reduce_1",
                                  &exe) == NLRT_OK);
  if (!exe)
    return;
  spmd_buffers b;
  spmd_buffers_init(&b, 0);
  for (size_t i = 0; i < 7; ++i)
    ((float *)b.operand[0])[i] = (float)i + 0.5f;
  CHECK(nlrt_executable_execute(exe, b.pointers[0], 3) == NLRT_OK);
  CHECK(memcmp(b.operand[0], b.result[0], 7 * sizeof(float)) == 0);
  b.record[0] = SPMD_REPLICA_ID_RECORD;
  memset(b.result[0], 0xff, 4);
  CHECK(nlrt_executable_execute(exe, b.pointers[0], 3) == NLRT_OK);
  CHECK(((uint32_t *)b.result[0])[0] == 0);
  /* A record the table does not have stops the call. */
  b.record[0] = 1000;
  CHECK_FAILS(nlrt_executable_execute(exe, b.pointers[0], 3),
              NLRT_COLLECTIVE_FAILED,
              "collective 1000 was called, but the running executable's "
              "collective table has 37 records");
  nlrt_executable_release(exe);
  spmd_buffers_free(&b);

  CHECK(nlrt_executable_load_file(device, kernels_path, "four_replicas",
                                  &exe) == NLRT_OK);
  int32_t out = 0;
  void *buffers[] = {&out};
  CHECK_FAILS(nlrt_executable_execute(exe, buffers, 1), NLRT_INVALID_ARGUMENT,
              "'four_replicas' (->i32[1]) is compiled for 4 replicas: use "
              "nlrt_executable_execute_spmd");
  CHECK(nlrt_executable_num_replicas(exe) == 4);
  nlrt_executable_release(exe);
  CHECK(nlrt_executable_num_replicas(NULL) == 0);

  /* The other ops on one replica: copies, a permute without (0, 0) zeros. */
  exe = NULL;
  CHECK(nlrt_executable_load_file(device, kernels_path, "exchange_1", &exe) ==
        NLRT_OK);
  if (exe)
    test_spmd_exchange(NULL, &exe, NULL);
  nlrt_executable_release(exe);
}

/* Malformed tables fail the load with a message that says what is wrong. */
static void test_spmd_malformed_tables(nlrt_device *device) {
  static const struct {
    const char *entry, *message;
  } cases[] = {
      {"bad_version", "format version 2; this runtime reads version 1"},
      {"bad_length", "'bad_length_collectives' is not a 40-byte variable"},
      {"bad_offset", "record 0 is at word 99, outside words 4 to 12"},
      {"bad_replica", "record 0 names replica 5; the executable runs on "
                      "replicas 0 to 1"},
      {"repeated_replica", "record 0 names replica 1 twice"},
      {"uncovered_replica", "record 0 has 1 groups of 1 replicas; the "
                            "executable runs on 2"},
      {"unknown_op", "record 0 has unknown op 9"},
      {"unknown_dtype", "record 0 has unknown dtype 20"},
      {"unknown_kind", "record 0 has unknown reduction kind 7"},
      {"sum_of_i1", "record 0: an all_reduce sum cannot combine i1"},
      {"max_of_c64", "record 0: an all_reduce max cannot combine c64"},
      {"replica_id_f32", "a replica_id has kind -1, dtype ui32 and 1 element"},
      {"bad_location", "record 0 has location 5, which "
                       "'bad_location_collective_locations' does not have"},
      {"past_the_end", "record 0 runs past the table's end"},
      {"no_replicas", "'no_replicas_num_replicas' is 0"},
      {"all_gather_with_kind", "record 0: an all_gather takes no reduction "
                               "kind (kind -1), got kind 0"},
      {"all_to_all_with_kind", "record 0: an all_to_all takes no reduction "
                               "kind (kind -1), got kind 1"},
      {"permute_with_kind", "record 0: a collective_permute takes no "
                            "reduction kind (kind -1), got kind 0"},
      {"reduce_scatter_without_kind", "record 0 has unknown reduction kind "
                                      "-1"},
      {"reduce_scatter_of_i1", "record 0: a reduce_scatter sum cannot "
                               "combine i1"},
      {"all_to_all_indivisible", "record 0: an all_to_all of 3 elements does "
                                 "not split into 2 equal blocks, one per "
                                 "member of its groups"},
      {"reduce_scatter_indivisible", "record 0: a reduce_scatter of 5 "
                                     "elements does not split into 2 equal "
                                     "blocks"},
      {"all_gather_uncovered", "record 0 has 1 groups of 1 replicas; the "
                               "executable runs on 2"},
      {"all_to_all_repeated", "record 0 names replica 1 twice"},
      {"reduce_scatter_bad_replica", "record 0 names replica 2; the "
                                     "executable runs on replicas 0 to 1"},
      {"all_gather_too_large", "record 0: an all_gather of "
                               "1152921504606846976 elements in groups of 2 "
                               "has a result too large to address"},
      {"permute_not_pairs", "record 0: a collective_permute has pairs "
                            "(source, target: group size 2), not groups of "
                            "3"},
      {"permute_repeated_source", "record 0: replica 0 is the source of two "
                                  "pairs of a collective_permute"},
      {"permute_repeated_target", "record 0: replica 1 is the target of two "
                                  "pairs of a collective_permute"},
      {"permute_bad_target", "record 0 names replica 2; the executable runs "
                             "on replicas 0 to 1"},
      {"permute_negative_source", "record 0 names replica -1; the executable "
                                  "runs on replicas 0 to 1"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    nlrt_executable *exe = NULL;
    nlrt_status status =
        nlrt_executable_load_file(device, kernels_path, cases[i].entry, &exe);
    if (status != NLRT_LOAD_FAILED ||
        !strstr(nlrt_last_error(), cases[i].message))
      fprintf(stderr, "loading '%s': %s: %s\n", cases[i].entry,
              nlrt_status_string(status), nlrt_last_error());
    CHECK(status == NLRT_LOAD_FAILED);
    CHECK(strstr(nlrt_last_error(), cases[i].message) != NULL);
    CHECK(exe == NULL);
  }
}

/* A host callback of a participant may not launch (it would wait for
 * itself); it can tell which participant it runs for. */
typedef struct nested_launch {
  nlrt_communicator *comm;
  nlrt_executable **exes;
  nlrt_status status;
  char message[512];
  int participant_known;
  size_t local;
  nlrt_communicator *found;
  pthread_t thread; /* where the callback ran */
  int fail;         /* the callback reports a failure */
} nested_launch;

static int launch_from_callback(void *user_data, uint64_t id,
                                void *const *operands, size_t num_operands,
                                void *const *results, size_t num_results) {
  (void)id, (void)num_operands, (void)num_results;
  nested_launch *nested = user_data;
  nested->thread = pthread_self();
  float x[2] = {0, 0}, doubled[2], after[2];
  void *buffers[] = {x, doubled, after};
  void *const *per_participant[] = {buffers};
  nested->status = nlrt_executable_execute_spmd(nested->comm, 1, nested->exes,
                                                per_participant, 3, NULL);
  snprintf(nested->message, sizeof(nested->message), "%s", nlrt_last_error());
  nested->participant_known =
      nlrt_spmd_current_participant(&nested->found, &nested->local);
  memcpy(results[0], operands[0], 2 * sizeof(float));
  return nested->fail;
}

/* One launch of call_host on the nested test's communicator. */
static nlrt_status launch_call_host(nested_launch *nested, float *copied,
                                    float *after, nlrt_status *each) {
  float x[2] = {3, 4};
  void *buffers[] = {x, copied, after};
  void *const *per_participant[] = {buffers};
  return nlrt_executable_execute_spmd(nested->comm, 1, nested->exes,
                                      per_participant, 3, each);
}

static void *launch_call_host_thread(void *opaque) {
  nested_launch *nested = opaque;
  float copied[2] = {0, 0}, after[2] = {0, 0};
  nlrt_status status = launch_call_host(nested, copied, after, NULL);
  nlrt_communicator *none = NULL;
  /* Nothing of the launch stays on this thread. */
  int cleared = nlrt_spmd_current_participant(&none, NULL) == 0 && !none;
  return status == NLRT_OK && after[1] == 5 && cleared ? opaque : NULL;
}

/* A one-participant communicator runs its launches on the calling thread,
 * as participant 0 for the launch: a host callback sees the participant
 * and still cannot launch again (refused, not deadlocked), and nothing of
 * the launch stays on the thread afterwards, whether it succeeded or
 * failed. */
static void test_spmd_nested_launch(void) {
  spmd_setup setup;
  CHECK(spmd_open(1, 0, &setup));
  nlrt_executable *exes[1] = {NULL};
  CHECK(nlrt_executable_load_file(setup.devices[0], kernels_path, "call_host",
                                  &exes[0]) == NLRT_OK);
  nested_launch nested = {setup.comm, exes, NLRT_OK, "", 0, 99, NULL,
                          pthread_self(), 0};
  nlrt_set_host_callback_handler(launch_from_callback, &nested);
  float copied[2] = {0, 0}, after[2] = {0, 0};
  nested.thread = (pthread_t)0;
  CHECK(launch_call_host(&nested, copied, after, NULL) == NLRT_OK);
  CHECK(copied[1] == 4 && after[1] == 5);
  CHECK(pthread_equal(nested.thread, pthread_self()));
  CHECK(nested.status == NLRT_INVALID_ARGUMENT);
  CHECK(strstr(nested.message, "called on the thread of participant 0 of a "
                               "launch (from a host callback?): a launch "
                               "inside a launch would wait for itself") !=
        NULL);
  CHECK(nested.participant_known == 1 && nested.found == setup.comm &&
        nested.local == 0);
  nlrt_communicator *none = NULL;
  CHECK(nlrt_spmd_current_participant(&none, NULL) == 0 && none == NULL);

  /* From another thread: the callback runs there. */
  pthread_t launcher;
  void *outcome = NULL;
  nested.participant_known = 0;
  CHECK(pthread_create(&launcher, NULL, launch_call_host_thread, &nested) ==
        0);
  pthread_join(launcher, &outcome);
  CHECK(outcome == &nested);
  CHECK(pthread_equal(nested.thread, launcher));
  CHECK(nested.participant_known == 1 && nested.status == NLRT_INVALID_ARGUMENT);

  /* A failing participant 0 fails the launch as on a thread of its own. */
  nested.fail = 1;
  nlrt_status each[1] = {NLRT_OK};
  CHECK_FAILS(launch_call_host(&nested, copied, after, each),
              NLRT_HOST_CALLBACK_FAILED,
              "replica 0 failed: 'call_host' (f32[2]->f32[2];f32[2]): host "
              "callback 42 failed");
  CHECK(each[0] == NLRT_HOST_CALLBACK_FAILED);
  CHECK(nlrt_spmd_current_participant(&none, NULL) == 0 && none == NULL);
  nested.fail = 0;
  after[1] = 0;
  CHECK(launch_call_host(&nested, copied, after, each) == NLRT_OK);
  CHECK(after[1] == 5 && each[0] == NLRT_OK);

  nlrt_set_host_callback_handler(NULL, NULL);
  nlrt_executable_release(exes[0]);
  spmd_close(&setup);
}

/* Two host threads launch on one communicator at once: the launches run
 * one after the other, each with its own buffers and results. */
typedef struct launcher_args {
  const spmd_setup *setup;
  nlrt_executable **exes;
  float offset;
  int failed;
} launcher_args;

static void *launch_repeatedly(void *opaque) {
  launcher_args *args = opaque;
  size_t n = args->setup->n;
  spmd_buffers b;
  spmd_buffers_init(&b, 0);
  for (int round = 0; round < 25 && !args->failed; ++round) {
    for (size_t r = 0; r < n; ++r)
      for (size_t e = 0; e < 7; ++e)
        ((float *)b.operand[r])[e] = args->offset + (float)(round + r + e);
    if (nlrt_executable_execute_spmd(args->setup->comm, n, args->exes,
                                     b.per_participant, 3, NULL) != NLRT_OK)
      args->failed = 1;
    for (size_t r = 0; r < n; ++r)
      for (size_t e = 0; e < 7; ++e) {
        float want = 0;
        for (size_t m = 0; m < n; ++m)
          want += args->offset + (float)(round + m + e);
        args->failed |= ((float *)b.result[r])[e] != want;
      }
  }
  spmd_buffers_free(&b);
  return NULL;
}

static void test_spmd_concurrent_launches(const spmd_setup *setup,
                                          nlrt_executable **exes) {
  pthread_t threads[2];
  launcher_args args[2];
  for (int t = 0; t < 2; ++t) {
    args[t] = (launcher_args){setup, exes, 1000.0f * (float)t, 0};
    pthread_create(&threads[t], NULL, launch_repeatedly, &args[t]);
  }
  for (int t = 0; t < 2; ++t) {
    pthread_join(threads[t], NULL);
    CHECK(!args[t].failed);
  }
}

static void test_spmd_communicator_arguments(void) {
  nlrt_device *devices[2] = {NULL, NULL};
  CHECK(nlrt_device_open("cpu", 0, &devices[0]) == NLRT_OK);
  CHECK(nlrt_device_open("cpu", 0, &devices[1]) == NLRT_OK);
  nlrt_communicator *comm = NULL;
  CHECK_FAILS(nlrt_communicator_create(devices, 2, NULL, &comm),
              NLRT_INVALID_ARGUMENT, "devices[0] and devices[1] are both "
                                     "cpu:0");
  CHECK_FAILS(nlrt_communicator_create(devices, 0, NULL, &comm),
              NLRT_INVALID_ARGUMENT, "at least one");
  nlrt_communicator_options spans = {0, 4, 0};
  CHECK_FAILS(nlrt_communicator_create(devices, 1, &spans, &comm),
              NLRT_UNAVAILABLE, "1 of 4 replicas are in this process");
  nlrt_communicator_options outside = {4, 4, 0};
  CHECK_FAILS(nlrt_communicator_create(devices, 1, &outside, &comm),
              NLRT_INVALID_ARGUMENT, "do not fit in 4 replicas");
  CHECK(comm == NULL);
  /* Defaults, or only a timeout; destroyed without a launch. */
  CHECK(nlrt_communicator_create(devices, 1, NULL, &comm) == NLRT_OK);
  nlrt_communicator_destroy(comm);
  nlrt_communicator_options timeout_only = {0, 0, 500};
  comm = NULL;
  CHECK(nlrt_communicator_create(devices, 1, &timeout_only, &comm) ==
        NLRT_OK);
  nlrt_communicator_destroy(comm);
  nlrt_communicator_destroy(NULL);
  nlrt_device_close(devices[0]);
  nlrt_device_close(devices[1]);
  CHECK(strcmp(nlrt_status_string(NLRT_COLLECTIVE_FAILED),
               "COLLECTIVE_FAILED") == 0);
}

static void test_spmd(nlrt_device *device) {
  test_spmd_communicator_arguments();
  test_spmd_single_replica(device);
  test_spmd_malformed_tables(device);
  for (size_t n = 1; n <= 4; ++n) {
    spmd_setup setup;
    CHECK(spmd_open(n, 1000, &setup));
    if (!setup.comm) {
      spmd_close(&setup);
      continue;
    }
    nlrt_executable *exes[4];
    char entry[32];
    snprintf(entry, sizeof(entry), "all_reduce_%zu", n);
    CHECK(spmd_load(&setup, entry, exes));
    test_spmd_all_reduce(&setup, exes, NULL);
    test_spmd_refusals(&setup, exes);
    test_spmd_failures(&setup);
    /* Still right after the failures. */
    test_spmd_all_reduce(&setup, exes, NULL);
    test_spmd_concurrent_launches(&setup, exes);
    spmd_release(&setup, exes);
    snprintf(entry, sizeof(entry), "exchange_%zu", n);
    CHECK(spmd_load(&setup, entry, exes));
    test_spmd_exchange(&setup, exes, NULL);
    test_spmd_exchange_divergence(&setup, exes);
    /* Still right after the failure. */
    test_spmd_exchange(&setup, exes, NULL);
    spmd_release(&setup, exes);
    spmd_close(&setup);
  }
  test_spmd_nested_launch();
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
  test_spmd(device);
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
