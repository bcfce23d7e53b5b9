"""jnp.linalg.eig/eigvals and jnp.roots against jax (LAPACK's dgeev) and the defining
identities, in float32 and float64, batched and under jit."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest
import scipy.linalg

import numlir
import numlir.numpy as jnp
from numlir._src.linalg.balance import balance


def _assert_same_vectors(v, v_ref, atol):
    """Equal columns up to a sign each: the Schur vectors under dgeev's eigenvectors are
    themselves defined up to sign, and numlir's QR sweeps may settle on the other one."""
    signs = np.sign(np.real(np.sum(np.conj(v_ref) * v, axis=-2, keepdims=True)))
    np.testing.assert_allclose(v * np.where(signs == 0, 1, signs), v_ref, atol=atol)


@pytest.mark.parametrize("n", [1, 3, 8])
def test_eig_matches_lapack_to_rounding_in_double_precision(n, x64):
    a = np.random.default_rng(n).standard_normal((n, n))
    w, v = (np.asarray(r) for r in jnp.linalg.eig(a))
    w_ref, v_ref = (np.asarray(r) for r in jnp_ref.linalg.eig(a))
    assert w.dtype == np.complex128 and v.dtype == np.complex128
    np.testing.assert_allclose(w, w_ref, atol=1e-12)
    _assert_same_vectors(v, v_ref, 1e-12)  # dgeev's normalization and phase, up to sign
    np.testing.assert_allclose(a @ v, v * w, atol=1e-12)
    np.testing.assert_allclose(np.asarray(jnp.linalg.eigvals(a)), w_ref, atol=1e-12)


def test_eig_in_single_precision_batched_and_jitted():
    a = np.random.default_rng(0).standard_normal((3, 6, 6)).astype(np.float32)
    w, v = numlir.jit(jnp.linalg.eig)(a)
    w_ref, v_ref = jax.vmap(jnp_ref.linalg.eig)(a)
    assert w.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(w), np.asarray(w_ref), atol=2e-5)
    _assert_same_vectors(np.asarray(v), np.asarray(v_ref), 2e-4)
    np.testing.assert_allclose(np.asarray(numlir.vmap(jnp.linalg.eigvals)(a)), np.asarray(w_ref),
                               atol=2e-5)


@pytest.mark.parametrize("a", [np.eye(3), np.diag([2.0, -1.0, 2.0]), np.array([[2.0, 1.0], [0.0, 2.0]]),
                               np.array([[0.0, -1.0], [1.0, 0.0]])],
                         ids=["identity", "repeated", "defective", "rotation"])
def test_eig_of_special_matrices_matches_lapack(a, x64):
    w, v = (np.asarray(r) for r in jnp.linalg.eig(a))
    w_ref, v_ref = (np.asarray(r) for r in jnp_ref.linalg.eig(a))
    np.testing.assert_allclose(w, w_ref, atol=1e-12)
    _assert_same_vectors(v, v_ref, 1e-12)


def test_eig_refuses_differentiation_as_jax():
    # jnp.linalg.eig has no derivatives in JAX (eigenvector derivatives need
    # lax.linalg.eig(enable_eigvec_derivs=True)); eigvals has them (test_linalg_eig_complex.py)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        numlir.grad(lambda a: jnp.sum(jnp.real(jnp.linalg.eig(a)[0])))(np.eye(2, dtype=np.float32))


@pytest.mark.parametrize("p", [[1.0, -3.0, 2.0], [0.0, 1.0, 2.0], [1.0, 0.0, 0.0, -1.0],
                               [2.0, 1.0, 5.0, -3.0, 1.0], [3.0], [0.0, 0.0],
                               [1.0, 2.0 - 1.0j, 3.0j]])
def test_roots_match_jax(p):
    # complex coefficients go through complex eigvals
    p = np.array(p, np.complex128 if np.iscomplexobj(p) else np.float64)
    got, want = np.asarray(jnp.roots(p)), np.asarray(jnp_ref.roots(p))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(want), atol=2e-5)


def test_roots_without_stripping_work_under_jit():
    p = np.array([0.0, 1.0, -3.0, 2.0], np.float32)
    got = np.asarray(numlir.jit(lambda q: jnp.roots(q, strip_zeros=False))(p))
    assert np.isnan(got[-1]) and sorted(got[:2].real.round(4)) == [1.0, 2.0]
    with pytest.raises(numlir.ConcretizationTypeError, match="strip_zeros=False"):
        numlir.jit(jnp.roots)(p)


# --- geev's preparation: exact scaling by powers of two, and balancing -----------------------

# 2^664 is about 1e200: the Schur iteration squares entries, which overflowed (and at 2^-664
# underflowed) before the matrix was scaled to entries near 1
HUGE, TINY = 2.0 ** 664, 2.0 ** -664
_batched_eig = numlir.jit(numlir.vmap(jnp.linalg.eig))


