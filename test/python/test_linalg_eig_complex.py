"""jnp.linalg.eig/eigvals of complex input and the derivatives of eig (eigvals, and
lax.linalg.eig's eigenvectors behind enable_eigvec_derivs) against jax (LAPACK's geev), NumPy
and finite differences."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.lax.linalg as lax_linalg
import numlir.numpy as jnp


def _crand(shape, seed, dtype=np.complex128):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def _matching(w, w_ref):
    """The permutation of w_ref nearest to w, one by one (the Schur sweeps may list the
    eigenvalues in another order than LAPACK's)."""
    order = [int(np.argmin(np.abs(w_ref - x))) for x in w]
    assert sorted(order) == list(range(len(w)))
    return order


def _assert_eig_matches(a, w, v, atol):
    """Eigenvalues of ``a`` as jax's and NumPy's, eigenvectors as jax's (geev's phase: the
    largest component real and positive), and ``a v = v w``."""
    w, v = np.asarray(w), np.asarray(v)
    w_ref, v_ref = (np.asarray(r) for r in jnp_ref.linalg.eig(a))
    for k in np.ndindex(a.shape[:-2]):
        order = _matching(w[k], w_ref[k])
        np.testing.assert_allclose(w[k], w_ref[k][order], atol=atol)
        np.testing.assert_allclose(np.sort_complex(w[k]), np.sort_complex(np.linalg.eigvals(a[k])),
                                   atol=atol)
        np.testing.assert_allclose(v[k], v_ref[k][:, order], atol=atol)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=atol * np.abs(a).max())
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, atol=atol)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_complex_eig_matches_lapack_in_double_precision(n, x64):
    a = _crand((n, n), seed=n)
    w, v = jnp.linalg.eig(a)
    assert w.dtype == np.complex128 and v.dtype == np.complex128
    _assert_eig_matches(a, w, v, 1e-12)
    np.testing.assert_allclose(np.asarray(jnp.linalg.eigvals(a)), np.asarray(w), atol=1e-13)


def test_complex_eig_in_single_precision_batched_jitted_and_vmapped():
    a = _crand((2, 3, 4, 4), seed=7, dtype=np.complex64)
    w, v = jnp.linalg.eig(a)
    assert w.dtype == np.complex64 and v.dtype == np.complex64
    _assert_eig_matches(a, w, v, 2e-4)
    w_jit, v_jit = numlir.jit(jnp.linalg.eig)(a)
    np.testing.assert_allclose(np.asarray(w_jit), np.asarray(w), atol=1e-5)
    np.testing.assert_allclose(np.asarray(v_jit), np.asarray(v), atol=1e-5)
    w_vmap = numlir.vmap(jnp.linalg.eigvals)(a[0])
    np.testing.assert_allclose(np.asarray(w_vmap), np.asarray(w[0]), atol=1e-5)


def test_eig_of_a_defective_complex_matrix_gives_lapacks_nearly_parallel_vectors(x64):
    # ztrevc replaces the zero pivot by eps |w|, so the second vector is (1, -eps), as jax's
    a = np.array([[1, 1], [0, 1]], np.complex128)
    w, v = jnp.linalg.eig(a)
    w_ref, v_ref = jnp_ref.linalg.eig(a)
    np.testing.assert_allclose(np.asarray(w), np.asarray(w_ref), atol=0)
    np.testing.assert_allclose(np.asarray(v), np.asarray(v_ref), atol=1e-30)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_gradient_and_jvp_of_eigvals_match_jax(dtype, x64):
    a = _crand((4, 4), seed=3, dtype=np.complex128)
    a = a if dtype == np.complex128 else a.real.copy()
    da = _crand((4, 4), seed=4, dtype=np.complex128)
    da = da if dtype == np.complex128 else da.real.copy()
    c = _crand((4,), seed=5)

    def loss(m, np_):
        w = np_.linalg.eigvals(m)
        return np_.sum(np_.abs(w) ** 2) + np_.real(np_.sum(w * c))

    g = np.asarray(numlir.jit(numlir.grad(lambda m: loss(m, jnp)))(a))  # jit: one compilation
    np.testing.assert_allclose(g, np.asarray(jax.grad(lambda m: loss(m, jnp_ref))(a)), atol=1e-11)
    # and finite differences, with JAX's convention for complex a (grad |z|^2 = 2 conj z):
    # d loss = Re(sum(g da))
    h = 1e-6
    numeric = (loss(a + h * da, np) - loss(a - h * da, np)) / (2 * h)
    np.testing.assert_allclose(np.real(np.sum(g * da)), numeric, rtol=1e-7)
    _, t = numlir.jit(lambda p, d: numlir.jvp(jnp.linalg.eigvals, (p,), (d,)))(a, da)
    w_ref, t_ref = jax.jvp(jnp_ref.linalg.eigvals, (a,), (da,))
    order = _matching(np.asarray(numlir.jit(jnp.linalg.eigvals)(a)), np.asarray(w_ref))
    np.testing.assert_allclose(np.asarray(t), np.asarray(t_ref)[order], atol=1e-12)


