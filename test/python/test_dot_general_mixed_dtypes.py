"""lax.dot_general accepts operands of different dtypes and promotes them as jax does.

The fuzzer found `lax.dot_general(f64, f32)` raising "requires arguments to have the
same dtypes" where jax returns an f64 result (fuzz seed 2, program 629). jax follows
XLA's HigherPrecisionType: floats above integers, then exponent range, mantissa, bit
width, and signed above unsigned; with `preferred_element_type` each operand converts
straight to it. Each case is compared with jax, eager and jitted, values and gradients.
"""

import jax
import numpy as np
import pytest

import numlir
from numlir import lax

RNG = np.random.default_rng(629)
MATMUL = (((1,), (0,)), ((), ()))
BF16 = jax.numpy.bfloat16

PAIRS = [
    (np.float64, np.float32),
    (np.float32, np.float64),
    (BF16, np.float32),
    (np.float16, BF16),
    (np.int32, np.float32),
    (np.int8, np.int32),
    (np.bool_, np.float32),
    (np.int32, np.uint32),  # equal width: signed wins
    (np.uint8, np.int16),
]


def _operand(shape, dtype):
    if dtype is np.bool_:
        return RNG.normal(size=shape) > 0
    return (RNG.normal(size=shape) * 3).astype(dtype)


def _check(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("preferred", [None, np.float32], ids=["no_preferred", "preferred_f32"])
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("lhs_dtype,rhs_dtype", PAIRS,
                         ids=[f"{np.dtype(a).name}x{np.dtype(b).name}" for a, b in PAIRS])
def test_dot_general_mixed_dtypes_promote_like_jax(x64, lhs_dtype, rhs_dtype, jit, preferred):
    x, y = _operand((2, 3), lhs_dtype), _operand((3, 4), rhs_dtype)
    want = jax.lax.dot_general(x, y, MATMUL, preferred_element_type=preferred)
    f = lambda a, b: lax.dot_general(a, b, MATMUL, preferred_element_type=preferred)  # noqa: E731
    _check((numlir.jit(f) if jit else f)(x, y), want)


def test_dot_general_mixed_dtypes_with_batch_and_permuted_contraction(x64):
    # The fuzzer's program: f64 lhs, f32 rhs, four contracting dimensions out of order.
    x, y = _operand((2, 4, 3, 5), np.float64), _operand((2, 5, 4, 3, 1, 2), np.float32)
    dn = (((3, 0, 2, 1), (1, 0, 3, 2)), ((), ()))
    want = jax.lax.dot_general(x, y, dn)
    for f in (lambda a, b: lax.dot_general(a, b, dn), numlir.jit(lambda a, b: lax.dot_general(a, b, dn))):
        _check(f(x, y), want)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_dot_general_mixed_dtypes_gradients_keep_each_operand_dtype(x64, jit):
    x, y = _operand((2, 3), np.float64), _operand((3, 4), np.float32)

    def loss(lib):
        return lambda a, b: (lib.dot_general(a, b, MATMUL) ** 2).sum()

    grad = numlir.grad(loss(lax), argnums=(0, 1))
    got = (numlir.jit(grad) if jit else grad)(x, y)
    want = jax.grad(loss(jax.lax), argnums=(0, 1))(x, y)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5)


def test_dot_general_mixed_dtypes_under_vmap(x64):
    x, y = _operand((5, 2, 3), np.int32), _operand((3, 4), np.float32)
    f = lambda lib: lambda a: lib.dot_general(a, y, MATMUL)  # noqa: E731
    _check(numlir.vmap(f(lax))(x), jax.vmap(f(jax.lax))(x))


def test_convolution_still_requires_equal_dtypes():
    # jax rejects mixed-dtype convolutions too; the message names the lax function.
    lhs, rhs = np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 2, 2), np.int32)
    with pytest.raises(TypeError, match=r"lax.conv_general_dilated requires arguments to have "
                                        r"the same dtypes, got float32, int32\.") as info:
        lax.conv_general_dilated(lhs, rhs, (1, 1), "VALID")
    assert "Tip" not in str(info.value)  # no numlir.numpy function promotes for it
