"""jax.scipy.stats.multivariate_normal: the Gaussian log density through the Cholesky
factor of the covariance (it sits with linalg at the api layer, whose factorizations
carry custom derivatives)."""

from __future__ import annotations

import numpy as np

from numlir._src.linalg import cholesky, triangular
from numlir._src.numpy import creation, joining, reductions, ufuncs
from numlir._src.numpy.util import check_arraylike, promote_dtypes_inexact


def logpdf(x, mean, cov, allow_singular=None):
    """log N(x; mean, cov) over x's last axis; ``cov`` is a matrix, or a scalar variance
    shared by every coordinate (or the variance of a scalar mean)."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    check_arraylike("multivariate_normal.logpdf", x, mean, cov)
    x, mean, cov = (creation.asarray(v) for v in promote_dtypes_inexact(x, mean, cov))
    log_2pi = np.log(2 * np.pi)
    if not mean.shape:
        return -0.5 * (x - mean) ** 2 / cov - 0.5 * (log_2pi + ufuncs.log(cov))
    n = mean.shape[-1]
    y = x - mean
    if not cov.shape:
        return -0.5 * reductions.sum(y * y, axis=-1) / cov - n / 2 * (log_2pi + ufuncs.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    factor = cholesky.cholesky(cov, lower=True)
    white = triangular.solve_left(factor, y[..., None], lower=True)[..., 0]  # L^-1 (x - mean)
    log_det = reductions.sum(ufuncs.log(joining.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * reductions.sum(white * white, axis=-1) - n / 2 * log_2pi - log_det


def pdf(x, mean, cov):
    """N(x; mean, cov), the exponential of logpdf."""
    return ufuncs.exp(logpdf(x, mean, cov))
