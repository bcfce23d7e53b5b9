"""custom_jvp / custom_vjp against jax.custom_jvp / jax.custom_vjp and finite differences.

Each custom function is written once as a factory over (api, numpy module, lax) and
built twice: with numlir and with jax, so both run the same definition.
"""

import functools

import jax
import jax.numpy as J
import numpy as np
import pytest
from ad_testing import check_grads

import numlir
import numlir.lax as lax
import numlir.numpy as jnp
from numlir._src import core, reverse_mode, transpose

NL = (numlir, jnp, lax)
JX = (jax, J, jax.lax)


def close(actual, expected, rtol=1e-6, atol=1e-6):
    a, e = jax.tree_util.tree_leaves(actual), jax.tree_util.tree_leaves(expected)
    assert len(a) == len(e)
    for x, y in zip(a, e):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=atol)


def fd_grad(f, x, eps=1e-6):
    """Central finite-difference gradient of scalar ``f`` at float64 ``x``."""
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (float(f(x + d)) - float(f(x - d))) / (2 * eps)
    return g


# --- Definitions, built for numlir and for jax ----------------------------------------------


def make_log1pexp(api, m, _=None):
    @api.custom_jvp
    def log1pexp(x):
        return m.log(1.0 + m.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), t * (1.0 - 1.0 / (1.0 + m.exp(x)))

    return log1pexp


def make_scaled_sin(api, m, _=None):
    """sin with a deliberately wrong JVP (2 cos x): shows the rule, not autodiff, is used."""
    @api.custom_jvp
    def scaled_sin(x):
        return m.sin(x)

    @scaled_sin.defjvp
    def scaled_sin_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return scaled_sin(x), 2.0 * m.cos(x) * t

    return scaled_sin


def make_mul_defjvps(api, m, _=None):
    @api.custom_jvp
    def mul(x, y):
        return x * y

    mul.defjvps(lambda tx, ans, x, y: tx * y, lambda ty, ans, x, y: x * ty)
    return mul


def make_clip_gradient(api, m, _=None):
    @api.custom_vjp
    def clip_gradient(lo, hi, x):
        return x

    def fwd(lo, hi, x):
        return x, (lo, hi)

    def bwd(res, g):
        lo, hi = res
        return None, None, m.clip(g, lo, hi)

    clip_gradient.defvjp(fwd, bwd)
    return clip_gradient


def make_sin_vjp(api, m, _=None):
    """sin with its true VJP, residuals as a pytree (a dict holding a tuple)."""
    @api.custom_vjp
    def f(x):
        return m.sin(x)

    def fwd(x):
        return m.sin(x), {"cos": (m.cos(x),), "x": x}

    def bwd(res, g):
        return (g * res["cos"][0],)

    f.defvjp(fwd, bwd)
    return f


def make_weighted(api, m, _=None):
    """w * x ** 2 with its true VJP: a shared weight gets a cotangent summed over a vmap."""
    @api.custom_vjp
    def weighted(w, x):
        return w * x ** 2

    def fwd(w, x):
        return w * x ** 2, (w, x)

    def bwd(res, g):
        w, x = res
        return g * x ** 2, g * 2.0 * w * x

    weighted.defvjp(fwd, bwd)
    return weighted


# --- custom_jvp -----------------------------------------------------------------------------


def test_log1pexp_grad_at_100_is_one_not_nan():
    f, jf = make_log1pexp(*NL), make_log1pexp(*JX)
    assert float(numlir.grad(f)(100.0)) == 1.0
    assert float(jax.grad(jf)(100.0)) == 1.0
    naive = numlir.grad(lambda x: jnp.log(1.0 + jnp.exp(x)))(100.0)
    assert np.isnan(float(naive))  # without the rule the gradient is nan
    close(f(3.0), jf(3.0))


def test_eager_call_runs_the_function_without_the_rule():
    @numlir.custom_jvp
    def f(x):
        return x * 3.0

    @f.defjvp
    def f_jvp(primals, tangents):
        raise AssertionError("the rule must not run without a transformation")

    assert float(f(2.0)) == 6.0


