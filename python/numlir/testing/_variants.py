"""Chex-style test variants: one test method run with and without jit.

    class MyTest(numlir.testing.TestCase):
        @numlir.testing.variants(with_jit=True, without_jit=True)
        def test_sum(self):
            f = self.variant(lambda x: x + 1)
            ...

``TestCase`` turns the method into ``test_sum_with_jit`` and ``test_sum_without_jit``;
``self.variant`` wraps a function the way its variant runs it. The ``with_pmap`` variant
runs the function under ``numlir.pmap`` on copies of its arguments, one per device, and
returns the first device's output; with one device it is skipped, as Chex's default
(``NUMLIR_NUM_CPU_DEVICES`` gives the cpu backend more).
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


def _first_device_output(tree):
    """Each output's first device's block (a leaf without a leading axis is itself)."""
    return tree_util.tree_map(lambda x: x[0] if np.ndim(x) and np.shape(x)[0] else x, tree)


def _with_pmap(fn=None, broadcast_args_to_devices: bool = True,
               reduce_fn="first_device_output", n_devices: int | None = None,
               axis_name="i", devices=None, in_axes=0, static_broadcasted_argnums=(),
               static_argnums=(), backend=None, **unused_kwargs):
    """with_pmap, as Chex's: ``numlir.pmap(fn)`` over ``n_devices`` (all by default); the
    arguments broadcast to one copy per device unless ``broadcast_args_to_devices`` is off
    (then their leading axes must be the device count); the outputs reduced by ``reduce_fn``
    ("first_device_output", "identity"/None, or a function). Skipped on one device, as Chex
    does by default (its chex_skip_pmap_variant_if_single_device)."""
    if fn is None:
        return functools.partial(
            _with_pmap, broadcast_args_to_devices=broadcast_args_to_devices,
            reduce_fn=reduce_fn, n_devices=n_devices, axis_name=axis_name, devices=devices,
            in_axes=in_axes, static_broadcasted_argnums=static_broadcasted_argnums,
            static_argnums=static_argnums, backend=backend)
    if numlir.device_count(backend) < 2:
        raise unittest.SkipTest(f"Only 1 device is available ({numlir.devices(backend)}).")
    if broadcast_args_to_devices and in_axes != 0:
        raise ValueError("Do not use `broadcast_args_to_devices` when specifying `in_axes`.")
    if reduce_fn == "first_device_output":
        reduce_fn = _first_device_output
    elif reduce_fn in ("identity", None):
        reduce_fn = lambda tree: tree  # noqa: E731
    static = static_argnums or static_broadcasted_argnums
    static = (static,) if isinstance(static, int) else tuple(static)
    pmapped = numlir.pmap(fn, axis_name=axis_name, in_axes=in_axes, devices=devices,
                          static_broadcasted_argnums=static, backend=backend)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs and (in_axes != 0 or static):
            raise ValueError("Do not use kwargs with `in_axes` or `static_argnums` in "
                             "pmapped function.")
        available = list(devices or numlir.devices(backend))
        count = n_devices or len(available)
        if len(available) < count:
            raise ValueError("Number of available devices is less than required for test "
                             f"({len(available)} < {count})")

        def copies(x):
            x = numlir.numpy.asarray(x)
            return numlir.numpy.broadcast_to(x, (count,) + x.shape)

        if broadcast_args_to_devices:
            args = [a if i in static else tree_util.tree_map(copies, a)
                    for i, a in enumerate(args)]
            kwargs = tree_util.tree_map(copies, kwargs)
        return reduce_fn(pmapped(*args, **kwargs))

    return call


VARIANTS = {"with_jit": _with_jit, "without_jit": _without_jit,
            "with_device": _on_device, "without_device": _on_host, "with_pmap": _with_pmap}

_NO_DEFAULT = "__no__default__"  # Chex's marker for "called without a test method"


def _mark(test_method, chosen: dict):
    """Adds the chosen variants to ``test_method`` (stacked decorators merge, as in Chex)."""
    selected = [name for name, on in chosen.items() if on]
    if not selected:
        raise ValueError(f"No variants selected for test: {test_method}.")
    earlier = getattr(test_method, "_numlir_variants", [])
    test_method._numlir_variants = earlier + [n for n in selected if n not in earlier]
    return test_method


def variants(test_method=_NO_DEFAULT, with_jit: bool = False, without_jit: bool = False,
             with_device: bool = False, without_device: bool = False, with_pmap: bool = False):
    """Marks a TestCase method to run once per selected variant.

    Use as ``@variants(with_jit=True, ...)`` or ``variants(method, with_jit=True, ...)``.
    The ``with_pmap`` variant is skipped on one device, as Chex's.
    """
    chosen = {"with_jit": with_jit, "without_jit": without_jit, "with_device": with_device,
              "without_device": without_device, "with_pmap": with_pmap}
    if test_method is _NO_DEFAULT:
        return lambda method: _mark(method, chosen)
    return _mark(test_method, chosen)


def all_variants(test_method=_NO_DEFAULT, with_jit: bool = True, without_jit: bool = True,
                 with_device: bool = True, without_device: bool = True, with_pmap: bool = True):
    """``variants`` with every variant on by default: ``@all_variants`` or
    ``@all_variants(with_pmap=False)``. The ``with_pmap`` one is skipped on one device."""
    return variants(test_method, with_jit=with_jit, without_jit=without_jit,
                    with_device=with_device, without_device=without_device, with_pmap=with_pmap)


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

    def __init__(self, *args, **kwargs):  # Chex's signature
        super().__init__(*args, **kwargs)

    def variant(self, *args, **kwargs):
        """Replaced by the running variant's wrapper inside a ``@variants`` test."""
        raise RuntimeError("self.variant is not defined: forgot to wrap a test in @variants?")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for attr, method in list(vars(cls).items()):
            chosen = getattr(method, "_numlir_variants", None)
            if not chosen:
                continue
            delattr(cls, attr)
            for name in chosen:
                setattr(cls, f"{attr}_{name}", _variant_method(method, name))
