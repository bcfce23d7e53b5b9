"""numlir.pmap on several CPU devices (docs/pmap.md). `make test` runs this file with one
device (the single-device and error cases) and again with NUMLIR_NUM_CPU_DEVICES=4.

The reference for values is jax.vmap with the same axis name: pmap's values are vmap's
(JAX's own eager pmap is that vmap), and the devices' results must not depend on which
thread finished first."""

from __future__ import annotations

import numpy as np
import pytest

import jax
import jax.numpy as jjnp

import numlir
import numlir.numpy as jnp
from numlir import lax

F32 = np.float32
R = np.random.default_rng(36)
N = numlir.local_device_count()
several = pytest.mark.skipif(N < 2, reason="needs NUMLIR_NUM_CPU_DEVICES >= 2 (make test "
                                           "runs this file again with 4)")


def _on_jax(f, *args, **vmap_kwargs):
    return jax.tree_util.tree_map(np.asarray, jax.vmap(f, **vmap_kwargs)(*args))


def _close(got, want, rtol=1e-6):
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


@several
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_psum_pmax_pmin_pmean_agree_with_vmap(dtype):
    x = (R.normal(size=(N, 5)) * 10).astype(dtype)

    def f(lib):
        return lambda v: (lib.lax.psum(v, "i"), lib.lax.pmax(v, "i"), lib.lax.pmin(v, "i"),
                          lib.lax.pmean(v, "i"))

    with numlir.enable_x64(dtype == np.float64):
        jax.config.update("jax_enable_x64", dtype == np.float64)
        try:
            got = numlir.pmap(f(numlir), axis_name="i")(x)
            want = _on_jax(f(jax), x, axis_name="i")
        finally:
            jax.config.update("jax_enable_x64", False)
    _close(got, want)


@several
def test_every_device_gets_the_same_bits_of_a_float_sum():
    # The all-reduce adds in replica order on every device, whatever the timing: the
    # copies are bit-identical, so replicated parameters never drift apart.
    x = R.normal(size=(N, 1000)).astype(F32) * np.float32(1e3)
    out = np.asarray(numlir.pmap(lambda v: lax.psum(v * 1.5 + 0.1, "i"), axis_name="i")(x))
    for row in out[1:]:
        np.testing.assert_array_equal(row, out[0])
    want = x[0] * 1.5 + 0.1
    for r in range(1, N):
        want = want + (x[r] * np.float32(1.5) + np.float32(0.1))
    np.testing.assert_array_equal(out[0], want.astype(F32))


@several
def test_axis_index_in_axes_none_and_out_axes():
    x = np.arange(N * 3, dtype=F32).reshape(N, 3)
    w = np.array([1.0, 2.0, 3.0], F32)

    def f(v, w):
        return v * w + lax.axis_index("i"), lax.psum(v.sum(), "i")

    got = numlir.pmap(f, axis_name="i", in_axes=(0, None), out_axes=(1, None))(x, w)
    want = _on_jax(lambda v, w: (v * w + jax.lax.axis_index("i"), jax.lax.psum(v.sum(), "i")),
                   x, w, axis_name="i", in_axes=(0, None), out_axes=(1, None))
    _close(got, want)
    assert np.asarray(got[0]).shape == (3, N)


@several
def test_pytrees_kwargs_and_a_mapped_axis_other_than_zero():
    params = {"w": R.normal(size=(3, N)).astype(F32), "b": R.normal(size=(N,)).astype(F32)}

    def f(p, scale=2.0):
        return {"y": lax.pmean(p["w"] * p["b"] * scale, "d")}

    got = numlir.pmap(f, axis_name="d", in_axes=({"w": 1, "b": 0},))(params)
    want = _on_jax(lambda p: {"y": jax.lax.pmean(p["w"] * p["b"] * 2.0, "d")}, params,
                   axis_name="d", in_axes=({"w": 1, "b": 0},))
    _close(got, want)


@several
def test_pmap_of_grad_with_pmean_is_the_full_batch_gradient():
    # Data parallelism: each device's gradient of its shard, averaged, is the gradient of
    # the mean loss over the whole batch.
    xs = R.normal(size=(N * 4, 3)).astype(F32)
    ys = R.normal(size=(N * 4,)).astype(F32)
    w = R.normal(size=(3,)).astype(F32)

    def loss(w, x, y):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)

    step = numlir.pmap(lambda w, x, y: lax.pmean(numlir.grad(loss)(w, x, y), "batch"),
                       axis_name="batch", in_axes=(None, 0, 0))
    got = np.asarray(step(w, xs.reshape(N, 4, 3), ys.reshape(N, 4)))
    full = np.asarray(jax.grad(lambda w: jjnp.mean((jjnp.tanh(xs @ w) - ys) ** 2))(w))
    for row in got:
        np.testing.assert_allclose(row, full, rtol=2e-5, atol=1e-6)


