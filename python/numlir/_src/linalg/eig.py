"""Eigenvalues and eigenvectors of general matrices: LAPACK's geev where the backend calls it
(jnp.linalg.eig's routine), else the numlir program below, which follows geev.

Real input, as dgeev: from the real Schur form ``a = z t z^T`` (scipy/linalg_schur.py) the
eigenvalues are the 1 x 1 and 2 x 2 diagonal blocks of ``t``, a complex pair with the
positive imaginary part first. Each eigenvector of ``t`` is found by back substitution, all
of them at once (dtrevc's starting values, so the result equals LAPACK's up to rounding:
``x_k = 1`` for a real eigenvalue; for a pair, dtrevc's choice between the two rows of the
block), then multiplied by ``z``, scaled to unit norm, and, for a complex pair, turned so
that its largest component is real with the sign of its real part (dgeev's rotation).

Complex input, as zgeev: from the complex Schur form ``a = z t z^H``
(scipy/linalg_complex_schur.py) the eigenvalues are ``diag(t)``; the eigenvectors of the
upper triangular ``t`` by back substitution (ztrevc), times ``z``, scaled to unit norm and
turned so that their largest component is real and positive (zgeev).

Both start as geev does: the matrix is balanced (balance.py: permuted towards triangular
form, then rows and columns scaled by powers of two until their norms are comparable), so
the small eigenvalues of a badly scaled matrix keep their accuracy, and divided by powers of
two so that its largest entry is near 1 (the Schur iteration squares entries, which near
1e200 would overflow). The eigenvectors are taken back through the balancing (gebak) before
they are normalized; the eigenvalues are multiplied back by the powers of two.

Small pivots are replaced by a floor (``eps * |t|`` for real input as dtrevc,
``eps * |w_k|`` for complex input as ztrevc), so a repeated eigenvalue of a diagonalizable
matrix gets independent eigenvectors, and a defective one gives LAPACK's nearly parallel
pair.

Derivatives are JAX's rules (custom_jvp): ``dw = diag(V^-1 dA V)`` for the eigenvalues;
for the eigenvectors (only through ``lax.linalg.eig(enable_eigvec_derivs=True)``, as in
JAX: ``jnp.linalg.eig`` refuses) nondegenerate perturbation theory plus the term that keeps
geev's normalization. Both divide by differences of eigenvalues or by ``V``, so repeated
eigenvalues give non-finite derivatives, as in JAX.
"""

from __future__ import annotations

import numpy as np

from numlir._src import batching, core, dtypes
from numlir._src.custom_derivatives import custom_jvp
from numlir._src.lax import complex_ops
from numlir._src.lax import elementwise as ew
from numlir._src.lax import library_lowering
from numlir._src.lax.scan import fori_loop
from numlir._src.linalg.balance import balance, unbalance_vectors
from numlir._src.linalg.masks import adjoint, as_square_matrix, onehot, row
from numlir._src.linalg.solvers import inv, solve
from numlir._src.numpy import creation as cr
from numlir._src.numpy import float_ops, joining, linalg_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf
from numlir._src.scipy.linalg_complex_schur import complex_schur
from numlir._src.scipy.linalg_schur import eigenvalue_parts, power_of_two_scale, real_schur


def _prepared(a):
    """(c, p, d, scales): the matrix the Schur iteration runs on, ``c = D^-1 P^T (a / s1) P D
    / s2`` (geev's balancing between two exact scalings by powers of two, the second
    because balancing moves the largest entry), and what undoes it; its eigenvalues times
    s2 and then s1 are a's (in that order: s1 s2 alone may overflow)."""
    before = power_of_two_scale(a)
    b, p, d = balance(a / before)
    after = power_of_two_scale(b)
    return b / after, p, d, (after[..., 0], before[..., 0])


def _scaled_back(w, scales):
    for s in scales:
        w = w * s.astype(w.dtype)
    return w


def _with_largest_entry_near_one(v):
    """Columns of v divided by powers of two, exactly, so that their largest entries are near
    1 and their squared norms cannot overflow or underflow (back through the balancing,
    components can be as far apart as its scale factors)."""
    largest = red.max(uf.abs(v), axis=-2, keepdims=True, initial=0)
    _, exponent = float_ops.frexp(largest)
    return v / float_ops.ldexp(cr.ones_like(largest), exponent).astype(v.dtype)


