"""The exponentially scaled modified Bessel functions of the first kind,
``bessel_i0e(x) = exp(-|x|) I0(x)`` and ``bessel_i1e(x) = exp(-|x|) I1(x)``, as JAX's.

Each is a composite primitive (composite_primitives.py) with JAX's derivatives:
``i0e' = i1e - sign(x) i0e`` and ``i1e' = i0e - i1e (sign(x) + 1/x)``, 1/2 at 0.

Up to |x| = 20 they sum the power series of I0 and I1, whose terms are all
positive, so nothing cancels:
``I0(x) = sum_k (x^2/4)^k / (k!)^2`` and ``I1(x) = x/2 sum_k (x^2/4)^k / (k! (k+1)!)``.
Past 20 they sum the asymptotic expansion
``I_v(x) e^-x ~ (2 pi x)^-1/2 sum_k prod_{j<=k} ((2j-1)^2 - 4v^2) / (8 j x)``,
whose smallest term there is below 1e-17. Half precisions compute in float32.

``i0`` and ``i1``, the unscaled ``exp(|x|) i0e(x)`` and ``exp(|x|) i1e(x)`` behind
jnp.i0 and jax.scipy.special.i0/i1, are custom_jvp functions with the true derivatives
``I0' = I1`` and ``I1' = I0 - I1 / x`` (1/2 at 0), the latter as
``exp(|x|) (i0e - i1e / x)`` so that it is +inf, not inf - inf, where I0 and I1 overflow.
Differentiating the product instead gives ``I0'(0) = 1`` (from |x|'s slope at 0) and NaN
at +-1e30 (inf * 0, where i0e' underflows).
"""

from __future__ import annotations

from math import factorial

import numpy as np

from numlir._src import ad, core
from numlir._src.custom_derivatives import custom_jvp
from numlir._src.lax import composite_primitives
from numlir._src.lax import elementwise as ew
from numlir._src.lax.elementwise import const

_SWITCH = 20.0
# Terms by itemsize: past them, a term at |x| = 20 is below the dtype's epsilon of the sum.
_SERIES_TERMS = {4: 28, 8: 40}
_ASYMPTOTIC_TERMS = {4: 8, 8: 30}


def _compute_dtype(dtype):
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype


def _power_series(z, order: int, terms: int):
    """``sum_k (z^2/4)^k / (k! (k+order)!)`` by Horner's rule from the last term."""
    q = ew.mul(ew.mul(z, z), const(z, 0.25))
    total = const(z, 1.0)
    for k in range(terms, 0, -1):
        total = ew.add(const(z, 1.0), ew.mul(ew.div(q, const(z, float(k * (k + order)))), total))
    return total


def _asymptotic(z, order: int, terms: int):
    """``(2 pi z)^-1/2 sum_k prod_j ((2j-1)^2 - 4 order^2) / (8 j z)`` for large z."""
    total = const(z, 1.0)
    for k in range(terms, 0, -1):
        factor = float((2 * k - 1) ** 2 - 4 * order * order) / (8.0 * k)
        total = ew.add(const(z, 1.0), ew.mul(ew.div(const(z, factor), z), total))
    return ew.mul(total, ew.rsqrt(ew.mul(z, const(z, 2 * np.pi))))


def _scaled_bessel(order: int):
    def impl(x):
        dtype = core.get_aval(x).dtype
        compute = _compute_dtype(dtype)
        x = ew.convert_element_type(x, compute)
        z = ew.abs(x)
        large = ew.gt(z, const(z, _SWITCH))
        small_z = ew.select(large, const(z, 1.0), z)
        series = ew.mul(
            ew.exp(ew.neg(small_z)), _power_series(small_z, order, _SERIES_TERMS[compute.itemsize])
        )
        if order == 1:
            series = ew.mul(series, ew.mul(small_z, const(z, 0.5)))
        large_z = ew.select(large, z, const(z, _SWITCH + 1))
        value = ew.select(
            large, _asymptotic(large_z, order, _ASYMPTOTIC_TERMS[compute.itemsize]), series
        )
        if order == 1:  # I1 is odd
            value = ew.select(ew.lt(x, const(x, 0.0)), ew.neg(value), value)
        # NaN stays NaN (the comparisons above chose the series branch for it).
        value = ew.select(ew.ne(x, x), x, value)
        return ew.convert_element_type(value, dtype)

    return impl


bessel_i0e_p = composite_primitives.unary("bessel_i0e", _scaled_bessel(0))
bessel_i1e_p = composite_primitives.unary("bessel_i1e", _scaled_bessel(1))


def bessel_i0e(x):
    """Elementwise ``exp(-|x|) I0(x)``, the scaled modified Bessel function of order 0."""
    return bessel_i0e_p.bind(x)


def bessel_i1e(x):
    """Elementwise ``exp(-|x|) I1(x)``, the scaled modified Bessel function of order 1."""
    return bessel_i1e_p.bind(x)


def _i0e_jvp(t, x):
    return ew.mul(t, ew.sub(bessel_i1e(x), ew.mul(ew.sign(x), bessel_i0e(x))))


def _i1e_jvp(t, x):
    # i0e - i1e (sign(x) + 1/x), whose limit at 0 is 1/2; near 0 x is kept off it.
    tiny = ew.le(ew.abs(x), const(x, np.finfo(_compute_dtype(core.get_aval(x).dtype)).eps))
    safe = ew.select(tiny, const(x, 1.0), x)
    slope = ew.sub(
        bessel_i0e(safe),
        ew.mul(bessel_i1e(safe), ew.add(ew.sign(safe), ew.div(const(x, 1.0), safe))),
    )
    return ew.mul(t, ew.select(tiny, const(x, 0.5), slope))


ad.defjvp(bessel_i0e_p, _i0e_jvp)
ad.defjvp(bessel_i1e_p, _i1e_jvp)


@custom_jvp
def i0(x):
    """``I0(x) = exp(|x|) i0e(x)``; its derivative is ``I1(x)``."""
    return ew.mul(ew.exp(ew.abs(x)), bessel_i0e(x))


@custom_jvp
def i1(x):
    """``I1(x) = exp(|x|) i1e(x)``; its derivative is ``I0(x) - I1(x) / x`` (1/2 at 0)."""
    return ew.mul(ew.exp(ew.abs(x)), bessel_i1e(x))


@i0.defjvp
def _i0_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return i0(x), ew.mul(t, i1(x))


def _i1_slope(x):
    """``I0(x) - I1(x) / x = exp(|x|) (i0e(x) - i1e(x) / x)``; below |x| = 2 its series
    ``sum_k (x^2/4)^k (2k + 1) / (2 (k + 1) (k!)^2) = 1/2 + 3 x^2 / 16 + ...``, whose terms
    are positive (13 of them: the last is below 1e-17 at 2), so that its own derivative,
    ``I1''(x) = 3x/8 + ...``, is right at and near 0 too, where differentiating ``i1e / x``
    would cancel."""
    small = ew.lt(ew.abs(x), const(x, 2.0))
    safe = ew.select(small, const(x, 1.0), x)
    scaled = ew.sub(bessel_i0e(safe), ew.div(bessel_i1e(safe), safe))
    large = ew.mul(ew.exp(ew.abs(safe)), scaled)
    q = ew.mul(ew.mul(x, x), const(x, 0.25))
    series = const(x, 0.0)
    for k in range(12, -1, -1):
        series = ew.add(const(x, (2 * k + 1) / (2 * (k + 1) * factorial(k) ** 2)), ew.mul(q, series))
    return ew.select(small, series, large)


@i1.defjvp
def _i1_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return i1(x), ew.mul(t, _i1_slope(x))
