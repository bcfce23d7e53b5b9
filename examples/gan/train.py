"""Train the DCGAN on digits: ``python examples/gan/train.py`` (``--help`` for options).

The default data is the bundled 8x8 digits upscaled to 28x28; ``--data DIR`` reads MNIST's
IDX files. One compiled step updates both networks, on numlir's default device or on ``--backend``'s
(``--backend tpu``: the TPU, through the PJRT plugin). It writes ``losses.png`` (the two
loss curves) and ``samples.png`` (a grid of generated digits) to ``--out``, and can save
and restore a checkpoint of parameters and optimizer states.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import data  # noqa: E402
import model  # noqa: E402

try:
    import images
except ModuleNotFoundError as missing:
    # A bare accelerator host (the lent TPU machine) may lack matplotlib: train, say so,
    # and write no pictures rather than fail after the last step.
    if missing.name != "matplotlib":
        raise
    images = None

import numlir  # noqa: E402
from numlir import tree_util  # noqa: E402


def save_checkpoint(path: str, state: model.GANState, step: int) -> None:
    leaves = tree_util.tree_leaves(state)
    np.savez(path, step=step, **{f"leaf_{i}": np.asarray(x) for i, x in enumerate(leaves)})


def restore_checkpoint(path: str, like: model.GANState) -> tuple[model.GANState, int]:
    """The state saved at ``path``, in the structure of ``like`` (a freshly initialized one)."""
    saved = np.load(path)
    leaves, structure = tree_util.tree_flatten(like)
    loaded = [saved[f"leaf_{i}"] for i in range(len(leaves))]
    for i, (old, new) in enumerate(zip(leaves, loaded)):
        if np.shape(old) != new.shape:
            raise ValueError(f"{path}: leaf {i} has shape {new.shape}, the model expects "
                             f"{np.shape(old)}")
    return tree_util.tree_unflatten(structure, [numlir.numpy.asarray(x) for x in loaded]), int(saved["step"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--data", help="directory with MNIST's IDX files (default: bundled digits)")
    parser.add_argument("--out", default="gan-out", help="where the PNGs (and checkpoint) go")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", help="write a checkpoint here at the end (.npz)")
    parser.add_argument("--restore", help="start from this checkpoint")
    parser.add_argument("--backend", help="train on this backend's first device: 'tpu', "
                        "'pjrt_cpu' (docs/pjrt.md); default numlir's default backend")
    parser.add_argument("--data-parallel", type=int, default=0, metavar="DEVICES",
                        help="split each batch over this many CPU devices with pmap "
                        "(NUMLIR_NUM_CPU_DEVICES or jax_num_cpu_devices gives them), in "
                        "each process under `mpirun -np N` (docs/distributed.md); the same "
                        "steps as one device, within float rounding")
    args = parser.parse_args(argv)
    if args.data_parallel:
        if "OMPI_COMM_WORLD_SIZE" in os.environ:  # started by mpirun: join the others first
            numlir.distributed.initialize()
        slices = args.data_parallel * numlir.process_count()
        if args.batch % slices:
            parser.error(f"--batch {args.batch} does not split into {slices} equal slices")
        # Before the first computation: more CPU devices, if there are too few.
        if args.data_parallel > numlir.config.read("jax_num_cpu_devices"):
            numlir.config.update("jax_num_cpu_devices", args.data_parallel)
    device = numlir.devices(args.backend)[0] if args.backend else None
    with numlir.default_device(device):
        return train(args)


def train(args) -> int:
    if images is None:
        print("matplotlib is not installed: losses.png and samples.png will not be written",
              file=sys.stderr)
    real_images = data.load(args.data)
    gan = model.GAN(model.numlir_stack())
    key = numlir.random.PRNGKey(args.seed)
    key, init_key = numlir.random.split(key)
    state = gan.init(init_key)
    first_step = 0
    if args.restore:
        state, first_step = restore_checkpoint(args.restore, state)
    if args.data_parallel:
        step = gan.data_parallel_update(args.data_parallel)
        # Every process draws the global batch; each takes its rows, one slice per device.
        here, processes = numlir.process_index(), numlir.process_count()

        def slices(x):
            rows = np.asarray(x).reshape(processes, -1, *x.shape[1:])[here]
            return rows.reshape(args.data_parallel, -1, *x.shape[1:])

        update = lambda state, *batch: step(state, *map(slices, batch))  # noqa: E731
    else:
        update = gan.compiled_update()
    rng = np.random.default_rng(args.seed)
    d_losses, g_losses = [], []
    started = time.perf_counter()
    # Under mpirun every process trains the same model; process 0 reports and writes.
    leader = numlir.process_index() == 0
    bar = tqdm(range(first_step, first_step + args.steps), desc="training", unit="step",
               disable=not leader)
    for _ in bar:
        batch = real_images[rng.integers(0, len(real_images), args.batch)]
        key, dk, gk = numlir.random.split(key, 3)
        disc_z = numlir.random.normal(dk, (args.batch, model.LATENT))
        gen_z = numlir.random.normal(gk, (args.batch, model.LATENT))
        state, (d_loss, g_loss) = update(state, batch, disc_z, gen_z)
        d_losses.append(float(d_loss))
        g_losses.append(float(g_loss))
        bar.set_postfix(d_loss=f"{d_losses[-1]:.3f}", g_loss=f"{g_losses[-1]:.3f}")
    elapsed = time.perf_counter() - started
    if not leader:
        return 0
    wrote = ""
    if images is not None:
        os.makedirs(args.out, exist_ok=True)
        images.save_loss_curves(os.path.join(args.out, "losses.png"), d_losses, g_losses)
        samples = gan.gen.apply(state.gen_params, numlir.random.normal(key, (64, model.LATENT)))
        images.save_sample_grid(os.path.join(args.out, "samples.png"), np.asarray(samples))
        wrote = f"; wrote {args.out}/losses.png and {args.out}/samples.png"
    if args.save:
        save_checkpoint(args.save, state, first_step + args.steps)
    print(f"{args.steps} steps in {elapsed:.1f} s (first step includes compiling); "
          f"final losses: discriminator {d_losses[-1]:.3f}, generator {g_losses[-1]:.3f}"
          f"{wrote}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
