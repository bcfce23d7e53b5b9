"""Polynomials as coefficient arrays, highest power first (NumPy's poly1d convention):
polyval, polyadd, polysub, polymul, polydiv, polyder, polyint, poly."""

from __future__ import annotations

import operator

import numpy as np

from numlir._src.numpy import creation, joining, reshaping
from numlir._src.numpy.statistics import convolve
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_dtypes, promote_dtypes_inexact


def _vector(name, p):
    check_arraylike(name, p)
    p = creation.asarray(p)
    if p.ndim != 1:
        raise ValueError(f"{name}: coefficients must be a 1-D array, got shape {p.shape}")
    return p


def polyval(p, x, *, unroll: int = 16):
    """The polynomial ``p`` at ``x`` by Horner's rule."""
    p = _vector("polyval", p)
    check_arraylike("polyval", x)
    p, x = promote_dtypes(p, creation.asarray(x))
    y = creation.zeros_like(x)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


def _padded(a1, a2):
    a1, a2 = promote_dtypes(a1, a2)
    n = max(a1.shape[0], a2.shape[0])
    pad = lambda a: joining.pad(a, (n - a.shape[0], 0)) if a.shape[0] < n else a  # noqa: E731
    return pad(a1), pad(a2)


def polyadd(a1, a2):
    """The sum of two polynomials."""
    a1, a2 = _padded(_vector("polyadd", a1), _vector("polyadd", a2))
    return a1 + a2


def polysub(a1, a2):
    """The difference of two polynomials."""
    a1, a2 = _padded(_vector("polysub", a1), _vector("polysub", a2))
    return a1 - a2


def polymul(a1, a2, *, trim_leading_zeros: bool = False):
    """The product of two polynomials (a full convolution of the coefficients)."""
    a1, a2 = _vector("polymul", a1), _vector("polymul", a2)
    if a1.shape[0] == 0 or a2.shape[0] == 0:
        return creation.zeros((1,), np.result_type(dtype_of(a1), dtype_of(a2)))
    a1, a2 = promote_dtypes_inexact(a1, a2)
    return convolve(a1, a2, mode="full")


def polydiv(u, v, *, trim_leading_zeros: bool = False):
    """The quotient and remainder of dividing polynomial ``u`` by ``v`` (long division). The
    remainder keeps ``u``'s length, its leading entries zero, unless ``trim_leading_zeros``
    (which needs concrete values) drops those within sqrt(eps) of zero, as jax's does."""
    u, v = promote_dtypes_inexact(_vector("polydiv", u), _vector("polydiv", v))
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1 / v[0]
    q = creation.zeros((max(m - n + 1, 1),), dtype_of(u))
    r = u
    for k in range(m - n + 1):
        d = scale * r[k]
        q = q.at[k].set(d)
        r = r.at[k:k + n + 1].add(-d * v)
    if trim_leading_zeros:
        values = np.asarray(r)
        tol = np.sqrt(np.finfo(values.dtype).eps)
        first = next((i for i, c in enumerate(values) if abs(c) > tol), len(values))
        r = r[first:]
    return q, r


def polyder(p, m: int = 1):
    """The ``m``-th derivative of ``p``."""
    p = _vector("polyder", p)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    (p,) = promote_dtypes_inexact(p)
    for _ in range(m):
        n = p.shape[0]
        if n <= 1:
            return creation.zeros((0,), dtype_of(p))
        p = p[:-1] * creation.arange(n - 1, 0, -1).astype(dtype_of(p))
    return p


def polyint(p, m: int = 1, k=None):
    """The ``m``-th antiderivative of ``p``, with integration constants ``k`` (default 0)."""
    p = _vector("polyint", p)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    (p,) = promote_dtypes_inexact(p)
    ks = creation.zeros((m,), dtype_of(p)) if k is None else reshaping.broadcast_to(
        creation.asarray(k).astype(dtype_of(p)), (m,))
    for i in range(m):
        n = p.shape[0]
        p = joining.concatenate([p / creation.arange(n, 0, -1).astype(dtype_of(p)), ks[i:i + 1]])
    return p


def poly(seq_of_zeros):
    """The monic polynomial whose roots are ``seq_of_zeros`` (1-D)."""
    check_arraylike("poly", seq_of_zeros)
    (roots,) = promote_dtypes_inexact(creation.asarray(seq_of_zeros))
    if roots.ndim != 1:
        raise ValueError("poly: input must be a 1-D array of roots (matrices need eigvals, not implemented)")
    coeffs = creation.ones((1,), dtype_of(roots))
    for i in range(roots.shape[0]):
        coeffs = convolve(coeffs, joining.stack([creation.ones((), dtype_of(roots)), -roots[i]]), mode="full")
    return coeffs



