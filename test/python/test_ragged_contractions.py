"""Contractions whose output's contiguous dimension does not divide the register tile.

The CPU's register tiles are rows x two vector registers (32 f32 lanes with AVX-512, 16
with AVX2). A remainder tile whose lane count is not a power of two (27 of a 251-wide
output) runs on the next power of two: its loads and stores are masked and its FMAs use
whole registers (cpu-vectorize-contractions, "paddedVectorSizes"). These tests check the
values at every ragged width against NumPy in float64, that the padded lanes never reach
memory next to the tile (an output written in place inside a larger buffer, with
infinities and NaN beside it), and edge values in the ragged columns.
"""

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

# Every remainder a 32- or 16-lane tile can leave, and widths past one tile.
WIDTHS = [1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 27, 31, 33, 45, 59, 63, 65, 251]


def _reference(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", WIDTHS)
def test_ragged_output_widths_match_numpy(n, dtype, request):
    if dtype == np.float64:
        request.getfixturevalue("x64")
    rng = np.random.default_rng(n)
    for m, k in [(1, 1), (11, 7), (13, 33)]:
        a = rng.normal(size=(m, k)).astype(dtype)
        b = rng.normal(size=(k, n)).astype(dtype)
        got = np.asarray(numlir.jit(lambda x, y: x @ y)(a, b))
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, _reference(a, b), rtol=tol, atol=tol * k)


@pytest.mark.parametrize("n", [3, 11, 27, 45])
def test_padded_lanes_leave_the_neighbours_of_an_output_in_place_alone(n):
    # The product is written into its slice of the concatenation, whose other columns
    # hold infinities and NaN: a store of the padded lanes would overwrite them.
    rng = np.random.default_rng(0)
    a = rng.normal(size=(13, 5)).astype(np.float32)
    b = rng.normal(size=(5, n)).astype(np.float32)
    side = np.tile(np.array([np.inf, -np.inf, np.nan, -0.0], np.float32), (13, 8))

    got = np.asarray(numlir.jit(lambda x, y, s: jnp.concatenate([x @ y, s, x @ y], axis=1))(
        a, b, side))

    product = _reference(a, b)
    np.testing.assert_allclose(got[:, :n], product, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[:, n:n + 32], side)
    assert np.array_equal(np.signbit(got[:, n:n + 32]), np.signbit(side))
    np.testing.assert_allclose(got[:, n + 32:], product, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [5, 27])
def test_edge_values_in_ragged_columns_follow_ieee(n):
    # inf * 0 in a real column is NaN, an infinity stays one, NaN spreads along its row
    # only; the padded lanes (which compute on padding) stay out of sight.
    a = np.array([[np.inf, 1.0], [-0.0, 1.0], [1.0, np.nan], [2.0, -3.0]], np.float32)
    b = np.zeros((2, n), np.float32)
    b[0, :] = np.linspace(-2, 2, n)
    b[1, :] = -0.0
    got = np.asarray(numlir.jit(lambda x, y: x @ y)(a, b))
    with np.errstate(invalid="ignore"):
        want = a @ b
    np.testing.assert_array_equal(got, want)


def test_a_ragged_gradient_matches_numpy_in_float64(x64):
    rng = np.random.default_rng(1)
    w = rng.normal(size=(7, 27))
    x = rng.normal(size=(11, 7))

    def loss(w):
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    got = np.asarray(numlir.jit(numlir.grad(loss))(w))
    h = np.tanh(x @ w)
    want = x.T @ (2 * h * (1 - h ** 2))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
