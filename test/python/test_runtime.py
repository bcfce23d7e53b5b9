"""Tests of the thin runtime (libnlrt) through numlir._runtime and its C API.

The executables here are tiny C shared objects compiled with the system C
compiler at test time; each follows the executable contract of
docs/runtime.md (an entry ``void f(void **buffers)`` plus the string
``f_signature``), so these tests need no part of the numlir compiler.
"""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from numlir import _runtime

from c_test_programs import build_program, build_test_kernels

CC = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="needs a C compiler")

REPO = Path(__file__).resolve().parents[2]

# One dtype per signature spelling, with the NumPy dtype that backs it.
DTYPES = {
    "f16": np.float16,
    "bf16": np.uint16,  # raw bits: NumPy has no bfloat16
    "f32": np.float32,
    "f64": np.float64,
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "ui8": np.uint8,
    "ui16": np.uint16,
    "ui32": np.uint32,
    "ui64": np.uint64,
}

KERNELS = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define EXPORT __attribute__((visibility("default")))

EXPORT const char numlir_entry_signature[] = "f32[4];f32[4]->f32[4]";
EXPORT void numlir_entry(void **b) {
  const float *x = b[0], *y = b[1];
  float *out = b[2];
  for (int i = 0; i < 4; ++i) out[i] = x[i] + y[i];
}

EXPORT const char where_signature[] = "i1[2,3];i64[2,3];i64[2,3]->i64[2,3]";
EXPORT void where(void **b) {
  const uint8_t *c = b[0];
  const int64_t *x = b[1], *y = b[2];
  int64_t *out = b[3];
  for (int i = 0; i < 6; ++i) out[i] = c[i] ? x[i] : y[i];
}

EXPORT const char greater_signature[] = "f32[3];f32[3]->i1[3]";
EXPORT void greater(void **b) {
  const float *x = b[0], *y = b[1];
  uint8_t *out = b[2];
  for (int i = 0; i < 3; ++i) out[i] = x[i] > y[i];
}

EXPORT const char axpy_signature[] = "f64[];f64[];f64[]->f64[]";
EXPORT void axpy(void **b) {
  *(double *)b[3] = *(double *)b[0] * *(double *)b[1] + *(double *)b[2];
}

EXPORT const char arange_signature[] = "->i32[2,2]";
EXPORT void arange(void **b) {
  for (int i = 0; i < 4; ++i) ((int32_t *)b[0])[i] = i;
}

EXPORT const char sum_and_max_signature[] = "f32[5]->f32[];f32[]";
EXPORT void sum_and_max(void **b) {
  const float *x = b[0];
  float sum = 0, max = x[0];
  for (int i = 0; i < 5; ++i) { sum += x[i]; if (x[i] > max) max = x[i]; }
  *(float *)b[1] = sum;
  *(float *)b[2] = max;
}

EXPORT const char empty_signature[] = "f32[0,3]->f32[0,3];i32[]";
EXPORT void empty(void **b) { *(int32_t *)b[2] = 7; }

EXPORT const char nothing_signature[] = "->";
EXPORT void nothing(void **b) { (void)b; }

/* Spins until input 0 becomes 1 (another thread writes it while this runs),
 * then writes 1; gives up after 5 s and writes 0. Only passes if the caller
 * released the GIL, since the writer is Python code. */