def _pair_roles(t):
    """Masks (..., n): k is the top row of a 2 x 2 block, or its bottom row."""
    sub = joining.diagonal(t, offset=-1, axis1=-2, axis2=-1) != 0  # t[k + 1, k]
    pad = cr.zeros(sub.shape[:-1] + (1,), bool)
    top = joining.concatenate([sub, pad], axis=-1)
    bottom = joining.concatenate([pad, sub], axis=-1)
    return top, bottom


def _starting_vectors(t, w_re, w_im, top, bottom):
    """dtrevc's values in the rows of each eigenvalue's own block, zero elsewhere:
    (..., n rows, n eigenvalues), complex."""
    n = t.shape[-1]
    ctype = dtypes.complex_dtype_of(t.dtype)
    eye = cr.eye(n, dtype=t.dtype)
    sup = joining.diagonal(t, offset=1, axis1=-2, axis2=-1)  # t[k, k + 1]
    sub = joining.diagonal(t, offset=-1, axis1=-2, axis2=-1)  # t[k + 1, k]
    pad = cr.zeros(sup.shape[:-1] + (1,), t.dtype)
    b_top = joining.concatenate([sup, pad], axis=-1)  # for a top row k: t[k, k + 1]
    c_top = joining.concatenate([sub, pad], axis=-1)  # t[k + 1, k]
    b_bottom = joining.concatenate([pad, sup], axis=-1)  # for a bottom row k: t[k - 1, k]
    c_bottom = joining.concatenate([pad, sub], axis=-1)  # t[k, k - 1]
    # The top eigenvalue m + i w of a block [[m, b], [c, m]]: (1, i w / b) when |b| >= |c|,
    # else (-w / c, i); the bottom one, m - i w, has the conjugate vector.
    w_top, w_bottom = uf.abs(w_im), uf.abs(w_im)
    first_row = uf.abs(b_top) >= uf.abs(c_top)
    safe = lambda v: uf.where(v == 0, 1, v)  # noqa: E731
    upper_top = uf.where(first_row, 1, -w_top / safe(c_top)).astype(ctype)
    lower_top = uf.where(first_row, complex_ops.complex(cr.zeros_like(w_top), w_top / safe(b_top)),
                         1j).astype(ctype)
    first_row_b = uf.abs(b_bottom) >= uf.abs(c_bottom)
    upper_bottom = uf.where(first_row_b, 1, -w_bottom / safe(c_bottom)).astype(ctype)
    lower_bottom = uf.where(first_row_b, complex_ops.complex(cr.zeros_like(w_bottom),
                                                             -w_bottom / safe(b_bottom)), -1j)
    lower_bottom = lower_bottom.astype(ctype)
    diag = eye.astype(ctype)
    below = joining.roll(eye, 1, axis=-2).astype(ctype) * (cr.arange(n)[:, None] > 0)  # row k + 1
    above = joining.roll(eye, -1, axis=-2).astype(ctype) * (cr.arange(n)[:, None] < n - 1)  # k - 1
    single = ~(top | bottom)
    x = uf.where(single[..., None, :], diag, 0)
    x = x + uf.where(top[..., None, :], diag * upper_top[..., None, :]
                     + below * lower_top[..., None, :], 0)
    return x + uf.where(bottom[..., None, :], above * upper_bottom[..., None, :]
                        + diag * lower_bottom[..., None, :], 0)


def _back_substitute(t, w, x, top, bottom):
    """Solve ``(t - w_k) y_k = 0`` upwards from each eigenvalue's block, all k at once."""
    n = t.shape[-1]
    ctype = x.dtype
    finfo = np.finfo(np.dtype(t.dtype))
    smin = red.max(uf.abs(t), axis=(-2, -1), keepdims=True)[..., 0] * finfo.eps
    smin = uf.maximum(smin, finfo.tiny)  # (..., 1)
    idx = cr.arange(n)
    start = uf.where(bottom, idx - 1, idx)  # the first row of k's block: rows >= it are fixed
    tc = t.astype(ctype)

    def solve_row(s, x):
        i = n - 1 - s
        ei = onehot(i, n, t.dtype)
        eh = onehot(i - 1, n, t.dtype)
        ti, th = row(tc, ei), row(tc, eh)  # (..., n)
        rhs_i = -linalg_ops.matmul(ti[..., None, :], x)[..., 0, :]  # (..., k)
        rhs_h = -linalg_ops.matmul(th[..., None, :], x)[..., 0, :]
        tii = red.sum(ti * ei, axis=-1)[..., None]
        tih = red.sum(ti * eh, axis=-1)[..., None]  # t[i, i - 1]
        thh = red.sum(th * eh, axis=-1)[..., None]
        thi = red.sum(th * ei, axis=-1)[..., None]  # t[i - 1, i]
        is_bottom = red.sum(bottom.astype(t.dtype) * ei, axis=-1)[..., None] > 0
        is_top = red.sum(top.astype(t.dtype) * ei, axis=-1)[..., None] > 0
        active = i < start  # (..., k)

        def pivot(d, floor):
            return uf.where(uf.abs(d) < floor, floor.astype(ctype), d)

        # A 1 x 1 block.
        y_single = rhs_i / pivot(tii - w, smin)
        # A 2 x 2 block (rows i - 1, i), by Cramer's rule.
        a, b, c, d = thh - w, thi, tih, tii - w
        det = pivot(a * d - b * c, smin * smin)
        y_h = (rhs_h * d - b * rhs_i) / det
        y_i = (a * rhs_i - c * rhs_h) / det
        new_i = uf.where(is_bottom, y_i, y_single)
        write_i = active & ~is_top  # a top row was written with the bottom one
        write_h = active & is_bottom & (i >= 1)
        x = uf.where(ei.astype(bool)[:, None] & write_i[..., None, :], new_i[..., None, :], x)
        return uf.where(eh.astype(bool)[:, None] & write_h[..., None, :], y_h[..., None, :], x)

    return fori_loop(0, n, solve_row, x)


