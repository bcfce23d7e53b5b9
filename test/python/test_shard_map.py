"""numlir.shard_map, Mesh, PartitionSpec and NamedSharding against JAX on 4 CPU devices
(`make test` runs this file again with NUMLIR_NUM_CPU_DEVICES=4; jax runs the same programs,
shard_map_cases.py, in a process of its own with jax_num_cpu_devices=4)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import P, lax
from numlir.sharding import Mesh, NamedSharding

import shard_map_cases

HERE = Path(__file__).parent
four = pytest.mark.skipif(numlir.local_device_count() < 4,
                          reason="needs NUMLIR_NUM_CPU_DEVICES >= 4 (make test runs this file "
                                 "again with 4)")


@pytest.fixture(scope="module")
def jax_values(tmp_path_factory) -> dict[str, np.ndarray]:
    out = tmp_path_factory.mktemp("jax") / "values.npz"
    done = subprocess.run([sys.executable, str(HERE / "shard_map_cases.py"), "jax", str(out)],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr[-3000:]
    with np.load(out) as saved:
        return {k: saved[k] for k in saved.files}


@four
@pytest.mark.parametrize("wrap", ["top level", "jit"])
def test_every_case_gives_jaxs_values_shapes_and_dtypes(jax_values, wrap):
    # Under jit (and grad, vmap, pmap) shard_map runs as one vmap per mesh axis.
    got = shard_map_cases.run(numlir, numlir.jit if wrap == "jit" else lambda f: f)
    assert got.keys() == jax_values.keys()
    for name, want in jax_values.items():
        assert got[name].shape == want.shape and got[name].dtype == want.dtype, name
        np.testing.assert_allclose(got[name], want, rtol=2e-6, atol=1e-6, err_msg=name)


def _grid():
    return Mesh(np.array(numlir.devices()[:4]).reshape(2, 2), ("data", "model"))


@four
def test_blocks_go_where_the_specs_say_whatever_the_axis_order():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    # Each device returns its block tagged with its mesh coordinates.
    tag = numlir.shard_map(lambda v: v * 0 + lax.axis_index("data") * 10
                           + lax.axis_index("model"), mesh=_grid(),
                           in_specs=P("model", "data"), out_specs=P("model", "data"))(x)
    want = np.zeros((4, 6), np.float32)
    for d in range(2):
        for m in range(2):
            want[2 * m:2 * m + 2, 3 * d:3 * d + 3] = 10 * d + m
    np.testing.assert_array_equal(tag, want)


@four
def test_an_output_that_varies_over_an_axis_its_spec_omits_is_refused():
    with pytest.raises(ValueError, match="replicated across mesh axis 'model'"):
        numlir.shard_map(lambda v: v, mesh=_grid(), in_specs=P("data", "model"),
                         out_specs=P("data", None))(np.ones((4, 6), np.float32))
    # pmax makes it the same along 'model'; all_gather's result varies, as in JAX.
    numlir.shard_map(lambda v: lax.pmax(v, "model"), mesh=_grid(),
                     in_specs=P("data", "model"), out_specs=P("data", None))(
        np.ones((4, 6), np.float32))
    with pytest.raises(ValueError, match="replicated across mesh axis 'model'"):
        numlir.shard_map(lambda v: lax.all_gather(v, "model"), mesh=_grid(),
                         in_specs=P("data", "model"), out_specs=P("data"))(
            np.ones((4, 6), np.float32))
    # A varying value inside a loop body is seen too.
    with pytest.raises(ValueError, match="replicated across mesh axis 'data'"):
        numlir.shard_map(
            lambda v: lax.fori_loop(0, 2, lambda i, c: c + lax.axis_index("data"), v),
            mesh=_grid(), in_specs=P(), out_specs=P())(np.float32(0))
    # Under jit too (the vmap path checks the same graph).
    with pytest.raises(ValueError, match="replicated across mesh axis 'model'"):
        numlir.jit(numlir.shard_map(lambda v: v, mesh=_grid(), in_specs=P("data", "model"),
                                    out_specs=P("data", None)))(np.ones((4, 6), np.float32))
    # check_vma=False takes the devices at coordinate 0 on the omitted axis.
    got = numlir.shard_map(lambda v: v, mesh=_grid(), in_specs=P("data", "model"),
                           out_specs=P("data", None), check_vma=False)(
        np.arange(24, dtype=np.float32).reshape(4, 6))
    np.testing.assert_array_equal(got, np.arange(24, dtype=np.float32).reshape(4, 6)[:, :3])


@four
def test_grad_inside_a_checked_body_is_refused_rather_than_unpsummed():
    def step(w, x):
        return lax.pmean(numlir.grad(lambda w: jnp.sum(x @ w))(w), "i")

    line = Mesh(np.array(numlir.devices()[:4]), ("i",))
    args = (np.ones((3, 2), np.float32), np.ones((8, 3), np.float32))
    with pytest.raises(NotImplementedError, match="check_vma=False"):
        numlir.shard_map(step, mesh=line, in_specs=(P(), P("i")), out_specs=P())(*args)
    got = numlir.shard_map(step, mesh=line, in_specs=(P(), P("i")), out_specs=P(),
                           check_vma=False)(*args)
    np.testing.assert_allclose(got, np.full((3, 2), 2.0))  # each device: 2 rows of ones


def test_bad_specs_and_shapes_say_what_is_wrong():
    mesh = Mesh(np.array(numlir.devices()[:1]), ("i",))
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="names \\['j'\\], which mesh"):
        numlir.shard_map(lambda v: v, mesh=mesh, in_specs=P("j"), out_specs=P("j"))(x)
    with pytest.raises(ValueError, match="has 3 entries for an array of rank 2"):
        numlir.shard_map(lambda v: v, mesh=mesh, in_specs=P(None, None, "i"),
                         out_specs=P())(x)
    with pytest.raises(ValueError, match="names a mesh axis twice"):
        numlir.shard_map(lambda v: v, mesh=mesh, in_specs=P("i", "i"), out_specs=P())(x)
    with pytest.raises(ValueError, match="needs mesh="):
        numlir.shard_map(lambda v: v, in_specs=P(), out_specs=P())
    with pytest.raises(TypeError, match="mesh axis name"):
        P(3)


@four
def test_an_indivisible_dimension_names_the_axis_and_sizes():
    with pytest.raises(ValueError, match="splits dimension 0 \\(of size 5\\) over mesh axes "
                                         "'data' \\(2\\); 2 does not evenly divide 5"):
        numlir.shard_map(lambda v: v, mesh=_grid(), in_specs=P("data", "model"),
                         out_specs=P("data", "model"))(np.ones((5, 2), np.float32))


@four
def test_outputs_carry_their_named_sharding():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    y = numlir.shard_map(lambda v: v * 2, mesh=_grid(), in_specs=P("data", "model"),
                         out_specs=P("data", "model"))(x)
    assert y.sharding == NamedSharding(_grid(), P("data", "model"))
    by_device = {s.device.id: s for s in y.addressable_shards}
    assert by_device[1].index == (slice(0, 2), slice(3, 6))
    np.testing.assert_array_equal(by_device[1].data, x[0:2, 3:6] * 2)


@four
def test_named_sharding_and_make_mesh_report_what_jax_reports():
    mesh = numlir.make_mesh((2, 2), ("data", "model"))
    assert mesh.shape == {"data": 2, "model": 2} and mesh.axis_names == ("data", "model")
    assert mesh.device_ids.tolist() == [[0, 1], [2, 3]]
    s = NamedSharding(mesh, P("data", None))
    assert s.shard_shape((4, 6)) == (2, 6) and not s.is_fully_replicated
    indices = {d.id: idx for d, idx in s.devices_indices_map((4, 6)).items()}
    assert indices == {0: (slice(0, 2), slice(None)), 1: (slice(0, 2), slice(None)),
                       2: (slice(2, 4), slice(None)), 3: (slice(2, 4), slice(None))}
    assert NamedSharding(mesh, P()).is_fully_replicated
    assert repr(P("a", ("b", "c"), None)) == "P('a', ('b', 'c'), None)"
    with pytest.raises(ValueError, match="needs 8 devices"):
        numlir.make_mesh((2, 4), ("a", "b"))
