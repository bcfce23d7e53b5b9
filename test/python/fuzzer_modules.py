"""The differential fuzzer's random programs as lowered modules, for tests that
compile one program two ways (a pass on and off) and compare the results."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fuzz import generate, run_modes  # noqa: E402

MODES = ("jit", "jit_vmap_grad")


def lowered_programs(seed: int, indices) -> Iterator[tuple[str, str, list]]:
    """(where, hlo text, input arrays) for each program of `seed` at `indices`,
    jitted and jitted through vmap of grad where the program allows, with x64 set as
    the program asks while its modules are used."""
    numlir_lib = run_modes.library("numlir")
    for index in indices:
        program = generate.generate(seed, index)
        run_modes.set_x64(program.x64)
        try:
            for mode in MODES:
                if mode not in run_modes.applicable_modes(program):
                    continue
                fn = run_modes.mode_function(numlir_lib, program, mode)
                arrays = run_modes.mode_inputs(program, mode)
                yield f"seed {seed}, program {index}, {mode}", fn.lower(*arrays).as_text(), arrays
        finally:
            run_modes.set_x64(False)
