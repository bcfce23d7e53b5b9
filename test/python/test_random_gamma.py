"""Gamma samples and the samplers built on them give jax.random's values for the same key
(eager, jit, vmap over keys), have the right moments, and refuse differentiation in `a`."""

import jax
import numpy as np
import pytest

import numlir
import numlir.random as random

KEY = 7
SAMPLERS = {
    "gamma_small_a": lambda r, k: r.gamma(k, 0.3, (40,)),
    "gamma_large_a": lambda r, k: r.gamma(k, 7.5, (3, 5)),
    "gamma_param_array": lambda r, k: r.gamma(k, np.array([0.1, 1.0, 2.0, 30.0], np.float32)),
    "loggamma": lambda r, k: r.loggamma(k, np.array([1e-3, 0.5, 4.0], np.float32), (2, 3)),
    "beta": lambda r, k: r.beta(k, 0.7, np.array([0.5, 2.0, 9.0], np.float32)),
    "dirichlet": lambda r, k: r.dirichlet(k, np.array([0.2, 1.0, 3.0], np.float32), (4,)),
    "chisquare": lambda r, k: r.chisquare(k, 3.0, (6,)),
    "f": lambda r, k: r.f(k, 4.0, 6.0, (5,)),
    "t": lambda r, k: r.t(k, np.array([1.0, 3.0, 30.0], np.float32)),
    "generalized_normal": lambda r, k: r.generalized_normal(k, 1.5, (7,)),
    "ball": lambda r, k: r.ball(k, 3, 2, (4,)),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_sampler_gives_jax_values_for_the_same_key(name):
    want = np.asarray(SAMPLERS[name](jax.random, jax.random.PRNGKey(KEY)))
    # The samplers are jitted themselves, so the eager call runs compiled code; one sampler
    # inside a user's jit is checked below (a second compilation of each would double the cost).
    got_all = [np.asarray(SAMPLERS[name](random, random.PRNGKey(KEY)))]
    if name in ("gamma_small_a", "dirichlet", "t"):
        got_all.append(np.asarray(numlir.jit(lambda k: SAMPLERS[name](random, k))(random.PRNGKey(KEY))))
    for got in got_all:
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=5e-5, atol=1e-6)


def test_vmap_over_keys_matches_jax():
    keys = random.split(random.PRNGKey(3), 4)
    got = numlir.vmap(lambda k: random.gamma(k, 0.8, (3,)))(keys)
    want = jax.vmap(lambda k: jax.random.gamma(k, 0.8, (3,)))(jax.random.split(jax.random.PRNGKey(3), 4))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=5e-5)


def test_vmap_over_the_shape_parameter_matches_jax():
    alphas = np.array([0.3, 1.0, 4.0], np.float32)
    got = numlir.vmap(lambda a: random.gamma(random.PRNGKey(2), a, (4,)))(alphas)
    want = jax.vmap(lambda a: jax.random.gamma(jax.random.PRNGKey(2), a, (4,)))(alphas)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=5e-5)
    for i, a in enumerate(alphas):  # the same key for each lane, as unbatched calls
        np.testing.assert_allclose(np.asarray(got)[i], np.asarray(random.gamma(random.PRNGKey(2), a, (4,))),
                                   rtol=1e-6)


def test_float64_gamma_under_x64(x64):
    want = np.asarray(jax.random.gamma(jax.random.PRNGKey(KEY), 2.5, (20,)))
    got = np.asarray(random.gamma(random.PRNGKey(KEY), 2.5, (20,)))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_moments():
    k = random.PRNGKey(0)
    n = 20_000
    for a in (0.4, 3.0):
        g = np.asarray(random.gamma(k, a, (n,)), np.float64)
        np.testing.assert_allclose([g.mean(), g.var()], [a, a], rtol=5e-2)
    b = np.asarray(random.beta(k, 2.0, 5.0, (n,)), np.float64)
    np.testing.assert_allclose(b.mean(), 2 / 7, rtol=2e-2)
    d = np.asarray(random.dirichlet(k, np.array([1.0, 2.0, 3.0], np.float32), (n,)))
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(d.mean(0), [1 / 6, 2 / 6, 3 / 6], rtol=3e-2)
    points = np.asarray(random.ball(k, 2, 2, (n,)))
    assert np.all(np.linalg.norm(points, axis=-1) <= 1 + 1e-6)
    np.testing.assert_allclose(np.mean(np.linalg.norm(points, axis=-1) ** 2), 0.5, rtol=3e-2)


