"""eigh and SVD of complex matrices, and what is built on them, against jax and numpy.

Eigenvectors and singular vectors are defined up to a unit phase per column (and up to a
unitary mixing inside a repeated eigenvalue's space), so vectors are checked through
reconstruction and unitarity, and derivatives through phase-invariant losses.
"""

import jax
import jax.numpy as jnp_ref
import jax.scipy.linalg as jsl_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
import numlir.scipy.linalg as jsl

C64_TOL = 2e-5
C128_TOL = 1e-12


def _complex(shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def _hermitian(n, seed=0, batch=()):
    a = _complex(batch + (n, n), seed)
    return a + np.conj(np.swapaxes(a, -1, -2))


def _degenerate_hermitian(seed=0):
    """A 5 x 5 Hermitian matrix with eigenvalues (1, 1, 1, 3, 3)."""
    q, _ = np.linalg.qr(_complex((5, 5), seed))
    return (q * np.array([1.0, 1.0, 1.0, 3.0, 3.0])) @ q.conj().T


def _assert_eigh(a, w, v, tol):
    w, v = np.asarray(w), np.asarray(v)
    scale = max(1.0, np.abs(a).max())
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), atol=tol * scale)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol * scale)
    eye = np.eye(a.shape[-1])
    np.testing.assert_allclose(np.conj(np.swapaxes(v, -1, -2)) @ v, eye + 0 * v, atol=tol)


def _assert_svd(a, u, s, vh, tol, full_matrices=True):
    u, s, vh = (np.asarray(x) for x in (u, s, vh))
    k = min(a.shape[-2:])
    scale = max(1.0, np.abs(a).max())
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), atol=tol * scale)
    np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a,
                               atol=tol * scale)
    for q in (np.conj(np.swapaxes(u, -1, -2)) @ u, vh @ np.conj(np.swapaxes(vh, -1, -2))):
        np.testing.assert_allclose(q, np.eye(q.shape[-1]) + 0 * q, atol=tol)
    expected_shapes = ((a.shape[-2],) * 2, (a.shape[-1],) * 2) if full_matrices else (
        (a.shape[-2], k), (k, a.shape[-1]))
    assert (u.shape[-2:], vh.shape[-2:]) == expected_shapes


# --- eigh -------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_eigh_complex128(x64, n):
    a = _hermitian(n, seed=n)
    w, v = jnp.linalg.eigh(a)
    assert w.dtype == np.float64 and v.dtype == np.complex128
    _assert_eigh(a, w, v, C128_TOL)
    np.testing.assert_allclose(np.asarray(w), np.asarray(jnp_ref.linalg.eigvalsh(a)),
                               atol=C128_TOL * np.abs(a).max())


def test_eigh_complex64_batched():
    a = _hermitian(4, seed=1, batch=(2, 3)).astype(np.complex64)
    w, v = jnp.linalg.eigh(a)
    assert w.dtype == np.float32 and v.dtype == np.complex64
    _assert_eigh(a.astype(np.complex128), w, v, C64_TOL * 10)


def test_eigh_degenerate_eigenvalues(x64):
    a = _degenerate_hermitian()
    w, v = jnp.linalg.eigh(a)
    _assert_eigh(a, w, v, C128_TOL)
    np.testing.assert_allclose(np.asarray(w), [1, 1, 1, 3, 3], atol=C128_TOL)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_reads_one_triangle_and_the_real_diagonal(x64, uplo):
    """As LAPACK's heevd (and jax with symmetrize_input=False): the other triangle and the
    imaginary part of the diagonal are never read."""
    a = _hermitian(4, seed=2)
    garbage = a + (np.triu(_complex((4, 4), 9), 1) if uplo == "L" else
                   np.tril(_complex((4, 4), 9), -1)) + 0.5j * np.eye(4)
    w, v = jnp.linalg.eigh(garbage, UPLO=uplo, symmetrize_input=False)
    _assert_eigh(a, w, v, C128_TOL)
    w_ref = jnp_ref.linalg.eigh(garbage, UPLO=uplo, symmetrize_input=False).eigenvalues
    np.testing.assert_allclose(np.asarray(w), np.asarray(w_ref), atol=1e-12)


