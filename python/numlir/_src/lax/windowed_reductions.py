"""Windowed reductions: reduce_window_{sum,prod,max,min,and,or} and lax.reduce_window.

Each primitive lowers to one ``hlo.reduce_window``, whose padding and
dilation holes hold the identity of the reduction. ``reduce_window`` takes
jax's (init_value, computation) form and recognizes the standard monoids:
the computation picks the primitive, and an init value other than the
identity is combined into every window once, which is what XLA computes
(padding never contributes).
"""

from __future__ import annotations

import itertools
import operator
from typing import Callable, Sequence

import numpy as np

from numlir._src import ad, batching, core, dtypes, traceback_util
from numlir._src.lax import complex_ops
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops, slicing
from numlir._src.lax import type_checks as tc
from numlir._src.lax.convolution import padtype_to_pads


def _dilate(size: int, dilation: int) -> int:
    return 0 if size == 0 else (size - 1) * dilation + 1


def _window_shape(name, operand, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation):
    rank = operand.ndim
    for what, values in (("window_dimensions", window_dimensions),
                         ("window_strides", window_strides), ("base_dilation", base_dilation),
                         ("window_dilation", window_dilation), ("padding", padding)):
        if len(values) != rank:
            raise core.shape_error(f"{name}: {what} {tuple(values)} must have one entry per "
                                   f"operand dimension, got {len(values)} for shape "
                                   f"{operand.shape}")
    for what, values in (("window_dimensions", window_dimensions),
                         ("window_strides", window_strides), ("base_dilation", base_dilation),
                         ("window_dilation", window_dilation)):
        if any(v <= 0 for v in values):
            raise core.value_error(f"{name}: {what} must be positive, got {tuple(values)}")
    shape = []
    for size, w, s, (lo, hi), b, d in zip(operand.shape, window_dimensions, window_strides,
                                          padding, base_dilation, window_dilation):
        padded = _dilate(size, b) + lo + hi
        if padded < 0:
            raise core.value_error(f"{name}: padding {tuple(padding)} removes more than the "
                                   f"operand of shape {operand.shape} has")
        window = _dilate(w, d)
        shape.append(0 if window > padded else (padded - window) // s + 1)
    return tuple(shape)


def _pairs(padding) -> str:
    return "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + "]"


def _reduce_window_primitive(name: str, kind: str, accepted) -> core.Primitive:
    prim = core.Primitive(name)

    @prim.def_abstract_eval
    def _abstract_eval(operand, *, window_dimensions, window_strides, padding, base_dilation,
                       window_dilation):
        tc.check_dtype(name, operand, accepted)
        return operand.update(shape=_window_shape(name, operand, window_dimensions, window_strides,
                                                  padding, base_dilation, window_dilation))

    @prim.def_lowering
    def _lowering(ctx, operand, *, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation):
        clauses = f"window = {list(window_dimensions)}"
        if any(s != 1 for s in window_strides):
            clauses += f", strides = {list(window_strides)}"
        if any(p != (0, 0) for p in padding):
            clauses += f", padding = {_pairs(padding)}"
        if any(b != 1 for b in base_dilation):
            clauses += f", base_dilations = {list(base_dilation)}"
        if any(d != 1 for d in window_dilation):
            clauses += f", window_dilations = {list(window_dilation)}"
        return ctx.emit(f"hlo.reduce_window {kind} {operand}, {clauses} : "
                        f"{ctx.type_in()} -> {ctx.type_out()}")

    def _batch_rule(axis_size, args, dims, *, window_dimensions, window_strides, padding,
                    base_dilation, window_dilation):
        d = dims[0]
        put = lambda t, v: (*t[:d], v, *t[d:])  # noqa: E731
        return prim.bind(args[0], window_dimensions=put(window_dimensions, 1),
                         window_strides=put(window_strides, 1), padding=put(padding, (0, 0)),
                         base_dilation=put(base_dilation, 1),
                         window_dilation=put(window_dilation, 1)), d

    batching.defrule(prim, _batch_rule)
    return prim


reduce_window_sum_p = _reduce_window_primitive("reduce_window_sum", "sum", tc.NUMERIC)
reduce_window_prod_p = _reduce_window_primitive("reduce_window_prod", "prod", tc.NUMERIC)
reduce_window_max_p = _reduce_window_primitive("reduce_window_max", "max", tc.ANY)
reduce_window_min_p = _reduce_window_primitive("reduce_window_min", "min", tc.ANY)
reduce_window_and_p = _reduce_window_primitive("reduce_window_and", "and", tc.INT_OR_BOOL)
reduce_window_or_p = _reduce_window_primitive("reduce_window_or", "or", tc.INT_OR_BOOL)


