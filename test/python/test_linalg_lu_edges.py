"""lu, solve, det and their derivatives at the edges, against JAX: singular matrices,
infinite right-hand sides, batch shapes, real and complex dtypes, and float64 gradients
against finite differences. The permutation reaches the tangents and the determinant's
cofactor solve as a gather of rows (lu.permute_rows), as in jax; these pin that a gather
gives jax's values where a product with the permutation matrix would not (0 * inf)."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest
from ad_testing import check_grads
from jax_comparison import random_array

import numlir
import numlir.lax.linalg as nl_lax_linalg
import numlir.numpy as jnp

F32, F64, C64, C128 = np.float32, np.float64, np.complex64, np.complex128
TOL = {F32: 2e-4, F64: 1e-10, C64: 2e-4, C128: 1e-10}


@pytest.fixture(params=[F32, F64, C64, C128], ids=["f32", "f64", "c64", "c128"])
def dtype(request):
    if request.param in (F64, C128):
        request.getfixturevalue("x64")
    return request.param


rand = random_array


def assert_like_jax(got, want, dtype):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    scale = max(1.0, float(np.max(np.abs(want[finite]), initial=0.0)))
    np.testing.assert_allclose(got[finite], want[finite], atol=TOL[dtype] * scale, rtol=0)


@pytest.mark.parametrize("batch", [(), (3,), (2, 3)], ids=["one", "batch", "batch2"])
def test_solve_and_its_jvp_match_jax_over_batches(dtype, batch):
    a, b = rand(batch + (5, 5), dtype, 1), rand(batch + (5, 2), dtype, 2)
    da, db = rand(a.shape, dtype, 3), rand(b.shape, dtype, 4)
    got = numlir.jit(lambda *p: numlir.jvp(jnp.linalg.solve, p[:2], p[2:]))(a, b, da, db)
    want = jax.jit(lambda *p: jax.jvp(jnp_ref.linalg.solve, p[:2], p[2:]))(a, b, da, db)
    for g, w in zip(got, want):
        assert_like_jax(g, w, dtype)


def test_lu_jvp_matches_jax(dtype):
    a, da = rand((2, 4, 4), dtype, 5), rand((2, 4, 4), dtype, 6)
    got = numlir.jvp(lambda m: nl_lax_linalg.lu(m)[0], (a,), (da,))
    want = jax.jvp(lambda m: jax.lax.linalg.lu(m)[0], (a,), (da,))
    for g, w in zip(got, want):
        assert_like_jax(g, w, dtype)


def test_lu_jvp_keeps_an_infinite_tangent_in_its_row(x64):
    # jax gathers the tangent's rows: the inf stays where the permutation puts it, and a
    # product with the permutation matrix would have made every row NaN (0 * inf).
    a = rand((4, 4), F64, 7)
    da = np.zeros_like(a)
    da[2, 1] = np.inf
    got = numlir.jvp(lambda m: nl_lax_linalg.lu(m)[0], (a,), (da,))[1]
    want = jax.jvp(lambda m: jax.lax.linalg.lu(m)[0], (a,), (da,))[1]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert not np.all(np.isnan(got))


def test_solve_with_an_infinite_right_hand_side_matches_jax(dtype):
    a, b = rand((4, 4), dtype, 8), rand((4, 3), dtype, 9)
    b[1, 0] = np.inf
    assert_like_jax(numlir.jit(jnp.linalg.solve)(a, b), jnp_ref.linalg.solve(a, b), dtype)


@pytest.mark.parametrize("rank", [0, 2, 3])
def test_singular_matrices_match_jax(dtype, rank):
    # rank 3 of 4 is det's cofactor case (finite derivative), lower ranks give 0 there
    u, v = rand((4, rank), dtype, 10), rand((rank, 4), dtype, 11)
    a = (u @ v).astype(dtype)
    b = rand((4, 2), dtype, 12)
    assert_like_jax(numlir.jit(jnp.linalg.det)(a), jnp_ref.linalg.det(a), dtype)
    da = rand(a.shape, dtype, 13)
    got = numlir.jvp(jnp.linalg.det, (a,), (da,))[1]
    want = jax.jvp(jnp_ref.linalg.det, (a,), (da,))[1]
    np.testing.assert_allclose(got, want, atol=TOL[dtype] * 30, rtol=TOL[dtype] * 30)
    if rank == 0:  # exact zero pivots: no finite entry, as jax (whose BLAS leaves the last
        # row inf where OpenBLAS's trsm and the portable program give NaN + 0 * inf = NaN)
        got, want = numlir.jit(jnp.linalg.solve)(a, b), jnp_ref.linalg.solve(a, b)
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))


def test_float64_gradients_match_finite_differences(x64):
    a = rand((2, 4, 4), F64, 14) + 4 * np.eye(4)
    b = rand((2, 4, 3), F64, 15)
    check_grads(lambda m, r: jnp.linalg.solve(m, r), (a, b), order=1)
    check_grads(jnp.linalg.det, (a,), order=2)
    check_grads(lambda m: nl_lax_linalg.lu(m)[0], (a,), order=1)
    check_grads(jnp.linalg.inv, (a,), order=1)