def _normalize(v, complex_pair):
    """Unit columns; a complex pair's column turned so that its largest component is real
    with the sign of its real part (dgeev: dlartg on that component)."""
    v = _with_largest_entry_near_one(v)
    v = v / uf.sqrt(red.sum(uf.abs(v) ** 2, axis=-2, keepdims=True)).astype(v.dtype)
    big = red.argmax(uf.abs(v) ** 2, axis=-2, keepdims=True)
    picked = red.sum(uf.where(cr.arange(v.shape[-2])[:, None] == big, v, 0), axis=-2,
                     keepdims=True)
    f, g = complex_ops.real(picked), complex_ops.imag(picked)
    r = uf.where(f < 0, -1, 1).astype(f.dtype) * uf.sqrt(f * f + g * g)
    r = uf.where(r == 0, 1, r)
    turn = complex_ops.complex(f / r, -g / r)
    return uf.where(complex_pair[..., None, :], v * turn, v)


def _real_eig(a):
    c, p, d, scales = _prepared(a)
    t, z = real_schur(c)
    w_re, w_im = eigenvalue_parts(t)
    w = complex_ops.complex(w_re, w_im)
    top, bottom = _pair_roles(t)
    x = _starting_vectors(t, w_re, w_im, top, bottom)
    y = _back_substitute(t, w, x, top, bottom)
    v = unbalance_vectors(linalg_ops.matmul(z.astype(y.dtype), y), p, d)
    v = _normalize(v, top)
    # The bottom eigenvalue's vector is exactly the conjugate of the top one's.
    shifted = joining.roll(v, 1, axis=-1)
    v = uf.where(bottom[..., None, :], complex_ops.conj(shifted), v)
    return _scaled_back(w, scales), v


def _cabs1(x):
    """|Re x| + |Im x|, LAPACK's cheap modulus (its pivot tests use it)."""
    return uf.abs(complex_ops.real(x)) + uf.abs(complex_ops.imag(x))


def _triangular_eigenvectors(t, w):
    """Columns x_k with ``(t - w_k) x_k = 0``, ``x_kk = 1`` and zeros below row k, for upper
    triangular complex ``t`` and ``w = diag(t)``: solved upwards one row at a time, for all k
    at once (ztrevc without its overflow scaling). A pivot ``t_ii - w_k`` below ztrevc's
    floor ``max(eps |w_k|, tiny n / eps)`` is replaced by it, so repeated eigenvalues give
    finite (nearly parallel) vectors as LAPACK's."""
    n = t.shape[-1]
    real = np.finfo(np.dtype(t.dtype)).dtype
    finfo = np.finfo(real)
    floor = uf.maximum(finfo.eps * _cabs1(w), finfo.tiny * (n / finfo.eps))  # (..., k)
    columns = cr.arange(n)
    x = cr.zeros_like(t) + cr.eye(n, dtype=t.dtype)

    def solve_row(s, x):
        i = n - 2 - s
        ei = onehot(i, n, real)
        ti = row(t, ei.astype(t.dtype))  # t[i, :]
        rhs = -linalg_ops.matmul(ti[..., None, :], x)[..., 0, :]  # x[i, k > i] is still 0
        pivot = red.sum(ti * ei, axis=-1)[..., None] - w
        pivot = uf.where(_cabs1(pivot) < floor, floor.astype(t.dtype), pivot)
        write = (ei != 0)[:, None] & (columns > i)[None, :]
        return uf.where(write, (rhs / pivot)[..., None, :], x)

    return fori_loop(0, n - 1, solve_row, x)


