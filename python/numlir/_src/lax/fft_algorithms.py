"""The discrete Fourier transform over the last axis, composed of real tensor ops.

A complex value travels as a pair of real arrays ``(re, im)`` (``im`` may be
``None`` for zero), so that every product is a real matrix product on
numlir's vectorized kernels and every twiddle a real elementwise op:

- lengths up to ``DIRECT_MAX``: one product with the DFT matrix;
- lengths with a factor ``n1`` of at most ``DIRECT_MAX``: Cooley-Tukey's
  four-step split ``n = n1 * n2`` (``n1`` DFTs of length ``n2``, twiddles,
  ``n2`` DFTs of length ``n1``), recursively, so a length of 2**20 costs five
  levels of 64-point (or smaller) products;
- other lengths (large primes and products of them): Bluestein's chirp,
  a circular convolution of a power-of-two length, done with the four-step
  transforms.

Every constant (DFT matrices, twiddles, chirps) is computed in float64 with exact
integer phases (``j * k mod n``) and rounded once to the working dtype, so the
error grows like ``log n`` ulps, as an FFT's does. docs/design-decisions.md says
why the transform is composed here instead of being one hlo op.
"""

from __future__ import annotations

import functools

import numpy as np

from numlir._src import core
from numlir._src.lax import dot as lax_dot
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops, slicing

DIRECT_MAX = 64
# Lengths without a factor up to DIRECT_MAX are still done directly up to this length: a
# Bluestein transform costs about three power-of-two transforms of twice the length.
DIRECT_PRIME_MAX = 4 * DIRECT_MAX


