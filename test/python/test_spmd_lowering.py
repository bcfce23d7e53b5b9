"""pmap's collectives at the lowering layer: replica groups from named axes, and psum,
pmax, pmin, pmean and axis_index lowered to hlo.all_reduce and hlo.replica_id in a module
that records its replica count (docs/design-pmap.md, increment 2). Running such modules on
several devices at once is the runtime's SPMD launch (increment 1)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax
from numlir._src import backends, lowering, spmd

F32 = np.float32


@pytest.mark.parametrize("names, want", [
    (("i",), [[0, 2], [1, 3]]),
    (("j",), [[0, 1], [2, 3]]),
    (("i", "j"), [[0, 1, 2, 3]]),
    (("j", "i"), [[0, 1, 2, 3]]),
])
def test_replica_groups_of_two_axes_follow_row_major_replica_ids(names, want):
    env = spmd.AxisEnv.of([("i", 2), ("j", 2)])
    assert [(f.name, f.size, f.stride) for f in env.frames] == [("i", 2, 2), ("j", 2, 1)]
    assert env.num_replicas == 4
    assert spmd.replica_groups(env, names) == want


def test_replica_groups_of_three_axes_and_an_unbound_name():
    env = spmd.AxisEnv.of([("a", 2), ("b", 3), ("c", 2)])
    assert spmd.replica_groups(env, ("b",)) == [[0, 2, 4], [1, 3, 5], [6, 8, 10], [7, 9, 11]]
    assert spmd.replica_groups(env, ("a", "c")) == [[0, 1, 6, 7], [2, 3, 8, 9], [4, 5, 10, 11]]
    with pytest.raises(NameError, match="unbound axis name: 'z'"):
        spmd.replica_groups(env, ("z",))


def test_an_inner_axis_of_the_same_name_shadows_the_outer_one():
    with spmd.extend_axis_env([("i", 2)]):
        with spmd.extend_axis_env([("i", 3)]) as env:
            assert env.frame("i").size == 3 and env.num_replicas == 6
            assert lax.axis_size("i") == 3
        assert spmd.axis_env().num_replicas == 2
    assert spmd.axis_env().frames == ()


def _spmd_module(f, *args, axes=(("i", 4),)):
    with spmd.extend_axis_env(axes) as env:
        closed = numlir.make_graph(f)(*args)
    return lowering.lower_graph(closed, module_name="pmap_f", axis_env=env)


def test_psum_pmax_pmin_lower_to_all_reduce_over_the_named_axis():
    text = _spmd_module(lambda x: (lax.psum(x, "i"), lax.pmax(x, "j"), lax.pmin(x, ("i", "j"))),
                        np.ones((3,), F32), axes=(("i", 2), ("j", 2)))
    assert "attributes {numlir.num_replicas = 4 : i64}" in text
    assert re.search(r"hlo.all_reduce sum %\w+, replica_groups = \[\[0, 2\], \[1, 3\]\] "
                     r": tensor<3xf32>", text)
    assert "hlo.all_reduce max" in text and "replica_groups = [[0, 1], [2, 3]]" in text
    assert "hlo.all_reduce min" in text and "replica_groups = [[0, 1, 2, 3]]" in text


def test_pmean_divides_by_the_pmap_axis_size_and_psum_counts_bools():
    text = _spmd_module(lambda x, b: (lax.pmean(x, "i"), lax.psum(b, "i")),
                        np.ones((2,), F32), np.ones((2,), bool), axes=(("i", 4),))
    assert "hlo.all_reduce sum" in text
    assert "hlo.constant dense<4.0> : tensor<f32>" in text  # pmean's divisor
    assert re.search(r"hlo.all_reduce sum %\w+, replica_groups = \[\[0, 1, 2, 3\]\] "
                     r": tensor<2xi32>", text)


def test_axis_index_is_the_replica_id_divided_by_the_axis_stride():
    text = _spmd_module(lambda x: x + lax.axis_index("i").astype(F32), np.ones((2,), F32),
                        axes=(("i", 3), ("j", 2)))
    assert "hlo.replica_id : tensor<ui32>" in text
    assert "dense<2> : tensor<i32>" in text and "dense<3> : tensor<i32>" in text
    assert "hlo.divide" in text and "hlo.remainder" in text


def test_an_spmd_module_compiles_on_the_cpu_backend():
    # The whole CPU pipeline accepts it: verifiers (replica groups against the count),
    # the lowering to runtime calls and the entry point's collective table.
    text = _spmd_module(lambda x: lax.psum(jnp.tanh(x), "i") * lax.axis_index("i"),
                        np.ones((8,), F32), axes=(("i", 4),))
    executable = backends.get_backend("cpu").compile(text, name="pmap_f")
    assert executable is not None


def test_a_collective_outside_any_named_axis_is_still_an_unbound_name():
    with pytest.raises(NameError, match="unbound axis name 'i'.*pmap"):
        numlir.jit(lambda x: lax.psum(x, "i"))(np.ones(2, F32))
    with pytest.raises(NameError, match="unbound axis name: i"):
        numlir.jit(lambda x: lax.pmean(x, "i"))(np.ones(2, F32))
    # vmap's axes are unchanged.
    out = numlir.vmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(np.arange(1.0, 4.0, dtype=F32))
    np.testing.assert_allclose(np.asarray(out), np.arange(1.0, 4.0) / 6.0, rtol=1e-6)


def test_psum_scatter_and_the_transpose_of_all_gather_are_one_reduce_scatter():
    text = _spmd_module(lambda x: lax.psum_scatter(x, "i", scatter_dimension=1, tiled=True),
                        np.ones((3, 8), F32), axes=(("i", 4),))
    assert re.search(r"hlo.reduce_scatter sum %\w+, dim = 1, replica_groups = "
                     r"\[\[0, 1, 2, 3\]\] : tensor<3x8xf32> -> tensor<3x2xf32>", text)
    assert "hlo.all_reduce" not in text
    grad = _spmd_module(numlir.grad(lambda x: (lax.all_gather(x, "i") ** 2).sum()),
                        np.ones((3,), F32), axes=(("i", 4),))
    assert "hlo.all_gather" in grad and "hlo.reduce_scatter sum" in grad
    assert "tensor<4x3xf32> -> tensor<1x3xf32>" in grad
