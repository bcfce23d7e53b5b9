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
from compile_spy import compiled_texts

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
    # Under jit the program runs over the mesh's devices (shard_map_p); under grad, vmap
    # and pmap shard_map runs as one vmap per mesh axis.
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


def _matmul_map():
    return numlir.shard_map(lambda x, w: lax.psum(x @ w, "model"), mesh=_grid(),
                            in_specs=(P("data", "model"), P("model", None)),
                            out_specs=P("data", None))


@four
def test_jit_runs_a_shard_map_over_the_meshs_devices_with_the_work_around_it(monkeypatch):
    texts = compiled_texts(monkeypatch)
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=(8, 6)).astype(np.float32), rng.normal(size=(6, 3)).astype(np.float32)
    step = numlir.jit(lambda x, w: jnp.tanh(_matmul_map()(x * 2, w)).sum(0) + 1)
    got = step(x, w)
    np.testing.assert_allclose(np.asarray(got), np.tanh((2 * x) @ w).sum(0) + 1, rtol=2e-6)
    # One module, loaded on the 4 devices of the mesh (not jit's one device running vmaps).
    assert len(texts) == 4 and len(set(texts)) == 1, texts
    assert "numlir.num_replicas = 4" in texts[0]
    assert "hlo.all_gather" in texts[0] and "hlo.all_reduce" in texts[0]
    step(x, w)
    assert len(set(texts)) == 1  # traced and lowered once per signature
    # The same program through jit's lower/compile (one device, as vmaps), grad and vmap
    # of it (jit inlines: vmaps), and jit(grad) (grad's trace: vmaps) give the same values.
    np.testing.assert_allclose(np.asarray(step.lower(x, w).compile()(x, w)), np.asarray(got),
                               rtol=2e-6)
    loss = lambda x, w: jnp.sum(jnp.tanh(_matmul_map()(x, w)) ** 2)  # noqa: E731
    want = 2 * ((np.tanh(x @ w) * (1 - np.tanh(x @ w) ** 2)).T @ x).T
    for grad in (numlir.grad(numlir.jit(loss), 1), numlir.jit(numlir.grad(loss, 1))):
        np.testing.assert_allclose(np.asarray(grad(x, w)), want, rtol=2e-5, atol=1e-5)
    batched = numlir.vmap(numlir.jit(lambda x, w: _matmul_map()(x, w)), in_axes=(None, 0))
    np.testing.assert_allclose(np.asarray(batched(x, np.stack([w, -w]))),
                               np.stack([x @ w, -(x @ w)]), rtol=2e-5, atol=1e-5)


@four
def test_jit_spreads_shard_maps_whatever_the_spec_order_and_takes_device_0s_promise():
    x = np.arange(48, dtype=np.float32).reshape(8, 6)
    mesh = _grid()
    # Rows split over both axes, model outermost: blocks tagged with their coordinates.
    tag = numlir.shard_map(lambda v: v * 0 + lax.axis_index("data") * 10
                           + lax.axis_index("model"), mesh=mesh,
                           in_specs=P(("model", "data")), out_specs=P(("model", "data")))
    np.testing.assert_array_equal(np.asarray(numlir.jit(tag)(x)), np.asarray(tag(x)))
    # Two shard_maps on one mesh, and one on a mesh of the other device order (vmaps).
    flipped = Mesh(np.array(numlir.devices()[:4])[::-1].reshape(2, 2), ("data", "model"))
    twice = numlir.shard_map(lambda v: v * 2, mesh=flipped, in_specs=P("data"),
                             out_specs=P("data"))
    both = numlir.jit(lambda v: twice(tag(v) + numlir.shard_map(
        lambda u: lax.psum(u, "data"), mesh=mesh, in_specs=P("data", "model"),
        out_specs=P(None, "model"))(v).sum()))
    want = 2 * (np.asarray(tag(x)) + x.reshape(2, 4, 6).sum(0).sum())
    np.testing.assert_allclose(np.asarray(both(x)), want, rtol=1e-6)
    # check_vma=False takes an output its spec says is replicated from coordinate 0, as
    # the shard_map called on its own does.
    trusted = numlir.shard_map(lambda v: v + lax.axis_index("model"), mesh=mesh,
                               in_specs=P("data"), out_specs=P("data"), check_vma=False)
    np.testing.assert_array_equal(np.asarray(numlir.jit(trusted)(x)), np.asarray(trusted(x)))
    np.testing.assert_array_equal(np.asarray(trusted(x)), x)


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