def test_jvp_and_linearize_follow_the_rule_not_autodiff():
    f, jf = make_scaled_sin(*NL), make_scaled_sin(*JX)
    x, t = np.float32(0.7), np.float32(1.5)
    close(numlir.jvp(f, (x,), (t,)), jax.jvp(jf, (x,), (t,)))
    out, f_jvp = numlir.linearize(f, x)
    close(f_jvp(t), jax.jvp(jf, (x,), (t,))[1])
    assert np.isclose(float(f_jvp(t)), 2 * np.cos(0.7) * 1.5, rtol=1e-6)
    close(out, np.sin(x))


def test_grad_transposes_the_rule():
    f, jf = make_scaled_sin(*NL), make_scaled_sin(*JX)
    close(numlir.grad(f)(0.7), jax.grad(jf)(0.7))
    close(numlir.value_and_grad(lambda x: jnp.sum(f(x)))(np.arange(3.0, dtype=np.float32)),
          jax.value_and_grad(lambda x: J.sum(jf(x)))(np.arange(3.0, dtype=np.float32)))


def test_log1pexp_derivatives_match_finite_differences(x64):
    f = make_log1pexp(*NL)
    check_grads(f, (np.array([-1.5, 0.3, 2.0]),), order=2)


def test_defjvps_matches_jax_and_finite_differences(x64):
    f, jf = make_mul_defjvps(*NL), make_mul_defjvps(*JX)
    x, y = np.array([1.0, -2.0]), np.array([0.5, 3.0])
    tx, ty = np.array([0.3, 0.1]), np.array([-1.0, 2.0])
    close(numlir.jvp(f, (x, y), (tx, ty)), jax.jvp(jf, (x, y), (tx, ty)))
    loss = lambda f: lambda x, y: jnp.sum(f(x, y) ** 2)  # noqa: E731
    close(numlir.grad(loss(f), (0, 1))(x, y),
          jax.grad(lambda x, y: J.sum(jf(x, y) ** 2), (0, 1))(x, y))
    check_grads(f, (x, y), order=2)


def test_defjvps_none_means_no_contribution():
    def make(api, m, _=None):
        @api.custom_jvp
        def f(x, y):
            return x * y

        f.defjvps(lambda tx, ans, x, y: tx * y, None)
        return f

    f, jf = make(*NL), make(*JX)
    close(numlir.grad(f, (0, 1))(2.0, 3.0), jax.grad(jf, (0, 1))(2.0, 3.0))
    assert float(numlir.grad(f, 1)(2.0, 3.0)) == 0.0


def test_nondiff_argnums_passes_static_arguments_first():
    def make(api, m, _=None):
        @functools.partial(api.custom_jvp, nondiff_argnums=(0,))
        def app(fn, x):
            return fn(x)

        @app.defjvp
        def app_jvp(fn, primals, tangents):
            (x,), (t,) = primals, tangents
            return app(fn, x), 3.0 * t  # a rule that ignores fn's own derivative

        return app

    f, jf = make(*NL), make(*JX)
    close(numlir.grad(lambda x: f(jnp.sin, x))(0.4), jax.grad(lambda x: jf(J.sin, x))(0.4))
    assert float(numlir.grad(lambda x: f(jnp.sin, x))(0.4)) == 3.0
    close(numlir.jit(lambda x: f(jnp.cos, x))(0.4), np.cos(np.float32(0.4)))


def test_keyword_arguments_are_resolved_to_positions():
    def make(api, m, _=None):
        @api.custom_jvp
        def power(x, n=2.0):
            return x ** n

        @power.defjvp
        def power_jvp(primals, tangents):
            (x, n), (t, _) = primals, tangents
            return power(x, n), n * x ** (n - 1.0) * t

        return power

    f, jf = make(*NL), make(*JX)
    close(numlir.grad(lambda x: f(x=x, n=3.0))(2.0), jax.grad(lambda x: jf(x=x, n=3.0))(2.0))
    close(numlir.grad(lambda x: f(x))(2.0), 4.0)


def test_undifferentiated_inputs_get_zero_tangents_not_symbolic_zeros():
    seen = []

    @numlir.custom_jvp
    def f(x, y):
        return x * y

    @f.defjvp
    def f_jvp(primals, tangents):
        seen.append([(type(t).__name__, t.shape) for t in tangents])
        (x, y), (tx, ty) = primals, tangents
        return f(x, y), tx * y + x * ty

    assert float(numlir.grad(f)(2.0, np.float32(5.0))) == 5.0
    out, t = numlir.jvp(lambda x: f(x, np.ones(3, np.float32)), (np.float32(2.0),),
                        (np.float32(1.0),))
    np.testing.assert_array_equal(np.asarray(t), np.ones(3))
    assert [s for _, s in seen[-1]] == [(), (3,)]
    assert "Zero" not in {name for name, _ in seen[0] + seen[-1]}


