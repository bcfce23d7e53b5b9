"""lax.fft and numlir.numpy.fft against jax (and numpy in float64): every transform, numpy's
n/s cropping and padding, axes and norm, lengths that take each algorithm (direct,
four-step, Bluestein), eager, under jit and vmap, and derivatives (linear maps whose
transposes follow jax's conventions)."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax


def _signal(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if np.dtype(dtype).kind in "iu":
        x = rng.integers(-5, 5, shape)
    return x.astype(dtype)


def _close(got, want, tol):
    got, want = np.asarray(got), np.asarray(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), (got.dtype, want.dtype, got.shape,
                                                               want.shape)
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


def _tol(dtype):
    return 1e-12 if np.dtype(dtype) in (np.dtype(np.float64), np.dtype(np.complex128)) else 2e-5


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MULTI = ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]


def _input_dtype(name, dtype):
    if name in ("rfft", "ihfft", "rfft2", "rfftn"):
        return {np.complex64: np.float32, np.complex128: np.float64}.get(dtype, dtype)
    return dtype


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n", [None, 5, 12])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_one_dimensional_transforms_match_jax(name, n, norm):
    x = _signal((3, 8), _input_dtype(name, np.complex64))
    fn = lambda a: getattr(jnp.fft, name)(a, n=n, axis=0 if name == "fft" else -1, norm=norm)  # noqa: E731
    ref = lambda a: getattr(jnp_ref.fft, name)(a, n=n, axis=0 if name == "fft" else -1, norm=norm)  # noqa: E731
    want = ref(x)
    _close(fn(x), want, 2e-5)
    _close(numlir.jit(fn)(x), want, 2e-5)


@pytest.mark.parametrize("name", MULTI)
@pytest.mark.parametrize("s,axes", [(None, None), ((4, 6), None), ((3, 5), (0, 2)), (None, (-1, 0))])
def test_multidimensional_transforms_match_jax(name, s, axes):
    x = _signal((4, 3, 6), _input_dtype(name, np.complex64), seed=1)
    kwargs = {"s": s} if s is not None else {}
    if axes is not None:
        kwargs["axes"] = axes
    elif name.endswith("2"):
        kwargs["axes"] = (-2, -1)
    fn = lambda a: getattr(jnp.fft, name)(a, **kwargs)  # noqa: E731
    want = getattr(jnp_ref.fft, name)(x, **kwargs)
    _close(fn(x), want, 3e-5)
    _close(numlir.jit(fn)(x), want, 3e-5)


def test_fftn_over_four_and_five_axes():
    x = _signal((2, 3, 2, 4, 3), np.complex64, seed=2)
    for name in ("fftn", "ifftn", "irfftn"):
        _close(getattr(jnp.fft, name)(x), getattr(jnp_ref.fft, name)(x), 3e-5)
    r = _signal((2, 3, 2, 4), np.float32, seed=3)
    _close(jnp.fft.rfftn(r), jnp_ref.fft.rfftn(r), 3e-5)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex64])
def test_integer_and_real_inputs_promote_as_in_jax(dtype):
    x = _signal((6,), dtype, seed=4)
    _close(jnp.fft.fft(x), jnp_ref.fft.fft(x), 2e-5)
    if dtype != np.complex64:
        _close(jnp.fft.rfft(x), jnp_ref.fft.rfft(x), 2e-5)


# Lengths that take each path of the algorithm: direct (<= 64), four-step splits, a prime done
# directly (<= 256), Bluestein (a large prime, a product of two primes above 64).
@pytest.mark.parametrize("n", [1, 2, 7, 64, 100, 128, 251, 1024, 1031, 4757, 6000])
def test_lengths_for_every_algorithm_match_numpy_in_double_precision(n, x64):
    x = _signal((2, n), np.complex128, seed=n)
    got = numlir.jit(jnp.fft.fft)(x)
    want = np.fft.fft(x)
    err = np.max(np.abs(np.asarray(got) - want)) / np.max(np.abs(want))
    assert err < 1e-14 * max(1.0, np.log2(n)), err
    back = numlir.jit(jnp.fft.ifft)(got)
    np.testing.assert_allclose(np.asarray(back), x, atol=1e-12 * max(1.0, np.log2(n)))


@pytest.mark.parametrize("n", [31, 257, 1000])
def test_single_precision_error_grows_like_log_n(n):
    x = _signal((3, n), np.complex64, seed=5)
    want = np.fft.fft(x.astype(np.complex128))
    err = np.max(np.abs(np.asarray(jnp.fft.fft(x)) - want)) / np.max(np.abs(want))
    assert err < 3e-7 * np.log2(n), err


def test_exactly_real_results_have_exactly_zero_imaginary_parts():
    got = np.asarray(jnp.fft.fft(jnp.array([1.0, 0.0, -1.0, 0.0])))
    np.testing.assert_array_equal(got, np.array([0, 2, 0, 2], np.complex64))


@pytest.mark.parametrize("fft_type,lengths,dtype", [
    ("FFT", (8,), np.complex64), ("IFFT", (3, 8), np.complex64), ("RFFT", (3, 8), np.float32),
    ("IRFFT", (3, 8), np.complex64), ("IRFFT", (9,), np.complex64), ("FFT", (2, 3, 8), np.complex64)])
def test_lax_fft_values_vmap_and_gradients_match_jax(fft_type, lengths, dtype):
    shape = (2, 2, 3, 8) if fft_type != "IRFFT" else (2, 2, 3, lengths[-1] // 2 + 1)
    x = _signal(shape, dtype, seed=6)
    fn = lambda a: lax.fft(a, fft_type, lengths)  # noqa: E731
    ref = lambda a: jax.lax.fft(a, fft_type, lengths)  # noqa: E731
    _close(fn(x), ref(x), 3e-5)
    _close(numlir.vmap(fn)(x), jax.vmap(ref)(x), 3e-5)

    def loss(f, m):
        return lambda a: m.sum(m.abs(f(a)) ** 2 * 0.1 + m.real(f(a) * (0.5 - 0.25j)))

    _close(numlir.grad(loss(fn, jnp))(x), jax.grad(loss(ref, jnp_ref))(x), 3e-5)
    _close(numlir.jit(numlir.grad(loss(fn, jnp)))(x), jax.grad(loss(ref, jnp_ref))(x), 3e-5)
    t = _signal(shape, dtype, seed=7)
    _close(numlir.jvp(fn, (x,), (t,))[1], jax.jvp(ref, (x,), (t,))[1], 3e-5)


def test_gradients_of_numpy_transforms_with_norms_match_jax():
    x = _signal((4, 6), np.float32, seed=8)
    for name, norm in [("rfft", "ortho"), ("fft2", "forward"), ("ihfft", None), ("rfftn", None)]:
        fn = lambda a: jnp.sum(jnp.abs(getattr(jnp.fft, name)(a, norm=norm)))  # noqa: E731
        ref = lambda a: jnp_ref.sum(jnp_ref.abs(getattr(jnp_ref.fft, name)(a, norm=norm)))  # noqa: E731
        _close(numlir.grad(fn)(x), jax.grad(ref)(x), 3e-5)


def test_double_precision_gradient_matches_finite_differences(x64):
    x = _signal((7,), np.float64, seed=9)
    f = lambda a: jnp.sum(jnp.abs(jnp.fft.rfft(a * a)) ** 2)  # noqa: E731
    g = np.asarray(numlir.grad(f)(x))
    eps = 1e-6
    fd = [(float(f(x + eps * e)) - float(f(x - eps * e))) / (2 * eps) for e in np.eye(7)]
    np.testing.assert_allclose(g, fd, rtol=1e-6)


def test_bad_arguments_raise_as_jax():
    x = jnp.asarray(_signal((4, 6), np.complex64))
    with pytest.raises(ValueError, match="only real valued inputs supported for rfft"):
        lax.fft(x, "RFFT", (6,))
    with pytest.raises(TypeError, match="trailing dimensions are"):
        lax.fft(x, "FFT", (5,))
    with pytest.raises(ValueError, match="does not support multiple axes"):
        jnp.fft.fft(x, axis=(0, 1))
    with pytest.raises(ValueError, match="only supports 2 axes"):
        jnp.fft.fft2(x, axes=(0,))
    with pytest.raises(ValueError, match="Shape should be positive"):
        jnp.fft.fftn(x, s=(0, 2))
    with pytest.raises(ValueError, match="Invalid norm value"):
        jnp.fft.fft(x, norm="sideways")
    with pytest.raises(ValueError, match="repeated axes"):
        jnp.fft.fftn(x, axes=(1, 1))


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_hfft_of_a_one_point_spectrum_is_empty_as_jax(norm):
    # Its default length is (1 - 1) * 2 = 0; the norm's scale divided by it (fuzz seed 138,
    # program 374: ZeroDivisionError).
    x = np.ones((2, 1), np.complex64)
    got = np.asarray(jnp.fft.hfft(x, norm=norm))
    want = np.asarray(jax.numpy.fft.hfft(x, norm=norm))
    assert got.shape == want.shape == (2, 0)
    assert got.dtype == want.dtype
