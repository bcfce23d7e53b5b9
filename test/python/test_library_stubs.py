"""Executables link against stubs of libc, libm and libomp (LibraryStubs.h): the
shared object must be the same file, byte for byte, as one linked against the
real libraries, and objects the stubs cannot cover link against the real ones."""

from __future__ import annotations

import ctypes
import functools

import numpy as np
import pytest

from numlir import _compiler, _compiler_cpu
from test_compiler import EXAMPLE

# Calls of every kind the stubs must reproduce: a function with an older hidden
# version (exp@GLIBC_2.2.5 beside exp@@GLIBC_2.29), indirect functions (memcpy,
# expf), weak ones (sinf, aligned_alloc), and ldexp, which libm and libc both export.
LIBRARY_CALLS = r"""
declare double @exp(double)
declare float @expf(float)
declare float @sinf(float)
declare double @ldexp(double, i32)
declare ptr @aligned_alloc(i64, i64)
declare ptr @memcpy(ptr, ptr, i64)
declare void @free(ptr)

define double @calls(double %x, float %y, ptr %src, i64 %n) {
  %a = call double @exp(double %x)
  %b = call float @expf(float %y)
  %c = call float @sinf(float %b)
  %d = fpext float %c to double
  %e = call double @ldexp(double %d, i32 3)
  %buffer = call ptr @aligned_alloc(i64 64, i64 %n)
  %copy = call ptr @memcpy(ptr %buffer, ptr %src, i64 %n)
  %first = load double, ptr %copy
  call void @free(ptr %buffer)
  %s = fadd double %a, %e
  %t = fadd double %s, %first
  ret double %t
}
"""

# A call nobody exports: the object links (a shared object may leave it
# undefined) against the real libraries, and loading it fails as it always did.
UNKNOWN_CALL = r"""
declare double @numlir_test_nobody_defines_this(double)
declare double @cos(double)
define double @calls(double %x) {
  %a = call double @numlir_test_nobody_defines_this(double %x)
  %b = call double @cos(double %a)
  ret double %b
}
"""


def _object(ir: str) -> bytes:
    _, obj = _compiler_cpu.compile_llvm_ir_for_host(ir, 2)
    return obj


def _link_both_ways(tmp_path, obj: bytes) -> tuple[bytes, bytes]:
    results = []
    for stubs in (True, False):
        directory = tmp_path / ("stubs" if stubs else "real")
        directory.mkdir()
        (directory / "module.o").write_bytes(obj)
        _compiler_cpu.link_shared_object(str(directory / "module.o"),
                                     str(directory / "module.so"), stubs=stubs)
        results.append((directory / "module.so").read_bytes())
    return results[0], results[1]


@functools.cache
def _example_objects() -> dict[str, bytes]:
    linalg = _compiler.run_pipeline(EXAMPLE, "hlo-cpu-to-linalg")
    parallel = "builtin.module(hlo-cpu-to-llvm{threads=2 min-iterations=1})"
    objects = {}
    for name, pipeline in (("serial", "hlo-cpu-to-llvm"), ("parallel", parallel)):
        llvm = _compiler.run_pipeline(linalg, pipeline)
        objects[name] = _object(_compiler_cpu.translate_to_llvm_ir(llvm))
    objects["library calls"] = _object(LIBRARY_CALLS)
    return objects


@pytest.mark.parametrize("name", ["serial", "parallel", "library calls"])
def test_linking_against_stubs_writes_the_same_file_as_the_real_libraries(tmp_path, name):
    obj = _example_objects()[name]
    if name == "parallel":
        assert b"__kmpc_fork_call" in obj
    links_before, _ = _compiler_cpu.linker_counts()
    with_stubs, with_libraries = _link_both_ways(tmp_path, obj)
    assert _compiler_cpu.linker_counts()[0] == links_before + 1
    assert with_stubs == with_libraries


def test_stubs_are_built_again_only_for_new_functions(tmp_path):
    obj = _object(LIBRARY_CALLS)
    for attempt in ("first", "second"):
        (tmp_path / attempt).mkdir()
        if attempt == "second":
            _, builds = _compiler_cpu.linker_counts()
        _link_both_ways(tmp_path / attempt, obj)
    assert _compiler_cpu.linker_counts()[1] == builds


def test_a_stub_linked_library_runs_its_library_calls(tmp_path):
    (tmp_path / "module.o").write_bytes(_object(LIBRARY_CALLS))
    _compiler_cpu.link_shared_object(str(tmp_path / "module.o"), str(tmp_path / "module.so"))
    library = ctypes.CDLL(str(tmp_path / "module.so"))
    calls = library.calls
    calls.restype = ctypes.c_double
    calls.argtypes = [ctypes.c_double, ctypes.c_float, ctypes.c_void_p, ctypes.c_int64]
    source = np.array([0.25] * 8)
    got = calls(0.5, np.float32(0.75), source.ctypes.data, source.nbytes)
    expected = np.exp(0.5) + np.ldexp(float(np.sin(np.exp(np.float32(0.75)))), 3) + 0.25
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_a_call_no_library_exports_links_against_the_real_libraries(tmp_path):
    links_before, _ = _compiler_cpu.linker_counts()
    with_stubs, with_libraries = _link_both_ways(tmp_path, _object(UNKNOWN_CALL))
    assert _compiler_cpu.linker_counts()[0] == links_before  # the stubs declined
    assert with_stubs == with_libraries
    with pytest.raises(OSError, match="numlir_test_nobody_defines_this"):
        ctypes.CDLL(str(tmp_path / "stubs" / "module.so"))
