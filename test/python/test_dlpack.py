"""DLPack both ways: jnp.from_dlpack of NumPy, JAX and PyTorch arrays, Array.__dlpack__ to
them, and where memory is shared, copied or refused."""

import jax.numpy as jnp_ref
import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp


def address(a) -> int:
    return np.asarray(a).__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.bool_, np.int16])
def test_a_numpy_array_is_imported_without_a_copy(dtype):
    a = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    x = jnp.from_dlpack(a)
    assert isinstance(x, numlir.Array) and x.dtype == dtype and x.shape == (3, 4)
    assert np.shares_memory(x._value, a)
    np.testing.assert_array_equal(np.asarray(numlir.jit(lambda v: v + v)(x)), a + a)
    assert a.flags.writeable  # the producer's own view is left as it was


def test_a_jax_array_is_imported_without_a_copy():
    j = jnp_ref.arange(6.0, dtype=jnp_ref.float32)
    x = jnp.from_dlpack(j)
    assert address(x._value) == j.unsafe_buffer_pointer()
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0))


def test_a_numlir_array_goes_to_numpy_shared_and_read_only():
    x = jnp.arange(5.0) * 2
    y = np.from_dlpack(x)
    assert np.shares_memory(y, x._value) and not y.flags.writeable
    np.testing.assert_array_equal(y, np.arange(5.0) * 2)
    assert x.__dlpack_device__() == (1, 0)


def test_a_legacy_consumer_gets_a_copy_it_cannot_use_to_change_the_array():
    x = jnp.arange(4.0)
    j = jnp_ref.from_dlpack(x)  # jax 0.10 asks without max_version
    np.testing.assert_array_equal(np.asarray(j), np.arange(4.0))
    with pytest.raises(BufferError, match="copy=False forbids one"):
        x.__dlpack__(copy=False)


def test_copies_where_the_layout_or_dtype_needs_one():
    strided = np.arange(12.0, dtype=np.float32).reshape(3, 4)[:, ::2]
    x = jnp.from_dlpack(strided)
    assert not np.shares_memory(x._value, strided) and x._value.flags.c_contiguous
    np.testing.assert_array_equal(np.asarray(x), strided)
    wide = np.arange(3.0)  # float64 without x64 becomes float32
    assert jnp.from_dlpack(wide).dtype == np.float32
    with pytest.raises(ValueError, match="copy=False, but the array must be copied: its dtype float64"):
        jnp.from_dlpack(wide, copy=False)
    with pytest.raises(ValueError, match="not C-contiguous"):
        jnp.from_dlpack(strided, copy=False)
    assert not np.shares_memory(jnp.from_dlpack(strided.copy(), copy=True)._value, strided)


def test_float64_is_shared_with_x64(x64):
    a = np.arange(3.0)
    assert np.shares_memory(jnp.from_dlpack(a)._value, a)


def test_bad_producers_and_requests_are_clear_errors():
    with pytest.raises(TypeError, match="needs an object with __dlpack__"):
        jnp.from_dlpack([1.0, 2.0])
    with pytest.raises(BufferError, match="cannot export a bfloat16 array"):
        np.from_dlpack(jnp.ones(2, ml_dtypes.bfloat16))
    with pytest.raises(BufferError, match="stream=None"):
        jnp.ones(2).__dlpack__(stream=1)
    with pytest.raises(BufferError, match="not on"):
        jnp.ones(2).__dlpack__(max_version=(1, 0), dl_device=(2, 0))


def test_pytorch_both_ways():
    torch = pytest.importorskip("torch")  # installed by make bench, not by make test
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    x = jnp.from_dlpack(t)
    assert address(x._value) == t.data_ptr()
    back = torch.from_dlpack(jnp.tanh(x))
    np.testing.assert_allclose(back.numpy(), np.tanh(t.numpy()), rtol=1e-6)
