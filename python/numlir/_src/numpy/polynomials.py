"""Polynomials as coefficient arrays, highest power first (NumPy's poly1d convention):
polyval, polyadd, polysub, polymul, polyder, polyint, poly."""

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




def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):
    """Least-squares polynomial coefficients (highest power first), as ``jnp.polyfit``: the
    Vandermonde columns are scaled to unit norm before the SVD-based ``lstsq``."""
    from numlir._src.linalg import solvers  # the factorizations sit above numlir.numpy
    from numlir._src.numpy import reductions, ufuncs
    from numlir._src.numpy.creation import asarray
    from numlir._src.numpy.grids import vander

    check_arraylike("polyfit", x, y)
    x, y = promote_dtypes_inexact(asarray(x), asarray(y))
    if not isinstance(deg, (int, np.integer)) or isinstance(deg, bool) or deg < 0:
        raise TypeError(f"polyfit: deg must be a non-negative int, got {deg!r}")
    if x.ndim != 1 or x.shape[0] == 0:
        raise TypeError(f"polyfit: x must be a non-empty 1-D array, got shape {x.shape}")
    if y.ndim not in (1, 2) or y.shape[0] != x.shape[0]:
        raise TypeError(f"polyfit: y must be 1-D or 2-D with {x.shape[0]} rows, got shape {y.shape}")
    order = int(deg) + 1
    if rcond is None:
        rcond = x.shape[0] * float(np.finfo(np.dtype(x.dtype)).eps)
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = asarray(w).astype(x.dtype)
        if w.shape != x.shape:
            raise TypeError(f"polyfit: w must have the shape of x {x.shape}, got {w.shape}")
        lhs = lhs * w[:, None]
        rhs = rhs * (w if y.ndim == 1 else w[:, None])
    scale = ufuncs.sqrt(reductions.sum(lhs * lhs, axis=0))
    lhs = lhs / scale[None, :]
    c, resids, rank, s = solvers.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if full:
        return c, resids, rank, s, asarray(rcond, x.dtype)
    if not cov:
        return c
    base = solvers.inv(lhs.T @ lhs) / (scale[:, None] * scale[None, :])
    if cov == "unscaled":
        factor = 1
    else:
        if x.shape[0] <= order:
            raise ValueError("polyfit: the number of data points must exceed order to scale the "
                             "covariance matrix")
        factor = resids / (x.shape[0] - order)
        factor = factor if y.ndim == 2 else factor[0]
    return c, (base * factor if y.ndim == 1 else base[:, :, None] * factor)
