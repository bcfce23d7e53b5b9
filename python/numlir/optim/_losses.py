"""Losses, elementwise or per example (no reduction over the batch), as in optax.losses."""

from __future__ import annotations

import numlir.numpy as jnp
from numlir import lax, nn


def softmax_cross_entropy(logits, labels, axis=-1):
    """``-sum(labels * log_softmax(logits))`` over ``axis`` (labels are probabilities)."""
    return -jnp.sum(labels * nn.log_softmax(logits, axis=axis), axis=axis)


def softmax_cross_entropy_with_integer_labels(logits, labels, axis=-1):
    """Cross-entropy against class indices ``labels`` (one fewer dimension than logits)."""
    shifted = logits - lax.stop_gradient(jnp.max(logits, axis=axis, keepdims=True))
    label_logits = jnp.take_along_axis(shifted, jnp.expand_dims(labels, axis), axis=axis)
    label_logits = jnp.squeeze(label_logits, axis)
    return jnp.log(jnp.sum(jnp.exp(shifted), axis=axis)) - label_logits


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


def huber_loss(predictions, targets=None, delta=1.0):
    """Quadratic within ``delta`` of the target, linear beyond (elementwise)."""
    errors = predictions if targets is None else predictions - targets
    abs_errors = jnp.abs(errors)
    quadratic = jnp.minimum(abs_errors, delta)
    linear = abs_errors - quadratic
    return 0.5 * quadratic * quadratic + delta * linear