@several
def test_pmap_of_vmap_and_scan_inside():
    x = R.normal(size=(N, 4, 3)).astype(F32)

    def f(v):
        inner = numlir.vmap(lambda r: r / lax.psum(jnp.abs(r).sum(), "i"))(v)
        carry, _ = lax.scan(lambda c, r: (c + lax.psum(r, "i"), None), jnp.zeros(3), inner)
        return carry

    got = numlir.pmap(f, axis_name="i")(x)

    def g(v):
        inner = jax.vmap(lambda r: r / jax.lax.psum(jjnp.abs(r).sum(), "i"))(v)
        carry, _ = jax.lax.scan(lambda c, r: (c + jax.lax.psum(r, "i"), None), jjnp.zeros(3),
                                inner)
        return carry

    _close(got, _on_jax(g, x, axis_name="i"), rtol=1e-5)


@several
def test_one_compile_per_signature_and_static_broadcasted_arguments():
    f = numlir.pmap(lambda x, k: lax.psum(x, "i") * k, axis_name="i",
                    static_broadcasted_argnums=1)
    x = np.ones((N, 2), F32)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f(x, 3)), np.full((N, 2), 3 * N, F32))
    assert f.cache_misses == 1
    np.testing.assert_array_equal(np.asarray(f(x, 4)), np.full((N, 2), 4 * N, F32))
    assert f.cache_misses == 2


@several
def test_named_devices_run_in_the_given_order():
    devices = numlir.local_devices()[:2][::-1]
    out = numlir.pmap(lambda x: x + lax.axis_index("i"), axis_name="i",
                      devices=devices)(np.zeros((2, 1), F32))
    np.testing.assert_array_equal(np.asarray(out), [[0.0], [1.0]])


def test_python_scalars_and_int64_arrays_are_arguments_in_numlirs_dtypes():
    # Without x64 a Python float is float32 and an int64 array int32, as for jit.
    out, k = numlir.pmap(lambda x, s, k: (x * s + k, k), in_axes=(0, None, 0))(
        np.ones((N, 2), F32), 2.0, np.ones((N,), np.int64))
    assert out.dtype == np.float32 and k.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), np.full((N, 2), 3.0, F32))


def test_a_single_device_pmap_runs_its_collectives_over_one_replica():
    out = numlir.pmap(lambda x: lax.psum(x, "i") + lax.axis_index("i"),
                      axis_name="i")(np.arange(3, dtype=F32)[None])
    np.testing.assert_array_equal(np.asarray(out), [[0.0, 1.0, 2.0]])


def test_sizes_and_axes_that_do_not_fit_are_clear_errors():
    f = numlir.pmap(lambda x: x, axis_name="i")
    with pytest.raises(ValueError, match=f"only {N} cpu devices are available"):
        f(np.ones((N + 1, 2), F32))
    with pytest.raises(ValueError, match="inconsistent sizes"):
        numlir.pmap(lambda x, y: x + y)(np.ones((1, 2), F32), np.ones((2, 2), F32))
    with pytest.raises(ValueError, match="at least one argument with a mapped axis"):
        numlir.pmap(lambda x: x, in_axes=None)(np.ones(2, F32))
    with pytest.raises(ValueError, match="rank should be at least 1"):
        f(np.float32(1.0))
    with pytest.raises(ValueError, match="devices given in devices="):
        numlir.pmap(lambda x: x, devices=numlir.local_devices()[:1])(np.ones((2, 1), F32))


def test_disable_jit_runs_pmap_as_vmap():
    with numlir.disable_jit():
        out = numlir.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(
            np.arange(1.0, 4.0, dtype=F32))
    np.testing.assert_allclose(np.asarray(out), np.arange(1.0, 4.0) / 6.0, rtol=1e-6)


def test_host_callbacks_inside_pmap_are_a_clear_error_for_now():
    with pytest.raises(NotImplementedError, match="host callbacks .* inside a pmap body"):
        numlir.pmap(lambda x: numlir.debug.print("{}", x) or x)(np.ones((1, 2), F32))


