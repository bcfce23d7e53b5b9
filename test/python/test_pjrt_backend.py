"""The PJRT backend plugin (plugins/pjrt, docs/pjrt.md) on jaxlib's CPU client: discovered
through the numlir.backends entry points, arrays as PJRT buffers, jit/grad/vmap/control
flow/random/libraries running there, and the in-suite fuzzer's programs agreeing with
numlir's own CPU backend."""

from __future__ import annotations

import os
import subprocess
import sys

import jax
import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.backends as nb
import numlir.numpy as jnp
from numlir import lax

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fuzz import compare, generate, run_modes  # noqa: E402
from numlir_pjrt.vendor_limits import VendorCompilerLimit, refuse_known_aborts  # noqa: E402

R = np.random.default_rng(3536)
#: The backend under test: jaxlib's CPU client here and in CI; tools/tpu/run.sh runs this
#: file with NUMLIR_PJRT_TEST_BACKEND=tpu on the TPU machine.
BACKEND = os.environ.get("NUMLIR_PJRT_TEST_BACKEND", "pjrt_cpu")
#: Tolerances scale: a TPU's transcendental functions differ from the CPU's by about 1e-6
#: relative (docs/pjrt.md), and its sums add in other orders.
TOL = 1.0 if BACKEND == "pjrt_cpu" else 20.0
JAX_PLATFORM = {"pjrt_cpu": "cpu"}.get(BACKEND, BACKEND)


@pytest.fixture(scope="module")
def pjrt():
    return numlir.devices(BACKEND)[0]


def test_the_plugin_is_discovered_and_its_devices_have_jaxs_fields(pjrt):
    assert {"tpu", "pjrt_cpu"} <= set(nb.available_backends())
    assert pjrt.platform == BACKEND and pjrt.id == 0 and pjrt.process_index == 0
    assert pjrt.device_kind == jax.devices(JAX_PLATFORM)[0].device_kind
    assert str(pjrt) == f"{BACKEND}:0"
    assert numlir.device_count(BACKEND) == len(jax.devices(JAX_PLATFORM))
    assert numlir.default_backend() == "cpu"  # numlir's own stays the default


def test_without_a_tpu_the_tpu_backend_is_a_clear_error():
    if any(d.platform == "tpu" for d in jax.devices()):
        pytest.skip("this machine has a TPU")
    with pytest.raises(nb.BackendUnavailableError, match="'tpu' backend is unavailable"):
        numlir.devices("tpu")


