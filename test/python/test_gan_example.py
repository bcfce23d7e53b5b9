"""The DCGAN flagship (examples/gan): one compiled step agrees with JAX + Haiku + Optax,
training lowers the discriminator's loss, and the script's data, pictures and checkpoints
work. Every test uses batch 8, so the update step compiles once for the module."""

import gzip
import os
import pathlib
import struct
import subprocess
import sys

import jax
import numpy as np
import pytest

import numlir
from numlir import tree_util

GAN_DIR = pathlib.Path(__file__).resolve().parents[2] / "examples" / "gan"
sys.path.insert(0, str(GAN_DIR))

import data  # noqa: E402
import model  # noqa: E402
import train  # noqa: E402

BATCH = 8
RNG = np.random.default_rng(7)


@pytest.fixture(scope="module")
def gans():
    ours = model.GAN(model.numlir_stack())
    return ours, ours.compiled_update(), model.GAN(model.jax_stack())


def _inputs():
    real = data.bundled_digits()[RNG.integers(0, 1797, BATCH)]
    return (real, RNG.normal(size=(BATCH, model.LATENT)).astype(np.float32),
            RNG.normal(size=(BATCH, model.LATENT)).astype(np.float32))


def test_one_compiled_update_matches_jax_haiku_optax(gans):
    ours, update, theirs = gans
    their_state = theirs.init(jax.random.PRNGKey(0), BATCH)
    # numlir's state has the same structure leaf for leaf (names and optimizer states).
    structure = tree_util.tree_structure(ours.init(numlir.random.PRNGKey(0), BATCH))
    our_state = tree_util.tree_unflatten(structure, [np.asarray(x) for x in jax.tree.leaves(their_state)])
    real, disc_z, gen_z = _inputs()
    want_state, want_losses = jax.jit(theirs.update)(their_state, real, disc_z, gen_z)
    got_state, got_losses = update(our_state, real, disc_z, gen_z)
    np.testing.assert_allclose(np.asarray(got_losses), np.asarray(want_losses), rtol=1e-5, atol=1e-6)
    # The moments (mu = 0.5 g, nu = 0.1 g^2) pin the gradients: each leaf to 2e-4 of its
    # largest magnitude.
    for field in ("gen_opt", "disc_opt"):
        for got, want in zip(tree_util.tree_leaves(getattr(got_state, field)),
                             jax.tree.leaves(getattr(want_state, field))):
            got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
            assert np.max(np.abs(got - want), initial=0.0) <= 2e-4 * np.max(np.abs(want), initial=0.0)
    # Parameters moved by about the learning rate (1e-4) and agree to a tenth of it where the
    # gradient is well above Adam's eps (1e-8). Adam divides a gradient by its own size, so
    # where it is near eps, six orders below the leaf's largest, rounding moves the update
    # (seen: 6e-6 where mu was -3.0e-9 against -3.9e-9); there the update is only bounded.
    for field, opt in (("gen_params", "gen_opt"), ("disc_params", "disc_opt")):
        moments = jax.tree.leaves(getattr(want_state, opt)[0].mu)
        pairs = zip(tree_util.tree_leaves(getattr(got_state, field)),
                    jax.tree.leaves(getattr(want_state, field)), moments)
        for got, want, mu in pairs:
            diff = np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))
            clear = np.abs(np.asarray(mu)) > 1e-7
            assert np.max(diff[clear], initial=0.0) <= 1e-5, (field, got.shape)
            assert np.max(diff, initial=0.0) <= 2e-4, (field, got.shape)


def test_training_lowers_the_discriminator_loss(gans):
    ours, update, _ = gans
    state = ours.init(numlir.random.PRNGKey(1), BATCH)
    losses = []
    for _ in range(15):
        state, (d_loss, _) = update(state, *_inputs())
        losses.append(float(d_loss))
    assert np.mean(losses[-5:]) < losses[0], losses


def test_bundled_digits_are_28x28_in_minus_one_to_one():
    images = data.bundled_digits()
    assert images.shape == (1797, 28, 28, 1) and images.dtype == np.float32
    assert images.min() == pytest.approx(-1.0) and images.max() <= 1.0 and images.max() > 0.9


def test_mnist_idx_files_are_read_gzipped_or_not(tmp_path):
    pixels = RNG.integers(0, 256, (3, 28, 28), dtype=np.uint8)
    raw = struct.pack(">IIII", 0x803, 3, 28, 28) + pixels.tobytes()
    (tmp_path / "train-images-idx3-ubyte").write_bytes(raw)
    np.testing.assert_allclose(data.mnist(str(tmp_path))[..., 0], pixels / 255.0 * 2 - 1, atol=1e-6)
    gz = tmp_path / "gz"
    gz.mkdir()
    with gzip.open(gz / "train-images-idx3-ubyte.gz", "wb") as f:
        f.write(raw)
    assert data.mnist(str(gz)).shape == (3, 28, 28, 1)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "train-images-idx3-ubyte").write_bytes(raw[:-5])
    with pytest.raises(ValueError, match="header promises"):
        data.mnist(str(tmp_path / "bad"))
    with pytest.raises(FileNotFoundError, match="no MNIST training images"):
        data.mnist(str(tmp_path / "gz" / "missing"))