@several
def test_jit_grad_and_vmap_of_pmap_give_jaxs_values_and_derivatives():
    """Inside a transformation pmap runs as vmap with its axis name (docs/pmap.md)."""
    x = (R.normal(size=(N, 3)) + 2).astype(F32)

    def body(lib):
        return lambda v: v / lib.lax.psum(v, "i") + lib.lax.axis_index("i")

    f, jf = numlir.pmap(body(numlir), axis_name="i"), jax.vmap(body(jax), axis_name="i")
    loss = lambda g, lib: lambda v: lib.numpy.sum(g(v) ** 2)  # noqa: E731
    _close(numlir.jit(f)(x), np.asarray(jf(x)))
    _close(numlir.grad(loss(f, numlir))(x), np.asarray(jax.grad(loss(jf, jax))(x)), rtol=1e-5)
    batch = np.stack([x, 2 * x])
    _close(numlir.vmap(f)(batch), np.asarray(jax.vmap(jf)(batch)))
    # The size check still asks for one device per index, as JAX's.
    with pytest.raises(ValueError, match="only .* devices are available"):
        numlir.jit(f)(np.ones((N + 1, 3), F32))


@several
def test_nested_pmap_sees_both_axes():
    y = R.normal(size=(2, 2, 3)).astype(F32)

    def outer(lib, inner_map):
        inner = lambda b: lib.lax.psum(b, "j") * 10 + lib.lax.psum(b, "i")  # noqa: E731
        return lambda a: inner_map(inner, axis_name="j")(a)

    got = numlir.pmap(outer(numlir, numlir.pmap), axis_name="i")(y)
    want = jax.vmap(outer(jax, jax.vmap), axis_name="i")(y)
    _close(got, np.asarray(want))


@several
def test_devices_that_reach_different_collectives_are_a_clear_error_and_the_next_call_works():
    def f(x):
        first = lax.axis_index("i") == 0
        return lax.cond(first, lambda v: lax.psum(v, "i"), lambda v: lax.pmax(v, "i") * 2, x)

    x = np.ones((N, 3), F32)
    with pytest.raises(RuntimeError, match=r"COLLECTIVE_FAILED.*replica \d is at all_reduce "
                                           r"\(.*test_pmap.py:\d+.*\) while replica \d"):
        numlir.pmap(f, axis_name="i")(x)
    ok = numlir.pmap(lambda v: lax.psum(v, "i"), axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(ok), np.full((N, 3), N, F32))


