"""The native compiler boundary and the cpu backend's stages.

These tests drive numlir._compiler and the backend with hand-written hlo
text, so they pin the C++ side independently of the Python tracer.
"""

from __future__ import annotations

import os
import pathlib
import re
import shlex
import shutil
import subprocess

import numpy as np
import pytest

from numlir import _compiler, _compiler_cpu
from numlir._src import backends, config

REPO = pathlib.Path(__file__).resolve().parents[2]

EXAMPLE = """
module @jit_f {
  func.func public @main(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
    %0 = hlo.dot_general %x, %w, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32> loc("user.py":5:11)
    %1 = hlo.broadcast_in_dim %b, dims = [1] : tensor<3xf32> -> tensor<4x3xf32> loc("user.py":5:17)
    %2 = hlo.add %0, %1 : tensor<4x3xf32> loc("user.py":5:17)
    %3 = hlo.tanh %2 : tensor<4x3xf32> loc("user.py":5:11)
    %4 = hlo.reduce sum %3, dims = [1] : tensor<4x3xf32> -> tensor<4xf32> loc("user.py":5:11)
    return %4 : tensor<4xf32>
  }
}
"""


def hlo_opt() -> str:
    for candidate in (shutil.which("hlo-opt"), REPO / "build" / "bin" / "hlo-opt"):
        if candidate and os.path.exists(candidate):
            return str(candidate)
    pytest.fail("hlo-opt is neither on PATH nor in build/bin; run `make build`")


def test_compiled_example_matches_numpy():
    exe = backends.get_backend("cpu").compile(EXAMPLE, name="example")
    rng = np.random.default_rng(0)
    x = rng.random((4, 8), np.float32)
    w = rng.random((8, 3), np.float32)
    b = rng.random(3, np.float32)
    (out,) = exe.execute([x, w, b])
    np.testing.assert_allclose(out, np.tanh(x @ w + b).sum(1), rtol=1e-5, atol=1e-6)


def test_executable_reports_signature():
    exe = backends.get_backend().compile(EXAMPLE)
    assert [(s.dtype, s.shape) for s in exe.input_specs] == [
        (np.dtype(np.float32), (4, 8)),
        (np.dtype(np.float32), (8, 3)),
        (np.dtype(np.float32), (3,)),
    ]
    assert [(s.dtype, s.shape) for s in exe.output_specs] == [(np.dtype(np.float32), (4,))]


def test_unsigned_signature_survives_signless_lowering():
    text = """
    func.func public @main(%a: tensor<5xui8>, %b: tensor<5xui8>) -> tensor<5xui8> {
      %0 = hlo.add %a, %b : tensor<5xui8>
      return %0 : tensor<5xui8>
    }"""
    exe = backends.get_backend().compile(text)
    assert exe.output_specs[0].dtype == np.uint8
    a = np.array([250, 1, 2, 3, 255], np.uint8)
    (out,) = exe.execute([a, np.full(5, 10, np.uint8)])
    np.testing.assert_array_equal(out, a + np.uint8(10))


def test_scalar_and_bool_buffers():
    text = """
    func.func public @main(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<i1>, tensor<f32>) {
      %0 = hlo.compare LT, %a, %b : tensor<f32> -> tensor<i1>
      %1 = hlo.maximum %a, %b : tensor<f32>
      return %0, %1 : tensor<i1>, tensor<f32>
    }"""
    exe = backends.get_backend().compile(text)
    lt, mx = exe.execute([np.array(1.5, np.float32), np.array(2.5, np.float32)])
    assert lt.dtype == np.bool_ and lt.shape == () and bool(lt)
    assert mx == np.float32(2.5)


def test_returning_an_argument_copies_it():
    text = """
    func.func public @main(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
      return %a, %a : tensor<3xf32>, tensor<3xf32>
    }"""
    exe = backends.get_backend().compile(text)
    a = np.arange(3, dtype=np.float32)
    first, second = exe.execute([a])
    np.testing.assert_array_equal(first, a)
    np.testing.assert_array_equal(second, a)
    assert not np.shares_memory(first, a)


def test_malformed_text_raises_compile_error_with_location():
    with pytest.raises(_compiler.CompileError, match=r"(?s)could not parse.*broken\.mlir:1:17: error: expected"):
        _compiler.verify("func.func @main( {", "broken.mlir")


def invalid_reshape(location: str) -> str:
    """A module the verifier rejects (a reshape that changes the element count) at ``location``."""
    return f"""
    func.func public @main(%a: tensor<3xf32>) -> tensor<4xf32> {{
      %0 = hlo.reshape %a : tensor<3xf32> -> tensor<4xf32> loc({location})
      return %0 : tensor<4xf32>
    }}"""


def test_verifier_error_names_user_location():
    with pytest.raises(backends.CompileError, match=r"model\.py:42:7: error: .*hlo.reshape"):
        backends.get_backend().compile(invalid_reshape('"model.py":42:7'))


