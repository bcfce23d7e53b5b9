"""Binomial and multinomial samples, as jax.random.binomial and jax.random.multinomial.

A Binomial(n, p) sample is drawn for ``q = min(p, 1 - p)`` (and reflected, ``n - k``,
when p > 1/2) by one of two array-wide loops, each splitting one key per round as jax's
do:

- ``n q <= 10``: inversion by waiting times. Each round adds a Geometric(q) number of
  trials, ``ceil(log u / log(1 - q))``; the sample is the number of successes whose
  trials fit in n.
- otherwise, Hörmann's transformed rejection with squeeze (BTRS, 1993): a candidate
  ``floor((2a / (1/2 - |u|) + b) u + c)`` from one uniform, accepted by a cheap box test
  or, failing that, by comparing the log of the second uniform with the log of the
  probability ratio to the mode, whose factorials are Stirling's series plus the tail
  ``log k! - log(sqrt(2 pi) (k+1)^(k+1/2) e^-(k+1))`` (tabulated below 10). Unlike jax's,
  the tail above 9 is evaluated at k itself (jax's uses k = 9 there).

As jax's: n is floored; NaN for a NaN or negative n and for p outside [0, 1]; inf for
n = inf. Samples are computed in p's (promoted) dtype and returned as ``dtype``, a
float dtype (default float32, float64 under x64).

multinomial draws the counts category by category, ``Binomial(remaining n, p_i /
sum_{j>=i} p_j)``, in a scan over the categories with one key each (``split(key, K)``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from numlir._src import core, dtypes
from numlir._src.array import Array
from numlir._src.jit import jit
from numlir._src.lax import control_flow, scan
from numlir._src.numpy import (creation, cumulative, joining, linalg_ops, reductions, reshaping,
                               ufuncs)
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_dtypes_inexact
from numlir._src.random import prng
from numlir._src.random.distributions import _float_dtype, _uniform_impl
from numlir._src.random.keys import canonical_shape
from numlir._src.random.transformed import _sample_shape

_MAX_ROUNDS = np.iinfo(np.int32).max

# log k! - log(sqrt(2 pi) (k+1)^(k+1/2) e^-(k+1)) for k = 0..9
_STIRLING_TAIL = [math.lgamma(k + 1) - ((k + 0.5) * math.log(k + 1) - (k + 1) + 0.5 * math.log(2 * math.pi))
                  for k in range(10)]


def _stirling_tail(k):
    """The tail above for integer k >= 0: the table below 10, Stirling's series above."""
    k1 = ufuncs.maximum(k, 9.0) + 1
    k1sq = k1 * k1
    value = (1 / 12 - (1 / 360 - 1 / 1260 / k1sq) / k1sq) / k1
    for j, tail in enumerate(_STIRLING_TAIL):
        value = ufuncs.where(k == j, tail, value)
    return value


def _inversion(key, count, q, shape):
    """Successes among ``count`` trials from Geometric(q) waiting times (count q <= 10)."""
    dtype = dtype_of(q)
    log_miss = ufuncs.log1p(-q)

    def keep_going(state):
        i, _, waited, _ = state
        return reductions.any(waited <= count) & (i < _MAX_ROUNDS)

    def round_(state):
        i, successes, waited, rng = state
        sub, rng = prng.split_list(rng, 2)
        successes = ufuncs.where(waited <= count, successes + 1, successes)
        u = _uniform_impl(sub, 0.0, 1.0, shape, dtype)
        wait = ufuncs.where(q == 0, np.inf, ufuncs.ceil(ufuncs.log(u) / log_miss))
        return i + 1, successes, waited + wait, rng

    zeros = creation.zeros(shape, dtype)
    successes = control_flow.while_loop(keep_going, round_, (np.int32(0), zeros, zeros, key))[1]
    return successes - 1


def _btrs(key, count, q, shape):
    """Hörmann's transformed rejection with squeeze (count q > 10, q <= 1/2)."""
    dtype = dtype_of(q)
    spread = ufuncs.sqrt(count * q * (1 - q))
    b = 1.15 + 2.53 * spread
    a = -0.0873 + 0.0248 * b + 0.01 * q
    c = count * q + 0.5
    v_r = 0.92 - 4.2 / b
    odds = q / (1 - q)
    alpha = (2.83 + 5.1 / b) * spread
    mode = ufuncs.floor((count + 1) * q)
    mode_terms = ((mode + 0.5) * ufuncs.log((mode + 1) / (odds * (count - mode + 1)))
                  + _stirling_tail(mode) + _stirling_tail(count - mode))

    def keep_going(state):
        i, _, accepted, _ = state
        return ~reductions.all(accepted) & (i < _MAX_ROUNDS)

    def round_(state):
        i, sample, accepted, rng = state
        rng, k0, k1 = prng.split_list(rng, 3)
        u = _uniform_impl(k0, 0.0, 1.0, shape, dtype) - 0.5
        v = _uniform_impl(k1, 0.0, 1.0, shape, dtype)
        us = 0.5 - ufuncs.abs(u)
        k = ufuncs.floor((2 * a / us + b) * u + c)
        in_box = (us >= 0.07) & (v <= v_r)
        outside = (k < 0) | (k > count)
        log_v = ufuncs.log(v * alpha / (a / (us * us) + b))
        bound = (mode_terms + (count + 1) * ufuncs.log((count - mode + 1) / (count - k + 1))
                 + (k + 0.5) * ufuncs.log(odds * (count - k + 1) / (k + 1))
                 - _stirling_tail(k) - _stirling_tail(count - k))
        # As jax's, a later acceptance replaces an earlier one (every accepted candidate is
        # a sample; this keeps the same keys giving jax's values).
        accept = in_box | (~outside & (log_v <= bound))
        return i + 1, ufuncs.where(accept, k, sample), accepted | accept, rng

    start = (np.int32(0), creation.full(shape, -1.0, dtype), creation.zeros(shape, bool), key)
    return control_flow.while_loop(keep_going, round_, start)[1]


