"""Complex matrices in the factorizations and solvers: jnp.linalg, numlir.scipy.linalg and
numlir.lax.linalg, against jax (values, pivots, derivatives) and numpy.

complex128 runs with x64 on; complex64 with the float32 tolerances. Values are compared
relative to the largest entry of jax's result, so that one tolerance serves every size.
"""

import jax
import jax.lax.linalg as jax_lax_linalg
import jax.numpy as jnp_ref
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import numlir
import numlir.lax.linalg as nl_lax_linalg
import numlir.numpy as jnp
import numlir.scipy.linalg as nsl

C64, C128 = np.complex64, np.complex128
TOL = {C64: 2e-5, C128: 1e-11}


@pytest.fixture(params=[C64, C128], ids=["c64", "c128"])
def dtype(request):
    """complex64, or complex128 with x64 on (parametrized here, or indirectly by a test)."""
    if request.param == C128:
        request.getfixturevalue("x64")
    return request.param


def crand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def well_conditioned(n, dtype, batch=(), seed=0):
    return (crand(batch + (n, n), dtype, seed) + 3 * np.eye(n)).astype(dtype)


def hermitian_positive(n, dtype, batch=(), seed=0):
    a = crand(batch + (n, n), dtype, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def assert_close(got, want, tol, *, dtype=True):
    got, want = [np.asarray(x) for x in jax.tree_util.tree_leaves(got)], \
        [np.asarray(x) for x in jax.tree_util.tree_leaves(want)]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape, (g.shape, w.shape)
        if dtype:
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
        np.testing.assert_allclose(g, w, rtol=0, atol=tol * scale)


# --- values against jax -----------------------------------------------------------------------

N = 4
SOLVER_CASES = {  # name: (function of (numpy-like module, scipy.linalg-like module), arguments)
    "solve": (lambda m, s: m.linalg.solve, lambda d: (well_conditioned(N, d), crand((N, 2), d, 1))),
    "solve_vector_batched": (lambda m, s: m.linalg.solve,
                             lambda d: (well_conditioned(3, d, (2,)), crand((2, 3, 1), d, 1))),
    "solve_1x1": (lambda m, s: m.linalg.solve, lambda d: (crand((1, 1), d), crand((1,), d, 1))),
    "inv": (lambda m, s: m.linalg.inv, lambda d: (well_conditioned(3, d, (2,)),)),
    "det": (lambda m, s: m.linalg.det, lambda d: (well_conditioned(N, d, (2,)),)),
    "det_1x1": (lambda m, s: m.linalg.det, lambda d: (crand((1, 1), d),)),
    "slogdet": (lambda m, s: lambda x: tuple(m.linalg.slogdet(x)),
                lambda d: (well_conditioned(N, d, (2,)),)),
    "matrix_power_-2": (lambda m, s: lambda x: m.linalg.matrix_power(x, -2),
                        lambda d: (well_conditioned(3, d),)),
    "tensorsolve": (lambda m, s: m.linalg.tensorsolve,
                    lambda d: (well_conditioned(6, d).reshape(2, 3, 6), crand((2, 3), d, 1))),
    "cholesky": (lambda m, s: m.linalg.cholesky, lambda d: (hermitian_positive(N, d, (2,)),)),
    "cholesky_upper": (lambda m, s: lambda x: m.linalg.cholesky(x, upper=True),
                       lambda d: (hermitian_positive(N, d),)),
    "qr_square": (lambda m, s: lambda x: tuple(m.linalg.qr(x)), lambda d: (crand((N, N), d),)),
    "qr_tall_complete": (lambda m, s: lambda x: tuple(m.linalg.qr(x, "complete")),
                         lambda d: (crand((2, 5, 3), d),)),
    "qr_wide": (lambda m, s: lambda x: tuple(m.linalg.qr(x)), lambda d: (crand((3, 5), d),)),
    "qr_r": (lambda m, s: lambda x: m.linalg.qr(x, "r"), lambda d: (crand((5, 3), d),)),
    "qr_1x1": (lambda m, s: lambda x: tuple(m.linalg.qr(x)), lambda d: (crand((1, 1), d),)),
    "scipy_det": (lambda m, s: s.det, lambda d: (well_conditioned(N, d),)),
    "scipy_inv": (lambda m, s: s.inv, lambda d: (well_conditioned(N, d),)),
    "scipy_solve_pos": (lambda m, s: lambda a, b: s.solve(a, b, assume_a="pos"),
                        lambda d: (hermitian_positive(N, d), crand((N, 2), d, 1))),
    "scipy_cho_solve": (lambda m, s: lambda a, b: s.cho_solve(s.cho_factor(a, lower=True), b),
                        lambda d: (hermitian_positive(N, d), crand((N,), d, 1))),
    "scipy_cho_solve_upper": (lambda m, s: lambda a, b: s.cho_solve(s.cho_factor(a), b),
                              lambda d: (hermitian_positive(N, d), crand((N, 2), d, 1))),
    "scipy_lu": (lambda m, s: s.lu, lambda d: (crand((N, N), d),)),
    "scipy_lu_wide": (lambda m, s: lambda x: s.lu(x, permute_l=True),
                      lambda d: (crand((3, 5), d),)),
    "scipy_lu_factor": (lambda m, s: s.lu_factor, lambda d: (crand((2, N, N), d),)),
    "scipy_qr": (lambda m, s: s.qr, lambda d: (crand((5, 3), d),)),
    "scipy_qr_economic": (lambda m, s: lambda x: s.qr(x, mode="economic"),
                          lambda d: (crand((5, 3), d),)),
    "scipy_expm": (lambda m, s: s.expm, lambda d: (crand((N, N), d) / 2,)),
    "scipy_expm_large": (lambda m, s: s.expm, lambda d: (4 * crand((3, 3), d),)),
}


#: complex64 runs a sample of the cases, to keep the file fast; complex128 runs them all
C64_CASES = ("solve", "det", "slogdet", "cholesky", "qr_tall_complete", "qr_1x1",
             "scipy_lu_factor")


@pytest.mark.parametrize("name, dtype", [(name, C128) for name in SOLVER_CASES]
                         + [(name, C64) for name in C64_CASES], indirect=["dtype"])
def test_matches_jax(name, dtype):
    fn, make_args = SOLVER_CASES[name]
    args = make_args(dtype)
    want = fn(jnp_ref, jsl)(*args)
    got = fn(jnp, nsl)(*args)
    tol = TOL[dtype] * (100 if "expm" in name else 1)
    assert_close(got, want, tol)


@pytest.mark.parametrize("name", ["solve", "slogdet", "cholesky", "qr_tall_complete", "scipy_lu"])
def test_matches_jax_under_jit(name, x64):
    fn, make_args = SOLVER_CASES[name]
    args = make_args(C128)
    assert_close(numlir.jit(fn(jnp, nsl))(*args), fn(jnp_ref, jsl)(*args), TOL[C128])


@pytest.mark.parametrize("trans, lower", [(0, False), (1, True), (2, False), (2, True),
                                          ("C", True)])
def test_scipy_triangular_and_lu_solves_take_trans(trans, lower, x64):
    # jax takes 0, 1, 2 only; scipy's "C" is the conjugate transpose, as 2
    jax_trans = 2 if trans == "C" else trans
    a = well_conditioned(N, C128)
    a = np.tril(a) if lower else np.triu(a)
    b = crand((N, 2), C128, 1)
    assert_close(nsl.solve_triangular(a, b, trans=trans, lower=lower),
                 jsl.solve_triangular(a, b, trans=jax_trans, lower=lower), TOL[C128])
    full = well_conditioned(N, C128, seed=2)
    assert_close(nsl.lu_solve(nsl.lu_factor(full), b[:, 0], trans=trans),
                 jsl.lu_solve(jsl.lu_factor(full), b[:, 0], trans=jax_trans), TOL[C128])


@pytest.mark.parametrize("left_side, transpose_a, conjugate_a, dtype", [
    (left, transpose, conjugate, C128) for left in (False, True)
    for transpose, conjugate in ((False, False), (True, False), (False, True), (True, True))
] + [(False, True, True, C64), (True, True, True, C64)], indirect=["dtype"])
def test_lax_triangular_solve_flags(left_side, transpose_a, conjugate_a, dtype):
    a = np.tril(well_conditioned(N, dtype, (2,)))
    b = crand((2, N, 3) if left_side else (2, 3, N), dtype, 1)
    flags = {"left_side": left_side, "lower": True, "transpose_a": transpose_a,
             "conjugate_a": conjugate_a}
    assert_close(nl_lax_linalg.triangular_solve(a, b, **flags),
                 jax_lax_linalg.triangular_solve(a, b, **flags), TOL[dtype])
    assert_close(nl_lax_linalg.triangular_solve(a, b, unit_diagonal=True, **flags),
                 jax_lax_linalg.triangular_solve(a, b, unit_diagonal=True, **flags), TOL[dtype])


@pytest.mark.parametrize("shape, dtype", [((1, 1), C128), ((5, 5), C128), ((6, 4), C128),
                                          ((4, 6), C128), ((2, 3, 3), C128), ((5, 5), C64)],
                         indirect=["dtype"])
def test_lax_lu_has_lapacks_pivots(shape, dtype):
    a = crand(shape, dtype, 3)
    factors, pivots, permutation = nl_lax_linalg.lu(a)
    j_factors, j_pivots, j_permutation = jax_lax_linalg.lu(a)
    np.testing.assert_array_equal(np.asarray(pivots), np.asarray(j_pivots))
    np.testing.assert_array_equal(np.asarray(permutation), np.asarray(j_permutation))
    assert_close(factors, j_factors, TOL[dtype])
    np.testing.assert_array_equal(
        np.asarray(nl_lax_linalg.lu_pivots_to_permutation(pivots, shape[-2])),
        np.asarray(jax_lax_linalg.lu_pivots_to_permutation(j_pivots, shape[-2])))


def test_lu_picks_pivots_by_lapacks_one_norm_of_the_parts():
    # |3+3i| > |4| but |re| + |im| = 6 > 4: LAPACK (and so jax) pivots on row 1 either way;
    # with 4.5 the moduli (4.24 < 4.5) and cabs1 (6 > 4.5) disagree, and cabs1 decides
    a = np.array([[4.5, 1], [3 + 3j, 2]], C64)
    _, pivots, _ = nl_lax_linalg.lu(a)
    np.testing.assert_array_equal(np.asarray(pivots), np.asarray(jax_lax_linalg.lu(a)[1]))
    assert int(np.asarray(pivots)[0]) == 1


@pytest.mark.parametrize("shape", [(1, 1), (6, 4), (4, 6), (2, 5, 5)])
def test_qr_reconstructs_with_a_unitary_q_and_real_diagonal(shape, dtype):
    a = crand(shape, dtype, 5)
    q, r = nl_lax_linalg.qr(a)
    q, r = np.asarray(q), np.asarray(r)
    m = shape[-2]
    tol = 50 * TOL[dtype]
    np.testing.assert_allclose(q @ r, a, atol=tol)
    np.testing.assert_allclose(np.conj(np.swapaxes(q, -1, -2)) @ q,
                               np.broadcast_to(np.eye(m), q.shape), atol=tol)
    assert np.all(np.tril(r, -1) == 0)
    np.testing.assert_array_equal(np.imag(np.diagonal(r, axis1=-2, axis2=-1)), 0)


@pytest.mark.parametrize("full_matrices", [True, False])
def test_lax_qr_and_cholesky_match_jax(full_matrices, x64):
    a = crand((2, 5, 3), C128, 6)
    assert_close(nl_lax_linalg.qr(a, full_matrices=full_matrices),
                 jax_lax_linalg.qr(a, full_matrices=full_matrices), TOL[C128])
    spd = hermitian_positive(3, C128, seed=7)
    assert_close(nl_lax_linalg.cholesky(spd), jax_lax_linalg.cholesky(spd), TOL[C128])


@pytest.mark.parametrize("mode, conjugate", [("left", False), ("right", True),
                                             ("left", True)])
def test_scipy_qr_multiply(mode, conjugate, x64):
    a = crand((5, 3), C128, 8)
    c = crand((3, 2) if mode == "left" else (2, 5), C128, 9)
    assert_close(nsl.qr_multiply(a, c, mode=mode, conjugate=conjugate),
                 jsl.qr_multiply(a, c, mode=mode, conjugate=conjugate), TOL[C128])


def test_qr_of_a_real_column_with_zeros_below_is_untouched(x64):
    # LAPACK's zlarfg leaves H = I when the column is real and zero below the diagonal
    a = np.array([[-2, 1j], [0, 3]], C128)
    q, r = jnp.linalg.qr(a)
    jq, jr = jnp_ref.linalg.qr(a)
    assert_close((q, r), (jq, jr), TOL[C128])


# --- ill-conditioned and singular matrices ----------------------------------------------------


def test_ill_conditioned_solve_matches_numpy(x64):
    n = 6
    hilbert = 1 / (np.arange(n)[:, None] + np.arange(n)[None, :] + 1)
    phases = np.exp(1j * np.linspace(0, 2, n))
    a = (hilbert * phases[:, None] * np.conj(phases)[None, :]).astype(C128)  # cond ~ 1.5e7
    x_true = crand((n,), C128, 7)
    b = a @ x_true
    got = np.asarray(jnp.linalg.solve(a, b))
    want = np.linalg.solve(a, b)
    cond = np.linalg.cond(a)
    assert np.linalg.norm(got - want) <= 1e-15 * cond * 100 * np.linalg.norm(want)
    np.testing.assert_allclose(a @ got, b, atol=1e-13)
    np.testing.assert_allclose(np.asarray(jnp.linalg.det(a)), np.linalg.det(a),
                               rtol=1e-8)


def test_singular_slogdet_is_zero_and_minus_inf(x64):
    a = np.array([[1 + 1j, 2 - 1j], [2 + 2j, 2 * (2 - 1j)]], C128)
    sign, logabsdet = jnp.linalg.slogdet(a)
    j_sign, j_logabsdet = jnp_ref.linalg.slogdet(a)
    assert np.asarray(sign) == np.asarray(j_sign) == 0
    assert np.asarray(logabsdet) == np.asarray(j_logabsdet) == -np.inf
    assert np.asarray(logabsdet).dtype == np.float64


def test_nonpositive_hermitian_cholesky_is_nan():
    a = np.array([[1, 2j], [-2j, 1]], C64)  # eigenvalues -1 and 3
    assert np.isnan(np.asarray(jnp.linalg.cholesky(a))).any()


# --- vmap -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["solve", "det", "cholesky", "qr_r"])
def test_vmap_matches_the_batched_call(name, x64):
    fn = {"solve": lambda a: jnp.linalg.solve(a, a[..., :, :1] + 1j), "det": jnp.linalg.det,
          "cholesky": jnp.linalg.cholesky, "qr_r": lambda m: jnp.linalg.qr(m, "r")}[name]
    a = hermitian_positive(3, C128, (4,), seed=9)
    assert_close(numlir.vmap(fn)(a), fn(a), 1e-12)
    assert_close(numlir.jit(numlir.vmap(fn))(a), fn(a), 1e-12)


# --- derivatives ------------------------------------------------------------------------------

def _a(seed=0):
    return well_conditioned(3, C128, seed=seed)


HOLOMORPHIC = {  # name: (function of the numpy-like module, the scipy.linalg-like module)
    "det": lambda m, s: m.linalg.det,
    "inv": lambda m, s: lambda a: m.linalg.inv(a).sum(),
    "solve": lambda m, s: lambda a: (m.linalg.solve(a, a[:, ::-1] + 1j) ** 2).sum(),
    "lu_solve": lambda m, s: lambda a: s.lu_solve(s.lu_factor(a), a[0], trans=2).sum(),
    "solve_triangular": lambda m, s: lambda a: s.solve_triangular(a, a[:, 0], lower=True).sum(),
}


@pytest.mark.parametrize("name", list(HOLOMORPHIC))
def test_holomorphic_grad_matches_jax(name, x64):
    a = _a()
    got = numlir.grad(HOLOMORPHIC[name](jnp, nsl), holomorphic=True)(a)
    want = jax.jit(jax.grad(HOLOMORPHIC[name](jnp_ref, jsl), holomorphic=True))(a)
    assert_close(got, want, 1e-10)


REAL_LOSSES = {  # name: (function of (module, scipy module) of (a, b) to a real scalar)
    "solve": lambda m, s: lambda a, b: (abs(m.linalg.solve(a, b)) ** 2).sum(),
    "logabsdet": lambda m, s: lambda a, b: m.linalg.slogdet(a + b[:, :1])[1],
    "slogdet_sign": lambda m, s: lambda a, b: m.imag(m.linalg.slogdet(a)[0] * b[0, 0]),
    "cholesky": lambda m, s: lambda a, b: (
        abs(m.linalg.cholesky(a @ m.conj(a.T) + b @ m.conj(b.T))) ** 2 * m.arange(3.0)).sum(),
    "cho_solve": lambda m, s: lambda a, b: abs(
        s.cho_solve(s.cho_factor(a @ m.conj(a.T) + 3 * m.eye(3)), b)).sum(),
    "qr": lambda m, s: lambda a, b: sum(m.real(x * x).sum() + m.imag(x).sum()
                                        for x in m.linalg.qr(a @ b[:, :1] + a)),
    "qr_wide": lambda m, s: lambda a, b: m.real(
        m.linalg.qr(m.concatenate([b, a], axis=1), "r") * (1 + 2j)).sum(),
    "solve_triangular_c": lambda m, s: lambda a, b: (
        abs(s.solve_triangular(a, b, trans="C", lower=False)) ** 2).sum(),
    "lu_p_l_u": lambda m, s: lambda a, b: sum(abs(x * x).sum() for x in s.lu(a + b[:, :1])),
    "expm": lambda m, s: lambda a, b: abs(s.expm(a / 3) @ b).sum(),
    "det": lambda m, s: lambda a, b: abs(m.linalg.det(a * b[:, :1])),
}


@pytest.mark.parametrize("name", list(REAL_LOSSES))
def test_grad_of_real_losses_matches_jax(name, x64):
    a, b = _a(), crand((3, 3), C128, 4)
    got = numlir.grad(REAL_LOSSES[name](jnp, nsl), argnums=(0, 1))(a, b)
    want = jax.jit(jax.grad(REAL_LOSSES[name](jnp_ref, jsl), argnums=(0, 1)))(a, b)
    assert_close(got, want, 1e-9)


def test_lax_triangular_solve_derivatives_match_jax(x64):
    a, b = np.tril(_a()), crand((3, 2), C128, 4)

    def loss(m, solve):
        return lambda a, b: m.sum(abs(solve(a, b, left_side=True, lower=True,
                                             transpose_a=True, conjugate_a=True)) ** 2)

    got = numlir.grad(loss(jnp, nl_lax_linalg.triangular_solve), argnums=(0, 1))(a, b)
    want = jax.jit(jax.grad(loss(jnp_ref, jax_lax_linalg.triangular_solve), argnums=(0, 1)))(a, b)
    # jax's rule gives a gradient in the lower triangle only, as the solve reads no more
    assert_close([np.tril(got[0]), got[1]], [np.tril(want[0]), want[1]], 1e-10)


def test_jvp_of_solve_matches_finite_differences(x64):
    a, b = _a(), crand((3, 2), C128, 4)
    da, db = crand((3, 3), C128, 5), crand((3, 2), C128, 6)
    _, tangent = numlir.jvp(jnp.linalg.solve, (a, b), (da, db))
    h = 1e-6
    numeric = (np.linalg.solve(a + h * da, b + h * db)
               - np.linalg.solve(a - h * da, b - h * db)) / (2 * h)
    np.testing.assert_allclose(np.asarray(tangent), numeric, atol=1e-7)


def test_det_gradient_at_a_singular_matrix_is_the_adjugate(x64):
    a = np.array([[1 + 1j, 2 - 1j, 0.5], [0, 0, 1j], [0.3, 1, 2]], C128)
    a[1] = a[0] * (1 + 1j)  # rank 2: the adjugate is nonzero, as jax's derivative
    got = numlir.grad(jnp.linalg.det, holomorphic=True)(a)
    want = jax.jit(jax.grad(jnp_ref.linalg.det, holomorphic=True))(a)
    assert np.abs(np.asarray(want)).max() > 1
    assert_close(got, want, 1e-12)


def test_vmap_of_grad_matches_jax(x64):
    a = well_conditioned(3, C128, (4,), seed=11)
    got = numlir.vmap(numlir.grad(lambda x: abs(jnp.linalg.det(x)) ** 2))(a)
    want = jax.jit(jax.vmap(jax.grad(lambda x: abs(jnp_ref.linalg.det(x)) ** 2)))(a)
    assert_close(got, want, 1e-12)