def test_loggamma_is_finite_where_gamma_underflows():
    k = random.PRNGKey(1)
    logs = np.asarray(random.loggamma(k, 1e-4, (100,)))
    assert np.all(np.isfinite(logs)) and logs.min() < -100


def test_empty_shapes():
    assert random.gamma(random.PRNGKey(0), 1.0, (0, 3)).shape == (0, 3)


def test_samples_differentiate_in_a_as_jax(x64):
    # d sample / da at a fixed CDF value (lax.random_gamma_grad), jax's implicit derivative.
    # One a unbatched and the others batched: each library compiles two programs per sampler
    # (op by op, it would dispatch every op of the sampler's loop).
    key, jkey = random.PRNGKey(3), jax.random.PRNGKey(3)
    shapes = np.array([1.0, 2.5, 40.0])
    for name in ("gamma", "loggamma"):
        loss = lambda s: getattr(random, name)(key, s, (5,)).sum()
        jax_loss = lambda s: getattr(jax.random, name)(jkey, s, (5,)).sum()
        got = numlir.jit(numlir.grad(loss))(0.3)
        want = jax.jit(jax.grad(jax_loss))(0.3)
        np.testing.assert_allclose(float(got), float(want), rtol=1e-12, err_msg=name)
        got = numlir.jit(numlir.vmap(numlir.grad(loss)))(shapes)
        want = jax.jit(jax.vmap(jax.grad(jax_loss)))(shapes)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, err_msg=name)
    # Not differentiating in a is fine: the sample is a constant of the loss.
    g = numlir.grad(lambda x: (x * random.gamma(random.PRNGKey(0), 2.0)).sum())(3.0)
    np.testing.assert_allclose(float(g), float(random.gamma(random.PRNGKey(0), 2.0)))


def test_samplers_built_on_gamma_differentiate_as_jax(x64):
    key, jkey = random.PRNGKey(3), jax.random.PRNGKey(3)
    for name, args in (("beta", (2.0, 3.0)), ("dirichlet", (np.array([1.0, 2.0, 0.5]),)), ("chisquare", (3.0,))):
        # Under jit: one module, where eager mode compiles each of the sampler's ops.
        got = numlir.jit(numlir.grad(lambda *p: (getattr(random, name)(key, *p) ** 2).sum()))(*args)
        want = jax.jit(jax.grad(lambda *p: (getattr(jax.random, name)(jkey, *p) ** 2).sum()))(*args)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, err_msg=name)
    tangent = numlir.jit(lambda t: numlir.jvp(lambda s: random.beta(key, s, 2.0), (1.5,), (t,))[1])(1.0)
    want = jax.jit(lambda t: jax.jvp(lambda s: jax.random.beta(jkey, s, 2.0), (1.5,), (t,))[1])(1.0)
    np.testing.assert_allclose(float(tangent), float(want), rtol=1e-10)


def test_argument_errors():
    k = random.PRNGKey(0)
    with pytest.raises(ValueError, match="alpha.ndim >= 1"):
        random.dirichlet(k, 1.0)
    with pytest.raises(ValueError, match="must be a float dtype"):
        random.gamma(k, 1.0, (2,), dtype=np.int32)
    with pytest.raises(TypeError, match="dimension d"):
        random.ball(k, 2.5)