VALUES = {
    "float32": np.array([0.0, -0.0, 1.5, -np.inf, np.inf, np.nan, 1e-30, 3e38], np.float32),
    "bfloat16": np.array([0.0, -2.5, np.inf, np.nan], ml_dtypes.bfloat16),
    "int32": np.array([0, -1, 2**31 - 1, -2**31], np.int32),
    "uint8": np.array([0, 1, 255], np.uint8),
    "bool": np.array([[True, False], [False, True]]),
    "complex64": np.array([1 - 2j, -0.0 + 0j, np.inf + 1j], np.complex64),
    "scalar": np.float32(-3.25),
    "empty": np.zeros((0, 3), np.float32),
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_device_put_and_get_keep_every_bit(pjrt, name):
    value = VALUES[name]
    x = numlir.device_put(value, pjrt)
    assert x.device == pjrt and x.committed and isinstance(x._value, jax.Array)
    back = np.asarray(x)
    assert back.dtype == np.asarray(value).dtype and back.shape == np.shape(value)
    assert back.tobytes() == np.asarray(value).tobytes()
    assert numlir.device_get(x).tobytes() == np.asarray(value).tobytes()


def on_jax_here(f, *args):
    """f's result from jax.jit (x64 on, matmuls at full precision as numlir's) on the jax
    device of the backend under test. A TPU's arithmetic is not a CPU's (its tanh is 3e-5
    off; it emulates float64 with pairs of float32, in float32's range), so there jax on
    the same chip is the reference."""
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        device = jax.devices(JAX_PLATFORM)[0]
        with jax.default_matmul_precision("highest"):
            out = jax.jit(f)(*jax.device_put(args, device))
        return jax.tree_util.tree_map(np.asarray, out)
    finally:
        jax.config.update("jax_enable_x64", previous)


def test_64_bit_values_stay_64_bit_with_x64(pjrt):
    a = np.array([1e300, -2**62, 1 + 2**-40, 3e30], np.float64)
    b = np.array([2**62, -1, 0, 2**40 + 1], np.int64)
    f = lambda a, b: a * 2 + b.astype(a.dtype)  # noqa: E731
    with numlir.enable_x64(True):
        x, i = numlir.device_put(a, pjrt), numlir.device_put(b, pjrt)
        y = numlir.jit(f)(x, i)
        assert y.dtype == np.float64 and y.device == pjrt
    np.testing.assert_array_equal(np.asarray(y), on_jax_here(f, a, b))
    if BACKEND == "pjrt_cpu":
        np.testing.assert_array_equal(np.asarray(y), [2e300 + 2.0**62, -2.0**63 - 1,
                                                      2 + 2**-39, 6e30 + 2**40 + 1])


def test_repeated_calls_on_the_device_take_the_remembered_path_and_give_the_same(pjrt):
    # After the general path has run once for a signature, a call with live arrays on the
    # device skips it (device_calls.py for uncommitted arrays, C++ for committed ones); what
    # it returns must not change.
    with numlir.default_device(pjrt):
        x = numlir.numpy.arange(6, dtype=np.float32).reshape(2, 3)
        assert not x.committed
        f = numlir.jit(lambda a, b: (a * b + 1, {"s": a.sum()}))
        first = f(x, x)
        plans = f._device_calls._plans
        assert len(plans) == 1 and f.cache_misses == 1 and len(f._host_calls) == 0
        for _ in range(3):
            again = f(x, x)
            assert again[0].device == pjrt and not again[0].committed
            np.testing.assert_array_equal(np.asarray(again[0]), np.asarray(first[0]))
            assert float(again[1]["s"]) == 15.0
        assert len(plans) == 1 and f.cache_misses == 1
        y = numlir.numpy.ones(4, np.float32)
        np.testing.assert_array_equal(np.asarray(f(y, y)[0]), np.full(4, 2.0))
        assert len(plans) == 2 and f.cache_misses == 2
    numlir.clear_caches()
    assert not plans
    x = numlir.device_put(np.arange(6, dtype=np.float32).reshape(2, 3), pjrt)
    # x64 decides the trace, so it is part of what is remembered.
    g = numlir.jit(lambda a: jnp.zeros_like(a, dtype=int) + 1)
    assert g(x).dtype == np.int32
    with numlir.enable_x64(True):
        assert g(x).dtype == np.int64
    assert g(x).dtype == np.int32


@pytest.mark.parametrize("x64", [False, True])
def test_remembered_calls_give_every_dtype_and_shape_exactly(pjrt, x64):
    # The executable makes its outputs with jaxlib's result handlers, from numlir's output
    # specs: each must keep its dtype (64-bit ones whatever jax's own x64 flag says), its
    # shape (empty ones too) and its values, on the first call and on remembered ones.
    if BACKEND == "tpu" and x64:
        pytest.skip("XLA-TPU emulates 64-bit types; test_pjrt_backend's x64 test covers it")
    with numlir.enable_x64(x64):
        wide = np.arange(3, dtype=np.int64) + 2**40 if x64 else np.arange(3, dtype=np.int32)
        values = [np.arange(3, dtype=np.float64) + 0.1, wide,
                  np.array([1, 2, 3], ml_dtypes.bfloat16), np.array([True, False, True]),
                  np.array([1 + 2j, 3j, -1], np.complex128), np.zeros((0, 2), np.float32),
                  np.array([255, 1, 0], np.uint8)]

        def twice(v):
            return ~v if v.dtype == bool else v * 2

        f = numlir.jit(lambda *vs: [twice(v) for v in vs])
        want = [np.asarray(numlir.jit(twice)(v)) for v in values]
        on_device = [numlir.device_put(v, pjrt) for v in values]
        for _ in range(3):
            for got, w in zip(f(*on_device), want, strict=True):
                assert got.dtype == w.dtype and got.shape == w.shape and got.device == pjrt
                np.testing.assert_array_equal(np.asarray(got), w)
        assert len(f._host_calls) == 1 and not f._device_calls._plans


def test_calls_on_the_device_are_remembered_in_cpp_and_checked_there(pjrt):
    # host_calls.remember_on_device: a call's later twins run from C++ (one Python call,
    # the executable's execute); anything that differs goes the general way.
    x = numlir.device_put(np.arange(6, dtype=np.float32).reshape(2, 3), pjrt)
    f = numlir.jit(lambda a, b: {"p": a * b, "s": (a + b).sum()})
    first = f(x, x)
    assert len(f._host_calls) == 1 and f.cache_misses == 1
    for _ in range(3):
        again = f(x, x)
        assert again["p"].device == pjrt and again["p"].committed
        np.testing.assert_array_equal(np.asarray(again["p"]), np.asarray(first["p"]))
        assert float(again["s"]) == 30.0
    assert len(f._host_calls) == 1 and f.cache_misses == 1
    # Another shape, weak type or device: a plan of its own, or the general path.
    y = numlir.device_put(np.ones(4, np.float32), pjrt)
    np.testing.assert_array_equal(np.asarray(f(y, y)["p"]), np.ones(4))
    assert len(f._host_calls) == 2 and f.cache_misses == 2
    on_cpu = numlir.device_put(np.arange(6, dtype=np.float32).reshape(2, 3),
                               numlir.devices("cpu")[0])
    with pytest.raises(ValueError, match="devices"):
        f(x, on_cpu)
    # Uncommitted arrays inside a default_device context stay with device_calls.py ...
    g = numlir.jit(lambda a: a + 1)
    with numlir.default_device(pjrt):
        u = numlir.numpy.arange(3.0)
        assert not u.committed and u.device == pjrt
        np.testing.assert_array_equal(np.asarray(g(u)), [1.0, 2.0, 3.0])
        np.testing.assert_array_equal(np.asarray(g(u)), [1.0, 2.0, 3.0])
    assert len(g._host_calls) == 0 and len(g._device_calls._plans) == 1
    # ... and where the flag names the device, C++ keeps them, outputs uncommitted; the
    # flag's change drops the plan, and the arrays then go to the new default device.
    h = numlir.jit(lambda a: a * 2)
    numlir.config.update("jax_default_device", pjrt)
    try:
        v = numlir.numpy.arange(3.0)
        for _ in range(3):
            out = h(v)
            assert out.device == pjrt and not out.committed
            np.testing.assert_array_equal(np.asarray(out), [0.0, 2.0, 4.0])
        assert len(h._host_calls) == 1 and not h._device_calls._plans
    finally:
        numlir.config.update("jax_default_device", None)
    out = h(v)
    assert out.device == numlir.devices()[0] and len(h._host_calls) == 0
    np.testing.assert_array_equal(np.asarray(out), [0.0, 2.0, 4.0])
    # A deleted argument goes the general way, which says so.
    z = numlir.device_put(np.ones((2, 3), np.float32), pjrt)
    f(z, z)
    z.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        f(z, x)
    # A flag change (x64 here) drops the plans; clear_caches too.
    with numlir.enable_x64(True):
        pass
    f(x, x)
    assert len(f._host_calls) == 1
    numlir.clear_caches()
    assert len(f._host_calls) == 0


def test_calls_the_remembered_path_cannot_take_go_the_general_way(pjrt):
    x = numlir.device_put(np.array([1.0, -1.0], np.float32), pjrt)
    f = numlir.jit(lambda a: jnp.log(a))
    f(x)
    # Uncommitted arrays on the device run where the default device is: numlir's CPU.
    with numlir.default_device(pjrt):
        loose = jnp.asarray([2.0, 4.0])
    assert loose.device == pjrt and not loose.committed
    assert f(loose).device.platform == "cpu"
    # A NaN check still reports the NaN.
    with numlir.debug_nans(True), pytest.raises(FloatingPointError):
        f(x)
    # A deleted array is the general path's clear error.
    gone = numlir.device_put(np.ones(2, np.float32), pjrt)
    gone.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        f(gone)
    # Arrays on two devices are JAX's error, as before.
    with pytest.raises(ValueError, match="incompatible devices"):
        numlir.jit(lambda a, b: a + b)(x, numlir.device_put(np.ones(2, np.float32),
                                                            numlir.devices("cpu")[0]))
    # Inside another trace the jitted function is inlined.
    np.testing.assert_allclose(np.asarray(numlir.grad(lambda a: f(a).sum())(
        numlir.device_put(np.array([2.0, 4.0], np.float32), pjrt))), [0.5, 0.25])


def test_a_donated_device_buffer_holds_the_output(pjrt):
    # The module's tf.aliasing_output pairs the two; PJRT moves the donated buffer into the
    # output (on jaxlib's CPU client, an array put from host memory may alias that memory
    # and is copied instead, as PJRT decides).
    x = numlir.device_put(np.arange(4096, dtype=np.float32), pjrt)
    y = numlir.jit(lambda a: a + 0)(x)  # a buffer PJRT allocated
    where = y._value.unsafe_buffer_pointer()
    step = numlir.jit(lambda a, b: (a * 2 + b, b.sum()), donate_argnums=0)
    z, total = step(y, x)
    assert y.is_deleted() and not x.is_deleted() and z.device == pjrt
    assert z._value.unsafe_buffer_pointer() == where
    np.testing.assert_array_equal(np.asarray(z), np.arange(4096, dtype=np.float32) * 3)
    assert float(total) == float(np.arange(4096).sum())
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(y)


def mlp(params, x, np_=jnp):
    for w, b in params:
        x = np_.tanh(x @ w + b)
    return np_.sum(x * x)


def mlp_params():
    return [(R.standard_normal((8, 16)).astype(np.float32) * 0.3, np.zeros(16, np.float32)),
            (R.standard_normal((16, 4)).astype(np.float32) * 0.3, np.ones(4, np.float32))]


def test_jit_runs_where_its_arguments_live_and_backend_cpu_stays_numlirs(pjrt):
    params, x = mlp_params(), R.standard_normal((5, 8)).astype(np.float32)
    on_pjrt = numlir.device_put((params, x), pjrt)
    f = numlir.jit(mlp)
    got = f(*on_pjrt)
    assert got.device == pjrt and got.committed
    want = f(params, x)
    assert want.device.platform == "cpu"
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6 * TOL)
    # jit(backend="cpu") runs on numlir's CPU backend, whatever the arguments.
    on_cpu = numlir.jit(mlp, backend="cpu")(*on_pjrt)
    assert on_cpu.device.platform == "cpu"
    np.testing.assert_allclose(np.asarray(on_cpu), np.asarray(want), rtol=2e-6 * TOL)
    # A following computation consumes the outputs where they are.
    twice = numlir.jit(lambda a: a * 2)(got)
    assert twice.device == pjrt


