"""NaN-aware and cumulative reductions, differences, covariance and friends: nanargmax,
nanargmin, nanprod, nancumsum, nancumprod, nanvar, nanstd, cumulative_sum,
cumulative_prod, diff, ediff1d, trapezoid, cov, corrcoef, digitize, interp, bincount,
convolve and correlate."""

from __future__ import annotations

import operator

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import complex_ops, convolution
from numlir._src.numpy import (creation, cumulative, float_ops, joining, linalg_ops, reductions, reshaping,
                               sorting, ufuncs)
from numlir._src.numpy.util import check_arraylike, dtype_of, promote_args_inexact, promote_dtypes_inexact


def _nan_filled(a, fill):
    a = creation.asarray(a)
    return ufuncs.where(ufuncs.isnan(a), np.asarray(fill, dtype_of(a)), a) if dtypes.is_inexact(dtype_of(a)) else a


def _nan_arg(name, fn, fill, a, axis, keepdims):
    check_arraylike(name, a)
    a = creation.asarray(a)
    if not dtypes.is_inexact(dtype_of(a)):
        return fn(a, axis=axis, keepdims=keepdims)
    nan = ufuncs.isnan(a)
    index = fn(ufuncs.where(nan, np.asarray(fill, dtype_of(a)), a), axis=axis, keepdims=keepdims)
    return ufuncs.where(reductions.all(nan, axis=axis, keepdims=keepdims), np.asarray(-1, dtype_of(index)), index)


def nanargmax(a, axis=None, out=None, keepdims: bool = False):
    """argmax ignoring NaNs; -1 where a slice is all NaN."""
    return _nan_arg("nanargmax", reductions.argmax, -np.inf, a, axis, keepdims)


def nanargmin(a, axis=None, out=None, keepdims: bool = False):
    """argmin ignoring NaNs; -1 where a slice is all NaN."""
    return _nan_arg("nanargmin", reductions.argmin, np.inf, a, axis, keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """The product with NaNs taken as 1."""
    return reductions.prod(_nan_filled(a, 1), axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                           where=where)


def nancumsum(a, axis=None, dtype=None, out=None):
    """cumsum with NaNs taken as 0."""
    return cumulative.cumsum(_nan_filled(a, 0), axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """cumprod with NaNs taken as 1."""
    return cumulative.cumprod(_nan_filled(a, 1), axis=axis, dtype=dtype)


def nanvar(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False, *, where=None):
    """The variance of the non-NaN elements (NaN where fewer than ``ddof + 1`` remain)."""
    check_arraylike("nanvar", a)
    (a,) = promote_dtypes_inexact(creation.asarray(a))
    if dtype is not None:
        a = a.astype(dtype)
    valid = ~ufuncs.isnan(a)
    if where is not None:
        valid = valid & where
    zero = np.asarray(0, dtype_of(a))
    count = reductions.sum(valid, axis=axis, keepdims=True).astype(dtype_of(a))
    mean = reductions.sum(ufuncs.where(valid, a, zero), axis=axis, keepdims=True) / count
    centered = ufuncs.where(valid, a - mean, zero)
    total = reductions.sum(centered * centered, axis=axis, keepdims=keepdims)
    normalizer = reductions.sum(valid, axis=axis, keepdims=keepdims).astype(dtype_of(a)) - ddof
    return ufuncs.where(normalizer > 0, total / ufuncs.where(normalizer > 0, normalizer, 1), np.nan)


def nanstd(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False, *, where=None):
    """The standard deviation of the non-NaN elements."""
    return ufuncs.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where))


def _cumulative_api(name, fn, identity):
    def op(x, /, *, axis: int | None = None, dtype=None, include_initial: bool = False):
        check_arraylike(name, x)
        x = creation.asarray(x)
        if axis is None:
            if x.ndim > 1:
                raise ValueError(f"The array to be reduced has more than one dimension; axis is required")
            axis = 0
        if x.ndim == 0:
            raise ValueError(f"{name} does not support scalar inputs")
        if dtype is None:
            # The standard's (and sum's) accumulation type: bools and narrow ints widen to the
            # default int, narrow unsigned ints to the default uint. jax's cumulative_prod
            # keeps uint8/int8 (as its cumprod does); numlir's follows the standard there.
            dtype = reductions._sum_dtype(dtype_of(x))
        out = fn(x, axis=axis, dtype=dtype)
        if include_initial:
            shape = list(out.shape)
            shape[axis] = 1
            out = joining.concatenate([creation.full(shape, identity, dtype_of(out)), out], axis=axis)
        return out

    op.__name__ = name
    op.__doc__ = f"The Array API's {name}: an inclusive scan, optionally led by the identity."
    return op