@several
@pytest.mark.parametrize("axis, tiled", [(0, False), (1, False), (0, True), (1, True)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_all_gather_agrees_with_vmap(axis, tiled, dtype):
    x = (R.normal(size=(N, 2, 3)) > 0 if dtype == np.bool_
         else (R.normal(size=(N, 2, 3)) * 10).astype(dtype))
    got = numlir.pmap(lambda v: lax.all_gather(v, "i", axis=axis, tiled=tiled),
                      axis_name="i")(x)
    want = _on_jax(lambda v: jax.lax.all_gather(v, "i", axis=axis, tiled=tiled), x,
                   axis_name="i")
    _close(got, want)


@several
@pytest.mark.parametrize("perm", ["ring", "partial", "none"])
def test_ppermute_agrees_with_vmap(perm):
    pairs = {"ring": [(i, (i + 1) % N) for i in range(N)],
             "partial": [(0, N - 1), (N - 1, 1 % N)] if N > 2 else [(0, 1)],
             "none": []}[perm]
    x = R.normal(size=(N, 3, 2)).astype(F32)
    got = numlir.pmap(lambda v: lax.ppermute(v, "i", pairs), axis_name="i")(x)
    # jax.vmap takes only whole permutations; NumPy is the reference: a device no pair
    # sends to gets zeros.
    want = np.zeros_like(x)
    for source, target in pairs:
        want[target] = x[source]
    _close(got, want)
    if perm == "ring":
        _close(got, _on_jax(lambda v: jax.lax.ppermute(v, "i", pairs), x, axis_name="i"))


@several
@pytest.mark.parametrize("split_axis, concat_axis", [(0, 0), (0, 1), (1, 0), (2, 1)])
def test_all_to_all_agrees_with_vmap(split_axis, concat_axis):
    shape = [2, 3, 2]
    shape[split_axis] = N
    x = R.normal(size=(N, *shape)).astype(F32)
    got = numlir.pmap(lambda v: lax.all_to_all(v, "i", split_axis, concat_axis),
                      axis_name="i")(x)
    want = _on_jax(lambda v: jax.lax.all_to_all(v, "i", split_axis, concat_axis), x,
                   axis_name="i")
    _close(got, want)


@several
def test_psum_scatter_and_the_gradient_of_all_gather():
    x = R.normal(size=(N, N * 2, 3)).astype(F32)
    got = numlir.pmap(lambda v: lax.psum_scatter(v, "i", tiled=True), axis_name="i")(x)
    want = _on_jax(lambda v: jax.lax.psum_scatter(v, "i", tiled=True), x, axis_name="i")
    _close(got, want, rtol=1e-5)
    # all_gather's transpose is a psum_scatter: each device's gradient is its share.
    w = R.normal(size=(N, 3)).astype(F32)

    def loss(lib):
        return lambda v: (lib.lax.all_gather(v, "i") ** 2).sum()

    got = numlir.pmap(numlir.grad(loss(numlir)), axis_name="i")(w)
    want = _on_jax(jax.grad(loss(jax)), w, axis_name="i")
    _close(got, want, rtol=1e-5)


def test_pmap_on_a_pjrt_backend_is_a_clear_error_for_now():
    f = numlir.pmap(lambda x: x * 2, backend="pjrt_cpu")
    with pytest.raises(NotImplementedError, match="'pjrt_cpu' backend cannot run SPMD"):
        f(np.ones((1, 2), F32))
    g = numlir.pmap(lambda x: lax.psum(x, "i"), axis_name="i", backend="pjrt_cpu")
    with pytest.raises(numlir.CompileError, match="hlo.all_reduce.*no StableHLO translation"):
        g(np.ones((1, 2), F32))


@several
def test_rows_go_in_and_come_out_without_copies(monkeypatch):
    # A C-contiguous argument mapped on axis 0 reaches device i as a view of its row i,
    # and an output stacked on axis 0 is written in place, row i by device i: pmap after
    # pmap copies nothing on the CPU devices.
    from numlir._src import dispatch
    seen = {}
    launch = dispatch.execute_spmd

    def spy(executables, args, given=None, num_replicas=None):
        outputs = launch(executables, args, given, num_replicas)
        seen.update(args=args, outputs=outputs)
        return outputs

    monkeypatch.setattr(dispatch, "execute_spmd", spy)
    x = R.normal(size=(N, 4, 3)).astype(F32)
    f = numlir.pmap(lambda v: (v * 2, v.sum(0)), out_axes=(0, 1))
    doubled, sums = f(x)
    for i in range(N):
        assert np.shares_memory(seen["args"][i][0], x)
        assert np.shares_memory(seen["outputs"][i][0], np.asarray(doubled))
        assert not np.shares_memory(seen["outputs"][i][1], np.asarray(sums))  # out_axes=1
    np.testing.assert_array_equal(np.asarray(doubled), x * 2)
    np.testing.assert_allclose(np.asarray(sums), x.sum(1).T, rtol=1e-6)
    again = f(doubled)[0]  # the previous output's rows, as views
    assert np.shares_memory(seen["args"][0][0], np.asarray(doubled))
    np.testing.assert_array_equal(np.asarray(again), x * 4)



@several
def test_a_donated_argument_holds_the_output_and_is_deleted():
    # The sole holder's buffer: each device updates its own row in place (an .at[] set,
    # which the compiler makes in place when the buffers are one).
    x = jnp.array(R.normal(size=(N, 5)).astype(F32))
    want = np.asarray(x).copy()
    address = x._value.ctypes.data  # not a reference: x must stay the sole holder
    f = numlir.pmap(lambda v: v.at[0].set(lax.axis_index("i").astype(F32)) * 2,
                    axis_name="i", donate_argnums=0)
    out = f(x)
    want[:, 0] = np.arange(N)
    np.testing.assert_array_equal(np.asarray(out), want * 2)
    assert x.is_deleted() and np.asarray(out).ctypes.data == address
    # Held elsewhere too (a NumPy view): the call works on a copy, the view is untouched.
    y = jnp.array(R.normal(size=(N, 5)).astype(F32))
    view = np.asarray(y)
    before = view.copy()
    out = f(y)
    np.testing.assert_array_equal(view, before)
    assert y.is_deleted() and not np.shares_memory(np.asarray(out), view)
    # A broadcast argument cannot be donated: each device would write the one buffer.
    with pytest.warns(UserWarning, match="donated buffers were not usable"):
        z = numlir.pmap(lambda v, w: v + w, in_axes=(0, None), donate_argnums=1)(
            jnp.ones((N, 3)), jnp.ones(3))
    np.testing.assert_array_equal(np.asarray(z), np.full((N, 3), 2.0, F32))


@several
@pytest.mark.parametrize("collective", ["psum", "pmax", "ppermute"])
def test_a_donated_psum_or_ppermute_writes_its_result_over_its_operand(collective):
    # The compiler hands the runtime one buffer as both operand and result (all_reduce and
    # collective_permute run in place, AliasDonatedBuffers): every device's row must still
    # be computed from every device's operand as it was, with ties, -0 and NaN among them.
    x = R.normal(size=(N, 257)).astype(F32)
    x[:, :4] = [[0.0, -0.0, np.nan, 1.5]] * N
    x[1 % N, :2] = [-0.0, 0.0]
    ring = [(i, (i + 1) % N) for i in range(N)]
    def body(lax):
        return {"psum": lambda v: lax.psum(v, "i"), "pmax": lambda v: lax.pmax(v, "i"),
                "ppermute": lambda v: lax.ppermute(v, "i", ring)}[collective]

    want = np.asarray(_on_jax(body(jax.lax), x, axis_name="i"))
    donor = jnp.array(x)
    address = donor._value.ctypes.data
    out = numlir.pmap(body(lax), axis_name="i", donate_argnums=0)(donor)
    assert donor.is_deleted() and np.asarray(out).ctypes.data == address
    np.testing.assert_array_equal(np.asarray(out), want)
    if collective != "pmax":  # jax's vmap and pmap differ on max(-0, +0): see below
        np.testing.assert_array_equal(np.signbit(np.asarray(out)), np.signbit(want))


@several
@pytest.mark.parametrize("dtype", [np.float32, np.float64, jnp.bfloat16, np.float16,
                                   np.complex64])
def test_psum_of_negative_zeros_is_positive_zero_as_jax_pmaps(dtype):
    # jax.pmap on 2 or 3 CPU devices (jaxlib 0.10.2): psum of -0.0 is +0.0, XLA's
    # all-reduce adding from +0; pmax and pmin of (-0, +0, -0, ...) keep -0 (jax's vmap
    # gives +0 for pmax there). On one device psum keeps -0: nothing is added.
    x = np.full((N, 3), -0.0, np.float32)
    x[:, 2] = [0.0 if i == 1 else -0.0 for i in range(N)]
    if dtype == np.complex64:  # -0 in both parts
        x = (x + 1j * x).astype(dtype)
        x.imag = x.real
    got = numlir.pmap(lambda v: (lax.psum(v, "i"), lax.pmax(jnp.real(v), "i"),
                                 lax.pmin(jnp.real(v), "i")), axis_name="i")(
        jnp.asarray(x).astype(dtype))
    total = np.asarray(got[0]).astype(np.complex128)
    high, low = (np.asarray(g).astype(np.float64) for g in got[1:])
    want_total = np.zeros((N, 3), bool)
    assert np.signbit(np.asarray(jnp.asarray(x).astype(dtype)).real.astype(np.float64)[0, 0])
    np.testing.assert_array_equal(np.signbit(total.real), want_total)
    np.testing.assert_array_equal(np.signbit(total.imag), want_total)
    np.testing.assert_array_equal(np.signbit(high), [[True, True, True]] * N)
    np.testing.assert_array_equal(np.signbit(low), [[True, True, True]] * N)
    one = numlir.pmap(lambda v: lax.psum(v, "i"), axis_name="i", devices=numlir.devices()[:1])(
        np.full((1, 2), -0.0, np.float32))
    assert np.signbit(np.asarray(one)).all()


@pytest.mark.skipif(N != 4, reason="the groups are written for 4 devices")
def test_axis_index_groups_split_psum_pmax_pmin_and_pmean():
    x = np.arange(4.0, dtype=F32)
    groups = [[0, 1], [2, 3]]
    got = numlir.pmap(lambda v: (lax.psum(v, "i", axis_index_groups=groups),
                                 lax.pmax(v, "i", axis_index_groups=[[0, 3], [1, 2]]),
                                 lax.pmin(v, "i", axis_index_groups=[[3, 2], [1, 0]]),
                                 lax.pmean(v, "i", axis_index_groups=groups)),
                      axis_name="i")(x)
    # (jax 0.10.2's pmap gives the same [1, 1, 5, 5] for the sums.)
    want = ([1, 1, 5, 5], [3, 2, 2, 3], [0, 0, 2, 2], [0.5, 0.5, 2.5, 2.5])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.array(w, F32))


GROUP_SETS = [[[0, 1], [2, 3]], [[1, 0], [3, 2]], [[3, 1], [0, 2]], [[2, 0, 3, 1]]]


def _members(groups):
    """Each device's group and its position in it (the groups' order, as JAX's)."""
    return {d: (g, g.index(d)) for g in groups for d in g}


def _gathered(x, groups, axis, tiled):
    join = np.concatenate if tiled else np.stack
    return np.stack([join([x[m] for m in g], axis) for d, (g, _) in
                     sorted(_members(groups).items())])


def _scattered(x, groups, dim, tiled):
    out = []
    for d, (g, j) in sorted(_members(groups).items()):
        piece = np.split(sum(x[m] for m in g), len(g), axis=dim)[j]
        out.append(piece if tiled else np.squeeze(piece, dim))
    return np.stack(out)


def _exchanged(x, groups, split, concat, tiled):
    out = []
    for d, (g, j) in sorted(_members(groups).items()):
        pieces = [np.split(x[m], len(g), axis=split)[j] for m in g]
        out.append(np.concatenate(pieces, concat) if tiled else
                   np.stack([np.squeeze(p, split) for p in pieces], concat))
    return np.stack(out)


@pytest.mark.skipif(N != 4, reason="the groups are written for 4 devices")
@pytest.mark.parametrize("groups", GROUP_SETS, ids=str)
def test_axis_index_groups_split_all_gather_psum_scatter_and_all_to_all(groups):
    # NumPy's reading of JAX's semantics (jax 0.10.2's pmap on 4 devices gives the same
    # values for these groups): each group gathers, sums and exchanges in its own order.
    x = R.normal(size=(4, 4, 8)).astype(F32)
    k = len(groups[0])
    cases = {
        "all_gather": (lambda v: lax.all_gather(v, "i", axis_index_groups=groups),
                       _gathered(x, groups, 0, False)),
        "all_gather axis=1 tiled": (
            lambda v: lax.all_gather(v, "i", axis_index_groups=groups, axis=1, tiled=True),
            _gathered(x, groups, 1, True)),
        "psum_scatter": (lambda v: lax.psum_scatter(v[:k], "i", axis_index_groups=groups),
                         _scattered(x[:, :k], groups, 0, False)),
        "psum_scatter tiled": (
            lambda v: lax.psum_scatter(v, "i", scatter_dimension=0, axis_index_groups=groups,
                                       tiled=True),
            _scattered(x, groups, 0, True)),
        "all_to_all": (lambda v: lax.all_to_all(v[:k], "i", 0, 1, axis_index_groups=groups),
                       _exchanged(x[:, :k], groups, 0, 1, False)),
        "all_to_all tiled": (
            lambda v: lax.all_to_all(v, "i", 1, 0, axis_index_groups=groups, tiled=True),
            _exchanged(x, groups, 1, 0, True)),
    }
    for name, (f, want) in cases.items():
        got = np.asarray(numlir.pmap(f, axis_name="i")(x))
        assert got.shape == want.shape, name
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=name)


