"""The spherical harmonics of jax.scipy.special, ``sph_harm_y(n, m, theta, phi)``:
``Y_n^m(theta, phi) = N_n^m P_n^m(cos theta) e^(i m phi)`` with theta the polar angle (the
colatitude) and phi the azimuth, orthonormal on the sphere, with the Condon-Shortley phase
(as SciPy's ``sph_harm_y``).

The normalized associated Legendre function ``Q_l^m = N_l^m P_l^m`` comes from the
recurrences jax uses: ``Q_0^0 = 1 / (2 sqrt(pi))``, the diagonal
``Q_m^m = -sqrt(1 + 1/(2m)) sin(theta) Q_(m-1)^(m-1)`` and, in the degree,
``Q_l^m = a x Q_(l-1)^m - b Q_(l-2)^m`` (x = cos theta, ``a = sqrt((4l^2 - 1) / (l^2 - m^2))``,
``b = sqrt((2l + 1) ((l-1)^2 - m^2) / ((2l - 3) (l^2 - m^2)))``). jax fills the table of
every ``l, m <= n_max`` at every point; here each element runs its own recurrence up to
``n_max`` (a scan of n_max steps, so reverse mode differentiates it), which is the same
arithmetic at ``O(n_max)`` rather than ``O(n_max^3)`` cost per point. Negative orders use
``Y_n^-m = (-1)^m conj(Y_n^m)``.

jax's conventions, kept here:

- ``n`` and ``m`` must be integer arrays, ``n`` of rank >= 1, and ``n_max`` a concrete
  integer (by default ``max(n)``, so ``n`` must then be concrete: under jit, pass
  ``n_max``). jax reads its ``(n_max + 1)``-square table with NumPy's negative indices
  and clipping, so the degree used is ``n`` (``n + n_max + 1`` if negative) clipped to
  ``[0, n_max]``, and the order ``|m|`` clipped likewise: ``n > n_max`` gives degree
  ``n_max``, and ``n < |m| <= n_max`` gives 0, as SciPy, but ``|m| > n_max`` gives the
  order-``n_max`` function (SciPy: 0). The phase ``e^(i m phi)`` uses m unclipped.
- ``theta`` is 1-D (a scalar counts as one point) and pairs with ``n`` along the last axis:
  the element in column j uses ``theta[min(j, len(theta) - 1)]``; ``m``, ``n`` and that
  column index broadcast together, and ``phi`` broadcasts with the result.
- The parts compute in the promotion of theta's float dtype and ``|m| phi``'s; jax refuses
  (TypeError) a half precision for ``|m| phi`` or for that promotion, and so does this.
  A float16 theta with a float32 ``|m| phi`` computes in float32 here (in float16 in
  jax's Legendre table).
- The result is complex128 with x64 on and complex64 otherwise, whatever the angles'
  dtypes, unless m is weakly typed (a Python int): jax multiplies by ``(-1.0) ** |m|``,
  a float of the default width that is weak only then.
- NaN theta gives NaN once n_max >= 2 (jax's recurrence turns its whole table NaN at
  such a point); below that, ``Y_0^0`` stays ``1 / (2 sqrt(pi))`` there, as in jax.
- Errors are jax's exception types, except TypeError for a boolean n or m (jax:
  NonConcreteBooleanIndexError) and IndexError for any negative n_max (jax: TypeError
  below -1).

Where this differs from jax, it is in accuracy only: ``sin(theta)`` is taken as
``|sin theta|`` rather than jax's ``sqrt(1 - cos^2 theta)``, the same values for every
theta, without the cancellation that makes jax's zero in float32 within 3e-4 of the
poles (where cos theta rounds to 1), where SciPy's are not. The derivative in theta at
exactly theta = 0 or pi is therefore the one-sided one from inside [0, pi] (jax's is NaN
there).
"""

from __future__ import annotations

import operator

import numpy as np

from numlir._src import core, dtypes
from numlir._src.array import as_array
from numlir._src.lax import complex_ops
from numlir._src.lax import elementwise as ew
from numlir._src.lax.scan import fori_loop
from numlir._src.numpy import creation, reshaping, ufuncs
from numlir._src.numpy.util import check_arraylike, dtype_of
from numlir._src.source_info import with_location

_Q00 = float(0.5 / np.sqrt(np.pi))  # Q_0^0 = Y_0^0, a Python float so it stays weak


