"""LU factorization with partial pivoting, as LAPACK's getrf stores it: getrf itself where
the backend calls it, else a numlir program; with JAX's JVP rule."""

from __future__ import annotations

import numpy as np

from numlir._src import ad, ad_util, batching, core, dtypes
from numlir._src.lax import library_lowering
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import masks, triangular
from numlir._src.numpy import creation as cr
from numlir._src.numpy import joining, linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf


def _swap(x, ek, ep):
    """x with entries (rows, for a matrix) k and p exchanged; ek, ep their one-hot masks
    (..., m), equal when k == p."""
    if x.ndim == ek.ndim:  # a vector per batch element
        xk = red.sum(x * ek, axis=-1, dtype=x.dtype)
        xp = red.sum(x * ep, axis=-1, dtype=x.dtype)
        return x + (ep - ek) * (xk - xp)[..., None]
    rk = red.sum(x * ek[..., :, None], axis=-2, dtype=x.dtype)
    rp = red.sum(x * ep[..., :, None], axis=-2, dtype=x.dtype)
    return x + masks.outer(ep - ek, rk - rp)


def _lu_composite(a):
    m, n = a.shape[-2:]
    steps = min(m, n)
    rows, cols = cr.arange(m), cr.arange(n)
    batch = a.shape[:-2]
    perm0 = cr.zeros(batch + (m,), np.int32) + cr.arange(m, dtype=np.int32)
    piv0 = cr.zeros(batch + (steps,), np.int32)

    def step(k, carry):
        s, pivots, perm = carry
        ek_col = masks.onehot(k, n, a.dtype)
        col = masks.column(s, ek_col)
        candidates = uf.where(rows >= k, masks.magnitude_for_pivoting(col), -1)
        p = red.argmax(candidates, axis=-1).astype(np.int32)
        # the row masks as booleans first: a complex mask cannot be cast to int32 cleanly
        is_k = (rows == k) | cr.zeros(col.shape, bool)
        is_p = rows == p[..., None]
        ek, ep = is_k.astype(a.dtype), is_p.astype(a.dtype)
        s = _swap(s, ek, ep)
        perm = _swap(perm, is_k.astype(np.int32), is_p.astype(np.int32))
        pivots = pivots + (cr.arange(steps) == k).astype(np.int32) * p[..., None]
        pivot_row = red.sum(s * ek[..., :, None], axis=-2)
        pivot = red.sum(pivot_row * ek_col, axis=-1)[..., None]
        below = rows > k
        multipliers = uf.where(below, masks.safe_divide(masks.column(s, ek_col), pivot), 0)
        trailing = uf.where(cols > k, pivot_row, 0)
        s = s - masks.outer(multipliers, trailing)
        in_column_k = below[:, None] & (cols == k)[None, :]
        s = uf.where(in_column_k, multipliers[..., :, None], s)
        return s, pivots, perm

    if steps == 0:  # no row or no column: nothing to pivot (argmax has no empty axis)
        return a, piv0, perm0
    return fori_loop(0, steps, step, (a, piv0, perm0))


#: (lu, pivots, permutation) of a (..., m, n) operand, as jax.lax.linalg.lu_p.
lu_p = core.Primitive("lu")
lu_p.multiple_results = True


@lu_p.def_abstract_eval
def _lu_abstract_eval(a):
    *batch, m, n = a.shape
    return (a.strip_weak_type(), core.ShapedArray((*batch, min(m, n)), dtypes.int32, False),
            core.ShapedArray((*batch, m), dtypes.int32, False))


@lu_p.def_lowering
def _lu_lowering(ctx, a):
    return library_lowering.lower(ctx, "lapack.getrf", [a], _lu_composite)