def _unit_with_real_largest_component(v):
    """Each column scaled to unit 2-norm and turned so that its largest component (the
    first of the largest) is real and positive, as zgeev."""
    v = _with_largest_entry_near_one(v)
    v = v / uf.sqrt(red.sum(_squared_modulus(v), axis=-2, keepdims=True)).astype(v.dtype)
    squares = _squared_modulus(v)
    largest = (cr.arange(v.shape[-2])[:, None] == red.argmax(squares, axis=-2, keepdims=True))
    picked = red.sum(uf.where(largest, v, 0), axis=-2, keepdims=True)
    size = uf.sqrt(red.sum(uf.where(largest, squares, 0), axis=-2, keepdims=True))
    v = v * (complex_ops.conj(picked) / uf.where(size == 0, 1, size).astype(v.dtype))
    # zgeev sets that component's imaginary part to exactly zero
    return uf.where(largest, complex_ops.real(v).astype(v.dtype), v)


def _squared_modulus(x):
    return uf.square(complex_ops.real(x)) + uf.square(complex_ops.imag(x))


def _complex_eig(a):
    c, p, d, scales = _prepared(a)
    t, z = complex_schur(c)
    w = joining.diagonal(t, axis1=-2, axis2=-1)
    v = unbalance_vectors(linalg_ops.matmul(z, _triangular_eigenvectors(t, w)), p, d)
    return _scaled_back(w, scales), _unit_with_real_largest_component(v)


def _eig(a):
    if a.shape[-1] == 0:
        ctype = a.dtype if dtypes.is_complex(a.dtype) else dtypes.complex_dtype_of(a.dtype)
        return cr.zeros(a.shape[:-1], ctype), cr.zeros(a.shape, ctype)
    return _complex_eig(a) if dtypes.is_complex(a.dtype) else _real_eig(a)


def _eigenvalues_composite(a):
    if a.shape[-1] == 0:
        return _eig(a)[0]
    c, _, _, scales = _prepared(a)
    if dtypes.is_complex(a.dtype):
        w = joining.diagonal(complex_schur(c)[0], axis1=-2, axis2=-1)
    else:
        w = complex_ops.complex(*eigenvalue_parts(real_schur(c)[0]))
    return _scaled_back(w, scales)


#: [w] or [w, v] (``vectors``) of a square (..., n, n) operand, in lapack.geev's order:
#: complex eigenvalues and unit right eigenvectors as geev gives them. Its derivatives are
#: the custom JVPs below.
eig_p = core.Primitive("eig")
eig_p.multiple_results = True


@eig_p.def_abstract_eval
def _eig_abstract_eval(a, *, vectors):
    ctype = a.dtype if dtypes.is_complex(a.dtype) else dtypes.complex_dtype_of(a.dtype)
    w = core.ShapedArray(a.shape[:-1], ctype, False)
    return [w, core.ShapedArray(a.shape, ctype, False)] if vectors else [w]


@eig_p.def_lowering
def _eig_lowering(ctx, a, *, vectors):
    composite = (lambda a: list(_eig(a))) if vectors else _eigenvalues_composite
    return library_lowering.lower(ctx, "lapack.geev", [a], composite, [int(vectors)])


def _eig_batch_rule(axis_size, args, dims, *, vectors):
    outs = eig_p.bind(batching.bdim_to_front(args[0], dims[0], axis_size), vectors=vectors)
    return outs, [0] * len(outs)


batching.defrule(eig_p, _eig_batch_rule)


def _eig_values_and_vectors(a):
    w, v = eig_p.bind(a, vectors=True)
    return w, v


def _eigenvalue_tangents(v, da):
    """``diag(V^-1 dA V)``: first-order perturbation of simple eigenvalues."""
    return red.sum(solve(v, da) * v.swapaxes(-1, -2), axis=-1)


def _left_eigenvectors(w, vr, real_input: bool):
    """The left eigenvectors from the right ones: the rows of ``vr^-1`` satisfy
    ``y_j^H a = w_j y_j^H`` (for distinct eigenvalues), so their conjugates, normalized as
    geev's, are its ``vl``. For a real eigenvalue of real input dgeev only scales to unit
    norm; its sign there makes ``vl_j^H vr_j`` positive (dtrevc starts both from 1 in row
    j of the Schur form), as ``vr^-1``'s own sign does."""
    vl = adjoint(inv(vr))
    if real_input:
        return _normalize(vl, complex_ops.imag(w) != 0)
    return _unit_with_real_largest_component(vl)


