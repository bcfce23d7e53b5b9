"""The benchmark workloads: names, sizes, inputs and the work each one must do.

Every framework's implementation (jaxlike.py, numpy_impl.py, torch_impl.py) reads
its inputs from here, so all of them see the same arrays (same seed, same
generator) and return the same outputs in the same layout, which is what lets
run.py compare their first results. ``bytes`` and ``flops`` are the least work
a program must do, and give the machine limit each workload is measured against.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

F32 = np.float32


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    dims: dict = field(default_factory=dict)
    bytes: int = 0            # DRAM traffic at the least (reads + writes), for "copy"/"read"
    flops: int = 0            # multiply-adds counted as two, for "gemm"
    limit: str | None = None  # which machine limit bounds it: copy, read, gemm, or None
    tolerance: float = 1e-3   # max |a-b| / max |reference| allowed per output leaf
    repeats: int | None = None  # overrides --repeats (for slow workloads)
    unit: str = "ms"

    def inputs(self) -> list[np.ndarray]:
        return _INPUTS[self.name.rstrip("ab")](self.dims, np.random.default_rng(0))


# Discriminator of W7: output channels and strides of its 5x5 SAME convolutions.
DISC_CHANNELS = (8, 16, 32, 64, 128)
DISC_STRIDES = (2, 1, 2, 1, 2)
LATENT = 20


def same_out(size: int, stride: int) -> int:
    """The output size of a SAME convolution."""
    return -(-size // stride)


def _mlp_flops(batch: int, layers: tuple[int, ...]) -> int:
    # Forward dots, the weight gradient of every layer, and the input gradient of
    # all layers but the first (nothing needs the gradient of the data).
    per_layer = [2 * batch * a * b for a, b in zip(layers, layers[1:])]
    return 3 * sum(per_layer) - per_layer[0]


def _dcgan_flops(batch: int) -> int:
    conv = lambda hw, k, cin, cout: 2 * batch * hw * hw * cout * k * k * cin
    # A transposed convolution's useful work is that of the convolution it is the
    # gradient of: counted on its (undilated) input, not on the zero-stuffed one.
    gen = 2 * batch * LATENT * 7 * 7 * 64 + conv(7, 5, 64, 32) + conv(14, 5, 32, 1)
    disc, hw, cin = 0, 28, 1
    for cout, stride in zip(DISC_CHANNELS, DISC_STRIDES):
        hw = same_out(hw, stride)
        disc += conv(hw, 5, cin, cout)
        cin = cout
    disc += 2 * batch * hw * hw * cin * 2
    # Discriminator step: G forward, D forward on real and fake, D backward
    # (weight and input gradients) on both. Generator step: G forward, D forward,
    # D input gradients, G backward (weight and input gradients).
    return (gen + 2 * disc + 2 * 2 * disc) + (gen + disc + disc + 2 * gen)


def workloads(quick: bool) -> dict[str, Workload]:
    """Every workload at its full size (issue 10), or a small one for --quick."""
    n1 = 1 << 16 if quick else 4 << 20
    rows, cols = (256, 1024) if quick else (4096, 1024)
    n3 = 1 << 18 if quick else 16 << 20
    big, small = (128, 64) if quick else (1024, 256)
    mlp = dict(batch=32, layers=(784, 128, 128, 10)) if quick else \
        dict(batch=256, layers=(784, 512, 512, 10))
    conv = dict(batch=4, hw=14, cin=8, cout=16, k=5) if quick else \
        dict(batch=64, hw=28, cin=32, cout=64, k=5)
    gan_batch = 4 if quick else 64
    c = conv
    specs = [
        Workload("W1", f"tanh(x*1.5+0.1)*0.5+x, {n1} f32", dict(n=n1), bytes=2 * 4 * n1,
                 limit="copy"),
        Workload("W2", f"softmax(x, axis=1), {rows}x{cols}", dict(rows=rows, cols=cols),
                 bytes=2 * 4 * rows * cols, limit="copy"),
        Workload("W3", f"sum(x*x), {n3} f32", dict(n=n3), bytes=4 * n3, limit="read",
                 tolerance=1e-4),
        Workload("W4a", f"matmul {big}^3", dict(n=big), flops=2 * big ** 3, limit="gemm"),
        Workload("W4b", f"matmul {small}^3", dict(n=small), flops=2 * small ** 3, limit="gemm"),
        Workload("W5", "MLP step {}, batch {}, value_and_grad + Adam".format(
                     "-".join(map(str, mlp["layers"])), mlp["batch"]),
                 mlp, flops=_mlp_flops(mlp["batch"], mlp["layers"]), limit="gemm",
                 tolerance=2e-2),
        Workload("W6", "conv {0}x{0} NHWC {1}x{2}x{2}x{3}->{4}, SAME".format(
                     c["k"], c["batch"], c["hw"], c["cin"], c["cout"]), conv,
                 flops=2 * c["batch"] * c["hw"] ** 2 * c["cout"] * c["k"] ** 2 * c["cin"],
                 limit="gemm"),
        Workload("W7", f"DCGAN training step, batch {gan_batch}", dict(batch=gan_batch),
                 flops=_dcgan_flops(gan_batch), limit="gemm", tolerance=2e-2,
                 repeats=2),
        Workload("G", f"examples/gan step (layers+optim vs haiku+optax), batch {gan_batch}",
                 dict(batch=gan_batch), flops=_dcgan_flops(gan_batch), limit="gemm",
                 tolerance=2e-2, repeats=2),
        Workload("D", "dispatch: jitted a*b+c, three f32[4]", dict(n=4), tolerance=1e-6,
                 unit="us"),
    ]
    return {w.name: w for w in specs}


def select(quick: bool, only: str | None) -> list[Workload]:
    """The workloads named in --only (``W4`` names both W4a and W4b), in table order."""
    table = workloads(quick)
    if not only:
        return list(table.values())
    wanted = [name.strip() for name in only.split(",") if name.strip()]
    unknown = [n for n in wanted if n not in table and f"{n}a" not in table]
    if unknown:
        raise SystemExit(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(table)}")
    return [w for name, w in table.items() if name in wanted or name.rstrip("ab") in wanted]


# ---- inputs -----------------------------------------------------------------

def _normal(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(F32)


def _adam_state(rng, params):
    # Mid-training moments (not zeros): with m = v = 0 the first Adam update is
    # lr*sign(g), whose sign on near-zero gradients depends on summation order,
    # and that would make numlir/jax comparisons noisy for no reason.
    m = [_normal(rng, p.shape, 1e-3) for p in params]
    v = [(np.square(_normal(rng, p.shape, 1e-3)) + F32(1e-6)).astype(F32) for p in params]
    return m, v


def _mlp_params(rng, layers):
    params = []
    for a, b in zip(layers, layers[1:]):
        params += [_normal(rng, (a, b), 1 / math.sqrt(a)), np.zeros(b, F32)]
    return params


def _dcgan_params(rng):
    gen = [_normal(rng, (LATENT, 7 * 7 * 64), 0.2), np.zeros(7 * 7 * 64, F32),
           _normal(rng, (5, 5, 64, 32), 0.03), np.zeros(32, F32),
           _normal(rng, (5, 5, 32, 1), 0.05), np.zeros(1, F32)]
    disc, cin, hw = [], 1, 28
    for cout, stride in zip(DISC_CHANNELS, DISC_STRIDES):
        disc += [_normal(rng, (5, 5, cin, cout), 1 / math.sqrt(25 * cin)), np.zeros(cout, F32)]
        cin, hw = cout, same_out(hw, stride)
    disc += [_normal(rng, (hw * hw * cin, 2), 1 / math.sqrt(hw * hw * cin)), np.zeros(2, F32)]
    return gen, disc


def _w5_inputs(d, rng):
    params = _mlp_params(rng, d["layers"])
    m, v = _adam_state(rng, params)
    x = _normal(rng, (d["batch"], d["layers"][0]))
    y = np.eye(d["layers"][-1], dtype=F32)[rng.integers(0, d["layers"][-1], d["batch"])]
    return [*params, *m, *v, np.asarray(10, F32), x, y]


def _w7_inputs(d, rng):
    gen, disc = _dcgan_params(rng)
    gm, gv = _adam_state(rng, gen)
    dm, dv = _adam_state(rng, disc)
    real = np.tanh(_normal(rng, (d["batch"], 28, 28, 1)))
    z = _normal(rng, (d["batch"], LATENT))
    return [*gen, *disc, *gm, *gv, *dm, *dv, np.asarray(10, F32), real, z]


def gan_state_shapes() -> list[tuple]:
    """The leaves of examples/gan's GANState in flattening order (dicts by sorted key): each
    network's parameters, then each Adam state (count, mu, nu)."""
    gen = [(32,), (5, 5, 32, 64), (1,), (5, 5, 1, 32), (7 * 7 * 64,), (LATENT, 7 * 7 * 64)]
    disc, cin, hw = [], 1, 28
    for cout, stride in zip(DISC_CHANNELS, DISC_STRIDES):
        disc += [(cout,), (5, 5, cin, cout)]
        cin, hw = cout, same_out(hw, stride)
    disc += [(2,), (hw * hw * cin, 2)]  # the final linear
    adam = lambda params: [()] + params + params  # noqa: E731
    return gen + disc + adam(gen) + adam(disc)