def _check_indices(n, m) -> None:
    for name, v in (("n", n), ("m", m)):
        if not dtypes.is_int(dtype_of(v)):
            raise TypeError(with_location(
                f"sph_harm_y: {name} must be an integer array (it indexes the table of Legendre "
                f"functions, as in jax), got dtype {dtype_of(v)}"))
    if n.ndim == 0:
        raise TypeError(with_location("sph_harm_y: n must have at least one dimension (jax takes len(n)), "
                                      "got a scalar"))


def _static_n_max(n, n_max) -> int:
    """``n_max`` as a Python int: as given, or ``max(n)`` where n is concrete."""
    if n_max is None:
        if isinstance(n, core.Tracer):
            raise core.ConcretizationTypeError(with_location(
                "The `n_max` argument of `sph_harm_y` must be statically specified to use "
                "`sph_harm_y` within numlir transformations: n is traced, so max(n) is not known"))
        if n.size == 0:
            raise ValueError(with_location("sph_harm_y: n is empty, so n_max = max(n) is undefined; pass n_max"))
        n_max = np.max(core.concrete_to_numpy(n))
    if isinstance(n_max, core.Tracer):
        raise core.ConcretizationTypeError(with_location(
            "The `n_max` argument of `sph_harm_y` must be statically specified to use `sph_harm_y` within "
            "numlir transformations"))
    n_max = int(n_max) if isinstance(n_max, (float, np.floating)) else operator.index(n_max)
    if n_max < 0:
        raise IndexError(with_location(f"sph_harm_y: n_max must be >= 0, got {n_max}"))
    return n_max


def _points(theta, count: int):
    """The polar angle each of ``count`` columns uses: column j takes point
    ``min(j, len(theta) - 1)`` (jax's clipped gather)."""
    if theta.ndim == 0:
        theta = reshaping.reshape(theta, (1,))
    if theta.ndim != 1:
        raise ValueError(with_location(f"sph_harm_y: theta must be a scalar or 1-D, got shape {theta.shape}"))
    if count and theta.shape[0] == 0:
        raise TypeError(with_location("sph_harm_y: theta is empty"))
    if theta.shape[0] == count:
        return theta
    return theta[np.minimum(np.arange(count), max(theta.shape[0] - 1, 0))]


def _table_index(index, n_max: int):
    """The row or column of jax's ``(n_max + 1)``-square table that ``index`` reads: negative
    indices count from the end, as NumPy's, and the result is clipped into the table."""
    index = ufuncs.where(index < 0, index + (n_max + 1), index)
    return ufuncs.clip(index, 0, n_max)


def _result_dtypes(theta, angle, m_weak: bool) -> tuple[np.dtype, np.dtype]:
    """(the real dtype the harmonic's parts are computed in, the complex result dtype)."""
    legendre = dtypes.to_inexact_dtype(dtype_of(theta))
    phase = dtypes.to_inexact_dtype(dtype_of(angle))
    part, _ = dtypes.result_type((legendre, False), (phase, angle.weak_type))
    # jax builds e^(i |m| phi) and then the result with lax.complex, which takes float32 and
    # float64 parts only
    for what, dtype in (("|m| * phi", phase), ("theta and |m| * phi", part)):
        if dtype not in (np.float32, np.float64):
            raise TypeError(with_location(
                f"sph_harm_y: {what} {'is' if what[0] == '|' else 'promote to'} {dtype}, but the harmonic's "
                "parts must be float32 or float64 (as in jax, whose lax.complex refuses other dtypes)"))
    # jax's (-1.0) ** |m| is a float of the default width, weak only where m is
    sign, _ = dtypes.result_type((part, False), (dtypes.default_float_dtype(), m_weak))
    return np.dtype(part), dtypes.complex_dtype_of(sign)


def _recurrence_coefficients(l, order):
    """``(a, b)`` of ``Q_l^m = a x Q_(l-1)^m - b Q_(l-2)^m``, zero where ``l <= m`` (the
    denominators are kept away from 0 there, so no NaN reaches the derivatives)."""
    above = l > order
    spread = ufuncs.where(above, l * l - order * order, 1.0)
    a = ufuncs.where(above, ufuncs.sqrt((4 * l * l - 1) / spread), 0.0)
    two_above = l >= order + 2
    b_num = ufuncs.where(two_above, (2 * l + 1) * ((l - 1) * (l - 1) - order * order), 0.0)
    b_den = ufuncs.where(two_above, (2 * l - 3) * spread, 1.0)
    return a, ufuncs.sqrt(b_num / b_den)


