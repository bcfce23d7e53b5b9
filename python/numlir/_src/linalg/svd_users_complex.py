"""pinv, matrix_rank, lstsq and cond for complex matrices, from the complex SVD.

solvers.py holds these functions for real matrices (and refuses complex ones). It was
being changed on another branch when the complex SVD landed, so the complex cases live
here and jnp.linalg routes complex input to them; folding them into solvers.py (conjugate
transposes instead of transposes, |r|^2 residuals, allow_complex=True) is a small
follow-up. Real input goes to solvers.py unchanged.
"""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.linalg import masks, solvers
from numlir._src.linalg import svd as _svd
from numlir._src.numpy import creation as cr
from numlir._src.numpy import linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf
from numlir._src.numpy.util import promote_dtypes_inexact


def _is_complex_input(*arrays) -> bool:
    promoted = promote_dtypes_inexact(*(cr.asarray(a) for a in arrays))
    return dtypes.is_complex(promoted[0].dtype)


def _reciprocal_above(s, cutoff):
    """1 / s where s > cutoff, else 0: the singular values a pseudo-inverse keeps."""
    return uf.where(s > cutoff, masks.safe_divide(cr.ones_like(s), s), 0)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse V S^+ U^H; real ``a`` goes to solvers.pinv."""
    if not _is_complex_input(a):
        return solvers.pinv(a, rtol, hermitian, rcond=rcond)
    a = masks.as_float_matrix("pinv", a, allow_complex=True)
    rtol = rcond if rtol is None else rtol
    u, s, vh = _svd.svd(a, full_matrices=False)
    default_rtol = max(a.shape[-2:]) * float(np.finfo(np.dtype(s.dtype)).eps)
    cutoff = (default_rtol if rtol is None else rtol) * red.max(s, axis=-1, keepdims=True)
    s_inv = _reciprocal_above(s, cutoff).astype(a.dtype)
    return linalg_ops.matmul(masks.adjoint(vh) * s_inv[..., None, :], masks.adjoint(u))


def matrix_rank(M, rtol=None, *, tol=None):  # noqa: N803 - numpy's name
    """The number of singular values above ``tol``; real ``M`` goes to solvers."""
    if not _is_complex_input(M):
        return solvers.matrix_rank(M, rtol, tol=tol)
    M = masks.as_float_matrix("matrix_rank", M, min_ndim=1, allow_complex=True)
    if M.ndim == 1:
        return red.any(M != 0).astype(dtypes.default_int_dtype())
    s = _svd.svd(M, full_matrices=False, compute_uv=False)
    if tol is None:
        default_rtol = max(M.shape[-2:]) * float(np.finfo(np.dtype(s.dtype)).eps)
        tol = (default_rtol if rtol is None else rtol) * red.max(s, axis=-1, keepdims=True)
    else:
        tol = cr.asarray(tol)[..., None]
    return red.sum(s > tol, axis=-1)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """(x, residuals (real), rank, s) of the least-squares problem ``a @ x = b``."""
    if not _is_complex_input(a, b):
        return solvers.lstsq(a, b, rcond, numpy_resid=numpy_resid)
    a, b = promote_dtypes_inexact(cr.asarray(a), cr.asarray(b))
    a = masks.as_float_matrix("lstsq", a, allow_complex=True)
    if a.ndim != 2:
        raise core.value_error(f"lstsq: a must be 2-D, got shape {a.shape}")
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    if b.ndim != 2 or b.shape[0] != a.shape[0]:
        raise core.shape_error(f"lstsq: a of shape {a.shape} and b of shape "
                               f"{b.shape[:1] if vector else b.shape} do not match")
    m, n = a.shape
    u, s, vh = _svd.svd(a, full_matrices=False)
    rtol = max(m, n) * float(np.finfo(np.dtype(s.dtype)).eps) if rcond is None else rcond
    keep = s > rtol * (red.max(s) if s.shape[0] else 0)
    rank = red.sum(keep)
    s_inv = uf.where(keep, masks.safe_divide(cr.ones_like(s), s), 0).astype(a.dtype)
    x = linalg_ops.matmul(masks.adjoint(vh) * s_inv[None, :],
                          linalg_ops.matmul(masks.adjoint(u), b))
    residual = red.sum(masks.squared_modulus(b - linalg_ops.matmul(a, x)), axis=0)
    if numpy_resid and (int(rank) < n or m <= n):
        residual = cr.zeros((0,), s.dtype)
    if vector:
        x = x[:, 0]
    return x, residual, rank, s


def cond(x, p=None):
    """The 2-norm condition number max(s) / min(s) (or its reciprocal for p = -2); real
    ``x`` goes to solvers.cond. Other norms of complex matrices need a complex inverse."""
    if not _is_complex_input(x):
        return solvers.cond(x, p)
    x = masks.as_float_matrix("cond", x, allow_complex=True)
    if p is None or p in (2, -2):
        s = _svd.svd(x, full_matrices=False, compute_uv=False)
        return s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    raise TypeError(f"cond: p={p!r} of a complex matrix needs a complex inverse, which "
                    "numlir's linear algebra does not have yet; p=None, 2 or -2 work")
