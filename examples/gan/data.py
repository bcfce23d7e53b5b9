"""Training images for the GAN: MNIST from IDX files, or the bundled 8x8 digits upscaled.

Both come out as float32 (N, 28, 28, 1) in [-1, 1].
"""

from __future__ import annotations

import gzip
import pathlib
import struct

import numpy as np

BUNDLED = pathlib.Path(__file__).resolve().parents[2] / "data" / "digits.npz"
MNIST_FILES = ("train-images-idx3-ubyte", "train-images.idx3-ubyte")


def _upscale(images: np.ndarray, size: int) -> np.ndarray:
    """Bilinear resampling of (N, h, w) images to (N, size, size)."""
    n, h, w = images.shape
    ys = np.clip((np.arange(size) + 0.5) * h / size - 0.5, 0, h - 1)
    xs = np.clip((np.arange(size) + 0.5) * w / size - 0.5, 0, w - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    wy, wx = (ys - y0)[None, :, None], (xs - x0)[None, None, :]
    top = images[:, y0][:, :, x0] * (1 - wx) + images[:, y0][:, :, x1] * wx
    bottom = images[:, y1][:, :, x0] * (1 - wx) + images[:, y1][:, :, x1] * wx
    return top * (1 - wy) + bottom * wy


def bundled_digits() -> np.ndarray:
    """scikit-learn's 1,797 8x8 digits (bundled in data/), upscaled to 28x28."""
    images = np.load(BUNDLED)["images"].astype(np.float32) / 16.0
    return (_upscale(images, 28) * 2.0 - 1.0)[..., None].astype(np.float32)


def read_idx_images(path: pathlib.Path) -> np.ndarray:
    """An IDX3 image file (gzipped or not) as uint8 (N, rows, cols)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 16:
        raise ValueError(f"{path} is too short to be an IDX image file")
    magic, count, rows, cols = struct.unpack(">IIII", raw[:16])
    if magic != 0x803:
        raise ValueError(f"{path} is not an IDX image file (magic {magic:#x}, expected 0x803)")
    if len(raw) != 16 + count * rows * cols:
        raise ValueError(f"{path} holds {len(raw) - 16} pixel bytes, its header promises "
                         f"{count}x{rows}x{cols}")
    return np.frombuffer(raw, np.uint8, offset=16).reshape(count, rows, cols)


def mnist(directory: str) -> np.ndarray:
    """The MNIST training images from a directory with the standard IDX files."""
    root = pathlib.Path(directory)
    for name in MNIST_FILES:
        for candidate in (root / name, root / (name + ".gz")):
            if candidate.exists():
                images = read_idx_images(candidate).astype(np.float32) / 255.0
                return (images * 2.0 - 1.0)[..., None]
    raise FileNotFoundError(f"no MNIST training images in {root} (looked for "
                            f"{', '.join(MNIST_FILES)}, optionally .gz)")


def load(directory: str | None) -> np.ndarray:
    return bundled_digits() if directory is None else mnist(directory)
