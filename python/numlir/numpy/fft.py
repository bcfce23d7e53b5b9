"""numlir.numpy.fft: ``jax.numpy.fft``'s sample frequencies and shifts.

The transforms (fft, rfft, ...) come with complex numbers (issue 12); these helpers are
real-valued and work now::

    >>> import numlir.numpy as jnp
    >>> jnp.fft.fftfreq(4)
    Array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float32)
"""

from numlir._src.numpy.fft_helpers import fftfreq, fftshift, ifftshift, rfftfreq

__all__ = ["fftfreq", "fftshift", "ifftshift", "rfftfreq"]
