"""lax.reduce_window, pooling as flax/haiku write it, and cumulative ops, against jax.

Pooling layers call ``lax.reduce_window`` with an init value and a monoid
(``-inf`` with ``lax.max``, ``0`` with ``lax.add`` then a division); each
case runs numlir eager and under jit and compares with jax.lax.
"""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.lax as lax
import numlir.numpy as jnp


def _rand(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -5
        return rng.integers(lo, 6, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _check(fn, ref, args, jit=True):
    want = np.asarray(ref(*[jnp_ref.asarray(a) for a in args]))
    got = [fn(*[jnp.asarray(a) for a in args])]
    if jit:
        got.append(numlir.jit(fn)(*args))
    for g in got:
        assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, g.dtype, want.shape,
                                                                 want.dtype)
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-6)


# --- pooling as nn libraries write it ------------------------------------------------


def _nhwc(window, strides, padding):
    if not isinstance(padding, str):
        padding = [(0, 0), *padding, (0, 0)]
    return (1, *window, 1), (1, *strides, 1), padding


def max_pool(L, x, window, strides, padding):
    dims, step, padding = _nhwc(window, strides, padding)
    return L.reduce_window(x, -np.inf, L.max, dims, step, padding)


def avg_pool(L, x, window, strides, padding):
    dims, step, padding = _nhwc(window, strides, padding)
    return L.reduce_window(x, 0.0, L.add, dims, step, padding) / np.prod(window)


def avg_pool_exclude_padding(L, np_, x, window, strides, padding):
    dims, step, padding = _nhwc(window, strides, padding)
    total = L.reduce_window(x, 0.0, L.add, dims, step, padding)
    counts = L.reduce_window(np_.ones(x.shape, x.dtype), 0.0, L.add, dims, step, padding)
    return total / counts


@pytest.mark.parametrize("window,strides,padding", [
    ((2, 2), (2, 2), "VALID"),
    ((3, 3), (2, 2), "SAME"),
    ((3, 2), (1, 1), "SAME"),
    ((2, 3), (2, 1), [(0, 1), (1, 1)]),
])
@pytest.mark.parametrize("pool", ["max", "avg", "avg_exclude"])
def test_pooling_nhwc(pool, window, strides, padding):
    x = _rand((2, 7, 6, 3))
    if pool == "max":
        fn = lambda x: max_pool(lax, x, window, strides, padding)  # noqa: E731
        ref = lambda x: max_pool(jax.lax, x, window, strides, padding)  # noqa: E731
    elif pool == "avg":
        fn = lambda x: avg_pool(lax, x, window, strides, padding)  # noqa: E731
        ref = lambda x: avg_pool(jax.lax, x, window, strides, padding)  # noqa: E731
    else:
        fn = lambda x: avg_pool_exclude_padding(lax, jnp, x, window, strides, padding)  # noqa: E731
        ref = lambda x: avg_pool_exclude_padding(jax.lax, jnp_ref, x, window, strides,  # noqa: E731
                                                 padding)
    _check(fn, ref, [x])


def test_max_pool_1d_and_3d():
    x1, x3 = _rand((2, 9, 4), seed=1), _rand((1, 5, 4, 6, 2), seed=2)
    _check(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 1), (1, 2, 1), "SAME"),
           lambda x: jax.lax.reduce_window(x, -jnp_ref.inf, jax.lax.max, (1, 3, 1), (1, 2, 1),
                                           "SAME"), [x1])
    _check(lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 2, 1), (1, 2, 2, 2, 1), "VALID"),
           lambda x: jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 2, 1), (1, 2, 2, 2, 1),
                                           "VALID"), [x3])


# --- lax.reduce_window: monoids, inits, dilations, dtypes ---------------------------


@pytest.mark.parametrize("init,op", [
    (0.0, "add"), (1.0, "mul"), (-np.inf, "max"), (np.inf, "min"),
    (2.5, "add"), (0.5, "mul"), (0.0, "max"), (-1.0, "min"),   # non-identity inits
])
def test_reduce_window_monoids_and_inits(init, op):
    x = _rand((5, 6), seed=3)
    args = ((2, 3), (1, 2), [(1, 0), (2, 1)], (1, 2), (2, 1))
    _check(lambda x: lax.reduce_window(x, init, getattr(lax, op), *args),
           lambda x: jax.lax.reduce_window(x, init, getattr(jax.lax, op), *args), [x])