def test_scipy_eigh_takes_the_hermitian_part_as_jax(x64):
    garbage = _complex((4, 4), 9)
    for lower in (True, False):
        got = jsl.eigh(garbage, lower=lower, eigvals_only=True)
        want = jsl_ref.eigh(garbage, lower=lower, eigvals_only=True)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-12)
    hermitian = (garbage + garbage.conj().T) / 2
    _assert_eigh(hermitian, *jsl.eigh(garbage), C128_TOL)


def test_eigvalsh_symmetrizes_like_jax(x64):
    a = _complex((3, 3), 4)  # not Hermitian: both take the Hermitian part (a + a^H) / 2
    np.testing.assert_allclose(np.asarray(jnp.linalg.eigvalsh(a)),
                               np.asarray(jnp_ref.linalg.eigvalsh(a)), atol=C128_TOL * 10)


def test_eigh_jit_and_vmap(x64):
    a = _hermitian(3, seed=5, batch=(4,))
    w_jit, v_jit = numlir.jit(jnp.linalg.eigh)(a)
    _assert_eigh(a, w_jit, v_jit, C128_TOL)
    w_vmap, v_vmap = numlir.vmap(jnp.linalg.eigh)(a)
    _assert_eigh(a, w_vmap, v_vmap, C128_TOL)


# --- SVD --------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, full_matrices", [((1, 1), True), ((3, 3), False),
                                                   ((5, 2), True), ((5, 2), False),
                                                   ((2, 6), True)])
def test_svd_complex128(x64, shape, full_matrices):
    a = _complex(shape, seed=sum(shape))
    u, s, vh = jnp.linalg.svd(a, full_matrices=full_matrices)
    assert s.dtype == np.float64 and u.dtype == vh.dtype == np.complex128
    _assert_svd(a, u, s, vh, C128_TOL, full_matrices)
    np.testing.assert_allclose(np.asarray(jnp.linalg.svd(a, compute_uv=False)),
                               np.asarray(jnp_ref.linalg.svd(a, compute_uv=False)),
                               atol=C128_TOL * 10)


def test_svd_complex64_batched_and_rank_deficient():
    a = (_complex((2, 4, 2), 3) @ _complex((2, 2, 3), 4)).astype(np.complex64)  # rank 2
    u, s, vh = jnp.linalg.svd(a)
    assert s.dtype == np.float32 and u.dtype == np.complex64
    _assert_svd(a.astype(np.complex128), u, s, vh, C64_TOL * 10)


def test_svd_rank_deficient_complex128(x64):
    a = _complex((5, 2), 6) @ _complex((2, 4), 7)
    _assert_svd(a, *jnp.linalg.svd(a), C128_TOL)
    _assert_svd(a, *jnp.linalg.svd(a, full_matrices=False), C128_TOL, full_matrices=False)


def test_svd_jit_and_vmap(x64):
    a = _complex((3, 4, 3), 8)
    _assert_svd(a, *numlir.jit(jnp.linalg.svd)(a), C128_TOL)
    _assert_svd(a, *numlir.vmap(jnp.linalg.svd)(a), C128_TOL)


def test_svd_users(x64):
    a = _complex((4, 3), 10)
    np.testing.assert_allclose(np.asarray(jnp.linalg.svdvals(a)),
                               np.linalg.svd(a, compute_uv=False), atol=C128_TOL)
    for ord_ in (2, -2, "nuc"):
        np.testing.assert_allclose(np.asarray(jnp.linalg.norm(a, ord=ord_)),
                                   np.linalg.norm(a, ord=ord_), atol=C128_TOL)
    u, s, vh = jsl.svd(a, full_matrices=False)
    _assert_svd(a, u, s, vh, C128_TOL, full_matrices=False)
    for side in ("right", "left"):
        unitary, p = (np.asarray(x) for x in jsl.polar(a[:3], side=side))
        unitary_ref, p_ref = (np.asarray(x) for x in jsl_ref.polar(a[:3], side=side,
                                                                      method="svd"))
        np.testing.assert_allclose(unitary, unitary_ref, atol=1e-12)
        np.testing.assert_allclose(p, p_ref, atol=1e-12)


