"""lax.fft: the discrete Fourier transforms over the trailing 1 to 3 axes, as jax.lax.fft.

``fft_p`` is one primitive with jax's shape rules and derivative conventions (its
transposes are linear maps, not adjoints). It lowers to a call of the runtime's FFT
library where the backend has one (the CPU), and otherwise by inlining the
real-arithmetic composite of fft_algorithms.py.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence

import numpy as np

from numlir._src import ad, batching, core, dtypes
from numlir._src import transpose as tr
from numlir._src.lax import complex_ops, fft_algorithms, shape_ops, slicing
from numlir._src.lax import elementwise as ew


class FftType(enum.IntEnum):
    """Describes which FFT operation to perform."""

    FFT = 0
    "Forward complex-to-complex FFT."

    IFFT = 1
    "Inverse complex-to-complex FFT."

    RFFT = 2
    "Forward real-to-complex FFT."

    IRFFT = 3
    "Inverse real-to-complex FFT."


fft_p = core.Primitive("fft")


def _check_trailing(name: str, shape, expected, fft_type) -> None:
    trailing = tuple(shape[len(shape) - len(expected):])
    if len(shape) < len(expected) or trailing != tuple(expected):
        raise core.shape_error(
            f"{name}: {fft_type.name} with fft_lengths {tuple(expected)} needs an operand whose "
            f"trailing dimensions are {tuple(expected)}, got shape {tuple(shape)}")


@fft_p.def_abstract_eval
def _fft_abstract_eval(x, *, fft_type, fft_lengths):
    name = "lax.fft"
    if not 1 <= len(fft_lengths) <= 3:
        raise core.value_error(f"{name}: fft_lengths must name 1 to 3 dimensions, got {fft_lengths}")
    if any(n < 0 for n in fft_lengths):
        raise core.value_error(f"{name}: fft_lengths must not be negative, got {fft_lengths}")
    if fft_type == FftType.RFFT:
        if x.dtype not in (dtypes.float32, dtypes.float64):
            raise core.shape_error(f"{name}: RFFT needs a float32 or float64 operand, got "
                                   f"{x.dtype.name}")
        _check_trailing(name, x.shape, fft_lengths, fft_type)
        shape = (*x.shape[:-1], fft_lengths[-1] // 2 + 1)
        return core.ShapedArray(shape, dtypes.complex_dtype_of(x.dtype), False)
    if not dtypes.is_complex(x.dtype):
        raise core.shape_error(f"{name}: {fft_type.name} needs a complex operand, got "
                               f"{x.dtype.name}")
    if fft_type == FftType.IRFFT:
        _check_trailing(name, x.shape, (*fft_lengths[:-1], fft_lengths[-1] // 2 + 1), fft_type)
        shape = (*x.shape[:-1], fft_lengths[-1])
        return core.ShapedArray(shape, dtypes.complex_part_dtype(x.dtype), False)
    _check_trailing(name, x.shape, fft_lengths, fft_type)
    return x.strip_weak_type()


# --- The composite -----------------------------------------------------------------------------


def _along(axis: int, fn, re, im):
    """``fn(re, im)`` over ``axis`` instead of the last one."""
    nd = core.get_aval(re).ndim
    if axis == nd - 1:
        return fn(re, im)
    perm = [*range(axis), *range(axis + 1, nd), axis]
    back = [perm.index(i) for i in range(nd)]
    move = lambda x: None if x is None else shape_ops.transpose(x, perm)  # noqa: E731
    re, im = fn(move(re), move(im))
    return shape_ops.transpose(re, back), shape_ops.transpose(im, back)


def _transform(re, im, axes: Sequence[int], lengths: Sequence[int], sign: int):
    for axis, n in zip(axes, lengths):
        re, im = _along(axis, lambda r, i, n=n: fft_algorithms.dft(r, i, n, sign), re, im)
    return re, im


def _scaled(re, im, lengths):
    scale = 1.0 / math.prod(lengths) if math.prod(lengths) else 1.0
    return ew.mul(re, ew.const(re, scale)), ew.mul(im, ew.const(im, scale))


def _hermitian_extension(re, im, n: int):
    """The full length-``n`` spectrum whose first ``n // 2 + 1`` entries are given:
    ``X[n - k] = conj(X[k])``."""
    nd = core.get_aval(re).ndim
    tail = n - (n // 2 + 1)
    if tail == 0:
        return re, im
    mirror = lambda x: slicing.rev(slicing.slice_in_dim(x, 1, tail + 1, axis=nd - 1), (nd - 1,))  # noqa: E731
    return (slicing.concatenate([re, mirror(re)], nd - 1),
            slicing.concatenate([im, ew.neg(mirror(im))], nd - 1))


def _fft_impl(x, fft_type: FftType, fft_lengths: tuple[int, ...]):
    nd = core.get_aval(x).ndim
    axes = list(range(nd - len(fft_lengths), nd))
    if fft_type == FftType.RFFT:
        re, im = _transform(x, None, axes[-1:], fft_lengths[-1:], -1)
        half = fft_lengths[-1] // 2 + 1
        re, im = (slicing.slice_in_dim(v, 0, half, axis=nd - 1) for v in (re, im))
        re, im = _transform(re, im, axes[:-1], fft_lengths[:-1], -1)
        return complex_ops.complex(re, im)
    re, im = complex_ops.real(x), complex_ops.imag(x)
    if fft_type == FftType.FFT:
        return complex_ops.complex(*_transform(re, im, axes, fft_lengths, -1))
    re, im = _transform(re, im, axes[:-1], fft_lengths[:-1], 1)
    if fft_type == FftType.IFFT:
        re, im = _transform(re, im, axes[-1:], fft_lengths[-1:], 1)
        return complex_ops.complex(*_scaled(re, im, fft_lengths))
    re, im = _hermitian_extension(re, im, fft_lengths[-1])  # IRFFT
    re, im = _transform(re, im, axes[-1:], fft_lengths[-1:], 1)
    return _scaled(re, im, fft_lengths)[0]


def _empty_result(ctx):
    out = ctx.avals_out[0]
    zero = np.zeros((), out.dtype)
    return ctx.emit(f"hlo.broadcast_in_dim {ctx.constant(zero)}, dims = [] : "
                    f"tensor<{dtypes.mlir_element_type(out.dtype)}> -> {ctx.type_out()}")


@fft_p.def_lowering
def _fft_lowering(ctx, x, *, fft_type, fft_lengths):
    if any(a.size == 0 for a in (*ctx.avals_in, *ctx.avals_out)):
        return _empty_result(ctx)
    if ctx.has_library("numlir.fft"):  # the runtime's FFT library (CPU)
        return ctx.custom_call("numlir.fft", [x], [int(fft_type), *fft_lengths])
    closed = core.trace_to_graph(lambda u: [_fft_impl(u, fft_type, fft_lengths)],
                                 [ctx.avals_in[0].strip_weak_type()])
    return ctx.inline(closed, [x])[0]


# --- Derivatives and batching --------------------------------------------------------------------


def _naive_rfft(x, fft_lengths):
    """RFFT as an FFT of the real input, cut to the half spectrum: what RFFT's transpose is
    the transpose of."""
    y = fft_p.bind(ew.convert_element_type(x, dtypes.complex_dtype_of(core.get_aval(x).dtype)),
                   fft_type=FftType.FFT, fft_lengths=fft_lengths)
    nd = core.get_aval(y).ndim
    return slicing.slice_in_dim(y, 0, fft_lengths[-1] // 2 + 1, axis=nd - 1)


def _irfft_transpose(ct, fft_lengths):
    # As jax: RFFT of the cotangent, the entries that IRFFT uses twice doubled, scaled, and
    # conjugated (jax's convention for complex gradients).
    x = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
    aval = core.get_aval(x)
    n = aval.shape[-1]
    odd = fft_lengths[-1] % 2
    mask = np.concatenate([[1.0], np.full(n - 2 + odd, 2.0), np.ones(1 - odd)])[:n]
    mask = (mask / math.prod(fft_lengths)).astype(dtypes.complex_part_dtype(aval.dtype))
    out = ew.mul(x, ew.convert_element_type(mask.reshape((1,) * (aval.ndim - 1) + (n,)), aval.dtype))
    return complex_ops.conj(out)


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
    if fft_type == FftType.RFFT:
        aval = x.aval.strip_weak_type()
        return tr.linear_transpose_fn(lambda v: _naive_rfft(v, fft_lengths), [aval])(ct)
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(ct, fft_lengths)]
    return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]


ad.deflinear(fft_p, _fft_transpose)


def _fft_batch_rule(axis_size, args, dims, *, fft_type, fft_lengths):
    x = batching.bdim_to_front(args[0], dims[0], axis_size)
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths), 0


batching.defrule(fft_p, _fft_batch_rule)


def fft(x, fft_type: FftType | str, fft_lengths: Sequence[int]):
    """The FFT of ``x`` over its trailing ``len(fft_lengths)`` (1 to 3) axes, as
    ``jax.lax.fft``: ``FFT``/``IFFT`` complex to complex (IFFT divides by the size), ``RFFT``
    real to the half spectrum (last axis ``n // 2 + 1``), ``IRFFT`` back."""
    if isinstance(fft_type, str):
        try:
            fft_type = FftType[fft_type.upper()]
        except KeyError:
            raise core.value_error(f"lax.fft: unknown fft_type {fft_type!r}; one of "
                                   f"{[t.name for t in FftType]}") from None
    fft_type = FftType(fft_type)
    lengths = tuple(int(n) for n in fft_lengths)
    dtype = core.get_aval(x).dtype
    if fft_type == FftType.RFFT:  # as jax: integers become floats, the others complex
        if dtypes.is_complex(dtype):
            raise core.value_error("lax.fft: only real valued inputs supported for rfft")
        x = ew.convert_element_type(x, dtypes.to_inexact_dtype(dtype))
    else:
        x = ew.convert_element_type(x, dtypes.complex_dtype_of(dtype))
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=lengths)