def test_eager_ops_and_transformations_run_on_the_pjrt_device(pjrt):
    params, x = mlp_params(), R.standard_normal((5, 8)).astype(np.float32)
    with numlir.default_device(pjrt):
        g = numlir.grad(mlp)(params, x)
        batched = numlir.vmap(lambda row: mlp(params, row[None]))(x)
        eager = jnp.cumsum(jnp.sort(jnp.asarray(x), axis=1), axis=0)
    assert all(leaf.device == pjrt for leaf in jax.tree_util.tree_leaves(g))
    assert batched.device == pjrt and eager.device == pjrt
    if BACKEND == "pjrt_cpu":
        want_g = numlir.grad(mlp)(params, x)
    else:  # numlir on the TPU matched jax there to 2.4e-7, numlir's CPU to 1.2e-4
        want_g = on_jax_here(jax.grad(lambda p, x: mlp(p, x, jax.numpy)), params, x)
    for a, b in zip(jax.tree_util.tree_leaves(g), jax.tree_util.tree_leaves(want_g)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5 * TOL, atol=1e-6 * TOL)
    np.testing.assert_allclose(np.asarray(batched),
                               [float(mlp(params, r[None])) for r in x], rtol=2e-6 * TOL)
    np.testing.assert_allclose(np.asarray(eager), np.cumsum(np.sort(x, 1), 0), rtol=2e-6 * TOL)


