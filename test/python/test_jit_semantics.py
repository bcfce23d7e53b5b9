"""jit's contract: when it retraces, static and donated arguments, closures, lower/compile; finfo/iinfo."""

import jax
import jax.numpy as jnp_ref
import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

F32 = np.float32


def _counting(fun, **jit_kwargs):
    traces = []

    def traced(*args, **kwargs):
        traces.append(1)
        return fun(*args, **kwargs)

    traced.__name__ = fun.__name__
    return numlir.jit(traced, **jit_kwargs), traces


# --- retracing -----------------------------------------------------------------------------------


def test_retraces_exactly_when_the_abstract_signature_changes():
    f, traces = _counting(lambda x: x * 2)
    f(np.ones(3, F32))
    f(np.full(3, 5, F32))                      # new values: cached
    f(jnp.asarray(np.zeros(3, F32)))           # a numlir Array of the same aval: cached
    assert len(traces) == 1
    f(np.ones(4, F32))                         # shape
    f(np.ones(3, np.int32))                    # dtype
    assert len(traces) == 3
    f(np.ones(4, F32))
    assert len(traces) == 3 and f.cache_misses == 3


def test_weak_types_are_part_of_the_signature():
    f, traces = _counting(lambda x: x + 1)
    strong = f(np.float32(1.0))
    weak = f(1.0)
    f(2.0)
    assert len(traces) == 2
    assert not strong.weak_type and weak.weak_type
    assert weak.weak_type == jax.jit(lambda x: x + 1)(1.0).weak_type


def test_tree_structure_is_part_of_the_signature():
    f, traces = _counting(lambda t: t[0] + t[1])
    x = np.ones(2, F32)
    f((x, x))
    f((x, x))
    f([x, x])
    assert len(traces) == 2
    g, traces = _counting(lambda d: d["a"])
    g({"a": x})
    g({"a": x, "b": None})
    assert len(traces) == 2


def test_the_x64_flag_is_part_of_the_signature(x64):
    f, traces = _counting(lambda x: x * 2)
    f(1)
    numlir.config.update("jax_enable_x64", False)
    f(1)
    assert len(traces) == 2


# --- static arguments ------------------------------------------------------------------------------


def test_static_args_retrace_per_value_and_are_python_values_inside():
    def power(x, n):
        assert isinstance(n, int)
        return x ** n

    f, traces = _counting(power, static_argnums=1)
    x = np.full(2, 3, F32)
    np.testing.assert_allclose(f(x, 2), [9, 9])
    f(x, 2)
    np.testing.assert_allclose(f(x, 3), [27, 27])
    assert len(traces) == 2


def test_static_argnames_also_cover_positional_calls_and_vice_versa():
    def scale(x, factor):
        assert isinstance(factor, float)
        return x * factor

    x = np.ones(2, F32)
    by_name = numlir.jit(scale, static_argnames="factor")
    np.testing.assert_allclose(by_name(x, factor=2.0), [2, 2])
    np.testing.assert_allclose(by_name(x, 3.0), [3, 3])           # positional, still static
    by_num = numlir.jit(scale, static_argnums=1)
    np.testing.assert_allclose(by_num(x, factor=4.0), [4, 4])     # keyword, still static


def test_unhashable_static_args_are_a_clear_error():
    f = numlir.jit(lambda x, shape: x.reshape(shape), static_argnums=1)
    with pytest.raises(ValueError, match="Non-hashable static arguments.*list"):
        f(np.ones(4, F32), [2, 2])
    with pytest.raises(ValueError):
        jax.jit(lambda x, shape: x.reshape(shape), static_argnums=1)(np.ones(4, F32), [2, 2])
    np.testing.assert_allclose(f(np.ones(4, F32), (2, 2)), np.ones((2, 2)))


def test_non_array_arguments_must_be_static():
    with pytest.raises(TypeError, match="mark other arguments static"):
        numlir.jit(lambda x, s: x)(np.ones(2, F32), "mode")


# --- donation ---------------------------------------------------------------------------------------


