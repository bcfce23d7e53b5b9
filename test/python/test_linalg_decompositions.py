"""numlir.numpy.linalg's factorizations against NumPy (float64 accuracy) and JAX (values,
shapes, dtypes, derivatives), eagerly, under jit and under vmap.

Where a factorization is unique (Cholesky; LU and QR with LAPACK's pivoting and sign
conventions; eigenvalues; singular values) the factors are compared with NumPy's.
Eigenvectors and singular vectors are unique only up to sign, so those are checked by
reconstruction and orthogonality. Tolerances scale with eps * n * |a|, as for any
backward-stable method.
"""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from ad_testing import check_grads, check_vjp_against_jax

F32, F64 = np.float32, np.float64
RNG = np.random.default_rng(1234)


def rand(shape, dtype=F64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def spd(n, batch=(), dtype=F64, seed=0):
    x = rand(batch + (n, n), F64, seed)
    return (x @ np.swapaxes(x, -1, -2) + n * np.eye(n)).astype(dtype)


def symmetric(n, batch=(), dtype=F64, seed=0):
    x = rand(batch + (n, n), F64, seed)
    return (x + np.swapaxes(x, -1, -2)).astype(dtype)


def tol(x, factor=30.0):
    eps = np.finfo(np.asarray(x).dtype).eps
    return factor * eps * max(np.asarray(x).shape[-2:]) * max(1.0, float(np.abs(x).max()))


def both_modes(fn, *args):
    """fn under jit, and for float64 inputs eagerly too (each eager op compiles on its own,
    so once per case is enough): the results, which must agree to rounding."""
    jitted = numlir.jit(fn)(*args)
    if np.asarray(args[0]).dtype != F64:
        return jitted
    eager = fn(*args)
    for e, j in zip(jax.tree_util.tree_leaves(eager), jax.tree_util.tree_leaves(jitted)):
        e, j = np.asarray(e), np.asarray(j)
        if e.dtype.kind == "f":
            np.testing.assert_allclose(e, j, atol=tol(e, 100))
        else:
            np.testing.assert_array_equal(e, j)
    return eager


@pytest.fixture(params=[F32, F64], ids=["f32", "f64"])
def dtype(request):
    if request.param == F64:
        numlir.config.update("jax_enable_x64", True)
        jax.config.update("jax_enable_x64", True)
    return request.param


# --- values -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n, batch", [(1, ()), (4, ()), (7, (2,)), (3, (2, 2))])
def test_cholesky_matches_numpy(dtype, n, batch):
    a = spd(n, batch, dtype)
    lower = both_modes(jnp.linalg.cholesky, a)
    upper = jnp.linalg.cholesky(a, upper=True)
    assert lower.dtype == dtype and lower.shape == a.shape
    np.testing.assert_allclose(np.asarray(lower), np.linalg.cholesky(a.astype(F64)), atol=tol(a))
    np.testing.assert_allclose(np.asarray(upper), np.swapaxes(np.asarray(lower), -1, -2))


def test_cholesky_of_a_matrix_that_is_not_positive_definite_is_nan():
    assert np.isnan(np.asarray(jnp.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]])))).any()


@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 4), (1, 1)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_matches_numpy_signs_included(dtype, shape, mode):
    a = rand(shape, dtype)
    q, r = both_modes(lambda x: tuple(jnp.linalg.qr(x, mode)), a)
    q_ref, r_ref = np.linalg.qr(a.astype(F64), mode)
    assert q.shape == q_ref.shape and r.shape == r_ref.shape and q.dtype == dtype
    np.testing.assert_allclose(np.asarray(q), q_ref, atol=tol(a))
    np.testing.assert_allclose(np.asarray(r), r_ref, atol=tol(a))
    np.testing.assert_allclose(np.asarray(jnp.linalg.qr(a, "r")), np.linalg.qr(a, "r"), atol=tol(a))


