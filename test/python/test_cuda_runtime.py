"""The runtime's cuda driver without a GPU: the payload packer (numlir._src.backends.
cuda_payload), and cuda images run through numlir._runtime on a fake libcuda
(runtime/test/fake_libcuda.c, compiled here with the system cc and named by NUMLIR_LIBCUDA),
which runs one kernel (fake_add_f32) and logs every launch's arguments."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from numlir import _runtime
from numlir._src.backends import cuda_payload as cp

from c_test_programs import CC, REPO, build_program

PTX = (b".version 7.0\n.target sm_50\n.address_size 64\n"
       b".visible .entry fake_add_f32(.param .u64 a, .param .u64 b, .param .u64 out)\n"
       b"{\n  ret;\n}\n")


def add_program(**changes) -> dict:
    """pack's arguments for out = a + b on f32[4]; `changes` replace some."""
    arguments = dict(
        signature="f32[4];f32[4]->f32[4]", module=PTX, module_format="ptx",
        num_inputs=2, num_outputs=1,
        buffers=[cp.Buffer("input", 0, 16), cp.Buffer("input", 1, 16),
                 cp.Buffer("output", 0, 16)],
        kernels=[cp.Kernel("fake_add_f32", 3)],
        steps=[cp.Fill(2, 4, 16), cp.Launch(0, (1, 1, 1), (4, 1, 1), 0, ((0, 0), (1, 0), (2, 0)))],
        constants=b"")
    arguments.update(changes)
    return arguments


# --- The packer ------------------------------------------------------------------


def test_pack_then_unpack_gives_back_every_field_of_every_step_kind():
    arguments = add_program(
        signature="f32[4]->f32[4]", num_inputs=1,
        buffers=[cp.Buffer("input", 0, 16), cp.Buffer("output", 0, 16),
                 cp.Buffer("constant", 0, 16, 8), cp.Buffer("temporary", 0, 40)],
        steps=[cp.Fill(3, 8, 32, 0x4000000040000000, 8),
               cp.Launch(0, (2, 3, 1), (8, 4, 2), 256, ((0, 4), (2, 0), (3, 12))),
               cp.Copy(3, 1, 16, 8, 0)],
        constants=bytes(range(24)))
    payload = cp.pack(**arguments)
    assert payload[:8] == b"NLCUDA\x00\x01" and len(payload) % 8 == 0
    unpacked = cp.unpack(payload)
    for name, value in arguments.items():
        got = getattr(unpacked, name)
        assert (list(got) if isinstance(got, tuple) else got) == value, name


def test_pack_places_every_section_at_a_multiple_of_8():
    payload = cp.pack(**add_program(kernels=[cp.Kernel("fake_add_f32", 3)]))
    signature = b"f32[4];f32[4]->f32[4]"
    assert payload[64:64 + len(signature)] == signature
    buffers = 64 + (len(signature) + 7) // 8 * 8
    assert buffers % 8 == 0
    assert int.from_bytes(payload[buffers + 8:buffers + 16], "little") == 16  # buffer 0's size
    assert payload.endswith(PTX + b"\x00" * (-len(PTX) % 8))  # the module, padded; no constants


