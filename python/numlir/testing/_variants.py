"""Chex-style test variants: one test method run with and without jit.

    class MyTest(numlir.testing.TestCase):
        @numlir.testing.variants(with_jit=True, without_jit=True)
        def test_sum(self):
            f = self.variant(lambda x: x + 1)
            ...

``TestCase`` turns the method into ``test_sum_with_jit`` and ``test_sum_without_jit``;
``self.variant`` wraps a function the way its variant runs it.
"""

from __future__ import annotations

import functools
import unittest

import numpy as np

import numlir
from numlir import tree_util


def _with_jit(fn=None, **jit_kwargs):
    if fn is None:
        return lambda f: numlir.jit(f, **jit_kwargs)
    return numlir.jit(fn, **jit_kwargs)


def _without_jit(fn=None, **jit_kwargs):
    del jit_kwargs  # static_argnums and friends mean nothing without jit
    return (lambda f: f) if fn is None else fn


def _on_host(fn=None, **jit_kwargs):
    """without_device: the function sees NumPy arrays, never numlir Arrays."""
    def wrap(f):
        @functools.wraps(f)
        def call(*args, **kwargs):
            to_host = lambda x: np.asarray(x) if isinstance(x, numlir.Array) else x  # noqa: E731
            return f(*tree_util.tree_map(to_host, args), **tree_util.tree_map(to_host, kwargs))
        return call
    return wrap if fn is None else wrap(fn)


def _on_device(fn=None, **jit_kwargs):
    """with_device: the function's array arguments arrive as numlir Arrays."""
    def wrap(f):
        @functools.wraps(f)
        def call(*args, **kwargs):
            to_device = lambda x: numlir.numpy.asarray(x) if isinstance(x, np.ndarray) else x  # noqa: E731
            return f(*tree_util.tree_map(to_device, args), **tree_util.tree_map(to_device, kwargs))
        return call
    return wrap if fn is None else wrap(fn)


VARIANTS = {"with_jit": _with_jit, "without_jit": _without_jit,
            "with_device": _on_device, "without_device": _on_host}


def variants(with_jit: bool = False, without_jit: bool = False, with_device: bool = False,
             without_device: bool = False):
    """Marks a TestCase method to run once per selected variant."""
    chosen = [name for name, on in (("with_jit", with_jit), ("without_jit", without_jit),
                                    ("with_device", with_device), ("without_device", without_device))
              if on]
    if not chosen:
        raise ValueError("variants(): select at least one variant")

    def mark(method):
        method._numlir_variants = chosen
        return method

    return mark


all_variants = variants(with_jit=True, without_jit=True, with_device=True, without_device=True)


def _variant_method(method, name: str):
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        self.variant = VARIANTS[name]
        try:
            return method(self, *args, **kwargs)
        finally:
            del self.variant

    run.__name__ = f"{method.__name__}_{name}"
    return run


class TestCase(unittest.TestCase):
    """A unittest TestCase whose ``@variants`` methods become one test per variant."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for attr, method in list(vars(cls).items()):
            chosen = getattr(method, "_numlir_variants", None)
            if not chosen:
                continue
            delattr(cls, attr)
            for name in chosen:
                setattr(cls, f"{attr}_{name}", _variant_method(method, name))