def _g_inputs(d, rng):
    shapes = gan_state_shapes()
    n_gen, n_disc = 6, 2 * len(DISC_CHANNELS) + 2
    leaves = []
    for i, shape in enumerate(shapes):
        if shape == ():  # an Adam step count
            leaves.append(np.asarray(3, np.int32))
        elif i < n_gen + n_disc:  # parameters
            leaves.append(_normal(rng, shape, 0.05))
        else:  # moments: mu small, nu positive
            leaves.append(np.abs(_normal(rng, shape, 1e-3)))
    real = np.tanh(_normal(rng, (d["batch"], 28, 28, 1)))
    return [*leaves, real, _normal(rng, (d["batch"], LATENT)), _normal(rng, (d["batch"], LATENT))]


_INPUTS = {
    "W1": lambda d, rng: [_normal(rng, d["n"])],
    "W2": lambda d, rng: [_normal(rng, (d["rows"], d["cols"]))],
    "W3": lambda d, rng: [_normal(rng, d["n"])],
    "W4": lambda d, rng: [_normal(rng, (d["n"], d["n"])), _normal(rng, (d["n"], d["n"]))],
    "W5": _w5_inputs,
    "W6": lambda d, rng: [_normal(rng, (d["batch"], d["hw"], d["hw"], d["cin"])),
                          _normal(rng, (d["k"], d["k"], d["cin"], d["cout"]), 0.05)],
    "W7": _w7_inputs,
    "G": _g_inputs,
    "D": lambda d, rng: [_normal(rng, d["n"]) for _ in range(3)],
}

# Argument counts of the W5/W7 steps, for implementations that regroup the flat inputs.
MLP_PARAMS = 6
GEN_PARAMS, DISC_PARAMS = 6, 2 * len(DISC_CHANNELS) + 2
