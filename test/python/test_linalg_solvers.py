"""jnp.linalg's solvers and helpers, and numlir.scipy.linalg, against JAX, NumPy and SciPy.

Each case runs under jit in float32 and float64, and eagerly in float64, and must match
jax (shape, dtype, value) and the float64 NumPy/SciPy result.
"""

import jax
import jax.numpy as jnp_ref
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg as sl

import numlir
import numlir.numpy as jnp
import numlir.scipy.linalg as nsl
from jax_comparison import assert_same

F32, F64 = np.float32, np.float64


def rand(shape, seed=0, dtype=F32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


A = rand((4, 4)) + 3 * np.eye(4, dtype=F32)
A_BATCH = rand((2, 3, 3), 1) + 3 * np.eye(3, dtype=F32)
B = rand((4, 2), 2)
V = rand(4, 3)
TALL = rand((6, 4), 4)
SPD = (A @ A.T + np.eye(4)).astype(F32)
UPPER = np.triu(A)
LOWER = np.tril(A)

CASES = {  # name: (function of the library, arguments)
    "solve_matrix": (lambda m: m.linalg.solve, (A, B)),
    "solve_vector": (lambda m: m.linalg.solve, (A, V)),
    "solve_batched": (lambda m: m.linalg.solve, (A_BATCH, rand((2, 3, 2), 5))),
    "inv": (lambda m: m.linalg.inv, (A_BATCH,)),
    "det": (lambda m: m.linalg.det, (A_BATCH,)),
    "slogdet": (lambda m: lambda x: tuple(m.linalg.slogdet(x)), (A,)),
    "pinv": (lambda m: m.linalg.pinv, (TALL,)),
    # One rtol per matrix of a batch (the standard's shape), and matrices with no rows or
    # no columns (no singular values: the pseudo-inverse is all zeros).
    "pinv_rtol_per_matrix": (lambda m: lambda x: m.linalg.pinv(
        x, rtol=m.asarray([1e-2, 0.5, 1e-6], x.dtype)), (rand((3, 5, 2), 14),)),
    "pinv_no_columns": (lambda m: m.linalg.pinv, (np.zeros((2, 3, 0), F32),)),
    "pinv_empty_batch_of_empty": (lambda m: m.linalg.pinv, (np.zeros((0, 1, 0), F32),)),
    "matrix_rank": (lambda m: m.linalg.matrix_rank, (TALL @ rand((4, 4), 6)[:, :2] @ rand((2, 4), 7),)),
    "lstsq": (lambda m: lambda a, b: m.linalg.lstsq(a, b)[:2], (TALL, rand(6, 8))),
    "matrix_power_3": (lambda m: lambda x: m.linalg.matrix_power(x, 3), (A,)),
    "matrix_power_-2": (lambda m: lambda x: m.linalg.matrix_power(x, -2), (A,)),
    "matrix_power_0": (lambda m: lambda x: m.linalg.matrix_power(x, 0), (A_BATCH,)),
    "multi_dot": (lambda m: lambda a, b, c: m.linalg.multi_dot([a, b, c]),
                  (rand(6, 9), TALL, rand((4, 3), 10))),
    "cond_2": (lambda m: m.linalg.cond, (A,)),
    "cond_fro": (lambda m: lambda x: m.linalg.cond(x, "fro"), (A,)),
    "cond_1": (lambda m: lambda x: m.linalg.cond(x, 1), (A,)),
    "cond_nuc": (lambda m: lambda x: m.linalg.cond(x, "nuc"), (A,)),
    "cond_-inf": (lambda m: lambda x: m.linalg.cond(x, -np.inf), (A,)),
    "tensorinv": (lambda m: lambda x: m.linalg.tensorinv(x, ind=1), (rand((6, 2, 3), 11),)),
    "tensorsolve": (lambda m: m.linalg.tensorsolve, (rand((2, 3, 6), 12), rand((2, 3), 13))),
    "trace": (lambda m: m.linalg.trace, (A_BATCH,)),
    "diagonal": (lambda m: lambda x: m.linalg.diagonal(x, offset=1), (A_BATCH,)),
    "vector_norm": (lambda m: lambda x: m.linalg.vector_norm(x, axis=-1, ord=3), (A_BATCH,)),
    "vector_norm_all": (lambda m: m.linalg.vector_norm, (A_BATCH,)),
    "matrix_norm": (lambda m: lambda x: m.linalg.matrix_norm(x, ord="nuc"), (A_BATCH,)),
    "matmul": (lambda m: m.linalg.matmul, (A_BATCH, A_BATCH)),
    "cross": (lambda m: m.linalg.cross, (rand((2, 3), 14), rand((2, 3), 15))),
    "svdvals": (lambda m: m.linalg.svdvals, (TALL,)),
    "eigvalsh": (lambda m: m.linalg.eigvalsh, (SPD,)),
}


def run_against_jax(case, ours, jax_module, dtype, f32_tol, request):
    """The case's function from ``ours`` eagerly and under jit against ``jax_module``'s;
    returns the cast arguments and the tolerance."""
    if dtype == F64:
        request.getfixturevalue("x64")
    make, args = case
    args = tuple(a.astype(dtype) for a in args)
    tol = f32_tol if dtype == F32 else 1e-10
    want = make(jax_module)(*args)
    if dtype == F64:  # eager mode once per case: each op compiles on its own
        assert_same(make(ours)(*args), want, tol)
    assert_same(numlir.jit(make(ours))(*args), want, tol)
    return args, tol


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax_eagerly_and_under_jit(name, dtype, request):
    run_against_jax(CASES[name], jnp, jnp_ref, dtype, 2e-4, request)


def test_det_and_slogdet_of_a_singular_matrix(x64):
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert float(jnp.linalg.det(singular)) == 0.0
    sign, logdet = jnp.linalg.slogdet(singular)
    assert float(sign) == 0.0 and float(logdet) == -np.inf


def test_solve_names_the_mismatched_shapes():
    with pytest.raises(TypeError, match=r"solve: b of shape \(3,\) does not match a of shape \(4, 4\)"):
        jnp.linalg.solve(A, np.ones(3, F32))


def test_matrix_power_needs_an_integer_exponent():
    with pytest.raises(TypeError, match="exponent must be an integer"):
        jnp.linalg.matrix_power(A, 1.5)


# --- numlir.scipy.linalg ----------------------------------------------------------------------

SCIPY_CASES = {
    "solve_triangular_lower": (lambda m: lambda a, b: m.solve_triangular(a, b, lower=True), (LOWER, B)),
    "solve_triangular_upper_T": (lambda m: lambda a, b: m.solve_triangular(a, b, trans="T"), (UPPER, V)),
    "solve_triangular_unit": (lambda m: lambda a, b: m.solve_triangular(a, b, unit_diagonal=True), (UPPER, B)),
    "cholesky_upper": (lambda m: m.cholesky, (SPD,)),
    "cho_solve_upper": (lambda m: lambda a, b: m.cho_solve(m.cho_factor(a), b), (SPD, B)),
    "cho_solve_lower": (lambda m: lambda a, b: m.cho_solve(m.cho_factor(a, lower=True), b), (SPD, V)),
    "lu_factor": (lambda m: lambda a: m.lu_factor(a), (A,)),
    "lu_solve": (lambda m: lambda a, b: m.lu_solve(m.lu_factor(a), b), (A, B)),
    "lu_solve_T": (lambda m: lambda a, b: m.lu_solve(m.lu_factor(a), b, trans=1), (A, V)),
    "lu": (lambda m: m.lu, (TALL,)),
    "lu_permute_l": (lambda m: lambda a: m.lu(a, permute_l=True), (TALL.T,)),
    "qr_full": (lambda m: m.qr, (TALL,)),
    "qr_economic": (lambda m: lambda a: m.qr(a, mode="economic"), (TALL,)),
    "eigh_values": (lambda m: lambda a: m.eigh(a, eigvals_only=True), (SPD,)),
    "svd_values": (lambda m: lambda a: m.svd(a, compute_uv=False), (TALL,)),
    "det": (lambda m: m.det, (A,)),
    "inv": (lambda m: m.inv, (A,)),
    "solve_gen": (lambda m: m.solve, (A, B)),
    "solve_pos": (lambda m: lambda a, b: m.solve(a, b, assume_a="pos"), (SPD, V)),
    "expm": (lambda m: m.expm, (A * 0.5,)),
    "expm_large_norm": (lambda m: m.expm, (A * 3,)),
    "polar": (lambda m: m.polar, (A,)),
    "polar_left": (lambda m: lambda a: m.polar(a, side="left", **({} if m is sl else {"method": "svd"})),
                   (A,)),
    "block_diag": (lambda m: m.block_diag, (A, B, V)),
    "toeplitz": (lambda m: m.toeplitz, (V, rand(5, 16))),
    "circulant": (lambda m: m.circulant, (V,)),
    "hankel": (lambda m: m.hankel, (V, rand(3, 17))),
    "companion": (lambda m: m.companion, (V,)),
    "eigh_tridiagonal": (lambda m: lambda d, e: m.eigh_tridiagonal(d, e, eigvals_only=True),
                         (V, rand(3, 18))),
}


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(SCIPY_CASES))
def test_scipy_linalg_matches_jax_and_scipy(name, dtype, request):
    args, tol = run_against_jax(SCIPY_CASES[name], nsl, jsl, dtype, 5e-4, request)
    make = SCIPY_CASES[name][0]
    scipy_out = make(sl)(*(a.astype(F64) for a in args))
    for got, ref in zip(jax.tree_util.tree_leaves(numlir.jit(make(nsl))(*args)),
                        jax.tree_util.tree_leaves(scipy_out)):
        if np.asarray(ref).dtype.kind == "f":
            scale = max(1.0, float(np.abs(ref).max()))
            np.testing.assert_allclose(np.asarray(got, F64), ref, rtol=0, atol=tol * scale)


def test_hilbert_matches_scipy(x64):
    np.testing.assert_allclose(np.asarray(nsl.hilbert(5)), sl.hilbert(5), rtol=1e-15)


def test_expm_gradient_matches_jax(x64):
    from ad_testing import check_vjp_against_jax

    check_vjp_against_jax(nsl.expm, jsl.expm, (A.astype(F64) * 0.3,), rtol=1e-9, atol=1e-9)
