"""transform: a function that uses modules becomes a pair of pure functions, init and apply."""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple

import numlir.numpy as jnp
from numlir.layers import _frame, _module


class Transformed(NamedTuple):
    """``init(rng, *args) -> params`` and ``apply(params, rng, *args) -> output``."""

    init: Callable
    apply: Callable


class TransformedWithState(NamedTuple):
    """``init(rng, *args) -> (params, state)`` and
    ``apply(params, state, rng, *args) -> (output, state)``."""

    init: Callable
    apply: Callable


def _rng_sequence(rng):
    return None if rng is None else _frame.PRNGSequence(rng)


def _copy(tree: dict) -> dict:
    return {module: dict(values) for module, values in tree.items()}


def transform_with_state(f: Callable) -> TransformedWithState:
    """Like ``transform``, for functions that also read and write state (``get_state``)."""

    @functools.wraps(f)
    def init(rng, *args, **kwargs):
        frame = _frame.Frame({}, {}, _rng_sequence(rng), initializing=True)
        with _frame.new_frame(frame):
            f(*args, **kwargs)
        return frame.params, frame.initial_state

    @functools.wraps(f)
    def apply(params, state, rng, *args, **kwargs):
        frame = _frame.Frame(_copy(params or {}), _copy(state or {}), _rng_sequence(rng),
                             initializing=False)
        with _frame.new_frame(frame):
            out = f(*args, **kwargs)
        return out, frame.state

    return TransformedWithState(init, apply)


def transform(f: Callable, *, apply_rng: bool = True) -> Transformed:
    """``f`` (which builds modules and calls them) as pure ``init`` and ``apply`` functions.

    ``apply_rng`` is kept only for Haiku's signature: it must be True, and Haiku rejects
    False the same way (use ``without_apply_rng(transform(f))`` instead).
    """
    if not apply_rng:
        raise ValueError("The apply_rng argument has been removed and transform now always "
                         "applies an rng.\nReplace transform(..., apply_rng=False) with "
                         "without_apply_rng(transform(...)).")
    stateful = transform_with_state(f)

    def init(rng, *args, **kwargs):
        params, state = stateful.init(rng, *args, **kwargs)
        if state:
            raise ValueError("this function uses state: use numlir.layers.transform_with_state")
        return params

    def apply(params, rng, *args, **kwargs):
        out, state = stateful.apply(params, {}, rng, *args, **kwargs)
        if state:
            raise ValueError("this function uses state: use numlir.layers.transform_with_state")
        return out

    return Transformed(functools.wraps(f)(init), functools.wraps(f)(apply))


def without_apply_rng(f):
    """The same transform ``f`` whose ``apply`` takes no rng argument."""
    if isinstance(f, TransformedWithState):
        def apply_with_state(params, state, *args, **kwargs):
            return f.apply(params, state, None, *args, **kwargs)
        return TransformedWithState(f.init, apply_with_state)

    def apply(params, *args, **kwargs):
        return f.apply(params, None, *args, **kwargs)
    return Transformed(f.init, apply)


def next_rng_key():
    """A fresh random key from the rng given to init or apply."""
    frame = _frame.current_frame("next_rng_key")
    if frame.rng is None:
        raise ValueError("next_rng_key needs an rng: pass a key to init/apply instead of None")
    return next(frame.rng)


def _check_shape(kind: str, module: str, name: str, value, shape) -> None:
    if shape is not None and tuple(value.shape) != tuple(shape):
        raise ValueError(f"{module}/{name} has shape {tuple(value.shape)}, but the {kind} asked "
                         f"for has shape {tuple(shape)}")


def get_parameter(name: str, shape, dtype=None, init: Callable | None = None) -> Any:
    """The parameter ``name`` of the running module: created with ``init(shape, dtype)``
    during init, looked up during apply. ``dtype=None`` means float32 (as in Haiku)."""
    if dtype is None:
        dtype = jnp.float32
    frame = _frame.current_frame("get_parameter")
    module = _module.current_module_name()
    values = frame.params.setdefault(module, {}) if frame.initializing else frame.params.get(module, {})
    if name not in values:
        if not frame.initializing:
            raise ValueError(f"Unable to retrieve parameter {name!r} for module {module!r}: "
                             "apply got params without it (were they made by this init?)")
        if init is None:
            raise ValueError(f"Initializer must be specified for parameter {module}/{name}")
        values[name] = jnp.asarray(init(tuple(shape), dtype))
    _check_shape("parameter", module, name, values[name], shape)
    return values[name]


def get_state(name: str, shape=None, dtype=jnp.float32, init: Callable | None = None) -> Any:
    """The state value ``name`` of the running module (created like a parameter)."""
    frame = _frame.current_frame("get_state")
    module = _module.current_module_name()
    values = frame.state.setdefault(module, {})
    if name not in values:
        if init is None:
            raise ValueError(f"Initializer must be specified for state {module}/{name}")
        values[name] = jnp.asarray(init(tuple(shape), dtype))
        if frame.initializing:
            frame.initial_state.setdefault(module, {})[name] = values[name]
    _check_shape("state", module, name, values[name], shape)
    return values[name]


def set_state(name: str, value) -> None:
    """Replaces the state value ``name`` of the running module."""
    frame = _frame.current_frame("set_state")
    module = _module.current_module_name()
    frame.state.setdefault(module, {})[name] = value
    if frame.initializing:
        frame.initial_state.setdefault(module, {}).setdefault(name, value)
