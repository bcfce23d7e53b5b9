"""Arrays built from shapes and index patterns: empty, copy, indices, meshgrid, the
triangle and diagonal index helpers, diagflat, vander, logspace, geomspace and the
classic window functions (bartlett, blackman, hamming, hanning)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from numlir._src import dtypes
from numlir._src.numpy import creation, joining, linalg_ops, reshaping, ufuncs
from numlir._src.numpy.float_ops import i0
from numlir._src.numpy.selection import nonzero
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_args_inexact


def empty(shape, dtype=None, *, device=None):
    """A new array of ``shape``; numlir's are zero-filled (``jnp.empty`` is ``jnp.zeros``)."""
    return creation.zeros(shape, dtype, device=device)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    return creation.zeros_like(prototype, dtype=dtype, shape=shape, device=device)


def copy(a, order=None):
    """A copy of ``a`` (arrays are immutable; this is ``array(a, copy=True)``)."""
    return creation.array(a, copy=True)


def indices(dimensions: Sequence[int], dtype=None, sparse: bool = False):
    """Index grids of ``dimensions``: one array per axis, stacked unless ``sparse``."""
    dtype = dtypes.default_int_dtype() if dtype is None else dtype
    dimensions = tuple(int(d) for d in dimensions)
    grids = []
    for axis, n in enumerate(dimensions):
        shape = [1] * len(dimensions)
        shape[axis] = n
        grid = reshaping.reshape(creation.arange(n, dtype=dtype), shape)
        grids.append(grid if sparse else reshaping.broadcast_to(grid, dimensions))
    if sparse:
        return tuple(grids)
    return joining.stack(grids) if grids else creation.zeros((0,), dtype)


def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
    """Coordinate grids from 1-D arrays (``indexing`` "xy": the first two axes swapped)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    check_arraylike("meshgrid", *xi)
    arrays = [creation.asarray(x) for x in xi]
    for i, a in enumerate(arrays):
        if a.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shape {a.shape} for argument {i}")
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        axis = i
        if indexing == "xy" and len(arrays) >= 2 and i < 2:
            axis = 1 - i
        grid_shape = [1] * len(arrays)
        grid_shape[axis] = a.shape[0]
        grid = reshaping.reshape(a, grid_shape)
        out.append(grid if sparse else reshaping.broadcast_to(grid, shape))
    return out


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function(*grids, **kwargs)`` on the index grids of ``shape`` (of ``dtype``)."""
    shape = tuple(int(d) for d in shape)
    return function(*indices(shape, dtype=dtype), **kwargs) if shape else function(**kwargs)


def mask_indices(n: int, mask_func, k: int = 0, *, size: int | None = None):
    """The indices where ``mask_func(ones((n, n)), k)`` is nonzero (``triu``, ``tril``...)."""
    return nonzero(mask_func(creation.ones((int(n), int(n)), dtypes.default_int_dtype()), k), size=size)


def _index_pair(rows, cols):
    idt = dtypes.default_int_dtype()  # jax's indices have the default integer dtype
    return creation.asarray(rows.astype(idt)), creation.asarray(cols.astype(idt))


def tril_indices(n: int, k: int = 0, m: int | None = None):
    """Row and column indices of the lower triangle of an ``(n, m)`` array."""
    return _index_pair(*np.tril_indices(int(n), int(k), None if m is None else int(m)))


def triu_indices(n: int, k: int = 0, m: int | None = None):
    """Row and column indices of the upper triangle of an ``(n, m)`` array."""
    return _index_pair(*np.triu_indices(int(n), int(k), None if m is None else int(m)))


def _matrix_shape(name, arr):
    shape = reshaping.shape(arr)
    if len(shape) != 2:
        raise ValueError(f"{name} requires a 2-dimensional array, got shape {shape}")
    return shape


def tril_indices_from(arr, k: int = 0):
    n, m = _matrix_shape("tril_indices_from", arr)
    return tril_indices(n, k, m)


def triu_indices_from(arr, k: int = 0):
    n, m = _matrix_shape("triu_indices_from", arr)
    return triu_indices(n, k, m)


