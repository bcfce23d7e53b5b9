"""jnp.linalg.eig/eigvals and jnp.roots against jax (LAPACK's dgeev) and the defining
identities, in float32 and float64, batched and under jit."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp


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
