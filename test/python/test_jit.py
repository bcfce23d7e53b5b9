"""numlir.jit end to end: compiled results, the executable cache, pytrees, constants, lowering."""

import functools

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir._src import dispatch

RNG = np.random.default_rng(0)


def _mlp(x, w, b):
    return jnp.tanh(x @ w + b).sum(axis=1)


def test_walking_skeleton_example_matches_numpy():
    f = numlir.compile(_mlp)
    x = RNG.random((4, 8), dtype=np.float32)
    w = RNG.random((8, 3), dtype=np.float32)
    b = np.zeros(3, np.float32)
    out = f(x, w, b)
    assert isinstance(out, numlir.Array)
    assert out.shape == (4,) and out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), np.tanh(x @ w + b).sum(1), rtol=1e-5, atol=1e-5)


def test_jit_is_compile():
    assert numlir.jit is numlir.compile


def test_same_signature_hits_the_cache():
    f = numlir.jit(lambda x, y: x * y + 1.0)
    a = np.ones((2, 3), np.float32)
    f(a, a)
    f(a + 1, a * 2)
    f(numlir.numpy.asarray(a), a)
    assert f.cache_misses == 1 and f._cache_size() == 1


def test_new_shape_dtype_weak_type_or_structure_misses_the_cache():
    f = numlir.jit(lambda t: numlir.tree_util.tree_map(lambda v: v * 2, t))
    f((np.ones(2, np.float32), np.ones(2, np.float32)))
    f((np.ones(3, np.float32), np.ones(2, np.float32)))  # shape
    assert f.cache_misses == 2
    f((np.ones(3, np.int32), np.ones(2, np.float32)))  # dtype
    assert f.cache_misses == 3
    f([np.ones(3, np.int32), np.ones(2, np.float32)])  # tree structure
    assert f.cache_misses == 4
    f([1.0, 2.0])  # weak scalars
    f([np.float32(1.0), np.float32(2.0)])  # strong scalars
    assert f.cache_misses == 6
    f([3.0, 4.0])
    assert f.cache_misses == 6


def test_float64_inputs_are_canonicalized_and_share_the_float32_entry():
    f = numlir.jit(lambda x: x + 1)
    f(np.ones(3, np.float32))
    out = f(np.ones(3, np.float64))
    assert out.dtype == np.float32 and f.cache_misses == 1


def test_pytrees_in_and_out():
    @numlir.jit
    def f(params, x):
        h = x @ params["w"] + params["b"]
        return {"h": h, "stats": (h.sum(), None, [h.max()])}

    params = {"w": RNG.random((3, 2), dtype=np.float32), "b": np.ones(2, np.float32)}
    x = RNG.random((4, 3), dtype=np.float32)
    out = f(params, x)
    h = x @ params["w"] + params["b"]
    assert set(out) == {"h", "stats"} and out["stats"][1] is None
    np.testing.assert_allclose(out["h"], h, rtol=1e-6)
    np.testing.assert_allclose(out["stats"][0], h.sum(), rtol=1e-5)
    np.testing.assert_allclose(out["stats"][2][0], h.max(), rtol=1e-6)


def test_closed_over_arrays_become_constants():
    big = RNG.standard_normal((5, 7)).astype(np.float32)
    small = np.array([1.0, -2.0], np.float32)
    f = numlir.jit(lambda x: (x + big, jnp.asarray(small) * 2))
    text = f.lower(np.ones((5, 7), np.float32)).as_text()
    assert 'hlo.constant dense<"0x' in text and "hlo.constant dense<[1.0, -2.0]>" in text
    a, b = f(np.ones((5, 7), np.float32))
    np.testing.assert_array_equal(a, 1 + big)
    np.testing.assert_array_equal(b, small * 2)


