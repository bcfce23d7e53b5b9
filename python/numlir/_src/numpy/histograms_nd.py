"""Multidimensional histograms: histogramdd and histogram2d, as jax.numpy's.

Each sample's bin along each dimension is found by searchsorted over that
dimension's edges (the last edge belonging to the last bin, as in
histogram); the per-dimension bins combine into one flat bin, and a
scatter-add counts the samples (or sums their weights) there. Samples outside
any dimension's edges count nowhere. Counts are integers (the default integer
dtype) unless weighted or normalized, as jax.numpy's are.
"""

from __future__ import annotations

import math

from numlir._src import dtypes
from numlir._src.numpy import creation, joining, reductions, reshaping, sorting, ufuncs
from numlir._src.numpy.indices_and_shapes import histogram_bin_edges
from numlir._src.numpy.statistics import diff
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_dtypes_inexact


def _bin_index(x, edges):
    """1-based bin of each x (0 below, len(edges) above), the last edge closing the last bin."""
    index = sorting.searchsorted(edges, x, side="right")
    return ufuncs.where(x == edges[-1], reshaping.size(edges) - 1, index)


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The histogram of ``sample`` (n points of d coordinates, an (n, d) array) and the
    edges of each dimension's bins; ``bins`` is a count or edges, or one per dimension."""
    check_arraylike("histogramdd", sample)
    (sample,) = promote_dtypes_inexact(creation.asarray(sample))
    if sample.ndim != 2:
        raise ValueError(
            f"histogramdd: sample must be an (n, d) array of n points, got shape {sample.shape}"
        )
    n, d = sample.shape
    per_dim_bins = list(bins) if isinstance(bins, (list, tuple)) else [bins] * d
    per_dim_range = [None] * d if range is None else list(range)
    if len(per_dim_bins) != d or len(per_dim_range) != d:
        raise ValueError(
            f"histogramdd: bins and range must have one entry per dimension ({d}), got "
            f"{len(per_dim_bins)} and {len(per_dim_range)}"
        )
    edges = [
        histogram_bin_edges(sample[:, i], b, r)
        for i, (b, r) in enumerate(zip(per_dim_bins, per_dim_range))
    ]
    nbins = [reshaping.size(e) - 1 for e in edges]
    total = math.prod(nbins)
    flat = creation.zeros((n,), dtypes.default_int_dtype())
    inside = creation.ones((n,), bool)
    for i, (e, count) in enumerate(zip(edges, nbins)):
        index = _bin_index(sample[:, i], e)
        inside = inside & (index >= 1) & (index <= count)
        flat = flat * count + (index - 1)
    if weights is not None:
        check_arraylike("histogramdd", weights)
        w = reshaping.ravel(creation.asarray(weights))
        if reshaping.size(w) != n:
            raise ValueError(
                f"histogramdd: weights must have one entry per point ({n}), got shape "
                f"{reshaping.shape(weights)}"
            )
    else:
        w = creation.ones((n,), dtype_of(sample) if density else dtypes.default_int_dtype())
    counts = (
        creation.zeros((total,), dtype_of(w))
        .at[ufuncs.where(inside, flat, total)]
        .add(w, mode="drop")
    )
    counts = reshaping.reshape(counts, tuple(nbins))
    if density:
        counts = counts / reductions.sum(counts)
        for i, e in enumerate(edges):
            shape = [1] * d
            shape[i] = nbins[i]
            counts = counts / reshaping.reshape(diff(e).astype(dtype_of(counts)), shape)
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The 2-D histogram of the points (x[i], y[i]) and the x and y bin edges; ``bins`` is a
    count or edges for both, or a pair of them."""
    check_arraylike("histogram2d", x, y)
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):  # one array of edges for both dimensions
        bins = [bins, bins]
    sample = joining.stack(
        [reshaping.ravel(creation.asarray(x)), reshaping.ravel(creation.asarray(y))], axis=1
    )
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]
