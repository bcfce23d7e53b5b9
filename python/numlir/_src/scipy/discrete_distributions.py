"""Probability mass functions of jax.scipy.stats' discrete distributions: bernoulli,
binom, betabinom, geom, nbinom, poisson and multinomial. Each works in logs
(``xlogy``/``xlog1py`` keep ``0 log 0 = 0`` at the ends of the support); outside the
support the log mass is -inf (the mass 0). As in jax, only poisson and bernoulli
also give -inf at non-integer ``k``; binom, betabinom, geom and nbinom evaluate
their formula there.
"""

from __future__ import annotations

import numpy as np

from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_arrays_inexact
from numlir._src.scipy import special


def _const(like, value):
    return np.asarray(value, dtype_of(like))


def _off_support(y, low, high=None, integers: bool = False):
    """Where ``y`` is outside [low, high] (or, with ``integers``, not an integer)."""
    out = y < low
    if integers:
        out = out | ufuncs.not_equal(y, ufuncs.round(y))
    return out if high is None else out | (y > high)


def _log_choose(n, k):
    return special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)


# --- bernoulli -------------------------------------------------------------------------------


def bernoulli_logpmf(k, p, loc=0):
    k, p, loc = promote_arrays_inexact("bernoulli.logpmf", k, p, loc)
    x = k - loc
    log_mass = special.xlogy(x, p) + special.xlog1py(1 - x, -p)
    outside = ufuncs.not_equal(x, _const(x, 0)) & ufuncs.not_equal(x, _const(x, 1))
    return ufuncs.where(outside, _const(x, -np.inf), log_mass)


def bernoulli_pmf(k, p, loc=0):
    return ufuncs.exp(bernoulli_logpmf(k, p, loc))


def _bad_probability(p):
    return ufuncs.isnan(p) | (p < 0) | (p > 1)


def bernoulli_cdf(k, p):
    k, p = promote_arrays_inexact("bernoulli.cdf", k, p)
    zero, one = _const(k, 0), _const(k, 1)
    value = ufuncs.where(k < 0, zero, ufuncs.where(k < 1, one - p, one))
    return ufuncs.where(_bad_probability(p) | ufuncs.isnan(k), _const(k, np.nan), value)


def bernoulli_ppf(q, p):
    q, p = promote_arrays_inexact("bernoulli.ppf", q, p)
    bad = _bad_probability(p) | _bad_probability(q)
    return ufuncs.where(
        bad, _const(q, np.nan), ufuncs.where(q <= 1 - p, _const(q, 0), _const(q, 1))
    )


# --- binom, betabinom ----------------------------------------------------------------------------


def binom_logpmf(k, n, p, loc=0):
    k, n, p, loc = promote_arrays_inexact("binom.logpmf", k, n, p, loc)
    y = k - loc
    log_mass = _log_choose(n, y) + special.xlogy(y, p) + special.xlog1py(n - y, -p)
    return ufuncs.where(_off_support(y, 0, n), _const(y, -np.inf), log_mass)


def binom_pmf(k, n, p, loc=0):
    return ufuncs.exp(binom_logpmf(k, n, p, loc))


def betabinom_logpmf(k, n, a, b, loc=0):
    k, n, a, b, loc = promote_arrays_inexact("betabinom.logpmf", k, n, a, b, loc)
    y = k - loc
    log_mass = _log_choose(n, y) + special.betaln(y + a, n - y + b) - special.betaln(a, b)
    value = ufuncs.where(_off_support(y, 0, n), _const(y, -np.inf), log_mass)
    return ufuncs.where((a > 0) & (b > 0), value, _const(y, np.nan))


def betabinom_pmf(k, n, a, b, loc=0):
    return ufuncs.exp(betabinom_logpmf(k, n, a, b, loc))


# --- geom, nbinom --------------------------------------------------------------------------------


def geom_logpmf(k, p, loc=0):
    k, p, loc = promote_arrays_inexact("geom.logpmf", k, p, loc)
    x = k - loc
    log_mass = ufuncs.log(p) + special.xlog1py(x - 1, -p)
    return ufuncs.where(_off_support(x, 1), _const(x, -np.inf), log_mass)


def geom_pmf(k, p, loc=0):
    return ufuncs.exp(geom_logpmf(k, p, loc))