def _reduce_window_prod_jvp(primals, tangents, *, window_dimensions, window_strides, padding,
                            base_dilation, window_dilation):
    # sum over window offsets k of t_k * prod_{k' != k} x_k', each offset's values being one
    # strided slice of the padded operand; the products of the other offsets come from
    # running products from both ends, so zeros in x need no division.

    x, t = primals[0], ad.instantiate(tangents[0])
    out = reduce_window_prod_p.bind(x, window_dimensions=window_dimensions,
                                    window_strides=window_strides, padding=padding,
                                    base_dilation=base_dilation, window_dilation=window_dilation)
    out_shape = core.get_aval(out).shape
    if 0 in out_shape or 0 in window_dimensions:
        return out, ad.Zero(core.get_aval(out).strip_weak_type())
    config = [(lo, hi, d - 1) for (lo, hi), d in zip(padding, base_dilation)]
    xp, tp = slicing.pad(x, ew.const(x, 1), config), slicing.pad(t, ew.const(t, 0), config)
    xs, ts = [], []
    for offset in itertools.product(*(range(w) for w in window_dimensions)):
        start = [k * d for k, d in zip(offset, window_dilation)]
        limit = [s + (o - 1) * st + 1 for s, o, st in zip(start, out_shape, window_strides)]
        xs.append(slicing.slice(xp, start, limit, window_strides))
        ts.append(slicing.slice(tp, start, limit, window_strides))
    before = [None] * len(xs)  # product of the offsets before k (None: empty)
    for k in range(1, len(xs)):
        before[k] = xs[k - 1] if before[k - 1] is None else ew.mul(before[k - 1], xs[k - 1])
    tangent, after = None, None  # after: product of the offsets after k
    for k in reversed(range(len(xs))):
        others = [v for v in (before[k], after) if v is not None]
        term = ts[k]
        for v in others:
            term = ew.mul(term, v)
        tangent = term if tangent is None else ew.add(tangent, term)
        after = xs[k] if after is None else ew.mul(after, xs[k])
    return out, tangent


def _reduce_window_chooser_jvp(prim, kind: str):
    # Walk the window offsets; each offset's values are one strided slice of the padded
    # operand. The tangent follows the first position holding the window's extremum. As
    # jax's select_and_gather_add, the running choice is kept while it is >= (<= for min)
    # the next value: a NaN on either side of the comparison moves it on.
    def rule(primals, tangents, *, window_dimensions, window_strides, padding, base_dilation,
             window_dilation):

        x, t = primals[0], ad.instantiate(tangents[0])
        out = prim.bind(x, window_dimensions=window_dimensions, window_strides=window_strides,
                        padding=padding, base_dilation=base_dilation,
                        window_dilation=window_dilation)
        out_shape = core.get_aval(out).shape
        config = [(lo, hi, d - 1) for (lo, hi), d in zip(padding, base_dilation)]
        xp = slicing.pad(x, ew.const(x, monoid_identity(kind, core.get_aval(x).dtype)), config)
        tp = slicing.pad(t, ew.const(t, 0), config)
        keep = ew.ge if kind == "max" else ew.le
        best_x = best_t = None
        for offset in itertools.product(*(range(w) for w in window_dimensions)):
            start = [k * d for k, d in zip(offset, window_dilation)]
            limit = [s + (o - 1) * st + 1 for s, o, st in zip(start, out_shape, window_strides)]
            xk = slicing.slice(xp, start, limit, window_strides)
            tk = slicing.slice(tp, start, limit, window_strides)
            if best_x is None:
                best_x, best_t = xk, tk
                continue
            stay = keep(best_x, xk)
            best_x, best_t = ew.select(stay, best_x, xk), ew.select(stay, best_t, tk)
        return out, best_t

    return rule


ad.defjvp_rule(reduce_window_prod_p, _reduce_window_prod_jvp)
ad.defjvp_rule(reduce_window_max_p, _reduce_window_chooser_jvp(reduce_window_max_p, "max"))
ad.defjvp_rule(reduce_window_min_p, _reduce_window_chooser_jvp(reduce_window_min_p, "min"))
ad.defzero(reduce_window_and_p)
ad.defzero(reduce_window_or_p)


