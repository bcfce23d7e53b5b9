"""Reverse mode and composition: grad/vjp/value_and_grad/jacrev/hessian against jax."""

import jax
import jax.numpy as J
import numpy as np
import pytest

import numlir
import numlir.lax as lax
import numlir.numpy as jnp
from numlir._src import dispatch

R = np.random.default_rng(0)
X = R.standard_normal((3, 4)).astype(np.float32)
W = R.standard_normal((4, 5)).astype(np.float32)


def close(a, b, rtol=1e-5, atol=1e-6):
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=atol)
    assert len(jax.tree_util.tree_leaves(a)) == len(jax.tree_util.tree_leaves(b))


def mlp_loss(np_like):
    def loss(params, x):
        h = np_like.tanh(x @ params["w"] + params["b"])
        return np_like.mean(h ** 2) + 0.1 * np_like.sum(params["w"] ** 2)
    return loss


PARAMS = {"w": W, "b": R.standard_normal(5).astype(np.float32)}


def test_grad_of_pytree_params_matches_jax():
    close(numlir.grad(mlp_loss(jnp))(PARAMS, X), jax.jit(jax.grad(mlp_loss(J)))(PARAMS, X))


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0), -1])
def test_argnums(argnums):
    f, jf = mlp_loss(jnp), mlp_loss(J)
    close(numlir.grad(f, argnums)(PARAMS, X), jax.jit(jax.grad(jf, argnums))(PARAMS, X))


def test_value_and_grad_and_has_aux():
    def f(np_like):
        return lambda x: (np_like.sum(np_like.sin(x)), {"n": x.shape[0], "sq": x * x})
    (v, aux), g = numlir.value_and_grad(f(jnp), has_aux=True)(X)
    (jv, jaux), jg = jax.jit(jax.value_and_grad(f(J), has_aux=True))(X)
    close((v, g, aux["sq"]), (jv, jg, jaux["sq"]))
    assert aux["n"] == 3
    g2, aux2 = numlir.grad(f(jnp), has_aux=True)(X)
    close((g2, aux2["sq"]), (jg, jaux["sq"]))


def test_vjp_with_pytree_output_and_cotangent():
    def f(np_like):
        return lambda x, w: {"a": np_like.tanh(x @ w), "b": np_like.sum(x, axis=0)}
    out, f_vjp = numlir.vjp(f(jnp), X, W)
    jout, jf_vjp = jax.vjp(f(J), X, W)
    ct = {"a": R.standard_normal((3, 5)).astype(np.float32), "b": np.ones(4, np.float32)}
    close(out, jout)
    close(f_vjp(ct), jf_vjp(ct))


def test_vjp_has_aux():
    out, f_vjp, aux = numlir.vjp(lambda x: (jnp.sin(x), x.sum()), X, has_aux=True)
    close(aux, X.sum())
    close(f_vjp(np.ones_like(X)), (np.cos(X),))


def test_allow_int_gives_float0_zeros():
    def f(x, n):
        return jnp.sum(x * n)
    gx, gn = numlir.grad(f, (0, 1), allow_int=True)(X, np.arange(4, dtype=np.int32))
    close(gx, np.broadcast_to(np.arange(4, dtype=np.float32), X.shape))
    assert gn.dtype == numlir.dtypes.float0 if hasattr(numlir, "dtypes") else gn.dtype.names == ("float0",)
    assert gn.shape == (4,)
    jgn = jax.jit(jax.grad(lambda x, n: J.sum(x * n), (0, 1), allow_int=True))(X, np.arange(4, dtype=np.int32))[1]
    assert gn.dtype == jgn.dtype


def test_jacrev_and_jacfwd_match_jax():
    def f(np_like):
        return lambda x, w: np_like.tanh(x @ w)
    for ours, theirs in ((numlir.jacrev, jax.jacrev), (numlir.jacfwd, jax.jacfwd)):
        close(ours(f(jnp), (0, 1))(X, W), theirs(f(J), (0, 1))(X, W))


def test_jacrev_pytree_output():
    def f(np_like):
        return lambda x: {"s": np_like.sum(x ** 3), "v": np_like.sin(x[0])}
    close(numlir.jacrev(f(jnp))(X), jax.jit(jax.jacrev(f(J)))(X))


def test_hessian_matches_jax_and_is_symmetric():
    def f(np_like):
        return lambda x: np_like.sum(np_like.sin(x) * x[::-1]) + np_like.prod(x[:3])
    x = R.standard_normal(5).astype(np.float32)
    h = np.asarray(numlir.hessian(f(jnp))(x))
    close(h, jax.jit(jax.hessian(f(J)))(x), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h, h.T, rtol=1e-5, atol=1e-6)


def test_grad_numerically_float64(x64):
    def f(x):
        return jnp.sum(jnp.exp(jnp.sin(x) * x) / (1.0 + x ** 2))
    x = R.standard_normal(6)
    g = np.asarray(numlir.grad(f)(x))
    eps = 1e-6
    num = np.array([(float(f(x + eps * e)) - float(f(x - eps * e))) / (2 * eps) for e in np.eye(6)])
    np.testing.assert_allclose(g, num, rtol=1e-7, atol=1e-9)


