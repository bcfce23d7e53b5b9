"""jax.scipy.linalg's structured matrices built from a vector (fiedler, leslie, convolution
matrices) or from their order alone (pascal, invpascal, invhilbert, helmert, hadamard).

A matrix of a vector is a gather of that vector (with a zero in front) through a static
table of positions, so it batches over leading axes and differentiates like ``take``. A
matrix of its order is exact integer (or closed-form) arithmetic on the host, rounded once
to the result dtype: JAX gets the same values from gamma-function binomials, to a few ulps.
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

from numlir._src import core, dtypes
from numlir._src.jit import jit
from numlir._src.numpy import creation as cr
from numlir._src.numpy import joining, reshaping
from numlir._src.numpy import ufuncs as uf
from numlir._src.numpy.util import check_arraylike, promote_dtypes, promote_dtypes_inexact


def _gather(values, table: np.ndarray):
    """``values[..., table]`` after a zero is put in front of the last axis: table entries
    are 1-based positions, 0 meaning "zero"."""
    zero = cr.zeros(values.shape[:-1] + (1,), values.dtype)
    padded = joining.concatenate([zero, values], axis=-1)
    return joining.take(padded, cr.asarray(table.astype(np.int32)), axis=-1)


def _atleast_1d(x):
    x = cr.asarray(x)
    return x.reshape(1) if x.ndim == 0 else x


def fiedler(a):
    """The symmetric Fiedler matrix ``|a_i - a_j|`` of ``a`` (..., n): shape (..., n, n).

    Example::

        >>> jsl.fiedler(jnp.array([1, 4, 12]))
        Array([[ 0,  3, 11],
               [ 3,  0,  8],
               [11,  8,  0]], dtype=int32)
    """
    check_arraylike("fiedler", a)
    a = _atleast_1d(a)
    return uf.abs(a[..., :, None] - a[..., None, :])


def _fiedler_companion_table(n: int) -> np.ndarray:
    """Positions into [0, 1, -a_1, ..., -a_n] of the entries of the n x n Fiedler companion
    matrix: pentadiagonal, as scipy's."""
    table = np.zeros((n, n), np.int64)
    one, minus_a = 1, lambda k: 1 + k  # [0, 1, -a_1, ...]: 1 at 1, -a_k at 1 + k
    for i in range(n):
        for j in range(n):
            if i == 0 and j == 0:
                table[i, j] = minus_a(1)
            elif i == 1 and j == 0:
                table[i, j] = one
            elif i % 2 == 0 and j == i + 1:
                table[i, j] = minus_a(i + 2)
            elif i % 2 == 0 and j == i + 2:
                table[i, j] = one
            elif i % 2 == 0 and i >= 2 and j == i - 1:
                table[i, j] = minus_a(i + 1)
            elif i % 2 == 1 and i >= 3 and j == i - 2:
                table[i, j] = one
    return table


def fiedler_companion(a):
    """The Fiedler companion matrix of the polynomial with coefficients ``a`` (..., n+1),
    highest first: pentadiagonal, its eigenvalues the roots. Shape (..., n, n).

    Example::

        >>> jsl.fiedler_companion(jnp.array([1.0, -6.0, 11.0, -6.0]))  # roots 1, 2, 3
        Array([[  6., -11.,   1.],
               [  1.,   0.,   0.],
               [  0.,   6.,   0.]], dtype=float32)
    """
    check_arraylike("fiedler_companion", a)
    (a,) = promote_dtypes_inexact(_atleast_1d(a))
    if a.shape[-1] == 0:
        raise core.value_error("fiedler_companion requires the last axis of 'a' to have nonzero "
                               f"length, but got an array of shape {a.shape}.")
    return _fiedler_companion(a)


@jit
def _fiedler_companion(a):
    n = a.shape[-1] - 1
    a = a / a[..., :1]
    if n == 0:
        return cr.zeros(a.shape[:-1] + (0, 0), a.dtype)
    values = joining.concatenate([cr.ones(a.shape[:-1] + (1,), a.dtype), -a[..., 1:]], axis=-1)
    return _gather(values, _fiedler_companion_table(n))


