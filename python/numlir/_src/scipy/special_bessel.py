"""``bessel_jn(z, v=v, n_iter=50)``: the Bessel functions of the first kind
``J_0(z) .. J_v(z)`` of real z, as jax.scipy.special's, stacked on a new leading axis.

Miller's algorithm, as jax's: the recurrence ``f_(k-1) = 2k f_k / z - f_(k+1)`` runs down
from ``f_(n_iter+1) = 1``, ``f_(n_iter+2) = 0`` (the minimal solution takes over, whatever
the start), and the identity ``J_0 + 2 sum_m J_2m = 1`` normalizes it. Unlike jax's, the
running values are scaled down whenever they pass sqrt(max float) (for small z they grow
like (2/z)^k and would overflow float32), and ``z = 0`` gives ``J_0 = 1``, ``J_k = 0``
(jax gives NaN). It is accurate where ``n_iter`` is well above |z| (see jax's docstring for
the rule of thumb). The loop is a static-length fori_loop, so jit, vmap and both modes
of differentiation go through it.
"""

from __future__ import annotations

import operator

import numpy as np

from numlir._src.jit import jit
from numlir._src.lax import scan, shape_ops
from numlir._src.numpy import creation, ufuncs
from numlir._src.numpy.util import dtype_of, promote_arrays_inexact


def _bessel_jn_impl(z, rows: int, n_iter: int):
    dtype = dtype_of(z)
    big = float(np.sqrt(np.finfo(dtype).max))
    zero = z == 0
    safe_z = ufuncs.where(zero, 1.0, z)
    order = shape_ops.broadcasted_iota(np.int32, (rows,) + z.shape, 0)

    def body(i, carry):
        f0, f1, total, found = carry  # f_(k+2), f_(k+1), 2 sum of the even f's so far, f_0..f_rows-1
        k = n_iter - i
        f = 2 * (k + 1).astype(dtype) * f1 / safe_z - f0
        total = ufuncs.where(k % 2 == 0, total + 2 * f, total)
        found = ufuncs.where(order == k, f, found)
        scale = ufuncs.where(ufuncs.abs(f) > big, 1 / big, 1.0)
        return f1 * scale, f * scale, total * scale, found * scale

    zeros = creation.zeros_like(z)
    start = (zeros, creation.ones_like(z), zeros, creation.zeros((rows,) + z.shape, dtype))
    _, f_0, total, found = scan.fori_loop(0, n_iter + 1, body, start)
    values = found / (total - f_0)
    at_zero = ufuncs.where(order == 0, 1.0, 0.0).astype(dtype)
    return ufuncs.where(zero, at_zero, values)


_bessel_jn = jit(_bessel_jn_impl, static_argnums=(1, 2))


def bessel_jn(z, *, v: int, n_iter: int = 50):
    """``J_0(z), ..., J_v(z)`` stacked on a new leading axis: shape ``(v + 1,) + z.shape``.

    Example::

        >>> numlir.scipy.special.bessel_jn(1.0, v=2)   # J_0(1), J_1(1), J_2(1)
        Array([0.7651977 , 0.4400506 , 0.11490349], dtype=float32)
    """
    z = creation.asarray(z)
    (z,) = promote_arrays_inexact("bessel_jn", z)
    if np.issubdtype(dtype_of(z), np.complexfloating):
        raise ValueError("complex input not supported.")
    v = operator.index(v)
    n_iter = int(n_iter)
    # jax keeps the first v + 1 of the n_iter + 1 values it computes
    return _bessel_jn(z, min(v, n_iter) + 1, n_iter)
