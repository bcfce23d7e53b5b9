"""A jitted call leaves no reference cycle behind: its outputs die with their last reference.

tree_flatten/tree_unflatten used recursive closures; a closure that calls
itself is a cycle, and it held every leaf (a call's inputs and outputs) until
the cyclic garbage collector ran, so a loop `y = f(x)` kept several large
outputs alive and took page faults for fresh ones on every call.
"""

import gc

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import _runtime, tree_util


@pytest.fixture
def no_cycle_collector():
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def test_tree_functions_create_no_cycles(no_cycle_collector):
    tree = {"a": [np.ones(3), (np.zeros(2), None)], "b": {"c": np.arange(4)}}
    leaves, treedef = tree_util.tree_flatten(tree)
    rebuilt = tree_util.tree_unflatten(treedef, leaves)
    tree_util.tree_flatten_with_path(rebuilt)
    tree_util.tree_map(lambda x, y: x, tree, rebuilt)
    del leaves, treedef, rebuilt
    assert gc.collect() == 0


def test_jit_outputs_are_freed_without_the_cycle_collector(no_cycle_collector):
    f = numlir.jit(lambda x: jnp.tanh(x) * 2.0 + x)
    x = np.linspace(-1, 1, 1 << 18, dtype=np.float32)  # a 1 MiB output
    y = f(x)
    np.testing.assert_allclose(np.asarray(y), np.tanh(x) * 2 + x, rtol=1e-6, atol=1e-6)
    before = _runtime.cached_memory_bytes()
    del y
    # The output's block went back to the runtime at once.
    assert _runtime.cached_memory_bytes() - before >= x.nbytes
