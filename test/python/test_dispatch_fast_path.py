"""The per-call path of a jitted function: its fast path gives what the general path gives.

A call with positional arrays only skips tree flattening (its argument
structure is one shared object), the abstract values and argument
structures keep their hashes, and an Array's buffer is handed to the runtime
as it is. bench/dispatch_overhead.py measures the time; these tests pin the
behaviour: the same cache entries, the same results, the same errors.
"""

import pickle

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir._src import core
from numlir._src import tree_util as tu


def test_positional_arrays_ndarrays_and_keywords_share_one_cache_entry():
    f = numlir.jit(lambda a, b: a * b + 1.0)
    x = np.arange(4, dtype=np.float32)
    want = x * x + 1.0
    for args, kwargs in [((jnp.asarray(x), jnp.asarray(x)), {}), ((x, x), {}),
                         ((jnp.asarray(x),), {"b": x})]:
        np.testing.assert_array_equal(np.asarray(f(*args, **kwargs)), want)
    # positional calls (fast path) share an entry; the keyword call is another structure
    assert f.cache_misses == 2


def test_python_scalars_and_static_arguments_take_the_general_path():
    f = numlir.jit(lambda a, n: a * n, static_argnums=1)
    assert float(f(2.0, 3)) == 6.0 and float(f(2.0, 4)) == 8.0
    assert f.cache_misses == 2
    g = numlir.jit(lambda a, b: a + b)
    assert g(1.0, 2).dtype == np.float32 and g(1, 2).dtype == np.int32


def test_a_jitted_call_under_grad_and_vmap_sees_tracers():
    f = numlir.jit(lambda a: jnp.sum(jnp.sin(a)))
    x = np.linspace(0, 1, 5, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(numlir.grad(f)(x)), np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(numlir.vmap(f)(x[:, None])), np.sin(x), rtol=1e-6)


def test_wrong_argument_types_still_name_the_argument():
    f = numlir.jit(lambda a: a)
    with pytest.raises(TypeError, match="argument 'a' of type object"):
        f(object())


def test_inputs_are_not_written_and_outputs_are_fresh():
    f = numlir.jit(lambda a: a + 1.0)
    x = jnp.asarray(np.zeros(3, np.float32))
    y = f(x)
    z = f(x)
    np.testing.assert_array_equal(np.asarray(x), 0.0)
    assert np.asarray(y) is not np.asarray(z)
    np.testing.assert_array_equal(np.asarray(y), 1.0)


def test_kept_hashes_never_travel_with_pickles():
    aval = core.ShapedArray((2, 3), np.float32)
    tree = tu.tree_structure((1, {"a": 2}))
    for value in (aval, tree):
        hash(value)
        copy = pickle.loads(pickle.dumps(value))
        assert copy == value and copy._hash is None and hash(copy) == hash(value)
