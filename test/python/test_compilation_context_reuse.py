"""The native compiler keeps one MLIR context (and its pass managers) between
compilations; nothing a compilation does may reach the next one's result or
error message."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import _compiler
from numlir._src import backends
from test_compiler import EXAMPLE, invalid_reshape

# The stages of the cpu backend, run by hand so each output can be compared.
_STAGE_SCRIPT = r"""
import hashlib, json, sys
from numlir import _compiler, _compiler_cpu
text = sys.stdin.read()
optimized = _compiler.run_pipeline(text, "hlo-optimize")
linalg = _compiler.run_pipeline(optimized, "hlo-cpu-to-linalg")
llvm = _compiler.run_pipeline(linalg, "hlo-cpu-to-llvm")
ir = _compiler_cpu.translate_to_llvm_ir(llvm)
_, obj = _compiler_cpu.compile_llvm_ir_for_host(ir, 3)
digest = lambda data: hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()
print(json.dumps([digest(x) for x in (optimized, linalg, llvm, ir, obj)]))
"""

COMPLEX_POWER = """
func.func public @main(%x: tensor<8xcomplex<f32>>) -> tensor<8xf32> {
  %0 = hlo.power %x, %x : tensor<8xcomplex<f32>>
  %1 = hlo.abs %0 : tensor<8xcomplex<f32>> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}"""


def _stage_digests_in_a_fresh_process(text: str) -> list[str]:
    result = subprocess.run([sys.executable, "-c", _STAGE_SCRIPT], input=text,
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def _stage_digests_here(text: str) -> list[str]:
    out: list[str] = []
    exec(_STAGE_SCRIPT.replace("sys.stdin.read()", "TEXT").replace("print(", "OUT.append("),
         {"TEXT": text, "OUT": out})
    return json.loads(out[0])


def _compile_unrelated_programs() -> None:
    """Loads more dialects and patterns into the kept context than EXAMPLE needs."""
    x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    np.asarray(jnp.sort(jnp.cos(x), axis=1))
    np.asarray(jnp.fft.fft(x.astype(jnp.complex64)))
    np.asarray(numlir.jit(lambda a: jnp.linalg.inv(a @ a.T + jnp.eye(3)))(x))
    np.asarray(jnp.cumsum(x.astype(jnp.int8), axis=0))
    backends.get_backend("cpu").compile(COMPLEX_POWER)


def test_a_kept_context_compiles_every_stage_as_a_fresh_process_does():
    fresh = _stage_digests_in_a_fresh_process(EXAMPLE)
    _compile_unrelated_programs()
    assert _stage_digests_here(EXAMPLE) == fresh


def test_a_failed_compilation_leaves_its_diagnostics_behind():
    first, second = invalid_reshape('"first.py":1:1'), invalid_reshape('"second.py":1:1')
    with pytest.raises(_compiler.CompileError, match="first.py"):
        _compiler.run_pipeline(first, "hlo-optimize")
    with pytest.raises(_compiler.CompileError) as raised:
        _compiler.run_pipeline(second, "hlo-optimize")
    assert "second.py" in str(raised.value) and "first.py" not in str(raised.value)


def test_a_failure_replaces_the_context_and_success_keeps_it():
    _compiler.verify("module {}")
    before = _compiler.compilation_contexts_created()
    for _ in range(3):
        _compiler.run_pipeline(EXAMPLE, "hlo-optimize")
    assert _compiler.compilation_contexts_created() == before
    with pytest.raises(_compiler.CompileError):
        _compiler.run_pipeline("func.func @main( {", "hlo-optimize")
    with pytest.raises(_compiler.CompileError, match="invalid pass pipeline"):
        _compiler.run_pipeline(EXAMPLE, "builtin.module(no-such-pass)")
    assert _compiler.run_pipeline(EXAMPLE, "hlo-to-cpu").count("llvm.func @numlir_entry") == 1
    # The malformed text and the bad pipeline each dropped the context they used.
    assert _compiler.compilation_contexts_created() == before + 2


def test_a_worn_out_context_is_replaced_and_compiles_the_same():
    expected = _compiler.run_pipeline(EXAMPLE, "hlo-cpu-to-linalg")
    before = _compiler.compilation_contexts_created()
    for _ in range(600):  # more uses than a context serves
        _compiler.verify("module {}")
    assert _compiler.compilation_contexts_created() == before + 1
    assert _compiler.run_pipeline(EXAMPLE, "hlo-cpu-to-linalg") == expected


def test_pipelines_with_different_options_each_run_their_own_passes():
    linalg = _compiler.run_pipeline(EXAMPLE, "hlo-cpu-to-linalg")
    every_loop_parallel = "builtin.module(hlo-cpu-to-llvm{threads=2 min-iterations=1})"
    serial = _compiler.run_pipeline(linalg, "hlo-cpu-to-llvm")
    parallel = _compiler.run_pipeline(linalg, every_loop_parallel)
    assert "omp.parallel" not in serial and "omp.parallel" in parallel
    assert _compiler.run_pipeline(linalg, "hlo-cpu-to-llvm") == serial
    assert _compiler.run_pipeline(linalg, every_loop_parallel) == parallel


def test_a_pass_that_keeps_state_between_runs_starts_afresh_in_every_compile():
    # convert-math-to-funcs keeps the integer-power functions it generated in
    # the pass; a pass manager kept between compiles crashed on the second.
    a = np.array([[1, -2, 3], [0, 2, -1]], np.int32)
    b = np.array([[0, 1, 2], [3, 1, 2]], np.int32)
    np.testing.assert_array_equal(np.asarray(jnp.power(jnp.asarray(a), jnp.asarray(b))), a ** b)
    np.testing.assert_array_equal(np.asarray(numlir.jit(jnp.power)(a, b)), a ** b)
    np.testing.assert_array_equal(np.asarray(numlir.jit(lambda x, y: (x ** y) * 2)(a, b)),
                                  (a ** b) * 2)