@pytest.mark.parametrize("changes, message", [
    (dict(module_format="sass"), "module_format must be one of"),
    (dict(num_outputs=2), "num_inputs and num_outputs are 2 and 2"),
    (dict(buffers=[cp.Buffer("input", 0, 12), cp.Buffer("input", 1, 16),
                   cp.Buffer("output", 0, 16)]),
     r"buffer 0 \(input 0\) has 12 bytes, the signature gives it 16"),
    (dict(buffers=[cp.Buffer("input", 0, 16), cp.Buffer("input", 0, 16),
                   cp.Buffer("output", 0, 16)]), "which an earlier buffer is"),
    (dict(buffers=[cp.Buffer("input", 0, 16), cp.Buffer("input", 1, 16)]), "no buffer is output 0"),
    (dict(buffers=[cp.Buffer("input", 0, 16), cp.Buffer("input", 1, 16),
                   cp.Buffer("output", 0, 16), cp.Buffer("constant", 0, 8, 4)]),
     "bytes 4 to 12 of 0 bytes of constants"),
    (dict(steps=[cp.Launch(1, (1, 1, 1), (4, 1, 1), 0, ((0, 0), (1, 0), (2, 0)))]),
     "step 0 launches kernel 1 of 1"),
    (dict(steps=[cp.Launch(0, (1, 1, 1), (4, 1, 1), 0, ((0, 0), (1, 0)))]),
     "step 0 passes 2 arguments to kernel 0 'fake_add_f32', which takes 3"),
    (dict(steps=[cp.Launch(0, (1, 1, 1), (64, 32, 1), 0, ((0, 0), (1, 0), (2, 0)))]),
     "at most 1024 threads"),
    (dict(steps=[cp.Launch(0, (0, 1, 1), (4, 1, 1), 0, ((0, 0), (1, 0), (2, 0)))]),
     "at least 1"),
    (dict(steps=[cp.Launch(0, (1, 1, 1), (4, 1, 1), 0, ((0, 0), (1, 0), (2, 17)))]),
     "step 0's argument 2 is byte 17 of buffer 2, which has 16"),
    (dict(steps=[cp.Fill(2, 4, 16, 0, 4)]), "fills 16 bytes at byte 4 of buffer 2, which has 16"),
    (dict(steps=[cp.Fill(2, 2, 16, 0x10000)]), "step 0's pattern must be an integer"),
    (dict(steps=[cp.Fill(2, 3, 15)]), "pattern_size must be 1, 2, 4 or 8"),
    (dict(steps=[cp.Fill(0, 4, 16)]), "fills buffer 0, a input; only outputs"),
    (dict(steps=[cp.Copy(2, 0, 16)]), "copies into buffer 0, a input"),
    (dict(steps=[cp.Copy(2, 2, 8, 0, 4)]), "copies overlapping bytes of buffer 2"),
    (dict(steps=[cp.Copy(0, 2, 16, 4, 0)]), "copies 16 bytes out of range"),
    (dict(module=b"\x00"), "must not hold a NUL byte"),
])
def test_pack_refuses_what_the_driver_would_refuse(changes, message):
    with pytest.raises(ValueError, match=message):
        cp.pack(**add_program(**changes))


def test_unpack_refuses_truncated_and_foreign_bytes():
    payload = cp.pack(**add_program())
    with pytest.raises(ValueError, match="truncated cuda payload: reading the module"):
        cp.unpack(payload[:-9])
    with pytest.raises(ValueError, match="not a cuda payload"):
        cp.unpack(b"\x7fELF" + payload[4:])
    with pytest.raises(ValueError, match="8 bytes follow the constants"):
        cp.unpack(payload + bytes(8))


# --- The driver on the fake libcuda ----------------------------------------------


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory) -> Path:
    """runtime/test/fake_libcuda.c as a shared object."""
    library = tmp_path_factory.mktemp("fake_cuda") / "libfake_cuda.so"
    subprocess.run([CC, "-std=c11", "-shared", "-fPIC", "-Wall", "-Wextra", "-o", str(library),
                    str(REPO / "runtime" / "test" / "fake_libcuda.c")], check=True)
    return library


@pytest.fixture
def cuda(fake_libcuda, tmp_path, monkeypatch) -> tuple[_runtime.Device, Path]:
    """cuda:0 on the fake libcuda, and the file its launches are logged to. The runtime
    loads libcuda once per process: the fake, from the first test that opens a device."""
    log = tmp_path / "launches.log"
    monkeypatch.setenv("NUMLIR_LIBCUDA", str(fake_libcuda))
    monkeypatch.setenv("FAKE_CUDA_LOG", str(log))
    monkeypatch.delenv("FAKE_CUDA_FAIL", raising=False)
    monkeypatch.delenv("FAKE_CUDA_DEVICES", raising=False)
    return _runtime.Device("cuda", 0), log


def put(device: _runtime.Device, array: np.ndarray) -> _runtime.Buffer:
    buffer = device.allocate(array.nbytes)
    buffer.copy_from_host(np.ascontiguousarray(array).reshape(-1).view(np.uint8))
    return buffer


def get(buffer: _runtime.Buffer, dtype, shape) -> np.ndarray:
    host = np.empty(shape, dtype)
    buffer.copy_to_host(host.reshape(-1).view(np.uint8))
    return host


