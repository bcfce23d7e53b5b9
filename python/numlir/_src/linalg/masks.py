"""One-hot row and column selection: the indexing the factorizations use."""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf
from numlir._src.numpy.util import promote_dtypes_inexact


def onehot(k, n: int, dtype):
    """(n,) with a 1 at position ``k`` (a traced loop index)."""
    return (cr.arange(n) == k).astype(dtype)


def column(a, e):
    """a[..., :, k] for e = onehot(k): shape (..., rows)."""
    return red.sum(a * e, axis=-1)


def row(a, e):
    """a[..., k, :] for e = onehot(k): shape (..., columns)."""
    return red.sum(a * e[:, None], axis=-2)


def outer(u, v):
    """The batched outer product u v^T of (..., m) and (..., n)."""
    return u[..., :, None] * v[..., None, :]


def rotate_columns(x, ep, eq, c, s, phase=None):
    """x J for the plane rotation J with J_pp = J_qq = c, J_pq = s, J_qp = -s, the columns
    p and q given by one-hot ``ep``, ``eq``; c, s of shape (..., 1). A complex unit
    ``phase`` (..., 1) first multiplies column q, so J becomes the unitary
    diag(1, phase) J of the complex Jacobi methods."""
    xp, xq = column(x, ep), column(x, eq)
    turned_q = xq if phase is None else phase * xq
    return x + outer(c * xp - s * turned_q - xp, ep) + outer(s * xp + c * turned_q - xq, eq)


def is_complex(a) -> bool:
    return dtypes.is_complex(a.dtype)


def adjoint(a):
    """The conjugate transpose of the last two axes (the transpose for a real ``a``)."""
    return float_ops.conjugate(a).swapaxes(-1, -2)


def squared_modulus(x):
    """|x|^2 elementwise, real: for complex x, re^2 + im^2 without a square root."""
    if not is_complex(x):
        return x * x
    re, im = float_ops.real(x), float_ops.imag(x)
    return re * re + im * im


def unit_phase(z):
    """z / |z| where z != 0, else 1: the phase that turns z real and nonnegative when
    multiplied by its conjugate."""
    magnitude = uf.abs(z)
    nonzero = magnitude > 0
    return uf.where(nonzero, z / uf.where(nonzero, magnitude, 1).astype(z.dtype), 1)


def safe_divide(x, d):
    """x / d where d != 0, else 0, with finite derivatives in both branches."""
    nonzero = d != 0
    return uf.where(nonzero, x / uf.where(nonzero, d, 1), 0)


def as_float_matrix(name: str, a, min_ndim: int = 2, allow_complex: bool = False):
    """``a`` promoted to an inexact dtype, checked to be a (..., m, n) array, real unless
    ``allow_complex``."""
    (a,) = promote_dtypes_inexact(cr.asarray(a))
    if a.ndim < min_ndim:
        raise core.value_error(f"{name}: input must have dimension >= {min_ndim}, got shape "
                               f"{a.shape}")
    if is_complex(a) and not allow_complex:
        raise TypeError(f"{name}: complex input is not supported yet; numlir's {name} "
                        "takes real matrices")
    return a


def as_square_matrix(name: str, a, allow_complex: bool = False):
    a = as_float_matrix(name, a, allow_complex=allow_complex)
    if a.shape[-1] != a.shape[-2]:
        raise core.value_error(f"{name}: the last two dimensions must be square, got shape "
                               f"{a.shape}")
    return a


def magnitude_for_pivoting(x):
    """|re x| + |im x| for complex ``x`` (LAPACK's cabs1, which i?amax uses to pick pivots,
    so the row choices match getrf's), |x| for real."""
    if is_complex(x):
        return uf.abs(float_ops.real(x)) + uf.abs(float_ops.imag(x))
    return uf.abs(x)


def symmetrize(a):
    """(a + a^H) / 2: the symmetric (Hermitian, for complex ``a``) part, as jax's."""
    return (a + adjoint(a)) / 2
