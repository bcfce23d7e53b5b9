"""Helpers for autodiff tests: jvp against jax and against central finite differences."""

import jax
import numpy as np

import numlir


def rand_like(rng, x):
    return rng.standard_normal(np.shape(x)).astype(np.asarray(x).dtype)


def numerical_jvp(f, primals, tangents, eps=1e-6):
    """Central finite difference (f(x + eps t) - f(x - eps t)) / 2 eps, in float64."""
    plus = f(*[np.asarray(p) + eps * np.asarray(t) for p, t in zip(primals, tangents)])
    minus = f(*[np.asarray(p) - eps * np.asarray(t) for p, t in zip(primals, tangents)])
    return (np.asarray(plus, np.float64) - np.asarray(minus, np.float64)) / (2 * eps)


def check_jvp(f, jax_f, primals, seed=0, rtol=1e-5, atol=1e-6, numerical=True):
    """jvp of numlir ``f`` matches jax.jvp of ``jax_f`` and (float64) finite differences."""
    rng = np.random.default_rng(seed)
    tangents = tuple(rand_like(rng, p) for p in primals)
    out, t_out = numlir.jvp(f, tuple(primals), tangents)
    j_out, j_t_out = jax.jvp(jax_f, tuple(primals), tangents)
    np.testing.assert_allclose(np.asarray(out), np.asarray(j_out), rtol=rtol, atol=atol)
    np.testing.assert_allclose(np.asarray(t_out), np.asarray(j_t_out), rtol=rtol, atol=atol)
    if numerical:
        num = numerical_jvp(lambda *xs: np.asarray(f(*xs)), primals, tangents)
        np.testing.assert_allclose(np.asarray(t_out), num, rtol=rtol * 10, atol=atol * 10)
    return t_out
