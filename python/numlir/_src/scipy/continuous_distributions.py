"""Densities and distribution functions of jax.scipy.stats' shape-parameter families:
beta, gamma, chi2, gennorm, pareto, t, truncnorm, vonmises, wrapcauchy and dirichlet,
and norm's ppf and isf. The distribution functions come from the incomplete gamma
and beta functions (lax.igamma, lax.betainc) and log_ndtr/ndtri; outside the
support densities are 0 (log densities -inf).
"""

from __future__ import annotations

import numpy as np

from numlir._src.lax import bessel
from numlir._src.numpy import creation, joining, logic, reductions, reshaping, ufuncs
from numlir._src.numpy.util import (
    check_arraylike,
    dtype_of,
    promote_arrays_inexact,
    promote_dtypes_inexact,
)
from numlir._src.scipy import special
from numlir._src.scipy.stats import _log1mexp


def _const(like, value):
    return np.asarray(value, dtype_of(like))


def _scaled(name, x, loc, scale, *params):
    x, loc, scale, *params = promote_arrays_inexact(name, x, loc, scale, *params)
    return (x - loc) / scale, scale, params


# --- beta ----------------------------------------------------------------------------------------


def beta_logpdf(x, a, b, loc=0, scale=1):
    y, scale, (a, b) = _scaled("beta.logpdf", x, loc, scale, a, b)
    log_density = (
        special.xlogy(a - 1, y)
        + special.xlog1py(b - 1, -y)
        - special.betaln(a, b)
        - ufuncs.log(scale)
    )
    return ufuncs.where((y < 0) | (y > 1), _const(y, -np.inf), log_density)


def beta_pdf(x, a, b, loc=0, scale=1):
    return ufuncs.exp(beta_logpdf(x, a, b, loc, scale))


def beta_cdf(x, a, b, loc=0, scale=1):
    y, _, (a, b) = _scaled("beta.cdf", x, loc, scale, a, b)
    return special.betainc(a, b, ufuncs.clip(y, _const(y, 0), _const(y, 1)))


def beta_sf(x, a, b, loc=0, scale=1):
    y, _, (a, b) = _scaled("beta.sf", x, loc, scale, a, b)
    return special.betainc(b, a, 1 - ufuncs.clip(y, _const(y, 0), _const(y, 1)))


def beta_logcdf(x, a, b, loc=0, scale=1):
    return ufuncs.log(beta_cdf(x, a, b, loc, scale))


def beta_logsf(x, a, b, loc=0, scale=1):
    return ufuncs.log(beta_sf(x, a, b, loc, scale))


# --- gamma, chi2 ---------------------------------------------------------------------------------


def gamma_logpdf(x, a, loc=0, scale=1):
    y, scale, (a,) = _scaled("gamma.logpdf", x, loc, scale, a)
    log_density = special.xlogy(a - 1, y) - y - special.gammaln(a) - ufuncs.log(scale)
    return ufuncs.where(y < 0, _const(y, -np.inf), log_density)


def gamma_pdf(x, a, loc=0, scale=1):
    return ufuncs.exp(gamma_logpdf(x, a, loc, scale))


def gamma_cdf(x, a, loc=0, scale=1):
    y, _, (a,) = _scaled("gamma.cdf", x, loc, scale, a)
    return special.gammainc(a, ufuncs.maximum(y, _const(y, 0)))


def gamma_sf(x, a, loc=0, scale=1):
    y, _, (a,) = _scaled("gamma.sf", x, loc, scale, a)
    return special.gammaincc(a, ufuncs.maximum(y, _const(y, 0)))


def gamma_logcdf(x, a, loc=0, scale=1):
    return ufuncs.log(gamma_cdf(x, a, loc, scale))


def gamma_logsf(x, a, loc=0, scale=1):
    return ufuncs.log(gamma_sf(x, a, loc, scale))


def _chi2(gamma_function, name: str):
    """chi2(df) is gamma(df / 2) with twice the scale."""

    def fn(x, df, loc=0, scale=1):
        x, df, loc, scale = promote_arrays_inexact(f"chi2.{name}", x, df, loc, scale)
        return gamma_function(x, df / 2, loc, scale * 2)

    fn.__name__ = f"chi2_{name}"
    return fn


chi2_logpdf = _chi2(gamma_logpdf, "logpdf")
chi2_pdf = _chi2(gamma_pdf, "pdf")
chi2_cdf = _chi2(gamma_cdf, "cdf")
chi2_sf = _chi2(gamma_sf, "sf")
chi2_logcdf = _chi2(gamma_logcdf, "logcdf")
chi2_logsf = _chi2(gamma_logsf, "logsf")


