"""pmap across processes, run by test_distributed.py: every collective on P processes of D
devices each (under mpirun), or on one process of P*D devices (the reference).

    python mpi_scenarios.py OUT single P D      # one process, P*D devices: OUT/single.npz
    mpirun -np P python mpi_scenarios.py OUT mpi P D     # OUT/rank{p}.npz, each its rows
    mpirun -np 2 python mpi_scenarios.py OUT diverge 2 1 # the processes' collectives differ
    mpirun -np 2 python mpi_scenarios.py OUT skip 2 1    # process 1 skips a pmap

The runtime reduces every group in group order whoever holds its members, so a process's
rows must equal the reference's bit for bit (test_distributed.py checks that, and the values
against NumPy).
"""

from __future__ import annotations

import json
import os
import sys
import traceback

import numpy as np

OUT, MODE, P, D = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
G = P * D  # the global axis

import numlir  # noqa: E402
import numlir.numpy as jnp  # noqa: E402
from numlir import lax  # noqa: E402

if MODE == "single":
    numlir.config.update("jax_num_cpu_devices", G)
else:
    numlir.distributed.initialize()
    numlir.config.update("jax_num_cpu_devices", D)
RANK = numlir.process_index()
ROWS = slice(0, G) if MODE == "single" else slice(RANK * D, (RANK + 1) * D)


def inputs(seed: int, shape, dtype=np.float32) -> np.ndarray:
    """The global argument (every process draws it whole), with edge values mixed in."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(G, *shape)) * 10
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.normal(size=x.shape)
    return x.astype(dtype)


def run(f, *args, in_axes=0, out_axes=0, **kw):
    """f pmapped over this process's rows of each global argument mapped on axis 0."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    local = [a if ax is None else a[ROWS] for a, ax in zip(args, axes)]
    return numlir.pmap(f, axis_name="i", in_axes=in_axes, out_axes=out_axes, **kw)(*local)