def _symbolic_zeros_fn(api, zero_type):
    seen = []

    @api.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen.append(tuple(isinstance(t, zero_type) for t in tangents))
        parts = []  # the rule only runs with at least one nonzero tangent
        if not isinstance(tx, zero_type):
            parts.append(tx * y)
        if not isinstance(ty, zero_type):
            parts.append(x * ty)
        return x * y, sum(parts[1:], parts[0])

    f.defjvp(f_jvp, symbolic_zeros=True)
    return f, seen


def test_symbolic_zeros_reach_the_rule_as_in_jax():
    f, seen = _symbolic_zeros_fn(numlir, numlir.custom_derivatives.SymbolicZero)
    jf, jseen = _symbolic_zeros_fn(jax, jax.custom_derivatives.SymbolicZero)
    x, y = np.float32(2.0), np.float32(5.0)
    for ours, theirs in ((numlir.grad(f), jax.grad(jf)), (numlir.grad(f, 1), jax.grad(jf, 1)),
                         (numlir.jit(numlir.grad(f)), jax.jit(jax.grad(jf)))):
        close(ours(x, y), theirs(x, y))
        assert seen[-1] == jseen[-1]
    assert seen[0] == (False, True) and seen[1] == (True, False)
    xs = np.arange(3, dtype=np.float32)
    close(numlir.vmap(numlir.grad(f), in_axes=(0, None))(xs, y),
          jax.vmap(jax.grad(jf), in_axes=(0, None))(xs, y))
    assert seen[-1] == (False, True)
    assert repr(numlir.custom_derivatives.SymbolicZero(numlir.ShapedArray((2,), np.float32))) \
        == "SymbolicZero(f32[2])"


def test_symbolic_zero_output_tangent():
    @numlir.custom_jvp
    def f(x, n):
        return x * 2.0, n

    def f_jvp(primals, tangents):
        (x, n), (tx, _) = primals, tangents
        return (x * 2.0, n), (tx * 2.0, numlir.custom_derivatives.SymbolicZero(
            numlir.ShapedArray((), np.float32)))

    f.defjvp(f_jvp, symbolic_zeros=True)
    out, t = numlir.jvp(lambda x: f(x, np.float32(3.0)), (np.float32(1.5),), (np.float32(1.0),))
    close(t, (2.0, 0.0))


def test_pytree_inputs_and_outputs():
    def make(api, m, _=None):
        @api.custom_jvp
        def f(p):
            return {"prod": p["a"] * p["b"][0], "sum": p["a"] + p["b"][1]}

        @f.defjvp
        def f_jvp(primals, tangents):
            (p,), (t,) = primals, tangents
            out = f(p)
            return out, {"prod": t["a"] * p["b"][0] + p["a"] * t["b"][0],
                         "sum": 2.0 * t["a"] + t["b"][1]}

        return f

    f, jf = make(*NL), make(*JX)
    p = {"a": np.float32(1.5), "b": (np.float32(-2.0), np.arange(3, dtype=np.float32))}
    t = {"a": np.float32(0.5), "b": (np.float32(1.0), np.ones(3, np.float32))}
    close(numlir.jvp(f, (p,), (t,)), jax.jvp(jf, (p,), (t,)))
    loss = lambda f, s: lambda p: s.sum(f(p)["prod"]) + s.sum(f(p)["sum"] ** 2)  # noqa: E731
    close(numlir.grad(loss(f, jnp))(p), jax.grad(loss(jf, J))(p))


def test_custom_jvp_stays_a_primitive_under_jit():
    f, jf = make_log1pexp(*NL), make_log1pexp(*JX)
    graph = numlir.make_graph(f)(np.float32(1.0))
    assert [e.prim.name for e in graph.eqns] == ["custom_jvp_call"]
    assert float(numlir.jit(numlir.grad(f))(100.0)) == 1.0
    assert float(numlir.grad(numlir.jit(f))(100.0)) == 1.0
    close(numlir.jit(f)(np.float32(2.0)), jf(np.float32(2.0)))
    # jit inlined into an enclosing jvp, then differentiated there.
    g = numlir.jit(lambda x: f(x) * 2.0)
    close(numlir.jvp(g, (100.0,), (1.0,)), (np.inf, 2.0))


