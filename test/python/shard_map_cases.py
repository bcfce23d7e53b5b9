"""shard_map programs written once for numlir and jax (test_shard_map.py runs them on 4 CPU
devices in both: jax in a process of its own, since its device count is fixed at startup).

    python shard_map_cases.py jax OUT.npz     # jax's values
"""

from __future__ import annotations

import sys

import numpy as np


def cases(lib) -> dict:
    """name -> (function, arguments) on a 4-device mesh of ``lib`` (numlir or jax)."""
    lax, P, Mesh = lib.lax, lib.sharding.PartitionSpec, lib.sharding.Mesh
    jnp = lib.numpy
    devices = np.array(lib.devices()[:4])
    grid = Mesh(devices.reshape(2, 2), ("data", "model"))
    line = Mesh(devices, ("i",))
    rng = np.random.default_rng(8)
    x = rng.normal(size=(4, 6)).astype(np.float32)
    w = rng.normal(size=(6, 8)).astype(np.float32)
    smap = lambda f, mesh, i, o: lib.shard_map(f, mesh=mesh, in_specs=i, out_specs=o)  # noqa

    def matmul(xb, wb):  # x split by rows over data and by columns over model, w by rows
        return lax.psum(xb @ wb, "model")

    def mlp_step(w, xb):
        g = lib.grad(lambda w: jnp.mean(jnp.tanh(xb @ w) ** 2))(w)
        return w - 0.1 * lax.pmean(g, "i")

    return {
        "psum_model": (smap(lambda v: lax.psum(v, "model"), grid, P("data", "model"),
                            P("data", None)), (x,)),
        "psum_both": (smap(lambda v: lax.psum(v, ("data", "model")), grid, P("data", "model"),
                           P()), (x,)),
        "identity_2d": (smap(lambda v: v * 2, grid, P("data", "model"), P("data", "model")),
                        (x,)),
        "transposed_spec": (smap(lambda v: v + 1, grid, P("model", "data"),
                                 P("model", "data")), (x,)),
        "tuple_spec": (smap(lambda v: v * 3, grid, P(("data", "model")),
                            P(("model", "data"))), (np.arange(8.0, dtype=np.float32),)),
        "replicated_in": (smap(lambda a, v: a * v, grid, (P(), P("data")), P("data")),
                          (np.float32(3.0), x)),
        "axis_index_2d": (smap(lambda v: v * 0 + lax.axis_index("data") * 10
                               + lax.axis_index("model"), grid, P("data", "model"),
                               P("data", "model")), (np.zeros((2, 2), np.float32),)),
        "matmul": (smap(matmul, grid, (P("data", "model"), P("model", None)),
                        P("data", None)), (x, w)),
        "all_gather_model": (smap(lambda v: lax.all_gather(v, "model", axis=1, tiled=True),
                                  grid, P("data", "model"), P("data", "model")), (x,)),
        "ppermute_line": (smap(lambda v: lax.ppermute(v, "i", [(j, (j + 1) % 4)
                                                               for j in range(4)]),
                               line, P("i"), P("i")), (x,)),
        "psum_scatter_line": (smap(lambda v: lax.psum_scatter(v, "i", scatter_dimension=1,
                                                              tiled=True),
                                   line, P("i"), P(None, "i")), (w[:4],)),
        # Each device's own gradient, averaged (check_vma=True would psum a replicated
        # value's cotangent first: numlir refuses that, test_shard_map.py checks).
        "mlp_step": (lib.shard_map(mlp_step, mesh=line, in_specs=(P(), P("i")),
                                   out_specs=P(), check_vma=False), (w[:, :3], rng.normal(
            size=(8, 6)).astype(np.float32))),
        # Differentiated from outside: the replicated w's cotangent sums over devices.
        "grad_of_shard_map": (lib.grad(lambda w, xs: smap(
            lambda w, xb: lax.psum(jnp.sum(jnp.tanh(xb @ w) ** 2), "i"), line,
            (P(), P("i")), P())(w, xs)), (w[:, :3], rng.normal(size=(8, 6)).astype(np.float32))),
        "pytree": (smap(lambda d: {"s": lax.psum(d["a"], "i"), "b": d["b"] + 1}, line,
                        ({"a": P("i"), "b": P()},), {"s": P(), "b": P()}),
                   ({"a": x, "b": np.ones(3, np.float32)},)),
    }


def run(lib, wrap=lambda f: f) -> dict[str, np.ndarray]:
    """Every case's outputs by "name/leaf"; ``wrap`` (e.g. jit) applies to each function."""
    out = {}
    for name, (f, args) in cases(lib).items():
        result = wrap(f)(*args)
        leaves = lib.tree_util.tree_leaves(result)
        for k, leaf in enumerate(leaves):
            out[f"{name}/{k}"] = np.asarray(leaf)
    return out


if __name__ == "__main__":
    import jax

    jax.config.update("jax_num_cpu_devices", 4)
    np.savez(sys.argv[2], **run(jax))