def test_outputs_may_be_inputs_or_constants():
    out = numlir.jit(lambda x: (x, 2.5, np.arange(3)))(np.ones(2, np.float32))
    np.testing.assert_array_equal(out[0], [1, 1])
    assert out[1].dtype == np.float32 and out[1].weak_type and float(out[1]) == 2.5
    np.testing.assert_array_equal(out[2], [0, 1, 2])
    assert out[2].dtype == np.int32


def test_static_argnums():
    f = numlir.jit(lambda x, n: x * n if n > 1 else x, static_argnums=1)
    np.testing.assert_array_equal(f(np.ones(2, np.float32), 3), [3, 3])
    np.testing.assert_array_equal(f(np.ones(2, np.float32), 1), [1, 1])
    assert f.cache_misses == 2


def test_keyword_arguments():
    f = numlir.jit(lambda x, *, scale: x * scale)
    np.testing.assert_array_equal(f(np.ones(2, np.float32), scale=np.float32(4)), [4, 4])


def test_lower_as_text_and_compile():
    lowered = numlir.jit(_mlp).lower(np.ones((4, 8), np.float32), np.ones((8, 3), np.float32),
                                     np.zeros(3, np.float32))
    text = lowered.as_text()
    assert text.startswith("module @jit__mlp {") and "func.func public @main(" in text
    compiled = lowered.compile()
    out = compiled(np.ones((4, 8), np.float32), np.ones((8, 3), np.float32), np.zeros(3, np.float32))
    np.testing.assert_allclose(out, np.full(4, 3 * np.tanh(8.0)), rtol=1e-6)
    with pytest.raises(TypeError, match="called with"):
        compiled(np.ones((4, 9), np.float32), np.ones((9, 3), np.float32), np.zeros(3, np.float32))


def test_lower_accepts_shape_dtype_structs():
    spec = numlir.ShapeDtypeStruct((2, 3), np.float32)
    assert "tensor<2x3xf32>" in numlir.jit(lambda x: x.sum()).lower(spec).as_text()


def test_x64_computes_in_float64(x64):
    x = np.linspace(0, 1, 5)
    out = numlir.jit(lambda v: jnp.exp(v) * 3 + 1)(x)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, np.exp(x) * 3 + 1, rtol=1e-14)


def test_jit_of_jit_inlines():
    inner = numlir.jit(lambda x: x * 2)
    outer = numlir.jit(lambda x: inner(x) + 1)
    np.testing.assert_array_equal(outer(np.ones(2, np.float32)), [3, 3])
    assert inner.cache_misses == 0


def test_jit_on_a_method_with_static_self():
    class Scale:
        def __init__(self, k):
            self.k = k

        @functools.partial(numlir.jit, static_argnums=0)
        def __call__(self, x):
            return x * self.k

    np.testing.assert_array_equal(Scale(3)(np.ones(2, np.float32)), [3, 3])


def test_compile_error_is_numlir_compile_error():
    with pytest.raises(numlir.CompileError):
        dispatch.compile_module("module { this is not mlir }")


# --- eager mode and the Array type ---------------------------------------------------------


def test_eager_ops_run_compiled_single_primitive_executables():
    x = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    before = dict(dispatch.stats)
    y = (x * 2 + 1).sum(axis=0)
    np.testing.assert_array_equal(y, [8, 12, 16])
    misses = dispatch.stats["eager_cache_misses"]
    assert misses >= before["eager_cache_misses"]
    (x * 2 + 1).sum(axis=0)
    assert dispatch.stats["eager_cache_misses"] == misses  # all cached now


def test_array_attributes_and_conversions():
    x = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert (x.shape, x.dtype, x.ndim, x.size, len(x)) == ((2, 3), np.float32, 2, 6, 2)
    np.testing.assert_array_equal(x.T, np.arange(6).reshape(2, 3).T)
    rows = list(x)
    assert len(rows) == 2 and isinstance(rows[0], numlir.Array)
    np.testing.assert_array_equal(rows[1], [3, 4, 5])
    s = x.sum()
    assert float(s) == 15.0 and int(s) == 15 and s.item() == 15.0 and bool(s)
    assert x.astype(jnp.int32).dtype == np.int32
    assert x.reshape(3, 2).shape == (3, 2) and x.reshape((6,)).shape == (6,)
    np.testing.assert_allclose(x.mean(), 2.5)
    assert float(x.max()) == 5 and float(x.min()) == 0 and float(x.prod()) == 0
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)


