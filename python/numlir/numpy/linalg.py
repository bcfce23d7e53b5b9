"""numlir.numpy.linalg: ``jax.numpy.linalg``; every factorization and solver takes complex
matrices too (eig and eigvals return complex results for real input as well).

The factorizations (Cholesky, LU, QR, symmetric eigendecomposition, SVD) are
numlir compositions, batched over leading axes, with JAX's derivative rules
(numlir._src.linalg, docs/linear-algebra.md).

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
from numlir._src.linalg.decompositions import (EighResult, QRResult, SVDResult, cholesky, eigh,
                                               eigvalsh, qr, svd, svdvals)
from numlir._src.linalg.eig import eig, eigvals
from numlir._src.linalg.solvers import (SlogdetResult, cond, det, inv, lstsq, matrix_power,
                                        matrix_rank, multi_dot, pinv, slogdet, solve, tensorinv,
                                        tensorsolve)
from numlir._src.numpy import linalg_ops as _linalg_ops
from numlir._src.numpy import products as _products
from numlir._src.numpy import float_ops as _float_ops
from numlir._src.numpy.linalg_ops import moveaxis as _moveaxis
from numlir._src.numpy.reshaping import expand_dims as _expand_dims
from numlir._src.numpy.util import check_arraylike, promote_args, promote_dtypes_inexact

_SVD_ORDS = (2, -2, "nuc")


def _vector_norm(x, ord, axes, keepdims):  # noqa: A002
    if ord is None or ord == 2:
        # jax's formula, not |x| * |x|: where the squares underflow to 0, sqrt's cotangent
        # is inf, and x * conj(x) passes it on as ±inf per part where |x|'s derivative
        # x / |x| made NaN of it (fuzz seed 127, program 20915).
        squares = _float_ops.real(_uf.multiply(x, _float_ops.conjugate(x)))
        return _uf.sqrt(_red.sum(squares, axis=axes, keepdims=keepdims))
    ax = _uf.abs(x)
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


def matrix_transpose(x, /):
    """Swap the last two axes of an array of dimension at least 2."""
    x = _asarray(x)
    if x.ndim < 2:
        raise _core.value_error(f"matrix_transpose requires an array of dimension >= 2, got {x.ndim}")
    return _swapaxes(x, -1, -2)


def vecdot(x1, x2, /, *, axis: int = -1):
    """Dot product of ``x1`` and ``x2`` along ``axis``, broadcasting the other axes; ``x1`` is
    conjugated."""
    x1, x2 = promote_args("vecdot", _asarray(x1), _asarray(x2))
    return _red.sum(_uf.multiply(_float_ops.conjugate(x1), x2), axis=axis, dtype=x1.dtype)


def outer(x1, x2, /):
    """Outer product of two 1-D arrays."""
    x1, x2 = _asarray(x1), _asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise _core.value_error(f"linalg.outer requires 1-D inputs, got shapes {x1.shape} and {x2.shape}")
    return _outer(x1, x2)


def tensordot(x1, x2, /, *, axes=2):
    """``numlir.numpy.tensordot`` with the array-API signature."""
    return _tensordot(x1, x2, axes)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """``numlir.numpy.matmul`` with the array-API signature (CPU contractions always run at
    full precision; ``preferred_element_type`` casts the result)."""
    del precision
    out = _linalg_ops.matmul(x1, x2)
    return out if preferred_element_type is None else out.astype(preferred_element_type)


def cross(x1, x2, /, *, axis: int = -1):
    """The cross product of 3-vectors along ``axis`` (array API: both must have size 3)."""
    x1, x2 = _asarray(x1), _asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise _core.value_error(f"linalg.cross needs size 3 along axis {axis}, got shapes "
                                f"{x1.shape} and {x2.shape}")
    return _products.cross(x1, x2, axis=axis)


def trace(x, /, *, offset: int = 0, dtype=None):
    """The sum of the diagonal of the last two axes."""
    return _joining.trace(_asarray(x), offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def diagonal(x, /, *, offset: int = 0):
    """The diagonal of the last two axes."""
    return _joining.diagonal(_asarray(x), offset=offset, axis1=-2, axis2=-1)


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):  # noqa: A002
    """The vector norm over ``axis`` (all axes, flattened, if None)."""
    check_arraylike("vector_norm", x)
    (x,) = promote_dtypes_inexact(_asarray(x))
    if axis is None:
        out = _vector_norm(x.ravel(), ord, (0,), False)
        return _creation.full((1,) * x.ndim, out) if keepdims else out
    axes = (axis,) if isinstance(axis, (int, _np.integer)) else tuple(axis)
    axes = tuple(_tc.canonical_axis("vector_norm", a, x.ndim) for a in axes)
    return _vector_norm(x, ord, axes, keepdims)


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):  # noqa: A002
    """The matrix norm of the last two axes."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