def test_donation_deletes_the_donated_array_with_nums_names_and_statics():
    # As in JAX: the donated array is gone after the call, the others stay readable
    # (test_donation.py covers the buffer reuse itself).
    x = jnp.asarray(np.arange(3, dtype=F32))
    f = numlir.jit(lambda x, y: x + y, donate_argnums=0)
    np.testing.assert_allclose(f(x, x), [0, 2, 4])
    assert x.is_deleted()
    x = jnp.asarray(np.arange(3, dtype=F32))
    y = jnp.asarray(np.arange(3, dtype=F32))
    g = numlir.jit(lambda x, y: x * y, donate_argnames=("y",))
    np.testing.assert_allclose(g(x, y=y), [0, 1, 4])
    assert y.is_deleted() and not x.is_deleted()

    @numlir.jit(donate_argnums=(0,), static_argnums=(1,))
    def h(x, n):
        return x * n

    np.testing.assert_allclose(h(x, 3), [0, 3, 6])
    assert x.is_deleted()


# --- closures ---------------------------------------------------------------------------------------


def test_closed_over_arrays_become_constants_captured_at_trace_time():
    w = np.array([1.0, 2.0, 3.0], F32)
    f = numlir.jit(lambda x: x * w)
    text = f.lower(np.ones(3, F32)).as_text()
    assert "hlo.constant dense<[1.0, 2.0, 3.0]>" in text
    assert "func.func public @main(%arg0: tensor<3xf32>)" in text   # w is not an argument
    np.testing.assert_allclose(f(np.ones(3, F32)), [1, 2, 3])
    graph = numlir.make_graph(lambda x: x * w)(np.ones(3, F32))
    assert len(graph.graph.constvars) == 1 and len(graph.graph.invars) == 1


def test_closed_over_numlir_arrays_and_scalars():
    b = jnp.asarray(np.full((2,), 4, F32))
    k = 2.5
    f = numlir.jit(lambda x: x * k + b)
    np.testing.assert_allclose(f(np.ones(2, F32)), [6.5, 6.5])


# --- lower / compile ---------------------------------------------------------------------------------


def test_lower_as_text_and_compile():
    def f(x, y):
        return jnp.tanh(x @ y).sum(axis=0)

    x, y = np.ones((4, 3), F32), np.ones((3, 2), F32)
    lowered = numlir.jit(f).lower(x, y)
    text = lowered.as_text()
    assert text.startswith("module @jit_f")
    assert "hlo.dot_general" in text and "hlo.tanh" in text
    compiled = lowered.compile()
    want = jax.jit(lambda a, b: jnp_ref.tanh(a @ b).sum(axis=0))(x, y)
    np.testing.assert_allclose(compiled(x, y), want, rtol=1e-6)
    with pytest.raises(TypeError, match="compiled for"):
        compiled(np.ones((5, 3), F32), y)


def test_lower_accepts_shape_dtype_structs_and_static_args():
    f = numlir.jit(lambda x, n: x * n, static_argnums=1)
    lowered = f.lower(numlir.ShapeDtypeStruct((2, 3), np.float16), 3)
    assert "tensor<2x3xf16>" in lowered.as_text()
    np.testing.assert_allclose(lowered.compile()(np.ones((2, 3), np.float16), 3), np.full((2, 3), 3))


# --- finfo / iinfo ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_finfo_matches_jnp(dtype):
    ours, theirs = jnp.finfo(dtype), jnp_ref.finfo(dtype)
    for attr in ("bits", "eps", "epsneg", "max", "min", "tiny", "nmant", "nexp", "minexp", "maxexp",
                 "resolution", "smallest_subnormal"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    if dtype != np.float64:  # float64 arrays need x64
        assert jnp.finfo(jnp.ones(2, dtype)).dtype == np.dtype(dtype)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.int64], ids=lambda d: np.dtype(d).name)
def test_iinfo_matches_jnp(dtype):
    ours, theirs = jnp.iinfo(dtype), jnp_ref.iinfo(dtype)
    assert (ours.min, ours.max, ours.bits) == (theirs.min, theirs.max, theirs.bits)


def test_dtype_objects_and_issubdtype():
    assert jnp.dtype(jnp.bfloat16) == jnp_ref.dtype(jnp_ref.bfloat16)
    for dtype in (jnp.bfloat16, jnp.float16, jnp.int8, jnp.uint32, jnp.bool_):
        for parent in (jnp.floating, jnp.inexact, jnp.integer, jnp.signedinteger, jnp.number):
            assert jnp.issubdtype(dtype, parent) == jnp_ref.issubdtype(dtype, parent), (dtype, parent)
    assert jnp.ones(2, jnp.bfloat16).dtype == jnp.bfloat16
