"""numlir.numpy.fft: ``jax.numpy.fft``: the discrete Fourier transforms, sample
frequencies and shifts.

    >>> import numlir.numpy as jnp
    >>> jnp.fft.fft(jnp.array([1.0, 0.0, -1.0, 0.0]))
    Array([0.+0.j, 2.+0.j, 0.+0.j, 2.+0.j], dtype=complex64)
"""

from numlir._src.numpy.fft_helpers import fftfreq, fftshift, ifftshift, rfftfreq
from numlir._src.numpy.fft_transforms import (fft, fft2, fftn, hfft, ifft, ifft2, ifftn, ihfft,
                                              irfft, irfft2, irfftn, rfft, rfft2, rfftn)

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]