def _relative_errors(w, w_ref):
    """|w - w_ref| / |w_ref| for each eigenvalue, paired with the nearest of w_ref."""
    order = [int(np.argmin(np.abs(w_ref - x))) for x in w]
    assert sorted(order) == list(range(len(w)))
    return np.abs(w - w_ref[order]) / np.abs(w_ref[order])


def _badly_scaled_matrices(dtype):
    """(a, isolated): a holds D A D^-1 with D from 1e-8 to 1e8; m, block upper triangular
    with its rows and columns shuffled, so that gebal's permutation isolates three
    eigenvalues, the diagonal entries at positions ``isolated``; and D m D^-1."""
    rng = np.random.default_rng(11)
    d = 10.0 ** np.linspace(-8, 8, 6)
    m = np.triu(rng.standard_normal((6, 6)))
    m[1:4, 1:4] = rng.standard_normal((3, 3))
    a = rng.standard_normal((6, 6))
    if dtype == np.complex128:
        m = m + 1j * rng.standard_normal((6, 6)) * (m != 0)
        a = a + 1j * rng.standard_normal((6, 6))
    shuffle = rng.permutation(6)
    m = m[shuffle][:, shuffle]
    isolated = np.argsort(shuffle)[[0, 4, 5]]  # where m's rows 0, 4 and 5 went
    return np.stack([d[:, None] * a / d[None, :], m, d[:, None] * m / d[None, :]]), isolated


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("library", [False, True], ids=["composite", "lapack"])
def test_eig_of_a_matrix_near_the_overflow_or_underflow_threshold_is_finite_and_exact(
        dtype, library, x64):
    # The composite divides by a power of two, exactly, so its results are those of the
    # unscaled matrix times the power of two (eigenvalues) and unchanged (eigenvectors), bit
    # for bit. LAPACK's geev scales by a factor that is not one (dlascl): to rounding.
    rng = np.random.default_rng(3)
    a = rng.standard_normal((6, 6)).astype(dtype)
    if dtype == np.complex128:
        a += 1j * rng.standard_normal((6, 6))
    batch = np.stack([a, a * HUGE, a * TINY])
    same = (np.testing.assert_array_equal if not library
            else lambda x, y: np.testing.assert_allclose(x, y, rtol=1e-13, atol=0))
    previous = numlir.config.flags.cpu_library_calls
    numlir.config.update("cpu_library_calls", library)
    try:
        # eagerly, and jit of vmap (a fresh jit: its cache does not know the flag)
        eig = jnp.linalg.eig if dtype == np.float64 else numlir.jit(numlir.vmap(jnp.linalg.eig))
        w, v = (np.asarray(r) for r in eig(batch))
        w_only = np.asarray(jnp.linalg.eigvals(batch))
    finally:
        numlir.config.update("cpu_library_calls", previous)
    assert np.isfinite(w).all() and np.isfinite(v).all()
    same(w[1], w[0] * HUGE)
    same(w[2], w[0] * TINY)
    np.testing.assert_allclose(v[1], v[0], rtol=0, atol=0 if not library else 1e-13)
    np.testing.assert_allclose(v[2], v[0], rtol=0, atol=0 if not library else 1e-13)
    for k in range(3):
        assert _relative_errors(w[k], np.linalg.eigvals(batch[k])).max() < 1e-13
    if dtype == np.float64:
        np.testing.assert_array_equal(w_only, w)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_eig_balances_badly_scaled_matrices_as_lapack(dtype, x64):
    # Unbalanced, the Schur iteration's error eps |D A D^-1| (about 1) swamped A's eigenvalues
    # (about 1): relative errors of 1e2 to 1e6. Balanced as geev, they are LAPACK's to rounding,
    # and so are the eigenvectors (taken back through the balancing before normalizing).
    a, isolated = _badly_scaled_matrices(dtype)
    eig = jnp.linalg.eig if dtype == np.float64 else _batched_eig
    w, v = (np.asarray(r) for r in eig(a))
    w_ref, v_ref = (np.asarray(r) for r in jnp_ref.linalg.eig(a))
    for k in range(3):
        assert _relative_errors(w[k], np.linalg.eigvals(a[k])).max() < 1e-12
        assert _relative_errors(w[k], w_ref[k]).max() < 1e-12
        _assert_same_vectors(v[k], v_ref[k], 1e-12)  # in LAPACK's order, too
    for k in (1, 2):  # the isolated eigenvalues are diagonal entries, exactly, as LAPACK's
        diagonal = np.diagonal(a[k])[isolated]
        assert np.isin(diagonal, w[k]).all() and np.isin(diagonal, w_ref[k]).all()


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_balancing_is_lapacks_gebal_bit_for_bit(dtype, x64):
    # scipy's matrix_balance calls gebal with job 'B': b = T^-1 a T for T = P D
    a, _ = _badly_scaled_matrices(dtype)
    b, p, d = (np.asarray(r) for r in numlir.jit(numlir.vmap(balance))(a))
    for k in range(3):
        b_ref, t_ref = scipy.linalg.matrix_balance(a[k])
        np.testing.assert_array_equal(b[k], b_ref)
        np.testing.assert_array_equal(p[k] * d[k], t_ref)