@pytest.mark.skipif(N != 4, reason="the groups are written for 4 devices")
def test_grad_through_grouped_all_gather_sums_over_the_group():
    # all_gather transposes to psum_scatter over the same groups: device d's gradient is
    # the sum, over its group's members m, of the weight m gave d's piece.
    groups = [[1, 0], [3, 2]]
    x, w = R.normal(size=(4, 3)).astype(F32), R.normal(size=(4, 2, 3)).astype(F32)
    loss = lambda v, ww: jnp.sum(lax.all_gather(v, "i", axis_index_groups=groups) * ww)  # noqa: E731
    got = numlir.pmap(numlir.grad(loss), axis_name="i")(x, w)
    members = _members(groups)
    want = np.stack([sum(w[m][members[d][1]] for m in members[d][0]) for d in range(4)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_axis_index_groups_that_do_not_split_the_axis_and_under_vmap_are_clear_errors():
    with pytest.raises(ValueError, match="split the 2 positions of one named axis"):
        numlir.vmap(lambda v: lax.psum(v, "i", axis_index_groups=[[0], [0]]),
                    axis_name="i")(np.ones(2, F32))
    with pytest.raises(NotImplementedError, match="axis_index_groups over vmap's axis"):
        numlir.vmap(lambda v: lax.psum(v, "i", axis_index_groups=[[0], [1]]),
                    axis_name="i")(np.ones(2, F32))
    for name, f in [("all_gather", lambda v: lax.all_gather(v, "i", axis_index_groups=[[0], [1]])),
                    ("psum_scatter", lambda v: lax.psum_scatter(v, "i",
                                                                axis_index_groups=[[0], [1]])),
                    ("all_to_all", lambda v: lax.all_to_all(v, "i", 0, 0,
                                                            axis_index_groups=[[0], [1]]))]:
        with pytest.raises(NotImplementedError, match=f"{name}: axis_index_groups over vmap"):
            numlir.vmap(f, axis_name="i")(np.ones((2, 1), F32))
    with pytest.raises(ValueError, match="all_gather: axis_index_groups must split"):
        numlir.vmap(lambda v: lax.all_gather(v, "i", axis_index_groups=[[0, 1, 2]]),
                    axis_name="i")(np.ones((2, 1), F32))


@several
def test_grouped_psum_scatter_names_the_group_size_when_the_dimension_does_not_fit():
    groups = [list(range(N))[::2], list(range(N))[1::2]] if N % 2 == 0 else [list(range(N))]
    with pytest.raises(ValueError, match=f"must equal the group size {len(groups[0])}"):
        numlir.pmap(lambda v: lax.psum_scatter(v, "i", axis_index_groups=groups),
                    axis_name="i")(np.ones((N, len(groups[0]) + 1), F32))


@several
def test_outputs_report_jaxs_sharding_devices_and_shards():
    x = np.arange(N * 2, dtype=F32).reshape(N, 2)
    y = numlir.pmap(lambda v: v * 2)(x)
    assert y.devices() == set(numlir.local_devices()[:N])
    assert repr(y.sharding.spec) == "P('_internal_pmap_axis_name')"
    assert not y.is_fully_replicated and y.is_fully_addressable
    shards = y.addressable_shards
    assert [s.device for s in shards] == numlir.local_devices()[:N]
    for i, s in enumerate(shards):
        assert s.index == (slice(i, i + 1), slice(None)) and s.replica_id == 0
        np.testing.assert_array_equal(s.data, x[i:i + 1] * 2)
        assert np.shares_memory(np.asarray(s.data), np.asarray(y))  # views, no copies
    np.testing.assert_array_equal(y.addressable_data(1), x[1:2] * 2)
    z = numlir.pmap(lambda v: lax.psum(v, "i"), axis_name="i", out_axes=None)(x)
    assert z.is_fully_replicated and [s.replica_id for s in z.addressable_shards] == list(range(N))
    # Out of a pmap, into another: the sharding does not get in the way.
    np.testing.assert_array_equal(numlir.pmap(lambda v: v + 1)(y), x * 2 + 1)
    # A plain array is on one device, as in JAX.
    plain = jnp.ones(3)
    assert plain.is_fully_replicated and len(plain.addressable_shards) == 1


# --- Remembered calls (host_calls.remember_pmap, python/src/runtime/PmapCalls.cpp) ------


def _general(g, *args):
    """The general path's outputs for ``args`` (PmapFunction._call)."""
    return type(g)._call(g, args, {})


def _only_remembered(g, monkeypatch):
    """From now on a call that goes the general way fails the test."""
    monkeypatch.setattr(g, "_call", lambda *a: pytest.fail("took the general path"))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_, np.complex64, jnp.bfloat16,
                                   np.uint8])
