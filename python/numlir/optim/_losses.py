"""Losses, elementwise or per example (no reduction over the batch), as in optax.losses."""

from __future__ import annotations

import numlir.numpy as jnp
from numlir import nn


def _where_like_logits(where, logits, axis):
    """``where`` given per example (without the class axis) gets the class axis back."""
    if where is not None and jnp.ndim(where) != jnp.ndim(logits):
        where = jnp.expand_dims(where, axis)
    return where


def softmax_cross_entropy(logits, labels, axis=-1, where=None):
    """``-sum(labels * log_softmax(logits))`` over ``axis`` (labels are probabilities);
    ``where`` (per example or per logit) leaves entries out of the softmax and the sum."""
    where = _where_like_logits(where, logits, axis)
    log_probs = nn.log_softmax(logits, axis, where)
    return -jnp.sum(labels * log_probs, axis=axis, where=where)


def softmax_cross_entropy_with_integer_labels(logits, labels, axis=-1, where=None):
    """Cross-entropy against class indices ``labels`` (one fewer dimension than logits);
    an example with nothing in ``where`` has loss 0."""
    where = _where_like_logits(where, logits, axis)
    label_logits = jnp.take_along_axis(logits, jnp.expand_dims(labels, axis), axis=axis)
    out = nn.logsumexp(logits, axis=axis, where=where) - jnp.squeeze(label_logits, axis)
    return out if where is None else jnp.where(jnp.any(where, axis), out, 0.0)


def sigmoid_binary_cross_entropy(logits, labels):
    """Elementwise ``-labels * log(sigmoid(x)) - (1 - labels) * log(1 - sigmoid(x))``."""
    labels = jnp.asarray(labels).astype(jnp.asarray(logits).dtype)
    log_p = nn.log_sigmoid(logits)
    log_not_p = nn.log_sigmoid(-logits)
    return -labels * log_p - (1.0 - labels) * log_not_p


def l2_loss(predictions, targets=None):
    """``0.5 * (predictions - targets) ** 2``, elementwise."""
    errors = predictions if targets is None else predictions - targets
    return 0.5 * errors * errors


def huber_loss(predictions, targets=None, *, delta=1.0):
    """Quadratic within ``delta`` of the target, linear beyond (elementwise)."""
    errors = predictions if targets is None else predictions - targets
    abs_errors = jnp.abs(errors)
    quadratic = jnp.minimum(abs_errors, delta)
    linear = abs_errors - quadratic
    return 0.5 * quadratic * quadratic + delta * linear
