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
    # jitted: one compile for the oracle instead of one per eager jax op
    j_out, j_t_out = jax.jit(lambda p, t: jax.jvp(jax_f, p, t))(tuple(primals), tangents)
    np.testing.assert_allclose(np.asarray(out), np.asarray(j_out), rtol=rtol, atol=atol)
    np.testing.assert_allclose(np.asarray(t_out), np.asarray(j_t_out), rtol=rtol, atol=atol)
    if numerical:
        num = numerical_jvp(lambda *xs: np.asarray(f(*xs)), primals, tangents)
        np.testing.assert_allclose(np.asarray(t_out), num, rtol=rtol * 10, atol=atol * 10)
    return t_out


# --- check_grads: derivatives against finite differences, to any order ------------------------


def _leaves(tree):
    return [np.asarray(x, np.float64) for x in numlir.tree_util.tree_leaves(tree)]


def _inner(xs, ys):
    return sum(float(np.vdot(x, y)) for x, y in zip(_leaves(xs), _leaves(ys)))


def _assert_trees_close(actual, expected, rtol, atol, err_msg):
    a, e = _leaves(actual), _leaves(expected)
    assert len(a) == len(e), f"{err_msg}: {len(a)} outputs, expected {len(e)}"
    for x, y in zip(a, e):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=err_msg)


def _numerical_jvp_tree(f, args, tangents, eps):
    plus = f(*[np.asarray(a) + eps * t for a, t in zip(args, tangents)])
    minus = f(*[np.asarray(a) - eps * t for a, t in zip(args, tangents)])
    return [(p - m) / (2 * eps) for p, m in zip(_leaves(plus), _leaves(minus))]


def _check_fwd(f, args, rng, eps, rtol, atol, err_msg):
    tangents = [rand_like(rng, a) for a in args]
    _, t_out = numlir.jvp(f, tuple(args), tuple(tangents))
    expected = _numerical_jvp_tree(f, args, tangents, eps)
    _assert_trees_close(t_out, expected, rtol, atol, f"{err_msg} jvp vs finite differences")


def _check_rev(f, args, rng, eps, rtol, atol, err_msg):
    # The dot-product test: vjp is the transpose of the jvp when <vjp(ct), t> == <ct, jvp(t)>,
    # with jvp(t) both from numlir.jvp and from finite differences.
    out, f_vjp = numlir.vjp(f, *args)
    _assert_trees_close(out, f(*args), rtol, atol, f"{err_msg} vjp primal output")
    cts = numlir.tree_util.tree_map(lambda o: rand_like(rng, np.asarray(o)), out)
    cts_in = f_vjp(cts)
    tangents = [rand_like(rng, a) for a in args]
    lhs = _inner(cts_in, tangents)
    _, t_out = numlir.jvp(f, tuple(args), tuple(tangents))
    rhs = _inner(cts, t_out)
    rhs_numerical = _inner(_leaves(cts), _numerical_jvp_tree(f, args, tangents, eps))
    scale = max(1.0, abs(rhs))
    np.testing.assert_allclose(lhs, rhs, rtol=rtol, atol=atol * scale,
                               err_msg=f"{err_msg} <vjp(ct), t> vs <ct, jvp(t)>")
    np.testing.assert_allclose(lhs, rhs_numerical, rtol=rtol, atol=atol * scale,
                               err_msg=f"{err_msg} <vjp(ct), t> vs finite differences")


def check_grads(f, args, order=2, modes=("fwd", "rev"), eps=1e-5, rtol=1e-5, atol=1e-5,
                seed=0, _err_msg="f"):
    """Check ``f``'s derivatives up to ``order`` (like jax.test_util.check_grads).

    ``f`` takes float arrays (use float64: the x64 fixture) and returns an array or a tuple
    of arrays. "fwd": numlir.jvp against central finite differences. "rev": the dot-product
    test of numlir.vjp. For ``order`` > 1 the same checks run on the first derivatives:
    ``x -> jvp(f, x, t)[1]`` and ``x -> vjp(f, x)[1](ct)`` for fixed random ``t`` and ``ct``.
    """
    args = tuple(np.asarray(a) for a in args)
    rng = np.random.default_rng(seed)
    if "fwd" in modes:
        _check_fwd(f, args, rng, eps, rtol, atol, _err_msg)
        if order > 1:
            t = tuple(rand_like(rng, a) for a in args)
            check_grads(lambda *x: numlir.jvp(f, x, t)[1], args, order - 1, modes, eps, rtol,
                        atol, seed + 1, f"jvp({_err_msg})")
    if "rev" in modes:
        _check_rev(f, args, rng, eps, rtol, atol, _err_msg)
        if order > 1:
            out = f(*args)
            ct = numlir.tree_util.tree_map(lambda o: rand_like(rng, np.asarray(o)), out)
            check_grads(lambda *x: numlir.vjp(f, *x)[1](ct), args, order - 1, modes, eps, rtol,
                        atol, seed + 1, f"vjp({_err_msg})")


def check_vjp_against_jax(f, jax_f, args, seed=0, rtol=1e-6, atol=1e-6):
    """numlir.vjp of ``f`` matches jax.vjp of ``jax_f`` (outputs and input cotangents)."""
    args = tuple(np.asarray(a) for a in args)
    out, f_vjp = numlir.vjp(f, *args)
    rng = np.random.default_rng(seed)
    ct = jax.tree_util.tree_map(lambda o: rand_like(rng, np.zeros(o.shape, o.dtype)),
                                jax.eval_shape(jax_f, *args))

    @jax.jit  # one compile for the oracle instead of one per eager jax op
    def jax_vjp(args, ct):
        j_out, j_vjp = jax.vjp(jax_f, *args)
        return j_out, j_vjp(ct)

    j_out, j_cts = jax_vjp(args, ct)
    _assert_trees_close(out, j_out, rtol, atol, "vjp primal output vs jax")
    _assert_trees_close(f_vjp(ct), j_cts, rtol, atol, "vjp cotangents vs jax")
    return out
