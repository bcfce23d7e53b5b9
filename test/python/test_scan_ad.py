"""lax.scan as a primitive: values, jvp, grad, vmap, linearize, and fori_loop's static-bound scan.

jax is the oracle; derivatives are also checked against central finite differences in float64.
"""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax
from numlir._src.lax.scan import scan_p

from ad_testing import check_grads, check_vjp_against_jax


def assert_tree_close(got, want, rtol=1e-6, atol=1e-6):
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree, (got_tree, want_tree)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def rng_arrays(*shapes, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [(0.5 * rng.standard_normal(s)).astype(dtype) for s in shapes]


def numerical_grad(f, args, eps=1e-6):
    """Central finite differences of scalar ``f`` (a jax function) for every element of every
    argument."""
    f = jax.jit(f)
    grads = []
    for i, a in enumerate(args):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            bump = np.zeros_like(a)
            bump[idx] = eps
            plus = [x + bump if j == i else x for j, x in enumerate(args)]
            minus = [x - bump if j == i else x for j, x in enumerate(args)]
            g[idx] = (float(f(*plus)) - float(f(*minus))) / (2 * eps)
        grads.append(g)
    return grads


def scan_graphs(closed):
    """The scan equations of ``closed`` (not looking inside sub-graphs)."""
    return [e for e in closed.eqns if e.prim is scan_p]


# --- Values -------------------------------------------------------------------------------------


@pytest.mark.parametrize("reverse", [False, True])
def test_values_with_pytrees_match_jax(reverse):
    xs = {"a": np.arange(12, dtype=np.float32).reshape(4, 3) / 7, "b": np.arange(1, 5, dtype=np.int32)}

    def make(lx, np_):
        def f(c0, xs):
            def step(c, x):
                h, n = c
                h = np_.tanh(h * 0.9 + x["a"])
                return (h, n + x["b"]), {"h": h, "s": (np_.sum(h) * x["b"], n)}
            return lx.scan(step, c0, xs, reverse=reverse)
        return f

    c0 = (np.full(3, 0.1, np.float32), np.int32(2))
    want = make(jax.lax, jnp_ref)(c0, xs)
    assert_tree_close(make(lax, jnp)(c0, xs), want)
    assert_tree_close(numlir.jit(make(lax, jnp))(c0, xs), want)


def test_length_without_xs_and_zero_length():
    def make(lx):
        return lambda c0: lx.scan(lambda c, _: (c * 2.0 + 1.0, (c, -c)), c0, None, length=5)

    c0 = np.float32(0.5)
    assert_tree_close(make(lax)(c0), make(jax.lax)(c0))
    assert_tree_close(numlir.jit(make(lax))(c0), jax.jit(make(jax.lax))(c0))
    for length, xs in [(0, None), (None, np.zeros((0, 2), np.float32))]:
        def f(lx, c0):
            return lx.scan(lambda c, x: (c + 1.0, c * 3.0), c0, xs, length=length)
        assert_tree_close(f(lax, c0), f(jax.lax, c0))
        assert_tree_close(numlir.jit(lambda c: f(lax, c))(c0), f(jax.lax, c0))


def test_carry_type_error_names_the_leaf():
    with pytest.raises(TypeError, match=r"carry\[1\] is f32\[3\] in init and f32\[2\]"):
        lax.scan(lambda c, x: ((c[0], c[1][:2]), x), (1.0, np.ones(3, np.float32)),
                 np.ones(4, np.float32))


def test_static_fori_loop_is_a_scan_and_traced_bounds_a_while():
    g = numlir.make_graph(lambda x: lax.fori_loop(1, 4, lambda i, v: v * i, x))(np.float32(2))
    assert [e.prim.name for e in g.eqns if e.prim.name in ("scan", "while")] == ["scan"]
    g = numlir.make_graph(lambda x, n: lax.fori_loop(0, n, lambda i, v: v * 2.0, x))(
        np.float32(2), np.int32(3))
    assert [e.prim.name for e in g.eqns if e.prim.name in ("scan", "while")] == ["while"]
    assert float(lax.fori_loop(np.int64(1), 4, lambda i, v: v * i, np.float32(2))) == 12.0


# --- Forward mode -------------------------------------------------------------------------------


def rnn(lx, np_, reverse=False):
    """An RNN: weights closed over (w), passed as carry (u) and as xs; returns (carry, ys)."""
    def f(w, u, h0, xs):
        def step(c, x):
            h, u = c
            h = np_.tanh(np_.dot(w, h) + np_.dot(u, x) + 0.1)
            return (h, u * 0.99), np_.sum(h * x[:2])
        return lx.scan(step, (h0, u), xs, reverse=reverse)
    return f


def rnn_loss(lx, np_, reverse=False):
    def loss(w, u, h0, xs):
        (h, u), ys = rnn(lx, np_, reverse)(w, u, h0, xs)
        return np_.sum(h * h) + np_.sum(ys * ys) + np_.sum(u)
    return loss


def rnn_args(seed=0, steps=5):
    return tuple(rng_arrays((2, 2), (2, 3), (2,), (steps, 3), seed=seed))


@pytest.mark.parametrize("reverse", [False, True])
def test_jvp_matches_jax_and_finite_differences(x64, reverse):
    args = rnn_args()
    tangents = tuple(rng_arrays(*[a.shape for a in args], seed=1))
    out, t_out = numlir.jvp(rnn(lax, jnp, reverse), args, tangents)
    j_out, j_t_out = jax.jvp(rnn(jax.lax, jnp_ref, reverse), args, tangents)
    assert_tree_close(out, j_out, rtol=1e-10)
    assert_tree_close(t_out, j_t_out, rtol=1e-10)
    check_grads(rnn(lax, jnp, reverse), args, order=1, modes=("fwd",))


def test_jvp_with_tangent_only_on_closed_over_weight(x64):
    # The carry's tangent starts as a symbolic zero and becomes nonzero in the body.
    w, u, h0, xs = rnn_args()
    f = lambda w: rnn(lax, jnp)(w, u, h0, xs)
    jf = lambda w: rnn(jax.lax, jnp_ref)(w, u, h0, xs)
    t = rng_arrays((2, 2), seed=3)[0]
    assert_tree_close(numlir.jvp(f, (w,), (t,))[1], jax.jvp(jf, (w,), (t,))[1], rtol=1e-10)


# --- Reverse mode -------------------------------------------------------------------------------


@pytest.mark.parametrize("reverse", [False, True])
def test_grad_of_rnn_loss_matches_jax_and_finite_differences(x64, reverse):
    args = rnn_args()
    loss = rnn_loss(lax, jnp, reverse)
    got = numlir.grad(loss, argnums=(0, 1, 2, 3))(*args)
    want = jax.jit(jax.grad(rnn_loss(jax.lax, jnp_ref, reverse), argnums=(0, 1, 2, 3)))(*args)
    assert_tree_close(got, want, rtol=1e-9, atol=1e-12)
    for g, n in zip(got, numerical_grad(rnn_loss(jax.lax, jnp_ref, reverse), args)):
        np.testing.assert_allclose(np.asarray(g), n, rtol=1e-6, atol=1e-8)
    check_vjp_against_jax(rnn(lax, jnp, reverse), rnn(jax.lax, jnp_ref, reverse), args,
                          rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("reverse", [False, True])
def test_grad_of_cumulative_products(x64, reverse):
    def make(lx, np_):
        def f(c0, xs):
            c, ys = lx.scan(lambda c, x: (c * x, c * x), c0, xs, reverse=reverse)
            return c + np_.sum(np_.sin(ys))
        return f

    c0, xs = np.float64(1.3), np.array([0.9, -1.2, 1.1, 0.7, 1.4])
    got = numlir.grad(make(lax, jnp), argnums=(0, 1))(c0, xs)
    want = jax.jit(jax.grad(make(jax.lax, jnp_ref), argnums=(0, 1)))(c0, xs)
    assert_tree_close(got, want, rtol=1e-10)
    num = numerical_grad(make(jax.lax, jnp_ref), [np.asarray(c0), xs])
    np.testing.assert_allclose(np.asarray(got[1]), num[1], rtol=1e-6)
    np.testing.assert_allclose(float(got[0]), float(num[0]), rtol=1e-6)


def test_grad_through_nested_scans_with_an_integer_carry(x64):
    def make(lx, np_):
        def f(w, xs):
            def outer(c, x):
                n, h = c
                inner = lx.scan(lambda d, y: (np_.sin(d * w + y), d * y * n), h, x)
                return (n + 1, inner[0]), np_.sum(inner[1])
            (_, h), ys = lx.scan(outer, (1, np_.ones(2) * 0.3), xs)
            return np_.sum(h) + np_.sum(ys ** 2)
        return f

    w, xs = np.array([0.7, -0.4]), np.linspace(-1, 1, 24).reshape(4, 3, 2)
    got = numlir.grad(make(lax, jnp), argnums=(0, 1))(w, xs)
    assert_tree_close(got, jax.jit(jax.grad(make(jax.lax, jnp_ref), argnums=(0, 1)))(w, xs), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(got[0]), numerical_grad(make(jax.lax, jnp_ref), [w, xs])[0],
                               rtol=1e-6)


def test_grad_through_static_fori_loop(x64):
    def make(lx, np_):
        def f(x, w):
            def body(i, v):
                return np_.sin(v * w) + i * 0.1 * v
            return np_.sum(lx.fori_loop(2, 6, body, x) ** 2)
        return f

    x, w = np.array([0.3, -0.7, 1.2]), np.float64(0.8)
    got = numlir.grad(make(lax, jnp), argnums=(0, 1))(x, w)
    assert_tree_close(got, jax.jit(jax.grad(make(jax.lax, jnp_ref), argnums=(0, 1)))(x, w), rtol=1e-10)
    num = numerical_grad(make(jax.lax, jnp_ref), [x, np.asarray(w)])
    np.testing.assert_allclose(np.asarray(got[0]), num[0], rtol=1e-6)


def test_grad_of_grad_through_scan(x64):
    def make(lx, np_):
        def f(a, xs):
            c, ys = lx.scan(lambda c, x: (np_.sin(c * a) + x, c * x * a), 0.5, xs)
            return c + np_.sum(ys)
        return f

    xs = np.array([0.2, -0.4, 0.9, 0.3])
    for argnum in (0, 1):
        got = numlir.grad(lambda a, xs: numlir.grad(make(lax, jnp), argnum)(a, xs).sum(),
                          argnums=(0, 1))(np.float64(1.1), xs)
        want = jax.jit(jax.grad(lambda a, xs: jax.grad(make(jax.lax, jnp_ref), argnum)(a, xs).sum(),
                        argnums=(0, 1)))(np.float64(1.1), xs)
        assert_tree_close(got, want, rtol=1e-9, atol=1e-12)
    check_grads(make(lax, jnp), (np.float64(1.1), xs), order=2, modes=("rev",))


def test_jit_of_grad_equals_eager_grad(x64):
    args = rnn_args(seed=2)
    g = numlir.grad(rnn_loss(lax, jnp), argnums=(0, 1, 2, 3))
    assert_tree_close(numlir.jit(g)(*args), g(*args), rtol=1e-12, atol=1e-14)


def test_linearize_through_scan(x64):
    args = rnn_args(seed=4)
    tangents = tuple(rng_arrays(*[a.shape for a in args], seed=5))
    out, f_jvp = numlir.linearize(rnn(lax, jnp), *args)
    j_out, j_f_jvp = jax.linearize(rnn(jax.lax, jnp_ref), *args)
    assert_tree_close(out, j_out, rtol=1e-10)
    assert_tree_close(f_jvp(*tangents), j_f_jvp(*tangents), rtol=1e-10)


@pytest.mark.parametrize("invariant", ["w", "exp(w)"])
def test_loop_invariant_residuals_are_not_stacked(invariant):
    # The tangent scan needs w (or exp(w), computed from consts only) at every step: it must
    # get it once, as a const, not as `steps` stacked copies.
    steps, n = 7, 5
    w, xs = rng_arrays((n, n), (steps, n), dtype=np.float32)

    def make(np_, lx):
        def loss(w, xs):
            m = np_.exp(w) if invariant == "exp(w)" else w
            step = lambda h, x: (np_.tanh(np_.dot(m, h) + x), h)
            return np_.sum(lx.scan(step, np_.zeros(n), xs)[1])
        return loss

    graph = numlir.make_graph(numlir.grad(make(jnp, lax)))(w, xs)
    shapes = [v.aval.shape for e in scan_graphs(graph) for v in e.outputs]
    assert (steps, n) in shapes  # the per-step residuals are stacked ...
    assert (steps, n, n) not in shapes  # ... but not the invariant one
    np.testing.assert_allclose(np.asarray(numlir.grad(make(jnp, lax))(w, xs)),
                               jax.jit(jax.grad(make(jnp_ref, jax.lax)))(w, xs), rtol=2e-5, atol=1e-6)


def test_invariant_work_inside_the_body_is_hoisted_and_correct(x64):
    # exp(w) is computed inside the body; its residual is loop-invariant all the same.
    w, xs = rng_arrays((3, 3), (6, 3), seed=7)

    def make(np_, lx):
        def loss(w, xs):
            step = lambda h, x: (np_.sin(np_.dot(np_.exp(w), h) * 0.3 + x), h)
            return np_.sum(lx.scan(step, np_.ones(3), xs)[0] ** 2)
        return loss

    graph = numlir.make_graph(numlir.grad(make(jnp, lax)))(w, xs)
    assert (6, 3, 3) not in [v.aval.shape for e in scan_graphs(graph) for v in e.outputs]
    got = numlir.grad(make(jnp, lax), argnums=(0, 1))(w, xs)
    assert_tree_close(got, jax.jit(jax.grad(make(jnp_ref, jax.lax), argnums=(0, 1)))(w, xs), rtol=1e-10)
    num = numerical_grad(make(jnp_ref, jax.lax), [w, xs])
    np.testing.assert_allclose(np.asarray(got[0]), num[0], rtol=1e-6, atol=1e-9)


def test_zero_cotangents_are_not_materialized_as_stacked_arrays():
    # Only the final carry is used, so the ys' cotangents are symbolic zeros: no scan in the
    # gradient's graph takes a (steps, 3)-shaped operand besides the xs and the residuals.
    steps = 6
    xs = np.linspace(0.1, 1.0, steps * 3).reshape(steps, 3).astype(np.float32)

    def loss(c0):
        c, ys = lax.scan(lambda c, x: (jnp.sin(c) * x, (c * 2.0, c + x)), c0, xs)
        return jnp.sum(c)

    graph = numlir.make_graph(numlir.grad(loss))(np.ones(3, np.float32))
    zeros = [e for e in graph.eqns if e.prim.name == "broadcast_in_dim"
             and e.outputs[0].aval.shape == (steps, 3)]
    assert not zeros
    transposed = scan_graphs(graph)[-1]
    assert transposed.params["num_carry"] == 1 and len(transposed.outputs) == 1
    np.testing.assert_allclose(
        np.asarray(numlir.grad(loss)(np.ones(3, np.float32))),
        jax.jit(jax.grad(lambda c0: jnp_ref.sum(jax.lax.scan(
            lambda c, x: (jnp_ref.sin(c) * x, (c * 2.0, c + x)), c0, xs)[0])))(np.ones(3, np.float32)),
        rtol=1e-5)


def test_grad_through_dynamic_while_loop_raises():
    def f(x, n):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1]

    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop"):
        numlir.grad(f)(np.float32(1.5), np.int32(3))


# --- vmap ----------------------------------------------------------------------------------------


def test_vmap_of_scan_matches_jax():
    w, u, h0, xs = [a.astype(np.float32) for a in rnn_args()]
    batch = 3
    xs_b = np.stack([xs * (i + 1) for i in range(batch)], axis=1)  # batched on axis 1
    h0_b = np.stack([h0 + i for i in range(batch)])
    w_b = np.stack([w * (1 - 0.2 * i) for i in range(batch)])
    cases = [
        ((None, None, None, 1), (w, u, h0, xs_b)),  # batched xs
        ((None, None, 0, None), (w, u, h0_b, xs)),  # batched carry only
        ((0, None, None, None), (w_b, u, h0, xs)),  # batched consts only
    ]
    for in_axes, args in cases:
        got = numlir.vmap(rnn(lax, jnp), in_axes=in_axes)(*args)
        want = jax.jit(jax.vmap(rnn(jax.lax, jnp_ref), in_axes=in_axes))(*args)
        assert_tree_close(got, want, rtol=1e-5, atol=1e-6)
        got = numlir.jit(numlir.vmap(rnn(lax, jnp, reverse=True), in_axes=in_axes))(*args)
        want = jax.jit(jax.vmap(rnn(jax.lax, jnp_ref, reverse=True), in_axes=in_axes))(*args)
        assert_tree_close(got, want, rtol=1e-5, atol=1e-6)


def test_vmap_of_grad_through_scan(x64):
    args = rnn_args(seed=6)
    xs_b = np.stack([args[3], args[3] * 0.5])
    got = numlir.vmap(numlir.grad(rnn_loss(lax, jnp)), in_axes=(None, None, None, 0))(*args[:3], xs_b)
    want = jax.jit(jax.vmap(jax.grad(rnn_loss(jax.lax, jnp_ref)), in_axes=(None, None, None, 0)))(*args[:3], xs_b)
    assert_tree_close(got, want, rtol=1e-9, atol=1e-12)
