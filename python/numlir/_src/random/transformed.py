"""Samplers that transform uniform, normal or exponential samples in closed form, as
jax.random's do: cauchy, lognormal, pareto, rayleigh, maxwell, double_sided_maxwell,
weibull_min, triangular, wald and geometric. Each consumes its key the way jax's does,
so the same key gives jax's values (to the rounding of the transcendental functions).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from numlir._src import core, dtypes
from numlir._src.array import Array
from numlir._src.jit import jit
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.numpy.util import broadcast_shapes, promote_args_inexact
from numlir._src.random import prng
from numlir._src.random.distributions import (_check_shape, _exponential_impl, _float_dtype,
                                              _normal_impl, _uniform_impl, finfo, rademacher)
from numlir._src.random.keys import canonical_shape


def _sample_shape(name: str, shape, *params) -> tuple[int, ...]:
    """``shape``, or the parameters' broadcast shape when it is None (checked against them)."""
    param_shapes = [np.shape(p) if not isinstance(p, (Array, core.Tracer)) else core.get_aval(p).shape
                    for p in params]
    try:
        if shape is None:
            return broadcast_shapes(name, *param_shapes) if param_shapes else ()
        shape = canonical_shape(name, shape)
        _check_shape(name, shape, *param_shapes)
    except TypeError:  # jax says ValueError for shapes that do not broadcast
        raise ValueError(f"{name}: incompatible shapes for broadcasting: shape argument {shape}, "
                         f"parameter shapes {param_shapes}") from None
    return shape


def _as(dtype, x):
    return creation.asarray(x).astype(dtype)


def _cauchy_impl(key, shape, dtype):
    u = _uniform_impl(key, Array.from_host(np.array(finfo(dtype).eps, dtype)), 1.0, shape, dtype)
    return ufuncs.tan(np.asarray(np.pi, dtype) * (u - np.asarray(0.5, dtype)))


def _lognormal_impl(key, sigma, shape, dtype):
    return ufuncs.exp(_normal_impl(key, shape, dtype) * _as(dtype, sigma))


def _pareto_impl(key, b, shape, dtype):
    return ufuncs.exp(_exponential_impl(key, shape, dtype) / _as(dtype, b))


def _rayleigh_impl(key, scale, shape, dtype):
    u = _uniform_impl(key, 0.0, 1.0, shape, dtype)
    return _as(dtype, scale) * ufuncs.sqrt(ufuncs.log(u) * np.asarray(-2, dtype))


def _maxwell_impl(key, shape, dtype):
    samples = _normal_impl(key, shape + (3,), dtype)
    return ufuncs.sqrt(reductions.sum(samples * samples, axis=-1))


def _weibull_min_impl(key, scale, concentration, shape, dtype):
    u = _uniform_impl(key, 0.0, 1.0, shape, dtype)
    return ufuncs.power(-ufuncs.log1p(-u), 1.0 / _as(dtype, concentration)) * _as(dtype, scale)


def _triangular_impl(key, left, mode, right, shape, dtype):
    left, mode, right = (reshaping.broadcast_to(_as(dtype, v), shape) for v in (left, mode, right))
    u = _uniform_impl(key, 0.0, 1.0, shape, dtype)
    below = left + ufuncs.sqrt(u * (right - left) * (mode - left))
    above = right - ufuncs.sqrt((1 - u) * (right - left) * (right - mode))
    return ufuncs.where(u < (mode - left) / (right - left), below, above)


def _wald_impl(key, mean, shape, dtype):
    k_normal, k_uniform = prng.split_list(key, 2)
    mean = reshaping.broadcast_to(_as(dtype, mean), shape)
    y = ufuncs.square(_normal_impl(k_normal, shape, dtype))
    z = _uniform_impl(k_uniform, 0.0, 1.0, shape, dtype)
    mean_sq = ufuncs.square(mean)
    x = mean + mean_sq * y / 2 - mean / 2 * ufuncs.sqrt(4 * mean * y + mean_sq * ufuncs.square(y))
    return ufuncs.where(z <= mean / (mean + x), x, mean_sq / x)


def _geometric_impl(key, p, shape, dtype):
    (p,) = promote_args_inexact("geometric", p)
    u = _uniform_impl(key, 0.0, 1.0, shape, core.get_aval(p).dtype)
    u = ufuncs.where(u == 0, np.asarray(1, core.get_aval(u).dtype), u)
    log_q = reshaping.broadcast_to(ufuncs.log1p(-p), shape)
    return (ufuncs.floor(ufuncs.log(u) / log_q) + 1).astype(dtype)


