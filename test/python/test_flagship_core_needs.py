"""What the flagship programs need from the core (issue 11, item 6), as in JAX."""

import functools

import numpy as np

import numlir
import numlir.numpy as jnp


class Scaler:
    def __init__(self, k):
        self.k = k

    def __hash__(self):
        return hash(self.k)

    def __eq__(self, other):
        return isinstance(other, Scaler) and other.k == self.k

    @functools.partial(numlir.jit, static_argnums=0)
    def apply(self, x):
        return x * self.k


def test_jit_with_static_self_on_methods():
    x = jnp.ones(3)
    np.testing.assert_array_equal(np.asarray(Scaler(2.0).apply(x)), 2.0)
    np.testing.assert_array_equal(np.asarray(Scaler(3.0).apply(x)), 3.0)  # a new static self
    np.testing.assert_array_equal(np.asarray(Scaler(2.0).apply(x)), 2.0)  # equal self: cached
    assert Scaler.apply.cache_misses == 2


def test_print_inside_jit_shows_abstract_shapes(capsys):
    @numlir.jit
    def f(x):
        print(x)
        return x + 1

    f(np.ones((2, 3), np.float32))
    assert "f32[2,3]" in capsys.readouterr().out


def test_split_of_a_traced_array():
    @numlir.jit
    def f(x):
        a, b, c = jnp.split(x, 3)
        left, right = jnp.split(x, [2])
        return a + b + c, left.sum() + right.sum()

    parts, total = f(jnp.arange(6.0))
    np.testing.assert_array_equal(np.asarray(parts), [6.0, 9.0])
    assert float(total) == 15.0


def test_device_get_of_jitted_outputs():
    out = numlir.device_get(numlir.jit(lambda x: {"y": x * 2})(np.ones(2, np.float32)))
    assert isinstance(out["y"], np.ndarray) and out["y"].tolist() == [2.0, 2.0]
