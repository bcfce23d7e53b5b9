"""Gamma samples (Marsaglia and Tsang's rejection method) and the samplers built on them:
loggamma, beta, dirichlet, chisquare, f, t, generalized_normal and ball.

As in jax.random, each element of the output gets its own key (``split(key, n)``)
and runs the rejection loop alone; ``a < 1`` samples ``a + 1`` and scales by
``u ** (1 / a)``. The loop of one element is traced once and batched over all
of them, so the same key gives jax's values.

A sample is differentiable in ``a`` as jax's is: at a fixed CDF value
``P(a, x) = u`` the sample moves by ``dx/da = -(dP/da)/(dP/dx)``
(lax.random_gamma_grad), however the rejection loop found it. The loop runs on
``stop_gradient(a)``, and the primitive ``gamma_implicit_derivative`` attaches
that derivative to its result.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from numlir._src import ad, batching, core, dtypes
from numlir._src.array import Array
from numlir._src.jit import jit
from numlir._src.lax import control_flow, incomplete_gamma
from numlir._src.lax import elementwise as ew
from numlir._src.numpy import reductions, reshaping, ufuncs
from numlir._src.random import prng
from numlir._src.random.distributions import (_exponential_impl, _float_dtype, _normal_impl,
                                              _uniform_impl, rademacher)
from numlir._src.random.keys import canonical_shape
from numlir._src.random.transformed import _as, _sample_shape

implicit_derivative_p = core.Primitive("gamma_implicit_derivative")


@implicit_derivative_p.def_abstract_eval
def _implicit_abstract_eval(a, sample, *, log_space):
    return sample


@implicit_derivative_p.def_lowering
def _implicit_lowering(ctx, a, sample, *, log_space):
    return sample


def _implicit_jvp(primals, tangents, *, log_space):
    a, sample = primals
    out = implicit_derivative_p.bind(a, sample, log_space=log_space)
    ta, ts = tangents
    t_out = ts
    if not isinstance(ta, ad.Zero):
        if log_space:
            # d log x = dx / x; exp(log x) may underflow to 0, so it is kept at the smallest normal
            x = ufuncs.maximum(ufuncs.exp(sample), np.asarray(np.finfo(core.get_aval(sample).dtype).tiny,
                                                              core.get_aval(sample).dtype))
            slope = incomplete_gamma.random_gamma_grad(a, x) / x
        else:
            slope = incomplete_gamma.random_gamma_grad(a, sample)
        t_out = ad.add_any(t_out, ew.mul(ta, slope))
    return out, t_out


ad.defjvp_rule(implicit_derivative_p, _implicit_jvp)
batching.defbroadcasting(implicit_derivative_p)


def _gamma_one(key, alpha, log_space: bool):
    """One Gamma(alpha) sample (or its log) from one key: scalar in, scalar out."""
    dtype = core.get_aval(alpha).dtype
    c0, c1, c2 = (np.asarray(v, dtype) for v in (0, 1, 2))
    boost_mask = alpha >= c1
    alpha_orig = alpha
    alpha = ufuncs.where(boost_mask, alpha, alpha + c1)
    d = alpha - np.asarray(1 / 3, dtype)
    c = np.asarray(1 / 3, dtype) / ufuncs.sqrt(d)

    def rejected(state):
        _, x2, v3, u = state
        squeeze = u >= c1 - np.asarray(0.0331, dtype) * x2 * x2
        return squeeze & (ufuncs.log(u) >= x2 * np.asarray(0.5, dtype) + d * (c1 - v3 + ufuncs.log(v3)))

    def propose(state):
        key = state[0]
        key, x_key, u_key = prng.split_list(key, 3)

        def next_normal(kxv):
            k, sub = prng.split_list(kxv[0], 2)
            x = _normal_impl(sub, (), dtype)
            return k, x, c1 + x * c

        _, x, v = control_flow.while_loop(lambda kxv: kxv[2] <= c0, next_normal,
                                          (x_key, c0, np.asarray(-1, dtype)))
        return key, x * x, v * v * v, _uniform_impl(u_key, 0.0, 1.0, (), dtype)

    key, subkey = prng.split_list(key, 2)
    _, _, v3, _ = control_flow.while_loop(rejected, propose, (key, c0, c1, c2))
    if log_space:
        log_u = -_exponential_impl(subkey, (), dtype)
        log_boost = ufuncs.where(boost_mask | (log_u == 0), c0, log_u * (c1 / alpha_orig))
        return ufuncs.log(d) + ufuncs.log(v3) + log_boost
    u = c1 - _uniform_impl(subkey, 0.0, 1.0, (), dtype)
    boost = ufuncs.where(boost_mask, c1, ufuncs.power(u, c1 / alpha_orig))
    return d * v3 * boost


def _gamma_impl(key, a, shape, dtype, log_space):
    a = reshaping.broadcast_to(_as(dtype, a), shape)
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return a
    keys = prng.split(key, (n,))
    one = core.trace_to_graph(lambda k, x: [_gamma_one(k, x, log_space)],
                              [core.ShapedArray((2,), np.dtype(np.uint32)), core.ShapedArray((), dtype)])
    fixed = reshaping.reshape(ew.stop_gradient(a), (n,))
    (samples,) = batching.batch_graph_fn(one, n, [0, 0], [True])(keys, fixed)
    return implicit_derivative_p.bind(a, reshaping.reshape(samples, shape), log_space=log_space)


_gamma = jit(_gamma_impl, static_argnums=(2, 3, 4))


def _gamma_args(name: str, key, a, shape, dtype):
    key = prng.check_key(name, key)
    dtype = _float_dtype(name, dtype)
    return key, _sample_shape(name, shape, a), dtype


def gamma(key, a, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Gamma(a, 1) samples, as ``jax.random.gamma`` (same values for the same key)."""
    key, shape, dtype = _gamma_args("gamma", key, a, shape, dtype)
    return _gamma(key, a, shape, dtype, False)


