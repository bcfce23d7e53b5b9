"""jit(f, in_shardings=..., out_shardings=...): the data-parallel partitioner
(spmd_partition.py) against plain jit, on 4 CPU devices (`make test` runs this file again
with NUMLIR_NUM_CPU_DEVICES=4), and the collectives it adds."""

from __future__ import annotations

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import P
from compile_spy import compiled_texts
from numlir.sharding import NamedSharding

four = pytest.mark.skipif(numlir.local_device_count() < 4,
                          reason="needs NUMLIR_NUM_CPU_DEVICES >= 4 (make test runs this file "
                                 "again with 4)")
R = np.random.default_rng(9)
F32 = np.float32


def _mesh(shape=(4,), names=("data",)):
    return numlir.make_mesh(shape, names)


def _rep(mesh):
    return NamedSharding(mesh, P())


def _close(got, want, rtol=2e-6):
    got_leaves, want_leaves = numlir.tree_util.tree_leaves(got), numlir.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def _mlp_step(params, x, y):
    def loss(params):
        (w1, b1), (w2, b2) = params
        h = jnp.tanh(x @ w1 + b1)
        return jnp.mean((h @ w2 + b2 - y) ** 2)

    value, grads = numlir.value_and_grad(loss)(params)
    return numlir.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), value


def _mlp_args():
    params = [(R.normal(size=(6, 8)).astype(F32), R.normal(size=8).astype(F32)),
              (R.normal(size=(8, 3)).astype(F32), R.normal(size=3).astype(F32))]
    return params, R.normal(size=(16, 6)).astype(F32), R.normal(size=(16, 3)).astype(F32)


@four
def test_an_mlp_step_equals_plain_jit_with_one_all_reduce_per_gradient(monkeypatch):
    mesh = _mesh()
    batch = NamedSharding(mesh, P("data"))
    args = _mlp_args()
    want = numlir.jit(_mlp_step)(*args)
    texts = compiled_texts(monkeypatch)
    got = numlir.jit(_mlp_step, in_shardings=(_rep(mesh), batch, batch))(*args)
    _close(got, want)
    (text,) = {t for t in texts if "num_replicas = 4" in t}
    # Four weight and bias gradients and the loss; the batch never moves.
    assert text.count("hlo.all_reduce") == 5
    assert "hlo.all_gather" not in text


def _programs():
    """name -> (function, argument shapes, in_specs, out_specs or None)."""
    d = "data"
    return {
        "flatten_then_dense": (lambda x, w: jnp.tanh(x.reshape(x.shape[0], -1) @ w),
                               [(8, 2, 3), (6, 4)], (P(d), P()), None),
        "transpose_then_reduce": (lambda x: jnp.sum(x.T, axis=0) + jnp.max(x), [(8, 5)],
                                  (P(d),), None),
        "max_min_over_batch": (lambda x: (jnp.max(x, axis=0), jnp.min(x, axis=0)),
                               [(8, 5)], (P(d),), None),
        "batched_matmul": (lambda a, b: a @ b, [(8, 3, 4), (8, 4, 2)], (P(d), P(d)), None),
        "contract_split_with_replicated": (lambda a, b: a @ b, [(4, 8), (8, 3)],
                                           (P(None, d), P()), None),
        "replicated_times_split": (lambda w, x: w @ x, [(3, 8), (8, 5)], (P(), P(d)), None),
        "size_one_broadcast": (lambda x, s: x * s, [(8, 5), (1, 5)], (P(d), P()), None),
        "cumsum_over_batch": (lambda x: jnp.cumsum(x, axis=0), [(8, 3)], (P(d),), None),
        "softmax_cross_entropy": (
            lambda logits, labels: -jnp.mean(jnp.sum(labels * numlir.nn.log_softmax(logits),
                                                     axis=-1)),
            [(8, 10), (8, 10)], (P(d), P(d)), None),
        "split_output_asked_replicated": (lambda x: x * 2, [(8, 3)], (P(d),), (P(),)),
        "replicated_output_asked_split": (lambda w: w + 1, [(8, 3)], (P(),), (P(d),)),
    }


