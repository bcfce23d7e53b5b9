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
import operator

import numpy as np

from numlir._src import dtypes
from numlir._src.lax import bessel as lax_bessel
from numlir._src.lax import incomplete_beta, incomplete_gamma
from numlir._src.lax import special as lax_special
from numlir._src.lax.elementwise import logistic, stop_gradient
from numlir._src.nn.functions import logsumexp as _logsumexp
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.numpy.util import dtype_of, promote_arrays_inexact


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    (x,) = promote_arrays_inexact("expit", x)
    return logistic(x)


def logit(x):
    """``log(x / (1 - x))``, the inverse of expit."""
    (x,) = promote_arrays_inexact("logit", x)
    return ufuncs.log(x / (1 - x))


def _zero(x):
    return creation.zeros((), dtype_of(x))


def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (whatever ``y``). Its derivative in ``x`` is
    ``log(y)`` there too, as jax's: ``y`` is replaced only where ``x * log(y)`` is NaN."""
    x, y = promote_arrays_inexact("xlogy", x, y)
    undefined = ufuncs.equal(x, 0) & (ufuncs.equal(y, 0) | ufuncs.isinf(y))
    safe_y = ufuncs.where(undefined, creation.ones((), dtype_of(y)), y)
    return ufuncs.where(undefined, _zero(x), x * ufuncs.log(safe_y))


