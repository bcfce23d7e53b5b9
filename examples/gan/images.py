"""The GAN's pictures: loss curves side by side and a grid of generated digits (PNG)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def moving_average(values, window: int) -> np.ndarray:
    """The mean of each run of ``window`` consecutive values (fewer at the start)."""
    values = np.asarray(values, np.float64)
    sums = np.cumsum(np.concatenate([[0.0], values]))
    counts = np.minimum(np.arange(1, len(values) + 1), window)
    return (sums[1:] - sums[np.arange(len(values)) + 1 - counts]) / counts


def save_loss_curves(path: str, d_losses, g_losses) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
    window = max(1, len(d_losses) // 50)
    for axis, values, title in ((left, d_losses, "Discriminator loss"),
                                (right, g_losses, "Generator loss")):
        steps = np.arange(1, len(values) + 1)
        # Single steps are noisy (one batch each); the mean over a window shows the trend.
        axis.plot(steps, values, linewidth=0.5, alpha=0.35, label="per step")
        if window > 1:
            axis.plot(steps, moving_average(values, window), linewidth=1.5,
                      label=f"mean of {window} steps")
            axis.legend(loc="upper right")
        axis.set_title(title)
        axis.set_xlabel("step")
        axis.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def save_sample_grid(path: str, images: np.ndarray, columns: int = 8, scale: int = 3) -> None:
    """(N, 28, 28, 1) images in [-1, 1] as one grey grid, each pixel ``scale``x``scale``."""
    n = len(images)
    rows = -(-n // columns)
    grid = np.ones((rows * 30, columns * 30), np.float32)
    for i, image in enumerate(images):
        r, c = divmod(i, columns)
        grid[r * 30 + 1:r * 30 + 29, c * 30 + 1:c * 30 + 29] = (image[..., 0] + 1) / 2
    grid = np.kron(grid, np.ones((scale, scale), np.float32))
    plt.imsave(path, np.clip(grid, 0, 1), cmap="gray", vmin=0, vmax=1)
