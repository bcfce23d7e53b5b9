"""Products beyond dot and matmul: kron, cross, vecdot, matvec and vecmat."""

from __future__ import annotations

from numlir._src import dtypes
from numlir._src.numpy import creation, float_ops, joining, linalg_ops, reductions, reshaping
from numlir._src.numpy.util import check_arraylike, promote_dtypes


def kron(a, b):
    """The Kronecker product: blocks ``a[i, j] * b``."""
    check_arraylike("kron", a, b)
    a, b = promote_dtypes(creation.asarray(a), creation.asarray(b))
    nd = max(a.ndim, b.ndim)
    a = reshaping.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = reshaping.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    interleaved_a = reshaping.reshape(a, tuple(d for n in a.shape for d in (n, 1)))
    interleaved_b = reshaping.reshape(b, tuple(d for n in b.shape for d in (1, n)))
    return reshaping.reshape(interleaved_a * interleaved_b, tuple(x * y for x, y in zip(a.shape, b.shape)))


def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None):
    """The cross product of vectors of 2 or 3 components (2-D ones give the scalar z part)."""
    check_arraylike("cross", a, b)
    a, b = promote_dtypes(creation.asarray(a), creation.asarray(b))
    if axis is not None:
        axisa = axisb = axisc = axis
    a = linalg_ops.moveaxis(a, axisa, -1)
    b = linalg_ops.moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else creation.zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if b.shape[-1] == 3 else creation.zeros_like(b0)
    c = joining.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return linalg_ops.moveaxis(c, -1, axisc)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """``sum(conj(x1) * x2, axis)`` with broadcasting over the other axes."""
    check_arraylike("vecdot", x1, x2)
    x1, x2 = promote_dtypes(creation.asarray(x1), creation.asarray(x2))
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"x1 and x2 must have the same size along axis {axis}; got {x1.shape} and {x2.shape}")
    dtype = x1.dtype if preferred_element_type is None else preferred_element_type
    if dtypes.is_bool(x1.dtype) and dtypes.is_bool(dtype):
        # A boolean dot product is any(x1 and x2), as jax's dot of bools.
        return reductions.any(x1 & x2, axis=axis)
    # The result has the promoted type of x1 and x2 (the standard's and jax's), not sum's
    # widened default int: vecdot(uint8, uint8) is uint8, vecdot(uint8, int8) int16.
    return reductions.sum(float_ops.conjugate(x1) * x2, axis=axis, dtype=dtype)


def matvec(x1, x2, /):
    """Matrix-vector products over broadcast batch axes: ``(..., m, n) x (..., n) -> (..., m)``."""
    check_arraylike("matvec", x1, x2)
    x1, x2 = creation.asarray(x1), creation.asarray(x2)
    if x1.ndim < 2 or x2.ndim < 1:
        raise ValueError(f"matvec needs a matrix and a vector, got shapes {x1.shape} and {x2.shape}")
    return linalg_ops.matmul(x1, x2[..., None])[..., 0]


def vecmat(x1, x2, /):
    """Vector-matrix products over broadcast batch axes: ``(..., n) x (..., n, m) -> (..., m)``,
    conjugating the vector (as NumPy's)."""
    check_arraylike("vecmat", x1, x2)
    x1, x2 = float_ops.conjugate(creation.asarray(x1)), creation.asarray(x2)
    if x1.ndim < 1 or x2.ndim < 2:
        raise ValueError(f"vecmat needs a vector and a matrix, got shapes {x1.shape} and {x2.shape}")
    return linalg_ops.matmul(x1[..., None, :], x2)[..., 0, :]