@pytest.mark.parametrize("shape", [(5, 5), (6, 4), (4, 6), (2, 3, 3)])
def test_lu_matches_lapack_pivots_and_factors(dtype, shape):
    import jax.lax.linalg as lax_linalg

    a = rand(shape, dtype, seed=3)
    factors, pivots = both_modes(lambda x: tuple(numlir.scipy.linalg.lu_factor(x)), a)
    j_factors, j_pivots, _ = lax_linalg.lu(a)
    np.testing.assert_array_equal(np.asarray(pivots), np.asarray(j_pivots))
    np.testing.assert_allclose(np.asarray(factors), np.asarray(j_factors), atol=tol(a))


@pytest.mark.parametrize("n, batch", [(1, ()), (2, ()), (5, ()), (9, ()), (4, (3,))])
def test_eigh_eigenvalues_match_numpy_and_the_vectors_diagonalize(dtype, n, batch):
    a = symmetric(n, batch, dtype)
    w, v = both_modes(lambda x: tuple(jnp.linalg.eigh(x)), a)
    w, v = np.asarray(w, F64), np.asarray(v, F64)
    assert w.shape == a.shape[:-1] and v.shape == a.shape
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a.astype(F64)), atol=tol(a))
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol(a))
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(n), a.shape),
                               atol=tol(a))
    np.testing.assert_allclose(np.asarray(jnp.linalg.eigvalsh(a), F64), w, atol=tol(a))


def test_eigh_reads_only_the_named_triangle_without_symmetrization(x64):
    a = symmetric(4)
    garbage = a + np.triu(rand((4, 4), seed=9), 1)
    w = jnp.linalg.eigh(garbage, UPLO="L", symmetrize_input=False).eigenvalues
    np.testing.assert_allclose(np.asarray(w), np.linalg.eigvalsh(a), atol=1e-12)


def test_eigh_of_repeated_eigenvalues(x64):
    q, _ = np.linalg.qr(rand((5, 5), seed=4))
    a = q @ np.diag([1.0, 1.0, 1.0, 3.0, -2.0]) @ q.T
    w, v = jnp.linalg.eigh(a)
    np.testing.assert_allclose(np.asarray(w), [-2, 1, 1, 1, 3], atol=1e-12)
    np.testing.assert_allclose(np.asarray(v).T @ np.asarray(v), np.eye(5), atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 2), (6, 1)])
@pytest.mark.parametrize("full_matrices", [False, True])
def test_svd_reconstructs_with_orthogonal_factors(dtype, shape, full_matrices):
    a = rand(shape, dtype, seed=5)
    u, s, vh = both_modes(lambda x: tuple(jnp.linalg.svd(x, full_matrices)), a)
    u_ref, s_ref, vh_ref = jnp_ref.linalg.svd(a, full_matrices)
    assert (u.shape, s.shape, vh.shape) == (u_ref.shape, s_ref.shape, vh_ref.shape)
    assert u.dtype == s.dtype == dtype
    u, s, vh = (np.asarray(t, F64) for t in (u, s, vh))
    k = min(shape[-2:])
    np.testing.assert_allclose(s, np.linalg.svd(a.astype(F64), compute_uv=False), atol=tol(a))
    np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, atol=tol(a))
    for m in (np.swapaxes(u, -1, -2) @ u, vh @ np.swapaxes(vh, -1, -2)):
        np.testing.assert_allclose(m, np.broadcast_to(np.eye(m.shape[-1]), m.shape), atol=tol(a))


def test_svd_of_a_rank_deficient_matrix_still_has_orthonormal_vectors(x64):
    a = np.outer(rand(5, seed=1), rand(4, seed=2))
    u, s, vh = jnp.linalg.svd(a, full_matrices=True)
    np.testing.assert_allclose(np.asarray(s)[1:], 0, atol=1e-14)
    np.testing.assert_allclose(np.asarray(u).T @ np.asarray(u), np.eye(5), atol=1e-13)
    np.testing.assert_allclose((np.asarray(u)[:, :4] * np.asarray(s)) @ np.asarray(vh), a,
                               atol=1e-13)


