"""Value assertions on pytrees (they need concrete values, so they run outside jit)."""

from __future__ import annotations

import numpy as np

from numlir import tree_util


def _host(x) -> np.ndarray:
    return np.asarray(x)


def _same_structure(trees) -> None:
    structures = [tree_util.tree_structure(t) for t in trees]
    for i, s in enumerate(structures[1:], start=1):
        if s != structures[0]:
            raise AssertionError(f"Trees 0 and {i} differ in structure: {structures[0]} vs {s}.")


def assert_trees_all_close(*trees, rtol: float = 1e-6, atol: float = 0.0) -> None:
    """Every pair of corresponding leaves is close (``np.testing.assert_allclose``)."""
    if len(trees) < 2:
        raise ValueError(f"assert_trees_all_close needs at least 2 trees, got {len(trees)}")
    _same_structure(trees)
    flats = [tree_util.tree_leaves(t) for t in trees]
    paths = [p for p, _ in tree_util.tree_flatten_with_path(trees[0])[0]]
    for i, other in enumerate(flats[1:], start=1):
        for path, a, b in zip(paths, flats[0], other):
            a, b = _host(a), _host(b)
            if a.shape != b.shape:
                raise AssertionError(f"Trees 0 and {i} differ in leaf {tree_util.keystr(path)}: "
                                     f"shapes {a.shape} and {b.shape}")
            try:
                np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
            except AssertionError as error:
                raise AssertionError(f"Trees 0 and {i} differ in leaf {tree_util.keystr(path)}: "
                                     f"{error}") from None


def assert_trees_all_equal(*trees) -> None:
    """Every pair of corresponding leaves is exactly equal."""
    _same_structure(trees)
    flats = [tree_util.tree_leaves(t) for t in trees]
    for i, other in enumerate(flats[1:], start=1):
        for a, b in zip(flats[0], other):
            np.testing.assert_array_equal(_host(a), _host(b), err_msg=f"trees 0 and {i}")


def assert_tree_all_finite(tree) -> None:
    """No leaf holds an inf or a NaN."""
    finite = [bool(np.all(np.isfinite(_host(x)))) for x in tree_util.tree_leaves(tree)]
    if not all(finite):
        labels = tree_util.tree_unflatten(tree_util.tree_structure(tree),
                                          ["Finite" if f else "Nonfinite" for f in finite])
        raise AssertionError(f"Tree contains non-finite value: {labels}.")
