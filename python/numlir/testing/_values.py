"""Value assertions on pytrees (they need concrete values, so they run outside jit)."""

from __future__ import annotations

import numpy as np

from numlir import tree_util


def _host(x) -> np.ndarray:
    x = np.asarray(x)
    # NumPy's comparisons do not support bfloat16 (as Chex, compare it as float32).
    return x.astype(np.float32) if x.dtype.name == "bfloat16" else x


def _same_structure(what: str, trees) -> None:
    if len(trees) < 2:
        raise ValueError(f"{what} needs at least 2 trees, got {len(trees)} (wrote "
                         f"{what}([a, b]) instead of {what}(a, b)?)")
    structures = [tree_util.tree_structure(t) for t in trees]
    for i, s in enumerate(structures[1:], start=1):
        if s != structures[0]:
            raise AssertionError(f"Trees 0 and {i} differ in structure: {structures[0]} vs {s}.")


def _compare_leaves(what: str, trees, check) -> None:
    """``check(a, b)`` on each leaf of tree 0 and the same leaf of each other tree."""
    _same_structure(what, trees)
    flats = [tree_util.tree_leaves(t) for t in trees]
    paths = [p for p, _ in tree_util.tree_flatten_with_path(trees[0])[0]]
    for i, other in enumerate(flats[1:], start=1):
        for path, a, b in zip(paths, flats[0], other):
            try:
                check(_host(a), _host(b))
            except AssertionError as error:
                raise AssertionError(f"Trees 0 and {i} differ in leaf {tree_util.keystr(path)}: "
                                     f"{error}") from None


def assert_trees_all_close(*trees, rtol: float = 1e-6, atol: float = 0.0,
                           strict: bool = False) -> None:
    """Every pair of corresponding leaves is close (``np.testing.assert_allclose``).

    As in Chex, a scalar leaf is compared with every element of the other leaf unless
    ``strict``; ``strict`` also requires equal shapes and dtypes.
    """
    _compare_leaves("assert_trees_all_close", trees, lambda a, b: np.testing.assert_allclose(
        a, b, rtol=rtol, atol=atol, strict=strict))


def assert_trees_all_equal(*trees, strict: bool = False) -> None:
    """Every pair of corresponding leaves is exactly equal (``strict`` as in
    ``assert_trees_all_close``)."""
    _compare_leaves("assert_trees_all_equal", trees,
                    lambda a, b: np.testing.assert_array_equal(a, b, strict=strict))


def assert_tree_all_finite(tree_like) -> None:
    """No leaf holds an inf or a NaN."""
    finite = [bool(np.all(np.isfinite(_host(x)))) for x in tree_util.tree_leaves(tree_like)]
    if not all(finite):
        labels = tree_util.tree_unflatten(tree_util.tree_structure(tree_like),
                                          ["Finite" if f else "Nonfinite" for f in finite])
        raise AssertionError(f"Tree contains non-finite value: {labels}.")
