"""Poisson samples as jax.random.poisson draws them: Knuth's product of uniforms for
``lam < 10`` and Hörmann's transformed rejection (PTRS, 1993) above, each an array-wide
loop that splits one key per round, so a key gives jax's values."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from numlir._src import dtypes
from numlir._src.array import Array
from numlir._src.jit import jit
from numlir._src.lax import control_flow
from numlir._src.lax import special as lax_special
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.random import prng
from numlir._src.random.distributions import _uniform_impl
from numlir._src.random.keys import canonical_shape


def _knuth(key, lam, shape, dtype, max_iters):
    def body(carry):
        i, k, rng, log_prod = carry
        rng, sub = prng.split_list(rng, 2)
        k = ufuncs.where(log_prod > -lam, k + 1, k)
        u = _uniform_impl(sub, 0.0, 1.0, shape, np.dtype(np.float32))
        return i + 1, k, rng, log_prod + ufuncs.log(u)

    def keep_going(carry):
        i, _, _, log_prod = carry
        return reductions.any(log_prod > -lam) & (i < max_iters)

    init = (np.asarray(0, dtype), creation.zeros(shape, dtype), key, creation.zeros(shape, np.float32))
    k = control_flow.while_loop(keep_going, body, init)[1]
    return (k - 1).astype(dtype)


def _rejection(key, lam, shape, dtype, max_iters):
    log_lam = ufuncs.log(lam)
    b = 0.931 + 2.53 * ufuncs.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry):
        i, k_out, accepted, rng = carry
        rng, k0, k1 = prng.split_list(rng, 3)
        u = _uniform_impl(k0, 0.0, 1.0, shape, np.dtype(np.float32)) - 0.5
        v = _uniform_impl(k1, 0.0, 1.0, shape, np.dtype(np.float32))
        us = 0.5 - ufuncs.abs(u)
        k = ufuncs.floor((2 * a / us + b) * u + lam + 0.43)
        s = ufuncs.log(v * inv_alpha / (a / (us * us) + b))
        t = -lam + k * log_lam - lax_special.lgamma(k + 1)
        accept_fast = (us >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((us < 0.013) & (v > us))
        accept = accept_fast | (~reject & (s <= t))
        return i + 1, ufuncs.where(accept, k, k_out), accepted | accept, rng

    def keep_going(carry):
        i, _, accepted, _ = carry
        return reductions.any(~accepted) & (i < max_iters)

    init = (np.asarray(0, dtype), creation.full(shape, -1.0, np.float32), creation.zeros(shape, bool), key)
    return control_flow.while_loop(keep_going, body, init)[1].astype(dtype)


def _poisson_impl(key, lam, shape, dtype):
    lam = reshaping.broadcast_to(lam, shape).astype(np.float32)
    knuth = ufuncs.isnan(lam) | (lam < 10)
    max_iters = np.asarray(np.iinfo(dtype).max, dtype)
    small = _knuth(key, ufuncs.where(knuth, lam, np.float32(0)), shape, dtype, max_iters)
    large = _rejection(key, ufuncs.where(knuth, np.float32(1e5), lam), shape, dtype, max_iters)
    out = ufuncs.where(knuth, small, large)
    return ufuncs.where(lam == 0, creation.zeros((), dtype), out)


_poisson = jit(_poisson_impl, static_argnums=(2, 3))


def poisson(key, lam, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Poisson(lam) counts, as ``jax.random.poisson`` (same values for the same key)."""
    key = prng.check_key("poisson", key)
    dtype = dtypes.default_int_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not np.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype argument to `poisson` must be an int dtype, got {dtype}")
    shape = np.shape(lam) if shape is None else canonical_shape("poisson", shape)
    return _poisson(key, lam, tuple(shape), dtype)
