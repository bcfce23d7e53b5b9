"""Static assertions on shapes, ranks and dtypes (Chex's names and matching rules).

They look only at shapes and dtypes, so they work on traced values inside jit too.
An expected shape lists ints, ``None`` (any size), sets of allowed sizes, and at most
one ``...`` (any number of dimensions).
"""

from __future__ import annotations

import collections.abc
from typing import Any

import numpy as np

import numlir.numpy as jnp


def _as_list(inputs) -> list:
    return list(inputs) if isinstance(inputs, collections.abc.Sequence) else [inputs]


def _dim_matches(size: int, expected) -> bool:
    if expected is None:
        return True
    if isinstance(expected, collections.abc.Set):
        return size in expected
    return size == expected


def _shape_matches(shape: tuple, expected) -> bool:
    expected = tuple(expected)
    if Ellipsis in expected:
        cut = expected.index(Ellipsis)
        head, tail = expected[:cut], expected[cut + 1:]
        if Ellipsis in tail or len(shape) < len(head) + len(tail):
            return False
        shape_tail = shape[len(shape) - len(tail):] if tail else ()
        return (all(_dim_matches(s, e) for s, e in zip(shape[:len(head)], head))
                and all(_dim_matches(s, e) for s, e in zip(shape_tail, tail)))
    return len(shape) == len(expected) and all(_dim_matches(s, e) for s, e in zip(shape, expected))


def _format(expected) -> str:
    parts = ["..." if e is Ellipsis else "*" if e is None else
             "{" + ", ".join(map(str, sorted(e))) + "}" if isinstance(e, collections.abc.Set)
             else str(e) for e in expected]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def assert_shape(inputs, expected_shapes) -> None:
    """Each input's shape matches its expected shape (one shape may serve all inputs)."""
    if not isinstance(expected_shapes, (list, tuple)):
        raise AssertionError("Error in shape compatibility check: expected shapes should be a "
                             f"list or tuple of ints, got {expected_shapes}.")
    inputs = _as_list(inputs)
    if not expected_shapes or not isinstance(expected_shapes[0], (list, tuple)):
        expected_shapes = [expected_shapes] * len(inputs)
    if len(inputs) != len(expected_shapes):
        raise AssertionError("Length of `inputs` and `expected_shapes` must match: "
                             f"{len(inputs)} is not equal to {len(expected_shapes)}.")
    errors = [f"input {i} has shape {tuple(getattr(x, 'shape', ()))} but expected {_format(e)}"
              for i, (x, e) in enumerate(zip(inputs, expected_shapes))
              if not _shape_matches(tuple(getattr(x, "shape", ())), e)]
    if errors:
        raise AssertionError(f"Error in shape compatibility check: {'; '.join(errors)}.")


def assert_rank(inputs, expected_ranks) -> None:
    """Each input's rank is its expected rank (an int or a set of allowed ranks)."""
    if isinstance(expected_ranks, np.ndarray) or not isinstance(
            expected_ranks, (collections.abc.Collection, int)):
        raise ValueError("Error in rank compatibility check: expected ranks should be a single "
                         f"integer or a collection of integers, got {expected_ranks}.")
    inputs = _as_list(inputs)
    if not isinstance(expected_ranks, collections.abc.Sequence):
        expected_ranks = [expected_ranks] * len(inputs)
    if len(inputs) != len(expected_ranks):
        raise AssertionError("Length of inputs and expected_ranks must match: inputs has length "
                             f"{len(inputs)}, expected_ranks has length {len(expected_ranks)}.")
    errors = []
    for i, (x, expected) in enumerate(zip(inputs, expected_ranks)):
        if isinstance(expected, collections.abc.Sequence):
            raise ValueError("Error in rank compatibility check: Expected ranks should be "
                             "integers or sets of integers.")
        shape = tuple(getattr(x, "shape", ()))
        options = expected if isinstance(expected, collections.abc.Set) else {expected}
        if len(shape) not in options:
            errors.append(f"input {i} has rank {len(shape)} (shape {shape}) but expected {expected}")
    if errors:
        raise AssertionError(f"Error in rank compatibility check: {'; '.join(errors)}.")


def _dtype_of(x) -> np.dtype:
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    return np.result_type(x)


def _type_matches(dtype: np.dtype, expected: Any) -> bool:
    if expected in (float, np.floating):
        return jnp.issubdtype(dtype, np.floating)
    if expected in (int, np.integer):
        return jnp.issubdtype(dtype, np.integer)
    if expected is bool:
        return dtype == np.bool_
    return dtype == np.dtype(expected)


def assert_type(inputs, expected_types) -> None:
    """Each input's dtype is its expected type: ``float``/``int``/``bool`` and abstract
    dtypes match any of their kind, a concrete dtype matches only itself."""
    inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    if not isinstance(expected_types, (list, tuple)):
        expected_types = [expected_types] * len(inputs)
    if len(inputs) != len(expected_types):
        raise AssertionError("Length of `inputs` and `expected_types` must match, got "
                             f"{len(inputs)} != {len(expected_types)}.")
    errors = [f"input {i} has type {_dtype_of(x)} but expected {e}"
              for i, (x, e) in enumerate(zip(inputs, expected_types))
              if not _type_matches(_dtype_of(x), e)]
    if errors:
        raise AssertionError(f"Error in type compatibility check: {'; '.join(errors)}.")


def assert_equal_shape(inputs, *, dims=None) -> None:
    """All inputs have the same shape (or the same sizes at ``dims``)."""
    def selected(shape):
        if dims is None:
            return tuple(shape)
        if isinstance(dims, int):
            return shape[dims]
        return tuple(shape[d] for d in dims)

    try:
        shapes = [selected(tuple(x.shape)) for x in inputs]
    except IndexError as error:
        raise ValueError(f"Indexing error when trying to extract dims {dims} from shapes "
                         f"{[tuple(x.shape) for x in inputs]}: {error}") from None
    if any(s != shapes[0] for s in shapes[1:]):
        where = "" if dims is None else f" at dims {dims}"
        raise AssertionError(f"Arrays have different shapes{where}: {[tuple(x.shape) for x in inputs]}.")
