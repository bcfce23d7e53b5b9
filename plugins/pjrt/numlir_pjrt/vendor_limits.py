"""Modules a vendor's PJRT compiler is known to abort the process on, refused before they
reach it: an abort inside the plugin takes the user's process with it, so a clear error
is better. Each entry was seen abort jax on the same chip too (docs/pjrt.md)."""

from __future__ import annotations

import re

import numlir.backends as nb


class VendorCompilerLimit(nb.CompileError):
    """The module holds an op the device's own compiler aborts on."""


#: platform -> (pattern over the module's text, what the vendor's compiler aborts on).
#: Portable artifacts (bytecode) carry no type text and are not checked.
KNOWN_ABORTS: dict[str, list[tuple[re.Pattern[bytes], str]]] = {
    "tpu": [
        # XLA-TPU's float64 emulation (xprecision_rewriter.cc, "Check failed:
        # operand->shape().IsTuple()"), libtpu 0.0.42.1 with jax 0.10.2.
        (re.compile(rb"stablehlo\.divide[^\n]*complex<f64>"),
         "complex128 division: XLA-TPU's float64 emulation aborts the process on it "
         "(jax on the same chip aborts too); divide in complex64, or run this part on "
         "the CPU (numlir.jit(..., backend='cpu'))"),
        # The same check, for abs of any complex128 shape (session 29: jax aborts on
        # jnp.abs of c128[], [4], [1,2], [2,1] and [8,128]; fuzz program 8/19).
        (re.compile(rb"stablehlo\.abs[^\n]*complex<f64>"),
         "complex128 abs: XLA-TPU's float64 emulation aborts the process on it (jax on "
         "the same chip aborts too); take abs in complex64, as sqrt(re**2 + im**2), or "
         "run this part on the CPU (numlir.jit(..., backend='cpu'))"),
    ],
}


def refuse_known_aborts(platform: str, module: bytes | str) -> None:
    """Raises VendorCompilerLimit where the platform's compiler would abort on module."""
    text = module.encode() if isinstance(module, str) else module
    for pattern, what in KNOWN_ABORTS.get(platform, ()):
        if pattern.search(text):
            raise VendorCompilerLimit(f"the {platform} PJRT compiler cannot take {what}")
