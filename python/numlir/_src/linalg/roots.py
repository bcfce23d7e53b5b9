"""jnp.roots: the eigenvalues of the companion matrix, as jax's (and numpy's)."""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.linalg.eig import eigvals
from numlir._src.lax import sorting as lax_sorting
from numlir._src.numpy import creation, joining, reductions, ufuncs
from numlir._src.numpy.util import check_arraylike, promote_dtypes_inexact


def _roots_no_zeros(p):
    n = p.shape[0]
    if n < 2:
        return creation.zeros((0,), dtypes.complex_dtype_of(p.dtype))
    companion = creation.eye(n - 1, k=-1, dtype=p.dtype)
    companion = companion.at[0, :].set(-p[1:] / p[0])
    return eigvals(companion)


def _roots_with_zeros(p):
    """Roots of traced coefficients: the leading zeros are rolled to the end (each adds a
    root at 0), the zero roots sorted last, and as many roots as leading zeros set to NaN."""
    n = p.shape[0]
    is_zero = p == 0
    leading = ufuncs.where(reductions.all(is_zero), n, reductions.argmin(is_zero))
    p = ufuncs.where(leading == n, creation.ones((), p.dtype), p)
    p = joining.take(p, (creation.arange(n) + leading) % n)
    found = _roots_no_zeros(p)
    found = lax_sorting.sort_key_val(found == 0, found)[1]
    nan = creation.asarray(complex(np.nan, np.nan), found.dtype)
    return ufuncs.where(creation.arange(n - 1) < n - 1 - leading, found, nan)


def roots(p, *, strip_zeros: bool = True):
    """The roots of the polynomial with coefficients ``p`` (highest power first), complex.

    With ``strip_zeros`` (the default) leading zeros are dropped, which needs concrete
    coefficients; without it, ``p`` may be traced and leading zeros give NaN roots, as in
    jax. The order is that of the companion matrix's eigenvalues (see ``eigvals``).
    """
    check_arraylike("roots", p)
    (p,) = promote_dtypes_inexact(joining.atleast_1d(creation.asarray(p)))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if p.shape[0] < 2:
        return creation.zeros((0,), dtypes.complex_dtype_of(p.dtype))
    if not strip_zeros:
        return _roots_with_zeros(p)
    if isinstance(p, core.Tracer):
        raise core.ConcretizationTypeError(
            "jnp.roots with strip_zeros=True needs concrete coefficients; to use it under jit, "
            "pass strip_zeros=False (leading zeros then give NaN roots)")
    nonzero = np.flatnonzero(core.concrete_to_numpy(p) != 0)
    return _roots_no_zeros(p[int(nonzero[0]) if nonzero.size else p.shape[0]:])