# --- Composition ------------------------------------------------------------------------------


def test_jit_of_grad_and_grad_of_jit_agree():
    f = mlp_loss(jnp)
    want = jax.jit(jax.grad(mlp_loss(J)))(PARAMS, X)
    close(numlir.jit(numlir.grad(f))(PARAMS, X), want)
    close(numlir.grad(numlir.jit(f))(PARAMS, X), want)


def test_gradient_of_compiled_function_is_one_executable():
    def loss(w, x):
        return jnp.sum(jnp.tanh(x @ w) ** 2)
    g = numlir.grad(numlir.jit(loss))
    w2 = W + 1.0  # a fresh signature-independent value; compiled modules are memoized by text
    before = dispatch.stats["compiles"]
    r1 = g(w2, X)
    after_first = dispatch.stats["compiles"]
    r2 = g(w2 * 2, X)
    assert after_first - before <= 1  # forward and backward in one module (0 if already cached)
    assert dispatch.stats["compiles"] == after_first  # the second call reuses it
    close(r1, jax.jit(jax.grad(lambda w, x: J.sum(J.tanh(x @ w) ** 2)))(w2, X))
    close(r2, jax.jit(jax.grad(lambda w, x: J.sum(J.tanh(x @ w) ** 2)))(w2 * 2, X))
    text = numlir.jit(numlir.grad(loss)).lower(W, X).as_text()
    assert text.count("func.func") == 1
    assert "hlo.tanh" in text and text.count("hlo.dot_general") >= 2  # forward and backward dots


def test_per_example_gradients_with_vmap_of_grad():
    f = mlp_loss(jnp)
    xs = R.standard_normal((6, 1, 4)).astype(np.float32)
    got = numlir.vmap(numlir.grad(f), in_axes=(None, 0))(PARAMS, xs)
    want = jax.jit(jax.vmap(jax.grad(mlp_loss(J)), in_axes=(None, 0)))(PARAMS, xs)
    close(got, want)
    loop = [numlir.grad(f)(PARAMS, x) for x in xs]
    close(got["w"], np.stack([np.asarray(g["w"]) for g in loop]))


def test_grad_of_grad_and_jacfwd_of_jacrev():
    f = lambda x: jnp.sin(x) * x ** 3  # noqa: E731
    close(numlir.grad(numlir.grad(f))(0.7), jax.jit(jax.grad(jax.grad(lambda x: J.sin(x) * x ** 3)))(0.7))
    g = lambda x: jnp.tanh(x) @ jnp.cos(x)  # noqa: E731
    x = R.standard_normal(4).astype(np.float32)
    close(numlir.jacfwd(numlir.jacrev(g))(x), jax.jit(jax.jacfwd(jax.jacrev(lambda x: J.tanh(x) @ J.cos(x))))(x),
          rtol=1e-4, atol=1e-5)


def test_vmap_of_vmap_and_vmap_of_jit():
    f = lambda a, b: jnp.sum(jnp.sin(a) * b)  # noqa: E731
    a = R.standard_normal((2, 3, 4)).astype(np.float32)
    got = numlir.vmap(numlir.vmap(numlir.jit(f)))(a, a)
    close(got, jax.jit(jax.vmap(jax.vmap(lambda a, b: J.sum(J.sin(a) * b))))(a, a))


def test_no_perturbation_confusion():
    # d/dx [x * d/dy (x * y)] = d/dx x**2 = 2x: the inner derivative must not see x's tangent.
    f = lambda x: x * numlir.grad(lambda y: x * y)(1.0)  # noqa: E731
    close(numlir.grad(f)(2.0), 4.0)
    close(numlir.jvp(f, (2.0,), (1.0,))[1], 4.0)
    close(numlir.grad(numlir.jit(f))(2.0), 4.0)


def test_grad_closing_over_outer_tracer():
    def outer(x):
        inner = numlir.grad(lambda w: jnp.sum(jnp.sin(w * x)))
        return jnp.sum(inner(jnp.ones(3)) * x)
    jouter = lambda x: J.sum(jax.jit(jax.grad(lambda w: J.sum(J.sin(w * x))))(J.ones(3)) * x)  # noqa: E731
    x = R.standard_normal(3).astype(np.float32)
    close(numlir.grad(outer)(x), jax.jit(jax.grad(jouter))(x))
    close(numlir.vmap(numlir.grad(outer))(np.stack([x, 2 * x])),
          jax.jit(jax.vmap(jax.grad(jouter)))(np.stack([x, 2 * x])))


def test_grad_through_cond_switch_and_stop_gradient():
    def f(np_like, lx):
        def fn(x, i):
            y = lx.switch(i, [lambda v: np_like.sin(v), lambda v: v ** 2, lambda v: np_like.exp(v)], x)
            z = lx.cond(np_like.sum(x) > 0, lambda v: v * 3.0, lambda v: -v, y)
            return np_like.sum(z * lx.stop_gradient(x))
        return fn
    x = R.standard_normal(4).astype(np.float32)
    for i in range(3):
        close(numlir.grad(f(jnp, lax))(x, i), jax.jit(jax.grad(f(J, jax.lax)))(x, i))
        close(numlir.jit(numlir.grad(f(jnp, lax)))(x, i), jax.jit(jax.grad(f(J, jax.lax)))(x, i))
    xs = np.stack([x, -x])
    close(numlir.vmap(numlir.grad(f(jnp, lax)), in_axes=(0, None))(xs, 1),
          jax.jit(jax.vmap(jax.grad(f(J, jax.lax)), in_axes=(0, None)))(xs, 1))


