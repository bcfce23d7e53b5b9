"""The transforms of ``jax.numpy.fft``: fft/ifft/rfft/irfft/hfft/ihfft in 1, 2 and n
dimensions, with numpy's ``n``/``s`` (crop or zero-pad), ``axes`` and ``norm`` arguments,
built on lax.fft (which takes up to three trailing axes at a time)."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

from numlir._src.lax import fft as lax_fft
from numlir._src.lax.fft import FftType
from numlir._src.numpy import creation, float_ops, joining, ufuncs
from numlir._src.numpy.linalg_ops import moveaxis
from numlir._src.numpy.util import check_arraylike

_NORMS = ("backward", "ortho", "forward")


def _norm_factor(sizes: Sequence[int], name: str, norm: str | None) -> float | None:
    """The scale numpy's ``norm`` puts on a transform whose lengths are ``sizes``."""
    if norm is None or norm == "backward":
        return None
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    size = math.prod(sizes)
    if size == 0:  # an empty result (hfft of one point has length 0): nothing to scale
        return None
    inverse = name.startswith("i")
    if norm == "ortho":
        return math.sqrt(size) if inverse else 1 / math.sqrt(size)
    return size if inverse else 1 / size


def _crop_or_pad(arr, sizes):
    """``arr`` cut or zero-padded at the end of each axis to ``sizes``."""
    arr = arr[tuple(slice(0, n) for n in sizes)]
    pads = [(0, n - d) for n, d in zip(sizes, arr.shape)]
    return joining.pad(arr, pads) if any(p for _, p in pads) else arr


def _transform_nd(arr, fft_type: FftType, sizes: Sequence[int]):
    """lax.fft over the trailing ``len(sizes)`` axes, three at a time (as jax)."""
    if len(sizes) <= 3:
        return lax_fft.fft(arr, fft_type, tuple(sizes))
    k = 2 if len(sizes) == 4 else 3
    lead = tuple(range(arr.ndim - len(sizes), arr.ndim - k))
    moved = tuple(range(arr.ndim - len(sizes) + k, arr.ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = lax_fft.fft(arr, fft_type, tuple(sizes)[-k:])
        arr = moveaxis(arr, lead, moved)
        arr = _transform_nd(arr, FftType.FFT, sizes[:-k])
        return moveaxis(arr, moved, lead)
    arr = moveaxis(arr, lead, moved)
    arr = _transform_nd(arr, FftType.IFFT, sizes[:-k])
    arr = moveaxis(arr, moved, lead)
    return lax_fft.fft(arr, fft_type, tuple(sizes)[-k:])


def _fft_core(name: str, fft_type: FftType, a, s, axes, norm):
    full_name = f"jax.numpy.fft.{name}"
    check_arraylike(full_name, a)
    arr = creation.asarray(a)
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if any(n <= 0 for n in s):
            raise ValueError("Shape should be positive.")
        if axes is not None and len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
    given_axes = axes
    if axes is None:
        axes = tuple(range(arr.ndim)) if s is None else tuple(range(arr.ndim - len(s), arr.ndim))
    axes = tuple(operator.index(ax) for ax in axes)
    if len({ax % arr.ndim if arr.ndim else ax for ax in axes}) != len(axes):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    if given_axes is not None:
        trailing = tuple(range(arr.ndim - len(axes), arr.ndim))
        arr = moveaxis(arr, axes, trailing)
        axes = trailing
    if s is not None:
        sizes = list(arr.shape)
        for axis, n in zip(axes, s):
            sizes[axis] = n
        if fft_type == FftType.IRFFT:
            sizes[-1] = sizes[-1] // 2 + 1
        arr = _crop_or_pad(arr, sizes)
        lengths = list(s)
    elif fft_type == FftType.IRFFT:
        lengths = [arr.shape[ax] for ax in axes[:-1]]
        if axes:
            lengths.append(max(0, 2 * (arr.shape[axes[-1]] - 1)))
    else:
        lengths = [arr.shape[ax] for ax in axes]
    out = _transform_nd(arr, fft_type, lengths) if lengths else arr
    factor = _norm_factor(lengths, name, norm)
    if factor is not None:
        out = ufuncs.multiply(out, creation.asarray(factor, dtype=out.dtype))
    if given_axes is not None:
        out = moveaxis(out, axes, given_axes)
    return out


def _one_axis(name: str, axis) -> list[int]:
    if isinstance(axis, (list, tuple)):
        raise ValueError(f"jax.numpy.fft.{name} does not support multiple axes. Please use "
                         f"jax.numpy.fft.{name}n. Got axis = {list(axis)}.")
    return [operator.index(axis)]


def _core_1d(name, fft_type, a, n, axis, norm):
    axes = _one_axis(name, axis)
    return _fft_core(name, fft_type, a, None if n is None else [n], axes, norm)


def _core_2d(name, fft_type, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{name} only supports 2 axes. Got axes = {axes}.")
    return _fft_core(name, fft_type, a, s, axes, norm)


def fft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The one-dimensional discrete Fourier transform along ``axis``."""
    return _core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The one-dimensional inverse discrete Fourier transform along ``axis``."""
    return _core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The transform of a real array: the ``n // 2 + 1`` non-negative frequencies."""
    return _core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The inverse of rfft: a real array of length ``n`` (default ``2 (m - 1)``)."""
    return _core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The transform of a Hermitian-symmetric signal given by its first half: real output."""
    conj_a = float_ops.conjugate(a)
    (axis,) = _one_axis("hfft", axis)
    length = (conj_a.shape[axis] - 1) * 2 if n is None else n
    out = _core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm)
    return ufuncs.multiply(out, creation.asarray(length, dtype=out.dtype))


def ihfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The inverse of hfft: the conjugate half spectrum of a real signal."""
    check_arraylike("jax.numpy.fft.ihfft", a)
    arr = creation.asarray(a)
    (axis,) = _one_axis("ihfft", axis)
    length = arr.shape[axis] if n is None else n
    out = _core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)
    return ufuncs.multiply(float_ops.conjugate(out), creation.asarray(1 / length, dtype=out.dtype))


def fft2(a, s=None, axes: Sequence[int] = (-2, -1), norm: str | None = None):
    """The two-dimensional discrete Fourier transform over ``axes``."""
    return _core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes: Sequence[int] = (-2, -1), norm: str | None = None):
    """The two-dimensional inverse discrete Fourier transform over ``axes``."""
    return _core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes: Sequence[int] = (-2, -1), norm: str | None = None):
    """The two-dimensional transform of a real array (half spectrum along the last axis)."""
    return _core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes: Sequence[int] = (-2, -1), norm: str | None = None):
    """The inverse of rfft2."""
    return _core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def fftn(a, s=None, axes=None, norm: str | None = None):
    """The n-dimensional discrete Fourier transform over ``axes`` (default: all)."""
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm: str | None = None):
    """The n-dimensional inverse discrete Fourier transform over ``axes``."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm: str | None = None):
    """The n-dimensional transform of a real array (half spectrum along the last axis)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm: str | None = None):
    """The inverse of rfftn."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)

