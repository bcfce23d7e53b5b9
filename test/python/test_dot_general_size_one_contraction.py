"""A contraction over dimensions of size 1 (or none) is the operands' product, as in XLA.

The fuzzer found `arctan2(v @ w, w)` at pi where jax gives -pi (fuzz seed 141, program
1414): under vmap, `v @ w` contracted one dimension of size 1, numlir summed the single
product 0 * -1.14 onto +0 and got +0, and XLA, which rewrites such a dot as a multiply,
gave -0. numlir now lowers these contractions (and outer products, which contract
nothing) as a broadcast product, so each output is the product itself, signed zeros,
infinities and NaNs included. Each case is compared with jax.jit bit for bit.
"""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

# Normal numbers only: XLA's CPU code flushes subnormals to zero, numlir keeps them
# (docs/complex-numbers.md).
SPECIAL = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e-30, -3e38])

# (lhs shape, rhs shape, ((lhs contracting, rhs contracting), (lhs batch, rhs batch)))
CASES = [
    ((5, 1), (1, 4), (((1,), (0,)), ((), ()))),  # matmul over k = 1
    ((3, 1, 2, 1), (1,), (((3,), (0,)), ((), ()))),  # the fuzz program's shape
    ((2, 1, 3), (3, 1, 2), (((1,), (1,)), ((2,), (0,)))),  # batch dims not leading
    ((4, 2), (3, 2), (((), ()), ((1,), (1,)))),  # batch only
    ((4,), (3,), (((), ()), ((), ()))),  # outer product
    ((1, 2, 1, 3), (3, 1, 1, 5), (((0, 2), (1, 2)), ((3,), (0,)))),  # two size-1 dims
]


def _operand(shape, dtype, rng):
    values = rng.choice(SPECIAL, size=shape)
    if np.issubdtype(dtype, np.complexfloating):
        return (values + 1j * rng.choice(SPECIAL, size=shape)).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-3, 4, size=shape).astype(dtype)
    return values.astype(dtype)


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind in "fc":
        for part in ((np.real, np.imag) if want.dtype.kind == "c" else (np.real,)):
            g, w = part(got), part(want)
            np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
            ok = ~np.isnan(w)
            np.testing.assert_array_equal(g[ok], w[ok])
            np.testing.assert_array_equal(np.signbit(g[ok]), np.signbit(w[ok]))
    else:
        np.testing.assert_array_equal(got, want)


# Complex contractions keep the dot's own arithmetic: a complex product with an infinite
# part follows C99's recovery rules in hlo.multiply, and XLA's dot does not.
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("lhs_shape,rhs_shape,dims", CASES)
def test_a_contraction_over_size_one_dims_keeps_each_products_sign_of_zero_as_jax(
        lhs_shape, rhs_shape, dims, dtype):
    rng = np.random.default_rng(1414)
    x, y = _operand(lhs_shape, dtype, rng), _operand(rhs_shape, dtype, rng)
    want = jax.jit(lambda a, b: jax.lax.dot_general(a, b, dims))(x, y)
    got = numlir.jit(lambda a, b: lax.dot_general(a, b, dims))(x, y)
    _same_bits(got, want)


def test_arctan2_of_a_size_one_matmul_of_zeros_is_minus_pi_as_jax():
    v = np.array([[[[1.0], [0.0]]], [[[0.0], [0.0]]]], np.float32)
    w = np.array([[-1.1417945], [0.7137171]], np.float32)
    f = lambda lib: lambda v, w: lib.arctan2(v @ w, w)  # noqa: E731
    want = jax.jit(jax.vmap(f(jjnp), in_axes=(None, 0)))(v, w)
    got = numlir.jit(numlir.vmap(f(jnp), in_axes=(None, 0)))(v, w)
    _same_bits(got, want)
    assert (np.asarray(got) == np.float32(-np.pi)).any()


def test_gradients_of_a_size_one_contraction_match_jax_in_float64(x64):
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(3, 1, 2)), rng.normal(size=(2, 1, 4))
    dims = (((1,), (1,)), ((2,), (0,)))
    loss = lambda lax_: lambda a, b: (lax_.dot_general(a, b, dims) ** 2).sum()  # noqa: E731
    want = jax.grad(loss(jax.lax), argnums=(0, 1))(x, y)
    got = numlir.grad(loss(lax), argnums=(0, 1))(x, y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)
    # and against central differences
    eps = 1e-6
    base = np.asarray(x).copy()
    num = np.zeros_like(base)
    f = loss(lax)
    for i in np.ndindex(base.shape):
        up, down = base.copy(), base.copy()
        up[i] += eps
        down[i] -= eps
        num[i] = (float(f(up, y)) - float(f(down, y))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(got[0]), num, rtol=1e-6, atol=1e-8)