def control_flow(x, n):
    def body(carry, row):
        carry = jnp.where(carry > 0, carry * 0.5, carry + row.sum())
        return carry, carry * 2

    total, ys = lax.scan(body, x[0, 0], x)
    looped = lax.fori_loop(0, n, lambda i, v: v + jnp.sin(v) * i, x)
    branch = lax.cond(total > 0, lambda v: v.max(), lambda v: v.min(), looped)
    return total, ys, looped, branch


SLICE = [
    ("elementwise", lambda x: (jnp.exp(x) - jnp.log1p(jnp.abs(x)), jnp.arctan2(x, 1 - x),
                               lax.erf(x), jnp.maximum(x, -x), jnp.floor(x * 3))),
    ("reductions", lambda x: (x.sum(0), x.max(1), jnp.argmax(x, 1), jnp.var(x), x.prod())),
    ("linear algebra", lambda x: (x @ x.T, jnp.einsum("ij,kj->ik", x, x),
                                  jnp.linalg.inv(x @ x.T + 6 * jnp.eye(x.shape[0])))),
    ("indexing", lambda x: (x[::2, 1:], x[jnp.array([2, 0])], x.at[1, 2].add(5.0),
                            jnp.take_along_axis(x, jnp.argsort(x, 1), 1))),
    ("shapes", lambda x: (jnp.concatenate([x, x]), x.reshape(-1), jnp.pad(x, 1), x.T,
                          jnp.flip(x, 0), jnp.tile(x, (1, 2)))),
    ("convolution", lambda x: lax.conv_general_dilated(x[None, None], x[None, None, :3, :3],
                                                       (1, 1), "SAME")),
    ("windows", lambda x: (lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID"),
                           jnp.cumsum(x, 1), lax.cummax(x, axis=0))),
    ("control flow", lambda x: control_flow(x, 3)),
    ("fft", lambda x: jnp.fft.irfft(jnp.fft.rfft(x, axis=1), x.shape[1], axis=1)),
    ("integers", lambda x: ((x * 100).astype(jnp.int32) // 7, (x * 100).astype(jnp.int32) % 7,
                            (x > 0).sum())),
]


