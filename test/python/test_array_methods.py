"""Array methods that forward to numlir.numpy (as jax.Array's do) work on Arrays and on
tracers alike, with jax's results: x.swapaxes, x.argmax, x.std, x.cumsum, ..."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

X = np.random.default_rng(0).normal(size=(3, 4, 5)).astype(np.float32)

CASES = [
    ("argmax", (1,), {}), ("argmin", (), {"axis": 2}), ("std", (), {"axis": 1, "ddof": 1}),
    ("var", (0,), {}), ("ptp", (), {"axis": 1}), ("argsort", (), {"axis": -1}), ("sort", (0,), {}),
    ("clip", (-0.5, 0.5), {}), ("round", (1,), {}), ("cumsum", (1,), {}),
    ("cumprod", (), {"axis": 2}), ("diagonal", (), {"axis1": 1, "axis2": 2}), ("trace", (), {}),
    ("repeat", (2,), {"axis": 1}), ("take", (np.array([0, 2]),), {"axis": 1}),
    ("swapaxes", (0, 2), {}),
]


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[c[0] for c in CASES])
def test_forwarded_methods_match_jax(name, args, kwargs, jit):
    def f(v):
        return getattr(v, name)(*args, **kwargs)

    got = np.asarray((numlir.jit(f) if jit else f)(jnp.asarray(X)))
    want = np.asarray(jax.jit(f)(jjnp.asarray(X)))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_mT_and_itemsize():
    assert jnp.ones((2, 3, 4)).mT.shape == (2, 4, 3)
    assert numlir.jit(lambda v: v.mT)(np.ones((2, 3), np.float32)).shape == (3, 2)
    assert jnp.ones(2, jnp.bfloat16).itemsize == 2


def test_methods_under_grad():
    g = numlir.grad(lambda v: v.swapaxes(0, 1).cumsum(0).std())(X)
    want = jax.grad(lambda v: v.swapaxes(0, 1).cumsum(0).std())(X)
    np.testing.assert_allclose(np.asarray(g), np.asarray(want), rtol=1e-4, atol=1e-6)


def test_real_imag_and_conj_of_real_arrays_match_jax():
    import jax.numpy as jjnp

    x = np.arange(-2.0, 3.0, dtype=np.float32)
    for name in ("real", "imag"):
        got = getattr(numlir.numpy.asarray(x), name)
        want = getattr(jjnp.asarray(x), name)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(np.asarray(numlir.jit(lambda a: a.conj() + a.conjugate())(x)), 2 * x)
