"""Tree arithmetic shared by the transformations (moments, bias correction, norms)."""

from __future__ import annotations

import numlir.numpy as jnp
from numlir import tree_util


def zeros_like(tree, dtype=None):
    return tree_util.tree_map(lambda x: jnp.zeros_like(x, dtype=dtype), tree)


def canonical_dtype(dtype):
    """``dtype`` as arrays hold it (float64 is float32 without x64), or None."""
    return None if dtype is None else jnp.result_type(dtype)


def cast(tree, dtype):
    """Every leaf as ``dtype``; the tree itself when ``dtype`` is None."""
    return tree if dtype is None else tree_util.tree_map(lambda x: jnp.asarray(x).astype(dtype), tree)


def full_like(tree, value):
    return tree_util.tree_map(lambda x: jnp.full_like(x, value), tree)


def update_moment(updates, moment, decay, order: int):
    """The exponential moving average of ``g ** order``: ``(1 - decay) * g**order + decay * m``."""

    def step(g, m):
        power = g if order == 1 else (g * g if order == 2 else g ** order)
        return (1 - decay) * power + decay * m

    return tree_util.tree_map(step, updates, moment)


def bias_correction(moment, decay, count):
    """``moment / (1 - decay ** count)``: undoes the zero start of a moving average."""
    correction = 1 - decay ** count
    return tree_util.tree_map(lambda m: m / correction.astype(m.dtype), moment)


def safe_increment(count):
    """``count + 1``, saturating at the dtype's largest value instead of wrapping."""
    count = jnp.asarray(count)
    top = jnp.array(jnp.iinfo(count.dtype).max, count.dtype)
    return jnp.where(count < top, count + jnp.array(1, count.dtype), top)


def global_norm(updates):
    """The 2-norm of all leaves together."""
    squares = [jnp.sum(x * x) for x in tree_util.tree_leaves(updates)]
    return jnp.sqrt(sum(squares)) if squares else jnp.zeros(())


def safe_norm(x, min_norm):
    """``max(|x|, min_norm)``, with a gradient that stays finite at ``x == 0``."""
    norm = jnp.sqrt(jnp.sum(x * x))
    small = norm <= min_norm
    masked = jnp.where(small, jnp.ones_like(x), x)
    return jnp.where(small, min_norm, jnp.sqrt(jnp.sum(masked * masked)))