def test_custom_jvp_inside_cond_and_scan():
    f, jf = make_log1pexp(*NL), make_log1pexp(*JX)

    def cond_fn(f, lax):
        return lambda x: lax.cond(x > 0, f, lambda x: -x, x)

    def scan_fn(f, lax):
        return lambda xs: lax.scan(lambda c, x: (c + f(x), f(x)), 0.0, xs)[0]

    for x in (100.0, -2.0):
        close(numlir.grad(cond_fn(f, lax))(x), jax.grad(cond_fn(jf, jax.lax))(x))
        close(numlir.jvp(cond_fn(f, lax), (x,), (1.0,)),
              jax.jvp(cond_fn(jf, jax.lax), (x,), (1.0,)))
    assert float(numlir.grad(cond_fn(f, lax))(100.0)) == 1.0
    xs = np.array([100.0, 0.5, -1.0], np.float32)
    close(numlir.grad(scan_fn(f, lax))(xs), jax.grad(scan_fn(jf, jax.lax))(xs))
    close(numlir.jvp(scan_fn(f, lax), (xs,), (np.ones(3, np.float32),)),
          jax.jvp(scan_fn(jf, jax.lax), (xs,), (np.ones(3, np.float32),)))
    close(numlir.vmap(cond_fn(f, lax))(xs), jax.vmap(cond_fn(jf, jax.lax))(xs))


def test_vmap_of_custom_jvp_and_of_its_derivatives():
    f, jf = make_scaled_sin(*NL), make_scaled_sin(*JX)
    xs = np.array([0.1, 0.7, -1.2], np.float32)
    close(numlir.vmap(f)(xs), jax.vmap(jf)(xs))
    close(numlir.vmap(numlir.grad(f))(xs), jax.vmap(jax.grad(jf))(xs))
    # vmap inside the derivative: the batched call carries a batched rule.
    close(numlir.grad(lambda x: jnp.sum(numlir.vmap(f)(x)))(xs),
          jax.grad(lambda x: J.sum(jax.vmap(jf)(x)))(xs))
    ts = np.array([1.0, -2.0, 0.5], np.float32)
    close(numlir.jvp(numlir.vmap(f), (xs,), (ts,)), jax.jvp(jax.vmap(jf), (xs,), (ts,)))


def test_vmap_with_an_unbatched_operand():
    f, jf = make_mul_defjvps(*NL), make_mul_defjvps(*JX)
    x, ys = np.float32(1.5), np.array([1.0, 2.0, -3.0], np.float32)
    fn = lambda f, v: lambda x, ys: v(f, in_axes=(None, 0))(x, ys)  # noqa: E731
    close(fn(f, numlir.vmap)(x, ys), fn(jf, jax.vmap)(x, ys))
    close(numlir.jvp(fn(f, numlir.vmap), (x, ys), (np.float32(2.0), np.ones(3, np.float32))),
          jax.jvp(fn(jf, jax.vmap), (x, ys), (np.float32(2.0), np.ones(3, np.float32))))
    close(numlir.grad(lambda x, ys: jnp.sum(fn(f, numlir.vmap)(x, ys)), (0, 1))(x, ys),
          jax.grad(lambda x, ys: J.sum(fn(jf, jax.vmap)(x, ys)), (0, 1))(x, ys))


def test_vmap_over_a_custom_jvp_closing_over_a_batched_value():
    def make(api, m, y):
        @api.custom_jvp
        def f(x):
            return x * y

        @f.defjvp
        def f_jvp(primals, tangents):
            return f(primals[0]), tangents[0] * y

        return f

    xs, ys = np.array([1.0, 2.0], np.float32), np.array([3.0, -4.0], np.float32)
    nl = numlir.vmap(lambda x, y: numlir.grad(make(*NL[:2], y))(x))(xs, ys)
    jx = jax.vmap(lambda x, y: jax.grad(make(*JX[:2], y))(x))(xs, ys)
    close(nl, jx)
    close(nl, ys)


