"""Triangular solves: LAPACK's trsm where the backend calls it, else forward
substitution with the other cases reduced to it; with JAX's derivative rules."""

from __future__ import annotations

import numpy as np

from numlir._src import ad, ad_util, batching, core
from numlir._src import transpose as tr
from numlir._src.lax import library_lowering
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import masks
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops, joining, linalg_ops, reshaping
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf


def broadcast_batch(name: str, a, b):
    """``a`` and ``b`` broadcast to their common leading (batch) dimensions."""
    try:
        batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    except ValueError:
        raise core.shape_error(f"{name}: batch dimensions {a.shape[:-2]} and {b.shape[:-2]} "
                               f"(of shapes {a.shape} and {b.shape}) do not broadcast") from None
    return (reshaping.broadcast_to(a, batch + a.shape[-2:]),
            reshaping.broadcast_to(b, batch + b.shape[-2:]))


def _forward_substitution(a, b, unit_diagonal: bool):
    """X with tril(a) @ X = b: a (..., n, n), b (..., n, k), batch dims equal. Row i of X
    uses rows < i only: the rows not computed yet are still 0."""
    n = a.shape[-1]
    positions = cr.arange(n)

    def step(i, x):
        e = masks.onehot(i, n, a.dtype)
        a_row = masks.row(a, e)
        before = uf.where(positions < i, a_row, 0)
        rhs = masks.row(b, e) - linalg_ops.matmul(before[..., None, :], x)[..., 0, :]
        if not unit_diagonal:
            rhs = rhs / red.sum(a_row * e, axis=-1)[..., None]
        return x + masks.outer(e, rhs)

    return fori_loop(0, n, step, cr.zeros_like(b))


def _solve_left_composite(a, b, *, lower: bool, transpose_a: bool, conjugate_a: bool,
                          unit_diagonal: bool):
    if conjugate_a:
        a = float_ops.conj(a)
    if transpose_a:
        a, lower = a.swapaxes(-1, -2), not lower
    if lower:
        return _forward_substitution(a, b, unit_diagonal)
    # J U J is lower triangular for the reversal J: solve (J U J)(J x) = J b
    flipped = _forward_substitution(joining.flip(a, axis=(-2, -1)), joining.flip(b, axis=-2),
                                    unit_diagonal)
    return joining.flip(flipped, axis=-2)