def _lu_jvp(primals, tangents):
    # As jax: with P a = L U, L^-1 P da U^-1 splits into its strict lower part (dL = L
    # tril(., -1)) and its upper part (dU = triu(.) U); L and U are padded square with
    # identity where a is not.
    (a,), (da,) = primals, tangents
    factors, pivots, permutation = lu_p.bind(a)
    zeros = [ad_util.Zero(core.get_aval(pivots)), ad_util.Zero(core.get_aval(permutation))]
    if isinstance(da, ad_util.Zero):
        return [factors, pivots, permutation], [ad_util.Zero(core.get_aval(factors)), *zeros]
    m, n = a.shape[-2:]
    k = min(m, n)
    x = permute_rows(da, permutation)
    lower = joining.tril(factors[..., :, :k], -1)
    lower = joining.pad(lower, [(0, 0)] * (a.ndim - 1) + [(0, m - k)]) + cr.eye(m, dtype=a.dtype)
    upper = joining.triu(factors[..., :k, :])
    upper = (joining.pad(upper, [(0, 0)] * (a.ndim - 2) + [(0, n - k), (0, 0)])
             + joining.pad(cr.eye(n - k, dtype=a.dtype), [(k, 0), (k, 0)]))
    la = triangular.triangular_solve_p.bind(lower, x, left_side=True, lower=True,
                                            transpose_a=False, conjugate_a=False,
                                            unit_diagonal=True)
    lau = triangular.triangular_solve_p.bind(upper, la, left_side=False, lower=False,
                                             transpose_a=False, conjugate_a=False,
                                             unit_diagonal=False)
    d_factors = (linalg_ops.matmul(lower, joining.tril(lau, -1))
                 + linalg_ops.matmul(joining.triu(lau), upper))
    return [factors, pivots, permutation], [d_factors, *zeros]


ad.defjvp_rule(lu_p, _lu_jvp)


def _lu_batch_rule(axis_size, args, dims):
    return lu_p.bind(batching.bdim_to_front(args[0], dims[0], axis_size)), [0, 0, 0]


batching.defrule(lu_p, _lu_batch_rule)


def lu(a):
    """(lu, pivots, permutation) of (..., m, n) ``a``, as ``jax.lax.linalg.lu``: ``lu``
    holds the unit lower factor's multipliers below the diagonal and U on and above it;
    row i was swapped with row pivots[i] at step i; ``a[permutation] = L @ U``."""
    a = masks.as_float_matrix("lu", a, allow_complex=True)
    return tuple(lu_p.bind(a))


def permute_rows(x, permutation):
    """P x with (P x)[..., i, :] = x[..., permutation[i], :]: a gather of rows, as jax's
    lu JVP and lu_solve take them. A product with the permutation matrix would cost
    m^2 k multiply-adds instead of m k moves, and would spread one row's inf or NaN over
    every row (0 * inf is NaN)."""
    # lu's permutations are in [0, m): clamping (as jax's indexing does) costs m
    # comparisons where the default fill mode would select over every element
    return joining.take_along_axis(x, permutation[..., :, None], axis=-2, mode="clip")


def permutation_matrix(permutation, dtype):
    """P with (P @ x)[i] = x[permutation[i]]."""
    m = permutation.shape[-1]
    return (permutation[..., :, None] == cr.arange(m, dtype=np.int32)).astype(dtype)


def pivots_to_permutation(pivots, m: int):
    """The row order the sequential swaps (i, pivots[i]) give, as lax.linalg's helper."""
    batch = pivots.shape[:-1]
    perm = cr.zeros(batch + (m,), np.int32) + cr.arange(m, dtype=np.int32)
    rows = cr.arange(m)

    def step(k, perm):
        ek = (rows == k).astype(np.int32) + cr.zeros_like(perm)
        p = red.sum(pivots * (cr.arange(pivots.shape[-1]) == k).astype(np.int32), axis=-1,
                    dtype=np.int32)
        ep = (rows == p[..., None]).astype(np.int32)
        return _swap(perm, ek, ep)

    return fori_loop(0, pivots.shape[-1], step, perm)


def solve_with_factors(factors, permutation, b, *, transpose: bool = False,
                       conjugate: bool = False):
    """X with a X = b (or a^T X = b, or a^H X = b if also ``conjugate``), from ``lu``'s
    factors of square a; b (..., n, k)."""
    factors, b = triangular.broadcast_batch("lu_solve", factors, b)
    if not transpose:  # P a = L U
        y = triangular.solve_left(factors, permute_rows(b, permutation), lower=True,
                                  unit_diagonal=True)
        return triangular.solve_left(factors, y, lower=False)
    p = permutation_matrix(permutation, factors.dtype)
    # a^T = U^T L^T P (a^H = U^H L^H P: P is real)
    z = triangular.solve_left(factors, b, lower=False, transpose_a=True, conjugate_a=conjugate)
    w = triangular.solve_left(factors, z, lower=True, transpose_a=True, conjugate_a=conjugate,
                              unit_diagonal=True)
    return linalg_ops.matmul(p.swapaxes(-1, -2), w)