# --- ill-conditioned inputs (float64) ---------------------------------------------------------


def graded_matrix(n, condition, seed=0):
    """Q1 diag(logspace(0, -log10(condition))) Q2: a known spectrum, any condition."""
    q1, _ = np.linalg.qr(rand((n, n), seed=seed))
    q2, _ = np.linalg.qr(rand((n, n), seed=seed + 1))
    return q1 @ np.diag(np.logspace(0, -np.log10(condition), n)) @ q2


@pytest.mark.parametrize("condition", [1e6, 1e12])
def test_ill_conditioned_factorizations_are_backward_stable(x64, condition):
    a = graded_matrix(8, condition)
    eps = np.finfo(F64).eps
    s = np.asarray(jnp.linalg.svd(a, compute_uv=False))
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=0, atol=100 * eps)
    # one-sided Jacobi keeps the small singular values to high relative accuracy
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-3)
    x = np.asarray(jnp.linalg.solve(a, np.ones(8)))
    assert np.linalg.norm(a @ x - 1) / (np.linalg.norm(a) * np.linalg.norm(x)) < 100 * eps
    q, r = jnp.linalg.qr(a)
    assert np.abs(np.asarray(q) @ np.asarray(r) - a).max() < 100 * eps
    h = a @ a.T  # condition squared, still positive definite for 1e6
    if condition < 1e7:
        lower = np.asarray(jnp.linalg.cholesky(h))
        assert np.abs(lower @ lower.T - h).max() < 100 * eps
    w = np.asarray(jnp.linalg.eigvalsh(h))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(h), atol=100 * eps)


def test_hilbert_matrix_solves_like_numpy(x64):
    h = np.asarray(numlir.scipy.linalg.hilbert(8))
    b = h @ np.ones(8)
    x = np.asarray(jnp.linalg.solve(h, b))
    np.testing.assert_allclose(x, np.linalg.solve(h, b), rtol=1e-4)  # both lose ~10 digits
    assert np.linalg.norm(h @ x - b) < 1e-14


# --- derivatives ------------------------------------------------------------------------------


def test_cholesky_gradients_match_jax_and_finite_differences(x64):
    a = spd(4)
    check_vjp_against_jax(jnp.linalg.cholesky, jnp_ref.linalg.cholesky, (a,), rtol=1e-9, atol=1e-9)
    check_grads(lambda x: jnp.linalg.cholesky(x @ x.T + 4 * jnp.eye(4)), (rand((4, 4)),), order=1)


def test_eigh_gradients_match_jax_and_finite_differences(x64):
    a = symmetric(4, seed=2)

    def values_and_squared_vectors(m, lib):  # the sign of an eigenvector is arbitrary
        w, v = lib.linalg.eigh(m)
        return w, v * v

    check_vjp_against_jax(lambda m: values_and_squared_vectors(m, jnp),
                          lambda m: values_and_squared_vectors(m, jnp_ref), (a,), rtol=1e-8, atol=1e-8)
    check_grads(lambda m: values_and_squared_vectors(m + m.T, jnp), (rand((4, 4), seed=3),),
                order=1)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3)])
def test_svd_gradients_match_jax(x64, shape):
    a = rand(shape, seed=6)

    def invariants(m, lib):  # u @ vh and s do not depend on the vectors' signs
        u, s, vh = lib.linalg.svd(m, full_matrices=False)
        return s, u @ vh

    check_vjp_against_jax(lambda m: invariants(m, jnp), lambda m: invariants(m, jnp_ref), (a,),
                          rtol=1e-8, atol=1e-8)
    check_grads(lambda m: invariants(m, jnp), (a,), order=1)


