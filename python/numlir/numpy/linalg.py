"""numlir.numpy.linalg: norms, products and singular values of ``jax.numpy.linalg``.

Example::

    >>> import numlir.numpy as jnp
    >>> jnp.linalg.norm(jnp.array([3.0, 4.0]))
    Array(5., dtype=float32)
"""

from __future__ import annotations

import numpy as _np

from numlir._src import core as _core
from numlir._src.lax import type_checks as _tc
from numlir._src.numpy import reductions as _red
from numlir._src.numpy import ufuncs as _uf
from numlir._src.numpy.creation import asarray as _asarray
from numlir._src.numpy.linalg_ops import outer as _outer
from numlir._src.numpy.reshaping import squeeze as _squeeze
from numlir._src.numpy.reshaping import swapaxes as _swapaxes
from numlir._src.numpy.linalg_ops import tensordot as _tensordot
from numlir._src.numpy import creation as _creation
from numlir._src.numpy import joining as _joining
from numlir._src.numpy import sorting as _sorting
from numlir._src.lax.scan import fori_loop as _fori_loop
from numlir._src.numpy.linalg_ops import moveaxis as _moveaxis
from numlir._src.numpy.reshaping import expand_dims as _expand_dims
from numlir._src.numpy.util import check_arraylike, promote_args, promote_dtypes_inexact

_SVD_ORDS = (2, -2, "nuc")


def _vector_norm(x, ord, axes, keepdims):  # noqa: A002
    ax = _uf.abs(x)
    if ord is None or ord == 2:
        return _uf.sqrt(_red.sum(_uf.multiply(ax, ax), axis=axes, keepdims=keepdims))
    if ord == _np.inf:
        return _red.max(ax, axis=axes, keepdims=keepdims)
    if ord == -_np.inf:
        return _red.min(ax, axis=axes, keepdims=keepdims)
    if ord == 0:
        return _red.sum(_uf.not_equal(x, 0).astype(ax.dtype), axis=axes, keepdims=keepdims)
    if ord == 1:
        return _red.sum(ax, axis=axes, keepdims=keepdims)
    if isinstance(ord, str):
        raise _core.value_error(f"norm: invalid order {ord!r} for vectors")
    p = float(ord)
    return _uf.power(_red.sum(_uf.power(ax, p), axis=axes, keepdims=keepdims), 1.0 / p)


def _matrix_norm(x, ord, axes, keepdims):  # noqa: A002
    row, col = axes
    if ord is None or ord == "fro":
        return _vector_norm(x, None, axes, keepdims)
    if ord in _SVD_ORDS:
        sv = svd(_moveaxis(x, (row, col), (-2, -1)), compute_uv=False)  # (..., k), descending
        if ord == 2:
            out = _red.max(sv, axis=-1)
        elif ord == -2:
            out = _red.min(sv, axis=-1)
        else:
            out = _red.sum(sv, axis=-1)
        if keepdims:
            out = _expand_dims(out, tuple(sorted((row, col))))
        return out
    if ord in (1, -1):  # max/min over columns of the column sums
        reduce_axis, keep_axis = row, col
    elif ord in (_np.inf, -_np.inf):  # max/min over rows of the row sums
        reduce_axis, keep_axis = col, row
    else:
        raise _core.value_error(f"norm: invalid order {ord!r} for matrices")
    sums = _red.sum(_uf.abs(x), axis=reduce_axis, keepdims=True)
    pick = _red.max if ord in (1, _np.inf) else _red.min
    out = pick(sums, axis=keep_axis, keepdims=True)
    return out if keepdims else _squeeze(out, (row, col))


