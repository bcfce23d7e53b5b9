"""Who aborts on a fuzz program on a PJRT device: jax, numlir, both or neither.

    python tools/tpu/probe_programs.py tpu 8/19 8/14     # on the TPU machine (run.sh probe)
    python tools/tpu/probe_programs.py pjrt_cpu 8/19     # rehearses it anywhere

Each (library, program) runs in a process of its own, jit mode with the program's x64
setting, on the backend's first device, because XLA's aborts kill the process they are in.
One line each: the exit status and the first line naming an error or a failed check. A
program numlir refuses with a clear error while jax aborts is what
``numlir_pjrt.vendor_limits`` is for; one both run is no limit at all (docs/pjrt.md).
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

_TEST_DIR = str(pathlib.Path(__file__).resolve().parents[2] / "test")

_RUN = r"""
import sys
sys.path.insert(0, sys.argv[5])  # the fuzzer, test/fuzz
import numpy as np
from fuzz import generate, run_modes
library, backend, seed, index = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
program = generate.generate(seed, index)
run_modes.set_x64(program.x64)
arrays = run_modes.mode_inputs(program, "jit")
if library == "numlir":
    import numlir
    with numlir.default_device(numlir.devices(backend)[0]):
        out = run_modes.evaluate(run_modes.library("numlir"), program, "jit", arrays)
else:
    import jax
    platform = {"pjrt_cpu": "cpu"}.get(backend, backend)
    with jax.default_device(jax.devices(platform)[0]):
        out = run_modes.evaluate(run_modes.library("jax"), program, "jit", arrays)
print("ok", [np.asarray(o).shape for o in out])
"""


def _verdict(done: subprocess.CompletedProcess) -> str:
    lines = (done.stdout + done.stderr).splitlines()
    for line in lines:
        if any(word in line for word in ("Check failed", "RET_CHECK", "Error:", "error:")):
            return line.strip()[:240]
    return (lines[-1] if lines else "").strip()[:240]


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    backend, programs = argv[0], argv[1:]
    for name in programs:
        seed, index = name.split("/")
        for library in ("jax", "numlir"):
            done = subprocess.run(
                [sys.executable, "-c", _RUN, library, backend, seed, index, _TEST_DIR],
                capture_output=True, text=True, timeout=300)
            print(f"{name} {library}: exit {done.returncode}: {_verdict(done)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
