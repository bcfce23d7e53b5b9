"""numlir.nn activations and logsumexp against jax.nn, eager and under jit."""

import jax
import jax.numpy as jnp_ref
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import numlir
import numlir.numpy as jnp
from numlir import nn

F32, F64 = np.float32, np.float64


def _check(fn, ref_fn, args, tol=2e-5, x64=False):
    if x64:
        numlir.config.update("jax_enable_x64", True)
        jax.config.update("jax_enable_x64", True)
    want = ref_fn(*[jnp_ref.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
    eager = fn(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
    jitted = numlir.jit(fn)(*args)
    want_leaves = want if isinstance(want, tuple) else (want,)
    for got in (eager, jitted):
        got_leaves = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got_leaves, want_leaves, strict=True):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)


X = np.array([[-3.0, -0.5, 0.0, 0.5, 3.0, 8.0], [-20.0, -1.0, 1e-3, 2.0, 6.0, 20.0]], F32)

ACTIVATIONS = [
    (
        "gelu_exact",
        lambda x: nn.gelu(x, approximate=False),
        lambda x: jax.nn.gelu(x, approximate=False),
    ),
    ("gelu_tanh", nn.gelu, jax.nn.gelu),
    ("relu6", nn.relu6, jax.nn.relu6),
    ("elu", nn.elu, jax.nn.elu),
    ("elu_alpha", lambda x: nn.elu(x, 0.5), lambda x: jax.nn.elu(x, 0.5)),
    ("leaky_relu", nn.leaky_relu, jax.nn.leaky_relu),
    ("log_sigmoid", nn.log_sigmoid, jax.nn.log_sigmoid),
    ("hard_tanh", nn.hard_tanh, jax.nn.hard_tanh),
    ("celu", nn.celu, jax.nn.celu),
    ("selu", nn.selu, jax.nn.selu),
    ("standardize", nn.standardize, jax.nn.standardize),
    (
        "standardize_axis0",
        lambda x: nn.standardize(x, axis=0),
        lambda x: jax.nn.standardize(x, axis=0),
    ),
]


@pytest.mark.parametrize("name,fn,ref", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_f32(name, fn, ref):
    _check(fn, ref, [X], tol=1e-4 if name.startswith("standardize") else 2e-5)
    if not name.startswith("standardize"):
        _check(fn, ref, [np.float32(-0.7)])


@pytest.mark.parametrize("name,fn,ref", ACTIVATIONS[:7], ids=[a[0] for a in ACTIVATIONS[:7]])
def test_activation_f64(name, fn, ref, x64):
    _check(fn, ref, [X.astype(F64)], tol=1e-12, x64=True)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), (0, True), ((0, 1), False)])
def test_logsumexp(axis, keepdims):
    _check(
        lambda a: nn.logsumexp(a, axis=axis, keepdims=keepdims),
        lambda a: jax.nn.logsumexp(a, axis=axis, keepdims=keepdims),
        [X],
    )


def test_logsumexp_is_stable_and_handles_infinities():
    big = np.array([[1000.0, 1000.0], [-np.inf, -np.inf], [np.inf, 1.0]], F32)
    _check(lambda a: nn.logsumexp(a, axis=1), lambda a: jax.nn.logsumexp(a, axis=1), [big])


def test_logsumexp_weights_and_sign():
    b = np.array([1.0, -1.0, 2.0, 0.0, 1.0, -3.0], F32)
    _check(
        lambda a, w: nn.logsumexp(a, axis=1, b=w),
        lambda a, w: jax.nn.logsumexp(a, axis=1, b=w),
        [X, b],
    )
    _check(
        lambda a, w: nn.logsumexp(a, axis=1, b=w, return_sign=True),
        lambda a, w: jax.nn.logsumexp(a, axis=1, b=w, return_sign=True),
        [X, b],
    )


def test_logsumexp_empty_axis():
    _check(
        lambda a: nn.logsumexp(a, axis=0),
        lambda a: jax.nn.logsumexp(a, axis=0),
        [np.zeros((0, 3), F32)],
    )


@settings(max_examples=10, deadline=None)
@given(
    shape=st.lists(st.integers(0, 3), max_size=3).map(tuple),
    op=st.sampled_from(["elu", "log_sigmoid", "relu6", "celu"]),
)
def test_fuzz_activation_shapes(shape, op):
    x = np.random.default_rng(0).uniform(-4, 4, size=shape).astype(F32)
    _check(getattr(nn, op), getattr(jax.nn, op), [x])