def leslie(f, s):
    """The Leslie matrix: fecundities ``f`` (..., n) as its first row, survival rates ``s``
    (..., n-1) on the subdiagonal; batch dimensions broadcast. Shape (..., n, n).

    Example::

        >>> jsl.leslie(jnp.array([0.1, 2.0, 1.0]), jnp.array([0.2, 0.8]))
        Array([[0.1, 2. , 1. ],
               [0.2, 0. , 0. ],
               [0. , 0.8, 0. ]], dtype=float32)
    """
    check_arraylike("leslie", f, s)
    f, s = _atleast_1d(f), _atleast_1d(s)
    if f.shape[-1] < 2:
        raise core.value_error("The length of f along the last axis must be at least 2; "
                               f"got shape {f.shape}.")
    if s.shape[-1] != f.shape[-1] - 1:
        raise core.value_error(
            "Incorrect lengths for f and s. The length of s along the last axis must be one "
            f"less than the length of f; got f shape {f.shape} and s shape {s.shape}.")
    return _leslie(*promote_dtypes(f, s))


@jit
def _leslie(f, s):
    batch = tuple(np.broadcast_shapes(f.shape[:-1], s.shape[:-1]))
    f = reshaping.broadcast_to(f, batch + f.shape[-1:])
    s = reshaping.broadcast_to(s, batch + s.shape[-1:])
    n = f.shape[-1]
    table = np.zeros((n, n), np.int64)
    table[0, :] = 1 + np.arange(n)
    table[np.arange(1, n), np.arange(n - 1)] = 1 + n + np.arange(n - 1)
    return _gather(joining.concatenate([f, s], axis=-1), table)


