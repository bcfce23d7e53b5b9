"""Large modules: loop nests outlined and partitions compiled on several threads.

The object emitter outlines the loop nests of large functions and splits a
large module into partitions that compile in parallel (an ar archive of one
object per partition). These tests check that the pieces link back into the
program they came from, whatever the thread count.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from numlir import _compiler_cpu

LOOPS = 900  # about 10 instructions each: several partitions' worth


def _many_loops_ir(loops: int) -> str:
    """`work(a, n)`: `loops` loops in sequence, the k-th a[i] = a[i]*c_k + d_k,
    with the constants in a private table (copied into every partition)."""
    scales = ", ".join(f"double {1.0 + (k % 7) / 8.0:.6f}" for k in range(loops))
    body = []
    for k in range(loops):
        body.append(f"""
  %c{k}p = getelementptr [{loops} x double], ptr @scales, i64 0, i64 {k}
  %c{k} = load double, ptr %c{k}p
  br label %h{k}
h{k}:
  %i{k} = phi i64 [ 0, %{'entry' if k == 0 else f'after{k - 1}'} ], [ %n{k}, %h{k} ]
  %p{k} = getelementptr double, ptr %a, i64 %i{k}
  %x{k} = load double, ptr %p{k}
  %y{k} = fmul double %x{k}, %c{k}
  %z{k} = fadd double %y{k}, {float(k % 5):.1f}
  store double %z{k}, ptr %p{k}
  %n{k} = add i64 %i{k}, 1
  %d{k} = icmp slt i64 %n{k}, %n
  br i1 %d{k}, label %h{k}, label %after{k}
after{k}:""")
    return (f"@scales = private unnamed_addr constant [{loops} x double] [{scales}]\n"
            "define void @work(ptr %a, i64 %n) {\nentry:" + "".join(body) + "\n  ret void\n}\n")


def _reference(a: np.ndarray, loops: int) -> np.ndarray:
    a = a.copy()
    for k in range(loops):
        a = a * (1.0 + (k % 7) / 8.0) + float(k % 5)
    return a


def _run(obj: bytes, tmp_path, name: str, a: np.ndarray) -> np.ndarray:
    obj_path, so_path = tmp_path / f"{name}.o", tmp_path / f"{name}.so"
    obj_path.write_bytes(obj)
    _compiler_cpu.link_shared_object(str(obj_path), str(so_path))
    work = ctypes.CDLL(str(so_path)).work
    work.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    out = a.copy()
    work(out.ctypes.data, out.size)
    return out


@pytest.mark.parametrize("threads", [2, 3])
def test_a_large_module_compiled_on_several_threads_links_into_the_same_program(tmp_path, threads):
    ir = _many_loops_ir(LOOPS)
    _, obj = _compiler_cpu.compile_llvm_ir_for_host(ir, 3, threads=threads)
    assert obj.startswith(b"!<arch>\n"), "expected one object per partition in an archive"
    assert b"partition0.o" in obj and b"partition1.o" in obj
    a = np.linspace(-1.0, 1.0, 37)  # grows to about 1e125 through the 900 loops: finite
    np.testing.assert_array_equal(_run(obj, tmp_path, f"t{threads}", a), _reference(a, LOOPS))


def test_one_compile_thread_emits_one_object_with_the_same_results(tmp_path):
    ir = _many_loops_ir(LOOPS)
    _, serial = _compiler_cpu.compile_llvm_ir_for_host(ir, 3, threads=1)
    assert serial.startswith(b"\x7fELF")
    a = np.linspace(-1.0, 1.0, 37)
    np.testing.assert_array_equal(_run(serial, tmp_path, "serial", a), _reference(a, LOOPS))


def test_a_small_module_stays_one_object_on_many_threads():
    _, obj = _compiler_cpu.compile_llvm_ir_for_host(_many_loops_ir(3), 3, threads=8)
    assert obj.startswith(b"\x7fELF")


def test_the_optimized_ir_of_partitions_is_returned_only_when_asked():
    ir = _many_loops_ir(LOOPS)
    quiet, _ = _compiler_cpu.compile_llvm_ir_for_host(ir, 3, threads=2, print_optimized_ir=False)
    assert quiet == ""
    text, _ = _compiler_cpu.compile_llvm_ir_for_host(ir, 3, threads=2)
    assert "; ---- partition 0 of 2 ----" in text and "; ---- partition 1 of 2 ----" in text
    # The outlined loop nests are functions of their own that stay calls.
    assert "noinline" in text


def test_a_jitted_function_outlined_and_split_computes_what_numpy_does(tmp_path, monkeypatch):
    """The backend's option reaches the emitter: with a threshold of one instruction
    every loop nest is outlined and the module compiles in two partitions."""
    import dataclasses

    import numlir
    from numlir._src import backends, config

    monkeypatch.setattr(config.flags, "dump_dir", str(tmp_path))
    backend = backends.get_backend("cpu")
    options = dataclasses.replace(backend.parse_options(), threads=2, outline_min_instructions=1)

    def f(x, w):
        h = numlir.numpy.tanh(x @ w)
        return (h * h).sum(axis=0), numlir.numpy.exp(-h).max()

    x = np.linspace(-1, 1, 6 * 5, dtype=np.float32).reshape(6, 5)
    w = np.linspace(0.5, -0.5, 5 * 4, dtype=np.float32).reshape(5, 4)
    text = numlir.jit(f).lower(x, w).as_text()
    total, peak = backend.compile(text, options=options, name="split").execute([x, w])
    h = np.tanh(x.astype(np.float64) @ w)
    np.testing.assert_allclose(total, (h * h).sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(peak, np.exp(-h).max(), rtol=1e-5)
    (obj,) = tmp_path.glob("split.*.05.object.o")
    assert obj.read_bytes().startswith(b"!<arch>\n")
    (optimized,) = tmp_path.glob("split.*.05.object.opt.ll")
    assert "; ---- partition 1 of 2 ----" in optimized.read_text()


def _with_linkonce_helper(ir: str) -> str:
    """``work`` first stores ``helper(n)`` = 3n in a[0]; ``helper`` is a link-once
    definition, as MLIR's convert-math-to-funcs emits ``__mlir_math_ipowi_*``."""
    ir = ir.replace("define void @work(ptr %a, i64 %n) {\nentry:",
                    "define void @work(ptr %a, i64 %n) {\nentry:\n"
                    "  %h = call i64 @helper(i64 %n)\n  %hf = sitofp i64 %h to double\n"
                    "  store double %hf, ptr %a\n")
    return ir + ("\ndefine linkonce_odr i64 @helper(i64 %x) {\n"
                 "  %y = mul i64 %x, 3\n  ret i64 %y\n}\n")


