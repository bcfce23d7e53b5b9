"""Cholesky factorization: LAPACK's potrf where the backend calls it, else right-looking
rank-1 updates; with JAX's JVP rule."""

from __future__ import annotations

from numlir._src import batching, core
from numlir._src.custom_derivatives import custom_jvp
from numlir._src.lax import library_lowering
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import masks, triangular
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops, joining, linalg_ops
from numlir._src.numpy import ufuncs as uf


def _factor(a):
    """Lower L with L L^H = a for Hermitian (real: symmetric) positive definite ``a``
    (..., n, n); a matrix that is not positive definite gives NaN, as JAX's does."""
    n = a.shape[-1]
    positions = cr.arange(n)

    def step(k, carry):
        rest, lower = carry
        e = masks.onehot(k, n, a.dtype)
        col = masks.column(rest, e)
        # the pivot of a Hermitian matrix is real: its imaginary part is rounding, dropped
        # so that L's diagonal is real as LAPACK's
        pivot = uf.sqrt(float_ops.real(linalg_ops.matmul(col, e))).astype(a.dtype)[..., None]
        c = uf.where(positions > k, col / pivot, uf.where(positions == k, pivot, 0))
        return rest - masks.outer(c, float_ops.conj(c)), lower + masks.outer(c, e)

    _, lower = fori_loop(0, n, step, (a, cr.zeros_like(a)))
    return lower


#: The lower factor of each Hermitian positive definite matrix of a (..., n, n) operand;
#: NaN where one is not positive definite. Its derivative is cholesky_lower's custom JVP.
cholesky_p = core.Primitive("cholesky")


@cholesky_p.def_abstract_eval
def _cholesky_abstract_eval(a):
    return a.strip_weak_type()


@cholesky_p.def_lowering
def _cholesky_lowering(ctx, a):
    return library_lowering.lower(ctx, "lapack.potrf", [a], _factor)


def _cholesky_batch_rule(axis_size, args, dims):
    return cholesky_p.bind(batching.bdim_to_front(args[0], dims[0], axis_size)), 0


batching.defrule(cholesky_p, _cholesky_batch_rule)


@custom_jvp
def cholesky_lower(a):
    return cholesky_p.bind(a)


@cholesky_lower.defjvp
def _cholesky_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    lower = cholesky_lower(a)
    # dL = L Phi(L^-1 dA L^-H), Phi: the lower triangle with half the diagonal; L^-1 dA L^-H
    # is (L^-1 (L^-1 dA)^H)^H, which needs no Hermitian dA
    left = triangular.solve_left(lower, da, lower=True)
    middle = masks.adjoint(triangular.solve_left(lower, masks.adjoint(left), lower=True))
    n = a.shape[-1]
    phi = joining.tril(middle) - middle * cr.eye(n, dtype=a.dtype) / 2
    return lower, linalg_ops.matmul(lower, phi)


def cholesky(a, *, lower: bool = True, symmetrize_input: bool = True):
    """The Cholesky factor of the Hermitian (real: symmetric) positive definite (..., n, n)
    ``a``: lower (``L L^H = a``) or upper (``U^H U = a``)."""
    a = masks.as_square_matrix("cholesky", a, allow_complex=True)
    if symmetrize_input:
        a = masks.symmetrize(a)
    factor = cholesky_lower(a)
    return factor if lower else masks.adjoint(factor)
