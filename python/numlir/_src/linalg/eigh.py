"""Symmetric and Hermitian eigendecomposition: LAPACK's syevd (heevd) where the backend calls
it, else cyclic Jacobi rotations; with JAX's JVP rule.

A complex Hermitian matrix gets the complex Jacobi method directly: each step first turns
a_pq real with a unit phase on column q, then applies the real rotation. Unlike the real
2n x 2n embedding [[Re A, -Im A], [Im A, Re A]], this has no artificially doubled
eigenvalues, so no basis has to be untangled from a doubled eigenspace, and every step is
unitary, so the eigenvalues are as accurate (to eps * |A|) as in the real case."""

from __future__ import annotations

import numpy as np

from numlir._src import batching, core
from numlir._src.custom_derivatives import custom_jvp
from numlir._src.lax.control_flow import while_loop
from numlir._src.lax import library_lowering
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg import masks
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops
from numlir._src.numpy import joining, linalg_ops, sorting
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf

#: Cyclic Jacobi converges quadratically; sweeps stop once the off-diagonal part is
#: below eps times the matrix's norm, or after this many.
MAX_SWEEPS = 30


def pair_tables(n: int):
    """Row-cyclic order of the pairs (p, q), p < q: two int32 constant arrays."""
    pairs = [(p, q) for p in range(n - 1) for q in range(p + 1, n)]
    return (np.array([p for p, _ in pairs], np.int32), np.array([q for _, q in pairs], np.int32))


def rotation(app, aqq, apq):
    """(c, s) of the Jacobi rotation that zeroes a_pq of J^T A J (Golub & Van Loan 8.5.2)."""
    rotate = apq != 0
    tau = (aqq - app) / uf.where(rotate, 2 * apq, 1)
    sign = uf.where(tau >= 0, 1, -1).astype(app.dtype)
    t = uf.where(rotate, sign / (uf.abs(tau) + uf.sqrt(1 + tau * tau)), 0)
    c = 1 / uf.sqrt(1 + t * t)
    return c, c * t


def _off_diagonal_norm(a):
    n = a.shape[-1]
    off_diagonal = a * (1 - cr.eye(n, dtype=a.dtype))
    return uf.sqrt(red.sum(masks.squared_modulus(off_diagonal), axis=(-2, -1)))


def pair_rotation(app, aqq, apq, complex_entries: bool):
    """(c, s, phase) of the step that zeroes entry (p, q) = ``apq`` of a symmetric or
    Hermitian 2 x 2 block with real diagonal ``app``, ``aqq``; phase is None for real
    entries, else conj(apq) / |apq|, which makes the entry real before the rotation."""
    if not complex_entries:
        return (*rotation(app, aqq, apq), None)
    phase = masks.unit_phase(float_ops.conjugate(apq))
    return (*rotation(app, aqq, uf.abs(apq)), phase)


def _jacobi(a):
    """(w, v) with a v = v diag(w), unsorted, for symmetric or Hermitian (..., n, n) ``a``."""
    n = a.shape[-1]
    table_p, table_q = pair_tables(n)
    table_p, table_q = cr.asarray(table_p), cr.asarray(table_q)
    pairs = len(pair_tables(n)[0])
    positions = cr.arange(n, dtype=np.int32)
    eps = float(np.finfo(np.dtype(a.dtype)).eps)
    scale = uf.sqrt(red.sum(masks.squared_modulus(a), axis=(-2, -1)))
    complex_entries = masks.is_complex(a)

    def rotate(k, carry):
        a, v = carry
        ep = (positions == joining.take(table_p, k)).astype(a.dtype)
        eq = (positions == joining.take(table_q, k)).astype(a.dtype)
        ap, aq = masks.column(a, ep), masks.column(a, eq)
        app = float_ops.real(red.sum(ap * ep, axis=-1))
        aqq = float_ops.real(red.sum(aq * eq, axis=-1))
        # a_pq (row p of column q); for a real symmetric a, a_qp is the same number
        apq = red.sum(aq * ep, axis=-1) if complex_entries else red.sum(ap * eq, axis=-1)
        c, s, phase = pair_rotation(app, aqq, apq, complex_entries)
        c, s = c[..., None], s[..., None]
        phase = None if phase is None else phase[..., None]
        # A J turns columns p and q; J^H (A J) = ((A J)^H J)^H turns rows p and q
        a = masks.rotate_columns(a, ep, eq, c, s, phase)
        a = masks.adjoint(masks.rotate_columns(masks.adjoint(a), ep, eq, c, s, phase))
        return a, masks.rotate_columns(v, ep, eq, c, s, phase)

    def not_converged(carry):
        sweep, a, _ = carry
        return (sweep < MAX_SWEEPS) & red.any(_off_diagonal_norm(a) > eps * scale)

    def sweep(carry):
        count, a, v = carry
        a, v = fori_loop(0, pairs, rotate, (a, v))
        return count + 1, a, v

    v0 = cr.zeros_like(a) + cr.eye(n, dtype=a.dtype)
    _, a, v = while_loop(not_converged, sweep, (cr.asarray(0, np.int32), a, v0))
    return float_ops.real(joining.diagonal(a, axis1=-2, axis2=-1)), v


