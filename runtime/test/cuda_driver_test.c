/*===- cuda_driver_test.c - the cuda driver, without a GPU ----------------===*
 *
 *   cuda_driver_test /path/libfake_cuda.so
 *
 * First without libcuda (NUMLIR_LIBCUDA naming a missing file, then the
 * system's libcuda.so.1 where there is none): opening a cuda device fails
 * with NLRT_UNAVAILABLE and the cpu driver still works. Then with the fake
 * libcuda (fake_libcuda.c): devices, buffers, payloads packed here by hand
 * (docs/cuda-executable.md) run end to end, every malformed payload is
 * refused with NLRT_INVALID_EXECUTABLE, and CUDA failures become statuses.
 *
 *===----------------------------------------------------------------------===*/

#include "numlir/runtime.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_checks.h"

/*===--- Writing payloads ----------------------------------------------------===*/

typedef struct writer {
  unsigned char *data;
  size_t size, capacity;
} writer;

static void put(writer *w, const void *bytes, size_t n) {
  if (w->size + n > w->capacity) {
    w->capacity = (w->size + n) * 2;
    w->data = realloc(w->data, w->capacity);
    if (!w->data)
      abort();
  }
  memcpy(w->data + w->size, bytes, n);
  w->size += n;
}

static void u32(writer *w, uint32_t v) {
  unsigned char b[4] = {v, v >> 8, v >> 16, v >> 24};
  put(w, b, 4);
}

static void u64(writer *w, uint64_t v) {
  u32(w, (uint32_t)v);
  u32(w, (uint32_t)(v >> 32));
}

static void pad8(writer *w) {
  static const unsigned char zeros[8];
  put(w, zeros, (8 - w->size % 8) % 8);
}

typedef struct counts {
  uint32_t inputs, outputs, buffers, kernels, steps;
} counts;

static void header(writer *w, counts c, const char *signature,
                   size_t module_size, size_t constants_size) {
  put(w, "NLCUDA\0\1", 8);
  u32(w, 1); /* version */
  u32(w, 0); /* PTX */
  u32(w, c.inputs);
  u32(w, c.outputs);
  u32(w, c.buffers);
  u32(w, c.kernels);
  u32(w, c.steps);
  u32(w, 0);
  u64(w, strlen(signature));
  u64(w, module_size);
  u64(w, constants_size);
  put(w, signature, strlen(signature));
  pad8(w);
}

static void buffer(writer *w, uint32_t kind, uint32_t index, uint64_t size,
                   uint64_t offset) {
  u32(w, kind);
  u32(w, index);
  u64(w, size);
  u64(w, offset);
}

static void kernel(writer *w, const char *name, uint32_t num_params) {
  u32(w, (uint32_t)strlen(name));
  u32(w, num_params);
  put(w, name, strlen(name));
  pad8(w);
}

static void launch(writer *w, uint32_t k, const uint32_t grid[3],
                   const uint32_t block[3], uint32_t count,
                   const uint32_t *buffers, const uint64_t *offsets) {
  u32(w, 0);
  u32(w, count);
  u32(w, k);
  for (int d = 0; d < 3; ++d)
    u32(w, grid[d]);
  for (int d = 0; d < 3; ++d)
    u32(w, block[d]);
  u32(w, 0); /* shared bytes */
  for (uint32_t a = 0; a < count; ++a) {
    u32(w, buffers[a]);
    u32(w, 0);
    u64(w, offsets[a]);
  }
}

static void copy_step(writer *w, uint32_t source, uint32_t destination,
                      uint64_t source_offset, uint64_t destination_offset,
                      uint64_t bytes) {
  u32(w, 1);
  u32(w, 0);
  u32(w, source);
  u32(w, destination);
  u64(w, source_offset);
  u64(w, destination_offset);
  u64(w, bytes);
}

static void fill_step(writer *w, uint32_t b, uint32_t width, uint64_t offset,
                      uint64_t bytes, uint64_t pattern) {
  u32(w, 2);
  u32(w, 0);
  u32(w, b);
  u32(w, width);
  u64(w, offset);
  u64(w, bytes);
  u64(w, pattern);
}

