"""Which single constructs a PJRT device's compiler fails or aborts on, for jax and numlir.

    python tools/tpu/probe_constructs.py tpu [NAME...]     # on the TPU machine
    python tools/tpu/probe_constructs.py pjrt_cpu           # rehearses it anywhere

probe_programs.py says who aborts on a whole fuzz program; this narrows such a program down
to the op that does it, so that numlir_pjrt/vendor_limits.py can name exactly that op.
Each (library, construct) runs in a process of its own (an abort kills it), x64 on, jit on
the backend's first device; one line each: the exit status and the first error line.
"""

from __future__ import annotations

import subprocess
import sys

#: name -> (argument shapes and dtypes, the body over `jnp` and `lax`).
CONSTRUCTS = {
    "c128_dot_vector_matrix": ([((2,), "complex128"), ((2, 1), "complex128")],
                               "jnp.dot(a, b)"),
    "c128_dot_matrix_matrix": ([((2, 2), "complex128"), ((2, 1), "complex128")],
                               "jnp.dot(a, b)"),
    "c128_abs_2x1": ([((2, 1), "complex128")], "jnp.abs(a)"),
    "c128_abs_squared_sum": ([((2, 1), "complex128")], "jnp.sum(jnp.abs(a) ** 2)"),
    "c128_multiply": ([((2, 1), "complex128"), ((2, 1), "complex128")], "a * b"),
    "f64_softmax_axis1": ([((3, 3, 1, 6), "float64")], "jax.nn.softmax(a, axis=1)"),
}

_RUN = r"""
import sys
import numpy as np
library, backend, name = sys.argv[1:4]
shapes, body = eval(sys.argv[4])
if library == "numlir":
    import numlir as jax
    import numlir.numpy as jnp
    from numlir import lax
    jax.config.update("jax_enable_x64", True)
    device = jax.devices(backend)[0]
else:
    import jax
    import jax.numpy as jnp
    from jax import lax
    jax.config.update("jax_enable_x64", True)
    device = jax.devices({"pjrt_cpu": "cpu"}.get(backend, backend))[0]
rng = np.random.default_rng(0)
args = []
for shape, dtype in shapes:
    x = rng.normal(size=shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.normal(size=shape)
    args.append(x.astype(dtype))
names = "abcdef"[:len(args)]
f = eval(f"lambda {', '.join(names)}: {body}", {"jnp": jnp, "lax": lax, "jax": jax})
with jax.default_device(device):
    out = jax.jit(f)(*args)
print("ok", np.asarray(out).shape)
"""


def main() -> None:
    backend, names = sys.argv[1], sys.argv[2:] or list(CONSTRUCTS)
    for name in names:
        for library in ("jax", "numlir"):
            done = subprocess.run([sys.executable, "-c", _RUN, library, backend, name,
                                   repr(CONSTRUCTS[name])], capture_output=True, text=True,
                                  timeout=300)
            lines = (done.stdout + done.stderr).splitlines()
            first = next((line for line in lines if line.startswith("ok")
                          or "Error" in line or "Check failed" in line or "error" in line),
                         lines[-1] if lines else "")
            print(f"{name} {library}: exit {done.returncode}: {first[:300]}", flush=True)


if __name__ == "__main__":
    main()
