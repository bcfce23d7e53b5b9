"""Densities and distribution functions of jax.scipy.stats' location-scale families:
norm, expon, uniform, laplace, logistic, cauchy, gumbel_r and gumbel_l. Each takes
``(x, loc=0, scale=1)``; outside the support densities are 0 (log densities -inf)."""

from __future__ import annotations

import numpy as np

from numlir._src.scipy import special
from numlir._src.numpy import creation, ufuncs
from numlir._src.numpy.util import dtype_of, promote_arrays_inexact


def _standardize(name, x, loc, scale):
    x, loc, scale = promote_arrays_inexact(name, x, loc, scale)
    return (x - loc) / scale, scale


def _const(like, value):
    return np.asarray(value, dtype_of(like))


def _log1mexp(a):
    """log(1 - exp(-a)) for a >= 0, accurate at both ends (Maechler's split at log 2)."""
    small = a < np.log(2.0)
    return ufuncs.where(small, ufuncs.log(-ufuncs.expm1(-a)), ufuncs.log1p(-ufuncs.exp(-a)))


# --- norm ------------------------------------------------------------------------------------

def norm_logpdf(x, loc=0, scale=1):
    z, scale = _standardize("norm.logpdf", x, loc, scale)
    return -0.5 * z * z - ufuncs.log(scale) - _const(z, 0.5 * np.log(2 * np.pi))


def norm_pdf(x, loc=0, scale=1):
    return ufuncs.exp(norm_logpdf(x, loc, scale))


def norm_cdf(x, loc=0, scale=1):
    z, _ = _standardize("norm.cdf", x, loc, scale)
    return special.ndtr(z)


def norm_logcdf(x, loc=0, scale=1):
    z, _ = _standardize("norm.logcdf", x, loc, scale)
    return special.log_ndtr(z)


def norm_sf(x, loc=0, scale=1):
    z, _ = _standardize("norm.sf", x, loc, scale)
    return special.ndtr(-z)


def norm_logsf(x, loc=0, scale=1):
    z, _ = _standardize("norm.logsf", x, loc, scale)
    return special.log_ndtr(-z)


# --- expon -----------------------------------------------------------------------------------

def expon_logpdf(x, loc=0, scale=1):
    z, scale = _standardize("expon.logpdf", x, loc, scale)
    return ufuncs.where(z < 0, _const(z, -np.inf), -z - ufuncs.log(scale))


def expon_pdf(x, loc=0, scale=1):
    return ufuncs.exp(expon_logpdf(x, loc, scale))


def expon_cdf(x, loc=0, scale=1):
    z, _ = _standardize("expon.cdf", x, loc, scale)
    return ufuncs.where(z < 0, _const(z, 0), -ufuncs.expm1(-z))


def expon_logcdf(x, loc=0, scale=1):
    z, _ = _standardize("expon.logcdf", x, loc, scale)
    return ufuncs.where(z < 0, _const(z, -np.inf), _log1mexp(ufuncs.maximum(z, _const(z, 0))))


def expon_sf(x, loc=0, scale=1):
    z, _ = _standardize("expon.sf", x, loc, scale)
    return ufuncs.where(z < 0, _const(z, 1), ufuncs.exp(-z))


def expon_logsf(x, loc=0, scale=1):
    z, _ = _standardize("expon.logsf", x, loc, scale)
    return ufuncs.where(z < 0, _const(z, 0), -z)


def expon_ppf(q, loc=0, scale=1):
    q, loc, scale = promote_arrays_inexact("expon.ppf", q, loc, scale)
    out = -ufuncs.log1p(-q) * scale + loc
    return ufuncs.where((q < 0) | (q > 1), _const(q, np.nan), out)


# --- uniform ---------------------------------------------------------------------------------

def uniform_logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_arrays_inexact("uniform.logpdf", x, loc, scale)
    inside = (x >= loc) & (x <= loc + scale)
    return ufuncs.where(inside, -ufuncs.log(scale), _const(x, -np.inf))


