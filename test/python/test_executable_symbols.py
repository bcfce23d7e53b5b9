"""Compiled executables depend only on libc, libm and the runtime's own symbols.

An executable that references the C compiler's runtime library (libgcc's
__truncdfbf2, say) loads on one machine and not on the next: GCC 12's libgcc
has no bfloat16 conversions. So every executable built here is checked: each
undefined dynamic symbol must be defined by libc or libm, be one of the
weak hooks every shared object carries, or be the runtime's own.
"""

import ctypes
import ctypes.util
import glob
import os
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax
from numlir._src import config

# Weak references from the C runtime's start files (crtbegin/crtend),
# resolved or left null by the loader.
TOOLCHAIN_WEAK = {"_ITM_deregisterTMCloneTable", "_ITM_registerTMCloneTable",
                  "__cxa_finalize", "__gmon_start__"}
RUNTIME_PREFIXES = ("nlrt_", "numlir_")

LIBRARIES = [ctypes.CDLL(ctypes.util.find_library(name)) for name in ("c", "m")]


def _provided_by_libc_or_libm(symbol: str) -> bool:
    return any(hasattr(lib, symbol) for lib in LIBRARIES)


def _undefined_symbols(path) -> set[str]:
    dynamic = ["-D"] if str(path).endswith(".so") else []
    listing = subprocess.run(["nm", *dynamic, "--undefined-only", str(path)],
                             capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in listing.splitlines() if line.strip()}


BF16 = ml_dtypes.bfloat16
FLOATS = [np.float16, BF16, np.float32, np.float64]
INTS = [np.int8, np.int32, np.int64, np.uint8, np.uint32, np.bool_]


def _programs():
    """(name, function, argument) covering conversions between every pair of
    dtypes and the math, reductions and contractions of each float type."""
    for src in FLOATS + INTS:
        for dst in FLOATS + INTS:
            if src is not dst:
                yield (f"convert_{np.dtype(src).name}_to_{np.dtype(dst).name}",
                       lambda x, dst=dst: x.astype(dst), np.arange(1, 7).astype(src))
    for dtype in FLOATS:
        x = np.linspace(0.25, 2.0, 12).astype(dtype).reshape(3, 4)
        name = np.dtype(dtype).name
        yield (f"math_{name}", lambda x: jnp.tanh(x) + jnp.exp(x) * jnp.log(x) + jnp.sin(x)
               + jnp.sqrt(x) + x ** 1.5 + jnp.floor(x) + jnp.round(x) + x % 0.75, x)
        yield (f"special_{name}", lambda x: lax.erf(x) + lax.lgamma(x) + jnp.arctan2(x, x + 1)
               + jnp.expm1(x) + jnp.log1p(x) + lax.erf_inv(x / 3), x)
        yield (f"reductions_{name}", lambda x: (jnp.sum(x, 0), jnp.max(x, 1), jnp.prod(x),
                                                jnp.cumsum(x, 1), jnp.argmax(x, 0)), x)
        yield (f"contraction_{name}", lambda x: x @ x.T, x)
        yield (f"sort_{name}", lambda x: jnp.sort(x, axis=1), x)
    # Fuzz seed 143 program 52: cumprod's bf16 fill value was a kernel's argument
    # (cpu-share-kernels), which LLVM rounds with __truncsfbf2 at the call.
    yield ("bf16_fill_value_stays_out_of_kernel_signatures",
           lambda x: jnp.cumprod(x.astype(BF16), axis=0), np.array([0.6, -0.375], np.float32))


PROGRAMS = list(_programs())


LLC = "/usr/lib/llvm-22/bin/llc"


@pytest.fixture(scope="module")
def dumped_programs(tmp_path_factory):
    """Every program compiled once, its stages dumped."""
    dump = tmp_path_factory.mktemp("executables")
    previous = (config.flags.dump_dir, config.flags.enable_x64)
    config.update("numlir_dump_dir", str(dump))
    config.update("jax_enable_x64", True)
    try:
        for name, fn, x in PROGRAMS:
            numlir.jit(fn)(x)
    finally:
        config.update("numlir_dump_dir", previous[0])
        config.update("jax_enable_x64", previous[1])
    return dump


def _foreign_symbols(paths) -> dict[str, str]:
    foreign = {}
    for path in paths:
        for symbol in _undefined_symbols(path):
            if (symbol in TOOLCHAIN_WEAK or symbol.startswith(RUNTIME_PREFIXES)
                    or _provided_by_libc_or_libm(symbol)):
                continue
            foreign.setdefault(symbol, str(path))
    return foreign


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs binutils' nm")
def test_executables_reference_only_libc_libm_and_the_runtime(dumped_programs):
    executables = glob.glob(str(dumped_programs / "*.so"))
    assert len(executables) >= len(PROGRAMS)
    foreign = _foreign_symbols(executables)
    assert not foreign, f"executables reference symbols outside libc, libm and the runtime: {foreign}"


@pytest.mark.skipif(shutil.which("nm") is None or not os.path.exists(LLC),
                    reason="needs nm and LLVM 22's llc")
def test_code_for_an_avx2_cpu_needs_no_compiler_runtime_either(dumped_programs, tmp_path):
    """The host may have AVX-512 BF16 instructions that hide libcalls; an
    AVX2-only x86-64 (x86-64-v3) has none, so LLVM would call
    __truncsfbf2 for any bf16 rounding left in the IR."""
    objects = []
    for ir in sorted(glob.glob(str(dumped_programs / "*.llvm-ir.ll"))):
        obj = tmp_path / (os.path.basename(ir) + ".o")
        subprocess.run([LLC, "-O2", "-mcpu=x86-64-v3", "-relocation-model=pic",
                        "-filetype=obj", ir, "-o", str(obj)], check=True)
        objects.append(obj)
    assert len(objects) >= len(PROGRAMS)
    foreign = _foreign_symbols(objects)
    assert not foreign, f"x86-64-v3 code references symbols outside libc, libm and the runtime: {foreign}"


def test_the_symbol_check_rejects_a_compiler_runtime_symbol():
    assert not _provided_by_libc_or_libm("__truncdfbf2")
    assert _provided_by_libc_or_libm("powf") and _provided_by_libc_or_libm("memcpy")


@pytest.mark.parametrize("dtype", [BF16, np.float16], ids=["bf16", "f16"])
def test_f64_to_16_bit_float_rounds_once(dtype):
    """f64 -> bf16/f16 is one correctly rounded step (ties to even), also
    where rounding through f32 first would round twice."""
    config.update("jax_enable_x64", True)
    info = ml_dtypes.finfo(dtype)
    lo = np.array([1.0, 32.0, 1.5, 0.75], dtype)
    ulp = 2.0 ** np.floor(np.log2(lo.astype(np.float64))) * 2.0 ** -info.nmant
    half = lo.astype(np.float64) + ulp / 2  # exact ties
    x = np.concatenate([half, half * (1 + 2.0 ** -40), half * (1 - 2.0 ** -40)])
    got = np.asarray(numlir.jit(lambda v: v.astype(dtype))(x)).astype(np.float64)
    up = (lo.astype(np.float64) + ulp)
    even_tie = np.where((lo.view(np.uint16) & 1) == 0, lo.astype(np.float64), up)
    np.testing.assert_array_equal(got, np.concatenate([even_tie, up, lo.astype(np.float64)]))