def test_a_packed_image_adds_on_the_fake_device(cuda):
    device, _ = cuda
    assert device.name == "cuda:0" and device.driver == "cuda"
    executable = device.load(_runtime.wrap_image(cp.pack(**add_program()), "cuda"))
    assert executable.signature == "f32[4];f32[4]->f32[4]"
    assert executable.input_specs == [("f32", (4,)), ("f32", (4,))]
    a = np.array([1, 2, 3, 4], np.float32)
    b = np.array([0.5, 10, 100, 1000], np.float32)
    out = device.allocate(16)
    executable.execute_buffers([put(device, a), put(device, b), out])
    device.synchronize()
    np.testing.assert_array_equal(get(out, np.float32, (4,)), a + b)


def test_launch_arguments_are_their_buffers_addresses_plus_byte_offsets(cuda):
    """A kernel receives each argument's buffer address plus its byte_offset: the log names
    the allocation (each logged as "alloc #N BYTES", sizes told apart here) and the offset."""
    device, log = cuda
    constant = np.arange(6, dtype=np.float32) * 10  # 24 bytes
    payload = cp.pack(
        signature="f32[8]->f32[2]", module=PTX, module_format="ptx", num_inputs=1,
        num_outputs=1,
        buffers=[cp.Buffer("input", 0, 32), cp.Buffer("output", 0, 8),
                 cp.Buffer("constant", 0, 24, 8), cp.Buffer("temporary", 0, 48)],
        kernels=[cp.Kernel("fake_add_f32", 3)],
        steps=[cp.Launch(0, (2, 1, 1), (32, 1, 1), 128, ((0, 8), (2, 16), (3, 40))),
               cp.Copy(3, 1, 8, 40, 0)],
        constants=bytes(8) + constant.tobytes())
    executable = device.load(_runtime.wrap_image(payload, "cuda"))
    x = np.arange(8, dtype=np.float32) + 1
    out = device.allocate(8)
    executable.execute_buffers([put(device, x), out])
    # The kernel added x[2:4] and constant[4:6] (two floats fit from each address to its
    # allocation's end) into the temporary's last 8 bytes, which the copy moved to out.
    np.testing.assert_array_equal(get(out, np.float32, (2,)), x[2:4] + constant[4:6])

    lines = log.read_text().splitlines()
    allocations = {int(size): number for number, size in
                   (re.fullmatch(r"alloc #(\d+) (\d+)", line).groups()
                    for line in lines if line.startswith("alloc"))}
    launches = [line for line in lines if line.startswith("launch")]
    assert launches == [
        f"launch fake_add_f32 grid=2,1,1 block=32,1,1 shared=128 "
        f"args=#{allocations[32]}+8,#{allocations[24]}+16,#{allocations[48]}+40"]


def test_fills_and_copies_run_in_order_with_the_launches(cuda):
    device, log = cuda
    one_two = np.array([1, 2], np.float32).view(np.uint64)[0]
    payload = cp.pack(**add_program(
        num_outputs=2, signature="f32[4];f32[4]->f32[4];f32[4]",
        buffers=[cp.Buffer("input", 0, 16), cp.Buffer("input", 1, 16),
                 cp.Buffer("output", 0, 16), cp.Buffer("output", 1, 16)],
        steps=[cp.Fill(3, 8, 16, int(one_two)),
               cp.Launch(0, (1, 1, 1), (4, 1, 1), 0, ((0, 0), (3, 0), (2, 0))),
               cp.Fill(3, 2, 4, 0x3c00, 12)]))  # f16 1.0 twice: bits of a tiny float
    executable = device.load(_runtime.wrap_image(payload, "cuda"))
    a = np.full(4, 10, np.float32)
    outputs = [device.allocate(16), device.allocate(16)]
    executable.execute_buffers([put(device, a), put(device, a), *outputs])
    np.testing.assert_array_equal(get(outputs[0], np.float32, (4,)), [11, 12, 11, 12])
    pattern = get(outputs[1], np.uint16, (8,))
    np.testing.assert_array_equal(pattern[:6], np.array([1, 2, 1], np.float32).view(np.uint16))
    np.testing.assert_array_equal(pattern[6:], [0x3c00, 0x3c00])
    memsets = [line for line in log.read_text().splitlines() if line.startswith("memset")]
    assert memsets == ["memset32 2", "memset32 2", "memset16 2"]  # the 8-byte fill: 2 strided


