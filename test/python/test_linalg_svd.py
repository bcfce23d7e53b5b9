"""numlir.numpy.linalg.svd's singular values and the matrix norms ord 2, -2, 'nuc' against jax
and NumPy (the singular vectors: test_linalg_decompositions.py).

Each case runs eagerly and under jit and must match jax.numpy (value, shape, dtype) and NumPy
(value). Tolerances are relative to the largest singular value, as for any backward-stable SVD.
"""

import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

F32, F64 = np.float32, np.float64


def _rand(shape, dtype=F32, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, size=shape).astype(dtype)


def _rank_deficient(dtype=F32):
    u, v = _rand((4, 2), F64, 1), _rand((2, 3), F64, 2)
    return (u @ v).astype(dtype)  # 4x3 of rank 2


def _check(fn, ref_fn, np_fn, x):
    want = ref_fn(jnp_ref.asarray(x))
    eager = fn(jnp.asarray(x))
    jitted = numlir.jit(fn)(x)
    eps = np.finfo(x.dtype).eps
    scale = max(1.0, float(np.max(np.abs(np.asarray(want))))) if np.asarray(want).size else 1.0
    atol = 30 * eps * scale * max(x.shape[-2:], default=1)
    want_np = np.asarray(np_fn(x.astype(F64)))
    for got in (eager, jitted):
        assert isinstance(got, numlir.Array)
        assert (got.shape, got.dtype) == (want.shape, want.dtype), (got.shape, got.dtype, want.shape, want.dtype)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=0, atol=atol)
        np.testing.assert_allclose(np.asarray(got, F64), want_np, rtol=0, atol=atol)


def _sv(x):
    return jnp.linalg.svd(x, compute_uv=False)


def _sv_ref(x):
    return jnp_ref.linalg.svd(x, compute_uv=False)


def _sv_np(x):
    return np.linalg.svd(x, compute_uv=False)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5), (2, 3, 3), (1, 1), (5, 1), (6, 6)])
def test_singular_values_match_jax_and_numpy(shape):
    _check(_sv, _sv_ref, _sv_np, _rand(shape))


def test_singular_values_rank_deficient_and_zero():
    _check(_sv, _sv_ref, _sv_np, _rank_deficient())
    _check(_sv, _sv_ref, _sv_np, np.zeros((3, 2), F32))


def test_singular_values_of_ints_are_float():
    x = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    got = jnp.linalg.svd(x, compute_uv=False)
    assert got.dtype == np.float32
    # float32 singular values are accurate to eps * s_max: s_min here to 2e-6 relative (jax's,
    # from the same gesdd, to 1.5e-6)
    np.testing.assert_allclose(np.asarray(got), np.linalg.svd(x.astype(F64), compute_uv=False), rtol=5e-6)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3)])
def test_singular_values_float64(x64, shape):
    _check(_sv, _sv_ref, _sv_np, _rand(shape, F64))


def test_singular_values_float64_rank_deficient(x64):
    _check(_sv, _sv_ref, _sv_np, _rank_deficient(F64))


def test_svd_of_a_vector_raises():
    with pytest.raises(ValueError, match="dimension"):
        jnp.linalg.svd(np.ones((3,), F32), compute_uv=False)


NORM_CASES = [  # (shape, ord, axis, keepdims)
    ((3, 4), 2, None, False), ((3, 4), -2, None, False), ((3, 4), "nuc", None, False),
    ((4, 2), 2, None, True), ((2, 3, 4), -2, (0, 2), False), ((2, 3, 4), "nuc", (2, 1), True),
    ((2, 3, 4), 2, (-1, -2), False),
]


@pytest.mark.parametrize("shape,ord_,axis,keepdims", NORM_CASES, ids=[str(c) for c in NORM_CASES])
def test_norm_svd_ords(shape, ord_, axis, keepdims):
    _check(lambda x: jnp.linalg.norm(x, ord_, axis, keepdims),
           lambda x: jnp_ref.linalg.norm(x, ord_, axis, keepdims),
           lambda x: np.linalg.norm(x, ord_, axis, keepdims), _rand(shape))


def test_norm_svd_ords_float64(x64):
    x = _rand((3, 5), F64)
    for ord_ in (2, -2, "nuc"):
        _check(lambda x: jnp.linalg.norm(x, ord_), lambda x: jnp_ref.linalg.norm(x, ord_),
               lambda x: np.linalg.norm(x, ord_), x)