def test_invalid_pipeline_is_an_error_not_a_crash():
    with pytest.raises(_compiler.CompileError, match="invalid pass pipeline"):
        _compiler.run_pipeline(EXAMPLE, "builtin.module(no-such-pass)")
    with pytest.raises(_compiler.CompileError, match="anchored on builtin.module"):
        _compiler.run_pipeline(EXAMPLE, "func.func(cse)")


def test_named_pipelines_are_exposed():
    for name in ("hlo-optimize", "hlo-cpu-to-linalg", "hlo-cpu-to-llvm", "hlo-to-cpu"):
        assert _compiler.pipeline_text(name)
    assert _compiler.pipeline_text("no-such-pipeline") == ""
    llvm = _compiler.run_pipeline(EXAMPLE, "hlo-to-cpu")
    assert "llvm.func @numlir_entry" in llvm
    assert not re.search(r"\b(hlo|linalg|memref|tensor)\.", llvm)


def test_the_cpu_calls_live_in_the_cpu_module_and_raise_the_shared_error():
    generic = {"verify", "run_pipeline", "pipeline_text", "compilation_contexts_created"}
    assert generic <= set(dir(_compiler))
    for name in ("translate_to_llvm_ir", "compile_llvm_ir_for_host", "link_shared_object",
                 "linker_counts", "host_target"):
        assert not hasattr(_compiler, name) and hasattr(_compiler_cpu, name), name
    assert _compiler_cpu.CompileError is _compiler.CompileError
    with pytest.raises(_compiler.CompileError, match="could not parse llvm-dialect"):
        _compiler_cpu.translate_to_llvm_ir("not mlir")


def test_host_target_has_vector_features():
    triple, cpu, features = _compiler_cpu.host_target()
    assert triple and cpu
    if triple.startswith("x86_64"):
        assert "+sse2" in features.split(",")


def test_unknown_backend_lists_registered_ones():
    assert "cpu" in backends.available_backends()
    with pytest.raises(ValueError, match="registered backends: .*cpu"):
        backends.get_backend("no-such-backend")


def test_cpu_options_are_validated_and_hashable():
    backend = backends.get_backend("cpu")
    options = backend.parse_options(opt_level=1)
    assert hash(options) == hash(backend.parse_options(opt_level=1))
    with pytest.raises(ValueError, match="opt_level"):
        backend.parse_options(opt_level=7)


@pytest.mark.parametrize("opt_level", [0, 3])
def test_every_opt_level_computes_the_same(opt_level):
    backend = backends.get_backend("cpu")
    exe = backend.compile(EXAMPLE, options=backend.parse_options(opt_level=opt_level))
    x, w, b = np.ones((4, 8), np.float32), np.full((8, 3), 0.1, np.float32), np.zeros(3, np.float32)
    (out,) = exe.execute([x, w, b])
    np.testing.assert_allclose(out, np.tanh(x @ w + b).sum(1), rtol=1e-6)


@pytest.mark.parametrize("llvm_unroll", [True, False])
def test_llvm_loop_unrolling_on_or_off_computes_the_same(llvm_unroll):
    backend = backends.get_backend("cpu")
    options = backend.parse_options(llvm_unroll=llvm_unroll)
    assert options.llvm_unroll is llvm_unroll and options != backend.parse_options(
        llvm_unroll=not llvm_unroll)
    exe = backend.compile(EXAMPLE, options=options)
    x, w, b = np.ones((4, 8), np.float32), np.full((8, 3), 0.1, np.float32), np.zeros(3, np.float32)
    (out,) = exe.execute([x, w, b])
    np.testing.assert_allclose(out, np.tanh(x @ w + b).sum(1), rtol=1e-6)


def test_llvm_loop_unrolling_off_leaves_a_loop_rolled():
    ir = """
define void @f(ptr %p) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %q = getelementptr i64, ptr %p, i64 %i
  store volatile i64 %i, ptr %q
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, 16
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
"""
    unrolled, _ = _compiler_cpu.compile_llvm_ir_for_host(ir, 3, True)
    rolled, _ = _compiler_cpu.compile_llvm_ir_for_host(ir, 3, False)
    # 16 volatile stores: fully unrolled by default, one store in a loop without unrolling.
    assert unrolled.count("store volatile") == 16
    assert rolled.count("store volatile") == 1


@pytest.fixture
def dump_dir(tmp_path):
    previous = config.flags.dump_dir
    config.update("numlir_dump_dir", str(tmp_path))
    yield tmp_path
    config.update("numlir_dump_dir", previous)


def _strip(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("// replay:"))