def _sorted(w, v):
    order = sorting.argsort(w, axis=-1)
    return (joining.take_along_axis(w, order, axis=-1),
            joining.take_along_axis(v, order[..., None, :], axis=-1))


def _eigh_composite(a):
    n = a.shape[-1]
    if n == 1:
        return cr.ones_like(a), float_ops.real(a[..., 0])
    w, v = _sorted(*_jacobi(a))
    return v, w


#: (eigenvectors as columns, eigenvalues ascending and real) of each Hermitian (real:
#: symmetric) matrix of a (..., n, n) operand, in lapack.syevd's order; the whole matrix
#: is given (eigh builds it from the triangle it reads). Its derivative is symmetric_eigh's.
eigh_p = core.Primitive("eigh")
eigh_p.multiple_results = True


@eigh_p.def_abstract_eval
def _eigh_abstract_eval(a):
    real = np.finfo(np.dtype(a.dtype)).dtype
    return a.strip_weak_type(), core.ShapedArray(a.shape[:-1], real, False)


@eigh_p.def_lowering
def _eigh_lowering(ctx, a):
    return library_lowering.lower(ctx, "lapack.syevd", [a], _eigh_composite, [1])


def _eigh_batch_rule(axis_size, args, dims):
    return eigh_p.bind(batching.bdim_to_front(args[0], dims[0], axis_size)), [0, 0]


batching.defrule(eigh_p, _eigh_batch_rule)


@custom_jvp
def symmetric_eigh(a):
    """(w ascending and real, v) of symmetric or Hermitian ``a``; each column of v has
    unit norm. Each column's sign (phase) is the routine's: LAPACK's and Jacobi's differ,
    as LAPACK builds' do."""
    v, w = eigh_p.bind(a)
    return w, v


@symmetric_eigh.defjvp
def _eigh_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    w, v = symmetric_eigh(a)
    n = a.shape[-1]
    eye = cr.eye(n, dtype=w.dtype)
    projected = linalg_ops.matmul(linalg_ops.matmul(masks.adjoint(v), da), v)
    # F_ij = 1 / (w_j - w_i) off the diagonal: infinite for repeated eigenvalues, as JAX's
    gaps = uf.reciprocal(eye + w[..., None, :] - w[..., :, None]) - eye
    # the eigenvalues of a Hermitian matrix stay real: only Re diag(V^H dA V) moves them
    dw = float_ops.real(joining.diagonal(projected, axis1=-2, axis2=-1))
    return (w, v), (dw, linalg_ops.matmul(v, gaps * projected))


def eigh(a, *, lower: bool = True, symmetrize_input: bool = True):
    """(eigenvalues ascending, eigenvectors as columns) of symmetric or Hermitian
    (..., n, n) ``a``: the eigenvalues are real (float32 for complex64, float64 for
    complex128). Only the triangle ``lower`` names is read unless ``symmetrize_input``,
    and then, as LAPACK's heevd, only the real part of the diagonal."""
    a = masks.as_square_matrix("eigh", a, allow_complex=True)
    if symmetrize_input:
        a = masks.symmetrize(a)
    else:
        triangle = joining.tril(a) if lower else joining.triu(a)
        diagonal = float_ops.real(a) * cr.eye(a.shape[-1], dtype=float_ops.real(a).dtype)
        strict = triangle - a * cr.eye(a.shape[-1], dtype=a.dtype)
        a = strict + masks.adjoint(strict) + diagonal.astype(a.dtype)
    return symmetric_eigh(a)