def test_array_repr_matches_jax_style():
    assert repr(jnp.asarray(np.array([1.0, 2.0], np.float32))) == "Array([1., 2.], dtype=float32)"
    assert repr(jnp.asarray(1.0) + 1) == "Array(2., dtype=float32, weak_type=True)"
    assert repr(jnp.arange(3)) == "Array([0, 1, 2], dtype=int32)"
    assert repr(jnp.ones((2, 2))) == "Array([[1., 1.],\n       [1., 1.]], dtype=float32)"


def test_operators_including_reflected_ones():
    a = np.array([1.0, 2.0, 4.0], np.float32)
    x = jnp.asarray(a)
    cases = [
        (x + 1, a + 1), (1 + x, 1 + a), (x - 1, a - 1), (1 - x, 1 - a), (x * 3, a * 3),
        (3 * x, 3 * a), (x / 2, a / 2), (2 / x, 2 / a), (x // 3, a // 3), (7 // x, 7 // a),
        (x % 3, a % 3), (x ** 2, a ** 2), (2 ** x, 2 ** a), (-x, -a), (abs(-x), a),
        (x @ x, a @ a), (a + x, a + a), (a * x, a * a), (x > 1, a > 1), (x <= 2, a <= 2),
        (x == 2, a == 2), (x != 2, a != 2), (1 < x, 1 < a),
    ]
    for got, want in cases:
        assert isinstance(got, numlir.Array)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    i = jnp.asarray(np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal((i & 1) | (i ^ 2), (np.array([1, 2, 3]) & 1) | (np.array([1, 2, 3]) ^ 2))
    np.testing.assert_array_equal(~i, ~np.array([1, 2, 3], np.int32))


def test_array_is_unhashable_and_converts_with_np_asarray():
    x = jnp.ones(3)
    with pytest.raises(TypeError):
        hash(x)
    assert np.asarray(x).dtype == np.float32
    assert np.asarray(x, dtype=np.float64).dtype == np.float64


def test_arrays_are_immutable():
    x = jnp.asarray(np.ones(3, np.float32))
    with pytest.raises(ValueError):
        np.asarray(x)[0] = 5


def test_devices():
    assert len(numlir.devices()) >= 1


def test_explain_cache_misses_names_the_changed_argument(caplog):
    numlir.config.update("jax_explain_cache_misses", True)
    try:
        f = numlir.jit(lambda x, y: x + y)
        f(np.ones(2, np.float32), np.ones(2, np.float32))
        with caplog.at_level("WARNING", logger="numlir"):
            f(np.ones(3, np.float32), np.ones(1, np.float32))
    finally:
        numlir.config.update("jax_explain_cache_misses", False)
    assert "argument 0: f32[3] vs f32[2]; argument 1: f32[1] vs f32[2]" in caplog.text


def test_returning_one_computed_value_twice():
    # Regression: CSE makes both results one value, and each result is its own out-buffer.
    x = np.arange(3, dtype=np.float32)
    a, b = numlir.jit(lambda x: (jnp.exp(x), jnp.exp(x)))(x)
    np.testing.assert_allclose(np.asarray(a), np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(b), np.exp(x), rtol=1e-6)
    out = numlir.jit(lambda x: {"s": [jnp.sin(x), x, jnp.sin(x)], "t": x})(x)
    for leaf, want in zip(numlir.tree_util.tree_leaves(out), [np.sin(x), x, np.sin(x), x]):
        np.testing.assert_allclose(np.asarray(leaf), want, rtol=1e-6)
