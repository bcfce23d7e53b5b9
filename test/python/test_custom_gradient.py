"""custom_gradient and closure_convert, against jax: the user's vjp is what reverse mode
uses (through jit, vmap and nesting), the value is the function's, and closed-over
traced values are hoisted."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp


def _clipped(m, lib):
    @lib.custom_gradient
    def clip_gradient(x):
        return x * 1.0, lambda g: (m.clip(g, -0.5, 0.5),)

    return clip_gradient


def _log1pexp(m, lib):
    @lib.custom_gradient
    def log1pexp(x, y):
        e = m.exp(x)
        return m.log1p(e) * y, lambda g: (g * y * (1 - 1 / (1 + e)), g * m.log1p(e))

    return log1pexp


def test_the_users_vjp_is_the_gradient():
    x = np.array([-2.0, 0.3, 3.0], np.float32)
    f, fj = _clipped(jnp, numlir), _clipped(jjnp, jax)
    loss = lambda fn: lambda v: (fn(v) * 3.0).sum()  # noqa: E731
    np.testing.assert_array_equal(np.asarray(numlir.grad(loss(f))(x)), np.asarray(jax.grad(loss(fj))(x)))
    np.testing.assert_array_equal(np.asarray(numlir.grad(loss(f))(x)), [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(np.asarray(f(x)), x)


def test_two_arguments_under_jit_and_vmap_match_jax(x64):
    x, y = np.array([-30.0, 0.5, 40.0]), np.array([1.0, 2.0, 3.0])
    f, fj = _log1pexp(jnp, numlir), _log1pexp(jjnp, jax)
    got = numlir.jit(numlir.vmap(numlir.grad(f, argnums=(0, 1))))(x, y)
    want = jax.jit(jax.vmap(jax.grad(fj, argnums=(0, 1))))(x, y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(numlir.jit(f)(x, y)), np.asarray(fj(x, y)), rtol=1e-14)


def test_the_vjp_may_close_over_forward_values_and_outer_tracers(x64):
    def make(m, lib):
        def outer(scale, x):
            @lib.custom_gradient
            def f(x):
                y = m.sin(x) * scale
                return y, lambda g: (g * m.cos(x) * scale * 2.0,)  # twice the true derivative

            return f(x).sum()

        return outer

    x = np.linspace(-1, 1, 4)
    got = numlir.grad(make(jnp, numlir), argnums=1)(1.5, x)
    want = jax.grad(make(jjnp, jax), argnums=1)(1.5, x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)


def test_closure_convert_hoists_traced_values(x64):
    def check(v, scale):
        def f(x):
            return jnp.sin(x) * scale + v

        converted, hoisted = numlir.closure_convert(f, v)
        assert len(hoisted) == 2  # the closed-over scale and v are traced
        return converted(v * 2.0, *hoisted).sum()

    x = np.array([0.1, 0.2])
    got = numlir.grad(check, argnums=(0, 1))(x, 3.0)
    want = jax.grad(lambda v, s: (jjnp.sin(2 * v) * s + v).sum(), argnums=(0, 1))(x, 3.0)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-14)
    converted, hoisted = numlir.closure_convert(lambda a: a * 2.0, 1.0)
    assert hoisted == [] and float(converted(4.0)) == 8.0


def test_errors():
    with pytest.raises(TypeError, match="closure_convert"):
        converted, hoisted = numlir.closure_convert(lambda a, b: a + b, 1.0, 2.0)
        converted((1.0, 2.0))
