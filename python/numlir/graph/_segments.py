"""Segment reductions: combine the rows of ``data`` that share a segment id.

``num_segments`` must be static under jit (it is the output's length). Ids outside
``[0, num_segments)`` are dropped, as in jax.ops; empty segments get the reduction's
identity (0 for sums, -inf / the dtype's lowest value for max).
"""

from __future__ import annotations

import numpy as np

import numlir.numpy as jnp


def _num_segments(segment_ids, num_segments):
    if num_segments is None:
        num_segments = int(np.max(np.asarray(segment_ids))) + 1  # concrete ids only
    return int(num_segments)


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False):
    n = _num_segments(segment_ids, num_segments)
    data = jnp.asarray(data)
    return jnp.zeros((n,) + data.shape[1:], data.dtype).at[segment_ids].add(data, mode="drop")


def _lowest(dtype):
    dtype = np.dtype(dtype)
    return -np.inf if np.issubdtype(dtype, np.floating) or dtype.name == "bfloat16" else np.iinfo(dtype).min


def _highest(dtype):
    dtype = np.dtype(dtype)
    return np.inf if np.issubdtype(dtype, np.floating) or dtype.name == "bfloat16" else np.iinfo(dtype).max


def _segment_extreme(data, segment_ids, num_segments, start_value, combine: str):
    n = _num_segments(segment_ids, num_segments)
    data = jnp.asarray(data)
    start = jnp.full((n,) + data.shape[1:], start_value(data.dtype), data.dtype)
    return getattr(start.at[segment_ids], combine)(data, mode="drop")


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False):
    return _segment_extreme(data, segment_ids, num_segments, _lowest, "max")


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False):
    return _segment_extreme(data, segment_ids, num_segments, _highest, "min")


def segment_mean(data, segment_ids, num_segments=None, indices_are_sorted=False,
                 unique_indices=False):
    """The mean of each segment; empty segments are 0."""
    data = jnp.asarray(data)
    total = segment_sum(data, segment_ids, num_segments)
    count = segment_sum(jnp.ones_like(data), segment_ids, num_segments)
    return total / jnp.maximum(count, jnp.ones([], count.dtype))


def segment_softmax(logits, segment_ids, num_segments=None, indices_are_sorted=False,
                    unique_indices=False):
    """A softmax over the entries of each segment (per id, over the rows sharing it)."""
    maxs = segment_max(logits, segment_ids, num_segments)
    shifted = jnp.exp(logits - maxs[segment_ids])
    return shifted / segment_sum(shifted, segment_ids, num_segments)[segment_ids]
