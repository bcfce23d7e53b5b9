"""Whether code compiled for one CPU runs on this one, without the compiler.

The cpu backend compiles for the host: LLVM's CPU name and every feature it
detected (``+avx2,-avx512f,...``). A saved executable records that list, and
the machine that loads it may have only the runtime, not LLVM, so the check
reads the kernel's view of this CPU (/proc/cpuinfo). Only instruction-set
extensions that compiled numeric code can contain are compared: LLVM also
reports features that no user-mode code path tests (``shstk``, ``xsaves``,
...), some of which the kernel hides.
"""

from __future__ import annotations

import platform

#: LLVM x86 feature -> /proc/cpuinfo flag, for the extensions codegen may use.
X86_FEATURES = {
    "sse2": "sse2", "sse3": "pni", "ssse3": "ssse3", "sse4.1": "sse4_1", "sse4.2": "sse4_2",
    "sse4a": "sse4a", "popcnt": "popcnt", "lzcnt": "abm", "bmi": "bmi1", "bmi2": "bmi2",
    "movbe": "movbe", "fma": "fma", "fma4": "fma4", "xop": "xop", "f16c": "f16c",
    "avx": "avx", "avx2": "avx2", "avxvnni": "avx_vnni", "avx512f": "avx512f",
    "avx512dq": "avx512dq", "avx512bw": "avx512bw", "avx512vl": "avx512vl",
    "avx512cd": "avx512cd", "avx512ifma": "avx512ifma", "avx512vbmi": "avx512vbmi",
    "avx512vbmi2": "avx512_vbmi2", "avx512vnni": "avx512_vnni", "avx512bitalg": "avx512_bitalg",
    "avx512vpopcntdq": "avx512_vpopcntdq", "avx512bf16": "avx512_bf16",
    "avx512fp16": "avx512_fp16", "gfni": "gfni", "vaes": "vaes", "vpclmulqdq": "vpclmulqdq",
    "aes": "aes", "pclmul": "pclmulqdq", "sha": "sha_ni", "adx": "adx", "cx16": "cx16",
}
#: LLVM AArch64 feature -> /proc/cpuinfo "Features" name.
AARCH64_FEATURES = {
    "neon": "asimd", "fp-armv8": "fp", "fullfp16": "fphp", "dotprod": "asimddp", "sve": "sve",
    "sve2": "sve2", "bf16": "bf16", "i8mm": "i8mm", "lse": "atomics", "crc": "crc32",
}
_ARCHITECTURES = {"x86_64": ("x86_64", "amd64"), "aarch64": ("aarch64", "arm64")}


def _cpuinfo_flags() -> set[str] | None:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                name, _, value = line.partition(":")
                if name.strip() in ("flags", "Features"):
                    return set(value.split())
    except OSError:
        pass
    return None


def architecture_of(triple: str) -> str:
    return triple.split("-", 1)[0]


def missing_features(triple: str, features: str) -> list[str] | None:
    """The features in ``features`` (LLVM's ``+a,-b`` list, for ``triple``) that this CPU
    lacks, in LLVM's names; None if this machine's features cannot be read."""
    table = X86_FEATURES if architecture_of(triple) == "x86_64" else (
        AARCH64_FEATURES if architecture_of(triple) == "aarch64" else {})
    flags = _cpuinfo_flags()
    if flags is None:
        return None
    wanted = [f[1:] for f in features.split(",") if f.startswith("+")]
    return [f for f in wanted if f in table and table[f] not in flags]


def architecture_matches(triple: str) -> bool:
    machine = platform.machine().lower()
    arch = architecture_of(triple)
    return machine in _ARCHITECTURES.get(arch, (arch,))