cumulative_sum = _cumulative_api("cumulative_sum", cumulative.cumsum, 0)
cumulative_prod = _cumulative_api("cumulative_prod", cumulative.cumprod, 1)


def _slice_along(a, axis, start, stop):
    index = [slice(None)] * a.ndim
    index[axis] = slice(start, stop)
    return a[tuple(index)]


def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis`` (``!=`` for booleans)."""
    check_arraylike("diff", a)
    a = creation.asarray(a)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if a.ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = axis % a.ndim
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        extra = creation.asarray(extra)
        if extra.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            extra = reshaping.broadcast_to(extra, shape)
        parts.append(extra)
    if parts[0] is not None or parts[1] is not None:
        a = joining.concatenate([p for p in (parts[0], a, parts[1]) if p is not None], axis=axis)
    for _ in range(n):
        hi, lo = _slice_along(a, axis, 1, None), _slice_along(a, axis, None, -1)
        a = ufuncs.not_equal(hi, lo) if dtype_of(a) == np.bool_ else hi - lo
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened ``ary``, with ``to_begin`` and ``to_end`` around them."""
    check_arraylike("ediff1d", ary)
    flat = reshaping.ravel(creation.asarray(ary))
    out = flat[1:] - flat[:-1]
    parts = [reshaping.ravel(creation.asarray(to_begin)).astype(dtype_of(out))] if to_begin is not None else []
    parts.append(out)
    if to_end is not None:
        parts.append(reshaping.ravel(creation.asarray(to_end)).astype(dtype_of(out)))
    return joining.concatenate(parts) if len(parts) > 1 else out


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """The integral of ``y`` by the trapezoidal rule, over sample points ``x`` or spacing ``dx``."""
    if x is None:
        check_arraylike("trapezoid", y)
        (y,) = promote_dtypes_inexact(creation.asarray(y))
        spacing = dx
    else:
        check_arraylike("trapezoid", y, x)
        y, x = promote_dtypes_inexact(creation.asarray(y), creation.asarray(x))
        spacing = diff(x, axis=axis) if x.ndim > 1 else diff(x)
    y = linalg_ops.moveaxis(y, axis, -1)
    if x is not None and x.ndim > 1:
        spacing = linalg_ops.moveaxis(spacing, axis, -1)
    return reductions.sum(0.5 * spacing * (y[..., 1:] + y[..., :-1]), axis=-1)


def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows (or columns) of ``m`` (and ``y``)."""
    check_arraylike("cov", m)
    m = creation.asarray(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    X = joining.atleast_2d(m)
    if not rowvar and X.shape[0] != 1:
        X = X.T
    if X.shape[0] == 0:
        return creation.zeros((0, 0), dtypes.default_float_dtype())
    if y is not None:
        Y = joining.atleast_2d(creation.asarray(y))
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        X = joining.concatenate([X, Y], axis=0)
    (X,) = promote_dtypes_inexact(X)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        w = creation.asarray(fweights).astype(dtype_of(X))
    if aweights is not None:
        aw = creation.asarray(aweights).astype(dtype_of(X))
        w = aw if w is None else w * aw
    if w is None:
        avg = reductions.mean(X, axis=1)
        w_sum = np.asarray(X.shape[1], dtype_of(X))
        fact = w_sum - ddof
    else:
        w_sum = reductions.sum(w)
        avg = reductions.sum(X * w, axis=1) / w_sum
        if aweights is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * reductions.sum(w * aw) / w_sum
    centered = X - avg[:, None]
    weighted = centered if w is None else centered * w
    c = linalg_ops.matmul(centered, float_ops.conjugate(weighted.T)) / fact
    return reshaping.squeeze(c) if c.shape == (1, 1) else c


def corrcoef(x, y=None, rowvar: bool = True):
    """Pearson correlation coefficients, clipped to [-1, 1]."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return c / c
    d = joining.diagonal(c)
    stddev = ufuncs.sqrt(float_ops.real(d)).astype(dtype_of(c))
    c = c / stddev[:, None] / stddev[None, :]
    if dtypes.is_complex(dtype_of(c)):  # each part clipped, as jax
        return complex_ops.complex(ufuncs.clip(float_ops.real(c), -1, 1),
                                   ufuncs.clip(float_ops.imag(c), -1, 1))
    return ufuncs.clip(c, -1, 1)


