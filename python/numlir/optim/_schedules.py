"""Learning-rate schedules: functions of the step count, usable inside jit (Optax's names)."""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numlir.numpy as jnp


def constant_schedule(value) -> Callable:
    return lambda count: value


def linear_schedule(init_value, end_value, transition_steps: int, transition_begin: int = 0):
    """From ``init_value`` to ``end_value`` over ``transition_steps`` steps, then constant."""
    if transition_steps <= 0:
        return constant_schedule(init_value)

    def schedule(count):
        remaining = 1 - jnp.clip(count - transition_begin, 0, transition_steps) / transition_steps
        return (init_value - end_value) * remaining + end_value

    return schedule


def exponential_decay(init_value, transition_steps: int, decay_rate, transition_begin: int = 0,
                      staircase: bool = False, end_value=None):
    """``init_value * decay_rate ** ((count - transition_begin) / transition_steps)``, clipped at
    ``end_value`` (a floor when decaying, a ceiling when growing)."""
    if transition_steps <= 0 or decay_rate == 0:
        return constant_schedule(init_value)

    def schedule(count):
        steps = count - transition_begin
        p = steps / transition_steps
        if staircase:
            p = jnp.floor(p)
        value = jnp.where(steps <= 0, init_value, init_value * jnp.power(decay_rate, p))
        if end_value is not None:
            bound = jnp.maximum if decay_rate < 1 else jnp.minimum
            value = bound(value, end_value)
        return value

    return schedule


def cosine_decay_schedule(init_value, decay_steps: int, alpha=0.0, exponent=1.0):
    """Half a cosine from ``init_value`` down to ``alpha * init_value`` over ``decay_steps``."""
    if decay_steps <= 0:
        raise ValueError(f"cosine_decay_schedule: decay_steps must be positive, got {decay_steps}")

    def schedule(count):
        count = jnp.minimum(count, decay_steps)
        cosine = 0.5 * (1 + jnp.cos(math.pi * count / decay_steps))
        decayed = (1 - alpha) * cosine ** exponent + alpha
        return init_value * decayed

    return schedule


def join_schedules(schedules: Sequence[Callable], boundaries: Sequence[int]) -> Callable:
    """``schedules[i]`` from ``boundaries[i-1]`` on, each seeing the count since its start."""

    def schedule(count):
        value = schedules[0](count)
        for boundary, follower in zip(boundaries, schedules[1:]):
            value = jnp.where(count < boundary, value, follower(count - boundary))
        return value

    return schedule


def warmup_cosine_decay_schedule(init_value, peak_value, warmup_steps: int, decay_steps: int,
                                 end_value=0.0, exponent=1.0):
    """Linear warm-up to ``peak_value``, then cosine decay to ``end_value`` at ``decay_steps``."""
    alpha = 0.0 if peak_value == 0 else end_value / peak_value
    return join_schedules(
        [linear_schedule(init_value, peak_value, warmup_steps),
         cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent)],
        [warmup_steps])


def warmup_exponential_decay_schedule(init_value, peak_value, warmup_steps: int,
                                      transition_steps: int, decay_rate, transition_begin: int = 0,
                                      staircase: bool = False, end_value=None):
    """Linear warm-up to ``peak_value``, then exponential decay."""
    return join_schedules(
        [linear_schedule(init_value, peak_value, warmup_steps),
         exponential_decay(peak_value, transition_steps, decay_rate, transition_begin, staircase,
                           end_value)],
        [warmup_steps])
