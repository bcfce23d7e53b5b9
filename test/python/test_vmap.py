"""vmap: each case checks vmap(f) against a Python loop over examples and against jax.vmap."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 3)).astype(np.float32)
W = rng.standard_normal((3, 2)).astype(np.float32)
IDX = np.array([0, 2, 1, 0], np.int32)


def check(f, jf, *args, in_axes=0, out_axes=0, loop=True):
    got = numlir.vmap(f, in_axes=in_axes, out_axes=out_axes)(*args)
    want = jax.vmap(jf, in_axes=in_axes, out_axes=out_axes)(*args)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)
    if loop and in_axes == 0 and out_axes == 0 and len(args) == 1:
        stacked = np.stack([np.asarray(f(a)) for a in args[0]])
        np.testing.assert_allclose(np.asarray(got), stacked, rtol=1e-5, atol=1e-5)


CASES = {
    "unary_binary": (lambda x: jnp.exp(x) * 2 - x, lambda x: jjnp.exp(x) * 2 - x),
    "compare_select": (lambda x: jnp.where(x > 0, x, 0.0), lambda x: jjnp.where(x > 0, x, 0.0)),
    "clip": (lambda x: jnp.clip(x, -0.5, 0.5), lambda x: jjnp.clip(x, -0.5, 0.5)),
    "matmul": (lambda x: x @ W, lambda x: x @ W),
    "outer": (lambda x: jnp.outer(x, x), lambda x: jjnp.outer(x, x)),
    "reduce": (lambda x: x.sum() + x.max(), lambda x: x.sum() + x.max()),
    "argmax_cumsum": (lambda x: jnp.cumsum(x) + jnp.argmax(x), lambda x: jjnp.cumsum(x) + jjnp.argmax(x)),
    "reshape_transpose": (lambda x: x.reshape(3, 1).T, lambda x: x.reshape(3, 1).T),
    "broadcast": (lambda x: jnp.broadcast_to(x, (2, 3)), lambda x: jjnp.broadcast_to(x, (2, 3))),
    "slice_rev_concat": (lambda x: jnp.concatenate([x[1:], x[::-1]]),
                         lambda x: jjnp.concatenate([x[1:], x[::-1]])),
    "pad": (lambda x: jnp.pad(x, (1, 2)), lambda x: jjnp.pad(x, (1, 2))),
    "sort": (lambda x: jnp.sort(x), lambda x: jjnp.sort(x)),
    "static_index": (lambda x: x[1], lambda x: x[1]),
    "cond": (lambda x: lax.cond(x.sum() > 0, lambda v: v * 2, lambda v: -v, x),
             lambda x: jax.lax.cond(x.sum() > 0, lambda v: v * 2, lambda v: -v, x)),
    "fori": (lambda x: lax.fori_loop(0, 3, lambda i, c: c + x, x),
             lambda x: jax.lax.fori_loop(0, 3, lambda i, c: c + x, x)),
    "scan": (lambda x: lax.scan(lambda c, v: (c + v, c * v), 0.0, x)[1],
             lambda x: jax.lax.scan(lambda c, v: (c + v, c * v), 0.0, x)[1]),
    "reduce_window": (lambda x: lax.reduce_window(x, -np.inf, lax.max, (2,), (1,), "VALID"),
                      lambda x: jax.lax.reduce_window(x, -np.inf, jax.lax.max, (2,), (1,), "VALID")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_loop_and_jax(name):
    f, jf = CASES[name]
    check(f, jf, X)


@pytest.mark.parametrize("in_axes", [1, -1, (1, None)])
def test_in_axes_variants(in_axes):
    args = (X,) if not isinstance(in_axes, tuple) else (X, np.float32(3))
    f = (lambda x: jnp.sin(x).sum()) if len(args) == 1 else (lambda x, s: x * s)
    jf = (lambda x: jjnp.sin(x).sum()) if len(args) == 1 else (lambda x, s: x * s)
    check(f, jf, *args, in_axes=in_axes)


@pytest.mark.parametrize("out_axes", [1, -1])
def test_out_axes_variants(out_axes):
    check(lambda x: x * 2, lambda x: x * 2, X, out_axes=out_axes)


def test_pytree_in_axes_with_dict_args():
    args = ({"a": X, "b": W}, X[0])
    f = lambda d, v: d["a"].sum() * v + d["b"][0, 0]  # noqa: E731
    check(f, f, *args, in_axes=({"a": 0, "b": None}, None))


def test_unmapped_output_and_out_axes_none():
    f = lambda x: (x * 2, W.sum())  # noqa: E731
    got = numlir.vmap(f, out_axes=(0, None))(X)
    np.testing.assert_allclose(np.asarray(got[1]), W.sum(), rtol=1e-5)


def test_axis_size_without_batched_args():
    out = numlir.vmap(lambda: jnp.ones(2), in_axes=(), axis_size=3)()
    assert np.asarray(out).shape == (3, 2)


def test_nested_vmap_and_closure_over_outer_tracer():
    f = lambda x: numlir.vmap(lambda y: y * x.sum())(x)  # noqa: E731
    jf = lambda x: jax.vmap(lambda y: y * x.sum())(x)  # noqa: E731
    check(f, jf, X)
    check(lambda x: numlir.vmap(lambda y: y + 1)(x), lambda x: x + 1, X)


def test_vmap_of_jit_and_jit_of_vmap():
    f = numlir.jit(lambda x: jnp.tanh(x @ W))
    check(f, lambda x: jjnp.tanh(x @ W), X)
    got = numlir.jit(numlir.vmap(lambda x: jnp.tanh(x @ W)))(X)
    np.testing.assert_allclose(np.asarray(got), np.tanh(X @ W), rtol=1e-5)


def test_dot_with_both_operands_batched():
    check(lambda a, b: a @ b, lambda a, b: a @ b, X, X)
    check(lambda a, b: a @ b, lambda a, b: a @ b, X, W.T, in_axes=(None, 0))


def test_batched_indices_gather_dynamic_slice_scatter():
    check(lambda a, j: a[j], lambda a, j: a[j], X, IDX)
    check(lambda a, j: jnp.asarray(a)[j], lambda a, j: jjnp.asarray(a)[j], X[0], IDX, in_axes=(None, 0))
    check(lambda a, j: lax.dynamic_slice(a, (j,), (2,)),
          lambda a, j: jax.lax.dynamic_slice(a, (j,), (2,)), X, IDX)
    check(lambda a, j: a.at[j].add(7.0), lambda a, j: a.at[j].add(7.0), X, IDX)
    check(lambda a, j: lax.dynamic_update_slice(a, jnp.ones(2), (j,)),
          lambda a, j: jax.lax.dynamic_update_slice(a, jjnp.ones(2), (j,)), X, IDX)


def test_batched_while_predicate_runs_each_lane_to_its_end():
    n = np.array([1, 5, 3], np.int32)
    f = lambda k: lax.while_loop(lambda c: c[0] < k, lambda c: (c[0] + 1, c[1] * 2), (0, 1.0))  # noqa: E731
    jf = lambda k: jax.lax.while_loop(lambda c: c[0] < k, lambda c: (c[0] + 1, c[1] * 2), (0, 1.0))  # noqa: E731
    check(f, jf, n, loop=False)  # tuple output: compared with jax.vmap


def test_random_with_batched_keys():
    keys = numlir.random.split(numlir.random.PRNGKey(0), 3)
    got = numlir.vmap(lambda k: numlir.random.uniform(k, (2,)))(keys)
    want = jax.vmap(lambda k: jax.random.uniform(k, (2,)))(jax.random.split(jax.random.PRNGKey(0), 3))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_per_example_mlp_loss():
    params = {"w1": rng.standard_normal((3, 5)).astype(np.float32),
              "w2": rng.standard_normal((5, 1)).astype(np.float32)}
    ys = rng.standard_normal((4, 1)).astype(np.float32)

    def loss(p, x, y, np_=jnp):
        h = np_.tanh(x @ p["w1"])
        return ((h @ p["w2"] - y) ** 2).mean()

    check(loss, lambda p, x, y: loss(p, x, y, jjnp), params, X, ys, in_axes=(None, 0, 0))


def test_inconsistent_sizes_names_each_argument():
    with pytest.raises(ValueError, match=r"(?s)inconsistent sizes.*argument x.*size 4.*argument y.*size 3"
                       r".*test_vmap.py"):
        numlir.vmap(lambda x, y: x)(X, W)


def test_in_axes_structure_mismatch():
    with pytest.raises(ValueError, match="in_axes"):
        numlir.vmap(lambda x, y: x, in_axes=(0, 0, 0))(X, X)
    with pytest.raises(ValueError, match="tree prefix"):
        numlir.vmap(lambda d: d["a"], in_axes=({"b": 0},))({"a": X})


def test_out_of_range_axis():
    with pytest.raises(ValueError, match=r"axis 2.*rank.*at least 3.*test_vmap.py"):
        numlir.vmap(lambda x: x, in_axes=2)(X)