def convolution_matrix(a, n: int, mode: str = "full"):
    """The Toeplitz matrix ``A`` (..., k, n) with ``A @ v == jnp.convolve(a, v, mode)`` for
    ``a`` (..., m): k is m + n - 1 ("full"), max(m, n) ("same") or max(m, n) - min(m, n) + 1
    ("valid").

    Example::

        >>> jsl.convolution_matrix(jnp.array([1, 2]), 3)
        Array([[1, 0, 0],
               [2, 1, 0],
               [0, 2, 1],
               [0, 0, 2]], dtype=int32)
    """
    n = operator.index(n)
    if n <= 0:
        raise core.value_error(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a = cr.asarray(a)
    if a.ndim == 0:
        raise core.value_error("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if m < 1:
        raise core.value_error(f"len(a) must be at least 1; got shape {a.shape}.")
    if mode not in ("full", "valid", "same"):
        raise core.value_error(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    return _convolution_matrix(a, n, mode)


@functools.partial(jit, static_argnums=(1, 2))
def _convolution_matrix(a, n: int, mode: str):
    m = a.shape[-1]
    if mode == "same":
        start, rows = (min(n, m) - 1) // 2, max(m, n)
    elif mode == "valid":
        start, rows = min(n, m) - 1, max(m, n) - min(m, n) + 1
    else:
        start, rows = 0, m + n - 1
    offset = np.arange(rows)[:, None] + start - np.arange(n)[None, :]  # A[i, j] = a[offset]
    table = np.where((offset >= 0) & (offset < m), offset + 1, 0)
    return _gather(a, table)


# --- matrices of their order ----------------------------------------------------------------


def _binomials(n: int) -> np.ndarray:
    """The exact lower Pascal matrix binom(i, j) as Python ints (object array)."""
    table = np.zeros((n, n), dtype=object)
    for i in range(n):
        for j in range(i + 1):
            table[i, j] = math.comb(i, j)
    return table


def _from_exact(table: np.ndarray, dtype):
    """Exact integers rounded once to ``dtype`` (beyond its range: inf, as JAX's)."""
    with np.errstate(over="ignore"):
        values = np.array([float(v) for v in table.ravel()], np.float64).reshape(table.shape)
        return cr.asarray(values.astype(dtype))


def _pascal_kind(kind):
    kind = "symmetric" if kind is None else kind
    valid = ["symmetric", "lower", "upper"]
    if kind not in valid:
        raise core.value_error(f"Expected kind to be one of: {valid}; got {kind}")
    return kind


def pascal(n: int, kind: str | None = None):
    """The n x n Pascal matrix: "lower" binom(i, j), "upper" its transpose, "symmetric"
    (default) binom(i + j, i). float32, as JAX's.

    Example::

        >>> jsl.pascal(3)
        Array([[1., 1., 1.],
               [1., 2., 3.],
               [1., 3., 6.]], dtype=float32)
    """
    kind = _pascal_kind(kind)
    lower = _binomials(n)
    table = {"lower": lower, "upper": lower.T, "symmetric": lower.dot(lower.T)}[kind]
    return _from_exact(table, np.float32)


def invpascal(n: int, kind: str | None = None):
    """The inverse of ``pascal(n, kind)``: ``(-1)^(i-j) binom(i, j)`` for "lower" (its
    transpose for "upper", U^-1 L^-1 for "symmetric"), in the default float dtype.

    Example::

        >>> jsl.invpascal(3, kind="lower")
        Array([[ 1.,  0.,  0.],
               [-1.,  1.,  0.],
               [ 1., -2.,  1.]], dtype=float32)
    """
    kind = _pascal_kind(kind)
    i = np.arange(n)
    signs = np.where((i[:, None] - i[None, :]) % 2 == 0, 1, -1).astype(object)
    lower = _binomials(n) * signs
    table = {"lower": lower, "upper": lower.T, "symmetric": lower.T.dot(lower)}[kind]
    return _from_exact(table, dtypes.default_float_dtype())


def invhilbert(n: int):
    """The exact inverse of the n x n Hilbert matrix, rounded to the default float dtype
    (its entries grow fast: past n = 14 or so they exceed float32's range).

    Example::

        >>> jsl.invhilbert(2)
        Array([[  4.,  -6.],
               [ -6.,  12.]], dtype=float32)
    """
    table = np.zeros((n, n), dtype=object)
    for i in range(n):
        for j in range(n):
            s = i + j
            table[i, j] = ((-1) ** s * (s + 1) * math.comb(n + i, n - j - 1)
                           * math.comb(n + j, n - i - 1) * math.comb(s, i) ** 2)
    return _from_exact(table, dtypes.default_float_dtype())


def helmert(n: int, full: bool = False):
    """The Helmert matrix: rows of orthonormal contrasts, (n-1, n), or (n, n) with the row
    ``1/sqrt(n)`` first if ``full``.

    Example::

        >>> jsl.helmert(3)
        Array([[ 0.70710677, -0.70710677,  0.        ],
               [ 0.40824828,  0.40824828, -0.8164966 ]], dtype=float32)
    """
    if n < 1:
        raise core.value_error(f"n must be a positive integer; got {n}.")
    k = np.arange(1, n, dtype=np.float64)[:, None]  # row k - 1 holds contrast k
    j = np.arange(n)[None, :]
    denom = np.sqrt(k * (k + 1))
    h = np.where(j < k, 1 / denom, np.where(j == k, -k / denom, 0.0))
    if full:
        h = np.concatenate([np.full((1, n), 1 / np.sqrt(n)), h], axis=0)
    return cr.asarray(h.astype(dtypes.default_float_dtype()))


def hadamard(n: int, dtype=int):
    """The n x n Hadamard matrix of Sylvester's construction (n a power of 2): entries
    +-1 with ``H @ H.T == n I``.

    Example::

        >>> jsl.hadamard(2)
        Array([[ 1,  1],
               [ 1, -1]], dtype=int32)
    """
    if n < 1 or not math.log2(n).is_integer():
        raise core.value_error(f"n must be a positive power of 2; got {n}.")
    h = np.ones((1, 1), np.int64)
    for _ in range(int(math.log2(n))):
        h = np.block([[h, h], [h, -h]])
    return cr.asarray(h, dtype=dtypes.canonicalize_dtype(dtype))


def dft(n: int, scale: str | None = None, *, dtype=None):
    """The ``n x n`` discrete Fourier transform matrix ``exp(-2 pi i j k / n)``, times ``1/n``
    (``scale="n"``) or ``1/sqrt(n)`` (``"sqrtn"``), as ``jax.scipy.linalg.dft``. The phases
    are exact integers ``j k mod n``, so the entries are rounded once."""
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"dft: n must be non-negative, got {n}")
    factors = {None: 1.0, "n": 1.0 / n if n else 1.0, "sqrtn": 1.0 / math.sqrt(n) if n else 1.0}
    if scale not in factors:
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    dtype = dtypes.default_complex_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_complex(dtype):
        raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    phase = np.outer(np.arange(n), np.arange(n)) % max(n, 1)
    values = np.exp(-2j * np.pi * phase / max(n, 1)) * factors[scale]
    return cr.asarray(values.astype(dtype))