def test_remembered_pmap_calls_run_in_cpp_with_the_general_paths_outputs(dtype, monkeypatch):
    x = (R.normal(size=(N, 3, 2)) * 4).astype(dtype)
    b = (R.normal(size=(3, 2)) * 4).astype(dtype)  # broadcast to every device

    def f(v, w):
        s = v.sum(axis=0) if dtype != np.bool_ else v.any(axis=0)
        return {"s": s, "both": (v == w, v)}

    g = numlir.pmap(f, in_axes=(0, None))
    first = g(jnp.asarray(x), jnp.asarray(b))  # NumPy-made Arrays: the general path
    assert len(g._spmd_calls) == 1
    args = (first["both"][1], jnp.asarray(b))
    want = _general(g, *args)
    _only_remembered(g, monkeypatch)
    for _ in range(3):
        got = g(*args)
        assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
        for got_leaf, want_leaf in zip(jax.tree_util.tree_leaves(got),
                                       jax.tree_util.tree_leaves(want)):
            assert type(got_leaf) is numlir.Array
            value = np.asarray(got_leaf)
            assert value.dtype == np.asarray(want_leaf).dtype
            assert got_leaf.aval == want_leaf.aval
            np.testing.assert_array_equal(value, np.asarray(want_leaf))
            assert not value.flags.writeable
            assert got_leaf.sharding == want_leaf.sharding
            assert got_leaf.committed == want_leaf.committed
    np.testing.assert_array_equal(np.asarray(g(*args)["both"][1]), x)


