"""Short float sums and products are combined pairwise (`cpu-tree-short-reductions`).

A reduction of at most 16 elements per output is computed as a balanced tree,
positions 0+1, 2+3, ..., then the pairs' sums, so its rounding error grows
with log2 of its length. These tests pin the order bit for bit against the
same tree computed in NumPy, and its consequences: the mean of 2, 4, 8 or 16
equal floats is exact, so their std is exactly 0 and its gradient NaN, as in
jax (whose jit rewrites mean(broadcast(x)) to x).
"""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

RNG = np.random.default_rng(7)


def _tree(values, combine):
    values = list(values)
    while len(values) > 1:
        pairs = [combine(values[i], values[i + 1]) for i in range(0, len(values) - 1, 2)]
        values = pairs + ([values[-1]] if len(values) % 2 else [])
    return values[0]


def _wide_range(shape, dtype):
    # Magnitudes over several decades, so that each order rounds differently.
    return (RNG.standard_normal(shape) * np.exp(2 * RNG.standard_normal(shape))).astype(dtype)


def _run(fn, compile, *args):
    return np.asarray((numlir.jit(fn) if compile else fn)(*[jnp.asarray(a) for a in args]))


@pytest.fixture(params=[np.float32, np.float64], ids=["float32", "float64"])
def dtype(request):
    if request.param == np.float64:
        request.getfixturevalue("x64")
    return request.param


COMPILE = pytest.mark.parametrize("compile", [False, True], ids=["eager", "jit"])


@pytest.mark.parametrize("n", [2, 3, 5, 7, 8, 13, 16])
@COMPILE
def test_short_sums_add_pairwise_in_tree_order(n, dtype, compile):
    x = _wide_range((64, n), dtype)
    got = _run(lambda a: jnp.sum(a, axis=1), compile, x)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, _tree([x[:, k] for k in range(n)], np.add))


@COMPILE
def test_a_leading_axis_and_two_axes_reduce_in_row_major_tree_order(dtype, compile):
    x = _wide_range((5, 33), dtype)
    np.testing.assert_array_equal(_run(lambda a: jnp.sum(a, axis=0), compile, x),
                                  _tree(list(x), np.add))
    y = _wide_range((2, 9, 3), dtype)
    got = _run(lambda a: jnp.sum(a, axis=(0, 2)), compile, y)
    np.testing.assert_array_equal(got, _tree([y[i, :, k] for i in range(2) for k in range(3)], np.add))


@COMPILE
def test_short_products_multiply_pairwise(dtype, compile):
    x = (1 + 0.3 * RNG.standard_normal((40, 6))).astype(dtype)
    got = _run(lambda a: jnp.prod(a, axis=1), compile, x)
    np.testing.assert_array_equal(got, _tree([x[:, k] for k in range(6)], np.multiply))


@COMPILE
def test_a_fused_producer_is_computed_once_per_position(compile):
    x, y = _wide_range((32, 7), np.float32), _wide_range((32, 7), np.float32)
    got = _run(lambda a, b: jnp.sum(jnp.tanh(a) * b, axis=1), compile, x, y)
    terms = np.tanh(x) * y
    np.testing.assert_allclose(got, _tree([terms[:, k] for k in range(7)], np.add), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, np.asarray(jax.jit(lambda a, b: jjnp.sum(jjnp.tanh(a) * b, axis=1))(x, y)),
                               rtol=1e-5, atol=1e-5)


@COMPILE
def test_integer_and_long_sums_are_unchanged(compile):
    n = RNG.integers(-1000, 1000, size=(16, 5)).astype(np.int32)
    np.testing.assert_array_equal(_run(lambda a: jnp.sum(a, axis=1), compile, n), n.sum(axis=1))
    x = _wide_range((8, 1000), np.float32)
    np.testing.assert_allclose(_run(lambda a: jnp.sum(a, axis=1), compile, x),
                               x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("n", [2, 4, 8, 16])
@COMPILE
def test_std_of_identical_values_is_exactly_0_and_its_gradient_matches_jax(n, compile):
    # Campaign finding F8. A serial sum of 8 copies of 1.96144 rounds 6 times
    # and the mean is 1 ulp off, so the std was 1.2e-7 and its gradient
    # finite; jax.jit's is NaN (the derivative of sqrt at 0).
    v = np.array([1.96144438, -0.87788409, 0.1, 3.0e-3], np.float32)
    weights = np.arange(1.0, 5.0, dtype=np.float32)

    def std(lib):
        return lambda a: lib.std(lib.broadcast_to(a[:, None], (4, n)), axis=1)

    def loss(lib):
        return lambda a: lib.sum(std(lib)(a) * weights)

    np.testing.assert_array_equal(_run(std(jnp), compile, v), np.zeros(4, np.float32))
    x = np.repeat(v[:, None], n, axis=1)
    np.testing.assert_array_equal(_run(lambda a: jnp.mean(a, axis=1), compile, x), v)
    got = _run(numlir.grad(loss(jnp)), compile, v)
    want = np.asarray(jax.jit(jax.grad(loss(jjnp)))(v))
    assert np.isnan(want).all()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
