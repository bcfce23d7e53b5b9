"""Samplers of numlir.random: the same algorithms (hence values) as jax.random's.

Each sampler checks its arguments, then calls a jitted implementation, so an
eager call compiles once per (shape, dtype) and runs as one executable.
"""

from __future__ import annotations

import math
from typing import Sequence

import ml_dtypes
import numpy as np

from numlir._src import core, dtypes
from numlir._src.array import Array
from numlir._src.jit import jit
from numlir._src.lax import complex_ops
from numlir._src.lax import elementwise as ew
from numlir._src.lax import float_math, reduction, shape_ops, special
from numlir._src.lax import sorting as lax_sorting
from numlir._src.lax import type_checks as tc
from numlir._src.numpy.util import broadcast_shapes
from numlir._src.numpy import creation, cumulative, joining, reductions, reshaping, sorting, ufuncs
from numlir._src.random import prng
from numlir._src.random.keys import canonical_shape


def _const(like, value):
    """A scalar of ``like``'s dtype (strong), for lax ops that need equal dtypes."""
    return Array.from_host(np.asarray(value, core.get_aval(like).dtype))


def finfo(dtype):
    return ml_dtypes.finfo(dtype)


def _float_dtype(name: str, dtype) -> np.dtype:
    dtype = dtypes.default_float_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_float(dtype):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
    return dtype


def _check_shape(name: str, shape, *param_shapes) -> None:
    if param_shapes:

        out = broadcast_shapes(name, shape, *param_shapes)
        if out != tuple(shape):
            raise ValueError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, and the "
                f"result of broadcasting the shapes must equal the shape argument, but got result "
                f"{out} for shape argument {tuple(shape)}.")


def _expand_to_rank(x, ndim: int):
    aval = core.get_aval(x)
    return shape_ops.reshape(x, (1,) * (ndim - aval.ndim) + aval.shape) if aval.ndim < ndim else x


def _index0(x, i: int):
    """``x[i]`` along axis 0, without slicing ops (select, then a max-reduction)."""
    aval = core.get_aval(x)
    if dtypes.is_float(aval.dtype):
        fill = -np.inf
    elif dtypes.is_bool(aval.dtype):
        fill = False
    else:
        fill = np.iinfo(aval.dtype).min
    iota = shape_ops.broadcasted_iota(dtypes.int32, aval.shape, 0)
    picked = ew.select(ew.eq(iota, _const(iota, i)), x, _const(x, fill))
    return reduction.reduce_max(picked, (0,))


# --- uniform and friends ----------------------------------------------------------------


def _uniform_impl(key, minval, maxval, shape, dtype):
    _check_shape("uniform", shape)
    minval = _expand_to_rank(ew.convert_element_type(minval, dtype), len(shape))
    maxval = _expand_to_rank(ew.convert_element_type(maxval, dtype), len(shape))
    info = finfo(dtype)
    nbits, nmant = info.bits, info.nmant
    rng_bits = nbits if nmant >= 8 else 8
    bits = prng.random_bits(key, rng_bits, shape)
    uint = prng.UINT_DTYPES[nbits]
    if rng_bits != nbits:
        bits = ew.convert_element_type(bits, uint)
    # JAX ORs the top nmant bits into the mantissa of 1.0 and subtracts 1; the same value
    # is mantissa * 2**-nmant, which needs no bitcast (the conversion and product are exact).
    mantissa = ew.div(bits, _const(bits, 2 ** (rng_bits - nmant)))
    floats = ew.mul(ew.convert_element_type(mantissa, dtype), _const(minval, 2.0 ** -nmant))
    out = ufuncs.maximum(minval, floats * (maxval - minval) + minval)
    if out.shape != tuple(shape):
        raise ValueError(f"uniform: minval/maxval of shapes {minval.shape}, {maxval.shape} do not "
                         f"broadcast to shape {tuple(shape)}")
    return out


_uniform = jit(_uniform_impl, static_argnums=(3, 4))


def uniform(key, shape: Sequence[int] = (), dtype=None, minval=0.0, maxval=1.0) -> Array:
    """Uniform floats in ``[minval, maxval)``, as ``jax.random.uniform``.

    Example::

        >>> numlir.random.uniform(numlir.random.PRNGKey(0), (2, 3), minval=-1.0, maxval=1.0)
    """
    key = prng.check_key("uniform", key)
    dtype = _float_dtype("uniform", dtype)
    return _uniform(key, minval, maxval, canonical_shape("uniform", shape), dtype)