def test_remembered_pmap_calls_keep_collectives_and_the_output_sharding(monkeypatch):
    x = R.normal(size=(N, 4)).astype(F32)
    g = numlir.pmap(lambda v: (lax.psum(v, "i"), lax.axis_index("i")), axis_name="i")
    a = g(x)[0]  # an Array now
    g(a)
    _only_remembered(g, monkeypatch)
    out, index = g(a)
    want = np.broadcast_to(np.asarray(a).sum(axis=0), (N, 4))
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(index), np.arange(N))
    assert out.sharding == a.sharding
    assert [s.device for s in out.addressable_shards] == numlir.local_devices()[:N]


def test_a_new_signature_or_a_changed_flag_takes_the_general_path():
    g = numlir.pmap(lambda v: v * 2)
    a = g(np.ones((N, 2), F32))
    g(a)
    b = g(np.ones((N, 3), F32))
    g(b)
    assert len(g._spmd_calls) == 2  # one plan per signature
    np.testing.assert_array_equal(np.asarray(g(b)), np.full((N, 3), 4.0))
    with numlir.enable_x64(True):  # a flag change drops every plan
        assert np.asarray(g(a)).dtype == np.float32
    assert len(g._spmd_calls) == 1  # the x64 call, remembered on the general path


def test_remembered_pmap_calls_refuse_deleted_arrays_and_run_as_vmap_under_jit():
    g = numlir.pmap(lambda v: v + 1)
    a = g(np.zeros((N, 2), F32))
    g(a)
    assert len(g._spmd_calls) == 1
    c = g(a)
    c.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        g(c)
    # Under jit the pmap is traced (as vmap): the plan is not consulted.
    np.testing.assert_array_equal(np.asarray(numlir.jit(g)(a)), np.full((N, 2), 2.0))
    np.testing.assert_array_equal(np.asarray(numlir.grad(lambda v: g(v).sum())(a)),
                                  np.ones((N, 2)))


