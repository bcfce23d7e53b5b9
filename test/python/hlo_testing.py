"""Compile and run hand-written hlo modules in tests.

`compile_hlo(text)` returns `run(inputs) -> outputs`. By default it uses the
installed cpu backend (numlir._compiler + numlir._runtime). When the
environment variable NUMLIR_TEST_HLO_OPT names an `hlo-opt` binary (say, in a
developer's own build directory), the module is compiled with that binary,
mlir-translate-22, llc-22 and cc instead, and called through ctypes, so
compiler work can be tested without reinstalling the package.

    run = compile_hlo('''
      func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
        %0 = hlo.negate %a : tensor<3xf32>
        return %0 : tensor<3xf32>
      }''')
    (out,) = run([np.ones(3, np.float32)])
"""

from __future__ import annotations

import ctypes
import os
import pathlib
import re
import subprocess
import tempfile

import numpy as np

LLVM_BIN = pathlib.Path("/usr/lib/llvm-22/bin")


def compile_hlo(text: str):
    hlo_opt = os.environ.get("NUMLIR_TEST_HLO_OPT")
    if hlo_opt:
        return _compile_with_tools(text, hlo_opt)
    from numlir._src import backends

    # NUMLIR_TEST_HLO_BACKEND runs these hlo modules on another backend (cuda_emulated).
    backend = os.environ.get("NUMLIR_TEST_HLO_BACKEND", "cpu")
    exe = backends.get_backend(backend).compile(text, name="test")
    return lambda inputs: exe.execute([np.asarray(a, order="C") for a in inputs])


def _dtype(name: str) -> np.dtype:
    if name == "bf16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    table = {"i1": np.bool_, "f16": np.float16, "f32": np.float32, "f64": np.float64}
    if name in table:
        return np.dtype(table[name])
    return np.dtype(("uint" if name.startswith("ui") else "int") + name.lstrip("ui"))


def _parse_specs(side: str):
    specs = []
    for item in filter(None, side.split(";")):
        match = re.fullmatch(r"(\w+)\[([\d,]*)\]", item)
        dims = tuple(int(d) for d in match.group(2).split(",") if d)
        specs.append((_dtype(match.group(1)), dims))
    return specs


def _compile_with_tools(text: str, hlo_opt: str):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="numlir-hlo-test-"))
    (tmp / "module.mlir").write_text(text)
    llvm_dialect = subprocess.run(
        [hlo_opt, "--hlo-to-cpu", str(tmp / "module.mlir")],
        check=True, capture_output=True, text=True,
    ).stdout
    (tmp / "module.ll").write_text(subprocess.run(
        [str(LLVM_BIN / "mlir-translate"), "--mlir-to-llvmir"],
        input=llvm_dialect, check=True, capture_output=True, text=True,
    ).stdout)
    subprocess.run(
        [str(LLVM_BIN / "llc"), "-O2", "-filetype=obj", "--relocation-model=pic",
         str(tmp / "module.ll"), "-o", str(tmp / "module.o")],
        check=True,
    )
    subprocess.run(["cc", "-shared", str(tmp / "module.o"), "-o", str(tmp / "module.so"), "-lm"],
                   check=True)
    library = ctypes.CDLL(str(tmp / "module.so"))
    raw = ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(library, "numlir_entry_signature")))
    inputs_text, outputs_text = raw.decode().split("->")
    output_specs = _parse_specs(outputs_text)
    entry = library.numlir_entry
    entry.argtypes = [ctypes.c_void_p]
    entry.restype = None

    def run(inputs):
        ins = [np.asarray(a, order="C") for a in inputs]
        outs = [np.zeros(shape, dtype) for dtype, shape in output_specs]
        keep = [a if a.size else np.zeros(1, a.dtype) for a in ins + outs]
        buffers = (ctypes.c_void_p * len(keep))(*[a.ctypes.data for a in keep])
        entry(buffers)
        return outs

    return run


def cpu_stage_text(module_text: str, stages: int) -> str:
    """``module_text`` (hlo) after the cpu backend's first ``stages`` pipeline stages, as
    MLIR text. Stages hand each other bytecode unless a dump asks for text, so a bytecode
    result is printed back (the pipeline with no passes prints its input)."""
    from numlir import _compiler
    from numlir._src import backends

    backend = backends.get_backend("cpu")
    options = backend.parse_options()
    module = module_text
    for stage in backend.stages(options)[:stages]:
        module = stage.run(module, options)
    return module if isinstance(module, str) else _compiler.run_pipeline(module, "builtin.module()")