def test_dump_dir_holds_every_stage_and_each_replays_with_hlo_opt(dump_dir):
    backends.get_backend().compile(EXAMPLE, name="jit_f")
    names = sorted(p.name for p in dump_dir.iterdir())
    stages = [re.sub(r"^jit_f\.\d+\.cpu\.", "", n) for n in names]
    assert stages == [
        "00.hlo.mlir",
        "01.hlo-opt.mlir",
        "02.linalg.mlir",
        "03.llvm.mlir",
        "04.llvm-ir.ll",
        "05.object.o",
        "05.object.opt.ll",
        "06.executable.nlx",
        "06.executable.so",
    ]
    assert 'loc("user.py":5:11)' in (dump_dir / names[0]).read_text()
    tool = hlo_opt()
    for name in names:
        path = dump_dir / name
        if not name.endswith(".mlir") or name.startswith(names[0][:-len("00.hlo.mlir")] + "00"):
            continue
        header = path.read_text().splitlines()[0]
        # "// replay: hlo-opt --hlo-cpu-to-llvm='threads=0 ...' <previous stage's file>"
        prefix, _, command = header.partition("replay: ")
        assert prefix == "// " and command.startswith("hlo-opt --"), header
        _, flag, previous = shlex.split(command)
        replayed = subprocess.run(
            [tool, flag, str(dump_dir / previous)], capture_output=True, text=True, check=True
        ).stdout
        dumped = subprocess.run(
            [tool, str(path)], capture_output=True, text=True, check=True
        ).stdout
        assert _strip(replayed) == _strip(dumped), name
    # The runtime's image (header + checksums) and the bare shared object in it.
    assert (dump_dir / names[-2]).read_bytes()[:8] == b"\x7fNLX\r\n\x1a\n"
    assert (dump_dir / names[-1]).read_bytes()[:4] == b"\x7fELF"


def test_hlo_opt_rejects_malformed_input_with_nonzero_exit(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @main() {\n  %0 = hlo.add %x : tensor<f32>\n}\n")
    result = subprocess.run([hlo_opt(), str(bad)], capture_output=True, text=True)
    assert result.returncode != 0
    assert "error" in result.stderr and "bad.mlir:2" in result.stderr


def test_stages_hand_over_bytecode_and_bitcode_with_the_same_result_as_text():
    # Without a dump the cpu backend's stages pass MLIR bytecode and LLVM bitcode, not text.
    linalg = _compiler.run_pipeline(EXAMPLE, "hlo-cpu-to-linalg")
    as_text = _compiler.run_pipeline(linalg, "hlo-cpu-to-llvm")
    as_bytecode = _compiler.run_pipeline(linalg, "hlo-cpu-to-llvm", bytecode=True)
    assert isinstance(as_text, str) and isinstance(as_bytecode, bytes)
    assert as_bytecode.startswith(b"ML\xefR")  # MLIR bytecode's magic number
    # Bytecode keeps the locations: printed back, it is the text.
    assert _compiler.run_pipeline(as_bytecode, "builtin.module()") == as_text
    assert '"user.py":5:11' in as_text

    ir_text = _compiler_cpu.translate_to_llvm_ir(as_text)
    bitcode = _compiler_cpu.translate_to_llvm_ir(as_bytecode, bitcode=True)
    assert isinstance(ir_text, str) and bitcode.startswith(b"BC\xc0\xde")
    optimized_from_text, _ = _compiler_cpu.compile_llvm_ir_for_host(ir_text, 3)
    optimized_from_bitcode, _ = _compiler_cpu.compile_llvm_ir_for_host(bitcode, 3)
    body = lambda ir: ir[ir.index("define"):]  # noqa: E731 - the header names the source
    assert body(optimized_from_bitcode) == body(optimized_from_text)


def test_the_compiler_boundary_takes_only_text_or_bytes():
    with pytest.raises(TypeError, match="str .text. or bytes"):
        _compiler.run_pipeline(42, "hlo-optimize")
    with pytest.raises(_compiler.CompileError, match="could not parse"):
        _compiler.run_pipeline(b"ML\xefR\x00garbage", "hlo-optimize")
    with pytest.raises(_compiler.CompileError):
        _compiler_cpu.compile_llvm_ir_for_host(b"BC\xc0\xde\x00\x00garbage", 3)


def test_a_dump_shows_every_stage_as_text(tmp_path, monkeypatch):
    monkeypatch.setattr(config.flags, "dump_dir", str(tmp_path))
    backend = backends.get_backend("cpu")
    exe = backend.compile(EXAMPLE, name="jit_f")
    x, w, b = np.ones((4, 8), np.float32), np.full((8, 3), 0.1, np.float32), np.zeros(3, np.float32)
    np.testing.assert_allclose(exe.execute([x, w, b])[0], np.tanh(x @ w + b).sum(1), rtol=1e-6)
    for stage in ("hlo-opt.mlir", "linalg.mlir", "llvm.mlir", "llvm-ir.ll"):
        (path,) = tmp_path.glob(f"jit_f.*.{stage}")
        data = path.read_bytes()
        assert not data.startswith((b"ML\xefR", b"BC\xc0\xde")), stage
        data.decode("utf-8")
    assert "define" in next(tmp_path.glob("jit_f.*.llvm-ir.ll")).read_text()
