"""jax.scipy.special on numlir: the logistic pair, x*log(y) forms, entropies, gamma-family
functions (with the incomplete gamma and beta functions, comb and the Bernoulli numbers),
erf/erfc/erfcx and ndtr, the modified Bessel functions i0/i1 (and their scaled forms), the
Box-Cox transforms, softmax and logsumexp. The integrals (exponential, sine/cosine,
Fresnel, Dawson, Owen's T), Spence's function, bessel_jn and the hypergeometric functions
live in the special_*.py modules next to this one.

erfc and erfcx are accurate in the tail, where ``1 - erf(x)`` cancels: both use
lax/special.py's continued fraction of erfcx there.
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

from numlir._src import ad, core, dtypes
from numlir._src.custom_derivatives import custom_jvp
from numlir._src.lax import bessel as lax_bessel
from numlir._src.lax import incomplete_beta, incomplete_gamma
from numlir._src.lax import special as lax_special
from numlir._src.lax.elementwise import convert_element_type, logistic, stop_gradient
from numlir._src.nn.functions import log_softmax as _nn_log_softmax
from numlir._src.nn.functions import logsumexp as _logsumexp
from numlir._src.nn.functions import softmax as _nn_softmax
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.numpy.logic import signbit
from numlir._src.numpy.util import dtype_of, promote_arrays_inexact
from numlir._src.scipy import special_elementwise as se


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    (x,) = promote_arrays_inexact("expit", x)
    return logistic(x)


@custom_jvp
def logit(x):
    """``log(x / (1 - x))``, the inverse of expit. Its derivative is jax's
    ``1 / (x (1 - x))`` (+inf at 0 and 1)."""
    (x,) = promote_arrays_inexact("logit", x)
    return ufuncs.log(x / (1 - x))


logit.defjvps(lambda t, ans, x: t / (x * (1 - x)))


def _full(x, value):
    """``value`` as a scalar of ``x``'s dtype, weak where ``x`` is (as jnp.zeros_like)."""
    return convert_element_type(value, dtype_of(x), weak_type=core.get_aval(x).weak_type)


def _zero(x):
    return _full(x, 0.0)


