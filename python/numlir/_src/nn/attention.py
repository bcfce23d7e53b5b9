"""jax.nn.dot_product_attention: scaled dot-product attention with JAX's masks and grouped heads.

Shapes follow JAX: query ``(B, T, N, H)``, key and value ``(B, S, K, H)`` with
``N`` a multiple of ``K`` (grouped-query attention: each key/value head serves
``N // K`` query heads); the batch dimension may be left out of all three.
Logits are computed in at least float32 and the softmax always in float32, as
JAX's "xla" implementation does.
"""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.nn.functions import logsumexp
from numlir._src.lax.elementwise import stop_gradient
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.numpy.linalg_ops import einsum
from numlir._src.numpy.util import promote_args_inexact


def _large_negative(dtype) -> float:
    # Finite in float32, where the softmax runs, so masked logits never make inf - inf.
    return -0.7 * min(float(np.finfo(dtype).max), float(np.finfo(np.float32).max))


def _combined_mask(B, T, S, mask, is_causal, q_seqlen, kv_seqlen, window):
    """The positions attended to, broadcastable to (B, N, T, S), or None for all of them."""
    masks = [] if mask is None else [mask]
    q_pos = creation.arange(T)[:, None]
    k_pos = creation.arange(S)[None, :]
    if is_causal:
        masks.append((q_pos >= k_pos)[None, None])
    if window is not None:
        left, right = window
        masks.append(((q_pos <= k_pos + left) & (q_pos >= k_pos - right))[None, None])
    if q_seqlen is not None:
        masks.append((creation.arange(T)[None, :, None] < q_seqlen[:, None, None])[:, None])
    if kv_seqlen is not None:
        masks.append((creation.arange(S)[None, None, :] < kv_seqlen[:, None, None])[:, None])
    if not masks:
        return None
    combined = masks[0]
    for m in masks[1:]:
        combined = ufuncs.logical_and(combined, m)
    return combined


def _as_4d(name: str, t, batched: bool):
    if t is None:
        return None
    t = creation.asarray(t)
    ndim = core.get_aval(t).ndim
    if ndim not in (3, 4) or (ndim == 4 and not batched):
        raise ValueError(f"dot_product_attention: {name} must have rank {'3 or 4' if batched else 3} "
                         f"(batch, heads, T, S), got shape {core.get_aval(t).shape}")
    return t[None] if ndim == 3 else t


def _check_lengths(name: str, lengths, B: int):
    if lengths is None:
        return None
    lengths = creation.asarray(lengths)
    aval = core.get_aval(lengths)
    if aval.shape != (B,) or not np.issubdtype(aval.dtype, np.integer):
        raise ValueError(f"dot_product_attention: {name} must be an integer array of shape ({B},), "
                         f"got {aval.str_short()}")
    return lengths


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None, is_causal: bool = False,
                          query_seq_lengths=None, key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
    """``softmax(q k^T * scale + bias, masked) v`` per head, as ``jax.nn.dot_product_attention``.

    ``mask`` (bool) and ``bias`` broadcast to ``(B, N, T, S)``; ``is_causal``
    keeps key positions ``<=`` the query's; ``local_window_size=(left, right)``
    (or one int for both) keeps keys within that many positions; the sequence
    lengths mask padding per batch element, and query rows past their length
    are zero. ``return_residual`` also returns the logsumexp of the logits,
    ``(B, T, N)``.
    """
    if implementation not in (None, "xla"):
        raise ValueError(f"dot_product_attention: implementation={implementation!r} is not available; "
                         "numlir implements 'xla' (the default)")
    query, key, value = (creation.asarray(t) for t in (query, key, value))
    ndim = core.get_aval(query).ndim
    if ndim not in (3, 4) or core.get_aval(key).ndim != ndim or core.get_aval(value).ndim != ndim:
        raise ValueError("dot_product_attention: query, key and value must all have rank 3 (T, N, H) or "
                         f"4 (B, T, N, H), got {[core.get_aval(t).shape for t in (query, key, value)]}")
    batched = ndim == 4
    if not batched:
        query, key, value = query[None], key[None], value[None]
    B, T, N, H = core.get_aval(query).shape
    _, S, K, _ = core.get_aval(key).shape
    if core.get_aval(key).shape != core.get_aval(value).shape or core.get_aval(key).shape[::3] != (B, H):
        raise ValueError(f"dot_product_attention: key {core.get_aval(key).shape} and value "
                         f"{core.get_aval(value).shape} must have the same shape, with query "
                         f"{core.get_aval(query).shape}'s batch and head size")
    if N % K:
        raise ValueError(f"dot_product_attention: {N} query heads are not a multiple of {K} key/value heads")
    if core.get_aval(key).dtype != core.get_aval(query).dtype or core.get_aval(value).dtype != core.get_aval(query).dtype:
        raise ValueError("dot_product_attention: query, key and value must have the same dtype, got "
                         f"{[core.get_aval(t).dtype.name for t in (query, key, value)]}")
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    bias = _as_4d("bias", bias, batched)
    mask = _as_4d("mask", mask, batched)
    if mask is not None and core.get_aval(mask).dtype != np.bool_:
        raise ValueError(f"dot_product_attention: mask must be boolean, got {core.get_aval(mask).dtype}")
    q_seqlen = _check_lengths("query_seq_lengths", query_seq_lengths, B)
    kv_seqlen = _check_lengths("key_value_seq_lengths", key_value_seq_lengths, B)
    scale = 1.0 / np.sqrt(H) if scale is None else scale

    G = N // K
    logits_dtype = dtypes.promote_types(core.get_aval(query).dtype, np.float32)
    grouped = reshaping.reshape(query, (B, T, K, G, H))
    logits = einsum("BTKGH,BSKH->BKGTS", grouped, key, preferred_element_type=logits_dtype)
    logits = reshaping.reshape(logits, (B, N, T, S)) * np.asarray(scale, logits_dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits_dtype)
    keep = _combined_mask(B, T, S, mask, is_causal, q_seqlen, kv_seqlen, local_window_size)
    if keep is not None:
        logits = ufuncs.where(keep, logits, np.asarray(_large_negative(logits_dtype), logits_dtype))
    logits32 = logits.astype(np.float32)
    unnormalized = ufuncs.exp(logits32 - reductions.max(logits32, axis=-1, keepdims=True))
    probs = (unnormalized / reductions.sum(unnormalized, axis=-1, keepdims=True)).astype(
        core.get_aval(key).dtype)
    probs = reshaping.reshape(probs, (B, K, G, T, S))
    encoded = reshaping.reshape(einsum("BKGTS,BSKH->BTKGH", probs, value), (B, T, N, H))
    if q_seqlen is not None:
        rows = creation.arange(T)[None, :] < q_seqlen[:, None]
        encoded = encoded * rows[:, :, None, None].astype(core.get_aval(encoded).dtype)
    if not batched:
        encoded = encoded[0]
    if not return_residual:
        return encoded
    lse = reshaping.transpose(logsumexp(logits32, axis=-1), (0, 2, 1)).astype(core.get_aval(key).dtype)
    return encoded, stop_gradient(lse if batched else lse[0])
