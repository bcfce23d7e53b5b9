"""lax.optimization_barrier: the identity on values, through jit, grad and vmap, and a
barrier the compiler's CSE and fusion do not see through."""

import jax
import jax.numpy as jjnp
import numpy as np

import numlir
import numlir.numpy as jnp
from numlir import lax
from hlo_testing import cpu_stage_text

RNG = np.random.default_rng(0)
X = RNG.standard_normal(5).astype(np.float32)


def assert_trees_close(a, b, tol=1e-6):
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        assert np.asarray(x).dtype == np.asarray(y).dtype
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)


def barrier_eqns(graph):
    return [e for e in graph.graph.eqns if e.prim is lax.optimization_barrier_p]


def linalg_text(fun, *args) -> str:
    """jit(fun)'s module after the cpu backend's hlo-optimize and hlo-cpu-to-linalg stages
    (through NUMLIR_HLO_OPT's hlo-opt when that is set)."""
    return cpu_stage_text(numlir.jit(fun).lower(*args).as_text(), 2)


# --- Values -------------------------------------------------------------------------------


def test_returns_a_pytree_unchanged_eagerly_and_under_jit():
    tree = {"a": X, "b": (np.int32(3), np.ones((2, 3), np.bool_))}
    for fn in (lax.optimization_barrier, numlir.jit(lax.optimization_barrier)):
        out = fn(tree)
        assert set(out) == {"a", "b"} and isinstance(out["b"], tuple)
        assert_trees_close(out, jax.lax.optimization_barrier(tree))


def test_single_array_and_empty_tree():
    assert_trees_close(lax.optimization_barrier(X), X)
    assert lax.optimization_barrier(()) == ()
    assert lax.optimization_barrier({}) == {}


def test_one_op_for_all_leaves_in_the_hlo():
    text = numlir.jit(lambda x, n: lax.optimization_barrier((x, n))).lower(X, np.int32(2)).as_text()
    assert text.count("hlo.optimization_barrier ") == 1
    assert ": tensor<5xf32>, tensor<i32>" in text


def test_values_flow_through_computations_on_both_sides():
    def f(x):
        y, z = lax.optimization_barrier((jnp.sin(x), x * 2.0))
        return jnp.exp(y) + z

    assert_trees_close(numlir.jit(f)(X), np.exp(np.sin(X)) + X * 2.0, tol=1e-5)


# --- Differentiation ----------------------------------------------------------------------


def _f(np_, opt_barrier):
    def f(x, n):
        y, m = opt_barrier((np_.sin(x) * x, n))
        return np_.sum(np_.cos(y) * m)
    return f


def test_grad_matches_jax():
    n = np.float32(3.0)
    got = numlir.jit(numlir.grad(_f(jnp, lax.optimization_barrier), argnums=(0, 1)))(X, n)
    want = jax.grad(_f(jjnp, jax.lax.optimization_barrier), argnums=(0, 1))(X, n)
    assert_trees_close(got, want, tol=1e-5)


def test_grad_with_integer_leaves():
    def f(np_, opt_barrier):
        return lambda x, i: np_.sum(opt_barrier((x * x, i))[0])

    got = numlir.grad(f(jnp, lax.optimization_barrier))(X, np.int32(4))
    assert_trees_close(got, jax.grad(f(jjnp, jax.lax.optimization_barrier))(X, np.int32(4)))


def test_jvp_puts_primals_and_tangents_behind_separate_barriers():
    def jvp_fn(x, t):
        return numlir.jvp(lambda v: lax.optimization_barrier((v, jnp.sin(v))), (x,), (t,))

    graph = numlir.make_graph(jvp_fn)(X, X)
    primal_eqn, tangent_eqn = barrier_eqns(graph)
    assert len(primal_eqn.inputs) == 2 and len(tangent_eqn.inputs) == 2
    assert not {id(v) for v in primal_eqn.outputs} & {id(v) for v in tangent_eqn.inputs}
    (p, s), (t, ts) = jvp_fn(X, X)
    want = jax.jvp(lambda v: jax.lax.optimization_barrier((v, jjnp.sin(v))), (X,), (X,))
    assert_trees_close(((p, s), (t, ts)), want)


def test_transpose_applies_the_barrier_to_cotangents():
    # One barrier in the forward pass, one on the cotangent in the backward pass.
    graph = numlir.make_graph(numlir.grad(lambda x: jnp.sum(lax.optimization_barrier(x) * 2.0)))(X)
    assert len(barrier_eqns(graph)) == 2
    _, vjp = numlir.vjp(lambda x: lax.optimization_barrier((x, x * 3.0)), X)
    (ct,) = vjp((np.ones(5, np.float32), np.full(5, 2.0, np.float32)))
    assert_trees_close(ct, np.full(5, 7.0, np.float32))


# --- vmap ---------------------------------------------------------------------------------


def test_vmap_keeps_batch_axes_of_batched_and_unbatched_leaves():
    xs = RNG.standard_normal((3, 4)).astype(np.float32)
    y = np.arange(4, dtype=np.float32)

    def f(opt_barrier):
        return lambda x, y: opt_barrier((x * 2.0, y))

    for in_axes in ((0, None), (1, None), (1, 0)):
        args = (xs, np.stack([y] * 4, 1) if in_axes[1] == 0 else y)
        got = numlir.vmap(f(lax.optimization_barrier), in_axes=in_axes)(*args)
        want = jax.vmap(f(jax.lax.optimization_barrier), in_axes=in_axes)(*args)
        assert_trees_close(got, want)


def test_vmap_of_grad():
    xs = RNG.standard_normal((3, 5)).astype(np.float32)
    f = _f(jnp, lax.optimization_barrier)
    got = numlir.vmap(numlir.grad(f), in_axes=(0, None))(xs, np.float32(2.0))
    want = jax.vmap(jax.grad(_f(jjnp, jax.lax.optimization_barrier)), in_axes=(0, None))(
        xs, np.float32(2.0))
    assert_trees_close(got, want, tol=1e-5)


# --- What the compiler keeps ----------------------------------------------------------------


def _two_chains(through_barrier: bool):
    def f(x):
        y = lax.optimization_barrier(x) if through_barrier else x
        return jnp.sin(jnp.exp(x)), jnp.sin(jnp.exp(y))
    return f


def test_a_chain_reading_barrier_outputs_is_not_merged_with_its_copy():
    merged = linalg_text(_two_chains(False), X)
    kept = linalg_text(_two_chains(True), X)
    assert merged.count("math.sin") == 1 and merged.count("math.exp") == 1
    assert kept.count("math.sin") == 2 and kept.count("math.exp") == 2
    assert kept.count("hlo.optimization_barrier") == 1  # erased only before bufferization


def test_the_compiled_program_computes_both_copies():
    a, b = numlir.jit(_two_chains(True))(X)
    assert_trees_close(a, np.sin(np.exp(X)), tol=1e-5)
    assert_trees_close(b, np.sin(np.exp(X)), tol=1e-5)