# --- gennorm, pareto, t ----------------------------------------------------------------------------


def gennorm_logpdf(x, beta):
    x, beta = promote_arrays_inexact("gennorm.logpdf", x, beta)
    return (
        ufuncs.log(beta) - _const(x, np.log(2)) - special.gammaln(1 / beta) - ufuncs.abs(x) ** beta
    )


def gennorm_pdf(x, beta):
    return ufuncs.exp(gennorm_logpdf(x, beta))


def gennorm_cdf(x, beta):
    x, beta = promote_arrays_inexact("gennorm.cdf", x, beta)
    return 0.5 + ufuncs.sign(x) * 0.5 * special.gammainc(1 / beta, ufuncs.abs(x) ** beta)


def pareto_logpdf(x, b, loc=0, scale=1):
    y, scale, (b,) = _scaled("pareto.logpdf", x, loc, scale, b)
    log_density = ufuncs.log(b) - (b + 1) * ufuncs.log(y) - ufuncs.log(scale)
    return ufuncs.where(y < 1, _const(y, -np.inf), log_density)


def pareto_pdf(x, b, loc=0, scale=1):
    return ufuncs.exp(pareto_logpdf(x, b, loc, scale))


def pareto_logsf(x, b, loc=0, scale=1):
    y, _, (b,) = _scaled("pareto.logsf", x, loc, scale, b)
    return ufuncs.where(y < 1, _const(y, 0), -b * ufuncs.log(y))


def pareto_sf(x, b, loc=0, scale=1):
    return ufuncs.exp(pareto_logsf(x, b, loc, scale))


def pareto_logcdf(x, b, loc=0, scale=1):
    y, _, (b,) = _scaled("pareto.logcdf", x, loc, scale, b)
    return ufuncs.where(y < 1, _const(y, -np.inf), ufuncs.log1p(-(y**-b)))


def pareto_cdf(x, b, loc=0, scale=1):
    y, _, (b,) = _scaled("pareto.cdf", x, loc, scale, b)
    return ufuncs.where(y < 1, _const(y, 0), -ufuncs.expm1(-b * ufuncs.log(y)))


def pareto_ppf(q, b, loc=0, scale=1):
    q, b, loc, scale = promote_arrays_inexact("pareto.ppf", q, b, loc, scale)
    value = scale * (1 - q) ** (-1 / b) + loc
    return ufuncs.where((q < 0) | (q > 1), _const(q, np.nan), value)


def t_logpdf(x, df, loc=0, scale=1):
    z, scale, (df,) = _scaled("t.logpdf", x, loc, scale, df)
    half = (df + 1) / 2
    return (
        special.gammaln(half)
        - special.gammaln(df / 2)
        - 0.5 * ufuncs.log(df * np.pi)
        - half * ufuncs.log1p(z * z / df)
        - ufuncs.log(scale)
    )


def t_pdf(x, df, loc=0, scale=1):
    return ufuncs.exp(t_logpdf(x, df, loc, scale))


# --- norm ppf/isf and truncnorm ----------------------------------------------------------------------


def norm_ppf(q, loc=0, scale=1):
    q, loc, scale = promote_arrays_inexact("norm.ppf", q, loc, scale)
    return special.ndtri(q) * scale + loc


def norm_isf(q, loc=0, scale=1):
    q, loc, scale = promote_arrays_inexact("norm.isf", q, loc, scale)
    return -special.ndtri(q) * scale + loc


def _log_mass_between(a, b):
    """log(Phi(b) - Phi(a)) for a <= b, by whichever tail keeps the difference accurate."""
    upper = a > 0  # both in the upper tail: Phi(b) - Phi(a) = Phi(-a) - Phi(-b)
    hi = ufuncs.where(upper, special.log_ndtr(-a), special.log_ndtr(b))
    lo = ufuncs.where(upper, special.log_ndtr(-b), special.log_ndtr(a))
    return hi + _log1mexp(hi - lo)


def _truncnorm_args(name, x, a, b, loc, scale):
    x, a, b, loc, scale = promote_arrays_inexact(name, x, a, b, loc, scale)
    return (x - loc) / scale, a, b, scale


