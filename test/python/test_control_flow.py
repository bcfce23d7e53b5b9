"""lax.cond / switch / while_loop / fori_loop / scan against jax, eager and under jit."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax


def assert_tree_equal(got, want, rtol=1e-6):
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert len(got_leaves) == len(want_leaves), (got_tree, want_tree)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
        np.testing.assert_allclose(g, w, rtol=rtol)


def both(fun_numlir, fun_jax, *args, jit=True):
    """Run the numlir and jax versions (eager and jit) on the same args and compare."""
    want = fun_jax(*args)
    assert_tree_equal(fun_numlir(*args), want)
    if jit:
        assert_tree_equal(numlir.jit(fun_numlir)(*args), jax.jit(fun_jax)(*args))


X = np.array([1.5, -2.0, 0.25, 3.0], np.float32)


@pytest.mark.parametrize("pred", [True, False])
def test_cond_picks_a_branch_with_operands(pred):
    def make(lx):
        return lambda p, x: lx.cond(p, lambda x: x * 2.0, lambda x: -x, x)
    both(make(numlir.lax), make(jax.lax), pred, X)


def test_cond_with_pytree_operands_and_closures():
    scale = np.float32(3.0)

    def make(lx, np_):
        def f(p, x, y):
            z = np_.sum(x)  # closed over by both branches
            return lx.cond(p, lambda a, b: {"s": a["u"] * scale + z, "t": b},
                           lambda a, b: {"s": a["u"] - z, "t": b * 2}, {"u": x}, y)
        return f
    for p in [True, False]:
        both(make(lax, jnp), make(jax.lax, jnp_ref), p, X, np.int32(7))


def test_cond_numeric_predicate():
    def make(lx):
        return lambda p, x: lx.cond(p, lambda x: x + 1.0, lambda x: x - 1.0, x)
    for p in [np.int32(0), np.int32(-3), np.float32(0.5)]:
        both(make(lax), make(jax.lax), p, X)


def test_cond_branch_mismatch_names_the_output():
    with pytest.raises(TypeError, match=r"output\['b'\] is f32\[4\] in false_fun and i32\[4\] in true_fun"):
        lax.cond(True, lambda x: {"a": x, "b": x.astype(np.int32)}, lambda x: {"a": x, "b": x}, X)
    with pytest.raises(TypeError, match="same pytree structure"):
        lax.cond(True, lambda x: (x, x), lambda x: x, X)
    with pytest.raises(TypeError, match="predicate must be a scalar"):
        lax.cond(np.array([True, False]), lambda x: x, lambda x: x, X)


def test_cond_weak_and_strong_outputs_agree():
    def make(lx):
        return lambda p, x: lx.cond(p, lambda x: x, lambda x: 1.0 * jnp_ref.ones(()), x)
    f = lambda p, x: lax.cond(p, lambda x: x, lambda x: jnp.ones((), np.float32), x)  # noqa: E731
    g = lambda p, x: jax.lax.cond(p, lambda x: x, lambda x: jnp_ref.ones((), np.float32), x)  # noqa: E731
    both(f, g, False, np.float32(2.0))


@pytest.mark.parametrize("index", [-2, 0, 1, 2, 7])
def test_switch_clamps_the_index(index):
    def make(lx, np_):
        return lambda i, x: lx.switch(i, [np_.sin, lambda x: -x, lambda x: x * x], x)
    both(make(lax, jnp), make(jax.lax, jnp_ref), np.int32(index), X)


def test_switch_single_branch_and_unsigned_index():
    assert_tree_equal(lax.switch(5, [lambda x: x + 1], X), X + 1)
    f = lambda i, x: lax.switch(i, [lambda x: x, lambda x: -x], x)  # noqa: E731
    g = lambda i, x: jax.lax.switch(i, [lambda x: x, lambda x: -x], x)  # noqa: E731
    both(f, g, np.uint8(200), X)


def test_while_loop_with_pytree_carry():
    def make(lx, np_):
        def f(x):
            def body(c):
                return {"i": c["i"] + 1, "v": c["v"] * 1.5 + np_.sum(x)}
            return lx.while_loop(lambda c: c["i"] < 6, body, {"i": 0, "v": x})
        return f
    both(make(lax, jnp), make(jax.lax, jnp_ref), X)


def test_while_loop_traced_bound_and_zero_iterations():
    def make(lx):
        return lambda n, x: lx.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] + c[1]), (0, x))
    for n in [0, 3, -1]:
        both(make(lax), make(jax.lax), np.int32(n), X)


def test_while_loop_errors():
    with pytest.raises(TypeError, match="boolean scalar"):
        lax.while_loop(lambda c: c, lambda c: c, X)
    with pytest.raises(TypeError, match=r"carry\[1\] is f32\[4\] on input and f32\[2\] on output"):
        lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1][:2]), (0, X))


@pytest.mark.parametrize("bounds", [(0, 5), (2, 2), (3, 1), (-2, 4)])
def test_fori_loop_static_bounds(bounds):
    def make(lx):
        return lambda x: lx.fori_loop(bounds[0], bounds[1], lambda i, v: v * 2.0 + i, x)
    both(make(lax), make(jax.lax), X)


def test_fori_loop_traced_bounds():
    def make(lx):
        return lambda lo, hi: lx.fori_loop(lo, hi, lambda i, acc: acc + i * i, 0)
    both(make(lax), make(jax.lax), np.int32(1), np.int32(6))


def test_nested_control_flow():
    def make(lx, np_):
        def f(x, n):
            def outer(i, acc):
                inner = lx.while_loop(lambda c: c[0] < i, lambda c: (c[0] + 1, c[1] + 1.0), (0, 0.0))[1]
                return lx.cond(i % 2 == 0, lambda a: a + inner, lambda a: a * 0.5, acc)
            return lx.fori_loop(0, n, outer, x)
        return f
    both(make(lax, jnp), make(jax.lax, jnp_ref), X, np.int32(5))


def test_scan_cumulative_sum_with_stacked_outputs():
    def make(lx):
        return lambda xs: lx.scan(lambda c, x: (c + x, c * x), np.float32(0), xs)
    both(make(lax), make(jax.lax), X)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_pytrees_reverse(reverse):
    xs = {"a": np.arange(12, dtype=np.float32).reshape(4, 3), "b": np.array([1, 2, 3, 4], np.int32)}

    def make(lx, np_):
        def f(xs):
            def step(c, x):
                c = (c[0] + x["a"], c[1] * x["b"])
                return c, {"y": np_.sum(x["a"]) + c[1], "z": x["a"] * 2}
            return lx.scan(step, (np.zeros(3, np.float32), np.int32(1)), xs, reverse=reverse)
        return f
    both(make(lax, jnp), make(jax.lax, jnp_ref), xs)


def test_scan_length_without_xs_and_unroll():
    def make(lx):
        return lambda c0: lx.scan(lambda c, _: (c * 2, c), c0, None, length=5, unroll=2)
    both(make(lax), make(jax.lax), np.int32(3))
    empty = lax.scan(lambda c, x: (c + x, x), np.float32(0), np.zeros((0,), np.float32))
    assert_tree_equal(empty, (np.float32(0), np.zeros((0,), np.float32)))


def test_scan_closure_over_outer_traced_value():
    def make(lx):
        def f(w, xs):
            return lx.scan(lambda c, x: (c + w * x, c), np.float32(0), xs)
        return f
    both(make(lax), make(jax.lax), np.float32(0.5), X)


def test_python_if_on_a_traced_value_still_points_to_cond():
    @numlir.jit
    def f(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(numlir.ConcretizationTypeError, match="lax.cond"):
        f(1.0)


def test_switch_result_is_not_overwritten_by_later_ops():
    # Regression: hlo.case lowered to scf.index_switch, whose result one-shot bufferization let
    # the next elementwise op (sharing its tensor.empty) overwrite.
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.arange(6, dtype=np.float32).reshape(3, 2) + 10

    def f(np_like, lax_like):
        def fn(i, x, y):
            branches = [lambda v: v.T + 1.0, lambda v: (v * v).T, lambda v: (-v).T]
            return y + 1.0, lax_like.switch(i, branches, x), y * 2.0
        return fn

    for i in range(-1, 4):
        got = numlir.jit(f(jnp, lax))(i, x, y)
        want = jax.jit(f(jax.numpy, jax.lax))(i, x, y)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("bounds", [(0, 4), (np.int32(0), 4), (0, np.int64(3))])
def test_x64_fori_loop_index_from_python_int_is_weak_as_in_jax(x64, bounds):
    """Found by the fuzzer: `c * 2 - i` promoted an int32 carry to int64."""
    import jax

    body = lambda i, c: c * 2 - i  # noqa: E731
    expected = jax.lax.fori_loop(*bounds, body, np.int32(-2))
    got = numlir.lax.fori_loop(*bounds, body, np.int32(-2))
    assert got.dtype == expected.dtype
    assert int(got) == int(expected)
