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
C64 = np.complex64
VARIANTS = "abc"  # the letters that tell apart the rows of one workload (W4a, W4b)


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

    @property
    def family(self) -> str:
        """The name without its variant letter: W4 for W4a and W4b."""
        return self.name.rstrip(VARIANTS)

    def inputs(self) -> list[np.ndarray]:
        make = _INPUTS.get(self.name) or _INPUTS[self.family]
        return make(self.dims, np.random.default_rng(0))


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


def _fft_flops(length: int) -> int:
    # The usual count for a complex FFT of any length, whatever algorithm it takes.
    return round(5 * length * math.log2(length))


def _complex_flops(macs: float) -> int:
    # A complex multiply-add is four real multiplies and four real adds.
    return round(8 * macs)


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
    ffts = dict(batch=32, pow2=1024, prime=1021) if quick else \
        dict(batch=256, pow2=4096, prime=4093)
    image = dict(batch=8, hw=64) if quick else dict(batch=32, hw=256)
    system = dict(batch=16, n=64, rhs=8) if quick else dict(batch=32, n=128, rhs=8)
    hermitian = dict(batch=16, n=64) if quick else dict(batch=32, n=128)
    c, f, im, sy, he = conv, ffts, image, system, hermitian
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
        # The FFTs have no machine limit: 5 n log2 n is a convention, not any algorithm's
        # work (numlir's are real matrix products, Bluestein's are three longer FFTs), and
        # an FFT is neither a GEMM nor a stream through memory.
        Workload("W8a", "fft, {batch}x{pow2} c64".format(**f),
                 dict(batch=f["batch"], n=f["pow2"]), flops=f["batch"] * _fft_flops(f["pow2"])),
        Workload("W8b", "fft, {batch}x{prime} c64 (prime length)".format(**f),
                 dict(batch=f["batch"], n=f["prime"]),
                 flops=f["batch"] * _fft_flops(f["prime"])),
        # A real FFT counts half a complex one of the same length; forward and back.
        Workload("W8c", "irfft2(rfft2(x) * h), {batch}x{hw}x{hw} f32".format(**im), im,
                 flops=im["batch"] * _fft_flops(im["hw"] ** 2)),
        # LU (n^3/3 complex multiply-adds) and the two triangular solves per right-hand side.
        Workload("W9a", "solve, {batch}x{n}x{n} c64, {rhs} right-hand sides".format(**sy), sy,
                 flops=sy["batch"] * _complex_flops(sy["n"] ** 3 / 3 + sy["n"] ** 2 * sy["rhs"]),
                 limit="gemm"),
        # a @ a^H needs only one triangle (n^3/2), Cholesky n^3/6 complex multiply-adds.
        Workload("W9b", "cholesky(a @ a^H + n*I), {batch}x{n}x{n} c64".format(**he), he,
                 flops=he["batch"] * _complex_flops(he["n"] ** 3 / 2 + he["n"] ** 3 / 6),
                 limit="gemm"),
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
    families = {w.family for w in table.values()}
    unknown = [n for n in wanted if n not in table and n not in families]
    if unknown:
        raise SystemExit(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(table)}")
    return [w for name, w in table.items() if name in wanted or w.family in wanted]


# ---- inputs -----------------------------------------------------------------

def _normal(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(F32)


def _complex(rng, shape):
    return ((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) / math.sqrt(2)
            ).astype(C64)


def _lowpass(hw):
    """A Gaussian low-pass transfer function on rfft2's half spectrum of an hw x hw image."""
    rows = np.fft.fftfreq(hw)[:, None]
    cols = np.fft.rfftfreq(hw)[None, :]
    return np.exp(-(rows ** 2 + cols ** 2) / (2 * 0.1 ** 2)).astype(F32)


def _w9a_inputs(d, rng):
    # Shifted Gaussian matrices with their rows shuffled: the shift keeps every system of
    # the batch well conditioned (so the frameworks differ by rounding only), the shuffle
    # makes partial pivoting swap rows.
    n = d["n"]
    a = _complex(rng, (d["batch"], n, n)) + C64(2 * math.sqrt(n)) * np.eye(n, dtype=C64)
    a = np.take_along_axis(a, rng.permuted(np.tile(np.arange(n), (d["batch"], 1)), axis=1)
                           [:, :, None], axis=1)
    return [a, _complex(rng, (d["batch"], n, d["rhs"]))]


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
    "W8": lambda d, rng: [_complex(rng, (d["batch"], d["n"]))],
    "W8c": lambda d, rng: [_normal(rng, (d["batch"], d["hw"], d["hw"])), _lowpass(d["hw"])],
    "W9a": _w9a_inputs,
    "W9b": lambda d, rng: [_complex(rng, (d["batch"], d["n"], d["n"]))],
    "D": lambda d, rng: [_normal(rng, d["n"]) for _ in range(3)],
}

# Argument counts of the W5/W7 steps, for implementations that regroup the flat inputs.
MLP_PARAMS = 6
GEN_PARAMS, DISC_PARAMS = 6, 2 * len(DISC_CHANNELS) + 2
