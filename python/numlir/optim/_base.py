"""The optimizer protocol: a GradientTransformation is a pair of pure functions.

``init(params) -> state`` and ``update(updates, state, params=None) -> (updates, state)``,
as in Optax, so optimizers compose with ``chain`` and run inside ``numlir.jit``. A
``GradientTransformationExtraArgs`` also takes keyword arguments in ``update`` (a loss
value, parameter tags, ...), which ``chain`` and the masks hand on to their parts.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numlir.numpy as jnp
from numlir import tree_util


class GradientTransformation(NamedTuple):
    """An optimizer or one step of one: ``init(params)`` and ``update(updates, state, params)``."""

    init: Callable[[Any], Any]
    update: Callable[..., tuple[Any, Any]]


class GradientTransformationExtraArgs(GradientTransformation):
    """A transformation whose ``update(updates, state, params=None, **extra_args)`` takes
    keyword arguments besides the params."""


def with_extra_args_support(tx: GradientTransformation) -> GradientTransformationExtraArgs:
    """``tx`` with an ``update`` that accepts (and, if ``tx`` takes none, ignores) extra
    keyword arguments."""
    if isinstance(tx, GradientTransformationExtraArgs):
        return tx

    def update(updates, state, params=None, **extra_args):
        del extra_args
        return tx.update(updates, state, params)

    return GradientTransformationExtraArgs(tx.init, update)


class EmptyState(NamedTuple):
    """The state of a transformation that keeps none."""


def init_empty_state(params) -> EmptyState:
    del params
    return EmptyState()


def identity() -> GradientTransformation:
    """Leaves updates unchanged."""
    return GradientTransformation(init_empty_state, lambda updates, state, params=None: (updates, state))


def set_to_zero() -> GradientTransformation:
    """Replaces every update by zeros (freezes the parameters it is applied to)."""

    def update(updates, state, params=None):
        return tree_util.tree_map(jnp.zeros_like, updates), state

    return GradientTransformation(init_empty_state, update)


def stateless(f: Callable[[Any, Any], Any]) -> GradientTransformation:
    """A transformation from ``f(updates, params) -> updates`` that keeps no state."""

    def update(updates, state, params=None):
        return f(updates, params), state

    return GradientTransformation(init_empty_state, update)


def chain(*args: GradientTransformation) -> GradientTransformationExtraArgs:
    """Applies the transformations ``args`` in order; the state is the tuple of their
    states, and extra keyword arguments of ``update`` go to every one that takes them."""
    transforms = [with_extra_args_support(t) for t in args]

    def init(params):
        return tuple(t.init(params) for t in transforms)

    def update(updates, state, params=None, **extra_args):
        if len(state) != len(transforms):
            raise ValueError(f"chain of {len(transforms)} transformations got a state of "
                             f"{len(state)} entries")
        new_state = []
        for t, s in zip(transforms, state):
            updates, s = t.update(updates, s, params, **extra_args)
            new_state.append(s)
        return updates, tuple(new_state)

    return GradientTransformationExtraArgs(init, update)


def apply_updates(params, updates):
    """``params + updates`` leaf by leaf, keeping each parameter's dtype (as optax)."""

    def add(p, u):
        if p is None:
            return None
        p = jnp.asarray(p)
        return jnp.asarray(p + u).astype(p.dtype)

    return tree_util.tree_map(add, params, updates, is_leaf=lambda x: x is None)