def test_a_malformed_image_raises_invalid_executable_error(cuda):
    device, _ = cuda
    payload = bytearray(cp.pack(**add_program()))
    launch = payload.index((1).to_bytes(4, "little") * 3 + (4).to_bytes(4, "little"))
    payload[launch + 12:launch + 16] = (2048).to_bytes(4, "little")  # block x
    with pytest.raises(_runtime.InvalidExecutableError,
                       match=r"INVALID_EXECUTABLE: .*step 1 launches blocks of \(2048, 1, 1\)"):
        device.load(_runtime.wrap_image(bytes(payload), "cuda"))
    with pytest.raises(_runtime.InvalidExecutableError, match="truncated"):
        device.load(_runtime.wrap_image(bytes(payload[:100]), "cuda"))


def test_a_kernel_missing_from_the_module_is_refused_at_load(cuda):
    device, _ = cuda
    payload = cp.pack(**add_program(kernels=[cp.Kernel("not_there", 3)]))
    with pytest.raises(_runtime.InvalidExecutableError,
                       match="kernel 0 'not_there' .* is not in its module.*CUDA_ERROR_NOT_FOUND"):
        device.load(_runtime.wrap_image(payload, "cuda"))


def test_device_memory_exhaustion_raises_out_of_memory_error(cuda, monkeypatch):
    device, _ = cuda
    monkeypatch.setenv("FAKE_CUDA_FAIL", "cuMemAlloc_v2")
    with pytest.raises(_runtime.OutOfMemoryError,
                       match="cuMemAlloc_v2 of 1024 bytes .* CUDA_ERROR_OUT_OF_MEMORY"):
        device.allocate(1024)


def test_a_cuda_device_option_is_refused(cuda):
    with pytest.raises(RuntimeError, match="INVALID_ARGUMENT: the cuda driver has no device "
                                           "option 'num_threads'"):
        _runtime.Device("cuda", 0, num_threads=2)


def test_without_libcuda_opening_a_cuda_device_raises_unavailable():
    """In a fresh process (the runtime keeps a libcuda it loaded): a RuntimeError that names
    the library and the loader's reason; the cpu driver is unaffected."""
    script = textwrap.dedent("""
        from numlir import _runtime
        assert "cuda" in _runtime.drivers()
        try:
            _runtime.Device("cuda", 0)
        except RuntimeError as error:
            print(error)
        _runtime.Device("cpu", 0).allocate(8)
    """)
    env = dict(os.environ, NUMLIR_LIBCUDA="/nonexistent/libcuda.so.1")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "UNAVAILABLE: the cuda driver needs /nonexistent/libcuda.so.1 (NUMLIR_LIBCUDA names "
        "it): /nonexistent/libcuda.so.1: cannot open shared object file: No such file or "
        "directory")


def test_the_c_driver_test_passes_on_the_fake_libcuda(fake_libcuda, tmp_path):
    """runtime/test/cuda_driver_test.c: payloads packed in C, malformed ones, failure paths."""
    program = build_program("cuda_driver_test", tmp_path, Path(_runtime.library_path()))
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMLIR_LIBCUDA", "FAKE_CUDA_LOG", "FAKE_CUDA_FAIL")}
    result = subprocess.run([str(program), str(fake_libcuda)], capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert "all cuda driver checks passed" in result.stdout


def test_runs_from_other_threads_make_the_context_current_there(cuda):
    """The fake refuses calls on a thread with no current context (CUDA_ERROR_INVALID_CONTEXT),
    as the real driver does: every call of the driver makes its own current first."""
    import threading

    device, _ = cuda
    executable = device.load(_runtime.wrap_image(cp.pack(**add_program()), "cuda"))
    a = np.arange(4, dtype=np.float32)
    results, errors = {}, []

    def run(index: int) -> None:
        try:
            out = device.allocate(16)
            executable.execute_buffers([put(device, a), put(device, a * index), out])
            results[index] = get(out, np.float32, (4,))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for index, out in results.items():
        np.testing.assert_array_equal(out, a + a * index)
