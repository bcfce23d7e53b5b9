"""jax.numpy.linalg's solvers and the functions built on the factorizations."""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from numlir._src import core, dtypes
from numlir._src.linalg import determinant
from numlir._src.linalg import lu as _lu
from numlir._src.linalg import masks
from numlir._src.linalg import svd as _svd
from numlir._src.numpy import creation as cr
from numlir._src.numpy import joining, linalg_ops, reshaping
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf
from numlir._src.numpy.util import promote_dtypes_inexact


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


def _promoted_pair(name: str, a, b):
    a, b = promote_dtypes_inexact(cr.asarray(a), cr.asarray(b))
    return masks.as_square_matrix(name, a, allow_complex=True), b


def solve(a, b):
    """x with ``a @ x = b`` (LU with partial pivoting): b (..., n) if it is 1-D, else
    (..., n, k), batch dimensions broadcast, as ``jax.numpy.linalg.solve``."""
    a, b = _promoted_pair("solve", a, b)
    n = a.shape[-1]
    vector = b.ndim == 1
    given = b.shape
    if vector:
        b = b[:, None]
    if b.ndim < 2 or b.shape[-2] != n:
        raise core.shape_error(f"solve: b of shape {given} does not match a of shape "
                               f"{a.shape}: its {'only' if vector else 'second-to-last'} "
                               f"dimension must be {n}")
    factors, _, permutation = _lu.lu(a)
    x = _lu.solve_with_factors(factors, permutation, b)
    return x[..., 0] if vector else x


def inv(a):
    """The inverse of square (..., n, n) ``a``; inf or NaN where it is singular."""
    a = masks.as_square_matrix("inv", a, allow_complex=True)
    eye = cr.zeros_like(a) + cr.eye(a.shape[-1], dtype=a.dtype)
    return solve(a, eye)


def _lu_diagonal_and_parity(name: str, a):
    a = masks.as_square_matrix(name, a, allow_complex=True)
    factors, pivots, _ = _lu.lu(a)
    return determinant.diagonal_and_parity(factors, pivots)


def det(a):
    """The determinant of square (..., n, n) ``a``, from its LU factorization; its
    derivative is jax's, finite at singular ``a``."""
    return determinant.det(masks.as_square_matrix("det", a, allow_complex=True))


def _unit_sign(x):
    """sign(x); for complex x, x / |x| written out, because lax.sign's derivative is zero
    while the phase of a complex determinant moves with the matrix (0 where x is 0)."""
    if dtypes.is_complex(x.dtype):
        return masks.safe_divide(x, uf.abs(x).astype(x.dtype))
    return uf.sign(x)


def slogdet(a, *, method=None):
    """(sign, log|det|) of square ``a``; (0, -inf) for a singular matrix. The sign of a
    complex ``a`` is the unit complex number det / |det| and log|det| is real."""
    if method not in (None, "lu"):
        raise ValueError(f"slogdet: method must be 'lu', got {method!r}")
    diagonal, parity = _lu_diagonal_and_parity("slogdet", a)
    sign = parity * red.prod(_unit_sign(diagonal), axis=-1)
    return SlogdetResult(sign, red.sum(uf.log(uf.abs(diagonal)), axis=-1))


def _default_rtol(a):
    return max(a.shape[-2:]) * float(np.finfo(np.dtype(a.dtype)).eps)


