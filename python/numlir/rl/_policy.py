"""Policy-gradient losses and discrete action distributions (epsilon-greedy, softmax)."""

from __future__ import annotations

from typing import Callable, NamedTuple

import numlir.nn as nn
import numlir.numpy as jnp
import numlir.random as random
from numlir import lax


def _softmax_log_prob(actions, logits):
    log_pi = nn.log_softmax(logits, axis=-1)
    return jnp.squeeze(jnp.take_along_axis(log_pi, jnp.expand_dims(actions, -1), axis=-1), -1)


def _softmax_entropy(logits):
    log_pi = nn.log_softmax(logits, axis=-1)
    return -jnp.sum(jnp.exp(log_pi) * log_pi, axis=-1)


def policy_gradient_loss(logits_t, a_t, adv_t, w_t, use_stop_gradient: bool = True):
    """``-mean(log pi(a_t) * adv_t * w_t)`` over the trajectory."""
    adv_t = lax.stop_gradient(adv_t) if use_stop_gradient else adv_t
    return jnp.mean(-_softmax_log_prob(a_t, logits_t) * adv_t * w_t)


def entropy_loss(logits_t, w_t):
    """``-mean(entropy(pi_t) * w_t)``: minimizing it raises the policy's entropy."""
    return -jnp.mean(_softmax_entropy(logits_t) * w_t)


def clipped_surrogate_pg_loss(prob_ratios_t, adv_t, epsilon, use_stop_gradient: bool = True):
    """PPO's clipped objective, negated: ``-mean(min(r * A, clip(r, 1-eps, 1+eps) * A))``."""
    adv_t = lax.stop_gradient(adv_t) if use_stop_gradient else adv_t
    clipped = jnp.clip(prob_ratios_t, 1.0 - epsilon, 1.0 + epsilon)
    return -jnp.mean(jnp.fmin(prob_ratios_t * adv_t, clipped * adv_t))


class DiscreteDistribution(NamedTuple):
    """``sample(key, preferences)``, ``probs``, ``logprob(sample, preferences)``, ``entropy``."""

    sample: Callable
    probs: Callable
    logprob: Callable
    entropy: Callable


def _from_probs(probs_fn: Callable) -> DiscreteDistribution:
    def sample(key, preferences, *args):
        return random.categorical(key, jnp.log(probs_fn(preferences, *args)), axis=-1)

    def logprob(sample_, preferences, *args):
        probs = probs_fn(preferences, *args)
        chosen = jnp.take_along_axis(probs, jnp.expand_dims(sample_, -1), axis=-1)
        return jnp.log(jnp.squeeze(chosen, -1))

    def entropy(preferences, *args):
        probs = probs_fn(preferences, *args)
        safe = jnp.where(probs > 0, probs, 1.0)
        return -jnp.sum(jnp.where(probs > 0, probs * jnp.log(safe), 0.0), axis=-1)

    return DiscreteDistribution(sample, probs_fn, logprob, entropy)


def greedy() -> DiscreteDistribution:
    """All mass on the best actions, split evenly between ties."""
    def probs(preferences):
        best = (preferences == jnp.max(preferences, axis=-1, keepdims=True)).astype(jnp.float32)
        return best / jnp.sum(best, axis=-1, keepdims=True)
    return _from_probs(probs)


def epsilon_greedy(epsilon=None) -> DiscreteDistribution:
    """Greedy with probability ``1 - epsilon``, uniform otherwise (``epsilon`` may also be
    passed per call)."""
    greedy_probs = greedy().probs

    def probs(preferences, epsilon=epsilon):
        n = preferences.shape[-1]
        return (1 - epsilon) * greedy_probs(preferences) + epsilon / n
    return _from_probs(probs)


def softmax(temperature=1.0) -> DiscreteDistribution:
    """``softmax(logits / temperature)``."""
    def probs(logits):
        return nn.softmax(logits / temperature, axis=-1)

    base = _from_probs(probs)

    def logprob(sample_, logits):
        return _softmax_log_prob(sample_, logits / temperature)

    def entropy(logits):
        return _softmax_entropy(logits / temperature)

    return base._replace(logprob=logprob, entropy=entropy)
