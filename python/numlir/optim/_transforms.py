"""Gradient transformations: scaling, moments, decay and clipping, under Optax's names."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numlir.numpy as jnp
from numlir import lax, tree_util
from numlir.optim import _tree
from numlir.optim._base import GradientTransformation, identity, init_empty_state
from numlir.optim._combine import masked


def _map(f, *trees):
    return tree_util.tree_map(f, *trees)


class ScaleByScheduleState(NamedTuple):
    count: Any  # int32 scalar: the number of updates so far


class TraceState(NamedTuple):
    trace: Any


class ScaleByAdamState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


class ScaleByRmsState(NamedTuple):
    nu: Any


class ScaleByRmsWithCountState(NamedTuple):
    count: Any
    nu: Any


class ScaleByRStdDevState(NamedTuple):
    mu: Any
    nu: Any


class ScaleByRStdDevWithCountState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


class ScaleByRssState(NamedTuple):
    sum_of_squares: Any


def scale(step_size) -> GradientTransformation:
    """Multiplies every update by ``step_size``."""

    def update(updates, state, params=None):
        return _map(lambda g: step_size * g, updates), state

    return GradientTransformation(init_empty_state, update)


def scale_by_schedule(step_size_fn: Callable[[Any], Any]) -> GradientTransformation:
    """Multiplies the updates by ``step_size_fn(count)``; count starts at 0."""

    def init(params):
        del params
        return ScaleByScheduleState(count=jnp.zeros([], jnp.int32))

    def update(updates, state, params=None):
        step = step_size_fn(state.count)
        updates = _map(lambda g: jnp.asarray(step, dtype=g.dtype) * g, updates)
        return updates, ScaleByScheduleState(count=_tree.safe_increment(state.count))

    return GradientTransformation(init, update)


def scale_by_learning_rate(learning_rate=None, *, flip_sign: bool = True) -> GradientTransformation:
    """Scales by ``-learning_rate`` (a number or a schedule of the step count); None leaves
    the updates as they are."""
    if learning_rate is None:
        return identity()
    sign = -1 if flip_sign else 1
    if callable(learning_rate):
        return scale_by_schedule(lambda count: sign * learning_rate(count))
    return scale(sign * learning_rate)


def trace(decay, nesterov: bool = False, accumulator_dtype=None) -> GradientTransformation:
    """Momentum: ``t = g + decay * t``; the update is ``t`` (or ``g + decay * t``, Nesterov).
    ``accumulator_dtype`` is the dtype ``t`` is kept in (default: the params')."""
    accumulator_dtype = _tree.canonical_dtype(accumulator_dtype)

    def init(params):
        return TraceState(trace=_tree.zeros_like(params, accumulator_dtype))

    def update(updates, state, params=None):
        step = lambda g, t: g + decay * t  # noqa: E731
        new_trace = _map(step, updates, state.trace)
        updates = _map(step, updates, new_trace) if nesterov else new_trace
        return updates, TraceState(trace=_tree.cast(new_trace, accumulator_dtype))

    return GradientTransformation(init, update)


def scale_by_adam(b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, mu_dtype=None, *,
                  nesterov: bool = False) -> GradientTransformation:
    """Adam's rescaling: bias-corrected first moment over the root of the second.
    ``mu_dtype`` is the dtype the first moment is kept in (default: the params')."""
    mu_dtype = _tree.canonical_dtype(mu_dtype)

    def init(params):
        return ScaleByAdamState(count=jnp.zeros([], jnp.int32),
                                mu=_tree.zeros_like(params, mu_dtype),
                                nu=_tree.zeros_like(params))

    def update(updates, state, params=None):
        mu = _tree.update_moment(updates, state.mu, b1, 1)
        nu = _tree.update_moment(updates, state.nu, b2, 2)
        count = _tree.safe_increment(state.count)
        if nesterov:
            mu_hat = _map(lambda m, g: b1 * m + (1 - b1) * g,
                          _tree.bias_correction(mu, b1, _tree.safe_increment(count)),
                          _tree.bias_correction(updates, b1, count))
        else:
            mu_hat = _tree.bias_correction(mu, b1, count)
        nu_hat = _tree.bias_correction(nu, b2, count)
        updates = _map(lambda m, v: m / (jnp.sqrt(v + eps_root) + eps), mu_hat, nu_hat)
        return updates, ScaleByAdamState(count=count, mu=_tree.cast(mu, mu_dtype), nu=nu)

    return GradientTransformation(init, update)


def scale_by_rms(decay=0.9, eps=1e-8, initial_scale=0.0, eps_in_sqrt: bool = True,
                 bias_correction: bool = False) -> GradientTransformation:
    """RMSProp's rescaling by the root of a moving average of squared updates."""

    def init(params):
        nu = _tree.full_like(params, initial_scale)
        if bias_correction:
            return ScaleByRmsWithCountState(count=jnp.zeros([], jnp.int32), nu=nu)
        return ScaleByRmsState(nu=nu)

    def update(updates, state, params=None):
        nu = _tree.update_moment(updates, state.nu, decay, 2)
        count = None
        nu_hat = nu
        if bias_correction:
            count = _tree.safe_increment(state.count)
            nu_hat = _tree.bias_correction(nu, decay, count)
        if eps_in_sqrt:
            updates = _map(lambda n, g: lax.rsqrt(n + eps) * g, nu_hat, updates)
        else:
            updates = _map(lambda n, g: g / (jnp.sqrt(n) + eps), nu_hat, updates)
        if bias_correction:
            return updates, ScaleByRmsWithCountState(count=count, nu=nu)
        return updates, ScaleByRmsState(nu=nu)

    return GradientTransformation(init, update)


def scale_by_stddev(decay=0.9, eps=1e-8, initial_scale=0.0, eps_in_sqrt: bool = True,
                    bias_correction: bool = False) -> GradientTransformation:
    """Centered RMSProp's rescaling: by the root of a moving estimate of the updates'
    variance, the moving average of their squares less the square of their moving mean."""

    def init(params):
        mu = _tree.full_like(params, 0.0)
        nu = _tree.full_like(params, initial_scale)
        if bias_correction:
            return ScaleByRStdDevWithCountState(count=jnp.zeros([], jnp.int32), mu=mu, nu=nu)
        return ScaleByRStdDevState(mu=mu, nu=nu)

    def update(updates, state, params=None):
        mu = _tree.update_moment(updates, state.mu, decay, 1)
        nu = _tree.update_moment(updates, state.nu, decay, 2)
        mu_hat, nu_hat = mu, nu
        if bias_correction:
            count = _tree.safe_increment(state.count)
            mu_hat = _tree.bias_correction(mu, decay, count)
            nu_hat = _tree.bias_correction(nu, decay, count)
        if eps_in_sqrt:
            scaling = _map(lambda m, n: lax.rsqrt(n - m * m + eps), mu_hat, nu_hat)
        else:
            scaling = _map(lambda m, n: 1 / (jnp.sqrt(n - m * m) + eps), mu_hat, nu_hat)
        updates = _map(lambda s, g: s * g, scaling, updates)
        if bias_correction:
            return updates, ScaleByRStdDevWithCountState(count=count, mu=mu, nu=nu)
        return updates, ScaleByRStdDevState(mu=mu, nu=nu)

    return GradientTransformation(init, update)


def scale_by_rss(initial_accumulator_value=0.1, eps=1e-7) -> GradientTransformation:
    """Adagrad's rescaling by the root of the running sum of squared updates."""

    def init(params):
        return ScaleByRssState(sum_of_squares=_tree.full_like(params, initial_accumulator_value))

    def update(updates, state, params=None):
        sums = _map(lambda g, s: g * g + s, updates, state.sum_of_squares)
        scaled = _map(lambda s, g: jnp.where(s > 0, lax.rsqrt(s + eps), 0.0) * g, sums, updates)
        return scaled, ScaleByRssState(sum_of_squares=sums)

    return GradientTransformation(init, update)


def scale_by_trust_ratio(min_norm=0.0, trust_coefficient=1.0, eps=0.0) -> GradientTransformation:
    """LAMB's layer-wise rescaling by ``|param| / |update|`` (1 where either is zero)."""

    def update(updates, state, params=None):
        if params is None:
            raise ValueError("scale_by_trust_ratio needs the params: pass them to update()")

        def rescale(u, p):
            p_norm = _tree.safe_norm(p, min_norm)
            u_norm = _tree.safe_norm(u, min_norm)
            ratio = trust_coefficient * p_norm / (u_norm + eps)
            ratio = jnp.where((p_norm == 0) | (u_norm == 0), jnp.ones_like(ratio), ratio)
            return u * ratio.astype(u.dtype)

        return _map(rescale, updates, params), state

    return GradientTransformation(init_empty_state, update)


def add_decayed_weights(weight_decay=0.0, mask=None) -> GradientTransformation:
    """Adds ``weight_decay * params`` to the updates (on the leaves ``mask`` selects)."""

    def update(updates, state, params=None):
        if params is None:
            raise ValueError("add_decayed_weights needs the params: pass them to update()")
        return _map(lambda g, p: g + weight_decay * p, updates, params), state

    transform = GradientTransformation(init_empty_state, update)
    return transform if mask is None else masked(transform, mask)


def clip(max_delta) -> GradientTransformation:
    """Clips every element of the updates to ``[-max_delta, max_delta]``."""

    def update(updates, state, params=None):
        return _map(lambda g: jnp.clip(g, -max_delta, max_delta), updates), state

    return GradientTransformation(init_empty_state, update)


def clip_by_global_norm(max_norm) -> GradientTransformation:
    """Rescales the updates so that their global 2-norm is at most ``max_norm``."""

    def update(updates, state, params=None):
        norm = _tree.global_norm(updates)
        below = norm < max_norm
        return _map(lambda g: jnp.where(below, g, (g / norm.astype(g.dtype)) * max_norm),
                    updates), state

    return GradientTransformation(init_empty_state, update)