static void tail(writer *w, const char *module, const void *constants,
                 size_t constants_size) {
  pad8(w);
  put(w, module, strlen(module));
  pad8(w);
  if (constants_size)
    put(w, constants, constants_size);
}

static const char *const ADD_PTX =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry fake_add_f32(.param .u64 a, .param .u64 b, .param .u64 "
    "c)\n{\n  ret;\n}\n";

/* The add program, "f32[4];f32[4]->f32[4]": fill the output with zeros,
 * then launch a kernel on (input 0, input 1, output 0). Each field can be
 * made wrong. */
typedef struct add_program {
  const char *ptx;
  const char *kernel_name;
  uint32_t num_params;   /* the kernel record's */
  uint32_t kernel;       /* the launch's kernel index */
  uint32_t count;        /* the launch's arguments: buffers 0, 1, 2, 0, ... */
  uint64_t input_size;   /* buffer 0's */
  uint32_t grid[3], block[3];
  uint64_t fill_offset, fill_bytes;
  uint32_t fill_width;
  uint64_t argument_offset; /* of the launch's last argument */
} add_program;

static add_program add_defaults(void) {
  return (add_program){ADD_PTX, "fake_add_f32", 3, 0, 3, 16, {1, 1, 1},
                       {4, 1, 1}, 0, 16, 4, 0};
}

static unsigned char *build_add(const add_program *p, size_t *size) {
  writer w = {0};
  header(&w, (counts){2, 1, 3, 1, 2}, "f32[4];f32[4]->f32[4]", strlen(p->ptx),
         0);
  buffer(&w, 0, 0, p->input_size, 0);
  buffer(&w, 0, 1, 16, 0);
  buffer(&w, 1, 0, 16, 0);
  kernel(&w, p->kernel_name, p->num_params);
  fill_step(&w, 2, p->fill_width, p->fill_offset, p->fill_bytes, 0);
  uint32_t buffers[8];
  uint64_t offsets[8] = {0};
  for (uint32_t a = 0; a < p->count && a < 8; ++a)
    buffers[a] = a % 3;
  if (p->count > 0)
    offsets[p->count - 1] = p->argument_offset;
  launch(&w, p->kernel, p->grid, p->block, p->count, buffers, offsets);
  tail(&w, p->ptx, NULL, 0);
  *size = w.size;
  return w.data;
}

/* The image of `size` bytes of payload, for the cuda driver. */
static unsigned char *wrap(const unsigned char *payload, size_t size,
                           size_t *image_size) {
  unsigned char *image = malloc(NLRT_IMAGE_HEADER_SIZE + size);
  if (!image || nlrt_image_write_header("cuda", payload, size, image) != NLRT_OK)
    abort();
  memcpy(image + NLRT_IMAGE_HEADER_SIZE, payload, size);
  *image_size = NLRT_IMAGE_HEADER_SIZE + size;
  return image;
}

static nlrt_status load_payload(nlrt_device *device, const unsigned char *payload,
                                size_t size, nlrt_executable **out) {
  size_t image_size;
  unsigned char *image = wrap(payload, size, &image_size);
  nlrt_status status =
      nlrt_executable_load_memory(device, image, image_size, NULL, out);
  free(image);
  return status;
}

/* Loads the add program `p` (which must be malformed) and checks that it is
 * refused as `text` says. */
static void check_refused(nlrt_device *device, const add_program *p,
                          const char *text, int line) {
  size_t size;
  unsigned char *payload = build_add(p, &size);
  nlrt_executable *executable = NULL;
  nlrt_status status = load_payload(device, payload, size, &executable);
  if (status != NLRT_INVALID_EXECUTABLE || !strstr(nlrt_last_error(), text)) {
    fprintf(stderr, "line %d: loading gave %s \"%s\", expected "
                    "INVALID_EXECUTABLE with \"%s\"\n",
            line, nlrt_status_string(status), nlrt_last_error(), text);
    ++failures;
  }
  CHECK(executable == NULL);
  free(payload);
}

/*===--- Tests ---------------------------------------------------------------===*/

static void test_without_libcuda(void) {
  nlrt_device *device = NULL;
  setenv("NUMLIR_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  CHECK_FAILS(nlrt_device_open("cuda", 0, &device), NLRT_UNAVAILABLE,
              "the cuda driver needs /nonexistent/libcuda.so.1 "
              "(NUMLIR_LIBCUDA names it): /nonexistent/libcuda.so.1: cannot "
              "open shared object file");
  CHECK(device == NULL);
  unsetenv("NUMLIR_LIBCUDA");
  void *system_libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (system_libcuda) {
    dlclose(system_libcuda); /* a machine with the NVIDIA driver */
  } else {
    CHECK_FAILS(nlrt_device_open("cuda", 0, &device), NLRT_UNAVAILABLE,
                "the cuda driver needs libcuda.so.1 (the NVIDIA driver");
  }
  /* The driver is registered all the same, and the cpu driver unaffected. */
  int found = 0;
  for (size_t i = 0; i < nlrt_driver_count(); ++i)
    found |= strcmp(nlrt_driver_name(i), "cuda") == 0;
  CHECK(found);
  nlrt_device *cpu = NULL;
  CHECK(nlrt_device_open("cpu", 0, &cpu) == NLRT_OK);
  nlrt_buffer *buffer = NULL;
  CHECK(nlrt_buffer_allocate(cpu, 8, &buffer) == NLRT_OK);
  CHECK(nlrt_buffer_host_pointer(buffer) != NULL);
  nlrt_buffer_release(buffer);
  nlrt_device_close(cpu);
}

static void test_devices(void) {
  nlrt_device *device = NULL;
  nlrt_device_option option = {"num_threads", 2};
  CHECK_FAILS(nlrt_device_open_with_options("cuda", 0, &option, 1, &device),
              NLRT_INVALID_ARGUMENT, "no device option 'num_threads'");
  setenv("FAKE_CUDA_DEVICES", "0", 1);
  CHECK_FAILS(nlrt_device_open("cuda", 0, &device), NLRT_UNAVAILABLE,
              "found no CUDA device");
  setenv("FAKE_CUDA_DEVICES", "2", 1);
  CHECK_FAILS(nlrt_device_open("cuda", 2, &device), NLRT_NOT_FOUND,
              "the cuda driver has devices 0 to 1, got ordinal 2");
  CHECK(nlrt_device_open("cuda", 1, &device) == NLRT_OK);
  if (device)
    CHECK(strcmp(nlrt_device_name(device), "cuda:1") == 0);
  nlrt_device_close(device);
  unsetenv("FAKE_CUDA_DEVICES");
  setenv("FAKE_CUDA_FAIL", "cuDevicePrimaryCtxRetain", 1);
  CHECK_FAILS(nlrt_device_open("cuda", 0, &device), NLRT_INTERNAL,
              "cuda: cuDevicePrimaryCtxRetain (device 0) failed: "
              "CUDA_ERROR_UNKNOWN 999");
  unsetenv("FAKE_CUDA_FAIL");
}

static void test_buffers(nlrt_device *device) {
  nlrt_buffer *buffer = NULL, *empty = NULL, *other = NULL;
  CHECK(nlrt_buffer_allocate(device, 16, &buffer) == NLRT_OK);
  CHECK(nlrt_buffer_allocate(device, 0, &empty) == NLRT_OK);
  CHECK(nlrt_buffer_allocate(device, 16, &other) == NLRT_OK);
  if (!buffer || !empty || !other)
    return;
  CHECK(nlrt_buffer_host_pointer(buffer) == NULL); /* device memory */
  float in[4] = {1, 2, 3, 4}, out[4] = {0};
  CHECK(nlrt_buffer_copy_from_host(buffer, in, sizeof(in)) == NLRT_OK);
  CHECK(nlrt_buffer_copy(other, buffer) == NLRT_OK);
  CHECK(nlrt_buffer_copy_to_host(other, out, sizeof(out)) == NLRT_OK);
  CHECK(memcmp(in, out, sizeof(in)) == 0);
  CHECK(nlrt_device_synchronize(device) == NLRT_OK);
  nlrt_buffer_release(buffer);
  nlrt_buffer_release(empty);
  nlrt_buffer_release(other);

  setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2", 1);
  CHECK_FAILS(nlrt_buffer_allocate(device, 1 << 20, &buffer), NLRT_OUT_OF_MEMORY,
              "cuMemAlloc_v2 of 1048576 bytes for a buffer on cuda:0 (Fake "
              "CUDA Device 0) failed: CUDA_ERROR_OUT_OF_MEMORY 2 (out of "
              "memory)");
  unsetenv("FAKE_CUDA_FAIL");
}

/* Runs `executable` on fresh buffers holding `inputs` (count floats each)
 * and reads its outputs into `outputs`. */
static nlrt_status run(nlrt_device *device, nlrt_executable *executable,
                       const float *const *inputs, size_t num_inputs,
                       float *const *outputs, size_t num_outputs,
                       size_t count) {
  nlrt_buffer *buffers[8] = {0};
  size_t total = num_inputs + num_outputs;
  nlrt_status status = NLRT_OK;
  for (size_t i = 0; i < total && status == NLRT_OK; ++i)
    status = nlrt_buffer_allocate(device, count * 4, &buffers[i]);
  for (size_t i = 0; i < num_inputs && status == NLRT_OK; ++i)
    status = nlrt_buffer_copy_from_host(buffers[i], inputs[i], count * 4);
  if (status == NLRT_OK)
    status = nlrt_executable_execute_buffers(executable, buffers, total);
  for (size_t i = 0; i < num_outputs && status == NLRT_OK; ++i)
    status = nlrt_buffer_copy_to_host(buffers[num_inputs + i], outputs[i],
                                      count * 4);
  for (size_t i = 0; i < total; ++i)
    nlrt_buffer_release(buffers[i]);
  return status;
}

static void test_add(nlrt_device *device) {
  add_program p = add_defaults();
  size_t size;
  unsigned char *payload = build_add(&p, &size);
  nlrt_executable *executable = NULL;
  CHECK(load_payload(device, payload, size, &executable) == NLRT_OK);
  free(payload);
  if (!executable)
    return;
  CHECK(strcmp(nlrt_executable_signature(executable),
               "f32[4];f32[4]->f32[4]") == 0);
  const float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
  float out[4] = {0};
  const float *inputs[2] = {a, b};
  float *outputs[1] = {out};
  CHECK(run(device, executable, inputs, 2, outputs, 1, 4) == NLRT_OK);
  for (int i = 0; i < 4; ++i)
    CHECK(out[i] == a[i] + b[i]);

  setenv("FAKE_CUDA_FAIL", "cuLaunchKernel", 1);
  CHECK_FAILS(run(device, executable, inputs, 2, outputs, 1, 4), NLRT_INTERNAL,
              "cuda: cuLaunchKernel of kernel 'fake_add_f32' (step 1 of "
              "f32[4];f32[4]->f32[4]) failed: CUDA_ERROR_UNKNOWN");
  unsetenv("FAKE_CUDA_FAIL");
  CHECK(run(device, executable, inputs, 2, outputs, 1, 4) == NLRT_OK);
  nlrt_executable_release(executable);
}

/* "f32[4]->f32[4];f32[4]": a constant, a temporary, an 8-byte fill, copies
 * and a launch at a byte offset. out0 = in0 + constant; out1 = the fill's
 * pattern, floats 1, 2, 1, 2. */
static unsigned char *build_constants_program(size_t *size) {
  const float constant[4] = {10, 20, 30, 40};
  const float one = 1, two = 2;
  uint32_t low, high;
  memcpy(&low, &one, 4);
  memcpy(&high, &two, 4);
  writer w = {0};
  header(&w, (counts){1, 2, 5, 1, 5}, "f32[4]->f32[4];f32[4]", strlen(ADD_PTX),
         sizeof(constant) + 8);
  buffer(&w, 0, 0, 16, 0);  /* 0: input 0 */
  buffer(&w, 1, 1, 16, 0);  /* 1: output 1 */
  buffer(&w, 3, 0, 16, 8);  /* 2: the constant, after 8 unused bytes */
  buffer(&w, 2, 0, 32, 0);  /* 3: a temporary */
  buffer(&w, 1, 0, 16, 0);  /* 4: output 0 */
  kernel(&w, "fake_add_f32", 3);
  fill_step(&w, 3, 8, 0, 32, (uint64_t)high << 32 | low);
  const uint32_t grid[3] = {1, 1, 1}, block[3] = {4, 1, 1};
  launch(&w, 0, grid, block, 3, (const uint32_t[]){0, 2, 3},
         (const uint64_t[]){0, 0, 16});
  copy_step(&w, 3, 4, 16, 0, 16);
  copy_step(&w, 3, 1, 0, 0, 16);
  fill_step(&w, 3, 1, 0, 0, 0); /* an empty fill */
  unsigned char constants[8 + sizeof(constant)] = {0};
  memcpy(constants + 8, constant, sizeof(constant));
  tail(&w, ADD_PTX, constants, sizeof(constants));
  *size = w.size;
  return w.data;
}

static void test_constants_temporaries_copies(nlrt_device *device) {
  size_t size;
  unsigned char *payload = build_constants_program(&size);
  nlrt_executable *executable = NULL;
  CHECK(load_payload(device, payload, size, &executable) == NLRT_OK);
  free(payload);
  if (!executable)
    return;
  const float a[4] = {1, 2, 3, 4};
  float sum[4] = {0}, pattern[4] = {0};
  const float *inputs[1] = {a};
  float *outputs[2] = {sum, pattern};
  for (int call = 0; call < 2; ++call) { /* the second reuses temporaries */
    CHECK(run(device, executable, inputs, 1, outputs, 2, 4) == NLRT_OK);
    for (int i = 0; i < 4; ++i) {
      CHECK(sum[i] == a[i] + 10 * (i + 1));
      CHECK(pattern[i] == (i % 2 ? 2 : 1));
    }
  }
  nlrt_executable_release(executable);

  /* A temporary that cannot be allocated fails the call, not the load. */
  payload = build_constants_program(&size);
  CHECK(load_payload(device, payload, size, &executable) == NLRT_OK);
  free(payload);
  if (!executable)
    return;
  setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2", 1);
  nlrt_buffer *buffers[3] = {0};
  unsetenv("FAKE_CUDA_FAIL");
  for (int i = 0; i < 3; ++i)
    CHECK(nlrt_buffer_allocate(device, 16, &buffers[i]) == NLRT_OK);
  setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2", 1);
  CHECK_FAILS(nlrt_executable_execute_buffers(executable, buffers, 3),
              NLRT_OUT_OF_MEMORY,
              "cuMemAlloc_v2 of 32 bytes for temporary buffer 3");
  unsetenv("FAKE_CUDA_FAIL");
  CHECK(nlrt_executable_execute_buffers(executable, buffers, 3) == NLRT_OK);
  for (int i = 0; i < 3; ++i)
    nlrt_buffer_release(buffers[i]);
  nlrt_executable_release(executable);
}

static void test_malformed_payloads(nlrt_device *device) {
  add_program p;
  nlrt_executable *executable = NULL;
#define REFUSED(assignment, text)                                              \
  do {                                                                         \
    p = add_defaults();                                                        \
    p.assignment;                                                              \
    check_refused(device, &p, text, __LINE__);                                 \
  } while (0)
  REFUSED(kernel = 1, "step 1 launches kernel 1 of 1");
  REFUSED(num_params = 2,
          "step 1 passes 3 arguments to kernel 0 'fake_add_f32', which "
          "takes 2");
  REFUSED(input_size = 12,
          "buffer 0 (input 0) has 12 bytes, the signature "
          "\"f32[4];f32[4]->f32[4]\" gives it 16");
  REFUSED(block[1] = 512, "step 1 launches blocks of (4, 512, 1) threads");
  REFUSED(block[2] = 0, "every dimension must be at least 1");
  REFUSED(grid[0] = 0, "every dimension must be at least 1");
  REFUSED(fill_offset = 4,
          "step 0 fills 16 bytes at byte 4 of buffer 2, which has 16: out "
          "of range");
  REFUSED(fill_width = 3, "a pattern of 3 bytes");
  REFUSED(argument_offset = 17,
          "step 1's argument 2 is byte 17 of buffer 2 (output), which has 16");
#undef REFUSED

  /* Byte-level damage to a good payload. */
  p = add_defaults();
  size_t size;
  unsigned char *payload = build_add(&p, &size);
  CHECK_FAILS(load_payload(device, payload, size - 1, &executable),
              NLRT_INVALID_EXECUTABLE, "truncated: reading the constants needs 7 bytes");
  CHECK_FAILS(load_payload(device, payload, 40, &executable),
              NLRT_INVALID_EXECUTABLE,
              "truncated: reading the header needs 64 bytes at offset 0");
  for (size_t cut = 1; cut < size; cut += 7) /* no crash anywhere */
    CHECK(load_payload(device, payload, cut, &executable) ==
          NLRT_INVALID_EXECUTABLE);
  payload[0] = 'X';
  CHECK_FAILS(load_payload(device, payload, size, &executable),
              NLRT_INVALID_EXECUTABLE,
              "bad magic (starts with 58 4c 43 55 44 41 00 01)");
  payload[0] = 'N';
  payload[8] = 2;
  CHECK_FAILS(load_payload(device, payload, size, &executable),
              NLRT_INVALID_EXECUTABLE,
              "cuda payload version 2; this runtime reads version 1");
  payload[8] = 1;
  payload[24] = 4; /* num_buffers */
  CHECK_FAILS(load_payload(device, payload, size, &executable),
              NLRT_INVALID_EXECUTABLE, "");
  payload[24] = 3;
  unsigned char *longer = calloc(1, size + 8);
  memcpy(longer, payload, size);
  CHECK_FAILS(load_payload(device, longer, size + 8, &executable),
              NLRT_INVALID_EXECUTABLE, "8 bytes follow the constants");
  free(longer);
  CHECK(load_payload(device, payload, size, &executable) == NLRT_OK);
  nlrt_executable_release(executable);
  executable = NULL;
  free(payload);
  CHECK(executable == NULL);
}

static void test_modules(nlrt_device *device) {
  add_program p = add_defaults();
  p.kernel_name = "missing_kernel";
  check_refused(device, &p,
                "cuModuleGetFunction: kernel 0 'missing_kernel' of the "
                "payload of executable image",
                __LINE__);
  p = add_defaults();
  p.ptx = ".visible .entry fake_add_f32(.param .u64 a)\n";
  size_t size;
  unsigned char *payload = build_add(&p, &size);
  nlrt_executable *executable = NULL;
  CHECK_FAILS(load_payload(device, payload, size, &executable),
              NLRT_LOAD_FAILED,
              "failed: CUDA_ERROR_INVALID_PTX 218 (fake libcuda error); the "
              "JIT's error log: fake ptxas: no .version directive");
  free(payload);
  /* The module's kernel takes 3 parameters, the payload passes 2: the
   * driver asks cuFuncGetParamInfo. */
  p = add_defaults();
  p.num_params = 2;
  p.count = 2;
  check_refused(device, &p,
                "kernel 0 'fake_add_f32' takes more than the 2 parameters "
                "the payload says",
                __LINE__);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s /path/libfake_cuda.so\n", argv[0]);
    return 2;
  }
  unsetenv("FAKE_CUDA_FAIL");
  unsetenv("FAKE_CUDA_DEVICES");
  test_without_libcuda();
  setenv("NUMLIR_LIBCUDA", argv[1], 1);
  test_devices();
  nlrt_device *device = NULL;
  CHECK(nlrt_device_open("cuda", 0, &device) == NLRT_OK);
  if (device) {
    test_buffers(device);
    test_add(device);
    test_constants_temporaries_copies(device);
    test_malformed_payloads(device);
    test_modules(device);
    nlrt_device_close(device);
  }
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("all cuda driver checks passed\n");
  return 0;
}