@pytest.mark.parametrize("name, f", SLICE, ids=[n for n, _ in SLICE])
def test_a_slice_of_the_primitives_matches_numlirs_cpu_backend(pjrt, name, f):
    x = R.standard_normal((4, 6)).astype(np.float32)
    want = jax.tree_util.tree_leaves(numlir.jit(f)(x))
    got = jax.tree_util.tree_leaves(numlir.jit(f)(numlir.device_put(x, pjrt)))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.device == pjrt
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=2e-5 * TOL, atol=2e-5 * TOL)
        else:
            np.testing.assert_array_equal(g, w)


def test_random_numbers_are_the_same_bits_on_the_pjrt_device(pjrt):
    key = numlir.random.key(7)
    want = numlir.random.normal(key, (3, 5))
    with numlir.default_device(pjrt):
        got = numlir.random.normal(numlir.random.key(7), (3, 5))
        ints = numlir.random.randint(numlir.random.key(7), (6,), 0, 100)
    assert got.device == pjrt
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6 * TOL, atol=1e-6 * TOL)
    np.testing.assert_array_equal(np.asarray(ints),
                                  np.asarray(numlir.random.randint(key, (6,), 0, 100)))


def test_a_layers_and_optim_training_step_runs_on_the_pjrt_device(pjrt):
    from numlir import layers, optim

    def forward(x):
        return layers.nets.MLP([16, 3])(x)

    model = layers.transform(forward)
    x = R.standard_normal((8, 5)).astype(np.float32)
    y = R.integers(0, 3, 8)
    params = model.init(numlir.random.key(0), x)
    opt = optim.adam(1e-2)

    def loss(p, x, y):
        logits = model.apply(p, None, x)
        return -jnp.mean(jnp.take_along_axis(numlir.nn.log_softmax(logits), y[:, None], 1))

    @numlir.jit
    def step(p, s, x, y):
        value, grads = numlir.value_and_grad(loss)(p, x, y)
        updates, s = opt.update(grads, s, p)
        return optim.apply_updates(p, updates), s, value

    def train(p, x, y):
        s = opt.init(p)
        values = []
        for _ in range(5):
            p, s, value = step(p, s, x, y)
            values.append(float(value))
        return values, p

    want, _ = train(params, x, y)
    got, p = train(*numlir.device_put((params, x, y), pjrt))
    assert all(leaf.device == pjrt for leaf in jax.tree_util.tree_leaves(p))
    assert np.all(np.isfinite(got)) and got[-1] < got[0]
    np.testing.assert_allclose(got, want, rtol=1e-5 * TOL)


