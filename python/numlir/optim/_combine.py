"""Combinators that apply a transformation to part of the parameters.

A leaf left out of a mask is replaced by ``MaskedNode()``, a pytree node with no
leaves, so the inner transformation neither sees it nor keeps state for it (as in
Optax); the masked-out updates pass through unchanged.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, NamedTuple

from numlir import tree_util
from numlir.optim._base import (GradientTransformation, GradientTransformationExtraArgs,
                                with_extra_args_support)


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


def _mask_extra_args(extra_args, updates, mask, compatible: bool):
    """The extra arguments with those shaped like the updates (parameter tags, say) masked
    too, when ``compatible``; the others as they are."""
    if not compatible:
        return extra_args
    structure = tree_util.tree_structure(updates)
    return {k: _mask_tree(v, mask) if tree_util.tree_structure(v) == structure else v
            for k, v in extra_args.items()}


def masked(inner: GradientTransformation, mask, *,
           mask_compatible_extra_args: bool = False) -> GradientTransformationExtraArgs:
    """Applies ``inner`` only where ``mask`` (a pytree of bools, or a function of the params
    returning one) is True; the other updates are left as they are. With
    ``mask_compatible_extra_args``, extra ``update`` arguments with the updates' structure
    are masked as well."""
    inner = with_extra_args_support(inner)

    def init(params):
        return MaskedState(inner.init(_mask_tree(params, _resolve(mask, params))))

    def update(updates, state, params=None, **extra_args):
        m = _resolve(mask, updates if params is None else params)
        masked_params = None if params is None else _mask_tree(params, m)
        extra_args = _mask_extra_args(extra_args, updates, m, mask_compatible_extra_args)
        new, inner_state = inner.update(_mask_tree(updates, m), state.inner_state, masked_params,
                                        **extra_args)
        return _merge(updates, new, m), MaskedState(inner_state)

    return GradientTransformationExtraArgs(init, update)


def multi_transform(transforms: dict[Hashable, GradientTransformation], param_labels, *,
                    mask_compatible_extra_args: bool = False) -> GradientTransformationExtraArgs:
    """Applies ``transforms[label]`` to the parameters labelled ``label``; ``param_labels``
    is a pytree of labels like the params (or a function of the params returning one)."""

    def label_masks(params):
        labels = _resolve(param_labels, params)
        missing = set(tree_util.tree_leaves(labels)) - set(transforms)
        if missing:
            raise ValueError(f"multi_transform: no transformation for the labels {sorted(map(str, missing))}")
        return {k: tree_util.tree_map(lambda label, k=k: label == k, labels) for k in transforms}

    def part(k, t, masks):
        return masked(t, masks[k], mask_compatible_extra_args=mask_compatible_extra_args)

    def init(params):
        masks = label_masks(params)
        return MultiTransformState({k: part(k, t, masks).init(params)
                                    for k, t in transforms.items()})

    def update(updates, state, params=None, **extra_args):
        masks = label_masks(updates if params is None else params)
        inner = {}
        for k, t in transforms.items():
            updates, inner[k] = part(k, t, masks).update(updates, state.inner_states[k], params,
                                                         **extra_args)
        return updates, MultiTransformState(inner)

    return GradientTransformationExtraArgs(init, update)