@pytest.mark.parametrize("threads", [2, 3])
def test_a_link_once_helper_called_from_another_partition_links(tmp_path, threads):
    """The partition that owns a link-once function keeps its body even where none of its
    own functions calls it (the optimizer would drop it: `undefined symbol: helper`)."""
    ir = _with_linkonce_helper(_many_loops_ir(LOOPS))
    _, obj = _compiler_cpu.compile_llvm_ir_for_host(ir, 3, threads=threads)
    assert obj.startswith(b"!<arch>\n")
    a = np.linspace(-1.0, 1.0, 37)
    want = a.copy()
    want[0] = 3.0 * a.size
    np.testing.assert_array_equal(_run(obj, tmp_path, f"h{threads}", a), _reference(want, LOOPS))


def test_integer_powers_of_several_widths_split_into_partitions_compute_what_numpy_does():
    """hlo.power of integers calls MLIR's link-once ``__mlir_math_ipowi_i8`` (and _i16,
    _i32, _i64); split into partitions, each call still finds its helper (it was an
    `undefined symbol` at load)."""
    import dataclasses

    from numlir._src import backends

    backend = backends.get_backend("cpu")
    options = dataclasses.replace(backend.parse_options(), threads=2, outline_min_instructions=1)
    types = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
    sig = ", ".join(f"%x{t}: tensor<7x{t}>, %y{t}: tensor<7x{t}>" for t in types)
    res = ", ".join(f"tensor<7x{t}>" for t in types)
    body = "\n".join(f"    %p{t} = hlo.power %x{t}, %y{t} : tensor<7x{t}>" for t in types)
    text = (f"module @powers {{\n  func.func public @main({sig}) -> ({res}) {{\n{body}\n"
            f"    return {', '.join(f'%p{t}' for t in types)} : {res}\n  }}\n}}\n")
    args = []
    for dtype in types.values():
        args += [np.array([-3, -2, -1, 0, 1, 2, 3], dtype), np.array([0, 1, 2, 3, 5, 6, 7], dtype)]
    outs = backend.compile(text, options=options, name="powers").execute(args)
    for k, out in enumerate(outs):
        x, y = args[2 * k], args[2 * k + 1]
        half = 2 ** (8 * x.itemsize - 1)
        wrapped = [(int(a) ** int(b) + half) % (2 * half) - half for a, b in zip(x, y)]
        np.testing.assert_array_equal(np.asarray(out), np.array(wrapped, x.dtype))


CALLS = 3000  # a few instructions each: a straight line of several runs


def _straight_line_ir(calls: int) -> str:
    """`work(a)`: a line of `calls` calls of one internal noinline function, as in a deep
    network's entry function: each call takes the previous call's result (values crossing
    every cut), a constant (the same at every call: specialized into the callee) and an
    argument the callee never reads; `a[0]` is read at the start and the sum stored at the
    end (a value live across the whole line)."""
    body = ["  %first = load double, ptr %a", "  %s0 = fadd double %first, 0.0"]
    for k in range(calls):
        body.append(f"  %s{k + 1} = call double @step(ptr %a, double %s{k}, i64 {k % 3}, "
                    f"double 0.5, i64 {k})")
    body.append(f"  %last = fadd double %s{calls}, %first")
    body.append("  store double %last, ptr %a")
    return ("define internal double @step(ptr %a, double %x, i64 %i, double %half, "
            "i64 %unused) noinline {\n"
            "  %p = getelementptr double, ptr %a, i64 %i\n"
            "  %v = load double, ptr %p\n"
            "  %h = fmul double %v, %half\n"
            "  %r = fadd double %x, %h\n"
            "  ret double %r\n}\n"
            "define void @work(ptr %a, i64 %n) {\nentry:\n" + "\n".join(body)
            + "\n  ret void\n}\n")


def _straight_line_reference(a: np.ndarray, calls: int) -> np.ndarray:
    a = a.copy()
    s = a[0]
    for k in range(calls):
        s = s + a[k % 3] * 0.5
    a[0] = s + a[0]
    return a


@pytest.mark.parametrize("threads", [1, 2])
def test_a_long_straight_line_is_cut_into_runs_that_compute_the_same(tmp_path, threads):
    ir = _straight_line_ir(CALLS)
    optimized, obj = _compiler_cpu.compile_llvm_ir_for_host(ir, 3, threads=threads,
                                                            print_optimized_ir=True)
    # Runs of the line became functions of their own (LongBlockSplitting.h).
    assert optimized.count("define internal") + optimized.count("define hidden") > 3
    a = np.array([1.0, -2.0, 0.25, 7.0])
    np.testing.assert_allclose(_run(obj, tmp_path, f"line{threads}", a),
                               _straight_line_reference(a, CALLS), rtol=1e-12)