def test_jacobians_and_hessian_match_jax_and_finite_differences(x64):
    f, jf = make_log1pexp(*NL), make_log1pexp(*JX)
    x = np.array([-1.0, 0.5, 2.0])
    vec = lambda f, m: lambda x: f(x) * m.sum(x)  # noqa: E731
    close(numlir.jacfwd(vec(f, jnp))(x), jax.jacfwd(vec(jf, J))(x), atol=1e-12)
    close(numlir.jacrev(vec(f, jnp))(x), jax.jacrev(vec(jf, J))(x), atol=1e-12)
    scalar = lambda f, m: lambda x: m.sum(f(x) ** 2)  # noqa: E731
    hess = numlir.hessian(scalar(f, jnp))(x)
    close(hess, jax.hessian(scalar(jf, J))(x), atol=1e-12)
    grad_fn = numlir.jit(numlir.grad(scalar(f, jnp)))  # compiled once for the 18 evaluations
    fd_rows = [fd_grad(lambda z, i=i: np.asarray(grad_fn(z))[i], x) for i in range(3)]
    np.testing.assert_allclose(np.asarray(hess), np.stack(fd_rows), rtol=1e-6, atol=1e-6)


def test_grad_of_grad_uses_the_rule_at_both_orders(x64):
    f, jf = make_log1pexp(*NL), make_log1pexp(*JX)
    for x in (-3.0, 0.25, 4.0):
        g2 = numlir.grad(numlir.grad(f))(x)
        close(g2, jax.grad(jax.grad(jf))(x), atol=1e-12)
        s = 1.0 / (1.0 + np.exp(-x))
        np.testing.assert_allclose(float(g2), s * (1.0 - s), rtol=1e-12)
    # The naive second derivative at 100 is nan; the rule's is sigmoid'(100) ~ exp(-100).
    np.testing.assert_allclose(float(numlir.grad(numlir.grad(f))(100.0)), np.exp(-100.0),
                               rtol=1e-9)


# --- custom_jvp errors ----------------------------------------------------------------------


def test_rule_with_wrong_tangent_structure_names_the_function():
    @numlir.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_rule(primals, tangents):
        return jnp.sin(primals[0]), (tangents[0], tangents[0])

    with pytest.raises(TypeError, match=r"f_rule for function f .*pytree"):
        numlir.jvp(f, (1.0,), (1.0,))


def test_rule_with_wrong_tangent_shape_names_the_mismatch():
    @numlir.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_rule(primals, tangents):
        return jnp.sin(primals[0]), jnp.ones(3)

    with pytest.raises(TypeError, match=r"function f .*f32\[\] and the tangent f32\[3\]"):
        numlir.grad(f)(1.0)


def test_rule_with_wrong_primal_output_names_the_mismatch():
    @numlir.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_rule(primals, tangents):
        return jnp.ones(2), jnp.ones(2)

    with pytest.raises(TypeError, match=r"function f .*f32\[2\] where f returns f32\[\]"):
        numlir.jvp(f, (np.float32(1.0),), (np.float32(1.0),))

    @f.defjvp
    def not_a_pair(primals, tangents):
        return jnp.sin(primals[0])

    with pytest.raises(TypeError, match="must produce a pair"):
        numlir.jvp(f, (np.float32(1.0),), (np.float32(1.0),))


def test_missing_rule_and_defjvps_with_nondiff_argnums_are_errors():
    f = numlir.custom_jvp(lambda x: x)
    with pytest.raises(AttributeError, match="No JVP defined"):
        f(1.0)
    g = numlir.custom_jvp(lambda n, x: x, nondiff_argnums=(0,))
    with pytest.raises(TypeError, match="defjvps with nondiff_argnums"):
        g.defjvps(lambda t, ans, x: t)


def test_differentiating_a_closed_over_value_is_an_error():
    def f(x):
        @numlir.custom_jvp
        def g(y):
            return x * y

        g.defjvp(lambda primals, tangents: (g(primals[0]), x * tangents[0]))
        return g(1.0)

    with pytest.raises(numlir.UnexpectedTracerError, match="closes over a value"):
        numlir.grad(f)(3.0)


# --- custom_vjp -----------------------------------------------------------------------------