def truncnorm_logpdf(x, a, b, loc=0, scale=1):
    z, a, b, scale = _truncnorm_args("truncnorm.logpdf", x, a, b, loc, scale)
    log_density = (
        -0.5 * z * z
        - _const(z, 0.5 * np.log(2 * np.pi))
        - _log_mass_between(a, b)
        - ufuncs.log(scale)
    )
    return ufuncs.where((z < a) | (z > b), _const(z, -np.inf), log_density)


def truncnorm_pdf(x, a, b, loc=0, scale=1):
    return ufuncs.exp(truncnorm_logpdf(x, a, b, loc, scale))


def truncnorm_logcdf(x, a, b, loc=0, scale=1):
    z, a, b, _ = _truncnorm_args("truncnorm.logcdf", x, a, b, loc, scale)
    inside = ufuncs.clip(z, a, b)
    value = _log_mass_between(a, inside) - _log_mass_between(a, b)
    return ufuncs.where(z < a, _const(z, -np.inf), ufuncs.where(z >= b, _const(z, 0), value))


def truncnorm_logsf(x, a, b, loc=0, scale=1):
    z, a, b, _ = _truncnorm_args("truncnorm.logsf", x, a, b, loc, scale)
    inside = ufuncs.clip(z, a, b)
    value = _log_mass_between(inside, b) - _log_mass_between(a, b)
    return ufuncs.where(z <= a, _const(z, 0), ufuncs.where(z > b, _const(z, -np.inf), value))


def truncnorm_cdf(x, a, b, loc=0, scale=1):
    return ufuncs.exp(truncnorm_logcdf(x, a, b, loc, scale))


def truncnorm_sf(x, a, b, loc=0, scale=1):
    return ufuncs.exp(truncnorm_logsf(x, a, b, loc, scale))


# --- circular distributions ------------------------------------------------------------------------


def vonmises_logpdf(x, kappa):
    x, kappa = promote_arrays_inexact("vonmises.logpdf", x, kappa)
    # log(exp(kappa cos x) / (2 pi I0(kappa))) with I0 scaled: no overflow for large kappa
    value = kappa * (ufuncs.cos(x) - 1) - ufuncs.log(2 * np.pi * bessel.bessel_i0e(kappa))
    return ufuncs.where(kappa > 0, value, _const(x, np.nan))


def vonmises_pdf(x, kappa):
    return ufuncs.exp(vonmises_logpdf(x, kappa))


def wrapcauchy_logpdf(x, c):
    x, c = promote_arrays_inexact("wrapcauchy.logpdf", x, c)
    value = (
        ufuncs.log(1 - c * c)
        - _const(x, np.log(2 * np.pi))
        - ufuncs.log(1 + c * c - 2 * c * ufuncs.cos(x))
    )
    value = ufuncs.where((x >= 0) & (x <= 2 * np.pi), value, _const(x, -np.inf))
    return ufuncs.where((c > 0) & (c < 1), value, _const(x, np.nan))


def wrapcauchy_pdf(x, c):
    return ufuncs.exp(wrapcauchy_logpdf(x, c))


# --- dirichlet -------------------------------------------------------------------------------------


def dirichlet_logpdf(x, alpha):
    """The log density of the Dirichlet(alpha) distribution at ``x``, whose first axis holds
    the K coordinates (or the first K - 1, the last being 1 minus their sum)."""
    check_arraylike("dirichlet.logpdf", x, alpha)
    x, alpha = (
        creation.asarray(v) for v in promote_dtypes_inexact(x, alpha)
    )  # shapes differ by design
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    k = alpha.shape[0]
    if x.ndim == 0 or x.shape[0] not in (k, k - 1):
        raise ValueError(
            f"`x` must have either the same number of entries as `alpha` or one entry fewer; "
            f"got x.shape={x.shape}, alpha.shape={alpha.shape}"
        )
    if x.shape[0] == k - 1:
        x = joining.concatenate([x, 1 - reductions.sum(x, axis=0, keepdims=True)], axis=0)
    normalizer = reductions.sum(special.gammaln(alpha)) - special.gammaln(reductions.sum(alpha))
    weights = reshaping.reshape(alpha, (k,) + (1,) * (x.ndim - 1))
    log_density = reductions.sum(special.xlogy(weights - 1, x), axis=0) - normalizer
    on_simplex = reductions.all(x >= 0, axis=0) & logic.isclose(
        reductions.sum(x, axis=0), _const(x, 1)
    )
    return ufuncs.where(on_simplex, log_density, _const(log_density, -np.inf))


def dirichlet_pdf(x, alpha):
    return ufuncs.exp(dirichlet_logpdf(x, alpha))