def uniform_pdf(x, loc=0, scale=1):
    return ufuncs.exp(uniform_logpdf(x, loc, scale))


def uniform_cdf(x, loc=0, scale=1):
    z, _ = _standardize("uniform.cdf", x, loc, scale)
    return ufuncs.clip(z, _const(z, 0), _const(z, 1))


def uniform_ppf(q, loc=0, scale=1):
    q, loc, scale = promote_arrays_inexact("uniform.ppf", q, loc, scale)
    return ufuncs.where((q < 0) | (q > 1), _const(q, np.nan), loc + q * scale)


# --- laplace ---------------------------------------------------------------------------------

def laplace_logpdf(x, loc=0, scale=1):
    z, scale = _standardize("laplace.logpdf", x, loc, scale)
    return -ufuncs.abs(z) - ufuncs.log(2 * scale)


def laplace_pdf(x, loc=0, scale=1):
    return ufuncs.exp(laplace_logpdf(x, loc, scale))


def laplace_cdf(x, loc=0, scale=1):
    z, _ = _standardize("laplace.cdf", x, loc, scale)
    half = _const(z, 0.5)
    return ufuncs.where(z < 0, half * ufuncs.exp(ufuncs.minimum(z, _const(z, 0))),
                        1 - half * ufuncs.exp(-ufuncs.maximum(z, _const(z, 0))))


# --- logistic --------------------------------------------------------------------------------

def logistic_logpdf(x, loc=0, scale=1):
    z, scale = _standardize("logistic.logpdf", x, loc, scale)
    a = ufuncs.abs(z)
    return -a - 2 * ufuncs.log1p(ufuncs.exp(-a)) - ufuncs.log(scale)


def logistic_pdf(x, loc=0, scale=1):
    return ufuncs.exp(logistic_logpdf(x, loc, scale))


def logistic_cdf(x, loc=0, scale=1):
    z, _ = _standardize("logistic.cdf", x, loc, scale)
    return special.expit(z)


def logistic_sf(x, loc=0, scale=1):
    z, _ = _standardize("logistic.sf", x, loc, scale)
    return special.expit(-z)


def logistic_ppf(x, loc=0, scale=1):
    q, loc, scale = promote_arrays_inexact("logistic.ppf", x, loc, scale)
    return special.logit(q) * scale + loc


def logistic_isf(x, loc=0, scale=1):
    q, loc, scale = promote_arrays_inexact("logistic.isf", x, loc, scale)
    return -special.logit(q) * scale + loc


# --- cauchy ----------------------------------------------------------------------------------

def cauchy_logpdf(x, loc=0, scale=1):
    z, scale = _standardize("cauchy.logpdf", x, loc, scale)
    return -_const(z, np.log(np.pi)) - ufuncs.log(scale) - ufuncs.log1p(z * z)


def cauchy_pdf(x, loc=0, scale=1):
    return ufuncs.exp(cauchy_logpdf(x, loc, scale))


def _cauchy_cdf_std(z):
    # arctan2(-1, -z) / pi + 1 is 0.5 + atan(z) / pi without cancelling for z -> -inf.
    return ufuncs.arctan2(creation.ones((), dtype_of(z)), -z) / _const(z, np.pi)


def cauchy_cdf(x, loc=0, scale=1):
    z, _ = _standardize("cauchy.cdf", x, loc, scale)
    return _cauchy_cdf_std(z)


def cauchy_logcdf(x, loc=0, scale=1):
    return ufuncs.log(cauchy_cdf(x, loc, scale))


def cauchy_sf(x, loc=0, scale=1):
    z, _ = _standardize("cauchy.sf", x, loc, scale)
    return _cauchy_cdf_std(-z)


def cauchy_logsf(x, loc=0, scale=1):
    return ufuncs.log(cauchy_sf(x, loc, scale))


