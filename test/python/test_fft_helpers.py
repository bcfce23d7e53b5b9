"""jnp.fft's real-valued helpers (sample frequencies, shifts) against jax.numpy.fft."""

import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.1])
@pytest.mark.parametrize("dtype", [None, "float32", "bfloat16"])
def test_frequencies_match_jax(name, n, d, dtype):
    got = getattr(jnp.fft, name)(n, d, dtype=dtype)
    want = getattr(jjnp.fft, name)(n, d, dtype=dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-6)


def test_frequencies_take_a_traced_spacing_and_refuse_a_float_length():
    got = numlir.jit(lambda d: jnp.fft.fftfreq(6, d))(np.float32(0.5))
    np.testing.assert_allclose(np.asarray(got), np.asarray(jjnp.fft.fftfreq(6, 0.5)), rtol=1e-6)
    with pytest.raises(ValueError, match="only takes an int"):
        jnp.fft.rfftfreq(3.5)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [None, 0, (1,), (-1, 0)])
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_shifts_match_jax(name, axes, jit):
    x = np.arange(35, dtype=np.float32).reshape(5, 7)
    fn = getattr(jnp.fft, name)
    got = numlir.jit(lambda v: fn(v, axes))(x) if jit else fn(x, axes)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(getattr(jjnp.fft, name)(x, axes)))


def test_ifftshift_undoes_fftshift_for_odd_lengths():
    x = np.arange(15).reshape(3, 5)
    np.testing.assert_array_equal(np.asarray(jnp.fft.ifftshift(jnp.fft.fftshift(x))), x)
