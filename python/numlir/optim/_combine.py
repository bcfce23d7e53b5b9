"""Combinators that apply a transformation to part of the parameters.

A leaf left out of a mask is replaced by ``MaskedNode()``, a pytree node with no
leaves, so the inner transformation neither sees it nor keeps state for it (as in
Optax); the masked-out updates pass through unchanged.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, NamedTuple

from numlir import tree_util
from numlir.optim._base import GradientTransformation


class MaskedNode(NamedTuple):
    """Stands for a leaf that a mask leaves out: a node with no children."""


class MaskedState(NamedTuple):
    inner_state: Any


class MultiTransformState(NamedTuple):
    inner_states: Any


def _resolve(tree_or_fn, params):
    return tree_or_fn(params) if callable(tree_or_fn) else tree_or_fn


def _mask_tree(tree, mask):
    """``tree`` with the leaves where ``mask`` is False replaced by MaskedNode()."""
    flat_mask, mask_def = tree_util.tree_flatten(mask)
    subtrees = mask_def.flatten_up_to(tree)
    return mask_def.unflatten([t if keep else MaskedNode() for t, keep in zip(subtrees, flat_mask)])


def _merge(original, new, mask):
    flat_mask, mask_def = tree_util.tree_flatten(mask)
    olds, news = mask_def.flatten_up_to(original), mask_def.flatten_up_to(new)
    return mask_def.unflatten([n if keep else o for o, n, keep in zip(olds, news, flat_mask)])


def masked(inner: GradientTransformation, mask) -> GradientTransformation:
    """Applies ``inner`` only where ``mask`` (a pytree of bools, or a function of the params
    returning one) is True; the other updates are left as they are."""

    def init(params):
        return MaskedState(inner.init(_mask_tree(params, _resolve(mask, params))))

    def update(updates, state, params=None):
        m = _resolve(mask, updates if params is None else params)
        masked_params = None if params is None else _mask_tree(params, m)
        new, inner_state = inner.update(_mask_tree(updates, m), state.inner_state, masked_params)
        return _merge(updates, new, m), MaskedState(inner_state)

    return GradientTransformation(init, update)


def multi_transform(transforms: dict[Hashable, GradientTransformation],
                    param_labels) -> GradientTransformation:
    """Applies ``transforms[label]`` to the parameters labelled ``label``; ``param_labels``
    is a pytree of labels like the params (or a function of the params returning one)."""

    def label_masks(params):
        labels = _resolve(param_labels, params)
        missing = set(tree_util.tree_leaves(labels)) - set(transforms)
        if missing:
            raise ValueError(f"multi_transform: no transformation for the labels {sorted(map(str, missing))}")
        return {k: tree_util.tree_map(lambda label, k=k: label == k, labels) for k in transforms}

    def init(params):
        masks = label_masks(params)
        return MultiTransformState({k: masked(t, masks[k]).init(params)
                                    for k, t in transforms.items()})

    def update(updates, state, params=None):
        masks = label_masks(updates if params is None else params)
        inner = {}
        for k, t in transforms.items():
            updates, inner[k] = masked(t, masks[k]).update(updates, state.inner_states[k], params)
        return updates, MultiTransformState(inner)

    return GradientTransformation(init, update)

