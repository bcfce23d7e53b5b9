"""Temporal-difference errors for one transition (batch them with vmap, as in RLax)."""

from __future__ import annotations

import numlir.numpy as jnp
from numlir import lax


def _target(target, stop: bool):
    return lax.stop_gradient(target) if stop else target


def td_learning(v_tm1, r_t, discount_t, v_t, stop_target_gradients: bool = True):
    """``r_t + discount_t * v_t - v_tm1``."""
    return _target(r_t + discount_t * v_t, stop_target_gradients) - v_tm1


def q_learning(q_tm1, a_tm1, r_t, discount_t, q_t, stop_target_gradients: bool = True):
    """``r_t + discount_t * max_a q_t[a] - q_tm1[a_tm1]``."""
    target = r_t + discount_t * jnp.max(q_t)
    return _target(target, stop_target_gradients) - q_tm1[a_tm1]


def double_q_learning(q_tm1, a_tm1, r_t, discount_t, q_t_value, q_t_selector,
                      stop_target_gradients: bool = True):
    """Q-learning whose bootstrap action comes from ``q_t_selector`` and value from
    ``q_t_value`` (van Hasselt, 2010)."""
    target = r_t + discount_t * q_t_value[jnp.argmax(q_t_selector)]
    return _target(target, stop_target_gradients) - q_tm1[a_tm1]


def sarsa(q_tm1, a_tm1, r_t, discount_t, q_t, a_t, stop_target_gradients: bool = True):
    """``r_t + discount_t * q_t[a_t] - q_tm1[a_tm1]``."""
    return _target(r_t + discount_t * q_t[a_t], stop_target_gradients) - q_tm1[a_tm1]