def _reciprocal_above(s, cutoff):
    """1 / s where s > cutoff, else 0: the singular values a pseudo-inverse keeps."""
    return uf.where(s > cutoff, masks.safe_divide(cr.ones_like(s), s), 0)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse from the SVD: singular values at most
    ``rtol * max(s)`` count as zero (default ``max(m, n) * eps``)."""
    del hermitian
    a = masks.as_float_matrix("pinv", a, allow_complex=True)
    rtol = rcond if rtol is None else rtol
    m, n = a.shape[-2:]
    if m == 0 or n == 0:  # no singular values: the (n, m) pseudo-inverse is all zeros
        return cr.zeros(a.shape[:-2] + (n, m), a.dtype)
    u, s, vh = _svd.svd(a, full_matrices=False)
    # An rtol array holds one value per matrix of the batch (the standard's and jax's): a
    # trailing axis lines it up with each matrix's largest singular value.
    rtol = _default_rtol(a) if rtol is None else cr.asarray(rtol)[..., None]
    cutoff = rtol * red.max(s, axis=-1, keepdims=True)
    s_inv = _reciprocal_above(s, cutoff).astype(a.dtype)
    return linalg_ops.matmul(masks.adjoint(vh) * s_inv[..., None, :], masks.adjoint(u))


def matrix_rank(M, rtol=None, *, tol=None):  # noqa: N803 - numpy's name
    """The number of singular values above ``tol`` (default ``rtol * max(s)``)."""
    M = masks.as_float_matrix("matrix_rank", M, min_ndim=1, allow_complex=True)
    if M.ndim == 1:
        return red.any(M != 0).astype(dtypes.default_int_dtype())
    s = _svd.svd(M, full_matrices=False, compute_uv=False)
    if tol is None:
        # an rtol array holds one value per matrix of the batch (the standard's and jax's):
        # a trailing axis lines it up with each matrix's largest singular value
        rtol = _default_rtol(M) if rtol is None else cr.asarray(rtol)[..., None]
        tol = rtol * red.max(s, axis=-1, keepdims=True)
    else:
        tol = cr.asarray(tol)[..., None]
    return red.sum(s > tol, axis=-1)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """(x, residuals, rank, s): the least-squares solution of ``a @ x = b`` from the SVD."""
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
    rtol = _default_rtol(a) if rcond is None else rcond
    rank_cutoff = rtol * (red.max(s) if s.shape[0] else 0)
    rank = red.sum(s > rank_cutoff)
    s_inv = _reciprocal_above(s, rank_cutoff).astype(a.dtype)
    x = linalg_ops.matmul(masks.adjoint(vh) * s_inv[None, :],
                          linalg_ops.matmul(masks.adjoint(u), b))
    residual = red.sum(masks.squared_modulus(b - linalg_ops.matmul(a, x)), axis=0)
    if numpy_resid:  # numpy's: empty unless a is tall and of full rank (needs a concrete rank)
        if int(rank) < n or m <= n:
            residual = cr.zeros((0,), s.dtype)
    if vector:
        x = x[:, 0]
    return x, residual, rank, s


def matrix_power(a, n: int):
    """``a`` multiplied by itself ``n`` times (square-and-multiply); negative ``n`` inverts."""
    a = masks.as_square_matrix("matrix_power", a, allow_complex=True)
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"matrix_power: the exponent must be an integer, got {n!r}")
    if n < 0:
        a, n = inv(a), -n
    result = cr.zeros_like(a) + cr.eye(a.shape[-1], dtype=a.dtype)
    base = a
    while n:
        if n & 1:
            result = linalg_ops.matmul(result, base)
        n >>= 1
        if n:
            base = linalg_ops.matmul(base, base)
    return result


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices (1-D ends as vectors), in the cheapest order."""
    del precision
    arrays = [cr.asarray(x) for x in arrays]
    if len(arrays) < 2:
        raise core.value_error(f"multi_dot needs at least two arrays, got {len(arrays)}")
    first_vector, last_vector = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first_vector:
        arrays[0] = arrays[0][None, :]
    if last_vector:
        arrays[-1] = arrays[-1][:, None]
    for i, x in enumerate(arrays):
        if x.ndim != 2:
            raise core.value_error(f"multi_dot: array {i} must be 2-D (or 1-D at the ends), "
                                   f"got shape {x.shape}")
    dims = [arrays[0].shape[0]] + [x.shape[1] for x in arrays]
    count = len(arrays)

    @functools.lru_cache(maxsize=None)
    def best(i, j):  # (cost, split) of multiplying arrays[i..j]
        if i == j:
            return 0, None
        return min((best(i, k)[0] + best(k + 1, j)[0] + dims[i] * dims[k + 1] * dims[j + 1], k)
                   for k in range(i, j))

    def product(i, j):
        if i == j:
            return arrays[i]
        k = best(i, j)[1]
        return linalg_ops.matmul(product(i, k), product(k + 1, j))

    out = product(0, count - 1)
    if first_vector:
        out = out[0]
    if last_vector:
        out = out[..., 0]
    return out


def _matrix_norm(x, p):
    """The matrix norms ``cond`` takes besides 2 and -2, over the last two axes."""
    if p == "fro":
        return uf.sqrt(red.sum(masks.squared_modulus(x), axis=(-2, -1)))
    if p == "nuc":
        return red.sum(_svd.svd(x, full_matrices=False, compute_uv=False), axis=-1)
    if p in (1, -1, np.inf, -np.inf):
        sums = red.sum(uf.abs(x), axis=-2 if p in (1, -1) else -1)
        return red.max(sums, axis=-1) if p in (1, np.inf) else red.min(sums, axis=-1)
    raise core.value_error(f"cond: invalid norm order {p!r}")


def cond(x, p=None):
    """The condition number of ``x`` in norm ``p`` (default 2: max(s) / min(s))."""
    x = masks.as_float_matrix("cond", x, allow_complex=True)
    if p is None or p in (2, -2):
        s = _svd.svd(x, full_matrices=False, compute_uv=False)
        ratio = s[..., 0] / s[..., -1]
        return ratio if p != -2 else s[..., -1] / s[..., 0]
    return _matrix_norm(x, p) * _matrix_norm(inv(x), p)


def tensorinv(a, ind: int = 2):
    """The inverse of ``a`` read as a matrix of its first ``ind`` and remaining axes."""
    a = cr.asarray(a)
    rows, cols = a.shape[:ind], a.shape[ind:]
    if math.prod(rows) != math.prod(cols):
        raise core.shape_error(f"tensorinv: the first {ind} axes {rows} and the rest {cols} "
                               "must have equal products")
    matrix = reshaping.reshape(a, (math.prod(rows), math.prod(cols)))
    return reshaping.reshape(inv(matrix), cols + rows)


def tensorsolve(a, b, axes=None):
    """x with ``tensordot(a, x, x.ndim) = b``."""
    a, b = cr.asarray(a), cr.asarray(b)
    if axes is not None:
        order = [i for i in range(a.ndim) if i not in [ax % a.ndim for ax in axes]]
        order += [ax % a.ndim for ax in axes]
        a = reshaping.transpose(a, order)
    solution_shape = a.shape[b.ndim:]
    size = math.prod(solution_shape)
    matrix = reshaping.reshape(a, (math.prod(a.shape[:b.ndim]), size))
    if matrix.shape[0] != size:
        raise core.shape_error(f"tensorsolve: a of shape {a.shape} is not square for b of shape "
                               f"{b.shape}")
    return reshaping.reshape(solve(matrix, reshaping.ravel(b)), solution_shape)

