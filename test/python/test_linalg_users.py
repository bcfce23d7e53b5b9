"""What the factorizations made possible: random.multivariate_normal and random.orthogonal,
the orthogonal initializers and jnp.polyfit, against jax (same key, same values)."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from jax_comparison import assert_same

COV = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 0.5]])


@pytest.fixture(params=[False, True], ids=["f32", "f64"])
def precision(request):
    if request.param:
        request.getfixturevalue("x64")
    return 2e-6 if not request.param else 1e-13


@pytest.mark.parametrize("mean_shape, cov_batch, shape", [((3,), (), None), ((3,), (), (5,)),
                                                         ((2, 3), (), None), ((3,), (4,), (2, 4))])
def test_multivariate_normal_with_the_cholesky_factor_equals_jax(precision, mean_shape, cov_batch,
                                                                 shape):
    mean = np.arange(np.prod(mean_shape), dtype=float).reshape(mean_shape)
    cov = np.broadcast_to(COV, cov_batch + COV.shape)
    got = numlir.random.multivariate_normal(numlir.random.PRNGKey(7), mean, cov, shape)
    want = jax.random.multivariate_normal(jax.random.PRNGKey(7), mean, cov, shape)
    assert_same(got, want, precision)


@pytest.mark.parametrize("method", ["eigh", "svd"])
def test_multivariate_normal_by_eigh_and_svd_has_the_covariance(x64, method):
    samples = numlir.random.multivariate_normal(numlir.random.PRNGKey(1), np.zeros(3), COV,
                                                (20000,), method=method)
    np.testing.assert_allclose(np.cov(np.asarray(samples).T), COV, atol=0.06)


def test_multivariate_normal_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"cov.shape == \(..., n, n\) for n=3"):
        numlir.random.multivariate_normal(numlir.random.PRNGKey(0), np.zeros(3), np.eye(2))
    with pytest.raises(ValueError, match="method must be one of"):
        numlir.random.multivariate_normal(numlir.random.PRNGKey(0), np.zeros(2), np.eye(2),
                                          method="lu")


@pytest.mark.parametrize("n, m, shape", [(4, None, ()), (5, 3, (2,)), (3, 5, ())])
def test_orthogonal_equals_jax_and_is_orthogonal(precision, n, m, shape):
    got = numlir.random.orthogonal(numlir.random.PRNGKey(2), n, shape, m=m)
    assert_same(got, jax.random.orthogonal(jax.random.PRNGKey(2), n, shape, m=m), precision)
    q = np.asarray(got, np.float64)
    gram = np.swapaxes(q, -1, -2) @ q if q.shape[-2] >= q.shape[-1] else q @ np.swapaxes(q, -1, -2)
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(gram.shape[-1]), gram.shape), atol=1e-5)


@pytest.mark.parametrize("shape, column_axis", [((4, 3), -1), ((2, 3, 5), -1), ((6, 4), 0)])
def test_orthogonal_initializer_equals_jax(precision, shape, column_axis):
    init = numlir.nn.initializers.orthogonal(2.0, column_axis)
    want = jax.nn.initializers.orthogonal(2.0, column_axis)(jax.random.PRNGKey(3), shape)
    assert_same(init(numlir.random.PRNGKey(3), shape), want, 4 * precision)


@pytest.mark.parametrize("shape", [(3, 4, 5), (3, 3, 4, 5), (3, 1, 3, 2, 2)])
def test_delta_orthogonal_initializer_equals_jax(shape):
    want = jax.nn.initializers.delta_orthogonal()(jax.random.PRNGKey(4), shape)
    assert_same(numlir.nn.initializers.delta_orthogonal()(numlir.random.PRNGKey(4), shape), want, 2e-6)


def test_orthogonal_initializers_reject_bad_shapes():
    with pytest.raises(ValueError, match="at least a 2D shape"):
        numlir.nn.initializers.orthogonal()(numlir.random.PRNGKey(0), (3,))
    with pytest.raises(ValueError, match="3D, 4D or 5D"):
        numlir.nn.initializers.delta_orthogonal()(numlir.random.PRNGKey(0), (3, 3))


X = np.linspace(-1, 2, 9)
Y = np.cos(X) + 0.1 * X ** 3


@pytest.mark.parametrize("args, kwargs", [
    ((X, Y, 3), {}), ((X, np.stack([Y, Y ** 2], 1), 2), {}), ((X, Y, 4), {"w": np.linspace(1, 2, 9)}),
    ((X, Y, 2), {"full": True}), ((X, Y, 2), {"cov": True}),
    ((X, np.stack([Y, Y ** 2], 1), 2), {"cov": "unscaled"}),
], ids=["plain", "2d", "weighted", "full", "cov", "cov_unscaled_2d"])
def test_polyfit_equals_jax(precision, args, kwargs):
    assert_same(jnp.polyfit(*args, **kwargs), jnp_ref.polyfit(*args, **kwargs), 10 * precision)


def test_polyfit_under_jit_and_its_gradient(x64):
    fit = numlir.jit(lambda y: jnp.polyfit(X, y, 2))
    np.testing.assert_allclose(np.asarray(fit(Y)), np.polyfit(X, Y, 2), atol=1e-12)
    got = numlir.grad(lambda y: jnp.polyfit(X, y, 2).sum())(Y)
    want = jax.grad(lambda y: jnp_ref.polyfit(X, y, 2).sum())(Y)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-10)