def norm(x, ord=None, axis=None, keepdims: bool = False):  # noqa: A002
    """Vector or matrix norm, as ``jax.numpy.linalg.norm``.

    Vectors (``axis`` an int, or 1-D ``x``): ``ord`` None/2, 1, inf, -inf, 0 or any number p.
    Matrices (``axis`` a pair, or 2-D ``x``): ``ord`` None/'fro', 1, -1, inf, -inf, and 2, -2,
    'nuc' (largest, smallest and sum of the singular values, from :func:`svd`).
    With ``ord`` and ``axis`` both None, the 2-norm of the flattened array.

    Example::

        >>> import numlir.numpy as jnp
        >>> jnp.linalg.norm(jnp.array([[1.0, -2.0], [3.0, 4.0]]), ord=1)
        Array(6., dtype=float32)
    """
    check_arraylike("norm", x)
    (x,) = promote_dtypes_inexact(_asarray(x))
    nd = x.ndim
    if axis is None:
        if ord is None:
            return _vector_norm(x, None, None, keepdims)
        if nd not in (1, 2):
            raise _core.value_error(f"norm: an array of dimension {nd} needs axis when ord is given")
        axis = tuple(range(nd))
    axes = (axis,) if isinstance(axis, (int, _np.integer)) else tuple(axis)
    axes = tuple(_tc.canonical_axis("norm", a, nd) for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if len(axes) == 2:
        if axes[0] == axes[1]:
            raise _core.value_error(f"norm: duplicate axes {axis}")
        return _matrix_norm(x, ord, axes, keepdims)
    raise _core.value_error(f"norm: axis must name one or two axes, got {axis}")


def _sweep_pairs(n):
    """Cyclic-by-rows Jacobi ordering of the column pairs (p, q), p < q, as one-hot rows."""
    pairs = [(p, q) for p in range(n - 1) for q in range(p + 1, n)]
    eye = _np.eye(n)
    return eye[[p for p, _ in pairs]], eye[[q for _, q in pairs]]


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False):
    """Singular values of real matrices, as ``jax.numpy.linalg.svd(a, compute_uv=False)``.

    ``a`` has shape ``(..., m, n)``; the result has shape ``(..., min(m, n))``, descending, batched
    over the leading axes. Computed with numlir ops (one-sided cyclic Jacobi: a fixed number of
    sweeps of column-pair rotations inside ``lax.fori_loop``), so it works eagerly and under jit.
    Only ``compute_uv=False`` is supported; ``compute_uv=True`` raises TypeError. Complex input
    raises TypeError.

    Example::

        >>> import numlir.numpy as jnp
        >>> jnp.linalg.svd(jnp.array([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
        Array([4., 3.], dtype=float32)
    """

    del full_matrices, hermitian  # no effect on the singular values
    if compute_uv:
        raise TypeError("svd: compute_uv=True (the singular vectors U and Vh) is not supported yet; "
                        "use svd(a, compute_uv=False) for the singular values")
    check_arraylike("svd", a)
    (a,) = promote_dtypes_inexact(_asarray(a))
    if a.ndim < 2:
        raise _core.value_error(f"svd: input must have dimension >= 2, got shape {a.shape}")
    if _np.dtype(a.dtype).kind == "c":
        raise TypeError("svd: complex input is not supported; numlir's svd handles real matrices")
    m, n = a.shape[-2], a.shape[-1]
    if n > m:  # rotate the fewer columns: singular values of a and a^T agree
        a = _swapaxes(a, -1, -2)
        m, n = n, m
    if n == 0:
        return _creation.zeros(a.shape[:-2] + (0,), a.dtype)
    if n == 1:
        return _uf.sqrt(_red.sum(_uf.multiply(a, a), axis=-2))
    onehot_p, onehot_q = _sweep_pairs(n)
    onehot_p = _creation.asarray(onehot_p, dtype=a.dtype)
    onehot_q = _creation.asarray(onehot_q, dtype=a.dtype)
    npairs = onehot_p.shape[0]
    pair_ids = _creation.arange(npairs)
    sweeps = 15 if _np.dtype(a.dtype) == _np.float64 else 10
    one = _creation.asarray(1.0, a.dtype)
    zero = _creation.asarray(0.0, a.dtype)

    def step(k, x):
        sel = (pair_ids == (k % npairs)).astype(a.dtype)[:, None]  # (npairs, 1)
        ep = _red.sum(onehot_p * sel, axis=0)  # one-hot of column p, (n,)
        eq = _red.sum(onehot_q * sel, axis=0)
        ap = _red.sum(x * ep, axis=-1)  # (..., m)
        aq = _red.sum(x * eq, axis=-1)
        alpha = _red.sum(ap * ap, axis=-1, keepdims=True)
        beta = _red.sum(aq * aq, axis=-1, keepdims=True)
        gamma = _red.sum(ap * aq, axis=-1, keepdims=True)
        rotate = gamma != zero
        zeta = (beta - alpha) / _uf.where(rotate, 2.0 * gamma, one)
        sign = _uf.where(zeta >= zero, one, -one)
        t = sign / (_uf.abs(zeta) + _uf.sqrt(one + zeta * zeta))
        t = _uf.where(rotate, t, zero)
        c = one / _uf.sqrt(one + t * t)
        s = c * t
        new_p = c * ap - s * aq
        new_q = s * ap + c * aq
        return x + (new_p - ap)[..., None] * ep + (new_q - aq)[..., None] * eq

    a = _fori_loop(0, sweeps * npairs, step, a)
    sv = _uf.sqrt(_red.sum(_uf.multiply(a, a), axis=-2))  # (..., n)
    return _joining.flip(_sorting.sort(sv, axis=-1), axis=-1)


def matrix_transpose(x, /):
    """Swap the last two axes of an array of dimension at least 2."""
    x = _asarray(x)
    if x.ndim < 2:
        raise _core.value_error(f"matrix_transpose requires an array of dimension >= 2, got {x.ndim}")
    return _swapaxes(x, -1, -2)


def vecdot(x1, x2, /, *, axis: int = -1):
    """Dot product of ``x1`` and ``x2`` along ``axis``, broadcasting the other axes."""
    x1, x2 = promote_args("vecdot", _asarray(x1), _asarray(x2))
    return _red.sum(_uf.multiply(x1, x2), axis=axis, dtype=x1.dtype)


def outer(x1, x2, /):
    """Outer product of two 1-D arrays."""
    x1, x2 = _asarray(x1), _asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise _core.value_error(f"linalg.outer requires 1-D inputs, got shapes {x1.shape} and {x2.shape}")
    return _outer(x1, x2)


def tensordot(x1, x2, /, *, axes=2):
    """``numlir.numpy.tensordot`` with the array-API signature."""
    return _tensordot(x1, x2, axes)

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