def test_clip_gradient_clips_only_the_gradient():
    f, jf = make_clip_gradient(*NL), make_clip_gradient(*JX)
    loss = lambda f: lambda x: 3.0 * f(-1.0, 1.0, x)  # noqa: E731
    for x in (2.0, -0.5):
        assert float(numlir.grad(loss(f))(x)) == 1.0
        close(numlir.grad(loss(f))(x), jax.grad(loss(jf))(x))
        close(loss(f)(x), loss(jf)(x))
    small = lambda f: lambda x: 0.25 * f(-1.0, 1.0, x)  # noqa: E731
    close(numlir.grad(small(f))(2.0), jax.grad(small(jf))(2.0))
    assert float(numlir.grad(small(f))(2.0)) == 0.25
    xs = np.array([0.5, -4.0, 9.0], np.float32)
    vec = lambda f, m: lambda x: m.sum(m.array([5.0, -0.2, -7.0]) * f(-1.0, 1.0, x))  # noqa: E731
    close(numlir.grad(vec(f, jnp))(xs), jax.grad(vec(jf, J))(xs))


def test_pytree_residuals_and_true_vjp_match_finite_differences(x64):
    f, jf = make_sin_vjp(*NL), make_sin_vjp(*JX)
    x = np.array([0.3, -1.2, 2.5])
    loss = lambda f, m: lambda x: m.sum(f(x) * m.arange(1.0, 4.0))  # noqa: E731
    g = numlir.grad(loss(f, jnp))(x)
    close(g, jax.grad(loss(jf, J))(x), atol=1e-12)
    np.testing.assert_allclose(np.asarray(g), fd_grad(loss(f, jnp), x), rtol=1e-7, atol=1e-8)
    y, f_vjp = numlir.vjp(f, x)
    jy, jf_vjp = jax.vjp(jf, x)
    close((y, f_vjp(np.ones(3))), (jy, jf_vjp(np.ones(3))), atol=1e-12)
    close(numlir.jacrev(f)(x), jax.jacrev(jf)(x), atol=1e-12)


def test_pytree_arguments_with_none_cotangents():
    def make(api, m, _=None):
        @api.custom_vjp
        def f(p, scale):
            return p["w"] * p["b"] * scale

        def fwd(p, scale):
            return f(p, scale), (p, scale)

        def bwd(res, g):
            p, scale = res
            return {"w": g * p["b"] * scale, "b": None}, None

        f.defvjp(fwd, bwd)
        return f

    f, jf = make(*NL), make(*JX)
    p = {"w": np.float32(2.0), "b": np.float32(3.0)}
    close(numlir.grad(f, (0, 1))(p, np.float32(0.5)), jax.grad(jf, (0, 1))(p, np.float32(0.5)))
    g = numlir.grad(f)(p, np.float32(0.5))
    assert float(g["w"]) == 1.5 and float(g["b"]) == 0.0


def test_custom_vjp_with_nondiff_argnums():
    def make(api, m, _=None):
        @functools.partial(api.custom_vjp, nondiff_argnums=(0,))
        def app(fn, x):
            return fn(x)

        def fwd(fn, x):
            return fn(x), x

        def bwd(fn, x, g):
            return (g * fn(x),)  # a rule using the static argument

        app.defvjp(fwd, bwd)
        return app

    f, jf = make(*NL), make(*JX)
    close(numlir.grad(lambda x: f(jnp.exp, x))(0.5), jax.grad(lambda x: jf(J.exp, x))(0.5))
    assert np.isclose(float(numlir.grad(lambda x: f(jnp.exp, x))(0.5)), np.exp(0.5))


def test_vmap_of_grad_is_per_example():
    f, jf = make_clip_gradient(*NL), make_clip_gradient(*JX)
    xs = np.array([1.0, 2.0, -3.0], np.float32)
    scales = np.array([0.5, 3.0, -7.0], np.float32)
    loss = lambda f: lambda x, s: s * f(-1.0, 1.0, x)  # noqa: E731
    nl = numlir.vmap(numlir.grad(loss(f)))(xs, scales)
    close(nl, jax.vmap(jax.grad(loss(jf)))(xs, scales))
    np.testing.assert_array_equal(np.asarray(nl), [0.5, 1.0, -1.0])
    close(numlir.vmap(f, in_axes=(None, None, 0))(-1.0, 1.0, xs), xs)