@custom_jvp
def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` unless ``y`` is NaN. Its derivative is jax's
    ``(log(y), x / y)`` everywhere, x = 0 included."""
    x, y = promote_arrays_inexact("xlogy", x, y)
    keep = ufuncs.not_equal(x, 0) | ufuncs.isnan(y)
    return ufuncs.where(keep, x * ufuncs.log(y), _zero(x))


@xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (dx, dy) = primals, tangents
    out = xlogy(x, y)
    return out, (dx * ufuncs.log(y) + dy * x / y).astype(dtype_of(out))


@custom_jvp
def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0`` unless ``y`` is NaN; its derivative is jax's
    ``(log1p(y), x / (1 + y))``."""
    x, y = promote_arrays_inexact("xlog1py", x, y)
    keep = ufuncs.not_equal(x, 0) | ufuncs.isnan(y)
    return ufuncs.where(keep, x * ufuncs.log1p(y), _zero(x))


@xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (dx, dy) = primals, tangents
    out = xlog1py(x, y)
    return out, (dx * ufuncs.log1p(y) + dy * x / (1 + y)).astype(dtype_of(out))


@custom_jvp
def _xlogx(x):
    """``x log x`` (0 at 0) with the derivative ``log x + 1`` (-inf at 0), as jax's."""
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _xlogx(x), t * (ufuncs.log(x) + 1)


def entr(x):
    """``-x log x`` for ``x >= 0`` (0 at 0, NaN at NaN), -inf for negative ``x``. As jax's,
    its derivative is ``-(log x + 1)`` (+inf at 0)."""
    (x,) = promote_arrays_inexact("entr", x)
    return ufuncs.where(x < 0, _full(x, -np.inf), -_xlogx(x))


def rel_entr(p, q):
    """``p log(p / q)`` for positive p, q; 0 for p = 0 <= q; inf otherwise (as jax's,
    ``xlogx(p) - xlogy(p, q)`` where both are positive)."""
    p, q = promote_arrays_inexact("rel_entr", p, q)
    both = (p > 0) & (q > 0)
    one_zero = ufuncs.equal(p, 0) & (q >= 0)
    safe_p = ufuncs.where(both, p, _full(p, 1.0))
    safe_q = ufuncs.where(both, q, _full(q, 1.0))
    value = _xlogx(safe_p) - xlogy(safe_p, safe_q)
    return ufuncs.where(both, value, ufuncs.where(one_zero, _zero(p), _full(p, np.inf)))


def kl_div(p, q):
    """``p log(p / q) - p + q`` for positive p, q; ``q`` for p = 0 <= q; inf otherwise
    (``rel_entr(p, q) - p + q``, as jax's)."""
    p, q = promote_arrays_inexact("kl_div", p, q)
    return rel_entr(p, q) - p + q


def gammaln(x):
    """``log |Gamma(x)|``."""
    (x,) = promote_arrays_inexact("gammaln", x)
    return lax_special.lgamma(x)


def loggamma(x):
    """The principal branch of ``log Gamma(x)``: for real x, lgamma for x > 0 and NaN at and
    below 0 (as jax's and SciPy's)."""
    (x,) = promote_arrays_inexact("loggamma", x)
    return ufuncs.where(x > 0, lax_special.lgamma(x), _full(x, np.nan))


def gammasgn(x):
    """The sign of ``Gamma(x)``: 1 for x >= +0, -1 at -0, alternating between the negative
    integers (NaN at the negative integers and at NaN)."""
    (x,) = promote_arrays_inexact("gammasgn", x)
    floor = ufuncs.floor(x)
    negative_sign = ufuncs.where(ufuncs.equal(ufuncs.remainder(floor, 2), 0), 1.0, -1.0).astype(dtype_of(x))
    pole = (x < 0) & ufuncs.equal(x, floor)
    sign = ufuncs.where(x >= 0, creation.ones((), dtype_of(x)), negative_sign)
    sign = ufuncs.where(ufuncs.equal(x, 0) & signbit(x), -sign, sign)  # Gamma(-0) = -inf
    return ufuncs.where(pole | ufuncs.isnan(x), np.asarray(np.nan, dtype_of(x)), sign)


def gamma(x):
    """The gamma function, ``gammasgn(x) * exp(gammaln(x))``."""
    (x,) = promote_arrays_inexact("gamma", x)
    return gammasgn(x) * ufuncs.exp(lax_special.lgamma(x))


def betaln(a, b):
    """``log |B(a, b)|``, the log of the absolute beta function. With ``lo <= hi`` the two
    arguments, ``lgamma(lo) + lgamma(hi) - lgamma(lo + hi)`` below ``hi = 8`` (as jax's), and
    above it ``lgamma(lo) + log(Gamma(hi) / Gamma(lo + hi))``, the ratio from the difference
    of Stirling's series, where the two lgammas would cancel (B(1.5, 1e30) ~ 1e30^-1.5, not
    1). Branches left unselected see harmless arguments, so they add no NaN to gradients."""
    a, b = promote_arrays_inexact("betaln", a, b)
    lo, hi = ufuncs.minimum(a, b), ufuncs.maximum(a, b)
    large = (hi >= _STIRLING_FROM) & (lo + hi >= _STIRLING_FROM)
    small_lo, small_hi = ufuncs.where(large, 1.0, lo), ufuncs.where(large, 1.0, hi)
    small = lax_special.lgamma(small_hi) - lax_special.lgamma(small_lo + small_hi)
    ratio = _log_gamma_ratio(ufuncs.where(large, lo, 1.0), ufuncs.where(large, hi, _STIRLING_FROM))
    return lax_special.lgamma(lo) + ufuncs.where(large, ratio, small)


_STIRLING_FROM = 8.0
# Stirling's series of lgamma, sum_k B_2k / (2k (2k - 1)) z^(1 - 2k), and digamma's,
# sum_k B_2k / (2k) z^-2k, to k = 8: the first term left out is below 1e-16 at z = 8.
_LGAMMA_SERIES = [float(b / (2 * k * (2 * k - 1))) for k, b in enumerate(lax_special._bernoulli_even(8), 1)]
_DIGAMMA_SERIES = [float(b / (2 * k)) for k, b in enumerate(lax_special._bernoulli_even(8), 1)]


def _series_in_inverse_square(z, coefficients):
    """``sum_k coefficients[k-1] z^-2k``."""
    w = 1 / (z * z)
    total = 0.0 * z
    for c in reversed(coefficients):
        total = w * (c + total)
    return total


@custom_jvp
def _log_gamma_ratio(a, b):
    """``log(Gamma(b) / Gamma(a + b))`` for ``b, a + b >= 8``: the difference of Stirling's
    series, ``-(b - 1/2) log1p(a / b) - a (log(a + b) - 1) + S(b) - S(a + b)``."""
    c = a + b
    tail_b = _series_in_inverse_square(b, _LGAMMA_SERIES) * b
    tail_c = _series_in_inverse_square(c, _LGAMMA_SERIES) * c
    return -(b - 0.5) * ufuncs.log1p(a / b) - a * (ufuncs.log(c) - 1) + (tail_b - tail_c)


def _digamma_drop(b, a):
    """``digamma(b) - digamma(a + b)`` for ``b, a + b >= 8``, from digamma's asymptotic
    series, without the cancellation of the two (-1.5e-30 at b = 1e30, a = 1.5)."""
    c = a + b
    return (-ufuncs.log1p(a / b) - (a / c) / (2 * b)
            - (_series_in_inverse_square(b, _DIGAMMA_SERIES) - _series_in_inverse_square(c, _DIGAMMA_SERIES)))


@_log_gamma_ratio.defjvp
def _log_gamma_ratio_jvp(primals, tangents):
    (a, b), (da, db) = primals, tangents
    return _log_gamma_ratio(a, b), da * -lax_special.digamma(a + b) + db * _digamma_drop(b, a)


def beta(a, b):
    """The beta function ``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``."""
    a, b = promote_arrays_inexact("beta", a, b)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * ufuncs.exp(betaln(a, b))


def gammainc(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    a, x = promote_arrays_inexact("gammainc", a, x)
    a, x = (reshaping.broadcast_to(v, np.broadcast_shapes(a.shape, x.shape)) for v in (a, x))
    return incomplete_gamma.igamma(a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    a, x = promote_arrays_inexact("gammaincc", a, x)
    a, x = (reshaping.broadcast_to(v, np.broadcast_shapes(a.shape, x.shape)) for v in (a, x))
    return incomplete_gamma.igammac(a, x)


def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b)``."""
    a, b, x = promote_arrays_inexact("betainc", a, b, x)
    shape = np.broadcast_shapes(a.shape, b.shape, x.shape)
    return incomplete_beta.betainc(*(reshaping.broadcast_to(v, shape) for v in (a, b, x)))


def digamma(x):
    (x,) = promote_arrays_inexact("digamma", x)
    return lax_special.digamma(x)


def polygamma(n, x):
    n, x = promote_arrays_inexact("polygamma", n, x)
    return lax_special.polygamma(n, x)


def zeta(x, q=None):
    """The Hurwitz zeta function (``q`` is required, as in jax)."""
    if q is None:
        raise NotImplementedError("zeta(x) without q (the Riemann zeta) is not supported; pass q=1.0")
    x, q = promote_arrays_inexact("zeta", x, q)
    return lax_special.zeta(x, q)


def multigammaln(a, d: int):
    """The log of the multivariate gamma function of dimension ``d``."""
    (a,) = promote_arrays_inexact("multigammaln", a)
    d = int(d)
    total = np.asarray(d * (d - 1) / 4 * np.log(np.pi), dtype_of(a))
    for j in range(d):
        total = total + lax_special.lgamma(a - np.asarray(j / 2, dtype_of(a)))
    return total


def factorial(n, exact: bool = False):
    """``Gamma(n + 1)`` (0 for negative n); ``exact=True`` is not supported, as in jax."""
    if exact:
        raise NotImplementedError("factorial with exact=True is not supported")
    (n,) = promote_arrays_inexact("factorial", n)
    return ufuncs.where(n < 0, _zero(n), ufuncs.exp(lax_special.lgamma(n + 1)))


def comb(N, k, *, repetition: bool = False):
    """The binomial coefficient ``N! / (k! (N - k)!)`` as a float (0 for N < 0, k < 0 or
    k > N); with ``repetition``, ``comb(N + k - 1, k)``. As jax's, from gammaln, except
    that integral N and k give the integer nearest it (the gradient is gammaln's).

    Example::

        >>> numlir.scipy.special.comb(5.0, 2.0)
        Array(10., dtype=float32, weak_type=True)
    """
    N, k = promote_arrays_inexact("comb", N, k)
    if repetition:
        return ufuncs.where(ufuncs.equal(k, 0) & (N >= 0), 1.0, comb(N + k - 1, k, repetition=False))
    valid = (k <= N) & (N >= 0) & (k >= 0)
    safe_n = ufuncs.where(valid, N, 0.0)
    safe_k = ufuncs.where(valid, k, 0.0)
    value = ufuncs.exp(lax_special.lgamma(safe_n + 1) - lax_special.lgamma(safe_k + 1)
                       - lax_special.lgamma(safe_n + 1 - safe_k))
    whole = ufuncs.equal(safe_n, ufuncs.floor(safe_n)) & ufuncs.equal(safe_k, ufuncs.floor(safe_k))
    exact = whole & (value < 2.0 ** np.finfo(dtype_of(value)).nmant)
    value = value + stop_gradient(ufuncs.where(exact, ufuncs.round(value) - value, 0.0))
    return ufuncs.where(valid, value, 0.0)


@functools.cache
def _bernoulli_table(n: int) -> tuple[float, ...]:
    """B_0 .. B_n as float64 (B_1 = -1/2), exact to rounding; the even ones past B_258,
    whose magnitudes pass float64's largest, are infinities of their signs."""
    finite = min(n, 258) // 2
    evens = [float(b) for b in lax_special._bernoulli_even(finite)]
    table = [1.0, -0.5][: n + 1]
    for j in range(2, n + 1):
        if j % 2:
            table.append(0.0)
        else:
            table.append(evens[j // 2 - 1] if j // 2 <= finite else (np.inf if j % 4 == 2 else -np.inf))
    return tuple(table)


def bernoulli(n: int):
    """The Bernoulli numbers ``B_0 .. B_n`` (with ``B_1 = -1/2``), in the default float dtype.
    ``n`` must be a concrete integer, as in jax.

    Example::

        >>> numlir.scipy.special.bernoulli(4)
        Array([ 1.        , -0.5       ,  0.16666667,  0.        , -0.03333334], dtype=float32)
    """
    n = operator.index(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    return creation.asarray(np.asarray(_bernoulli_table(n)), dtype=dtypes.default_float_dtype())


def boxcox(x, lmbda):
    """The Box-Cox transform ``(x^lmbda - 1) / lmbda``, ``log(x)`` at ``lmbda = 0`` (NaN for
    x < 0), computed as ``expm1(lmbda log x) / lmbda``.

    Example::

        >>> numlir.scipy.special.boxcox(2.0, 0.5)
        Array(0.8284271, dtype=float32, weak_type=True)
    """
    x, lmbda = promote_arrays_inexact("boxcox", x, lmbda)
    return _boxcox(ufuncs.log(x), lmbda)


def boxcox1p(x, lmbda):
    """The Box-Cox transform of ``1 + x``: ``((1 + x)^lmbda - 1) / lmbda``, ``log1p(x)`` at
    ``lmbda = 0``.

    Example::

        >>> numlir.scipy.special.boxcox1p(1.0, 0.5)
        Array(0.8284271, dtype=float32, weak_type=True)
    """
    x, lmbda = promote_arrays_inexact("boxcox1p", x, lmbda)
    return _boxcox(ufuncs.log1p(x), lmbda)


def _boxcox(log_x, lmbda):
    """``expm1(lmbda log x) / lmbda``; where ``z = lmbda log x`` is small (|z| < 0.1, log x
    finite), ``log x`` times the series of ``expm1(z) / z``, so that it is smooth in lmbda
    through 0: its lmbda-derivatives there are ``log(x)^2 / 2``, ``log(x)^3 / 3``, ..., where
    ``expm1(z) / lmbda`` cancels to rounding noise and jax's branch at 0 gives 0."""
    zero = ufuncs.equal(lmbda, 0)
    safe = ufuncs.where(zero, 1.0, lmbda)
    direct = ufuncs.where(zero, log_x, ufuncs.expm1(safe * log_x) / safe)
    finite = ufuncs.isfinite(log_x)
    safe_log = ufuncs.where(finite, log_x, 0.0)
    z = lmbda * safe_log
    small = finite & (ufuncs.abs(z) < 0.1)
    zs = ufuncs.where(small, z, 0.0)
    series = 0.0 * zs
    for c in reversed(_EXPREL_TERMS):
        series = c + zs * series
    return ufuncs.where(small, safe_log * series, direct)


# expm1(z) / z = sum_k z^k / (k + 1)!: 13 terms, the next below 1e-17 of the sum at |z| = 0.1.
_EXPREL_TERMS = [1 / math.factorial(k + 1) for k in range(13)]


def poch(z, m):
    """The rising factorial ``Gamma(z + m) / Gamma(z)`` (1 where ``m == 0``, as jax's), from
    the difference of lgammas, or for ``z, z + m >= 8`` from Stirling's series of the log of
    the ratio, where that difference cancels (poch(1e30, 1.5) ~ 1e45, not 1). Its derivatives
    are jax's: ``(digamma(z + m) - digamma(z)) poch`` in z and ``digamma(z + m) poch`` in m."""
    z, m = promote_arrays_inexact("poch", z, m)
    return _poch(z, m)


@custom_jvp
def _poch(z, m):
    large = (z >= _STIRLING_FROM) & (z + m >= _STIRLING_FROM)
    log_ratio = ufuncs.where(
        large, -_log_gamma_ratio(ufuncs.where(large, m, 1.0), ufuncs.where(large, z, _STIRLING_FROM)),
        lax_special.lgamma(z + m) - lax_special.lgamma(z))
    value = gammasgn(z + m) * gammasgn(z) * ufuncs.exp(log_ratio)
    return ufuncs.where(ufuncs.equal(m, 0), _full(value, 1.0), value)


def _poch_z_tangent(t, out, z, m):
    large = (z >= _STIRLING_FROM) & (z + m >= _STIRLING_FROM)
    drop = _digamma_drop(ufuncs.where(large, z, _STIRLING_FROM), ufuncs.where(large, m, 1.0))
    rise = ufuncs.where(large, -drop, lax_special.digamma(z + m) - lax_special.digamma(z))
    # Near z = 0 (z + m away from 0), poch = z h with h = poch(z + 1, m - 1), and its
    # derivative h + z h', whose
    # own derivative has no -1/z^2 against 1/z^2 to cancel (as (digamma(z + m) -
    # digamma(z)) poch's does: 0 or 1e15 instead of 1.09 for poch''(1e-30, 1.5)).
    near_zero = (ufuncs.abs(z) < 0.5) & (ufuncs.abs(z + m) >= 0.5)  # h smooth there
    zs, ms = ufuncs.where(near_zero, z, 0.25), ufuncs.where(near_zero, m, 1.5)
    h = _poch(zs + 1, ms - 1)
    small = h + zs * h * (lax_special.digamma(zs + ms) - lax_special.digamma(zs + 1))
    return t * ufuncs.where(near_zero, small, rise * out)


_poch.defjvps(_poch_z_tangent, lambda t, out, z, m: t * (lax_special.digamma(z + m) * out))


def erf(x):
    (x,) = promote_arrays_inexact("erf", x)
    return lax_special.erf(x)


def erfinv(x):
    (x,) = promote_arrays_inexact("erfinv", x)
    return lax_special.erf_inv(x)


def erfc(x):
    """``1 - erf(x)``, accurate where it is tiny (lax.erfc)."""
    (x,) = promote_arrays_inexact("erfc", x)
    return lax_special.erfc(x)


def erfcx(x):
    """The scaled complementary error function ``exp(x^2) erfc(x)``. Its derivatives are
    jax's ``erfcx' = 2x erfcx - 2/sqrt(pi)`` and those that follow from it, evaluated
    without that difference's cancellation (see ``_erfcx_impl``)."""
    return se.apply(_erfcx_derivative_p(0), "erfcx", x)


_SQRT_PI_INV = float(1 / np.sqrt(np.pi))  # a Python float: weak next to float32


def _erfcx_impl(order: int, x):
    """The ``order``-th derivative of erfcx. Below the tail (lax/special.py's
    ``erfcx_tail_start``) from ``E = exp(x^2) (1 - erf(x))``, ``E' = 2x E - 2/sqrt(pi)`` and
    ``E^(k+1) = 2x E^(k) + 2k E^(k-1)``, where nothing cancels much (x < 2). In the tail from
    the continued fraction ``E = (1/sqrt(pi)) / (x + t_1)``, ``t_k = (k/2) / (x + t_(k+1))``:
    that recurrence becomes ``E^(n) = (-2)^n t_1 ... t_n E``, a product, so the derivatives
    keep their relative precision however large x is (``2x E - 2/sqrt(pi)`` cancels to
    rounding noise: jax's erfcx'(1e30) is -8e-8 in float32, not -5.6e-61)."""
    dtype = dtype_of(x)
    start = lax_special.erfcx_tail_start(dtype)
    tail = x >= start
    small = ufuncs.where(tail, _zero(x), x)
    values = [ufuncs.exp(small * small) * (1 - lax_special.erf(small))]
    if order >= 1:
        values.append(2 * small * values[0] - 2 * _SQRT_PI_INV)
    for k in range(1, order):
        values.append(2 * small * values[k] + 2 * k * values[k - 1])
    big = ufuncs.where(tail, x, start)
    levels = _erfcx_fractions(big, max(order, 1))
    value = _SQRT_PI_INV / (big + levels[0])
    for k in range(order):
        value = -2 * levels[k] * value
    return ufuncs.where(tail, value, values[order])


def _erfcx_fractions(x, count: int) -> list:
    """``t_1 .. t_count`` of erfcx's continued fraction at ``x`` (in the tail, x >= 1):
    ``erfcx(x) = (1/sqrt(pi)) / (x + t_1)``, ``t_k = (k/2) / (x + t_(k+1))``, evaluated
    from lax/special.py's depth back."""
    t = _zero(x)
    levels = []
    for k in range(lax_special.CF_TERMS, 0, -1):
        t = (k / 2) / (x + t)
        if k <= count:
            levels.insert(0, t)
    return levels


@functools.cache
def _erfcx_derivative_p(order: int):
    """The primitive of erfcx's ``order``-th derivative; its tangent is the next one's."""
    name = "erfcx" if order == 0 else f"erfcx_derivative_{order}"
    prim = se.primitive(name, functools.partial(_erfcx_impl, order), 1)
    ad.defjvp(prim, lambda t, x: t * _erfcx_derivative_p(order + 1).bind(x))
    return prim


def i0e(x):
    """``exp(-|x|) I0(x)``, the exponentially scaled modified Bessel function of order 0."""
    (x,) = promote_arrays_inexact("i0e", x)
    return lax_bessel.bessel_i0e(x)


def i1e(x):
    """``exp(-|x|) I1(x)``, the exponentially scaled modified Bessel function of order 1."""
    (x,) = promote_arrays_inexact("i1e", x)
    return lax_bessel.bessel_i1e(x)


def i0(x):
    """The modified Bessel function of order 0, ``I0(x)``, whose derivative is ``I1(x)``."""
    (x,) = promote_arrays_inexact("i0", x)
    return lax_bessel.i0(x)


def i1(x):
    """The modified Bessel function of order 1, ``I1(x)``, whose derivative is
    ``I0(x) - I1(x) / x``."""
    (x,) = promote_arrays_inexact("i1", x)
    return lax_bessel.i1(x)


def ndtr(x):
    """The standard normal CDF, ``erfc(-x / sqrt(2)) / 2``."""
    (x,) = promote_arrays_inexact("ndtr", x)
    return 0.5 * erfc(-x * np.asarray(1 / np.sqrt(2), dtype_of(x)))


def log_ndtr(x, series_order: int = 3):
    """``log Phi(x)``, accurate in both tails: through erfcx below -1, log1p(-Phi(-x)) above
    0 (``series_order`` is accepted for jax's signature; the tails need no series here).
    Its derivative is jax's ``exp(log phi(x) - log Phi(x))`` (0 at +inf)."""
    (x,) = promote_arrays_inexact("log_ndtr", x)
    return _log_ndtr(x)


@custom_jvp
def _log_ndtr(x):
    dtype = dtype_of(x)
    r = -x * np.asarray(1 / np.sqrt(2), dtype)
    lower = np.asarray(np.log(0.5), dtype) + ufuncs.log(erfcx(ufuncs.maximum(r, np.asarray(0.5, dtype)))) - r * r
    upper = ufuncs.log1p(-ndtr(-x))
    middle = ufuncs.log(ndtr(x))
    return ufuncs.where(x < -1, lower, ufuncs.where(x > 0, upper, middle))


@_log_ndtr.defjvp
def _log_ndtr_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _log_ndtr(x), t * _log_ndtr_slope(x)


@custom_jvp
def _log_ndtr_slope(x):
    """``phi(x) / Phi(x)``, log_ndtr's derivative: jax's ``exp(log phi(x) - log_ndtr(x))``
    except in the lower tail (``r = -x/sqrt 2`` past erfcx's tail start), where that difference
    of two huge logarithms cancels (jax gives 1, not 1e30, at -1e30 in float64). There it is
    ``sqrt(2/pi) / erfcx(r) = sqrt 2 (r + t_1)``, with t_1 from erfcx's continued fraction."""
    return _log_ndtr_slope_parts(x)[0]


def _log_ndtr_slope_parts(x):
    """``(s, x + s)`` for ``s = phi(x) / Phi(x)``, each without cancellation."""
    dtype = dtype_of(x)
    r = -x * np.asarray(1 / np.sqrt(2), dtype)
    start = lax_special.erfcx_tail_start(dtype)
    tail = r >= start
    (t1,) = _erfcx_fractions(ufuncs.where(tail, r, start), 1)
    log_pdf = -0.5 * (x * x) - np.asarray(0.5 * np.log(2 * np.pi), dtype)
    middle = ufuncs.exp(log_pdf - _log_ndtr(x))
    excess = np.asarray(np.sqrt(2), dtype) * t1  # x + s in the tail
    return ufuncs.where(tail, -x + excess, middle), ufuncs.where(tail, excess, x + middle)


@_log_ndtr_slope.defjvp
def _log_ndtr_slope_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    slope, excess = _log_ndtr_slope_parts(x)
    return slope, t * -(slope * excess)  # (phi/Phi)' = -(phi/Phi) (x + phi/Phi)


_NDTRI_NEWTON_STEPS = 4


def ndtri(p):
    """The inverse of the standard normal CDF. A first guess (the inverse error function in
    the middle, the tail's asymptotic form below p = sqrt(eps)) is polished by Newton steps on
    ``log_ndtr(z) = log p``, which keep full relative precision down to the smallest p. Its
    derivative is ``1 / phi(z) = sqrt(2 pi) exp(z^2 / 2)`` (+inf at p = 0 and 1), not that of
    the Newton steps (NaN)."""
    (p,) = promote_arrays_inexact("ndtri", p)
    return _ndtri(p)


@custom_jvp
def _ndtri(p):
    dtype = dtype_of(p)
    c = lambda v: np.asarray(v, dtype)  # noqa: E731
    upper = p > 0.5
    q = ufuncs.where(upper, 1 - p, p)  # exact for p >= 0.5; the lower half's z, negated later
    safe_q = ufuncs.clip(q, c(np.finfo(dtype).tiny), c(0.5))
    central = c(np.sqrt(2)) * lax_special.erf_inv(2 * safe_q - 1)
    log_q = ufuncs.log(safe_q)
    s = -2 * log_q
    tail = -ufuncs.sqrt(ufuncs.maximum(s - ufuncs.log(s) - c(np.log(2 * np.pi)), c(0.0)))
    z = ufuncs.where(safe_q < c(np.sqrt(np.finfo(dtype).eps)), tail, central)
    for _ in range(_NDTRI_NEWTON_STEPS):
        log_cdf = log_ndtr(z)
        slope = ufuncs.exp(-0.5 * z * z - c(0.5 * np.log(2 * np.pi)) - log_cdf)  # d log Phi / dz
        z = z - (log_cdf - log_q) / slope
    z = ufuncs.where(upper, -z, z)
    z = ufuncs.where(p == 0, c(-np.inf), ufuncs.where(p == 1, c(np.inf), z))
    return ufuncs.where((p < 0) | (p > 1) | ufuncs.isnan(p), c(np.nan), z)


@_ndtri.defjvp
def _ndtri_jvp(primals, tangents):
    (p,), (t,) = primals, tangents
    z = _ndtri(p)
    return z, t * (np.asarray(np.sqrt(2 * np.pi), dtype_of(p)) * ufuncs.exp(0.5 * (z * z)))


def softmax(x, /, *, axis=None):
    """``exp(x) / sum(exp(x), axis)`` (over every axis by default, as jax.scipy's), with
    jax.nn.softmax's derivative."""
    (x,) = promote_arrays_inexact("softmax", x)
    return _nn_softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """``x - logsumexp(x, axis)`` (over every axis by default)."""
    (x,) = promote_arrays_inexact("log_softmax", x)
    return _nn_log_softmax(x, axis=axis)


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False, where=None):
    """``log(sum(b * exp(a)))``, stably; ``where`` drops elements from the sum."""
    return _logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign, where=where)