def nbinom_logpmf(k, n, p, loc=0):
    k, n, p, loc = promote_arrays_inexact("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    log_mass = (
        special.gammaln(n + y)
        - special.gammaln(y + 1)
        - special.gammaln(n)
        + special.xlogy(n, p)
        + special.xlog1py(y, -p)
    )
    return ufuncs.where(_off_support(y, 0), _const(y, -np.inf), log_mass)


def nbinom_pmf(k, n, p, loc=0):
    return ufuncs.exp(nbinom_logpmf(k, n, p, loc))


# --- poisson -------------------------------------------------------------------------------------


def poisson_logpmf(k, mu, loc=0):
    k, mu, loc = promote_arrays_inexact("poisson.logpmf", k, mu, loc)
    x = k - loc
    log_mass = special.xlogy(x, mu) - special.gammaln(x + 1) - mu
    return ufuncs.where(_off_support(x, 0, integers=True), _const(x, -np.inf), log_mass)


def poisson_pmf(k, mu, loc=0):
    return ufuncs.exp(poisson_logpmf(k, mu, loc))


def poisson_cdf(k, mu, loc=0):
    k, mu, loc = promote_arrays_inexact("poisson.cdf", k, mu, loc)
    x = k - loc
    whole = ufuncs.floor(ufuncs.maximum(x, _const(x, 0)))
    return ufuncs.where(x < 0, _const(x, 0), special.gammaincc(whole + 1, mu))


# Entropy: a sum over the mass within 12 standard deviations of mu (13 sd past the
# ends carry under 1e-30 of it), or for large mu the asymptotic expansion
# H = log(2 pi e mu)/2 - 1/(12 mu) - 1/(24 mu^2) - 19/(360 mu^3), accurate to 1e-13 there.
_ENTROPY_TERMS = 800
_ENTROPY_ASYMPTOTIC = 1000.0


def poisson_entropy(mu, loc=0):
    mu, loc = promote_arrays_inexact("poisson.entropy", mu, loc)
    shape = np.broadcast_shapes(mu.shape, loc.shape)
    mu = reshaping.broadcast_to(mu, shape)
    small = ufuncs.minimum(mu, _const(mu, _ENTROPY_ASYMPTOTIC))
    start = ufuncs.maximum(
        ufuncs.floor(small) - _const(mu, _ENTROPY_TERMS // 2 - 10), _const(mu, 0)
    )
    k = reshaping.expand_dims(start, -1) + creation.arange(_ENTROPY_TERMS, dtype=dtype_of(mu))
    m = reshaping.expand_dims(small, -1)
    log_mass = special.xlogy(k, m) - special.gammaln(k + 1) - m
    summed = -reductions.sum(
        ufuncs.where(log_mass == -np.inf, _const(mu, 0), ufuncs.exp(log_mass) * log_mass), axis=-1
    )
    inverse = 1 / ufuncs.maximum(mu, _const(mu, 1))
    asymptotic = (
        0.5 * ufuncs.log(2 * np.pi * np.e * ufuncs.maximum(mu, _const(mu, 1)))
        - inverse / 12
        - inverse**2 / 24
        - 19 * inverse**3 / 360
    )
    value = ufuncs.where(mu < _ENTROPY_ASYMPTOTIC, summed, asymptotic)
    value = ufuncs.where(mu == 0, _const(mu, 0), value)
    return ufuncs.where(mu < 0, _const(mu, np.nan), value)


# --- multinomial ---------------------------------------------------------------------------------


def multinomial_logpmf(x, n, p):
    check_arraylike("multinomial.logpmf", x, n, p)
    (p,) = promote_arrays_inexact("multinomial.logpmf", p)
    x, n = creation.asarray(x), creation.asarray(n)
    if not (np.issubdtype(dtype_of(x), np.integer) and np.issubdtype(dtype_of(n), np.integer)):
        raise ValueError(
            f"x and n must be of integer type; got x.dtype={dtype_of(x)}, n.dtype={dtype_of(n)}"
        )
    x, n = x.astype(dtype_of(p)), n.astype(dtype_of(p))
    log_mass = special.gammaln(n + 1) + reductions.sum(
        special.xlogy(x, p) - special.gammaln(x + 1), axis=-1
    )
    return ufuncs.where(ufuncs.equal(reductions.sum(x), n), log_mass, _const(p, -np.inf))


def multinomial_pmf(x, n, p):
    return ufuncs.exp(multinomial_logpmf(x, n, p))