def _eigenvector_tangents(w, v, da):
    """(dw, dv) for ``a v = v diag(w)``: dv = V (F o V^-1 dA V) with ``F_ij = 1 / (w_j - w_i)``
    off the diagonal, plus ``v_j c_j``, the multiple of each vector that keeps geev's
    normalization: unit norm (``Re(v_j^H dv_j) = 0``) and a real largest component
    (``Im dv_kj = 0``, k the row of v_j's largest component)."""
    n = w.shape[-1]
    eye = cr.eye(n, dtype=w.dtype)
    gaps = uf.reciprocal(eye + w[..., None, :] - w[..., :, None]) - eye
    projected = linalg_ops.matmul(solve(v, da), v)
    dw = joining.diagonal(projected, axis1=-2, axis2=-1)
    u = linalg_ops.matmul(v, gaps * projected)
    largest = cr.arange(n)[:, None] == red.argmax(uf.abs(v), axis=-2, keepdims=True)
    along = -complex_ops.real(red.sum(complex_ops.conj(v) * u, axis=-2))
    turn = -(complex_ops.imag(red.sum(uf.where(largest, u, 0), axis=-2))
             / complex_ops.real(red.sum(uf.where(largest, v, 0), axis=-2)))
    return dw, u + v * complex_ops.complex(along, turn)[..., None, :]


@custom_jvp
def _eigenvalues(a):
    return eig_p.bind(a, vectors=False)[0]


@_eigenvalues.defjvp
def _eigenvalues_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    w, v = _eig_values_and_vectors(a)
    return w, _eigenvalue_tangents(v, da.astype(v.dtype))


@custom_jvp
def _eigenvalues_and_vectors(a):
    return tuple(_eig_values_and_vectors(a))


@_eigenvalues_and_vectors.defjvp
def _eigenvalues_and_vectors_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    w, v = _eig_values_and_vectors(a)
    return (w, v), _eigenvector_tangents(w, v, da.astype(v.dtype))


#: JAX's words where it refuses eigenvector derivatives without the opt-in.
EIGENVECTOR_DERIVATIVES_REFUSED = (
    "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the "
    "input that JAX cannot check (see the enable_eigvec_derivs argument to "
    "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. "
    "See https://github.com/jax-ml/jax/issues/2748 for discussion.")


def eig(a):
    """Eigenvalues ``w`` and unit right eigenvectors ``v`` (columns) of square ``a``,
    ``a @ v = v * w``, as ``jnp.linalg.eig`` (LAPACK's dgeev / zgeev): complex results;
    for real input, pairs of conjugate eigenvalues with the positive imaginary part first.
    Batched over leading axes. Not differentiable, as JAX's (see ``lax.linalg.eig``)."""
    a = as_square_matrix("eig", a, allow_complex=True)
    a = ew.no_derivative(a, EIGENVECTOR_DERIVATIVES_REFUSED)
    return tuple(_eig_values_and_vectors(a))


def eigvals(a):
    """The eigenvalues of square ``a``, as ``jnp.linalg.eigvals`` (complex, geev's order);
    differentiable as JAX's: ``dw = diag(V^-1 dA V)``."""
    return _eigenvalues(as_square_matrix("eigvals", a, allow_complex=True))


def lax_eig(x, *, compute_left_eigenvectors: bool = True,
            compute_right_eigenvectors: bool = True, enable_eigvec_derivs: bool = False):
    """``jax.lax.linalg.eig``: [w], then the left eigenvectors ``vl`` (``vl^H a = w vl^H``)
    if asked, then the right ones ``vr``; eigenvector derivatives only with
    ``enable_eigvec_derivs``."""
    x = as_square_matrix("eig", x, allow_complex=True)
    real_input = not dtypes.is_complex(x.dtype)
    if not (compute_left_eigenvectors or compute_right_eigenvectors):
        return [_eigenvalues(x)]
    if not enable_eigvec_derivs:
        x = ew.no_derivative(x, EIGENVECTOR_DERIVATIVES_REFUSED)
    w, vr = _eigenvalues_and_vectors(x)
    out = [w]
    if compute_left_eigenvectors:
        out.append(_left_eigenvectors(w, vr, real_input))
    if compute_right_eigenvectors:
        out.append(vr)
    return out