def test_checkify_reports_errors_found_on_the_pjrt_device(pjrt):
    from numlir.experimental import checkify

    def f(x):
        checkify.check(jnp.all(x > 0), "x must be positive, got {}", x.min())
        return jnp.log(x) + x[jnp.array(5)]

    checked = numlir.jit(checkify.checkify(f, errors=checkify.all_checks))
    err, y = checked(numlir.device_put(np.array([1.0, 2.0], np.float32), pjrt))
    assert y.device == pjrt
    assert "index 5 is out of bounds" in err.get()
    err, _ = checked(numlir.device_put(np.array([-1.0, 2.0], np.float32), pjrt))
    assert "x must be positive, got -1.0" in err.get()


def test_host_callbacks_are_a_clear_error_naming_the_op(pjrt):
    def f(x):
        numlir.debug.print("x = {}", x)
        return x + 1

    with pytest.raises(numlir.CompileError, match="host_callback"):
        numlir.jit(f)(numlir.device_put(np.ones(2, np.float32), pjrt))


def test_the_compilation_cache_key_names_the_plugin_and_its_version():
    backend = nb.get_backend(BACKEND)
    identity = backend.cache_identity(backend.parse_options())
    import jaxlib

    assert f"jaxlib {jaxlib.__version__}" in identity and f"pjrt {BACKEND}" in identity
    with pytest.raises(TypeError, match="takes no options"):
        backend.parse_options(opt_level=3)


def _in_a_process_with_plugins(value: str, code: str) -> subprocess.CompletedProcess:
    # NUMLIR_PJRT_PLUGINS is read once per process, when numlir first looks a backend up.
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "NUMLIR_PJRT_PLUGINS": value})


def test_a_pjrt_plugin_given_by_path_is_a_backend_and_one_that_does_not_load_a_clear_error(
        tmp_path):
    missing = tmp_path / "no_such_plugin.so"
    not_a_library = tmp_path / "plugin.so"
    not_a_library.write_text("not an ELF file")
    done = _in_a_process_with_plugins(f"gone:{missing}, bogus:{not_a_library}", """
import sys
import numlir, numlir.backends as nb
assert {"gone", "bogus"} <= set(nb.available_backends()), nb.available_backends()
assert "jax" not in sys.modules  # discovery alone imports no jax
for name in ("gone", "bogus"):
    try:
        numlir.devices(name)
    except nb.BackendUnavailableError as error:
        print(error)
    else:
        raise AssertionError(name)
""")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert f"the 'gone' backend is unavailable: its PJRT plugin '{missing}' did not load" in lines[0]
    assert f"its PJRT plugin '{not_a_library}' did not load" in lines[1]


def _libtpu_path() -> str | None:
    try:
        import libtpu
    except ImportError:
        return None
    getter = getattr(libtpu, "get_library_path", None)
    path = getter() if getter else os.path.join(os.path.dirname(libtpu.__file__), "libtpu.so")
    return path if os.path.exists(path) else None


