"""jax.numpy as the fuzzer's reference for numlir.numpy: jax's own functions, except float
floor division and remainder, which take the array API standard's special values where jax
keeps Python's divmod, and the sign of a float zero, which is +0 (numlir follows the
standard there: docs/array-api.md). Built from jax's functions, so values and derivatives
elsewhere are jax's own.

Programs spell these two as functions (``jnp.floor_divide``, ``jnp.remainder``) wherever
their operands are floats: ``//`` and ``%`` on jax arrays reach jax's functions directly."""

from __future__ import annotations

import jax.numpy as _jnp
from jax import lax as _lax


def __getattr__(name: str):
    return getattr(_jnp, name)


def _is_float(x) -> bool:
    return _jnp.issubdtype(_jnp.result_type(x), _jnp.floating)


def floor_divide(x1, x2, /):
    """floor(x1 / x2) where an operand is not finite or Python's quotient is 0."""
    python = _jnp.floor_divide(x1, x2)
    if not _is_float(python):
        return python
    by_standard = ~_jnp.isfinite(x1) | ~_jnp.isfinite(x2) | (python == 0)
    return _jnp.where(by_standard, _jnp.floor(_jnp.true_divide(x1, x2)).astype(python.dtype),
                      python)


def remainder(x1, x2, /):
    """A zero remainder takes the divisor's sign; its derivative stays jax's (a zero minus
    ``r - r``, as numlir's)."""
    r = _jnp.remainder(x1, x2)
    if not _is_float(r):
        return r
    signed_zero = _jnp.where(_jnp.asarray(x2) < 0, -0.0, 0.0).astype(r.dtype)
    return _jnp.where(r == 0, signed_zero - (_lax.stop_gradient(r) - r), r)


mod = remainder


def sign(x, /):
    """jax's sign, but +0 for a float zero of either sign (the standard's and NumPy's)."""
    s = _jnp.sign(x)
    return s + 0 if _is_float(s) else s


def divmod(x1, x2, /):  # noqa: A001 - numpy's name
    return floor_divide(x1, x2), remainder(x1, x2)
