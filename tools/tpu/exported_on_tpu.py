"""Issue 35's last check: a program exported on this machine runs on the TPU with no numlir
compiler present.

    python tools/tpu/exported_on_tpu.py make DIR    # here: export for "cpu" and "tpu", and
                                                    # the CPU backend's results
    python tools/tpu/exported_on_tpu.py check DIR   # there (tools/tpu/run.sh tests)
    python tools/tpu/exported_on_tpu.py check DIR pjrt_cpu   # rehearses it anywhere

``check`` blocks ``numlir._compiler`` before importing numlir, reads the export, runs it on
the first TPU device (the PJRT client compiles its StableHLO) and compares with the results
``make`` saved, at TPU tolerance (its tanh is ~3e-5 off the CPU's).
"""

from __future__ import annotations

import pathlib
import sys

#: A small MLP step's loss and gradient, what a user would export.
FUNCTION_NAME = "mlp_loss_and_grad"


def _model(jnp, numlir):
    def loss(params, x):
        h = x
        for w, b in params:
            h = jnp.tanh(h @ w + b)
        return jnp.mean(h * h)

    return numlir.jit(lambda params, x: numlir.value_and_grad(loss)(params, x))


def make(out: pathlib.Path) -> None:
    import numpy as np

    import numlir
    import numlir.export
    import numlir.numpy as jnp

    rng = np.random.default_rng(35)
    params = [(rng.standard_normal((8, 16)).astype(np.float32) * 0.3,
               np.zeros(16, np.float32)),
              (rng.standard_normal((16, 4)).astype(np.float32) * 0.3, np.ones(4, np.float32))]
    x = rng.standard_normal((32, 8)).astype(np.float32)
    fn = _model(jnp, numlir)
    exported = numlir.export.export(fn, platforms=("cpu", "tpu"))(params, x)
    out.mkdir(parents=True, exist_ok=True)
    (out / "model.nlexport").write_bytes(exported.serialize())
    leaves = numlir.tree_util.tree_leaves(fn(params, x))
    np.savez(out / "io.npz", **{f"p{i}": a for i, a in enumerate(
        numlir.tree_util.tree_leaves(params))}, x=x,
             **{f"want{i}": np.asarray(w) for i, w in enumerate(leaves)})


def check(where: pathlib.Path, backend: str = "tpu") -> int:
    sys.modules["numlir._compiler"] = None  # importing numlir's compiler now fails
    sys.modules["numlir._compiler_cpu"] = None
    import numpy as np

    import numlir
    import numlir.export

    exported = numlir.export.deserialize((where / "model.nlexport").read_bytes())
    io = np.load(where / "io.npz")
    flat = [io[f"p{i}"] for i in range(4)]
    params = [(flat[0], flat[1]), (flat[2], flat[3])]
    tpu = numlir.devices(backend)[0]
    outs = numlir.tree_util.tree_leaves(exported.call(*numlir.device_put((params, io["x"]),
                                                                         tpu)))
    assert all(o.device == tpu for o in outs), [o.device for o in outs]
    worst = 0.0
    for i, got in enumerate(outs):
        want = io[f"want{i}"]
        scale = max(float(np.max(np.abs(want))), 1e-6)
        worst = max(worst, float(np.max(np.abs(np.asarray(got) - want))) / scale)
    print(f"exported on the CPU host, run on {tpu} ({tpu.device_kind}) without numlir's "
          f"compiler: {len(outs)} outputs, worst error {worst:.2e} of each output's scale")
    return 0 if worst < 1e-3 else 1


if __name__ == "__main__":
    command, directory = sys.argv[1], pathlib.Path(sys.argv[2])
    if command == "make":
        make(directory)
    elif command == "check":
        raise SystemExit(check(directory, *sys.argv[3:4]))
    else:
        raise SystemExit(f"usage: {sys.argv[0]} make|check DIR")