@four
@pytest.mark.parametrize("name", sorted(_programs()))
def test_programs_equal_plain_jit(name):
    mesh = _mesh()
    fun, shapes, in_specs, out_specs = _programs()[name]
    args = [R.normal(size=s).astype(F32) for s in shapes]
    sharded = numlir.jit(fun, in_shardings=tuple(NamedSharding(mesh, s) for s in in_specs),
                         out_shardings=None if out_specs is None else
                         tuple(NamedSharding(mesh, s) for s in out_specs)
                         if len(out_specs) > 1 else NamedSharding(mesh, out_specs[0]))
    _close(sharded(*args), numlir.jit(fun)(*args), rtol=1e-5)


@four
def test_a_two_dimensional_mesh_splits_the_batch_over_both_axes():
    mesh = _mesh((2, 2), ("a", "b"))
    batch = NamedSharding(mesh, P(("a", "b")))
    args = _mlp_args()
    got = numlir.jit(_mlp_step, in_shardings=(NamedSharding(mesh, P()), batch, batch))(*args)
    _close(got, numlir.jit(_mlp_step)(*args), rtol=1e-5)


@four
@pytest.mark.parametrize("names", [("a", "b"), ("b", "a")])
def test_a_batch_split_over_axes_in_either_order_gathers_in_that_order(names):
    # cumsum gathers its split operand: the blocks must come back in the split's order,
    # also when its names do not follow the mesh's (once all_gathered over both names at
    # once, which orders them by replica id: a wrong answer for ("b", "a")).
    mesh = _mesh((2, 2), ("a", "b"))
    x = np.arange(16, dtype=np.float32).reshape(8, 2)
    f = numlir.jit(lambda v: (jnp.cumsum(v, axis=0), v * 2),
                   in_shardings=(NamedSharding(mesh, P(names)),))
    total, doubled = f(x)
    np.testing.assert_array_equal(np.asarray(total), np.cumsum(x, axis=0))
    np.testing.assert_array_equal(np.asarray(doubled), x * 2)


@four
def test_grad_of_a_sharded_jit_equals_grad_of_plain_jit():
    mesh = _mesh()
    batch = NamedSharding(mesh, P("data"))
    params, x, y = _mlp_args()

    def loss(f):
        return lambda p: f(p, x, y)[1]

    sharded = numlir.jit(_mlp_step, in_shardings=(_rep(mesh), batch, batch))
    _close(numlir.grad(loss(sharded))(params), numlir.grad(loss(numlir.jit(_mlp_step)))(params),
           rtol=1e-5)


@four
def test_unsupported_shardings_say_so():
    mesh = _mesh((2, 2), ("a", "b"))
    x = np.ones((4, 4), F32)
    with pytest.raises(NotImplementedError, match="splits 2 dimensions"):
        numlir.jit(lambda v: v, in_shardings=NamedSharding(mesh, P("a", "b")))(x)
    other = _mesh((4,), ("data",))
    with pytest.raises(ValueError, match="must name one mesh"):
        numlir.jit(lambda v, w: v + w, in_shardings=(NamedSharding(mesh, P("a")),
                                                     NamedSharding(other, P("data"))))(x, x)
    with pytest.raises(NotImplementedError, match="no static or donated arguments"):
        numlir.jit(lambda v: v, in_shardings=NamedSharding(mesh, P()), static_argnums=0)
    with pytest.raises(ValueError, match="has 1 entries for an array of rank 0"):
        numlir.jit(lambda v: v, in_shardings=NamedSharding(mesh, P("a")))(np.float32(1))
    with pytest.raises(ValueError, match="3 does not evenly divide|does not evenly divide 3"):
        numlir.jit(lambda v: v, in_shardings=NamedSharding(mesh, P("a")))(np.ones(3, F32))
    with pytest.raises(TypeError, match="must be NamedShardings"):
        numlir.jit(lambda v: v, in_shardings=(P("a"),))(x)