def _cauchy_ppf_std(q):
    # tan(pi (q - 1/2)) as -1 / tan(pi q) below 1/2 and 1 / tan(pi (1 - q)) above: q - 1/2
    # rounds away the tail's information (a 1% error at q = 1e-6 in float32).
    pi = _const(q, np.pi)
    lower = -1 / ufuncs.tan(pi * q)
    upper = 1 / ufuncs.tan(pi * (1 - q))
    out = ufuncs.where(q < 0.5, lower, ufuncs.where(q > 0.5, upper, _const(q, 0)))
    return ufuncs.where((q < 0) | (q > 1), _const(q, np.nan), out)


def cauchy_ppf(q, loc=0, scale=1):
    q, loc, scale = promote_arrays_inexact("cauchy.ppf", q, loc, scale)
    return loc + scale * _cauchy_ppf_std(q)


def cauchy_isf(q, loc=0, scale=1):
    q, loc, scale = promote_arrays_inexact("cauchy.isf", q, loc, scale)
    return loc - scale * _cauchy_ppf_std(q)


# --- gumbel_r and gumbel_l -------------------------------------------------------------------

def gumbel_r_logpdf(x, loc=0, scale=1):
    z, scale = _standardize("gumbel_r.logpdf", x, loc, scale)
    return -(z + ufuncs.exp(-z)) - ufuncs.log(scale)


def gumbel_r_pdf(x, loc=0, scale=1):
    return ufuncs.exp(gumbel_r_logpdf(x, loc, scale))


def gumbel_r_logcdf(x, loc=0, scale=1):
    z, _ = _standardize("gumbel_r.logcdf", x, loc, scale)
    return -ufuncs.exp(-z)


def gumbel_r_cdf(x, loc=0, scale=1):
    return ufuncs.exp(gumbel_r_logcdf(x, loc, scale))


def gumbel_r_sf(x, loc=0, scale=1):
    z, _ = _standardize("gumbel_r.sf", x, loc, scale)
    return -ufuncs.expm1(-ufuncs.exp(-z))


def gumbel_r_logsf(x, loc=0, scale=1):
    z, _ = _standardize("gumbel_r.logsf", x, loc, scale)
    return _log1mexp(ufuncs.exp(-z))


def gumbel_r_ppf(q, loc=0, scale=1):
    q, loc, scale = promote_arrays_inexact("gumbel_r.ppf", q, loc, scale)
    out = loc - scale * ufuncs.log(-ufuncs.log(q))
    return ufuncs.where((q < 0) | (q > 1), _const(q, np.nan), out)


def gumbel_l_logpdf(x, loc=0, scale=1):
    z, scale = _standardize("gumbel_l.logpdf", x, loc, scale)
    return z - ufuncs.exp(z) - ufuncs.log(scale)


def gumbel_l_pdf(x, loc=0, scale=1):
    return ufuncs.exp(gumbel_l_logpdf(x, loc, scale))


def gumbel_l_logsf(x, loc=0, scale=1):
    z, _ = _standardize("gumbel_l.logsf", x, loc, scale)
    return -ufuncs.exp(z)


def gumbel_l_sf(x, loc=0, scale=1):
    return ufuncs.exp(gumbel_l_logsf(x, loc, scale))


def gumbel_l_cdf(x, loc=0, scale=1):
    z, _ = _standardize("gumbel_l.cdf", x, loc, scale)
    return -ufuncs.expm1(-ufuncs.exp(z))


def gumbel_l_logcdf(x, loc=0, scale=1):
    z, _ = _standardize("gumbel_l.logcdf", x, loc, scale)
    return _log1mexp(ufuncs.exp(z))


def gumbel_l_ppf(q, loc=0, scale=1):
    q, loc, scale = promote_arrays_inexact("gumbel_l.ppf", q, loc, scale)
    out = loc + scale * ufuncs.log(-ufuncs.log1p(-q))
    return ufuncs.where((q < 0) | (q > 1), _const(q, np.nan), out)
