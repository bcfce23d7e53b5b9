"""Comparing pytrees of results with jax's: same leaves, shapes and dtypes; floats to a
tolerance (NaNs in the same places), everything else exactly."""

import jax
import numpy as np


def random_array(shape, dtype, seed: int = 0) -> np.ndarray:
    """Standard normal values of ``dtype`` (complex: both parts), the same for a seed."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def leaves(x) -> list[np.ndarray]:
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(x)]


def assert_same(got, want, tol: float = 1e-5) -> None:
    got, want = leaves(got), leaves(want)
    assert len(got) == len(want), (len(got), len(want))
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)
