"""LAPACK's complex Householder reflector (zlarfg), shared by complex QR (zgeqrf, zgeqp3) and
the complex Hessenberg reduction (zgehrd): each maps its column onto a REAL multiple of
e_k, which is what makes R's diagonal and H's subdiagonal real, as LAPACK's and JAX's."""

from __future__ import annotations

from numlir._src.numpy import float_ops
from numlir._src.numpy import reductions as red
from numlir._src.numpy import ufuncs as uf


def complex_reflector(alpha, below, e):
    """zlarfg for the column x = alpha e_k + below: (v, tau, beta, reflect) with
    H = I - tau v v^H, v = e_k + below / (alpha - beta), beta = -sign(re alpha) |x| real,
    tau = (beta - alpha) / beta, so H^H x = beta e_k. ``alpha`` is (...,), ``below`` (..., m)
    zero at and above k, ``e`` the one-hot e_k. Where nothing lies below and alpha is
    already real (``reflect`` false), H = I: tau = 0 and beta is not used."""
    below_squared = red.sum(uf.square(uf.abs(below)), axis=-1)
    alpha_re, alpha_im = float_ops.real(alpha), float_ops.imag(alpha)
    reflect = (below_squared > 0) | (alpha_im != 0)
    norm = uf.sqrt(alpha_re * alpha_re + alpha_im * alpha_im + below_squared)
    beta = (-uf.where(alpha_re >= 0, 1, -1).astype(norm.dtype) * norm).astype(alpha.dtype)
    safe_beta = uf.where(reflect, beta, 1)
    tau = uf.where(reflect, (beta - alpha) / safe_beta, 0)
    scale = uf.where(reflect, 1 / uf.where(reflect, alpha - beta, 1), 0)
    return below * scale[..., None] + e, tau, beta, reflect
