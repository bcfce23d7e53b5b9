"""numlir.nn.initializers against jax.nn.initializers: same key, same values."""

import jax
import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.lax
from numlir.nn import initializers as init

BF16 = np.dtype(ml_dtypes.bfloat16)


def _check(got, want, dtype=np.float32):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = 1e-2 if np.dtype(dtype) == BF16 else 2e-6
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)


def _both(name, *args, **kwargs):
    return getattr(init, name)(*args, **kwargs), getattr(jax.nn.initializers, name)(*args, **kwargs)


@pytest.mark.parametrize("name", ["zeros", "ones"])
def test_zeros_and_ones(name):
    for dtype in (None, np.float16):
        got = getattr(init, name)(numlir.random.PRNGKey(0), (2, 3), dtype)
        want = getattr(jax.nn.initializers, name)(jax.random.PRNGKey(0), (2, 3), dtype)
        _check(got, want)


def test_constant():
    ours, theirs = _both("constant", 0.25)
    _check(ours(numlir.random.PRNGKey(0), (3,)), theirs(jax.random.PRNGKey(0), (3,)))
    ours, theirs = _both("constant", 3, np.float16)
    _check(ours(numlir.random.PRNGKey(0), (2, 2)), theirs(jax.random.PRNGKey(0), (2, 2)))


def test_uniform_scale_and_dtype():
    ours, theirs = _both("uniform", 0.5)
    _check(ours(numlir.random.PRNGKey(1), (4, 5)), theirs(jax.random.PRNGKey(1), (4, 5)))
    _check(ours(numlir.random.PRNGKey(1), (3,), BF16), theirs(jax.random.PRNGKey(1), (3,), BF16), BF16)


@pytest.mark.parametrize("name", ["glorot_uniform", "xavier_uniform", "he_uniform", "kaiming_uniform",
                                  "lecun_uniform"])
def test_uniform_presets(name):
    ours, theirs = _both(name)
    _check(ours(numlir.random.PRNGKey(2), (16, 8)), theirs(jax.random.PRNGKey(2), (16, 8)))


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg", "fan_geo_avg"])
def test_variance_scaling_uniform_modes_and_axes(mode):
    kwargs = dict(in_axis=0, out_axis=(1, 2))
    ours, theirs = _both("variance_scaling", 1.5, mode, "uniform", **kwargs)
    _check(ours(numlir.random.PRNGKey(3), (3, 4, 5)), theirs(jax.random.PRNGKey(3), (3, 4, 5)))


def test_variance_scaling_conv_kernel_and_batch_axis():
    ours, theirs = _both("variance_scaling", 2.0, "fan_in", "uniform")
    _check(ours(numlir.random.PRNGKey(4), (3, 3, 4, 8)), theirs(jax.random.PRNGKey(4), (3, 3, 4, 8)))
    ours, theirs = _both("variance_scaling", 1.0, "fan_avg", "uniform", batch_axis=0)
    _check(ours(numlir.random.PRNGKey(4), (2, 6, 7)), theirs(jax.random.PRNGKey(4), (2, 6, 7)))


def test_variance_scaling_errors():
    with pytest.raises(ValueError, match="at least 2D"):
        init.glorot_uniform()(numlir.random.PRNGKey(0), (5,))
    with pytest.raises(ValueError, match="invalid mode"):
        init.variance_scaling(1.0, "fan_sideways", "uniform")(numlir.random.PRNGKey(0), (2, 2))
    with pytest.raises(ValueError, match="invalid distribution"):
        init.variance_scaling(1.0, "fan_in", "cauchy")


def test_initializer_under_jit():
    f = numlir.jit(lambda k: init.he_uniform()(k, (6, 4)))
    _check(f(numlir.random.PRNGKey(5)), jax.nn.initializers.he_uniform()(jax.random.PRNGKey(5), (6, 4)))


def test_normal_and_variance_scaling_normal():
    ours, theirs = _both("normal", 0.02)
    _check(ours(numlir.random.PRNGKey(6), (8, 3)), theirs(jax.random.PRNGKey(6), (8, 3)))
    ours, theirs = _both("variance_scaling", 1.0, "fan_in", "normal")
    _check(ours(numlir.random.PRNGKey(6), (8, 3)), theirs(jax.random.PRNGKey(6), (8, 3)))


@pytest.mark.parametrize("name", ["glorot_normal", "he_normal", "lecun_normal", "xavier_normal",
                                  "kaiming_normal"])
def test_truncated_normal_presets(name):
    ours, theirs = _both(name)
    _check(ours(numlir.random.PRNGKey(7), (16, 8)), theirs(jax.random.PRNGKey(7), (16, 8)))


def test_truncated_normal_initializer():
    ours, theirs = _both("truncated_normal", 0.02, lower=-1.0, upper=3.0)
    _check(ours(numlir.random.PRNGKey(8), (50,)), theirs(jax.random.PRNGKey(8), (50,)))