def test_the_script_trains_writes_pictures_and_restores_its_checkpoint(tmp_path, gans):
    out, ckpt = tmp_path / "out", tmp_path / "gan.npz"
    assert train.main(["--steps", "2", "--batch", str(BATCH), "--out", str(out),
                       "--save", str(ckpt)]) == 0
    for name in ("losses.png", "samples.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ours, _, _ = gans
    state, step = train.restore_checkpoint(str(ckpt), ours.init(numlir.random.PRNGKey(0), BATCH))
    assert step == 2 and int(state.gen_opt[0].count) == 2
    assert train.main(["--steps", "1", "--batch", str(BATCH), "--out", str(out),
                       "--restore", str(ckpt)]) == 0


def test_the_script_trains_without_matplotlib_and_says_it_writes_no_pictures(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(train, "images", None)
    out, ckpt = tmp_path / "out", tmp_path / "gan.npz"
    assert train.main(["--steps", "1", "--batch", str(BATCH), "--out", str(out),
                       "--save", str(ckpt)]) == 0
    assert "matplotlib is not installed" in capsys.readouterr().err
    assert not out.exists() and ckpt.exists()


def test_the_script_trains_on_a_pjrt_device_as_on_numlirs_cpu(tmp_path, gans):
    # --backend pjrt_cpu: the PJRT plugin (docs/pjrt.md) on jaxlib's CPU client; on the TPU
    # machine tools/tpu/run.sh sets NUMLIR_PJRT_TEST_BACKEND=tpu.
    backend = os.environ.get("NUMLIR_PJRT_TEST_BACKEND", "pjrt_cpu")
    states = []
    for flags in ([], ["--backend", backend]):
        ckpt = tmp_path / f"gan{len(states)}.npz"
        assert train.main(["--steps", "3", "--batch", str(BATCH), "--out", str(tmp_path),
                           "--save", str(ckpt), *flags]) == 0
        ours, _, _ = gans
        states.append(train.restore_checkpoint(str(ckpt),
                                               ours.init(numlir.random.PRNGKey(0), BATCH))[0])
    # Adam divides by the gradient's running magnitude, so where a gradient is near 0 its
    # rounding (a TPU's differs from a CPU's) can flip the sign of that step: two runs may
    # part by about two learning-rate steps (1e-4) per step there, and the later steps'
    # gradients inherit the difference (on the TPU: 2 of 1.2M parameters 8.2e-4 apart).
    # Elsewhere they agree closely.
    steps, lr = 3, 1e-4
    cpu, pjrt = (np.concatenate([np.ravel(leaf) for leaf in tree_util.tree_leaves(state)])
                 for state in states)
    np.testing.assert_allclose(pjrt, cpu, rtol=2e-4, atol=4 * lr * steps)
    close = np.isclose(pjrt, cpu, rtol=2e-4, atol=1e-5)
    assert close.mean() >= 0.99, f"{close.size - close.sum()} of {close.size} apart"
    assert any(not np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(
        tree_util.tree_leaves(states[1]),
        tree_util.tree_leaves(gans[0].init(numlir.random.PRNGKey(0), BATCH))))


def test_loss_curve_trend_is_the_mean_of_the_last_window_of_steps():
    import images
    values = np.array([4.0, 2.0, 6.0, 0.0, 8.0])
    np.testing.assert_allclose(images.moving_average(values, 2), [4.0, 3.0, 4.0, 3.0, 4.0])
    np.testing.assert_allclose(images.moving_average(values, 1), values)
    np.testing.assert_allclose(images.moving_average(values, 9), np.cumsum(values) / np.arange(1, 6))


def test_sample_grid_scales_each_digit_and_keeps_its_pixels(tmp_path):
    import matplotlib.image
    import images
    digits = np.linspace(-1, 1, 3 * 28 * 28, dtype=np.float32).reshape(3, 28, 28, 1)
    images.save_sample_grid(str(tmp_path / "grid.png"), digits, columns=2, scale=2)
    grid = matplotlib.image.imread(str(tmp_path / "grid.png"))[..., 0]
    assert grid.shape == (2 * 30 * 2, 2 * 30 * 2)
    # Digit 1 sits in row 0, column 1, one border pixel in; each pixel is a 2x2 block.
    np.testing.assert_allclose(grid[2:58:2, 62:118:2], (digits[1, ..., 0] + 1) / 2, atol=2 / 255)  # 8-bit colormap
    np.testing.assert_allclose(grid[3:58:2, 63:118:2], (digits[1, ..., 0] + 1) / 2, atol=2 / 255)  # 8-bit colormap


def test_the_script_trains_data_parallel_with_pmap_as_on_one_device(tmp_path, gans):
    # --data-parallel 2 splits each batch over two CPU devices (a process of its own, so
    # that it can have them) and averages the gradients with pmean: the same steps as one
    # device over the whole batch, up to the rounding of a mean taken in two halves.
    one, two = tmp_path / "one.npz", tmp_path / "two.npz"
    assert train.main(["--steps", "3", "--batch", str(BATCH), "--out", str(tmp_path / "o1"),
                       "--save", str(one)]) == 0
    done = subprocess.run(
        [sys.executable, str(GAN_DIR / "train.py"), "--steps", "3", "--batch", str(BATCH),
         "--out", str(tmp_path / "o2"), "--save", str(two), "--data-parallel", "2"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    like = gans[0].init(numlir.random.PRNGKey(0), BATCH)
    states = [train.restore_checkpoint(str(path), like)[0] for path in (one, two)]
    single, parallel = (np.concatenate([np.ravel(leaf) for leaf in tree_util.tree_leaves(s)])
                        for s in states)
    np.testing.assert_allclose(parallel, single, rtol=1e-4, atol=1e-5)
    with pytest.raises(SystemExit):  # a batch that does not split evenly
        train.main(["--steps", "1", "--batch", "7", "--data-parallel", "2"])