def edges(x: np.ndarray) -> np.ndarray:
    """NaN, both zeros and infinities in a few places (max/min must propagate NaN)."""
    x = x.copy()
    x[0, 0], x[-1, 1] = np.nan, -0.0
    x[G // 2, 2], x[0, 3] = np.inf, -np.inf
    return x


def order_sensitive(dtype=np.float32) -> np.ndarray:
    """Columns whose reduction depends on the order the rows combine in, bit for bit: zeros
    of both signs (of equal values, max and min keep the one in a given position), quiet NaNs
    with a different payload in every row (the earlier NaN wins), and +inf against -inf. The
    8 columns come three times, so that with 2 or 3 processes every process's slice of a
    reduction in slices holds all of them."""
    bits = {np.float32: np.uint32, np.float64: np.uint64}[dtype]
    quiet = {np.float32: 0x7FC00000, np.float64: 0x7FF8000000000000}[dtype]
    x = inputs(15, (8,), dtype)
    x[:, 0] = -0.0
    x[:, 1], x[0, 1] = -0.0, 0.0
    x[:, 2], x[0, 2] = 0.0, -0.0
    x[:, 3] = (np.arange(G, dtype=bits) + bits(quiet + 1)).view(dtype)
    x[-1, 4] = np.nan
    x[0, 5], x[-1, 5] = (np.array([quiet + 7, quiet + 9], bits)).view(dtype)
    x[0, 6], x[-1, 6] = np.inf, -np.inf
    x[1 % G, 7], x[-1, 7] = 0.0, -0.0
    return np.tile(x, (1, 3))


def order_scenarios(dtype, rotated) -> dict[str, object]:
    """Reductions of order_sensitive(dtype), in place or not, in group order and rotated:
    every member position of the reduction in slices."""
    edge, out = order_sensitive(dtype), {}
    for name, op in [("psum", lax.psum), ("pmax", lax.pmax), ("pmin", lax.pmin)]:
        for donated in (False, True):
            key = f"{name}_order_{np.dtype(dtype).name}" + ("_donated" if donated else "")
            out[key] = np.asarray(run(lambda v, op=op: op(v, "i"), edge.copy(),
                                      donate_argnums=(0,) if donated else ()))
    out[f"psum_rotated_order_{np.dtype(dtype).name}"] = np.asarray(run(
        lambda v: lax.psum(v, "i", axis_index_groups=rotated), edge))
    return out


def scenarios() -> dict[str, object]:
    x = inputs(0, (5,))
    groups = [list(range(0, G, 2)), list(range(1, G, 2))] if G % 2 == 0 else None
    out = {
        "psum_f32": run(lambda v: lax.psum(v, "i"), x),
        "psum_f16": run(lambda v: lax.psum(v, "i"), inputs(1, (7,), np.float16)),
        "psum_i32": run(lambda v: lax.psum(v, "i"),
                        (inputs(2, (4,)) * 1e7).astype(np.int32)),
        "psum_c64": run(lambda v: lax.psum(v, "i"), inputs(3, (3,), np.complex64)),
        "pmean": run(lambda v: lax.pmean(v, "i"), x),
        "pmax_edges": run(lambda v: lax.pmax(v, "i"), edges(x)),
        "pmin_edges": run(lambda v: lax.pmin(v, "i"), edges(x)),
        "all_gather": run(lambda v: lax.all_gather(v, "i"), x),
        "all_gather_tiled": run(lambda v: lax.all_gather(v, "i", tiled=True), x),
        "ppermute_ring": run(lambda v: lax.ppermute(v, "i", [(j, (j + 1) % G)
                                                               for j in range(G)]), x),
        "ppermute_partial": run(lambda v: lax.ppermute(v, "i", [(0, G - 1)]), x),
        "all_to_all": run(lambda v: lax.all_to_all(v, "i", 0, 0), inputs(4, (G, 3))),
        "psum_scatter": run(lambda v: lax.psum_scatter(v, "i"), inputs(5, (G, 2))),
        "axis_index": run(lambda v: lax.axis_index("i") + 0 * v[0].astype(jnp.int32), x),
        "out_axes_none": run(lambda v: lax.psum(v, "i"), x, out_axes=None),
        "broadcast_arg": run(lambda w, v: lax.psum(w * v, "i"), inputs(6, ())[0], x,
                             in_axes=(None, 0)),
    }
    if groups:
        out["psum_groups"] = run(lambda v: lax.psum(v, "i", axis_index_groups=groups), x)
        k = len(groups[0])
        out["all_gather_groups"] = run(
            lambda v: lax.all_gather(v, "i", axis_index_groups=groups), x)
        out["psum_scatter_groups"] = run(
            lambda v: lax.psum_scatter(v, "i", axis_index_groups=groups), inputs(16, (k, 3)))
        out["all_to_all_groups"] = run(
            lambda v: lax.all_to_all(v, "i", 0, 1, axis_index_groups=groups),
            inputs(17, (k, 3)))
    # One device per process reduces a psum over every device in slices, one per process:
    # sizes that split unevenly or leave slices empty, a group out of rank order, in place.
    rotated = [[G - 1, *range(G - 1)]]
    out.update({
        "psum_rotated": run(lambda v: lax.psum(v, "i", axis_index_groups=rotated),
                            inputs(13, (67,))),
        "psum_scalar": run(lambda v: lax.psum(v, "i"), inputs(9, ())),
        "psum_two": run(lambda v: lax.psum(v, "i"), inputs(10, (2,))),
        "psum_empty": run(lambda v: lax.psum(v, "i"), inputs(11, (0,))),
        "psum_donated": run(lambda v: lax.psum(v, "i"), inputs(12, (1001,)),
                            donate_argnums=0),
    })
    for dtype in (np.float32, np.float64):
        with numlir.enable_x64(dtype == np.float64):
            out.update(order_scenarios(dtype, rotated))

    # Calls remembered in C++ (PmapCalls.cpp) after the first: a psum of Arrays again and
    # again, and a donating one that writes its argument's rows in place.
    for name, kw in [("psum_remembered", {}), ("psum_remembered_donated",
                                             {"donate_argnums": 0})]:
        g = numlir.pmap(lambda v: lax.psum(v, "i") * 0.5, axis_name="i", **kw)
        v = g(inputs(14, (9,))[ROWS])
        for _ in range(4):
            v = g(v)
        out[name] = v

    def loss(w, batch):
        return jnp.mean((jnp.tanh(batch @ w) - 1.0) ** 2)

    w = inputs(7, (3,))[0]
    out["pmean_grad"] = run(lambda w, b: lax.pmean(numlir.grad(loss)(w, b), "i"), w,
                            inputs(8, (6, 3)), in_axes=(None, 0), out_axes=None)
    return {k: np.asarray(v) for k, v in out.items()}


def queries() -> dict:
    return {"process_index": numlir.process_index(), "process_count": numlir.process_count(),
            "devices": [(d.id, d.process_index) for d in numlir.devices()],
            "local_devices": [d.id for d in numlir.local_devices()],
            "local_device_count": numlir.local_device_count()}


def expect_failure(f, *args) -> str:
    try:
        run(f, *args)
    except RuntimeError as error:
        return str(error)
    return "no error"


if MODE in ("single", "mpi"):
    results = scenarios()
    name = "single" if MODE == "single" else f"rank{RANK}"
    np.savez(os.path.join(OUT, f"{name}.npz"), **results)
    with open(os.path.join(OUT, f"{name}.json"), "w") as f:
        json.dump(queries(), f)
elif MODE == "diverge":
    # Same sizes, different collectives: the header exchange names both.
    x = inputs(0, (4,))
    message = expect_failure((lambda v: lax.psum(v, "i")) if RANK == 0
                             else (lambda v: lax.pmax(v, "i")), x)
    # The communicator still works after a divergence.
    again = run(lambda v: lax.psum(v, "i"), x)
    with open(os.path.join(OUT, f"diverge{RANK}.json"), "w") as f:
        json.dump({"message": message, "again": np.asarray(again).tolist(),
                   "want": np.broadcast_to(x.sum(0), (D, 4)).tolist()}, f)
elif MODE == "skip":
    x = inputs(0, (4,))
    run(lambda v: lax.psum(v, "i"), x)  # both: the communicator exists
    message = "skipped"
    if RANK == 0:
        message = expect_failure(lambda v: lax.psum(v * 2, "i"), x)
    with open(os.path.join(OUT, f"skip{RANK}.json"), "w") as f:
        json.dump({"message": message}, f)
else:
    traceback.print_stack()
    sys.exit(f"unknown mode {MODE}")
print(f"scenarios done on process {RANK}", flush=True)