def test_grad_of_vmap_sums_the_cotangent_of_a_shared_argument(x64):
    f, jf = make_weighted(*NL), make_weighted(*JX)
    w, xs = np.float64(1.5), np.array([1.0, -2.0, 0.5])
    loss = lambda f, m, v: lambda w, xs: m.sum(v(f, in_axes=(None, 0))(w, xs) ** 2)  # noqa: E731
    g = numlir.grad(loss(f, jnp, numlir.vmap), (0, 1))(w, xs)
    close(g, jax.grad(loss(jf, J, jax.vmap), (0, 1))(w, xs), atol=1e-12)
    nl_loss = loss(f, jnp, numlir.vmap)
    np.testing.assert_allclose(float(g[0]), fd_grad(lambda w: nl_loss(w, xs), w), rtol=1e-7)
    np.testing.assert_allclose(np.asarray(g[1]), fd_grad(lambda x: nl_loss(w, x), xs), rtol=1e-7)
    close(numlir.jacrev(numlir.vmap(f, in_axes=(None, 0)))(w, xs),
          jax.jacrev(jax.vmap(jf, in_axes=(None, 0)))(w, xs), atol=1e-12)


def test_batched_linear_map_transposes_with_a_batched_bwd():
    # vmap over the linear (custom_lin) graph itself, then transposed: each example's
    # cotangent goes through bwd; the residuals are shared by the batch.
    w, x = np.float32(1.5), np.float32(-2.0)
    _, _, lin = reverse_mode._linearize_flat(make_weighted(*NL), [w, x])
    g = lin.graph
    assert [e.prim.name for e in g.eqns] == ["custom_lin"]

    def batched_linear(tws, txs):
        return numlir.vmap(lambda tw, tx: core.eval_graph(g.graph, g.consts, tw, tx))(tws, txs)

    aval = core.ShapedArray((3,), np.float32)
    ct = np.array([1.0, -2.0, 0.5], np.float32)
    cts = transpose.linear_transpose_fn(batched_linear, [aval, aval])(ct)
    close(cts, [ct * x ** 2, ct * 2 * w * x])


def test_custom_vjp_stays_a_primitive_under_jit():
    f, jf = make_clip_gradient(*NL), make_clip_gradient(*JX)
    graph = numlir.make_graph(lambda x: f(-1.0, 1.0, x))(np.float32(1.0))
    assert [e.prim.name for e in graph.eqns] == ["custom_vjp_call"]
    loss = lambda f: lambda x: 3.0 * f(-1.0, 1.0, x)  # noqa: E731
    assert float(numlir.jit(numlir.grad(loss(f)))(2.0)) == 1.0
    assert float(numlir.grad(numlir.jit(loss(f)))(2.0)) == 1.0
    close(numlir.jit(loss(f))(np.float32(2.0)), loss(jf)(np.float32(2.0)))


def test_custom_vjp_inside_cond():
    f, jf = make_clip_gradient(*NL), make_clip_gradient(*JX)
    fn = lambda f, lax: lambda x: lax.cond(x > 0, lambda x: 3.0 * f(-1.0, 1.0, x),  # noqa: E731
                                           lambda x: 5.0 * x, x)
    for x in (2.0, -2.0):
        close(numlir.grad(fn(f, lax))(x), jax.grad(fn(jf, jax.lax))(x))
    assert float(numlir.grad(fn(f, lax))(2.0)) == 1.0


def test_hessian_differentiates_fwd_and_bwd(x64):
    f, jf = make_sin_vjp(*NL), make_sin_vjp(*JX)
    x = np.array([0.3, -1.2])
    loss = lambda f, m: lambda x: m.sum(f(x))  # noqa: E731
    h = numlir.hessian(loss(f, jnp))(x)
    close(h, jax.hessian(loss(jf, J))(x), atol=1e-12)
    np.testing.assert_allclose(np.asarray(h), np.diag(-np.sin(x)), atol=1e-12)
    close(numlir.grad(numlir.grad(lambda x: f(x)))(0.3), -np.sin(0.3), atol=1e-12)


# --- custom_vjp errors ----------------------------------------------------------------------


