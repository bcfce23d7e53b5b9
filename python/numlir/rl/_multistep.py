"""Returns over a trajectory of T steps: discounted, lambda- and n-step, and TD(lambda)."""

from __future__ import annotations

import numlir.numpy as jnp
from numlir import lax


def _maybe_stop(x, stop: bool):
    return lax.stop_gradient(x) if stop else x


def lambda_returns(r_t, discount_t, v_t, lambda_=1.0, stop_target_gradients: bool = False):
    """``G_t = r_t + discount_t * ((1 - lambda) v_t + lambda G_{t+1})``, bootstrapped from
    ``v_t[-1]``, computed backwards with a scan."""
    lambda_ = jnp.ones_like(discount_t) * lambda_

    def step(acc, xs):
        r, discount, v, lam = xs
        acc = r + discount * ((1 - lam) * v + lam * acc)
        return acc, acc

    _, returns = lax.scan(step, v_t[-1], (r_t, discount_t, v_t, lambda_), reverse=True)
    return _maybe_stop(returns, stop_target_gradients)


def discounted_returns(r_t, discount_t, v_t, stop_target_gradients: bool = False):
    """Monte-Carlo returns bootstrapped from ``v_t`` (a scalar or one value per step)."""
    bootstrap = jnp.ones_like(discount_t) * v_t
    return lambda_returns(r_t, discount_t, bootstrap, 1.0, stop_target_gradients)


def n_step_bootstrapped_returns(r_t, discount_t, v_t, n: int, lambda_t=1.0,
                                stop_target_gradients: bool = False):
    """Returns of ``n`` steps (or fewer at the end), bootstrapped from ``v_t`` n steps on."""
    length = r_t.shape[0]
    lambda_t = jnp.ones_like(discount_t) * lambda_t
    pad = min(n - 1, length)
    targets = jnp.concatenate([v_t[n - 1:], jnp.full((pad,), v_t[-1], v_t.dtype)])
    r_t = jnp.concatenate([r_t, jnp.zeros(n - 1, r_t.dtype)])
    discount_t = jnp.concatenate([discount_t, jnp.ones(n - 1, discount_t.dtype)])
    lambda_t = jnp.concatenate([lambda_t, jnp.ones(n - 1, lambda_t.dtype)])
    v_t = jnp.concatenate([v_t, jnp.full((n - 1,), v_t[-1], v_t.dtype)])
    for i in reversed(range(n)):
        r, discount = r_t[i:i + length], discount_t[i:i + length]
        lam, v = lambda_t[i:i + length], v_t[i:i + length]
        targets = r + discount * ((1.0 - lam) * v + lam * targets)
    return _maybe_stop(targets, stop_target_gradients)


def td_lambda(v_tm1, r_t, discount_t, v_t, lambda_, stop_target_gradients: bool = True):
    """TD(lambda) errors: lambda-returns minus ``v_tm1``."""
    returns = lambda_returns(r_t, discount_t, v_t, lambda_)
    return _maybe_stop(returns, stop_target_gradients) - v_tm1