def _solve_composite(a, b, *, left_side: bool, lower: bool, transpose_a: bool,
                     conjugate_a: bool, unit_diagonal: bool):
    if left_side:
        return _solve_left_composite(a, b, lower=lower, transpose_a=transpose_a,
                                     conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    # X op(a) = b  <=>  op(a)^T X^T = b^T, and op(a)^T keeps the conjugation
    xt = _solve_left_composite(a, b.swapaxes(-1, -2), lower=lower, transpose_a=not transpose_a,
                               conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    return xt.swapaxes(-1, -2)


# --- The primitive ------------------------------------------------------------------------------

#: X with op(a) X = b (left_side) or X op(a) = b for triangular a (..., m, m) and b with the
#: same batch dimensions, as jax.lax.linalg.triangular_solve_p.
triangular_solve_p = core.Primitive("triangular_solve")


@triangular_solve_p.def_abstract_eval
def _triangular_solve_abstract_eval(a, b, **params):
    return b.strip_weak_type()


@triangular_solve_p.def_lowering
def _triangular_solve_lowering(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal):
    params = dict(left_side=left_side, lower=lower, unit_diagonal=unit_diagonal)
    if conjugate_a and not transpose_a and library_lowering.has_routines(ctx, "lapack.trsm"):
        # BLAS conjugates only with the transpose: conjugate a first.
        return library_lowering.inline(
            ctx, lambda a, b: triangular_solve_p.bind(float_ops.conj(a), b, transpose_a=False,
                                                      conjugate_a=False, **params), [a, b])
    transpose = 0 if not transpose_a else 2 if conjugate_a else 1
    return library_lowering.lower(
        ctx, "lapack.trsm", [a, b],
        lambda a, b: _solve_composite(a, b, transpose_a=transpose_a, conjugate_a=conjugate_a,
                                      **params),
        [int(left_side), int(lower), transpose, int(unit_diagonal)])


def _triangular_solve_jvp(primals, tangents, *, left_side, lower, transpose_a, conjugate_a,
                          unit_diagonal):
    # As jax: the solve is linear in b; for a, dX = -op(a)^-1 op(da) X (left side) or
    # -X op(da) op(a)^-1, each product in the cheaper order.
    a, b = primals
    da, db = tangents
    params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a,
                  conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    x = triangular_solve_p.bind(a, b, **params)
    out = ad_util.Zero(core.get_aval(x).strip_weak_type())
    if not isinstance(db, ad_util.Zero):
        out = ad_util.add_any(out, triangular_solve_p.bind(a, ad_util.instantiate(db), **params))
    if not isinstance(da, ad_util.Zero):
        k = 1 if unit_diagonal else 0
        g = joining.tril(da, -k) if lower else joining.triu(da, k)
        g = -g
        if transpose_a:
            g = g.swapaxes(-1, -2)
        if conjugate_a:
            g = float_ops.conj(g)
        m, n = b.shape[-2:]
        inverse = lambda rhs: triangular_solve_p.bind(a, rhs, **params)  # noqa: E731
        if left_side:
            term = (inverse(linalg_ops.matmul(g, x)) if m > n
                    else linalg_ops.matmul(inverse(g), x))
        else:
            term = (inverse(linalg_ops.matmul(x, g)) if m < n
                    else linalg_ops.matmul(x, inverse(g)))
        out = ad_util.add_any(out, term)
    return x, out


def _triangular_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a,
                                unit_diagonal):
    # Linear in b only, like division's numerator.
    assert not tr.is_undefined(a) and tr.is_undefined(b)
    if isinstance(ct, ad_util.Zero):
        return [None, tr.zero_ct(b.aval)]
    return [None, triangular_solve_p.bind(a, ct, left_side=left_side, lower=lower,
                                          transpose_a=not transpose_a,
                                          conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)]


ad.defjvp_rule(triangular_solve_p, _triangular_solve_jvp)
tr.deftranspose(triangular_solve_p, _triangular_solve_transpose)


def _triangular_solve_batch_rule(axis_size, args, dims, **params):
    a, b = (batching.bdim_to_front(x, d, axis_size) for x, d in zip(args, dims))
    return triangular_solve_p.bind(a, b, **params), 0


batching.defrule(triangular_solve_p, _triangular_solve_batch_rule)


def solve_left(a, b, *, lower: bool, transpose_a: bool = False, conjugate_a: bool = False,
               unit_diagonal: bool = False):
    """X with op(a) @ X = b for the triangle of ``a`` that ``lower`` names: op(a) is a, its
    transpose if ``transpose_a``, conjugated if ``conjugate_a`` (both: a^H); a (..., n, n),
    b (..., n, k)."""
    a, b = broadcast_batch("triangular_solve", a, b)
    return triangular_solve_p.bind(a, b, left_side=True, lower=lower, transpose_a=transpose_a,
                                   conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """``jax.lax.linalg.triangular_solve``: X with op(a) X = b (left_side) or X op(a) = b,
    op(a) = a, a^T (``transpose_a``), conj(a) (``conjugate_a``) or a^H (both)."""
    a = masks.as_square_matrix("triangular_solve", a, allow_complex=True)
    b = masks.as_float_matrix("triangular_solve", cr.asarray(b).astype(a.dtype),
                              allow_complex=True)
    a, b = broadcast_batch("triangular_solve", a, b)
    solved = b.shape[-2] if left_side else b.shape[-1]
    if solved != a.shape[-1]:
        raise core.shape_error(
            f"triangular_solve: a {a.shape} solves {a.shape[-1]} unknowns, but b {b.shape} "
            f"has {solved} {'rows' if left_side else 'columns'}")
    return triangular_solve_p.bind(a, b, left_side=left_side, lower=lower,
                                   transpose_a=transpose_a, conjugate_a=conjugate_a,
                                   unit_diagonal=unit_diagonal)