def test_symbolic_zeros_are_not_computed():
    # Only x is differentiated: the derivative of sin(y) (a cos) must not appear.
    def f(x, y):
        return jnp.sum(x * 2.0) + jnp.sum(jnp.sin(y))
    graph = numlir.make_graph(numlir.grad(f))(X, X)
    names = [e.prim.name for e in graph.eqns]
    assert "cos" not in names
    # Nor does a zero cotangent for an unused output materialise: the second output's
    # pullback contributes nothing, so no ops act on it.
    text = numlir.jit(lambda x: numlir.vjp(lambda v: (jnp.sin(v), v * 3.0), x)[1](
        (jnp.ones_like(x), jnp.zeros_like(x)))).lower(X).as_text()
    assert "hlo.cos" in text


# --- Errors -----------------------------------------------------------------------------------


def test_grad_of_non_scalar_output_names_shape_and_line():
    with pytest.raises(TypeError, match=r"scalar-output.*\(3, 4\).*test_grad.py:\d+"):
        numlir.grad(jnp.sin)(X)


def test_grad_of_integer_input_names_argument_and_line():
    def f(x, count):
        return jnp.sum(x) * count
    with pytest.raises(TypeError, match=r"argument 'count' \(argnums 1\).*i32\[\].*allow_int.*test_grad.py"):
        numlir.grad(f, argnums=(0, 1))(X, np.int32(3))


def test_argnums_out_of_range():
    with pytest.raises(ValueError, match="argnums 2 is out of range.*2 positional"):
        numlir.grad(lambda a, b: a * b, argnums=2)(1.0, 2.0)


def test_vjp_cotangent_shape_mismatch():
    _, f_vjp = numlir.vjp(jnp.sin, X)
    with pytest.raises(TypeError, match=r"cotangent of type f32\[4\].*f32\[3,4\]"):
        f_vjp(np.ones(4, np.float32))


def test_vmap_inconsistent_sizes_name_arguments_and_line():
    def f(images, labels):
        return images.sum() + labels.sum()
    with pytest.raises(ValueError, match=r"(?s)inconsistent sizes.*argument images.*size 3.*argument "
                                         r"labels.*size 5.*test_grad.py:\d+"):
        numlir.vmap(f)(X, np.ones(5, np.float32))


def test_vmap_in_axes_not_matching_arguments():
    with pytest.raises(ValueError, match=r"len\(in_axes\)=3, len\(args\)=2.*test_grad.py"):
        numlir.vmap(lambda a, b: a + b, in_axes=(0, 0, 0))(X, X)
    with pytest.raises(ValueError, match=r"axis 2.*rank.*argument b.*test_grad.py"):
        numlir.vmap(lambda a, b: a + b, in_axes=(0, 2))(X, X)


def test_linearize_through_while_cond_and_scan():
    def f(np_like, lx):
        def fn(x):
            y = lx.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, np_like.sin(c[1]) * 1.5),
                              (0, x))[1]
            y = lx.cond(y.sum() > 0, lambda v: v * v, lambda v: -v, y)
            return lx.scan(lambda c, v: (c * v, c + v), np_like.ones(()), y)
        return fn
    x = R.standard_normal(4).astype(np.float32)
    t = R.standard_normal(4).astype(np.float32)
    out, f_jvp = numlir.linearize(f(jnp, lax), x)
    want_out, want_t = jax.jvp(f(J, jax.lax), (x,), (t,))
    close(out, want_out)
    close(f_jvp(t), want_t, rtol=1e-4, atol=1e-5)
    close(numlir.jit(lambda x, t: numlir.jvp(f(jnp, lax), (x,), (t,))[1])(x, t), want_t,
          rtol=1e-4, atol=1e-5)


def test_vmap_of_hessian_and_grad_of_vmap():
    f = lambda x: jnp.sum(jnp.sin(x) ** 2 * x)  # noqa: E731
    jf = lambda x: J.sum(J.sin(x) ** 2 * x)  # noqa: E731
    xs = R.standard_normal((3, 4)).astype(np.float32)
    close(numlir.vmap(numlir.hessian(f))(xs), jax.jit(jax.vmap(jax.hessian(jf)))(xs), rtol=1e-4, atol=1e-5)
    close(numlir.grad(lambda xs: jnp.sum(numlir.vmap(f)(xs)))(xs),
          jax.jit(jax.grad(lambda xs: J.sum(jax.vmap(jf)(xs))))(xs))
    close(numlir.jacrev(numlir.vmap(jnp.tanh))(xs[0]), jax.jit(jax.jacrev(jax.vmap(J.tanh)))(xs[0]))