_cauchy = jit(_cauchy_impl, static_argnums=(1, 2))
_lognormal = jit(_lognormal_impl, static_argnums=(2, 3))
_pareto = jit(_pareto_impl, static_argnums=(2, 3))
_rayleigh = jit(_rayleigh_impl, static_argnums=(2, 3))
_maxwell = jit(_maxwell_impl, static_argnums=(1, 2))
_weibull_min = jit(_weibull_min_impl, static_argnums=(3, 4))
_triangular = jit(_triangular_impl, static_argnums=(4, 5))
_wald = jit(_wald_impl, static_argnums=(2, 3))
_geometric = jit(_geometric_impl, static_argnums=(2, 3))


def cauchy(key, shape: Sequence[int] = (), dtype=None) -> Array:
    """Standard Cauchy samples ``tan(pi * (u - 1/2))``, as ``jax.random.cauchy``."""
    key = prng.check_key("cauchy", key)
    return _cauchy(key, canonical_shape("cauchy", shape), _float_dtype("cauchy", dtype))


def lognormal(key, sigma=np.float32(1), shape: Sequence[int] | None = None, dtype=None) -> Array:
    """``exp(sigma * normal)``, as ``jax.random.lognormal``."""
    key = prng.check_key("lognormal", key)
    return _lognormal(key, sigma, _sample_shape("lognormal", shape, sigma), _float_dtype("lognormal", dtype))


def pareto(key, b, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Pareto samples of shape ``b`` (``exp(exponential / b)``), as ``jax.random.pareto``."""
    key = prng.check_key("pareto", key)
    return _pareto(key, b, _sample_shape("pareto", shape, b), _float_dtype("pareto", dtype))


def rayleigh(key, scale, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Rayleigh samples ``scale * sqrt(-2 log u)``, as ``jax.random.rayleigh``."""
    key = prng.check_key("rayleigh", key)
    return _rayleigh(key, scale, _sample_shape("rayleigh", shape, scale), _float_dtype("rayleigh", dtype))


def maxwell(key, shape: Sequence[int] = (), dtype=None) -> Array:
    """Maxwell samples: the norm of 3 standard normals, as ``jax.random.maxwell``."""
    key = prng.check_key("maxwell", key)
    return _maxwell(key, canonical_shape("maxwell", shape), _float_dtype("maxwell", dtype))


def double_sided_maxwell(key, loc, scale, shape: Sequence[int] = (), dtype=None) -> Array:
    """A Maxwell sample with a random sign, scaled and shifted, as ``jax.random.double_sided_maxwell``.

    The output shape is ``shape + broadcast(loc, scale)``, as in jax."""
    key = prng.check_key("double_sided_maxwell", key)
    dtype = _float_dtype("double_sided_maxwell", dtype)
    params = broadcast_shapes("double_sided_maxwell", np.shape(loc), np.shape(scale))
    shape = (canonical_shape("double_sided_maxwell", shape) or params) + params
    k_maxwell, k_sign = prng.split_list(key, 2)
    return rademacher(k_sign, shape, dtype) * maxwell(k_maxwell, shape, dtype) * scale + loc


def weibull_min(key, scale, concentration, shape: Sequence[int] = (), dtype=None) -> Array:
    """Weibull samples ``(-log1p(-u)) ** (1 / concentration) * scale``, as ``jax.random.weibull_min``."""
    key = prng.check_key("weibull_min", key)
    return _weibull_min(key, scale, concentration, canonical_shape("weibull_min", shape),
                        _float_dtype("weibull_min", dtype))


def triangular(key, left, mode, right, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Triangular samples on ``[left, right]`` peaking at ``mode`` (inverse CDF), as ``jax.random.triangular``."""
    key = prng.check_key("triangular", key)
    return _triangular(key, left, mode, right, _sample_shape("triangular", shape, left, mode, right),
                       _float_dtype("triangular", dtype))


def wald(key, mean, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Wald (inverse Gaussian) samples of ``mean`` (Michael, Schucany and Haas), as ``jax.random.wald``."""
    key = prng.check_key("wald", key)
    return _wald(key, mean, _sample_shape("wald", shape, mean), _float_dtype("wald", dtype))


def geometric(key, p, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """The number of Bernoulli(p) trials up to the first success, as ``jax.random.geometric``."""
    key = prng.check_key("geometric", key)
    dtype = dtypes.default_int_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not np.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    return _geometric(key, p, _sample_shape("geometric", shape, p), dtype)
