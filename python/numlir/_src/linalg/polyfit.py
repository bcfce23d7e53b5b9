"""jnp.polyfit: least squares on the Vandermonde matrix, through the SVD-based lstsq."""

from __future__ import annotations

import numpy as np

from numlir._src.linalg import solvers
from numlir._src.numpy import reductions, ufuncs
from numlir._src.numpy.creation import asarray
from numlir._src.numpy.grids import vander
from numlir._src.numpy.util import check_arraylike, promote_dtypes_inexact


def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):
    """Least-squares polynomial coefficients (highest power first), as ``jnp.polyfit``: the
    Vandermonde columns are scaled to unit norm before the SVD-based ``lstsq``."""
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