def test_remembered_donating_calls_write_in_place_and_delete_the_donors(monkeypatch):
    f = numlir.pmap(lambda v, w: (v + w, v * 2), donate_argnums=0)
    w = jnp.asarray(np.ones((N, 3), F32))
    a = f(np.zeros((N, 3), F32), w)[0]  # NumPy in: nothing remembered
    b = f(a, w)[0]  # the general path, remembered
    assert a.is_deleted() and len(f._spmd_calls) == 1
    _only_remembered(f, monkeypatch)
    where = b._value.ctypes.data
    c, twice = f(b, w)
    assert b.is_deleted()
    assert c._value.ctypes.data == where  # b's buffer, written in place
    np.testing.assert_array_equal(np.asarray(c), np.full((N, 3), 3.0))
    np.testing.assert_array_equal(np.asarray(twice), np.full((N, 3), 4.0))
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(b)


def test_a_donated_buffer_someone_else_holds_is_copied_not_overwritten():
    f = numlir.pmap(lambda v: v + 1, donate_argnums=0)
    a = f(np.zeros((N, 2), F32))
    b = f(a)
    assert len(f._spmd_calls) == 1
    held = np.asarray(b)  # a second holder of b's buffer: the call must not write it
    c = f(b)
    assert b.is_deleted()
    np.testing.assert_array_equal(held, np.full((N, 2), 2.0))
    np.testing.assert_array_equal(np.asarray(c), np.full((N, 2), 3.0))
    # The same Array passed twice is no donor either: the other argument reads it.
    g = numlir.pmap(lambda v, u: v + u, donate_argnums=0)
    x = g(np.ones((N, 2), F32), np.ones((N, 2), F32))
    y = g(x, jnp.asarray(np.ones((N, 2), F32)))
    assert len(g._spmd_calls) == 1
    np.testing.assert_array_equal(np.asarray(g(y, y)), np.full((N, 2), 6.0))
    assert y.is_deleted()


def test_static_pmaps_keep_no_plans():
    static = numlir.pmap(lambda v, k: v * k, static_broadcasted_argnums=1)
    assert static._spmd_calls is None
    np.testing.assert_array_equal(np.asarray(static(np.ones((N, 2), F32), 3)),
                                  np.full((N, 2), 3.0))
