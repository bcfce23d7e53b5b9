"""Where the CUDA backend's tools are: libdevice (math functions that kernels link) and
ptxas (PTX to cubin, which also reports each kernel's registers and spills).

Neither is needed to build or import numlir. Both come from PyPI (``nvidia-nvvm``,
``nvidia-cuda-nvcc``, which ``make setup`` installs) or from a CUDA toolkit;
``NUMLIR_LIBDEVICE`` and ``NUMLIR_PTXAS`` name them outright.
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
from dataclasses import dataclass


def _nvidia_package_dirs() -> list[str]:
    """The directories of the ``nvidia`` namespace package (PyPI's CUDA wheels)."""
    try:
        import nvidia  # noqa: PLC0415 - optional, and a namespace package
    except ImportError:
        return []
    return list(getattr(nvidia, "__path__", []))


def _toolkit_dirs() -> list[str]:
    roots = [os.environ.get(name) for name in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")]
    return [r for r in roots if r] + sorted(glob.glob("/usr/local/cuda*"), reverse=True)


@functools.cache
def libdevice_path() -> str | None:
    """libdevice.10.bc: NUMLIR_LIBDEVICE, PyPI's nvidia-nvvm, or a CUDA toolkit's."""
    named = os.environ.get("NUMLIR_LIBDEVICE")
    if named:
        return named
    candidates = [os.path.join(d, "*", "nvvm", "libdevice", "libdevice.10.bc")
                  for d in _nvidia_package_dirs()]
    candidates += [os.path.join(d, "nvvm", "libdevice", "libdevice.10.bc") for d in _toolkit_dirs()]
    candidates.append("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc")
    for pattern in candidates:
        for found in sorted(glob.glob(pattern), reverse=True):
            return found
    return None


@functools.cache
def ptxas_path() -> str | None:
    """ptxas: NUMLIR_PTXAS, PATH, PyPI's nvidia-cuda-nvcc, or a CUDA toolkit's."""
    named = os.environ.get("NUMLIR_PTXAS")
    if named:
        return named
    found = shutil.which("ptxas")
    if found:
        return found
    candidates = [os.path.join(d, "*", "bin", "ptxas") for d in _nvidia_package_dirs()]
    candidates += [os.path.join(d, "bin", "ptxas") for d in _toolkit_dirs()]
    for pattern in candidates:
        for path in sorted(glob.glob(pattern), reverse=True):
            if os.access(path, os.X_OK):
                return path
    return None


@dataclass(frozen=True)
class KernelResources:
    """What ptxas -v reports for one kernel."""

    name: str
    registers: int
    spill_stores: int
    spill_loads: int
    shared_bytes: int
    stack_bytes: int


_FUNCTION = re.compile(r"Compiling entry function '(\w+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")


def assemble(ptx: str, chip: str) -> tuple[bytes, list[KernelResources]]:
    """The cubin of ``ptx`` for ``chip`` (sm_90), and each kernel's resources as ptxas -v
    reports them. Raises RuntimeError without ptxas, or with ptxas's message."""
    import tempfile  # noqa: PLC0415

    ptxas = ptxas_path()
    if ptxas is None:
        raise RuntimeError("ptxas is not installed: pip install nvidia-cuda-nvcc, install a "
                           "CUDA toolkit, or set NUMLIR_PTXAS")
    with tempfile.TemporaryDirectory(prefix="numlir-ptxas-") as tmp:
        source, cubin = os.path.join(tmp, "kernels.ptx"), os.path.join(tmp, "kernels.cubin")
        with open(source, "w") as f:
            f.write(ptx)
        result = subprocess.run([ptxas, f"-arch={chip}", "-v", source, "-o", cubin],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"ptxas -arch={chip} refused the kernels:\n{result.stderr}")
        with open(cubin, "rb") as f:
            binary = f.read()
    return binary, parse_resources(result.stderr + result.stdout)


def parse_resources(report: str) -> list[KernelResources]:
    """Each kernel's registers, spills, shared memory and stack from ``ptxas -v``."""
    kernels: list[KernelResources] = []
    name, frame = None, (0, 0, 0)
    for line in report.splitlines():
        if (match := _FUNCTION.search(line)):
            name, frame = match.group(1), (0, 0, 0)
        elif (match := _FRAME.search(line)) and name:
            frame = tuple(int(g) for g in match.groups())
        elif (match := _USED.search(line)) and name:
            kernels.append(KernelResources(name, int(match.group(1)), frame[1], frame[2],
                                           int(match.group(2) or 0), frame[0]))
            name = None
    return kernels