@pytest.mark.parametrize("dtype,init,op", [
    (np.int32, 0, "add"), (np.int32, np.iinfo(np.int32).min, "max"), (np.int32, 3, "max"),
    (np.int32, 1, "mul"), (np.uint8, 255, "min"), (np.int32, -1, "bitwise_and"),
    (np.int32, 0, "bitwise_or"), (np.bool_, False, "bitwise_or"), (np.bool_, True, "bitwise_and"),
    (np.bool_, False, "max"),
])
def test_reduce_window_integer_and_bool(dtype, init, op):
    x = _rand((4, 7), dtype, seed=4)
    init_value = np.array(init, dtype)
    args = ((2, 2), (1, 2), "SAME")
    _check(lambda x: lax.reduce_window(x, init_value, getattr(lax, op), *args),
           lambda x: jax.lax.reduce_window(x, init_value, getattr(jax.lax, op), *args), [x])


def test_reduce_window_numpy_ufunc_computation_and_traced_init():
    x = _rand((6,), seed=5)
    _check(lambda x: lax.reduce_window(x, 0.0, jnp.maximum, (3,), (1,), "VALID"),
           lambda x: jax.lax.reduce_window(x, 0.0, jax.lax.max, (3,), (1,), "VALID"), [x])
    got = numlir.jit(lambda x, c: lax.reduce_window(x, c, lax.add, (2,)))(x, np.float32(1.5))
    want = jax.lax.reduce_window(x, np.float32(1.5), jax.lax.add, (2,), (1,), "VALID")
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_reduce_window_f64(x64):
    x = _rand((4, 5), np.float64, seed=6)
    _check(lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "SAME", (2, 1)),
           lambda x: jax.lax.reduce_window(x, 0.0, jax.lax.add, (2, 2), (1, 1), "SAME", (2, 1)),
           [x])


@pytest.mark.parametrize("call,match", [
    (lambda x: lax.reduce_window(x, 0.0, lambda a, b: a + b, (2, 2)),
     "unsupported computation"),
    (lambda x: lax.reduce_window(x, 0.0, lax.add, (2,)), "one entry per operand dimension"),
    (lambda x: lax.reduce_window(x, 0.0, lax.add, (0, 2)), "must be positive"),
    (lambda x: lax.reduce_window(x, np.int32(0), lax.add, (2, 2)), "must match the operand"),
    (lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), padding="FULL"),
     "Unrecognized padding type"),
    (lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 1), padding=[(0, 0), (-9, 0)]),
     "removes more than the operand"),
])
def test_reduce_window_errors(call, match):
    with pytest.raises((TypeError, ValueError), match=match) as info:
        call(jnp.ones((4, 4), np.float32))
    assert "test_pooling.py:" in str(info.value)


# --- numpy cumulative reductions ----------------------------------------------------


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_numpy_cumulative(name):
    x = _rand((3, 4), seed=10)
    _check(lambda x: getattr(jnp, name)(x), lambda x: getattr(jnp_ref, name)(x), [x])
    _check(lambda x: getattr(jnp, name)(x, axis=-1), lambda x: getattr(jnp_ref, name)(x, axis=-1),
           [x])
    xi = _rand((5,), np.int8, seed=11)
    _check(lambda x: getattr(jnp, name)(x), lambda x: getattr(jnp_ref, name)(x), [xi])
    xb = _rand((2, 3), np.bool_, seed=12)
    _check(lambda x: getattr(jnp, name)(x, axis=0), lambda x: getattr(jnp_ref, name)(x, axis=0),
           [xb])
    _check(lambda x: getattr(jnp, name)(x, axis=1, dtype=np.float32),
           lambda x: getattr(jnp_ref, name)(x, axis=1, dtype=np.float32), [xb], jit=False)