# Transpose rules (reverse mode) of reduce_window_sum. Per dimension, with P the padded,
# base-dilated operand: out[o] = sum_k P[o*S + k*D], so ct_P[p] = sum_k C[p - k*D] where C is
# ct with S - 1 holes between elements. That is itself a stride-1 window sum (with window
# dilation D) of C, low-padded by dilate(W, D) - 1 and high-padded up to P's size; C's holes
# are base dilation. Then the pad/dilation that made P from the operand is undone as in pad's
# transpose: negated low/high, and a strided slice over the holes.
def _reduce_window_sum_transpose(ct, operand, *, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):

    aval = operand.aval
    if aval.size == 0 or core.get_aval(ct).size == 0:
        return [shape_ops.full(aval.shape, 0, aval.dtype)]
    out_shape = core.get_aval(ct).shape
    ct_padding = []
    for n, w, s, (lo, hi), b, d, o in zip(aval.shape, window_dimensions, window_strides, padding,
                                          base_dilation, window_dilation, out_shape):
        padded = _dilate(n, b) + lo + hi
        ct_padding.append((_dilate(w, d) - 1, padded - _dilate(o, s)))
    ones = (1,) * aval.ndim
    ct_padded = reduce_window_sum_p.bind(
        ct, window_dimensions=tuple(window_dimensions), window_strides=ones,
        padding=tuple(ct_padding), base_dilation=tuple(window_strides),
        window_dilation=tuple(window_dilation))
    unpadded = slicing.pad(ct_padded, ew.const(ct, 0), [(-lo, -hi, 0) for lo, hi in padding])
    return [slicing.slice(unpadded, (0,) * aval.ndim, core.get_aval(unpadded).shape,
                          tuple(base_dilation))]


ad.deflinear(reduce_window_sum_p, _reduce_window_sum_transpose)


def _canonical_params(name, operand, window_dimensions, window_strides, padding, base_dilation,
                      window_dilation):
    aval = core.get_aval(operand)
    rank = aval.ndim

    def ints(what, values, default):
        if values is None:
            return (default,) * rank
        try:
            return tuple(operator.index(v) for v in values)
        except TypeError:
            raise core.shape_error(f"{name}: {what} must be a sequence of integers, got "
                                   f"{values!r}") from None

    window_dimensions = ints("window_dimensions", window_dimensions, 1)
    window_strides = ints("window_strides", window_strides, 1)
    base_dilation = ints("base_dilation", base_dilation, 1)
    window_dilation = ints("window_dilation", window_dilation, 1)
    if isinstance(padding, str):
        if any(len(v) != rank for v in (window_dimensions, window_dilation, window_strides)):
            raise core.shape_error(f"{name}: window_dimensions {window_dimensions} must have one "
                                   f"entry per operand dimension of shape {aval.shape}")
        window = [_dilate(w, d) for w, d in zip(window_dimensions, window_dilation)]
        padding = padtype_to_pads(aval.shape, window, window_strides, padding)
    try:
        padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise core.value_error(f"{name}: padding must be a string or a sequence of (low, high) "
                               f"pairs, got {padding}") from None
    return dict(window_dimensions=window_dimensions, window_strides=window_strides,
                padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)


def _reducer(prim: core.Primitive):
    def reduce(operand, window_dimensions: Sequence[int], window_strides=None, padding="VALID",
               base_dilation=None, window_dilation=None):
        params = _canonical_params(prim.name, operand, window_dimensions, window_strides, padding,
                                   base_dilation, window_dilation)
        kind = prim.name.removeprefix("reduce_window_")
        if dtypes.is_complex(core.get_aval(operand).dtype):
            if kind == "sum":  # linear: each part's window sum, keeping the sum's own rules
                return complex_ops.complex(prim.bind(complex_ops.real(operand), **params),
                                           prim.bind(complex_ops.imag(operand), **params))
            if kind in ("max", "min", "prod"):
                return _complex_window_reduction(kind, operand, **params)
        return prim.bind(operand, **params)

    reduce.__name__ = prim.name
    reduce.__doc__ = (f"``{prim.name}(operand, window_dimensions, window_strides, padding, "
                      "base_dilation, window_dilation)``: reduce_window with the identity as init.")
    return reduce


def _complex_window_reduction(kind: str, x, *, window_dimensions, window_strides, padding,
                              base_dilation, window_dilation):
    """Complex window products, and max/min in jax's lexicographic order, which the real-only
    hlo.reduce_window lacks: each window offset's values are one strided slice of the padded,
    base-dilated operand, combined by lax.mul/lax.max/lax.min (whose rules give derivatives,
    batching and jit)."""
    aval = core.get_aval(x)
    out_shape = _window_shape(f"reduce_window_{kind}", aval, window_dimensions, window_strides,
                              padding, base_dilation, window_dilation)
    if 0 in out_shape or 0 in aval.shape:  # nothing to slice: every window holds only padding
        return shape_ops.broadcast_in_dim(ew.const(x, monoid_identity(kind, aval.dtype)),
                                          out_shape, ())
    config = [(lo, hi, b - 1) for (lo, hi), b in zip(padding, base_dilation)]
    padded = slicing.pad(x, ew.const(x, monoid_identity(kind, aval.dtype)), config)
    out = None
    for offset in itertools.product(*(range(w) for w in window_dimensions)):
        start = [k * d for k, d in zip(offset, window_dilation)]
        limit = [s + (o - 1) * st + 1 for s, o, st in zip(start, out_shape, window_strides)]
        values = slicing.slice(padded, start, limit, window_strides)
        out = values if out is None else monoid_combine(kind, out, values)
    return out