def _normalized_legendre(degree, order, x, s, n_max: int):
    """``Q_degree^order(x)`` with ``s = sqrt(1 - x^2)``, for integer ``0 <= degree, order <=
    n_max`` (0 where ``degree < order``). Step l of the scan extends the diagonal to
    ``Q_l^l`` and moves ``(Q_(l-2)^m, Q_(l-1)^m)`` on to ``(Q_(l-1)^m, Q_l^m)``; each element
    stops once l passes its degree."""
    dtype = dtype_of(x)
    degree, order = degree.astype(dtype), order.astype(dtype)
    zero = creation.zeros_like(x)
    diagonal = zero + _Q00
    newer = ufuncs.where(order == 0, diagonal, zero)

    def step(l, state):
        diagonal, older, newer = state
        l = l.astype(dtype)
        on_diagonal = l <= order
        diagonal = ufuncs.where(on_diagonal, -ufuncs.sqrt(1 + 0.5 / l) * s * diagonal, diagonal)
        a, b = _recurrence_coefficients(l, order)
        advanced = a * x * newer - b * older
        at_order = l == order
        next_older = ufuncs.where(at_order, zero, ufuncs.where(l > order, newer, older))
        next_newer = ufuncs.where(at_order, diagonal, ufuncs.where(l > order, advanced, newer))
        running = l <= degree
        return diagonal, ufuncs.where(running, next_older, older), ufuncs.where(running, next_newer, newer)

    return fori_loop(1, n_max + 1, step, (diagonal, zero, newer))[2]


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonic ``Y_n^m(theta, phi)`` of degree ``n`` and order ``m`` at polar
    angle ``theta`` (in [0, pi]) and azimuth ``phi``, as jax's: ``n`` an integer array
    (rank >= 1) and ``n_max`` its largest value, which must be given under jit; ``diff_n``
    is not supported. The module docstring has jax's conventions for shapes, dtypes and
    out-of-range degrees and orders.

    Example::

        >>> numlir.scipy.special.sph_harm_y(jnp.array([1]), jnp.array([1]), 0.5, 0.3)
        Array([-0.15824072-0.04894959j], dtype=complex64)
    """
    if diff_n is not None:
        raise NotImplementedError("The 'diff_n' argument to numlir.scipy.special.sph_harm_y is not supported.")
    check_arraylike("sph_harm_y", n, m, theta, phi)
    n, m, theta, phi = (as_array(v) for v in (n, m, theta, phi))
    _check_indices(n, m)
    n_max = _static_n_max(n, n_max)
    count = n.shape[0]
    theta = _points(theta, count)
    shape = np.broadcast_shapes(m.shape, n.shape, (count,))  # ValueError if they do not broadcast
    abs_m = ufuncs.abs(m)
    angle = abs_m * phi
    part, out = _result_dtypes(theta, angle, m.weak_type)

    theta = ew.convert_element_type(theta, part, weak_type=False)
    x, s = ufuncs.cos(theta), ufuncs.abs(ufuncs.sin(theta))
    x, s = reshaping.broadcast_to(x, shape), reshaping.broadcast_to(s, shape)
    degree = reshaping.broadcast_to(_table_index(n, n_max), shape)
    order = reshaping.broadcast_to(_table_index(abs_m, n_max), shape)
    legendre = _normalized_legendre(degree, order, x, s, n_max)
    if n_max >= 2:  # jax's recurrence turns its whole table NaN at a NaN point from degree 2 on
        legendre = ufuncs.where(ufuncs.isnan(x), np.nan, legendre)

    angle = ew.convert_element_type(angle, part, weak_type=False)
    real, imag = legendre * ufuncs.cos(angle), legendre * ufuncs.sin(angle)
    # Y_n^-m = (-1)^m conj(Y_n^m)
    odd = (abs_m % 2) == 1
    negative = m < 0
    real = ufuncs.where(negative & odd, -real, real)
    imag = ufuncs.where(negative & ~odd, -imag, imag)
    return ew.convert_element_type(complex_ops.complex(real, imag), out)
