"""Collectives over vmap's named axes (lax.psum, pmean, pmax, pmin, all_gather, axis_index,
ppermute, pshuffle, all_to_all, pswapaxes, psum_scatter) against jax: values, nesting,
control flow, jit, and derivatives in both orders."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from jax_comparison import assert_same
from numlir import lax

X = np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4)
Y = np.arange(36.0, dtype=np.float32).reshape(3, 3, 4)
Z = np.arange(72.0, dtype=np.float32).reshape(3, 6, 4)

CASES = {  # name: (function of (lax, numpy module, value), input)
    "psum": (lambda L, m, v: v / L.psum(v, "i"), X),
    "psum_of_a_constant": (lambda L, m, v: L.psum(1.0, "i") + 0 * v, X),
    "pmean": (lambda L, m, v: L.pmean(v, "i") - v, X),
    "pmean_of_ints_is_float": (lambda L, m, v: L.pmean(v.astype(m.int32), "i"), X),
    "psum_of_bools_counts": (lambda L, m, v: L.psum(v > 6, "i"), X),
    "pmax_pmin": (lambda L, m, v: (L.pmax(v, "i"), L.pmin(v, "i")), X),
    "psum_pytree": (lambda L, m, v: L.psum({"a": v, "b": (v[0], 2 * v)}, "i"), X),
    "axis_index": (lambda L, m, v: v * L.axis_index("i"), X),
    "all_gather": (lambda L, m, v: L.all_gather(v, "i"), X),
    "all_gather_axis_1": (lambda L, m, v: L.all_gather(v, "i", axis=1), X),
    "all_gather_tiled": (lambda L, m, v: L.all_gather(v, "i", tiled=True), X),
    "ppermute": (lambda L, m, v: L.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]), X),
    "all_to_all": (lambda L, m, v: L.all_to_all(v, "i", 0, 1), Y),
    "all_to_all_same_axis": (lambda L, m, v: L.all_to_all(v, "i", 0, 0), Y),
    "all_to_all_tiled": (lambda L, m, v: L.all_to_all(v, "i", 0, 1, tiled=True), Z),
    "pswapaxes": (lambda L, m, v: L.pswapaxes(v, "i", 0), Y),
    "psum_scatter": (lambda L, m, v: L.psum_scatter(v, "i"), Y),
    "psum_scatter_tiled": (lambda L, m, v: L.psum_scatter(v, "i", tiled=True), Z),
    "in_a_loop": (lambda L, m, v: L.fori_loop(0, 2, lambda k, c: c + L.psum(c, "i"), v), X),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_collectives_under_vmap_match_jax(name):
    fn, x = CASES[name]
    want = jax.vmap(lambda v: fn(jax.lax, jnp_ref, v), axis_name="i")(x)
    assert_same(numlir.vmap(lambda v: fn(lax, jnp, v), axis_name="i")(x), want, 1e-6)
    assert_same(numlir.jit(numlir.vmap(lambda v: fn(lax, jnp, v), axis_name="i"))(x), want, 1e-6)
    assert_same(numlir.vmap(numlir.jit(lambda v: fn(lax, jnp, v)), axis_name="i")(x), want, 1e-6)


def test_ppermute_gives_zeros_where_nothing_arrives():
    out = numlir.vmap(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2)]), axis_name="i")(X)
    np.testing.assert_array_equal(np.asarray(out), np.stack([0 * X[0], X[0], X[1]]))


def test_pshuffle_sends_example_perm_i_to_i():
    out = numlir.vmap(lambda v: lax.pshuffle(v, "i", [2, 0, 1]), axis_name="i")(X)
    np.testing.assert_array_equal(np.asarray(out), X[[2, 0, 1]])


NESTED = {
    "both_names": lambda L, v: L.psum(v, ("i", "j")),
    "outer_name": lambda L, v: L.psum(v, "i"),
    "gather_outer": lambda L, v: L.all_gather(v, "i"),
    "gather_inner_axis_1": lambda L, v: L.all_gather(v, "j", axis=1),
    "indices": lambda L, v: v * L.axis_index("i") + L.axis_index("j"),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_nested_vmaps_resolve_each_name(name):
    fn = NESTED[name]
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    got = numlir.vmap(numlir.vmap(lambda v: fn(lax, v), axis_name="j"), axis_name="i")(x)
    want = jax.vmap(jax.vmap(lambda v: fn(jax.lax, v), axis_name="j"), axis_name="i")(x)
    assert_same(got, want, 1e-6)


GRADS = {
    "psum": lambda L, m, v: (v * L.psum(v * v, "i")).sum(),
    "pmean": lambda L, m, v: (m.sin(v) * L.pmean(v, "i")).sum(),
    "all_gather": lambda L, m, v: (L.all_gather(v, "i") ** 2 * np.arange(3.0)[:, None]).sum(),
    "ppermute": lambda L, m, v: (L.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]) * v).sum(),
    "all_to_all": lambda L, m, v: (L.all_to_all(v[:3].reshape(3, 1), "i", 0, 1) ** 2).sum(),
    "psum_scatter": lambda L, m, v: (L.psum_scatter(v[:3], "i") * v[0]).sum(),
}


@pytest.mark.parametrize("order", ["vmap_of_grad", "grad_of_vmap"])
@pytest.mark.parametrize("name", sorted(GRADS))
def test_derivatives_through_collectives_match_jax(name, order):
    fn = GRADS[name]
    if order == "vmap_of_grad":
        got = numlir.vmap(numlir.grad(lambda v: fn(lax, jnp, v)), axis_name="i")(X)
        want = jax.vmap(jax.grad(lambda v: fn(jax.lax, jnp_ref, v)), axis_name="i")(X)
    else:
        got = numlir.grad(lambda a: numlir.vmap(lambda v: fn(lax, jnp, v), axis_name="i")(a).sum())(X)
        want = jax.grad(lambda a: jax.vmap(lambda v: fn(jax.lax, jnp_ref, v), axis_name="i")(a).sum())(X)
    assert_same(got, want, 1e-5)


def test_axis_size_is_a_python_int():
    sizes = []
    numlir.vmap(lambda v: sizes.append(lax.axis_size("i")) or v, axis_name="i")(X)
    assert sizes == [3]


@pytest.mark.parametrize("call", [
    lambda: lax.psum(jnp.ones(2), "k"),
    lambda: numlir.vmap(lambda v: lax.psum(v, "k"), axis_name="i")(X),
    lambda: numlir.jit(lambda v: lax.psum(v, "k"))(X),
    lambda: lax.axis_size("k"),
])
def test_an_unbound_axis_name_is_a_name_error(call):
    with pytest.raises(NameError, match="unbound axis name.*'?k'?"):
        call()


def test_bad_permutations_and_shapes_are_named():
    with pytest.raises(ValueError, match="sends from or to a position twice"):
        numlir.vmap(lambda v: lax.ppermute(v, "i", [(0, 1), (2, 1)]), axis_name="i")(X)
    with pytest.raises(ValueError, match="not a permutation"):
        numlir.vmap(lambda v: lax.pshuffle(v, "i", [0, 0, 1]), axis_name="i")(X)
    with pytest.raises(ValueError, match="must have the axis size 3"):
        numlir.vmap(lambda v: lax.all_to_all(v, "i", 0, 0), axis_name="i")(X)