reduce_window_sum = _reducer(reduce_window_sum_p)
reduce_window_prod = _reducer(reduce_window_prod_p)
reduce_window_max = _reducer(reduce_window_max_p)
reduce_window_min = _reducer(reduce_window_min_p)
reduce_window_and = _reducer(reduce_window_and_p)
reduce_window_or = _reducer(reduce_window_or_p)


_REDUCERS = {"sum": reduce_window_sum, "prod": reduce_window_prod, "max": reduce_window_max,
             "min": reduce_window_min, "and": reduce_window_and, "or": reduce_window_or}


#: Functions ``reduce_window`` recognizes as a ``computation``, with the reduction they stand
#: for: lax's here, numlir.numpy's ufuncs registered by numpy/ufuncs.py (it sits above lax).
_MONOIDS: dict[Callable, str] = {ew.add: "sum", ew.mul: "prod", ew.max: "max", ew.min: "min",
                                 ew.bitwise_and: "and", ew.bitwise_or: "or"}


def register_monoid(fn: Callable, kind: str) -> None:
    """Lets ``reduce_window`` recognize ``fn`` as the ``kind`` ("sum", "max"...) reduction."""
    _MONOIDS[fn] = kind


def monoid_kind(computation) -> str | None:
    """The reduction kind of a recognized computation, else None."""
    try:
        return _MONOIDS.get(traceback_util.unwrap(computation))
    except TypeError:  # unhashable
        return None


def monoid_combine(kind: str, x, y):
    """``x`` and ``y`` combined by the ``kind`` reduction's operation."""
    return {"sum": ew.add, "prod": ew.mul, "max": ew.max, "min": ew.min,
            "and": ew.bitwise_and, "or": ew.bitwise_or}[kind](x, y)


def monoid_identity(kind: str, dtype: np.dtype):
    """The identity element of the ``kind`` reduction in ``dtype``."""
    if dtypes.is_bool(dtype):
        return kind in ("and", "min")
    if dtypes.is_complex(dtype):  # lexicographic order: no complex is below -inf - inf i
        return {"sum": 0.0, "prod": 1.0, "max": complex(-np.inf, -np.inf),
                "min": complex(np.inf, np.inf)}[kind]
    if dtypes.is_inexact(dtype):
        return {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}[kind]
    info = np.iinfo(dtype)
    return {"sum": 0, "prod": 1, "max": info.min, "min": info.max, "or": 0,
            "and": -1 if info.min < 0 else info.max}[kind]


def reduce_window(operand, init_value, computation: Callable, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None = None, padding="VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None):
    """Reduce each window of ``operand`` with ``computation``, as jax.lax.reduce_window.

    ``computation`` is one of lax.add, lax.mul, lax.max, lax.min,
    lax.bitwise_and, lax.bitwise_or (or their numlir.numpy counterparts).
    ``init_value`` is combined into every window once; padding never
    contributes. Max pooling, NHWC::

        lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    """

    kind = monoid_kind(computation)
    if kind is None:
        raise core.value_error(
            "reduce_window: unsupported computation "
            f"{getattr(computation, '__name__', computation)!r}; numlir supports lax.add, lax.mul, "
            "lax.max, lax.min, lax.bitwise_and and lax.bitwise_or (and the numlir.numpy ufuncs "
            "add, multiply, maximum, minimum, bitwise_and/logical_and, bitwise_or/logical_or)")
    if isinstance(operand, (list, tuple, dict)):
        raise core.value_error("reduce_window: numlir supports a single operand array, not a "
                               f"pytree of {type(operand).__name__}")
    aval = core.get_aval(operand)
    init_aval = core.get_aval(init_value)
    if init_aval.shape:
        raise core.shape_error(f"reduce_window: init_value must be a scalar, got shape "
                               f"{init_aval.shape}")
    if dtypes.is_bool(aval.dtype):  # on bool, + is `or` and * is `and`
        kind = {"sum": "or", "prod": "and"}.get(kind, kind)
    if init_aval.dtype != aval.dtype:
        if not init_aval.weak_type:
            raise core.shape_error(
                f"reduce_window: init_value dtype {init_aval.dtype.name} must match the operand "
                f"dtype {aval.dtype.name}")
        init_value = ew.convert_element_type(init_value, aval.dtype)
    out = _REDUCERS[kind](operand, window_dimensions, window_strides, padding, base_dilation,
                          window_dilation)
    if not isinstance(init_value, core.Tracer):
        concrete = core.concrete_to_numpy(init_value)
        if concrete.item() == monoid_identity(kind, aval.dtype):
            return out
    return monoid_combine(kind, out, init_value)