def diag_indices(n: int, ndim: int = 2):
    """The indices of the main diagonal of an ``(n,) * ndim`` array: ``ndim`` copies of ``arange(n)``."""
    if n < 0 or ndim < 0:
        raise ValueError(f"n and ndim must be non-negative, got n={n}, ndim={ndim}")
    return (creation.arange(int(n), dtype=dtypes.default_int_dtype()),) * int(ndim)


def diag_indices_from(arr):
    shape = reshaping.shape(arr)
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError(f"diag_indices_from requires an array of rank >= 2 with equal dimensions, got {shape}")
    return diag_indices(shape[0], len(shape))


def diagflat(v, k: int = 0):
    """A 2-D array with the flattened ``v`` on diagonal ``k``."""
    return joining.diag(reshaping.ravel(v), k)


def vander(x, N: int | None = None, increasing: bool = False):
    """The Vandermonde matrix of 1-D ``x``: columns ``x**(N-1), ..., x**0`` (or increasing)."""
    check_arraylike("vander", x)
    x = creation.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"x must be a one-dimensional array, got shape {x.shape}")
    N = x.shape[0] if N is None else int(N)
    if N < 0:
        raise ValueError("N must be nonnegative")
    powers = creation.arange(N, dtype=dtype_of(x) if dtypes.is_int(dtype_of(x)) else None)
    if not increasing:
        powers = powers[::-1]
    return ufuncs.power(x[:, None], powers.astype(dtype_of(x)) if not dtypes.is_int(dtype_of(x)) else powers)


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None, axis: int = 0):
    """``base ** linspace(start, stop, num)``."""
    exponents = creation.linspace(start, stop, num, endpoint=endpoint)
    out = ufuncs.power(*promote_args_inexact("logspace", base, exponents))
    out = out if dtype is None else out.astype(dtype)
    return out if axis == 0 else linalg_ops.moveaxis(out, 0, axis)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (same sign, nonzero)."""
    start, stop = promote_args_inexact("geomspace", start, stop)
    sign = ufuncs.sign(start)
    ratio = creation.linspace(ufuncs.log10(ufuncs.abs(start)), ufuncs.log10(ufuncs.abs(stop)), num,
                              endpoint=endpoint)
    out = sign * ufuncs.power(np.asarray(10, dtype_of(start)), ratio)
    if num > 0:  # the ends exactly, as NumPy
        out = out.at[0].set(start)
        if endpoint and num > 1:
            out = out.at[-1].set(stop)
    out = out if dtype is None else out.astype(dtype)
    return out if axis == 0 else linalg_ops.moveaxis(out, 0, axis)


def _window(name: str, M: int, formula):
    M = int(M)
    dtype = dtypes.default_float_dtype()
    if M <= 0:
        return creation.zeros((0,), dtype)
    if M == 1:
        return creation.ones((1,), dtype)
    n = creation.arange(M, dtype=dtype)
    return formula(n, M).astype(dtype)


def bartlett(M: int):
    """The Bartlett (triangular) window of ``M`` points."""
    return _window("bartlett", M, lambda n, M: 1 - ufuncs.abs(2 * n / (M - 1) - 1))


def blackman(M: int):
    """The Blackman window of ``M`` points."""
    return _window("blackman", M, lambda n, M: 0.42 - 0.5 * ufuncs.cos(2 * np.pi * n / (M - 1))
                   + 0.08 * ufuncs.cos(4 * np.pi * n / (M - 1)))


def hamming(M: int):
    """The Hamming window of ``M`` points."""
    return _window("hamming", M, lambda n, M: 0.54 - 0.46 * ufuncs.cos(2 * np.pi * n / (M - 1)))


def hanning(M: int):
    """The Hann window of ``M`` points."""
    return _window("hanning", M, lambda n, M: 0.5 - 0.5 * ufuncs.cos(2 * np.pi * n / (M - 1)))


def kaiser(M: int, beta):
    """The Kaiser window of ``M`` points with shape parameter ``beta``."""
    def formula(n, M):
        alpha = (M - 1) / 2.0
        b = creation.asarray(beta).astype(n.dtype)
        return i0(b * ufuncs.sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(b)

    return _window("kaiser", M, formula)