def test_pinv_lstsq_matrix_rank_cond_match_jax(x64):
    a = _complex((5, 3), 20)
    deficient = _complex((4, 2), 21) @ _complex((2, 3), 22)
    b = _complex((5, 2), 23)
    for x in (a, deficient):
        np.testing.assert_allclose(np.asarray(jnp.linalg.pinv(x)),
                                   np.asarray(jnp_ref.linalg.pinv(x)), atol=1e-11)
    assert int(jnp.linalg.matrix_rank(deficient)) == 2
    assert int(jnp.linalg.matrix_rank(a)) == 3
    for got, want in zip(jnp.linalg.lstsq(a, b), jnp_ref.linalg.lstsq(a, b)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-11)
    for p in (None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"):
        np.testing.assert_allclose(np.asarray(jnp.linalg.cond(a[:3], p)),
                                   np.asarray(jnp_ref.linalg.cond(a[:3], p)), rtol=1e-11,
                                   err_msg=str(p))


# --- derivatives against jax (complex128, phase-invariant losses) -----------------------------


def _weighted_eigenvalues_and_overlaps(lib, b):
    """sum_i i * w_i + sum_i |v_i^H b v_i|: independent of each eigenvector's phase."""
    def loss(a):
        w, v = lib.linalg.eigh(a)
        overlaps = lib.einsum("ji,jk,ki->i", v.conj(), b, v)
        return (w * lib.arange(1.0, w.shape[0] + 1)).sum() + lib.abs(overlaps).sum()
    return loss


def _weighted_singular_values_and_overlaps(lib, b):
    """sum_i i * s_i + sum_i |u_i^H b u_i| + sum |vh|: invariant under u_i, v_i -> e^{it} ."""
    def loss(a):
        u, s, vh = lib.linalg.svd(a, full_matrices=False)
        overlaps = lib.einsum("ji,jk,ki->i", u.conj(), b, u)
        weights = lib.arange(1.0, s.shape[0] + 1)
        return (s * weights).sum() + lib.abs(overlaps).sum() + lib.abs(vh).sum()
    return loss


@pytest.mark.parametrize("n", [1, 4])
def test_eigh_gradient_matches_jax(x64, n):
    a, b = _hermitian(n, seed=11), _hermitian(n, seed=12)
    got = numlir.grad(_weighted_eigenvalues_and_overlaps(jnp, b))(a)
    want = jax.jit(jax.grad(_weighted_eigenvalues_and_overlaps(jnp_ref, b)))(a)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-10)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_svd_gradient_matches_jax(x64, shape):
    a, b = _complex(shape, seed=13), _hermitian(shape[0], seed=14)
    got = numlir.grad(_weighted_singular_values_and_overlaps(jnp, b))(a)
    want = jax.jit(jax.grad(_weighted_singular_values_and_overlaps(jnp_ref, b)))(a)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-10)


def test_spectral_jvps_match_jax(x64):
    """Tangents of eigenvalues, singular values and the 2 and nuclear norms, under jit."""
    a, da = _hermitian(3, seed=15), _hermitian(3, seed=16)
    m, dm = _complex((3, 2), 17), _complex((3, 2), 18)
    cases = [(jnp.linalg.eigvalsh, jnp_ref.linalg.eigvalsh, a, da),
             (jnp.linalg.svdvals, jnp_ref.linalg.svdvals, m, dm),
             (lambda x: jnp.linalg.norm(x, ord="nuc"),
              lambda x: jnp_ref.linalg.norm(x, ord="nuc"), m, dm)]
    for fn, ref_fn, x, dx in cases:
        got = numlir.jit(lambda x, dx, fn=fn: numlir.jvp(fn, (x,), (dx,)))(x, dx)
        want = jax.jvp(ref_fn, (x,), (dx,))
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), atol=1e-10)


def test_complex64_gradient_is_complex64():
    a = _hermitian(3, seed=19).astype(np.complex64)
    grad = numlir.grad(lambda x: jnp.linalg.eigvalsh(x)[-1])(a)
    want = jax.jit(jax.grad(lambda x: jnp_ref.linalg.eigvalsh(x)[-1]))(a)
    assert grad.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(grad), np.asarray(want), atol=C64_TOL * 10)