def _check_one_hot_matches_jax():
    labels = np.array([[0, 3], [1, 2]], np.int32)
    got, want = nn.one_hot(jnp.asarray(labels), 4), jax.nn.one_hot(jnp_ref.asarray(labels), 4)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert nn.one_hot(jnp.asarray(labels), 4, dtype=jnp.int32).dtype == np.int32


def test_one_hot_defaults_to_the_default_float_dtype():
    _check_one_hot_matches_jax()


def test_one_hot_is_float64_under_x64_as_jax(x64):
    _check_one_hot_matches_jax()


def test_standardize_clips_a_negative_variance_as_jax_does():
    """mean(x^2) - mean(x)^2 can come out negative by cancellation; JAX clips it at 0, and
    without the clip the value and gradient were NaN (fuzz seed 1, program 42431)."""
    import jax
    import jax.numpy as jjnp

    w = np.cos(np.arange(36) * 1.37 + 0.3).reshape(3, 12).astype(np.float32)

    def loss(lib, nn):
        return lambda x: lib.sum(nn.standardize(x, axis=-1) * w)

    # Rows near 300: the cancellation leaves about -1e-2, far below -epsilon.
    flat = np.full((3, 12), 300.0, np.float32) + np.float32(1e-4) * np.arange(12, dtype=np.float32)
    v = jnp.mean(jnp.square(flat), axis=-1) - jnp.square(jnp.mean(flat, axis=-1))
    assert (np.asarray(v) < -1e-5).any()  # the case the clip is for
    assert np.isfinite(np.asarray(numlir.nn.standardize(flat))).all()
    assert np.isfinite(np.asarray(numlir.grad(loss(jnp, numlir.nn))(flat))).all()
    # Where the variance is well above its rounding, the gradient is JAX's.
    x = np.random.default_rng(0).standard_normal((3, 12)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(numlir.grad(loss(jnp, numlir.nn))(x)),
                               np.asarray(jax.jit(jax.grad(loss(jjnp, jax.nn)))(x)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(numlir.nn.standardize(x, algorithm="stable")),
                               np.asarray(jax.nn.standardize(x, algorithm="stable")), atol=1e-5)
    with pytest.raises(ValueError, match="Unknown algorithm"):
        numlir.nn.standardize(x, algorithm="slow")


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp", "standardize"])
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_where_leaves_elements_out_as_jax_does(name, jit):
    # optax's softmax_cross_entropy(where=...) passes `where` on to these.
    r = np.random.default_rng(3)
    x = r.normal(size=(4, 6)).astype(np.float32)
    where = r.random((4, 6)) > 0.3
    where[1] = False  # a row with nothing in it
    where[2, 0] = True

    def ours(x):
        return getattr(nn, name)(x, axis=-1, where=where)

    def ref(x):
        return getattr(jax.nn, name)(x, axis=-1, where=where)

    fn = numlir.jit(ours) if jit else ours
    np.testing.assert_allclose(np.asarray(fn(x)), np.asarray(ref(x)), rtol=1e-5, atol=1e-6)
    # Gradients over the finite outputs (masked softmax entries are -inf in log space).
    weights = np.arange(6.0, dtype=np.float32) if name != "logsumexp" else np.float32(1)

    def loss(lib, f):
        return lambda x: lib.sum(lib.where(lib.isfinite(f(x)), f(x), 0.0) * weights)

    np.testing.assert_allclose(np.asarray(numlir.grad(loss(jnp, ours))(x)),
                               np.asarray(jax.jit(jax.grad(loss(jnp_ref, ref)))(x)), rtol=1e-4, atol=1e-5)


def test_log_softmax_vjp_matches_jax():
    x = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]], np.float32)
    cot = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 0.0]], np.float32)
    got = numlir.vjp(lambda x: nn.log_softmax(x), x)[1](cot)[0]
    want = jax.vjp(lambda x: jax.nn.log_softmax(x), x)[1](cot)[0]
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-7)