def test_qr_gradients_match_jax(x64):
    a = rand((5, 3), seed=7)
    check_vjp_against_jax(lambda m: tuple(jnp.linalg.qr(m)), lambda m: tuple(jnp_ref.linalg.qr(m)),
                          (a,), rtol=1e-8, atol=1e-8)
    check_grads(lambda m: tuple(jnp.linalg.qr(m)), (a,), order=1)


@pytest.mark.parametrize("name", ["det", "inv", "slogdet", "solve", "pinv"])
def test_solver_gradients_match_jax(x64, name):
    a = rand((4, 4), seed=8) + 2 * np.eye(4)
    b = rand((4, 2), seed=9)
    fns = {
        "det": lambda lib: lambda m: lib.linalg.det(m),
        "inv": lambda lib: lambda m: lib.linalg.inv(m),
        "slogdet": lambda lib: lambda m: lib.linalg.slogdet(m)[1],
        "solve": lambda lib: lambda m: lib.linalg.solve(m, b),
        "pinv": lambda lib: lambda m: lib.linalg.pinv(m),
    }
    check_vjp_against_jax(fns[name](jnp), fns[name](jnp_ref), (a,), rtol=1e-8, atol=1e-8)
    check_grads(fns[name](jnp), (a,), order=1)


# --- batching ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cholesky", "eigvalsh", "svdvals", "det", "inv", "qr_r"])
def test_vmap_matches_the_batched_call(x64, name):
    fn = {"cholesky": jnp.linalg.cholesky, "eigvalsh": jnp.linalg.eigvalsh,
          "svdvals": jnp.linalg.svdvals, "det": jnp.linalg.det, "inv": jnp.linalg.inv,
          "qr_r": lambda m: jnp.linalg.qr(m, "r")}[name]
    a = spd(3, (4,), seed=10)
    np.testing.assert_allclose(np.asarray(numlir.vmap(fn)(a)), np.asarray(fn(a)), atol=1e-12)
    np.testing.assert_allclose(np.asarray(numlir.jit(numlir.vmap(fn))(a)), np.asarray(fn(a)),
                               atol=1e-12)


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fn, arg, message", [
    (jnp.linalg.cholesky, np.ones((2, 3)), r"cholesky: the last two dimensions must be square, got shape \(2, 3\)"),
    (jnp.linalg.eigh, np.ones(3), r"eigh: input must have dimension >= 2, got shape \(3,\)"),
    (jnp.linalg.det, np.ones((3, 2)), "det: the last two dimensions must be square"),
])
def test_bad_matrices_are_named(fn, arg, message):
    with pytest.raises((ValueError, TypeError), match=message):
        fn(arg)


def test_qr_rejects_an_unknown_mode():
    with pytest.raises(ValueError, match="mode must be"):
        jnp.linalg.qr(np.eye(2), "raw")


@pytest.mark.parametrize("dtype, magnitude", [(F64, 1e200), (F64, 1e-200), (F32, 1e30),
                                              (F32, 1e-30), (np.complex128, 1e200)])
def test_qr_of_huge_and_tiny_matrices_neither_overflows_nor_underflows(x64, dtype, magnitude):
    # Column norms are sums of squares: without scaling, 1e200 overflowed to inf and
    # 1e-200 underflowed to 0 (r full of NaN). q is that of a / magnitude, r scales.
    base = rand((5, 4), F64, seed=11)
    if np.dtype(dtype).kind == "c":
        base = base + 1j * rand((5, 4), F64, seed=12)
    a = (base * magnitude).astype(dtype)
    q_ref, r_ref = np.linalg.qr(base.astype(np.complex128 if np.dtype(dtype).kind == "c" else F64))
    q, r = numlir.jit(jnp.linalg.qr)(a)
    rel = 1e-12 if np.dtype(dtype) != F32 else 2e-5
    np.testing.assert_allclose(np.asarray(q), q_ref, atol=rel)
    np.testing.assert_allclose(np.asarray(r) / magnitude, r_ref, atol=rel * 10)