def digitize(x, bins, right: bool = False, *, method=None):
    """The index of the bin each ``x`` falls in (``bins`` increasing or decreasing)."""
    check_arraylike("digitize", x, bins)
    x, bins = creation.asarray(x), creation.asarray(bins)
    if bins.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    if bins.shape[0] == 0:
        return creation.zeros(x.shape, np.int32)
    side = "left" if right else "right"
    increasing = sorting.searchsorted(bins, x, side=side)
    decreasing = bins.shape[0] - sorting.searchsorted(bins[::-1], x, side="right" if right else "left")
    return ufuncs.where(bins[-1] >= bins[0], increasing, decreasing).astype(np.int32)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of ``(xp, fp)`` at ``x`` (``xp`` increasing)."""
    check_arraylike("interp", x, xp, fp)
    x, xp, fp = promote_dtypes_inexact(creation.asarray(x), creation.asarray(xp), creation.asarray(fp))
    if xp.ndim != 1 or fp.ndim != 1 or xp.shape != fp.shape:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    if period is not None:
        if left is not None or right is not None:
            raise ValueError("interp: left and right cannot be given together with period")
        period = ufuncs.abs(creation.asarray(period).astype(dtype_of(x)))
        x = x % period
        xp = xp % period
        order = sorting.argsort(xp)
        xp, fp = xp[order], fp[order]
        xp = joining.concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = joining.concatenate([fp[-1:], fp, fp[:1]])
    i = ufuncs.clip(sorting.searchsorted(xp, x, side="right"), 1, xp.shape[0] - 1)
    dx = xp[i] - xp[i - 1]
    delta = x - xp[i - 1]
    eps = np.finfo(dtype_of(dx)).eps
    safe_dx = ufuncs.where(ufuncs.abs(dx) <= eps, np.asarray(1, dtype_of(dx)), dx)
    f = ufuncs.where(ufuncs.abs(dx) <= eps, fp[i - 1], fp[i - 1] + (delta / safe_dx) * (fp[i] - fp[i - 1]))
    if period is None:
        f = ufuncs.where(x < xp[0], fp[0] if left is None else left, f)
        f = ufuncs.where(x > xp[-1], fp[-1] if right is None else right, f)
    return f


def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None):
    """Counts (or summed ``weights``) of each non-negative integer in 1-D ``x``.

    Under jit the output size must be static: pass ``length``; eagerly it is
    ``max(x) + 1`` (at least ``minlength``). Negative values count as 0, values
    past ``length`` are dropped, as in JAX."""
    check_arraylike("bincount", x)
    x = creation.asarray(x)
    if not dtypes.is_int(dtype_of(x)):
        raise TypeError(f"x argument to bincount must have an integer type; got {dtype_of(x)}")
    if x.ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        if isinstance(x, core.Tracer):
            raise core.ConcretizationTypeError(
                "bincount: the output length depends on the values of x; pass length= under jit")
        length = max(minlength, int(np.max(np.asarray(x))) + 1 if x.shape[0] else 0)
    else:
        length = operator.index(length)
    if weights is None:
        weights = creation.ones(x.shape, dtypes.default_int_dtype())
    else:
        weights = creation.asarray(weights)
        if weights.shape != x.shape:
            raise ValueError(f"bincount: weights shape {weights.shape} does not match x's {x.shape}")
    return creation.zeros(length, dtype_of(weights)).at[ufuncs.clip(x, 0)].add(weights, mode="drop")


def _conv1d(name, a, v, mode, flip):
    check_arraylike(name, a, v)
    a, v = promote_dtypes_inexact(creation.asarray(a), creation.asarray(v))
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"{name}() only support 1-dimensional inputs.")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError(f"{name}: inputs cannot be empty, got shapes {a.shape} and {v.shape}.")
    if not flip and dtypes.is_complex(v.dtype):
        v = float_ops.conjugate(v)  # numpy's correlation sums a[n + k] * conj(v[n])
    swapped = False
    if a.shape[0] < v.shape[0]:
        a, v, swapped = v, a, True
    if flip:
        v = v[::-1]
    m = v.shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(m // 2, m - m // 2 - 1)]
    elif mode == "full":
        padding = [(m - 1, m - 1)]
    else:
        raise ValueError(f"mode must be one of ['full', 'same', 'valid'], got {mode!r}")
    out = convolution.conv_general_dilated(a[None, None, :], v[None, None, :], (1,), padding)[0, 0]
    return out[::-1] if swapped and not flip else out


def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
    """The discrete linear convolution of 1-D ``a`` and ``v``."""
    return _conv1d("convolve", a, v, mode, flip=True)


def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
    """The cross-correlation of 1-D ``a`` and ``v``."""
    return _conv1d("correlate", a, v, mode, flip=False)