EXPORT const char wait_for_flag_signature[] = "i32[1]->i32[1]";
EXPORT void wait_for_flag(void **b) {
  volatile int32_t *flag = b[0];
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  *(int32_t *)b[1] = 0;
  do {
    if (*flag == 1) { *(int32_t *)b[1] = 1; return; }
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (now.tv_sec - start.tv_sec < 5);
}

EXPORT void no_signature(void **b) { (void)b; }

/* Allocates as generated code does, through its table (which the runtime
 * points at its checked allocator): holds sizes[0] bytes, touched, then asks
 * for sizes[1] more; out = 1 if both worked. */
EXPORT void *hold_then_allocate_allocator[3] = {
    (void *)malloc, (void *)aligned_alloc, (void *)free};
EXPORT const char hold_then_allocate_signature[] = "i64[2]->i64[]";
EXPORT const char hold_then_allocate_allocation_sites[] =
    "4611686018427387904 f32[1152921504606846976] model.py:12:5";
EXPORT void hold_then_allocate(void **b) {
  void *(*alloc)(uint64_t) = (void *(*)(uint64_t))hold_then_allocate_allocator[0];
  void (*release)(void *) = (void (*)(void *))hold_then_allocate_allocator[2];
  const int64_t *sizes = b[0];
  char *held = alloc((uint64_t)sizes[0]);
  memset(held, 1, (size_t)sizes[0]);
  char *more = alloc((uint64_t)sizes[1]);
  *(int64_t *)b[1] = held && more;
  release(more);
  release(held);
}
"""


def _copy_kernels() -> str:
    """copy_<dtype>: out = x over <dtype>[2,3], for every dtype."""
    sizes = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1,
             "i16": 2, "i32": 4, "i64": 8, "ui8": 1, "ui16": 2, "ui32": 4,
             "ui64": 8}
    return "".join(
        f'EXPORT const char copy_{name}_signature[] = "{name}[2,3]->{name}[2,3]";\n'
        f"EXPORT void copy_{name}(void **b) {{ memcpy(b[1], b[0], 6 * {size}); }}\n"
        for name, size in sizes.items())


MALFORMED_SIGNATURES = {
    "no_arrow": "f32[4]",
    "unclosed": "f32[4->f32[4]",
    "unknown_dtype": "f33[4]->",
    "uppercase_dtype": "F32[4]->",
    "trailing_comma": "f32[4,]->",
    "negative_extent": "f32[-1]->",
    "empty_extent": "f32[,4]->",
    "dangling_separator": "f32[4];->",
    "trailing_separator": "->f32[4];",
    "parentheses": "f32(4)->",
    "huge_extent": "f32[99999999999999999999]->",
    "overflowing_size": "f64[4294967296,4294967296]->",
    "trailing_junk": "f32[4]->f32[4]x",
    "empty": "",
    "whitespace": "f32[4] -> f32[4]",
    "two_arrows": "->->",
    "missing_dtype": "[4]->",
}


def _malformed_kernels() -> str:
    return "".join(
        f'EXPORT const char bad_{name}_signature[] = "{text}";\n'
        f"EXPORT void bad_{name}(void **b) {{ (void)b; }}\n"
        for name, text in MALFORMED_SIGNATURES.items())


def compile_shared_object(source: str, path: Path) -> Path:
    src = path.with_suffix(".c")
    src.write_text(source)
    subprocess.run([CC, "-shared", "-fPIC", "-O1", "-o", str(path), str(src)],
                   check=True)
    return path


@pytest.fixture(scope="module")
def kernels(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("kernels")
    return compile_shared_object(
        KERNELS + _copy_kernels() + _malformed_kernels(),
        directory / "kernels.so")


@pytest.fixture(scope="module")
def image(kernels) -> bytes:
    return kernels.read_bytes()


@pytest.fixture(scope="module")
def device():
    return _runtime.Device("cpu")


# --- Loading and introspection ------------------------------------------------


def test_abi_version_of_module_and_library_agree():
    assert _runtime.ABI_VERSION == 4
    assert Path(_runtime.library_path()).name == "libnlrt.so"


def test_device_defaults_to_cpu_zero(device):
    assert device.name == "cpu:0"
    assert device.driver == "cpu"
    assert "cpu:0" in repr(_runtime.Device())


def test_unknown_driver_lists_known_drivers():
    with pytest.raises(RuntimeError, match=r"NOT_FOUND: unknown driver 'tpu' "
                                           r"\(known drivers: cpu, cuda\)"):
        _runtime.Device("tpu")


def test_cpu_driver_opens_ordinals_up_to_its_maximum():
    assert _runtime.Device("cpu", 3).name == "cpu:3"
    with pytest.raises(RuntimeError, match="NOT_FOUND: the cpu driver has devices 0 to 1023"):
        _runtime.Device("cpu", 1024)
    with pytest.raises(RuntimeError, match="INVALID_ARGUMENT"):
        _runtime.Device("cpu", -1)


def test_cpu_device_options_set_its_thread_team_and_reject_bad_values():
    assert _runtime.Device("cpu", 1, num_threads=3).num_threads == 3
    assert _runtime.Device("cpu").num_threads == 0
    with pytest.raises(RuntimeError, match="INVALID_ARGUMENT: cpu device option num_threads"):
        _runtime.Device("cpu", 0, num_threads=-2)


def test_default_entry_is_numlir_entry(device, image):
    exe = device.load(image)
    assert exe.entry == "numlir_entry" == _runtime.DEFAULT_ENTRY
    assert exe.signature == "f32[4];f32[4]->f32[4]"
    assert (exe.num_inputs, exe.num_outputs) == (2, 1)
    assert exe.input_specs == [("f32", (4,)), ("f32", (4,))]
    assert exe.output_specs == [("f32", (4,))]
    assert "f32[4];f32[4]->f32[4]" in repr(exe)


def test_specs_of_scalars_and_empty_sides(device, image):
    axpy = device.load(image, entry="axpy")
    assert axpy.input_specs == [("f64", ())] * 3
    arange = device.load(image, "arange")
    assert arange.input_specs == [] and arange.output_specs == [("i32", (2, 2))]
    nothing = device.load(image, "nothing")
    assert (nothing.num_inputs, nothing.num_outputs) == (0, 0)


def test_load_accepts_any_bytes_like_object(device, image):
    for data in (bytearray(image), memoryview(image),
                 np.frombuffer(image, np.uint8)):
        assert device.load(data).num_inputs == 2


def test_load_copies_the_image(device, image):
    data = bytearray(image)
    exe = device.load(data)
    data[:] = bytes(len(data))
    out = np.empty(4, np.float32)
    exe.execute([np.ones(4, np.float32), np.ones(4, np.float32), out])
    np.testing.assert_array_equal(out, 2)


def test_load_file_accepts_str_and_pathlike(device, kernels):
    for path in (kernels, str(kernels)):
        assert device.load_file(path, entry="where").num_inputs == 3


def test_load_file_relative_path_is_relative_to_cwd(device, kernels,
                                                    monkeypatch):
    monkeypatch.chdir(kernels.parent)
    assert device.load_file(kernels.name).num_outputs == 1


# --- Executing ----------------------------------------------------------------


def test_add_f32(device, image):
    exe = device.load(image)
    x = np.arange(4, dtype=np.float32)
    y = np.full(4, 0.5, np.float32)
    out = np.zeros(4, np.float32)
    assert exe.execute([x, y, out]) is None
    np.testing.assert_array_equal(out, x + y)


def test_bool_buffers_are_one_byte_per_element(device, image):
    where = device.load(image, "where")
    cond = np.array([[True, False, True], [False, True, False]])
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    y = -x
    out = np.empty((2, 3), np.int64)
    where.execute([cond, x, y, out])
    np.testing.assert_array_equal(out, np.where(cond, x, y))

    greater = device.load(image, "greater")
    result = np.empty(3, np.bool_)
    greater.execute([np.float32([1, 5, 3]), np.float32([2, 2, 3]), result])
    np.testing.assert_array_equal(result, [False, True, False])


def test_scalars_are_zero_dimensional_arrays(device, image):
    axpy = device.load(image, "axpy")
    out = np.empty((), np.float64)
    axpy.execute([np.float64(2.0).reshape(()), np.array(3.0), np.array(1.0),
                  out])
    assert out == 7.0


def test_zero_inputs(device, image):
    arange = device.load(image, "arange")
    out = np.empty((2, 2), np.int32)
    arange.execute([out])
    np.testing.assert_array_equal(out, [[0, 1], [2, 3]])


def test_zero_inputs_and_outputs(device, image):
    device.load(image, "nothing").execute([])


def test_several_outputs(device, image):
    exe = device.load(image, "sum_and_max")
    x = np.float32([3, -1, 4, 1, 5])
    total, largest = np.empty((), np.float32), np.empty((), np.float32)
    exe.execute((x, total, largest))
    assert (total, largest) == (12, 5)


def test_empty_buffers(device, image):
    exe = device.load(image, "empty")
    flag = np.zeros((), np.int32)
    exe.execute([np.empty((0, 3), np.float32), np.empty((0, 3), np.float32),
                 flag])
    assert flag == 7


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_every_dtype_round_trips(device, image, dtype):
    exe = device.load(image, f"copy_{dtype}")
    assert exe.input_specs == [(dtype, (2, 3))]
    x = np.arange(6).reshape(2, 3).astype(DTYPES[dtype])
    out = np.zeros_like(x)
    exe.execute([x, out])
    np.testing.assert_array_equal(out, x)


def test_bfloat16_arrays_from_ml_dtypes(device, image):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    exe = device.load(image, "copy_bf16")
    x = np.arange(6).reshape(2, 3).astype(ml_dtypes.bfloat16)
    out = np.zeros((2, 3), ml_dtypes.bfloat16)
    exe.execute([x, out])
    np.testing.assert_array_equal(out, x)
    with pytest.raises(ValueError, match=r"expected f32\[2,3\], got bf16\[2,3\]"):
        device.load(image, "copy_f32").execute([x, np.empty((2, 3), np.float32)])


def test_inputs_from_other_dlpack_producers(device, image):
    jnp = pytest.importorskip("jax.numpy")
    exe = device.load(image)
    x = jnp.arange(4, dtype=jnp.float32)
    out = np.empty(4, np.float32)
    exe.execute([x, x, out])
    np.testing.assert_array_equal(out, [0, 2, 4, 6])


def test_read_only_inputs_are_accepted(device, image):
    exe = device.load(image)
    x = np.ones(4, np.float32)
    x.flags.writeable = False
    out = np.empty(4, np.float32)
    exe.execute([x, x, out])
    np.testing.assert_array_equal(out, 2)


def test_execute_releases_the_gil(device, image):
    exe = device.load(image, "wait_for_flag")
    flag = np.zeros(1, np.int32)
    out = np.full(1, -1, np.int32)
    worker = threading.Thread(target=exe.execute, args=([flag, out],))
    worker.start()
    time.sleep(0.05)  # let the kernel start spinning
    flag[0] = 1       # Python code: runs only if execute released the GIL
    worker.join()
    assert out[0] == 1


def test_executable_outlives_its_device(image):
    device = _runtime.Device()
    exe = device.load(image)
    del device
    gc.collect()
    out = np.empty(4, np.float32)
    exe.execute([np.ones(4, np.float32), np.ones(4, np.float32), out])
    np.testing.assert_array_equal(out, 2)


def test_repeated_loads_do_not_leak_descriptors(device, image):
    device.load(image)  # warm up anything lazily opened
    before = _open_descriptors()
    for _ in range(100):
        exe = device.load(image)
        del exe
    assert _open_descriptors() == before


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def _mappings() -> int:
    with open("/proc/self/maps") as f:
        return sum(1 for _ in f)


def test_live_executables_hold_no_descriptors(device, image):
    """A memfd is closed once loaded (its path spells a serial number, so the
    loader never mistakes a new image for an old one): an eager cache of
    thousands of executables cannot exhaust the descriptor limit."""
    device.load(image, "arange")
    descriptors, mappings = _open_descriptors(), _mappings()
    executables = [device.load(image, "arange") for _ in range(300)]
    assert _open_descriptors() == descriptors
    for exe in executables[::37]:
        out = np.empty((2, 2), np.int32)
        exe.execute([out])
        np.testing.assert_array_equal(out, [[0, 1], [2, 3]])
    del executables, exe
    gc.collect()
    assert _open_descriptors() == descriptors
    assert _mappings() <= mappings + 5


def test_images_reloaded_into_reused_descriptors_run_their_own_code(device, tmp_path):
    """Each load reuses the lowest free descriptor number; the loader must
    still see a new object every time, not the one loaded before it."""
    images = [compile_shared_object(
        f'__attribute__((visibility("default"))) const char numlir_entry_signature[] = "->i32[]";\n'
        f'__attribute__((visibility("default"))) void numlir_entry(void **b) {{ *(int *)b[0] = {i}; }}\n',
        tmp_path / f"constant_{i}.so").read_bytes() for i in range(3)]
    live = [device.load(images[i % 3]) for i in range(30)]
    for i, exe in enumerate(live):
        out = np.empty((), np.int32)
        exe.execute([out])
        assert out == i % 3


def _resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_failed_allocation_raises_out_of_memory_and_frees_the_call(device, image):
    exe = device.load(image, "hold_then_allocate")
    ok = np.zeros((), np.int64)
    exe.execute([np.array([1 << 20, 64], np.int64), ok])
    assert ok == 1
    held = 64 << 20
    before = _resident_bytes()
    for _ in range(10):
        with pytest.raises(_runtime.OutOfMemoryError) as info:
            exe.execute([np.array([held, 1 << 62], np.int64), ok])
    assert isinstance(info.value, MemoryError)
    assert str(info.value) == (
        "OUT_OF_MEMORY: 'hold_then_allocate' (i64[2]->i64[]) ran out of memory: allocating a "
        "temporary f32[1152921504606846976] buffer of 4611686018427387904 bytes (4.00 EiB) for "
        "the operation at model.py:12:5 failed (Cannot allocate memory)")
    # The 64 MiB each call held were freed by the runtime: 640 MiB otherwise.
    assert _resident_bytes() - before < 4 * held
    exe.execute([np.array([16, 16], np.int64), ok])
    assert ok == 1


def test_images_wrap_and_unwrap(device, image):
    wrapped = _runtime.wrap_image(image)
    assert len(wrapped) == len(image) + _runtime.IMAGE_HEADER_SIZE
    assert _runtime.unwrap_image(wrapped) == ("cpu", image)
    assert _runtime.unwrap_image(bytearray(wrapped)) == ("cpu", image)
    exe = device.load(wrapped, "arange")
    out = np.empty((2, 2), np.int32)
    exe.execute([out])
    np.testing.assert_array_equal(out, [[0, 1], [2, 3]])
    with pytest.raises(_runtime.InvalidExecutableError, match="payload checksum mismatch"):
        _runtime.unwrap_image(wrapped[:-1] + bytes([wrapped[-1] ^ 1]))
    with pytest.raises(_runtime.InvalidExecutableError, match="bad magic"):
        _runtime.unwrap_image(image)
    with pytest.raises(RuntimeError, match="driver name must have 1 to 15 bytes, got 16"):
        _runtime.wrap_image(image, "x" * 16)
    with pytest.raises(_runtime.InvalidExecutableError,
                       match="compiled for the 'gpu' driver and cannot run on device cpu:0"):
        device.load(_runtime.wrap_image(image, "gpu"))


def test_image_files_load_from_memory_after_verification(device, image, tmp_path):
    path = tmp_path / "kernels.nlx"
    path.write_bytes(_runtime.wrap_image(image))
    exe = device.load_file(path, "axpy")
    out = np.empty((), np.float64)
    exe.execute([np.array(2.0), np.array(3.0), np.array(1.0), out])
    assert out == 7.0
    # Rewriting the file in place and loading again gets the new code: images
    # are not loaded by path.
    path.write_bytes(_runtime.wrap_image(image)[:-10])
    with pytest.raises(_runtime.InvalidExecutableError,
                       match=f"executable '{path}' has the wrong size"):
        device.load_file(path)


# --- Refusing bad calls --------------------------------------------------------


def test_wrong_buffer_count(device, image):
    exe = device.load(image)
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match=r"takes 3 buffers \(2 inputs, 1 "
                                         r"output\), got 2"):
        exe.execute([x, x])
    with pytest.raises(ValueError, match="got 4"):
        exe.execute([x, x, x, x])


def test_wrong_dtype_names_buffer_expected_and_actual(device, image):
    exe = device.load(image)
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match=r"buffer 1 \(input 1\): expected "
                                         r"f32\[4\], got f64\[4\]"):
        exe.execute([x, x.astype(np.float64), x.copy()])
    with pytest.raises(ValueError, match=r"buffer 2 \(output 0\): expected "
                                         r"f32\[4\], got i32\[4\]"):
        exe.execute([x, x, np.empty(4, np.int32)])


def test_bool_and_int8_are_not_interchangeable(device, image):
    exe = device.load(image, "greater")
    x = np.ones(3, np.float32)
    with pytest.raises(ValueError, match=r"expected i1\[3\], got ui8\[3\]"):
        exe.execute([x, x, np.empty(3, np.uint8)])


def test_wrong_shape(device, image):
    exe = device.load(image)
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match=r"buffer 0 \(input 0\): expected "
                                         r"f32\[4\], got f32\[2,2\]"):
        exe.execute([x.reshape(2, 2), x, x.copy()])
    axpy = device.load(image, "axpy")
    with pytest.raises(ValueError, match=r"expected f64\[\], got f64\[1\]"):
        axpy.execute([np.ones(1)] * 4)


def test_non_contiguous_buffer(device, image):
    exe = device.load(image)
    x = np.ones(8, np.float32)
    with pytest.raises(ValueError, match="not C-contiguous"):
        exe.execute([x[::2], x[:4], np.empty(4, np.float32)])
    with pytest.raises(ValueError, match="not C-contiguous"):
        exe.execute([x[:4], x[:4], x[::2]])


def test_read_only_output(device, image):
    exe = device.load(image)
    x = np.ones(4, np.float32)
    out = np.empty(4, np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match=r"buffer 2 \(output 0\).*read-only"):
        exe.execute([x, x, out])


def test_non_array_buffer(device, image):
    exe = device.load(image)
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="buffer 1 .*type 'list'"):
        exe.execute([x, [1.0, 2.0, 3.0, 4.0], x.copy()])


def test_buffers_must_be_list_or_tuple(device, image):
    exe = device.load(image)
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="list or tuple"):
        exe.execute(iter([x, x, x]))


def test_failed_checks_leave_outputs_untouched(device, image):
    exe = device.load(image)
    out = np.full(4, 9, np.float32)
    with pytest.raises(ValueError):
        exe.execute([np.ones(4, np.float32), np.ones(3, np.float32), out])
    np.testing.assert_array_equal(out, 9)


# --- Refusing bad executables ----------------------------------------------------


def test_missing_entry_symbol(device, image):
    with pytest.raises(RuntimeError,
                       match="NOT_FOUND: .*no entry point 'nope'"):
        device.load(image, entry="nope")


def test_missing_signature_symbol(device, image):
    with pytest.raises(RuntimeError,
                       match="no signature symbol 'no_signature_signature'"):
        device.load(image, entry="no_signature")


def test_empty_entry_name(device, image):
    with pytest.raises(RuntimeError, match="INVALID_ARGUMENT: entry name"):
        device.load(image, entry="")


def test_garbage_bytes(device):
    with pytest.raises(_runtime.InvalidExecutableError,
                       match=r"INVALID_EXECUTABLE: .*bad magic \(starts with 64 65 66"):
        device.load(b"definitely not a shared object")
    with pytest.raises(_runtime.InvalidExecutableError, match="another kind of machine"):
        device.load(b"\x7fELF" + bytes(60))
    with pytest.raises(RuntimeError, match="INVALID_ARGUMENT: .*empty"):
        device.load(b"")


def test_garbage_file(device, tmp_path):
    path = tmp_path / "garbage.so"
    path.write_bytes(b"definitely not a shared object")
    with pytest.raises(_runtime.InvalidExecutableError,
                       match=f"INVALID_EXECUTABLE: executable '{path}' .*bad magic"):
        device.load_file(path)


def test_missing_file(device, tmp_path):
    with pytest.raises(RuntimeError, match="NOT_FOUND: .*No such file"):
        device.load_file(tmp_path / "missing.so")


def test_directory_is_not_an_executable(device, tmp_path):
    with pytest.raises(RuntimeError, match="not a regular file"):
        device.load_file(tmp_path)


def test_non_buffer_data(device):
    with pytest.raises(TypeError):
        device.load("a str is not bytes")


@pytest.mark.parametrize("name", sorted(MALFORMED_SIGNATURES))
def test_malformed_signature(device, image, name):
    text = MALFORMED_SIGNATURES[name]
    with pytest.raises(RuntimeError) as info:
        device.load(image, entry=f"bad_{name}")
    message = str(info.value)
    assert message.startswith("LOAD_FAILED: malformed signature")
    assert f'"{text}"' in message and "at offset" in message


# --- The C API, from C -----------------------------------------------------------


@pytest.fixture(scope="module")
def c_api_test(tmp_path_factory) -> tuple[Path, Path]:
    """Builds runtime/test/c_api_test.c and its kernels against libnlrt."""
    directory = tmp_path_factory.mktemp("c_api")
    library = Path(_runtime.library_path())
    program = build_program("c_api_test", directory, library)
    kernels = build_test_kernels(directory)
    plugin = directory / "test_driver_plugin.so"
    subprocess.run(
        [CC, "-std=c11", "-shared", "-fPIC", "-Wall", "-Wextra", "-I",
         str(REPO / "runtime" / "include"), "-o", str(plugin),
         str(REPO / "runtime" / "test" / "test_driver_plugin.c")], check=True)
    return program, kernels, plugin


def test_c_api(c_api_test):
    program, kernels, plugin = c_api_test
    result = subprocess.run([str(program), str(kernels), str(plugin)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "all C API checks passed" in result.stdout


def test_c_api_without_memfd_falls_back_to_temporary_files(c_api_test,
                                                           tmp_path):
    """Where memfd_create fails (old kernels, sandboxes), images go through
    unlinked files in $TMPDIR; none may be left behind."""
    program, kernels, plugin = c_api_test
    shim = compile_shared_object(
        "#include <errno.h>\n"
        "int memfd_create(const char *n, unsigned f) {\n"
        "  (void)n; (void)f; errno = ENOSYS; return -1; }\n",
        tmp_path / "no_memfd.so")
    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    # Keeps what is preloaded already (the ASan runtime under `make test-asan`).
    preload = " ".join(filter(None, [os.environ.get("LD_PRELOAD"), str(shim)]))
    env = dict(os.environ, LD_PRELOAD=preload, TMPDIR=str(scratch))
    result = subprocess.run([str(program), str(kernels), str(plugin)], capture_output=True,
                            text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    assert list(scratch.iterdir()) == []


def test_c_api_has_no_data_race_under_thread_sanitizer(tmp_path):
    """The runtime and its C API test built with -fsanitize=thread: loads from several threads,
    host callback handlers swapped while others call back, and two devices with thread teams
    of their own stepping on two threads at once (test_concurrent_devices)."""
    sources = sorted(str(p) for p in (REPO / "runtime" / "lib").rglob("*.c"))
    program = tmp_path / "c_api_test_tsan"
    build = subprocess.run(
        [CC, "-std=c11", "-D_GNU_SOURCE", "-DNLRT_BUILDING_LIBRARY", "-fsanitize=thread", "-g",
         "-O1", "-pthread", "-I", str(REPO / "runtime" / "include"), *sources,
         str(REPO / "runtime" / "test" / "c_api_test.c"), "-o", str(program), "-ldl", "-lm"],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    kernels = tmp_path / "test_kernels.so"
    plugin = tmp_path / "test_driver_plugin.so"
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(kernels),
                    str(REPO / "runtime" / "test" / "test_kernels.c")], check=True)
    subprocess.run([CC, "-std=c11", "-shared", "-fPIC", "-I", str(REPO / "runtime" / "include"),
                    "-o", str(plugin), str(REPO / "runtime" / "test" / "test_driver_plugin.c")],
                   check=True)
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=1:allocator_may_return_null=1")
    env.pop("LD_PRELOAD", None)  # the ASan runtime of `make test-asan` cannot share a process
    result = subprocess.run([str(program), str(kernels), str(plugin)], capture_output=True,
                            text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "ThreadSanitizer" not in result.stderr
    assert "all C API checks passed" in result.stdout


def test_reduce_loops_give_the_same_bits_at_every_vector_width(tmp_path):
    """runtime/test/reduce_loops_test.c: the collectives' combining loops built for baseline
    x86-64, AVX2 and AVX-512 (the runtime picks the widest the host runs) agree bit for bit on
    edge values, their `before` forms are the `after` forms with the rows swapped, and a float
    sum or product of two NaNs keeps the earlier payload (so a pmap's bits do not depend on
    how the elements were split between threads or processes)."""
    program = tmp_path / "reduce_loops_test"
    build = subprocess.run(
        [CC, "-std=c11", "-D_GNU_SOURCE", "-O3", "-fno-trapping-math", "-ffp-contract=off",
         "-Wall", "-Wextra", "-Werror", "-I", str(REPO / "runtime" / "include"),
         str(REPO / "runtime" / "test" / "reduce_loops_test.c"), "-o", str(program)],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    result = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "reduce loops agree" in result.stdout