def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0``."""
    x, y = promote_arrays_inexact("xlog1py", x, y)
    safe_y = ufuncs.where(ufuncs.equal(x, 0), _zero(y), y)
    return ufuncs.where(ufuncs.equal(x, 0), _zero(x), x * ufuncs.log1p(safe_y))


def entr(x):
    """``-x log x`` for ``x > 0``, 0 at 0, -inf for negative ``x``."""
    (x,) = promote_arrays_inexact("entr", x)
    safe = ufuncs.where(x > 0, x, creation.ones((), dtype_of(x)))
    return ufuncs.where(x > 0, -safe * ufuncs.log(safe),
                        ufuncs.where(ufuncs.equal(x, 0), _zero(x), np.asarray(-np.inf, dtype_of(x))))


def rel_entr(p, q):
    """``p log(p / q)`` for positive p, q; 0 for p = 0 <= q; inf otherwise."""
    p, q = promote_arrays_inexact("rel_entr", p, q)
    both = (p > 0) & (q > 0)
    safe_p = ufuncs.where(both, p, creation.ones((), dtype_of(p)))
    safe_q = ufuncs.where(both, q, creation.ones((), dtype_of(q)))
    inf = np.asarray(np.inf, dtype_of(p))
    return ufuncs.where(both, safe_p * ufuncs.log(safe_p / safe_q),
                        ufuncs.where(ufuncs.equal(p, 0) & (q >= 0), _zero(p), inf))


def kl_div(p, q):
    """``p log(p / q) - p + q`` for positive p, q; ``q`` for p = 0 <= q; inf otherwise."""
    p, q = promote_arrays_inexact("kl_div", p, q)
    both = (p > 0) & (q > 0)
    return ufuncs.where(both, rel_entr(p, q) - p + q,
                        ufuncs.where(ufuncs.equal(p, 0) & (q >= 0), q, np.asarray(np.inf, dtype_of(p))))


def gammaln(x):
    """``log |Gamma(x)|``."""
    (x,) = promote_arrays_inexact("gammaln", x)
    return lax_special.lgamma(x)


loggamma = gammaln


def gammasgn(x):
    """The sign of ``Gamma(x)``: 1 for x >= 0, alternating between the negative integers
    (NaN at the negative integers and at NaN)."""
    (x,) = promote_arrays_inexact("gammasgn", x)
    floor = ufuncs.floor(x)
    negative_sign = ufuncs.where(ufuncs.equal(ufuncs.remainder(floor, 2), 0), 1.0, -1.0).astype(dtype_of(x))
    pole = (x < 0) & ufuncs.equal(x, floor)
    sign = ufuncs.where(x >= 0, creation.ones((), dtype_of(x)), negative_sign)
    return ufuncs.where(pole | ufuncs.isnan(x), np.asarray(np.nan, dtype_of(x)), sign)


def gamma(x):
    """The gamma function, ``gammasgn(x) * exp(gammaln(x))``."""
    (x,) = promote_arrays_inexact("gamma", x)
    return gammasgn(x) * ufuncs.exp(lax_special.lgamma(x))


def betaln(a, b):
    """``log |B(a, b)|``, the log of the absolute beta function."""
    a, b = promote_arrays_inexact("betaln", a, b)
    return lax_special.lgamma(a) + lax_special.lgamma(b) - lax_special.lgamma(a + b)


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
    zero = ufuncs.equal(lmbda, 0)
    safe = ufuncs.where(zero, 1.0, lmbda)
    return ufuncs.where(zero, log_x, ufuncs.expm1(safe * log_x) / safe)


def poch(z, m):
    """The rising factorial ``Gamma(z + m) / Gamma(z)``."""
    z, m = promote_arrays_inexact("poch", z, m)
    return gammasgn(z + m) * gammasgn(z) * ufuncs.exp(lax_special.lgamma(z + m) - lax_special.lgamma(z))


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
    """The scaled complementary error function ``exp(x^2) erfc(x)``."""
    (x,) = promote_arrays_inexact("erfcx", x)
    dtype = dtype_of(x)
    tail = x >= lax_special.erfcx_tail_start(dtype)
    small = ufuncs.where(tail, _zero(x), x)
    return ufuncs.where(tail, lax_special.erfcx_tail(x),
                        ufuncs.exp(small * small) * (1 - lax_special.erf(small)))


def i0e(x):
    """``exp(-|x|) I0(x)``, the exponentially scaled modified Bessel function of order 0."""
    (x,) = promote_arrays_inexact("i0e", x)
    return lax_bessel.bessel_i0e(x)


def i1e(x):
    """``exp(-|x|) I1(x)``, the exponentially scaled modified Bessel function of order 1."""
    (x,) = promote_arrays_inexact("i1e", x)
    return lax_bessel.bessel_i1e(x)


def i0(x):
    """The modified Bessel function of order 0, ``I0(x)``."""
    (x,) = promote_arrays_inexact("i0", x)
    return ufuncs.exp(ufuncs.abs(x)) * lax_bessel.bessel_i0e(x)


def i1(x):
    """The modified Bessel function of order 1, ``I1(x)``."""
    (x,) = promote_arrays_inexact("i1", x)
    return ufuncs.exp(ufuncs.abs(x)) * lax_bessel.bessel_i1e(x)


def ndtr(x):
    """The standard normal CDF, ``erfc(-x / sqrt(2)) / 2``."""
    (x,) = promote_arrays_inexact("ndtr", x)
    return 0.5 * erfc(-x * np.asarray(1 / np.sqrt(2), dtype_of(x)))


def log_ndtr(x, series_order: int = 3):
    """``log Phi(x)``, accurate in both tails: through erfcx below -1, log1p(-Phi(-x)) above
    0 (``series_order`` is accepted for jax's signature; the tails need no series here)."""
    (x,) = promote_arrays_inexact("log_ndtr", x)
    dtype = dtype_of(x)
    r = -x * np.asarray(1 / np.sqrt(2), dtype)
    lower = np.asarray(np.log(0.5), dtype) + ufuncs.log(erfcx(ufuncs.maximum(r, np.asarray(0.5, dtype)))) - r * r
    upper = ufuncs.log1p(-ndtr(-x))
    middle = ufuncs.log(ndtr(x))
    return ufuncs.where(x < -1, lower, ufuncs.where(x > 0, upper, middle))


_NDTRI_NEWTON_STEPS = 4


def ndtri(p):
    """The inverse of the standard normal CDF. A first guess (the inverse error function in
    the middle, the tail's asymptotic form below p = sqrt(eps)) is polished by Newton steps on
    ``log_ndtr(z) = log p``, which keep full relative precision down to the smallest p."""
    (p,) = promote_arrays_inexact("ndtri", p)
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


def softmax(x, /, *, axis=None):
    """``exp(x) / sum(exp(x), axis)`` (over every axis by default, as jax.scipy's)."""
    (x,) = promote_arrays_inexact("softmax", x)
    e = ufuncs.exp(x - reductions.max(x, axis=axis, keepdims=True))
    return e / reductions.sum(e, axis=axis, keepdims=True)


def log_softmax(x, /, *, axis=None):
    """``x - logsumexp(x, axis)`` (over every axis by default)."""
    (x,) = promote_arrays_inexact("log_softmax", x)
    shifted = x - reductions.max(x, axis=axis, keepdims=True)
    return shifted - ufuncs.log(reductions.sum(ufuncs.exp(shifted), axis=axis, keepdims=True))


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False, where=None):
    """``log(sum(b * exp(a)))``, stably; ``where`` drops elements from the sum."""
    return _logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign, where=where)