@functools.lru_cache(maxsize=256)
def _phases(rows: int, cols: int, n: int, sign: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of ``sign * 2 pi j k / n`` for j < rows, k < cols, in float64."""
    jk = np.outer(np.arange(rows, dtype=np.int64), np.arange(cols, dtype=np.int64)) % n
    angle = (sign * 2.0 * np.pi / n) * jk
    cos, sin = np.cos(angle), np.sin(angle)
    # Multiples of a quarter turn are exact: cos(pi / 2) is 6e-17 in floating point, which
    # would leave a spurious imaginary part on exactly real results.
    quarter = (4 * jk) % n == 0
    turns = (4 * jk // n) % 4
    cos[quarter] = np.array([1.0, 0.0, -1.0, 0.0])[turns[quarter]]
    sin[quarter] = sign * np.array([0.0, 1.0, 0.0, -1.0])[turns[quarter]]
    return cos, sin


def _const(value: np.ndarray, dtype, ndim: int | None = None) -> np.ndarray:
    """``value`` in ``dtype``, with leading unit axes up to ``ndim`` (lax's elementwise ops
    broadcast only size-1 axes of equal rank)."""
    value = np.asarray(value, dtype=dtype)
    return value if ndim is None else value.reshape((1,) * (ndim - value.ndim) + value.shape)


def _matmul_last(x, w):
    """``x`` (..., n) times the constant matrix ``w`` (n, m)."""
    nd = core.get_aval(x).ndim
    return lax_dot.dot_general(x, w, (((nd - 1,), (0,)), ((), ())))


def complex_product(re, im, cr, ci, product):
    """``(re + i im) (cr + i ci)`` with ``product`` the real bilinear map (``im`` may be
    None)."""
    if im is None:
        return product(re, cr), product(re, ci)
    return (ew.sub(product(re, cr), product(im, ci)),
            ew.add(product(re, ci), product(im, cr)))


def _direct(re, im, n: int, sign: int):
    cos, sin = _phases(n, n, n, sign)
    dtype = core.get_aval(re).dtype
    return complex_product(re, im, _const(cos, dtype), _const(sin, dtype), _matmul_last)


def _swap_last(x):
    nd = core.get_aval(x).ndim
    return shape_ops.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _largest_factor(n: int) -> int | None:
    for d in range(min(DIRECT_MAX, n // 2), 1, -1):
        if n % d == 0:
            return d
    return None


def _four_step(re, im, n1: int, n2: int, sign: int):
    """A length ``n1 * n2`` transform: input index ``n2 j1 + j2``, output ``k1 + n1 k2``."""
    batch = core.get_aval(re).shape[:-1]
    split = lambda x: None if x is None else _swap_last(shape_ops.reshape(x, (*batch, n1, n2)))  # noqa: E731
    re, im = dft(split(re), split(im), n1, sign)  # (..., j2, k1)
    cos, sin = _phases(n2, n1, n1 * n2, sign)
    dtype, nd = core.get_aval(re).dtype, core.get_aval(re).ndim
    re, im = complex_product(re, im, _const(cos, dtype, nd), _const(sin, dtype, nd), ew.mul)
    re, im = dft(_swap_last(re), _swap_last(im), n2, sign)  # (..., k1, k2)
    join = lambda x: shape_ops.reshape(_swap_last(x), (*batch, n1 * n2))  # noqa: E731
    return join(re), join(im)


@functools.lru_cache(maxsize=64)
def _bluestein_constants(n: int, m: int, sign: int):
    """The chirp ``w_j = exp(sign i pi j^2 / n)`` (j < n) and the length-``m`` forward
    transform of the circular sequence ``conj(w_|j|)``, both in float64."""
    j = np.arange(n, dtype=np.int64)
    angle = (sign * np.pi / n) * ((j * j) % (2 * n))
    chirp = np.cos(angle) + 1j * np.sin(angle)
    kernel = np.zeros(m, np.complex128)
    kernel[:n] = np.conj(chirp)
    kernel[m - n + 1:] = np.conj(chirp[1:])[::-1]
    return chirp, np.fft.fft(kernel)


def _bluestein(re, im, n: int, sign: int):
    """``X_k = w_k sum_j (x_j w_j) conj(w_(k-j))``: a convolution, done by length-``m``
    transforms (``m`` a power of two of at least ``2n - 1``)."""
    m = 1 << (2 * n - 2).bit_length()
    chirp, kernel = _bluestein_constants(n, m, sign)
    dtype, nd = core.get_aval(re).dtype, core.get_aval(re).ndim
    w_re, w_im = _const(chirp.real, dtype, nd), _const(chirp.imag, dtype, nd)
    re, im = complex_product(re, im, w_re, w_im, ew.mul)
    pad = [(0, 0, 0)] * (nd - 1) + [(0, m - n, 0)]
    zero = np.zeros((), dtype)
    re, im = slicing.pad(re, zero, pad), slicing.pad(im, zero, pad)
    re, im = dft(re, im, m, -1)
    re, im = complex_product(re, im, _const(kernel.real / m, dtype, nd),
                             _const(kernel.imag / m, dtype, nd), ew.mul)
    re, im = dft(re, im, m, 1)
    cut = lambda x: slicing.slice_in_dim(x, 0, n, axis=nd - 1)  # noqa: E731
    return complex_product(cut(re), cut(im), w_re, w_im, ew.mul)


def dft(re, im, n: int, sign: int):
    """The unnormalized transform ``X_k = sum_j x_j exp(sign 2 pi i j k / n)`` over the last
    axis (of length ``n``) of ``re + i im``; ``im`` None means zero. Returns ``(re, im)``."""
    if n == 1:
        return re, (ew.mul(re, ew.const(re, 0)) if im is None else im)
    if n <= DIRECT_MAX:
        return _direct(re, im, n, sign)
    n1 = _largest_factor(n)
    if n1 is not None:
        return _four_step(re, im, n1, n // n1, sign)
    if n <= DIRECT_PRIME_MAX:
        return _direct(re, im, n, sign)
    if im is None:
        im = ew.mul(re, ew.const(re, 0))
    return _bluestein(re, im, n, sign)