def _normal_impl(key, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform_impl(key, Array.from_host(lo), Array.from_host(np.array(1.0, dtype)), shape, dtype)
    return ew.mul(_const(u, np.sqrt(2)), special.erf_inv(u))


def _complex_normal_impl(key, shape, dtype):
    """As jax: independent real and imaginary parts from the two halves of a split, each of
    variance 1/2."""
    part = dtypes.complex_part_dtype(dtype)
    key_re, key_im = prng.split_list(key, 2)
    re, im = _normal_impl(key_re, shape, part), _normal_impl(key_im, shape, part)
    scale = _const(re, 1 / np.sqrt(2))
    return complex_ops.complex(ew.mul(re, scale), ew.mul(im, scale))


_normal = jit(_normal_impl, static_argnums=(1, 2))
_complex_normal = jit(_complex_normal_impl, static_argnums=(1, 2))


def normal(key, shape: Sequence[int] = (), dtype=None) -> Array:
    """Standard normal samples (inverse-CDF of a uniform), as ``jax.random.normal``; a
    complex dtype gives independent parts of variance 1/2 each.

    Example::

        >>> numlir.random.normal(numlir.random.PRNGKey(0), (3,))
    """
    key = prng.check_key("normal", key)
    shape = canonical_shape("normal", shape)
    if dtype is not None and dtypes.is_complex(dtypes.canonicalize_dtype(dtype)):
        return _complex_normal(key, shape, dtypes.canonicalize_dtype(dtype))
    return _normal(key, shape, _float_dtype("normal", dtype))


def _truncated_normal_impl(key, lower, upper, shape, dtype):
    if shape is None:

        shape = broadcast_shapes("truncated_normal", core.get_aval(lower).shape,
                                 core.get_aval(upper).shape)
    else:
        _check_shape("truncated_normal", shape, core.get_aval(lower).shape, core.get_aval(upper).shape)
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = ew.convert_element_type(lower, dtype)
    upper = ew.convert_element_type(upper, dtype)
    erf = special.erf
    a = erf(lower / sqrt2)
    b = erf(upper / sqrt2)
    u = _uniform_impl(key, a, b, shape, dtype)
    out = sqrt2 * special.erf_inv(u)
    nextafter = float_math.nextafter
    lo = nextafter(lower, creation.full(core.get_aval(lower).shape, np.inf, dtype))
    hi = nextafter(upper, creation.full(core.get_aval(upper).shape, -np.inf, dtype))
    return ufuncs.clip(out, lo, hi)


_truncated_normal = jit(_truncated_normal_impl, static_argnums=(3, 4))


def truncated_normal(key, lower, upper, shape: Sequence[int] | None = None, dtype=None) -> Array:
    """Normal samples truncated to ``(lower, upper)``, as ``jax.random.truncated_normal``.

    Example::

        >>> numlir.random.truncated_normal(numlir.random.PRNGKey(0), -2.0, 2.0, (3,))
    """
    key = prng.check_key("truncated_normal", key)
    if shape is not None:
        shape = canonical_shape("truncated_normal", shape)
    return _truncated_normal(key, lower, upper, shape, _float_dtype("truncated_normal", dtype))


def _bernoulli_impl(key, p, shape, mode):
    p_shape = core.get_aval(p).shape
    if shape is None:
        shape = p_shape
    else:
        _check_shape("bernoulli", shape, p_shape)
    dtype = core.get_aval(p).dtype
    if mode == "high":
        u = _uniform_impl(key, 0.0, 1.0, (2, *shape), dtype)
        u1, u2 = _index0(u, 0), _index0(u, 1)
        u2 = u2 * np.array(2.0 ** -finfo(dtype).nmant, dtype)
        return u2 < p - u1
    return _uniform_impl(key, 0.0, 1.0, shape, dtype) < p


_bernoulli = jit(_bernoulli_impl, static_argnums=(2, 3))


def bernoulli(key, p=0.5, shape: Sequence[int] | None = None, mode: str = "low") -> Array:
    """Booleans that are True with probability ``p``, as ``jax.random.bernoulli``.

    Example::

        >>> numlir.random.bernoulli(numlir.random.PRNGKey(0), 0.3, (4,))
    """
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    key = prng.check_key("bernoulli", key)
    if shape is not None:
        shape = canonical_shape("bernoulli", shape)
    dtype = core.get_aval(p).dtype
    if not dtypes.is_float(dtype):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    return _bernoulli(key, p, shape, mode)


def _exponential_impl(key, shape, dtype):
    u = _uniform_impl(key, 0.0, 1.0, shape, dtype)
    return ew.neg(float_math.log1p(ew.neg(u)))


def _gumbel_impl(key, shape, dtype, mode):
    info = finfo(dtype)
    if mode == "high":
        u = _uniform_impl(key, 0.0, 1.0, (2, *shape), dtype)
        high, low = _index0(u, 0), _index0(u, 1)
        x = ufuncs.where(high >= 0.5, high,
                      high + np.array(2.0 ** -info.nmant, dtype) * low + np.array(info.tiny, dtype))
        return -ufuncs.log(-float_math.log1p(-x))
    u = _uniform_impl(key, Array.from_host(np.array(info.tiny, dtype)), 1.0, shape, dtype)
    return -ufuncs.log(-ufuncs.log(u))


def _laplace_impl(key, shape, dtype):
    u = _uniform_impl(key, Array.from_host(np.array(-1.0 + finfo(dtype).epsneg, dtype)), 1.0,
                      shape, dtype)
    return ew.mul(ew.sign(u), float_math.log1p(ew.neg(ew.abs(u))))


def _logistic_impl(key, shape, dtype):
    x = _uniform_impl(key, Array.from_host(np.array(finfo(dtype).tiny, dtype)), 1.0, shape, dtype)
    return ew.sub(ew.log(x), float_math.log1p(ew.neg(x)))


_exponential = jit(_exponential_impl, static_argnums=(1, 2))
_gumbel = jit(_gumbel_impl, static_argnums=(1, 2, 3))
_laplace = jit(_laplace_impl, static_argnums=(1, 2))
_logistic = jit(_logistic_impl, static_argnums=(1, 2))


def exponential(key, shape: Sequence[int] = (), dtype=None) -> Array:
    """Exponential(1) samples ``-log1p(-u)``, as ``jax.random.exponential``.

    Example::

        >>> numlir.random.exponential(numlir.random.PRNGKey(0), (3,))
    """
    key = prng.check_key("exponential", key)
    return _exponential(key, canonical_shape("exponential", shape), _float_dtype("exponential", dtype))


def gumbel(key, shape: Sequence[int] = (), dtype=None, mode: str | None = None) -> Array:
    """Standard Gumbel samples ``-log(-log(u))``, as ``jax.random.gumbel`` (mode "low"/"high").

    Example::

        >>> numlir.random.gumbel(numlir.random.PRNGKey(0), (3,))
    """
    mode = "low" if mode is None else mode
    if mode not in ("high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    key = prng.check_key("gumbel", key)
    return _gumbel(key, canonical_shape("gumbel", shape), _float_dtype("gumbel", dtype), mode)


def laplace(key, shape: Sequence[int] = (), dtype=None) -> Array:
    """Laplace(0, 1) samples, as ``jax.random.laplace``.

    Example::

        >>> numlir.random.laplace(numlir.random.PRNGKey(0), (3,))
    """
    key = prng.check_key("laplace", key)
    return _laplace(key, canonical_shape("laplace", shape), _float_dtype("laplace", dtype))


def logistic(key, shape: Sequence[int] = (), dtype=None) -> Array:
    """Standard logistic samples ``log(u) - log1p(-u)``, as ``jax.random.logistic``.

    Example::

        >>> numlir.random.logistic(numlir.random.PRNGKey(0), (3,))
    """
    key = prng.check_key("logistic", key)
    return _logistic(key, canonical_shape("logistic", shape), _float_dtype("logistic", dtype))


def rademacher(key, shape: Sequence[int] = (), dtype=None) -> Array:
    """-1 or 1 with equal probability, as ``jax.random.rademacher`` (default dtype int).

    Example::

        >>> numlir.random.rademacher(numlir.random.PRNGKey(0), (4,))
    """
    dtype = dtypes.default_int_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    samples = bernoulli(key, 0.5, canonical_shape("rademacher", shape)).astype(dtype)
    return (2 * samples - 1).astype(dtype)


# --- integers --------------------------------------------------------------------------------


def _iinfo_bounds(dtype):
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _convert_and_clip_integer(val, dtype):
    lo = max(_iinfo_bounds(dtype)[0], _iinfo_bounds(val.dtype)[0])
    hi = min(_iinfo_bounds(dtype)[1], _iinfo_bounds(val.dtype)[1])
    return ufuncs.clip(val, _const(val, lo), _const(val, hi)).astype(dtype)


def _randint_impl(key, minval, maxval, shape, dtype):
    _check_shape("randint", shape, core.get_aval(minval).shape, core.get_aval(maxval).shape)
    minval, maxval = creation.asarray(minval), creation.asarray(maxval)
    if not dtypes.is_int(minval.dtype):
        minval = minval.astype(dtypes.default_int_dtype())
    if not dtypes.is_int(maxval.dtype):
        maxval = maxval.astype(dtypes.default_int_dtype())
    dtype_max = _convert_and_clip_integer(creation.asarray(np.array(np.iinfo(dtype).max, dtype)),
                                          maxval.dtype)
    maxval_out_of_range = maxval > dtype_max
    minval = _convert_and_clip_integer(minval, dtype)
    maxval = _convert_and_clip_integer(maxval, dtype)
    minval, maxval = (shape_ops.broadcast_to_rank(v, shape) for v in (minval, maxval))
    maxval_out_of_range = shape_ops.broadcast_to_rank(maxval_out_of_range, shape)
    nbits = np.iinfo(dtype).bits
    k1, k2 = prng.split_list(key, 2)
    higher_bits = prng.random_bits(k1, nbits, shape)
    lower_bits = prng.random_bits(k2, nbits, shape)
    unsigned = prng.UINT_DTYPES[nbits]
    span = ew.convert_element_type(maxval - minval, unsigned)
    span = ew.select(maxval <= minval, creation.ones_like(span), span)
    span = ew.select(maxval_out_of_range & (maxval > minval), ew.add(span, _const(span, 1)), span)
    multiplier = ew.rem(_const(span, 2 ** (nbits // 2)), span)
    multiplier = ew.rem(ew.mul(multiplier, multiplier), span)
    offset = ew.add(ew.mul(ew.rem(higher_bits, span), multiplier), ew.rem(lower_bits, span))
    offset = ew.rem(offset, span)
    return ew.add(minval, ew.convert_element_type(offset, dtype))


_randint = jit(_randint_impl, static_argnums=(3, 4))


def randint(key, shape: Sequence[int], minval, maxval, dtype=None) -> Array:
    """Uniform integers in ``[minval, maxval)``, as ``jax.random.randint``.

    Example::

        >>> numlir.random.randint(numlir.random.PRNGKey(0), (5,), 0, 10)
    """
    key = prng.check_key("randint", key)
    dtype = dtypes.default_int_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_int(dtype):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    shape = canonical_shape("randint", shape)
    sampling_dtype = dtype
    lo, hi = _iinfo_bounds(dtype)
    if dtype.itemsize < 4:
        sampling_dtype = dtypes.int32
        minval = ufuncs.clip(creation.asarray(minval).astype(dtypes.int32), lo, hi)
        maxval = ufuncs.clip(creation.asarray(maxval).astype(dtypes.int32), lo, hi + 1)
    return _randint(key, minval, maxval, shape, sampling_dtype).astype(dtype)


# --- categorical ------------------------------------------------------------------------------


def _argmax(x, axis: int):
    """The first index of the maximum along ``axis`` (NaN counts as the maximum, as jnp.argmax)."""
    aval = core.get_aval(x)
    top = reductions.max(x, axis=axis, keepdims=True)
    iota = shape_ops.broadcasted_iota(dtypes.int32, aval.shape, axis)
    hit = (x == top) | (x != x)
    return reductions.min(ufuncs.where(hit, iota, aval.shape[axis]), axis=axis)


def _categorical_impl(key, logits, axis, shape, batch_shape):
    prefix = shape[:len(shape) - len(batch_shape)]
    ndim = core.get_aval(logits).ndim
    axis = axis - ndim if axis >= 0 else axis
    logits_shape = list(shape[len(shape) - len(batch_shape):])
    logits_shape.insert(axis % ndim, core.get_aval(logits).shape[axis])
    g = _gumbel_impl(key, (*prefix, *logits_shape), core.get_aval(logits).dtype, "low")
    expanded = _expand_to_rank(logits, len(prefix) + ndim)
    return _argmax(g + expanded, (axis + len(prefix) + ndim) % (len(prefix) + ndim))


_categorical = jit(_categorical_impl, static_argnums=(2, 3, 4))


def categorical(key, logits, axis: int = -1, shape: Sequence[int] | None = None,
                replace: bool = True) -> Array:
    """Category indices sampled from ``softmax(logits, axis)`` (Gumbel-max), as jax's.

    Example::

        >>> numlir.random.categorical(numlir.random.PRNGKey(0), jnp.log(jnp.array([0.2, 0.8])), shape=(5,))
    """
    key = prng.check_key("categorical", key)
    logits = creation.asarray(logits)
    axis = tc.canonical_axis("categorical", axis, logits.ndim)
    batch_shape = tuple(d for i, d in enumerate(logits.shape) if i != axis)
    if shape is None:
        shape = batch_shape
    else:
        shape = canonical_shape("categorical", shape)
        _check_shape("categorical", shape, batch_shape)
    if not replace:
        return _categorical_without_replacement(key, logits, axis, shape, batch_shape)
    return _categorical(key, logits, axis, shape, batch_shape)


def _categorical_without_replacement(key, logits, axis, shape, batch_shape):
    logits = logits + gumbel(key, logits.shape, logits.dtype)
    k = math.prod(shape[:len(shape) - len(batch_shape)])
    if k > logits.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                         f"categories ({logits.shape[axis]}).")
    perm = [i for i in range(logits.ndim) if i != axis] + [axis]
    _, indices = lax_sorting.top_k(reshaping.transpose(logits, perm), k)
    dims = (indices.ndim - 1, *range(indices.ndim - 1))
    return shape_ops.reshape(indices, shape, dims)


# --- permutations (need sorting) --------------------------------------------------------------


def _sort_key_val(keys, values, axis):
    return lax_sorting.sort_key_val(keys, values, dimension=axis)


def _shuffle_impl(key, x, axis):
    size = core.get_aval(x).size
    num_rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(num_rounds):
        key, subkey = prng.split_list(key, 2)
        sort_keys = prng.random_bits(subkey, 32, core.get_aval(x).shape)
        _, x = _sort_key_val(sort_keys, x, axis)
    return x


_shuffle = jit(_shuffle_impl, static_argnums=2)


def permutation(key, x, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of ``arange(x)`` (int ``x``) or of ``x`` along ``axis``.

    With ``independent=True`` each slice along ``axis`` is shuffled on its own.

    Example::

        >>> numlir.random.permutation(numlir.random.PRNGKey(0), 5)
    """
    key = prng.check_key("permutation", key)
    x = x if isinstance(x, (int, np.integer)) else creation.asarray(x)
    if not np.ndim(x) if not isinstance(x, core.Tracer) else not x.ndim:
        if not dtypes.is_int(core.get_aval(x).dtype):
            raise TypeError("x must be an integer or at least 1-dimensional")
        return _shuffle(key, creation.arange(int(x)), 0)
    axis = tc.canonical_axis("permutation", axis, x.ndim)
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, creation.arange(x.shape[axis]), 0)
    return joining.take(x, ind, axis)


def shuffle(key, x, axis: int = 0) -> Array:
    """``x`` shuffled independently along ``axis`` (deprecated in JAX; use permutation).

    Example::

        >>> numlir.random.shuffle(numlir.random.PRNGKey(0), jnp.arange(5))
    """
    key = prng.check_key("shuffle", key)
    x = creation.asarray(x)
    return _shuffle(key, x, tc.canonical_axis("shuffle", axis, x.ndim))


def choice(key, a, shape: Sequence[int] = (), replace: bool = True, p=None, axis: int = 0) -> Array:
    """Random samples from ``a`` (or ``arange(a)``), with or without replacement, weights ``p``.

    Example::

        >>> numlir.random.choice(numlir.random.PRNGKey(0), 10, (3,), replace=False)
    """
    key = prng.check_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of numlir.random.choice must be a sequence, got {shape}")
    shape = canonical_shape("choice", shape)
    arr = creation.asarray(a)
    if arr.ndim == 0:
        n_inputs = int(a)
    else:
        axis = tc.canonical_axis("choice", axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return creation.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                         f"(size {n_inputs}) when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else joining.take(arr, ind, axis)
        else:
            perm = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
            result = perm[(slice(None),) * (axis if arr.ndim else 0) + (slice(n_draws),)]
    else:
        p_arr = creation.asarray(p)
        if not dtypes.is_float(p_arr.dtype):
            p_arr = p_arr.astype(dtypes.default_float_dtype())
        if p_arr.shape != (n_inputs,):
            raise ValueError(
                "p must be None or a 1D vector with the same size as a.shape[axis]. "
                f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
        if replace:
            p_cuml = cumulative.cumsum(p_arr)
            r = p_cuml[-1] * (1 - uniform(key, shape, dtype=p_cuml.dtype))
            ind = sorting.searchsorted(p_cuml, r).astype(dtypes.default_int_dtype())
        else:
            g = gumbel(key, (n_inputs,), dtype=p_arr.dtype) + ufuncs.log(p_arr)
            ind = lax_sorting.top_k(g, n_draws)[1].astype(dtypes.default_int_dtype())
        result = ind if arr.ndim == 0 else joining.take(arr, ind, axis)
    return result.reshape(shape if arr.ndim == 0 else
                          arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1:])