def loggamma(key, a, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """The log of Gamma(a, 1) samples, accurate for small ``a`` where the samples underflow."""
    key, shape, dtype = _gamma_args("loggamma", key, a, shape, dtype)
    return _gamma(key, a, shape, dtype, True)


def _beta_impl(key, a, b, shape, dtype):
    key_a, key_b = prng.split_list(key, 2)
    log_a = _gamma_impl(key_a, a, shape, dtype, True)
    log_b = _gamma_impl(key_b, b, shape, dtype, True)
    top = ufuncs.maximum(log_a, log_b)
    ga, gb = ufuncs.exp(log_a - top), ufuncs.exp(log_b - top)
    return ga / (ga + gb)


def _dirichlet_impl(key, alpha, shape, dtype):
    logs = _gamma_impl(key, alpha, shape, dtype, True)
    shifted = ufuncs.exp(logs - reductions.max(logs, axis=-1, keepdims=True))
    return shifted / reductions.sum(shifted, axis=-1, keepdims=True)


def _chisquare_impl(key, df, shape, dtype):
    return ufuncs.exp(_gamma_impl(key, _as(dtype, df) / 2, shape, dtype, True)) * np.asarray(2, dtype)


def _f_impl(key, dfnum, dfden, shape, dtype):
    key_den, key_num = prng.split_list(key, 2)
    dfnum, dfden = _as(dtype, dfnum), _as(dtype, dfden)
    num = _chisquare_impl(key_num, dfnum, shape, dtype) / dfnum
    return num / (_chisquare_impl(key_den, dfden, shape, dtype) / dfden)


def _t_impl(key, df, shape, dtype):
    key_n, key_g = prng.split_list(key, 2)
    n = _normal_impl(key_n, shape, dtype)
    half_df = _as(dtype, df) / 2
    return n * ufuncs.sqrt(half_df / _gamma_impl(key_g, half_df, shape, dtype, False))


def _generalized_normal_impl(key, p, shape, dtype):
    key_g, key_r = prng.split_list(key, 2)
    p = _as(dtype, p)
    g = _gamma_impl(key_g, 1 / p, shape, dtype, False)
    return rademacher(key_r, shape, dtype) * ufuncs.power(g, 1 / p)


def _ball_impl(key, p, d, shape, dtype):
    key_g, key_e = prng.split_list(key, 2)
    g = _generalized_normal_impl(key_g, p, (*shape, d), dtype)
    e = _exponential_impl(key_e, shape, dtype)
    p = _as(dtype, p)
    return g / ufuncs.power(reductions.sum(ufuncs.power(ufuncs.abs(g), p), axis=-1) + e, 1 / p)[..., None]


_beta = jit(_beta_impl, static_argnums=(3, 4))
_dirichlet = jit(_dirichlet_impl, static_argnums=(2, 3))
_chisquare = jit(_chisquare_impl, static_argnums=(2, 3))
_f = jit(_f_impl, static_argnums=(3, 4))
_t = jit(_t_impl, static_argnums=(2, 3))
_generalized_normal = jit(_generalized_normal_impl, static_argnums=(2, 3))
_ball = jit(_ball_impl, static_argnums=(2, 3, 4))


def beta(key, a, b, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Beta(a, b) samples from two log-gamma samples, as ``jax.random.beta``."""
    key = prng.check_key("beta", key)
    return _beta(key, a, b, _sample_shape("beta", shape, a, b), _float_dtype("beta", dtype))


def dirichlet(key, alpha, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Dirichlet(alpha) samples along alpha's last axis, as ``jax.random.dirichlet``."""
    key = prng.check_key("dirichlet", key)
    alpha_shape = np.shape(alpha) if not isinstance(alpha, (Array, core.Tracer)) else core.get_aval(alpha).shape
    if len(alpha_shape) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {len(alpha_shape)}")
    batch = _sample_shape("dirichlet", shape, np.empty(alpha_shape[:-1]))
    return _dirichlet(key, alpha, batch + alpha_shape[-1:], _float_dtype("dirichlet", dtype))


def chisquare(key, df, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Chi-square samples with ``df`` degrees of freedom (2 * Gamma(df / 2)), as ``jax.random.chisquare``."""
    key = prng.check_key("chisquare", key)
    return _chisquare(key, df, _sample_shape("chisquare", shape, df), _float_dtype("chisquare", dtype))


def f(key, dfnum, dfden, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """F-distribution samples, a ratio of scaled chi-squares, as ``jax.random.f``."""
    key = prng.check_key("f", key)
    return _f(key, dfnum, dfden, _sample_shape("f", shape, dfnum, dfden), _float_dtype("f", dtype))


def t(key, df, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Student's t samples with ``df`` degrees of freedom, as ``jax.random.t``."""
    key = prng.check_key("t", key)
    return _t(key, df, _sample_shape("t", shape, df), _float_dtype("t", dtype))


def generalized_normal(key, p, shape: Sequence[int] = (), dtype=None) -> Array:
    """Samples with density proportional to ``exp(-|x| ** p)``, as ``jax.random.generalized_normal``."""
    key = prng.check_key("generalized_normal", key)
    return _generalized_normal(key, p, canonical_shape("generalized_normal", shape),
                               _float_dtype("generalized_normal", dtype))


def ball(key, d: int, p: float = 2, shape: Sequence[int] = (), dtype=None) -> Array:
    """Points uniform in the unit ``p``-norm ball of dimension ``d``, as ``jax.random.ball``."""
    key = prng.check_key("ball", key)
    if not isinstance(d, (int, np.integer)) or d < 0:
        raise TypeError(f"ball: the dimension d must be a non-negative Python int, got {d!r}")
    return _ball(key, p, int(d), canonical_shape("ball", shape), _float_dtype("ball", dtype))