def _binomial_impl(key, n, p, shape, dtype):
    (p,) = promote_dtypes_inexact(p)
    work = dtype_of(p)
    count = reshaping.broadcast_to(creation.asarray(n).astype(work), shape)
    p = reshaping.broadcast_to(p, shape)
    lower = p < 0.5
    q = ufuncs.where(lower, p, 1 - p)
    bad_count = ufuncs.isnan(count) | (count < 0)
    infinite = ufuncs.isinf(count)
    bad_q = ufuncs.isnan(q) | (q < 0)
    q = ufuncs.where(bad_q, 0.01, q)
    use_inversion = bad_count | (count * q <= 10)
    count = ufuncs.floor(count)
    small = _inversion(key, ufuncs.where(use_inversion, count, 0.0), q, shape)
    large = _btrs(key, ufuncs.where(use_inversion, 1e4, count), ufuncs.where(use_inversion, 0.5, q), shape)
    samples = ufuncs.where(use_inversion, small, large)
    invalid = bad_q | bad_count
    samples = ufuncs.where(invalid, np.nan, ufuncs.where(infinite, np.inf, samples))
    samples = ufuncs.where(lower | invalid | infinite, samples, count - samples)
    return samples.astype(dtype)


_binomial = jit(_binomial_impl, static_argnums=(3, 4))


def binomial(key, n, p, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Binomial(n, p) counts (as floats), as ``jax.random.binomial``: n trials with success
    probability p, broadcast to ``shape`` (by default their broadcast shape).

    Example::

        >>> numlir.random.binomial(numlir.random.PRNGKey(0), 10.0, 0.3, (5,))
    """
    key = prng.check_key("binomial", key)
    check_arraylike("binomial", n, p)
    dtype = _float_dtype("binomial", dtype)
    shape = _sample_shape("binomial", shape, n, p)
    return _binomial(key, n, p, tuple(shape), dtype)


def _multinomial_impl(key, n, p, shape, dtype):
    n = reshaping.broadcast_to(n, shape[:-1])
    p = linalg_ops.moveaxis(reshaping.broadcast_to(p, shape), -1, 0)
    remaining = joining.flip(cumulative.cumsum(joining.flip(p, 0), axis=0), 0)
    ratios = ufuncs.clip(p / ufuncs.where(remaining == 0, 1.0, remaining), 0.0, 1.0)
    keys = prng.split(key, (shape[-1],))

    def category(left, ratio_and_key):
        ratio, category_key = ratio_and_key
        count = _binomial_impl(category_key, left, ratio, shape[:-1], dtype_of(left))
        return left - count, count

    counts = scan.scan(category, n, (ratios, keys))[1]
    return linalg_ops.moveaxis(counts, 0, -1).astype(dtype)


_multinomial = jit(_multinomial_impl, static_argnums=(3, 4))


def multinomial(key, n, p, *, shape: Sequence[int] | None = None, dtype=None, unroll: int | bool = 1) -> Array:
    """Multinomial(n, p) counts over the last axis of ``p``, as ``jax.random.multinomial``:
    shape ``p.shape`` (or ``shape``, whose last axis is the categories'), n broadcast to the
    leading axes. ``unroll`` is accepted for jax's signature (the scan is not unrolled).

    Example::

        >>> numlir.random.multinomial(numlir.random.PRNGKey(0), 10.0, numlir.numpy.array([0.2, 0.3, 0.5]))
    """
    del unroll
    key = prng.check_key("multinomial", key)
    check_arraylike("multinomial", n, p)
    n, p = promote_dtypes_inexact(n, p)
    shape = core.get_aval(p).shape if shape is None else canonical_shape("multinomial", shape)
    if not shape:
        raise ValueError("multinomial: p needs an axis of categories (its last)")
    for what, x, want in (("n", n, shape[:-1]), ("p", p, shape)):
        have = core.get_aval(x).shape
        if len(have) > len(want) or any(h not in (1, w) for h, w in zip(have[::-1], want[::-1])):
            raise ValueError(f"multinomial: {what} of shape {have} does not broadcast to {tuple(want)}")
    dtype = dtypes.default_float_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    return _multinomial(key, n, p, tuple(shape), dtype)
