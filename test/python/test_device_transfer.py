"""numlir.device_put / device_get / block_until_ready over pytrees, as jax's."""

import jax
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp


def test_device_get_returns_numpy_leaves_like_jax():
    tree = {"a": jnp.arange(3.0), "b": (jnp.ones((2, 2), jnp.int32), 7, "label")}
    got = numlir.device_get(tree)
    want = jax.device_get({"a": jax.numpy.arange(3.0), "b": (jax.numpy.ones((2, 2), "int32"), 7, "label")})
    assert type(got["a"]) is np.ndarray and got["b"][1:] == (7, "label")
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        np.testing.assert_array_equal(g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype


def test_device_put_makes_arrays_with_jax_dtypes():
    put = numlir.device_put({"x": np.ones(3, np.float64), "s": 2.0, "i": 3})
    assert isinstance(put["x"], numlir.Array) and put["x"].dtype == np.float32  # x64 off
    assert put["s"].dtype == np.float32 and put["i"].dtype == np.int32
    assert numlir.block_until_ready(put) is put


def test_device_get_of_a_traced_value_says_why_it_fails():
    with pytest.raises(numlir.ConcretizationTypeError, match="device_get got a traced value f32"):
        numlir.jit(lambda x: numlir.device_get(x))(np.ones(2, np.float32))
