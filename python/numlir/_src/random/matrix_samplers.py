"""Samplers built on the factorizations: multivariate normal and Haar-orthogonal matrices."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from numlir._src import core
from numlir._src.array import Array
from numlir._src.jit import jit
from numlir._src.linalg import cholesky, eigh, qr
from numlir._src.linalg import svd as _svd
from numlir._src.numpy import creation, joining, linalg_ops, ufuncs
from numlir._src.numpy.util import broadcast_shapes, promote_dtypes_inexact
from numlir._src.random import prng
from numlir._src.random.distributions import _check_shape, _float_dtype, _normal_impl
from numlir._src.random.keys import canonical_shape

_METHODS = ("cholesky", "eigh", "svd")


def _multivariate_normal_impl(key, mean, cov, shape, dtype, method):
    if method == "svd":
        u, s, _ = _svd.svd(cov, full_matrices=False)
        factor = u * ufuncs.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = eigh.eigh(cov)
        factor = v * ufuncs.sqrt(w[..., None, :])
    else:
        factor = cholesky.cholesky(cov)
    samples = _normal_impl(key, shape + mean.shape[-1:], dtype)
    return mean + linalg_ops.matmul(factor, samples[..., :, None])[..., 0]


_multivariate_normal = jit(_multivariate_normal_impl, static_argnums=(3, 4, 5))


def multivariate_normal(key, mean, cov, shape: Sequence[int] | None = None, dtype=None,
                        method: str = "cholesky") -> Array:
    """Samples of N(mean, cov), as ``jax.random.multivariate_normal``: ``mean`` (..., n),
    ``cov`` (..., n, n), factored by ``method`` ("cholesky", "eigh" or "svd"). With the
    Cholesky factor the values equal jax's for the same key; eigh and svd give another
    (equally distributed) sample wherever an eigenvector's sign differs from LAPACK's."""
    key = prng.check_key("multivariate_normal", key)
    if method not in _METHODS:
        raise ValueError(f"multivariate_normal: method must be one of {_METHODS}, got {method!r}")
    dtype = _float_dtype("multivariate_normal", dtype)
    mean, cov = promote_dtypes_inexact(creation.asarray(mean), creation.asarray(cov))
    mean, cov = mean.astype(dtype), cov.astype(dtype)
    if mean.ndim < 1:
        raise core.value_error(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                               f"{mean.ndim}")
    n = mean.shape[-1]
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise core.value_error(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                               f"but got cov.shape == {cov.shape}")
    if shape is None:
        shape = broadcast_shapes("multivariate_normal", mean.shape[:-1], cov.shape[:-2])
    else:
        shape = canonical_shape("multivariate_normal", shape)
        _check_shape("multivariate_normal", shape, mean.shape[:-1], cov.shape[:-2])
    return _multivariate_normal(key, mean, cov, tuple(shape), dtype, method)


def _orthogonal_impl(key, n, m, shape, dtype):
    z = _normal_impl(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = qr.qr(z)
    signs = ufuncs.sign(joining.diagonal(r, axis1=-2, axis2=-1))
    x = q * signs[..., None, :]
    return x.swapaxes(-1, -2) if n < m else x


_orthogonal = jit(_orthogonal_impl, static_argnums=(1, 2, 3, 4))


def orthogonal(key, n: int, shape: Sequence[int] = (), dtype=None, m: int | None = None) -> Array:
    """Haar-distributed (n, m) matrices with orthonormal columns (or rows if n < m), as
    ``jax.random.orthogonal``: the QR factor of a normal sample, signs fixed by R."""
    key = prng.check_key("orthogonal", key)
    m = n if m is None else m
    for name, value in (("n", n), ("m", m)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
            raise TypeError(f"orthogonal: {name} must be a non-negative Python int, got {value!r}")
    return _orthogonal(key, int(n), int(m), canonical_shape("orthogonal", shape),
                       _float_dtype("orthogonal", dtype))
