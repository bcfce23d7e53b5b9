"""Building the runtime's C test programs (runtime/test/) against a libnlrt.so, for
test_runtime.py's C API test and test_runtime_mpi.py's MPI test."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

CC = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "runtime" / "test"


def build_program(name: str, directory: Path, library: Path) -> Path:
    """runtime/test/<name>.c linked against ``library`` (found again at run time)."""
    program = directory / name
    subprocess.run(
        [CC, "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-pthread",
         "-I", str(REPO / "runtime" / "include"), str(TESTS / f"{name}.c"),
         "-o", str(program), str(library), f"-Wl,-rpath,{library.parent}"],
        check=True)
    return program


def build_test_kernels(directory: Path) -> Path:
    """The hand-written kernels the C programs load (runtime/test/test_kernels.c)."""
    kernels = directory / "test_kernels.so"
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(kernels), str(TESTS / "test_kernels.c")],
                   check=True)
    return kernels