def _vjps_at_infinite_cotangents(name):
    """(numlir, jax) vjps of nn.`name` and scipy.special.`name` under jit at cotangents with
    infinities, inputs with ties, infinities and a mask."""
    inf = np.inf
    x = np.array([[1.0, 2.0, inf, 0.5], [3.0, -inf, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0]], np.float32)
    cot = np.array([[1.0, inf, 2.0, 0.0], [0.5, 1.0, -1.0, 3.0], [-inf, 0.0, 1.0, 0.0]], np.float32)
    where = np.array([[True, True, False, True], [True, True, True, False], [True] * 4])
    libs = ((numlir, numlir.nn, numlir.scipy.special), (jax, jax.nn, jax.scipy.special))
    for axis, mask in ((-1, None), (0, None), (None, None), (-1, where), ((0, 1), where)):
        results = []
        for lib, lib_nn, lib_special in libs:
            fns = [lambda x, c: lib.vjp(lambda u: getattr(lib_nn, name)(u, axis=axis, where=mask),
                                        x)[1](c)[0]]
            if name != "logsumexp" and mask is None:
                fns.append(lambda x, c: lib.vjp(lambda u: getattr(lib_special, name)(u, axis=axis),
                                                x)[1](c)[0])
            if name == "logsumexp":  # a scalar per row: the cotangent's rows summed
                fns = [lambda x, c: lib.vjp(lambda u: lib_nn.logsumexp(u, axis=-1, where=mask),
                                            x)[1](c[:, 0])[0]]
            results.append([np.asarray(lib.jit(f)(x, cot)) for f in fns])
        yield axis, mask is not None, results


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
def test_softmax_family_gradients_at_infinite_cotangents_are_jaxs(name):
    # fuzz seed 145, program 2003: logsumexp's shift (the finite max) took part in the
    # derivative, so an infinite cotangent made inf - inf = NaN where jax's is inf; softmax's
    # derivative through its quotient was NaN everywhere where jax's y * (t - sum(y t)) is
    # NaN at one element
    for axis, masked, (got, want) in _vjps_at_infinite_cotangents(name):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True,
                                       err_msg=f"{name} axis={axis} masked={masked}")


@pytest.mark.parametrize("blocks", [(1, 1), (4, 2), (8, 8)])
def test_scaled_matmul_matches_jax(blocks):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 5, 8))
    sa, sb = rng.uniform(0.5, 2, (2, 3, blocks[0])), rng.uniform(0.5, 2, (2, 5, blocks[1]))
    args = [x.astype(np.float32) for x in (a, b, sa, sb)]
    # jax's scaled_matmul has no CPU lowering: its documented definition is the reference.
    a_s = args[0] * jnp_ref.repeat(args[2], 8 // blocks[0], axis=-1)
    b_s = args[1] * jnp_ref.repeat(args[3], 8 // blocks[1], axis=-1)
    want = jnp_ref.einsum("BMK,BNK->BMN", a_s, b_s)
    for fn in (numlir.nn.scaled_matmul, numlir.jit(numlir.nn.scaled_matmul)):
        got = fn(*args)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    # jax's usual operands: float8 values with power-of-two float8_e8m0fnu scales.
    f8 = [args[0].astype(ml_dtypes.float8_e4m3fn), args[1].astype(ml_dtypes.float8_e5m2),
          np.exp2(np.round(np.log2(args[2]))).astype(ml_dtypes.float8_e8m0fnu),
          np.exp2(np.round(np.log2(args[3]))).astype(ml_dtypes.float8_e8m0fnu)]
    want_f8 = jnp_ref.einsum("BMK,BNK->BMN",
                             f8[0].astype(F32) * jnp_ref.repeat(f8[2].astype(F32), 8 // blocks[0], axis=-1),
                             f8[1].astype(F32) * jnp_ref.repeat(f8[3].astype(F32), 8 // blocks[1], axis=-1))
    np.testing.assert_allclose(np.asarray(numlir.nn.scaled_matmul(*f8)), np.asarray(want_f8), rtol=1e-5, atol=1e-5)
    half = numlir.nn.scaled_matmul(*args, preferred_element_type=np.float16)
    assert half.dtype == np.float16
    with pytest.raises(ValueError, match="divide its contracting dimension"):
        numlir.nn.scaled_matmul(args[0], args[1], np.ones((2, 3, 3), np.float32), args[3])