def test_eigenvector_derivatives_match_jax_with_enable_eigvec_derivs(x64):
    a = _crand((4, 4), seed=21)
    da = _crand((4, 4), seed=22)
    c = _crand((4, 4), seed=23)

    def right(m, module):
        return module.eig(m, compute_left_eigenvectors=False, enable_eigvec_derivs=True)

    # under jit: eager mode would compile each op of the Schur iteration on its own
    (w, _), (dw, dv) = numlir.jit(lambda p, d: numlir.jvp(lambda m: right(m, lax_linalg), (p,), (d,)))(a, da)
    (w_ref, _), (dw_ref, dv_ref) = jax.jvp(lambda m: right(m, jax.lax.linalg), (a,), (da,))
    order = _matching(np.asarray(w), np.asarray(w_ref))
    np.testing.assert_allclose(np.asarray(dw), np.asarray(dw_ref)[order], atol=1e-12)
    np.testing.assert_allclose(np.asarray(dv), np.asarray(dv_ref)[:, order], atol=1e-12)

    def loss(m, module, np_):
        # a sum over all the vectors, so the eigenvalue order does not matter
        return np_.real(np_.sum(np_.abs(right(m, module)[1] * c) ** 2))

    np.testing.assert_allclose(np.asarray(numlir.jit(numlir.grad(lambda m: loss(m, lax_linalg, jnp)))(a)),
                               np.asarray(jax.grad(lambda m: loss(m, jax.lax.linalg, jnp_ref))(a)),
                               atol=1e-11)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_left_eigenvectors_match_lapack(dtype, x64):
    a = _crand((4, 4), seed=31)
    a = a if dtype == np.complex128 else a.real.copy()
    w, vl, vr = lax_linalg.eig(a)
    w_ref, vl_ref, vr_ref = (np.asarray(r) for r in jax.lax.linalg.eig(a))
    order = _matching(np.asarray(w), w_ref)
    np.testing.assert_allclose(np.asarray(vl), vl_ref[:, order], atol=1e-12)
    np.testing.assert_allclose(np.asarray(vr), vr_ref[:, order], atol=1e-12)
    assert [r.shape for r in lax_linalg.eig(a, compute_left_eigenvectors=False)] == [(4,), (4, 4)]
    assert [r.shape for r in lax_linalg.eig(a, compute_right_eigenvectors=False)] == [(4,), (4, 4)]


def test_eig_derivatives_refuse_without_opting_in_as_jax():
    a = _crand((2, 2), seed=41, dtype=np.complex64)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        numlir.jvp(jnp.linalg.eig, (a,), (a,))
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        numlir.grad(lambda m: jnp.real(jnp.sum(lax_linalg.eig(m)[2])))(a)


def test_eigenvector_derivatives_of_repeated_eigenvalues_are_not_finite_as_jax(x64):
    a = np.diag([2.0, 2.0, 3.0]).astype(np.complex128)
    da = _crand((3, 3), seed=51)

    def right(m, module):
        return module.eig(m, compute_left_eigenvectors=False, enable_eigvec_derivs=True)[1]

    _, dv = numlir.jvp(lambda m: right(m, lax_linalg), (a,), (da,))
    _, dv_ref = jax.jvp(lambda m: right(m, jax.lax.linalg), (a,), (da,))
    assert not np.all(np.isfinite(np.asarray(dv_ref)))
    assert not np.all(np.isfinite(np.asarray(dv)))
