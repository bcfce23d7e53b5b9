"""DLPack: sharing array memory with NumPy, JAX, PyTorch and the rest without copies.

numlir arrays are host buffers (NumPy arrays numlir never writes to again), so
both directions go through NumPy's DLPack implementation:

- **Import** (``jnp.from_dlpack``) aliases the producer's memory when it is
  C-contiguous and of a dtype numlir keeps; otherwise (strides, or float64
  without x64) it copies. The producer may still write to memory it shares.
- **Export** (``Array.__dlpack__``) hands out the buffer itself, marked
  read-only, to consumers of DLPack 1.0 (``max_version >= (1, 0)``: NumPy,
  recent PyTorch). The legacy protocol has no read-only flag, and a numlir
  array must never change, so legacy consumers (jax 0.10's ``from_dlpack``
  among them) receive a copy.
"""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes

#: DLPack's device type for host memory (kDLCPU) and its device id.
CPU_DEVICE = (1, 0)


def export(value: np.ndarray, *, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule of a numlir array's buffer ``value``."""
    if stream is not None:
        raise BufferError(f"numlir arrays live on the host: __dlpack__ takes stream=None, got "
                          f"{stream!r}")
    if dl_device is not None and tuple(dl_device) != CPU_DEVICE:
        raise BufferError(f"numlir arrays live on the host (DLPack device {CPU_DEVICE}), not on "
                          f"{tuple(dl_device)}")
    legacy = max_version is None or tuple(max_version)[0] < 1
    if legacy:
        if copy is False:
            raise BufferError("the legacy DLPack protocol cannot mark memory read-only, so a "
                              "numlir array exports a copy to it; copy=False forbids one")
        try:
            return np.array(value, copy=True).__dlpack__()
        except BufferError as error:
            raise BufferError(f"cannot export a {value.dtype} array by DLPack: {error}") from None
    try:
        return value.__dlpack__(max_version=max_version, copy=copy)
    except BufferError as error:
        raise BufferError(f"cannot export a {value.dtype} array by DLPack: {error}") from None


def from_dlpack(x, /, *, device=None, copy=None):
    """A numlir array of any object with ``__dlpack__`` (NumPy, JAX, PyTorch, CuPy on the
    host...), sharing its memory where the layout and dtype allow (``copy=None``), always
    copying (``copy=True``), or raising where it cannot share (``copy=False``)."""
    from numlir._src.array import Array

    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack needs an object with __dlpack__ (a DLPack producer), got "
                        f"{type(x).__name__}")
    if device is not None and getattr(device, "platform", device) != "cpu":
        raise ValueError(f"from_dlpack: numlir arrays live on the cpu device, got {device!r}")
    try:
        value = np.from_dlpack(x)
    except (BufferError, TypeError, RuntimeError) as error:
        raise TypeError(f"from_dlpack cannot import {type(x).__name__}: {error}") from None
    dtype = dtypes.canonicalize_dtype(value.dtype)
    needs_copy = dtype != value.dtype or not value.flags.c_contiguous
    if needs_copy and copy is False:
        why = (f"its dtype {value.dtype} becomes {dtype}" if dtype != value.dtype
               else "it is not C-contiguous")
        raise ValueError(f"from_dlpack: copy=False, but the array must be copied: {why}")
    if needs_copy or copy:
        value = np.array(value, dtype=dtype, order="C", copy=True)
    else:
        value = value.view()  # Array marks its own view read-only, not the producer's
    return Array(value, core.ShapedArray(value.shape, dtype))
