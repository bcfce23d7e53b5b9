"""Wrong answers and crashes that lived in compositions of ops, pinned against jax.

Each test is named for the behaviour that broke; the lit tests next to the
fixed passes (test/Backends/CPU/cpu-vectorize-contractions.mlir,
test/Conversion/HLOToLinalg/cumulative-unit-dims.mlir) pin the IR.
"""

import itertools

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

RNG = np.random.default_rng(8)


def _inputs(*shapes):
    return [RNG.standard_normal(shape).astype(np.float32) for shape in shapes]


# Contraction operands behind a reshape that adds or removes unit
# dimensions: the CPU contraction vectorizer folded their vector reads
# through the reshape view and read a unit dimension out of bounds.
RESHAPED_CONTRACTION_OPERANDS = {
    "integer_index_both_operands": (lambda np_, x, y: x[0, 0] @ y[0, 0], [(2, 3, 4, 5), (2, 3, 5, 2)]),
    "leading_index_both_operands": (lambda np_, x, y: x[0] @ y[0], [(3, 3, 4), (3, 4, 2)]),
    "einsum_of_reshaped_operand": (
        lambda np_, a, b: np_.einsum("cad,cbd->ab", b.reshape(4, 3, 2), a), [(4, 7, 2), (4, 6)]),
    "keepdims_reduction_operand": (
        lambda np_, a, b: np_.max(a, axis=3, keepdims=True) @ b, [(2, 7, 7, 1), (2, 7, 1, 3)]),
    "nested_matmul_of_indexed_operand": (
        lambda np_, a, b, c: a @ (b @ c[..., 0]), [(2, 3, 6), (2, 6, 1), (2, 1, 1, 5)]),
    "expand_dims_operand": (
        lambda np_, a, b: np_.expand_dims(a, (0, 2)) @ b, [(3, 4), (1, 1, 4, 5)]),
    "squeezed_operands": (lambda np_, a, b: np_.squeeze(a) @ np_.squeeze(b), [(1, 4, 1, 3), (3, 1, 2)]),
}


@pytest.mark.parametrize("name", sorted(RESHAPED_CONTRACTION_OPERANDS))
def test_jit_contraction_of_reshaped_operand_matches_jax(name):
    fn, shapes = RESHAPED_CONTRACTION_OPERANDS[name]
    args = _inputs(*shapes)
    expected = jax.jit(lambda *a: fn(jjnp, *a))(*args)
    got = numlir.jit(lambda *a: fn(jnp, *a))(*args)
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-5, atol=1e-5)


def test_jacrev_of_matvec_with_constant_vector_matches_jax():
    m = _inputs((2, 3))[0]
    got = numlir.jacrev(lambda m: jnp.tanh(m @ jnp.arange(1.0, 4.0)))(m)
    expected = jax.jit(jax.jacrev(lambda m: jjnp.tanh(m @ jjnp.arange(1.0, 4.0))))(m)
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shapes", [((4, 5, 5), (1, 5, 5)), ((2, 3, 4), (1, 4, 6)), ((6, 2, 3), (1, 3, 2))])
@pytest.mark.parametrize("argnums", [0, 1])
@pytest.mark.parametrize("under_jit", [False, True], ids=["eager", "jit"])
def test_grad_of_matmul_with_broadcast_batch_dimension_matches_jax(shapes, argnums, under_jit):
    a, b = _inputs(*shapes)

    def loss(np_):
        return lambda a, b: np_.sum(np_.sin(a @ b))

    grad = numlir.grad(loss(jnp), argnums=argnums)
    if under_jit:
        grad = numlir.jit(grad)
    expected = jax.jit(jax.grad(loss(jjnp), argnums=argnums))(a, b)
    np.testing.assert_allclose(np.asarray(grad(a, b)), np.asarray(expected), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [s for r in (1, 2, 3) for s in itertools.product((1, 2, 3), repeat=r)])
def test_cumsum_along_every_axis_including_length_two(shape):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    for axis in range(len(shape)):
        for reverse in (False, True):
            got = numlir.lax.cumsum(jnp.asarray(x), axis=axis, reverse=reverse)
            expected = jax.lax.cumsum(x, axis=axis, reverse=reverse)
            np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "cummax", "cummin"])
@pytest.mark.parametrize("shape,axis", [((3,), 0), ((2,), 0), ((1, 3, 2), 2), ((2, 2), 1), ((4, 1, 2), 0)])
def test_cumulative_of_a_constant_compiles_and_matches_jax(op, shape, axis):
    x = (np.arange(np.prod(shape)) % 3 + 1).reshape(shape).astype(np.float32)
    got = numlir.jit(lambda: getattr(numlir.lax, op)(jnp.asarray(x), axis=axis))()
    expected = getattr(jax.lax, op)(x, axis=axis)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_a_strided_numpy_constant_in_a_lax_op_under_jit(dtype):
    # A view such as arr[::2] or complex_array.real became a constant whose bytes were read
    # as one buffer: lowering raised "the last axis must be contiguous".
    base = (np.arange(40) * (1 + 1j if dtype == np.complex64 else 1)).astype(dtype)
    strided = base[::2]
    got = numlir.jit(lambda x: numlir.lax.mul(x, strided))(np.ones(20, dtype))
    np.testing.assert_array_equal(np.asarray(got), strided)
    parts = (np.arange(20) + 1j).astype(np.complex64).real  # every other float of the buffer
    got = numlir.jit(lambda x: numlir.lax.add(x, parts))(np.zeros(20, np.float32))
    np.testing.assert_array_equal(np.asarray(got), parts)
