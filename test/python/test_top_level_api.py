"""jax's top-level helpers on numlir: eval_shape, make_jaxpr, typeof, disable_jit, enable_x64,
jacobian, and the device and process queries, against jax."""

import os

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp


def _structs(tree):
    """ShapeDtypeStructs of either library as comparable tuples."""
    return jax.tree_util.tree_map(lambda s: (tuple(s.shape), np.dtype(s.dtype).name, bool(s.weak_type)), tree)


PROGRAMS = [
    ("sum_and_pair", lambda np_: lambda x: {"s": x.sum(0), "t": (x * 2, 1.0)}),
    ("matmul_int", lambda np_: lambda x: (x @ x.T).astype(np_.int32)),
    ("reshape_concat", lambda np_: lambda x: np_.concatenate([x.reshape(-1), np_.zeros(3)])),
    ("argmax", lambda np_: lambda x: np_.argmax(x, axis=1)),
]


@pytest.mark.parametrize("name,program", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_eval_shape_matches_jax(name, program):
    got = numlir.eval_shape(program(jnp), numlir.ShapeDtypeStruct((3, 4), "float32"))
    want = jax.eval_shape(program(jjnp), jax.ShapeDtypeStruct((3, 4), "float32"))
    assert _structs(got) == _structs(want)


def test_eval_shape_takes_arrays_and_keywords_and_computes_nothing():
    calls = []

    def f(x, *, scale):
        calls.append(type(x).__name__)
        return x * scale

    out = numlir.eval_shape(f, np.ones((2, 5), np.float32), scale=2)
    assert out == numlir.ShapeDtypeStruct((2, 5), np.float32)
    assert calls and calls[0] != "ndarray"  # traced, not evaluated on the array


def test_eval_shape_reports_the_shape_error_with_its_op():
    with pytest.raises(TypeError, match="add"):
        numlir.eval_shape(lambda a, b: a + b, numlir.ShapeDtypeStruct((3,), "float32"),
                          numlir.ShapeDtypeStruct((4,), "float32"))


def test_make_jaxpr_is_make_graph_and_can_return_the_output_shapes():
    x = np.ones(3, np.float32)
    graph, shape = numlir.make_jaxpr(lambda v: (v * 2, v.sum()), return_shape=True)(x)
    assert str(graph) == str(numlir.make_graph(lambda v: (v * 2, v.sum()))(x))
    assert "mul" in str(graph) and "reduce_sum" in str(graph)
    want = jax.make_jaxpr(lambda v: (v * 2, v.sum()), return_shape=True)(x)[1]
    assert _structs(shape) == _structs(want)


@pytest.mark.parametrize("value", [np.ones((2, 3)), 1.0, 3, True, np.int8(4), np.zeros(2, np.uint16)],
                         ids=repr)
def test_typeof_matches_jax(value):
    got, want = numlir.typeof(value), jax.typeof(value)
    assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)


def test_disable_jit_runs_the_python_function_on_values():
    seen = []
    f = numlir.jit(lambda x: seen.append(type(x).__name__) or x * 2)
    x = np.arange(3, dtype=np.float32)
    with numlir.disable_jit():
        np.testing.assert_array_equal(np.asarray(f(x)), x * 2)
        np.testing.assert_array_equal(np.asarray(f(x)), x * 2)
    assert len(seen) == 2 and "Tracer" not in seen[0]  # ran twice, on concrete values
    f(x)
    f(x)
    assert len(seen) == 3  # traced once, then cached
    assert numlir.config.read("jax_disable_jit") is False


def test_enable_x64_is_scoped():
    assert jnp.ones(2).dtype == np.float32
    with numlir.enable_x64():
        assert jnp.ones(2).dtype == np.float64
        with numlir.enable_x64(False):
            assert jnp.ones(2).dtype == np.float32
    assert jnp.ones(2).dtype == np.float32


def test_jacobian_is_jacrev():
    f = lambda np_: lambda x: np_.sin(x) * x[::-1]  # noqa: E731
    x = np.linspace(0.1, 1.0, 4).astype(np.float32)
    np.testing.assert_allclose(np.asarray(numlir.jacobian(f(jnp))(x)), np.asarray(jax.jacobian(f(jjnp))(x)),
                               rtol=1e-6, atol=1e-6)


def test_device_and_process_queries():
    # One device by default; `make test` runs this file with NUMLIR_NUM_CPU_DEVICES=4 too.
    devices = numlir.devices()
    count = int(os.environ.get("NUMLIR_NUM_CPU_DEVICES") or 1)
    assert [(d.platform, d.id, d.process_index) for d in devices] == [
        ("cpu", i, 0) for i in range(count)]
    assert numlir.default_backend() == "cpu" == jax.default_backend()
    assert numlir.local_devices() == numlir.devices() == numlir.devices("cpu")
    assert numlir.device_count() == numlir.local_device_count() == count
    assert (numlir.process_index(), numlir.process_count(), numlir.process_indices()) == (0, 1, [0])
    assert (numlir.host_id(), numlir.host_count(), numlir.host_ids()) == (0, 1, [0])
    with pytest.raises(ValueError, match="process_index 1"):
        numlir.local_devices(process_index=1)
    with pytest.raises(ValueError, match="unknown numlir backend"):
        numlir.devices("no_such_backend")


def test_linear_transpose_matches_jax():
    A = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)

    def f(np_):
        return lambda x, y: {"u": 2.0 * x @ A + y, "v": np_.sum(x, axis=0)}

    x, y = np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)
    ct = {"u": np.arange(8.0, dtype=np.float32).reshape(2, 4), "v": np.array([1.0, -1.0, 2.0], np.float32)}
    got = numlir.linear_transpose(f(jnp), x, y)(ct)
    want = jax.linear_transpose(f(jjnp), x, y)(ct)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    spec = numlir.linear_transpose(lambda v: v[::-1] * 3.0, numlir.ShapeDtypeStruct((3,), np.float32))
    np.testing.assert_allclose(np.asarray(spec(np.array([1.0, 2.0, 3.0], np.float32))[0]), [9.0, 6.0, 3.0])


@pytest.mark.parametrize("f", [lambda x: x * x, lambda x: x + 1.0, lambda x: jnp.sin(x)])
def test_linear_transpose_refuses_a_nonlinear_function(f):
    with pytest.raises(TypeError, match="only supports linear functions"):
        numlir.linear_transpose(f, np.ones(3, np.float32))


def test_named_scope_names_the_ops_in_the_hlo_locations():
    def layer(x):
        with numlir.named_scope("dense"):
            with numlir.named_scope("act"):
                y = jnp.tanh(x)
            return y * 2.0

    text = numlir.jit(layer).lower(np.ones(3, np.float32)).as_text()
    assert 'hlo.tanh' in text and 'loc("dense/act"("' in text and 'loc("dense"("' in text
    named = numlir.jit(numlir.named_call(lambda x: jnp.exp(x), name="my_exp")).lower(np.ones(2, np.float32))
    assert 'loc("my_exp"("' in named.as_text()
    np.testing.assert_allclose(np.asarray(numlir.jit(layer)(np.zeros(3, np.float32))), 0.0)
    with pytest.raises(TypeError, match="must be a string"):
        with numlir.named_scope(3):
            pass
    assert isinstance(numlir.devices()[0], numlir.Device)