@pytest.mark.skipif(_libtpu_path() is None, reason="libtpu is not installed here")
def test_libtpu_given_by_path_is_a_backend_that_computes():
    # libtpu lets one process hold the chip, so tools/tpu/run.sh runs this test in a pytest
    # of its own before the others; jax's own backends stay on the CPU in the child.
    done = subprocess.run([sys.executable, "-c", """
import numpy as np
import numlir, numlir.numpy as jnp
d = numlir.devices("libtpu_by_path")[0]
x = numlir.device_put(np.arange(8, dtype=np.float32), d)
y = numlir.jit(lambda a: jnp.sin(a) * 2 + a.sum())(x)
assert y.device == d, y.device
want = np.sin(np.arange(8)) * 2 + 28
print(d.platform, d.device_kind, float(np.max(np.abs(np.asarray(y) - want))))
"""], capture_output=True, text=True, timeout=300,
        env={**os.environ, "NUMLIR_PJRT_PLUGINS": f"libtpu_by_path:{_libtpu_path()}",
             "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr[-3000:]
    platform, *kind, error = done.stdout.split()
    assert platform == "libtpu_by_path" and "TPU" in " ".join(kind).upper()
    assert float(error) < 1e-4


@pytest.mark.parametrize("value, message", [
    ("nocolon", "comma-separated name:/path/plugin.so"),
    ("Bad-Name:/x.so", "comma-separated name:/path/plugin.so"),
    ("tpu:/x.so", "names the backend 'tpu' twice, or as one numlir already has"),
    ("a:/x.so,a:/y.so", "names the backend 'a' twice"),
])
def test_a_malformed_pjrt_plugins_variable_is_a_clear_error(value, message):
    done = _in_a_process_with_plugins(value, "import numlir; numlir.numpy.ones(2)")
    assert done.returncode != 0 and "ValueError" in done.stderr
    assert "NUMLIR_PJRT_PLUGINS" in done.stderr and message in done.stderr, done.stderr


#: Programs of the in-suite fuzzer's seed, without special values (XLA's CPU flushes
#: subnormals, numlir keeps them: docs/complex-numbers.md), compiled whole.
FUZZ_SEED, FUZZ_PROGRAMS = 8, 60
#: Programs on which a vendor's compiler aborts the process, where numlir's guard
#: (numlir_pjrt.vendor_limits) does not yet name the construct.
@pytest.mark.parametrize("platform, module, refused", [
    ("tpu", '%2 = "stablehlo.divide"(%0, %1) : (tensor<2xcomplex<f64>>, '
            'tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f64>>', True),
    ("tpu", "%2 = stablehlo.divide %0, %1 : tensor<complex<f64>>", True),
    ("tpu", '%2 = "stablehlo.divide"(%0, %1) : (tensor<2xcomplex<f32>>, '
            'tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>', False),
    ("tpu", '%2 = "stablehlo.divide"(%0, %1) : (tensor<2xf64>, tensor<2xf64>) -> '
            'tensor<2xf64>\n%3 = "stablehlo.complex"(%2, %2) : (tensor<2xf64>, '
            'tensor<2xf64>) -> tensor<2xcomplex<f64>>', False),
    ("cpu", '%2 = "stablehlo.divide"(%0, %1) : (tensor<2xcomplex<f64>>, '
            'tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f64>>', False),
    ("tpu", '%0 = "stablehlo.abs"(%arg0) : (tensor<2x1xcomplex<f64>>) -> tensor<2x1xf64>',
     True),
    ("tpu", '%0 = "stablehlo.abs"(%arg0) : (tensor<2x1xcomplex<f32>>) -> tensor<2x1xf32>',
     False),
    ("tpu", '%0 = "stablehlo.abs"(%arg0) : (tensor<2x1xf64>) -> tensor<2x1xf64>', False),
])
def test_modules_a_vendors_compiler_aborts_on_are_a_clear_error_first(platform, module,
                                                                      refused):
    if refused:
        with pytest.raises(VendorCompilerLimit, match="complex128 (division|abs).*jax"):
            refuse_known_aborts(platform, module)
    else:
        refuse_known_aborts(platform, module.encode())


@pytest.mark.skipif(BACKEND != "tpu", reason="XLA-TPU's limit")
def test_complex128_division_on_the_tpu_is_a_clear_error_not_an_abort(pjrt):
    with numlir.enable_x64(True):
        a = numlir.device_put(np.array([1 + 2j, 3 - 1j]), pjrt)
        with pytest.raises(VendorCompilerLimit, match="complex128 division"):
            numlir.jit(lambda a: a / (a.real + 2.0))(a)
        with pytest.raises(VendorCompilerLimit, match="complex128 abs"):
            numlir.jit(lambda a: abs(a))(a)
        # complex64 division is the chip's own.
        b = numlir.device_put(np.array([1 + 2j, 3 - 1j], np.complex64), pjrt)
        np.testing.assert_allclose(np.asarray(numlir.jit(lambda b: b / (b.real + 2))(b)),
                                   np.array([1 + 2j, 3 - 1j]) / np.array([3, 5]), rtol=1e-6)


def test_the_tpu_probe_says_who_runs_a_fuzz_program(capsys):
    # tools/tpu/probe_programs.py (run.sh probe): one process per library and program, so
    # that an abort inside XLA is reported, not fatal. Here both run program 8/19.
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "tpu"))
    try:
        import probe_programs
    finally:
        sys.path.pop(0)
    assert probe_programs.main([BACKEND, "8/19"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["8/19 jax", "8/19 numlir"]
    if BACKEND == "pjrt_cpu":
        assert all(": exit 0: ok [(3, 3, 1, 6), (), (1,)]" in line for line in lines), lines


def test_the_dispatch_probe_times_every_call_form(capsys, monkeypatch):
    # tools/tpu/dispatch_probe.py (run.sh dispatch): jax's, numlir's and jaxlib's forms of
    # one call, each timed; a form that fails says so instead of a time.
    import runpy

    script = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "tpu",
                          "dispatch_probe.py")
    monkeypatch.setattr(sys, "argv", [script, BACKEND, "20"])
    runpy.run_path(script, run_name="__main__")
    rows = capsys.readouterr().out.splitlines()[1:]
    assert len(rows) == 10 and all(row.endswith(" us") for row in rows), rows
    assert rows[2].startswith("numlir.jit"), rows


def _jax_here_rejects_it_too(program, mode: str, arrays) -> bool:
    """Whether jax fails to compile or run the program on the device under test: a
    limit of the vendor's compiler (XLA-TPU's complex128 emulation has layout checks
    that fail on some programs), not numlir's, when numlir's module is rejected too."""
    try:
        with jax.default_device(jax.devices(JAX_PLATFORM)[0]):
            run_modes.evaluate(run_modes.library("jax"), program, mode, arrays)
    except Exception:  # noqa: BLE001 - any rejection by the vendor's compiler
        return True
    return False


@pytest.mark.parametrize("chunk", range(3))
def test_fuzzer_programs_agree_with_numlirs_cpu_backend(pjrt, chunk):
    failures = []
    for index in range(chunk * FUZZ_PROGRAMS // 3, (chunk + 1) * FUZZ_PROGRAMS // 3):
        program = generate.generate(FUZZ_SEED, index)
        if os.environ.get("NUMLIR_PJRT_TEST_TRACE"):
            # An abort inside XLA loses pytest's capture: name the program first.
            print(f"fuzz program {FUZZ_SEED}/{index}", file=sys.__stderr__, flush=True)
        run_modes.set_x64(program.x64)
        try:
            lib = run_modes.library("numlir")
            for mode in ("jit", "jit_vmap_grad"):
                if mode not in run_modes.applicable_modes(program):
                    continue
                arrays = run_modes.mode_inputs(program, mode)
                want = run_modes.evaluate(lib, program, mode, arrays)
                try:
                    with numlir.default_device(pjrt):
                        got = run_modes.evaluate(lib, program, mode, arrays)
                except nb.CompileError as error:
                    # A known abort was seen abort jax too; jax is not run into it here.
                    if (isinstance(error, VendorCompilerLimit)
                            or _jax_here_rejects_it_too(program, mode, arrays)):
                        print(f"program {index} {mode}: the vendor's compiler rejects it "
                              f"for jax too ({str(error)[:200]})", file=sys.__stderr__)
                        continue
                    failures.append(f"program {index} {mode}: {error}")
                    continue
                verdict = compare.compare(got, want,
                                          compare.program_rtol(program.dtypes()) * TOL)
                if not verdict.ok:
                    failures.append(f"program {index} {mode}: {verdict.detail}")
        finally:
            run_modes.set_x64(False)
    assert not failures, "\n".join(failures)
