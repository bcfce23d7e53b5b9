"""The real-valued helpers of ``jax.numpy.fft``: sample frequencies and the shifts that
put the zero frequency in the middle. """

from __future__ import annotations

import operator

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import type_checks as tc
from numlir._src.numpy import creation, joining, ufuncs


def _length(name: str, n) -> int:
    try:
        return operator.index(n)
    except TypeError:
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. "
                         f"Got n = {n!r}.") from None


def _frequencies(name, n, d, dtype, positive_only: bool):
    n = _length(name, n)
    dtype = dtypes.default_float_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if positive_only:
        k = np.arange(n // 2 + 1)
    else:
        k = np.concatenate([np.arange((n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return ufuncs.true_divide(creation.asarray(k, dtype=dtype), ufuncs.multiply(d, n))


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The frequencies of an ``n``-point FFT with sample spacing ``d``: ``[0, 1, ..., -1] / (d n)``."""
    del device  # one device
    return _frequencies("fftfreq", n, d, dtype, positive_only=False)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The frequencies of an ``n``-point real FFT: ``[0, 1, ..., n // 2] / (d n)``."""
    del device
    return _frequencies("rfftfreq", n, d, dtype, positive_only=True)


def _shift(name, x, axes, inverse: bool):
    shape = core.get_aval(x).shape
    axes = tuple(range(len(shape))) if axes is None else tc.canonical_axes(name, axes, len(shape))
    shifts = [-(shape[a] // 2) if inverse else shape[a] // 2 for a in axes]
    return joining.roll(x, shifts, axes)


def fftshift(x, axes=None):
    """``x`` rolled so that the zero frequency is in the middle of each of ``axes`` (all by default)."""
    return _shift("fftshift", creation.asarray(x), axes, inverse=False)


def ifftshift(x, axes=None):
    """The inverse of ``fftshift`` (they differ for odd lengths)."""
    return _shift("ifftshift", creation.asarray(x), axes, inverse=True)