def test_forward_mode_of_custom_vjp_is_a_type_error():
    f = make_clip_gradient(*NL)
    msg = r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp function"
    with pytest.raises(TypeError, match=msg):
        numlir.jvp(lambda x: f(-1.0, 1.0, x), (1.0,), (1.0,))
    with pytest.raises(TypeError, match=msg):
        numlir.jacfwd(lambda x: f(-1.0, 1.0, x))(np.ones(2, np.float32))
    with pytest.raises(TypeError, match=msg):
        numlir.jit(lambda x: numlir.jvp(lambda x: f(-1.0, 1.0, x), (x,), (x,)))(1.0)


def _two_arg_vjp(bwd):
    @numlir.custom_vjp
    def h(x, y):
        return x * y

    h.defvjp(lambda x, y: (x * y, (x, y)), bwd)
    return h


def test_bwd_with_the_wrong_number_of_cotangents_names_the_function():
    def h_bwd(res, g):
        return (g,)

    with pytest.raises(TypeError, match=r"h_bwd for function h .*2 here.*length 1"):
        numlir.grad(_two_arg_vjp(h_bwd))(1.0, 2.0)

    def h_bwd2(res, g):
        return g

    with pytest.raises(TypeError, match=r"h_bwd2 for function h must produce a tuple"):
        numlir.grad(_two_arg_vjp(h_bwd2))(1.0, 2.0)


def test_bwd_with_a_wrong_cotangent_names_the_argument():
    def h_bwd(res, g):
        return g, jnp.ones(2)

    with pytest.raises(ValueError, match=r"function h .*argument 1 of type f32\[\] .*f32\[2\]"):
        numlir.grad(_two_arg_vjp(h_bwd))(1.0, 2.0)

    def h_bwd2(res, g):
        return {"a": g}, g

    with pytest.raises(TypeError, match=r"h_bwd2 for function h .*structure of argument 0"):
        numlir.grad(_two_arg_vjp(h_bwd2))(1.0, 2.0)


def test_fwd_that_is_not_a_pair_is_an_error():
    @numlir.custom_vjp
    def h(x):
        return x * 2.0

    def h_fwd(x):
        return x * 2.0

    h.defvjp(h_fwd, lambda res, g: (g,))
    with pytest.raises(TypeError, match=r"h_fwd for function h must produce a pair"):
        numlir.grad(h)(1.0)
    with pytest.raises(AttributeError, match="No VJP defined"):
        numlir.custom_vjp(lambda x: x)(1.0)


def _vjp_symbolic_zeros_fn(api):
    cd = api.custom_derivatives
    seen = {}

    @api.custom_vjp
    def f(x, y):
        return x * y, x + y

    def fwd(x, y):
        seen["perturbed"] = (x.perturbed, y.perturbed)
        return f(x.value, y.value), (x.value, y.value)

    def bwd(res, cts):
        x, y = res
        ct_prod, ct_sum = cts
        seen["zero_cts"] = tuple(isinstance(c, cd.SymbolicZero) for c in cts)
        if isinstance(ct_prod, cd.SymbolicZero):
            return ct_sum, ct_sum
        if isinstance(ct_sum, cd.SymbolicZero):
            return ct_prod * y, ct_prod * x
        return ct_prod * y + ct_sum, ct_prod * x + ct_sum

    f.defvjp(fwd, bwd, symbolic_zeros=True)
    return f, seen


def test_custom_vjp_symbolic_zeros_as_in_jax():
    f, seen = _vjp_symbolic_zeros_fn(numlir)
    jf, jseen = _vjp_symbolic_zeros_fn(jax)
    x, y = np.float32(2.0), np.float32(5.0)
    cases = [(lambda g: lambda x, y: g(x, y)[1], 0), (lambda g: lambda x, y: g(x, y)[0], 1),
             (lambda g: lambda x, y: g(x, y)[0] + g(x, y)[1], (0, 1))]
    for make, argnums in cases:
        close(numlir.grad(make(f), argnums)(x, y), jax.grad(make(jf), argnums)(x, y))
        assert seen == jseen
    close(numlir.vmap(numlir.grad(cases[0][0](f)), in_axes=(0, None))(np.arange(3.0, dtype=np.float32), y),
          jax.vmap(jax.grad(cases[0][0](jf)), in_axes=(0, None))(np.arange(3.0, dtype=np.float32), y))
    assert seen["zero_cts"] == (True, False)
