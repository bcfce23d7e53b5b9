"""numlir.lax.scaled_dot against jax.lax.scaled_dot (whose CPU decomposition runs),
with float8 operands and power-of-two float8_e8m0fnu scales as jax's example uses."""

import jax
import ml_dtypes
import numpy as np
import pytest

import numlir
from numlir import lax

F32, BF16 = np.float32, ml_dtypes.bfloat16


def _operands(rng, lhs_shape, rhs_shape, lhs_scale_shape, rhs_scale_shape):
    f8 = lambda s: rng.standard_normal(s).astype(ml_dtypes.float8_e4m3fn)
    e8m0 = lambda s: np.exp2(rng.integers(-4, 5, s)).astype(F32).astype(ml_dtypes.float8_e8m0fnu)
    return f8(lhs_shape), f8(rhs_shape), e8m0(lhs_scale_shape), e8m0(rhs_scale_shape)


CASES = [
    # shapes of lhs, rhs, lhs_scale, rhs_scale; dimension_numbers (None: the default)
    ((2, 4, 64), (2, 64, 3), (2, 4, 2), (2, 2, 3), None),
    ((5, 32), (32, 6), (5, 16), (2, 6), None),
    ((32, 5), (6, 32), (4, 5), (6, 16), (((0,), (1,)), ((), ()))),
]


@pytest.mark.parametrize("out_dtype", [F32, BF16], ids=["f32", "bf16"])
@pytest.mark.parametrize("case", CASES, ids=[str(c[:2]) for c in CASES])
def test_scaled_dot_is_jaxs(case, out_dtype):
    *shapes, dims = case
    lhs, rhs, ls, rs = _operands(np.random.default_rng(0), *shapes)
    kwargs = {"dimension_numbers": dims, "preferred_element_type": out_dtype}
    want = np.asarray(jax.lax.scaled_dot(lhs, rhs, lhs_scale=ls, rhs_scale=rs, **kwargs), F32)

    def fn(a, b, s, t):
        return lax.scaled_dot(a, b, lhs_scale=s, rhs_scale=t, **kwargs)

    eager = fn(lhs, rhs, ls, rs)  # the float8 NumPy arrays themselves
    jitted = numlir.jit(fn)(lhs.astype(F32), rhs.astype(F32), ls.astype(F32), rs.astype(F32))
    # float32 results are exact terms summed in another order; bfloat16 ones round again.
    tol = 1e-5 if out_dtype == F32 else 1e-2
    for got in (eager, jitted):
        assert got.dtype == out_dtype and got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got, F32), want, rtol=tol, atol=tol * np.abs(want).max())


def test_scaled_dot_without_scales_and_by_default_gives_bfloat16():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 8)).astype(F32), rng.standard_normal((8, 2)).astype(F32)
    got = lax.scaled_dot(a, b)
    want = jax.lax.scaled_dot(a, b)
    assert got.dtype == want.dtype == BF16
    np.testing.assert_allclose(np.asarray(got, F32), np.asarray(want, F32), rtol=2e-2, atol=2e-2)


def test_scaled_dot_under_vmap_maps_each_example():
    lhs, rhs, ls, rs = _operands(np.random.default_rng(2), (3, 4, 32), (3, 32, 5), (3, 4, 8), (3, 8, 5))
    fn = lambda a, b, s, t: lax.scaled_dot(a, b, lhs_scale=s, rhs_scale=t, preferred_element_type=F32)
    args = [x.astype(F32) for x in (lhs, rhs, ls, rs)]
    got = numlir.jit(numlir.vmap(fn))(*args)
    want = jax.vmap(lambda a, b, s, t: jax.lax.scaled_dot(
        a, b, lhs_scale=s, rhs_scale=t, preferred_element_type=F32))(lhs, rhs, ls, rs)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-4)


def test_scaled_dot_rejects_scales_of_the_wrong_shape():
    a, b = np.ones((4, 32), F32), np.ones((32, 3), F32)
    with pytest.raises(TypeError, match="divisible by its scale's dim size 5"):
        lax.scaled_dot(a, b, lhs_scale=np.ones((4, 5), F32))
    with pytest.raises(TypeError, match="must be at least 2"):
        lax.scaled_dot(a, b, lhs_scale=np.ones((4, 32), F32))
    with pytest.raises(TypeError, match="does not match scale dim size 2"):
        lax.scaled_dot(a, b, lhs_scale=np.ones((2, 16), F32))
    with pytest.raises(TypeError, match="0-rank and 1-rank"):
        lax.scaled_dot(np.ones(32, F32), np.ones(32, F32))
