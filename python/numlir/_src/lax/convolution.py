"""Convolution: the conv_general_dilated primitive and jax's wrappers around it.

``conv_general_dilated`` lowers to one ``hlo.convolution``; ``conv``,
``conv_with_general_padding`` and ``conv_transpose`` only compute its
arguments (padding from 'SAME'/'VALID', dimension numbers from layout
strings such as ``('NHWC', 'HWIO', 'NHWC')``), exactly as jax.lax does.
The primitive's JVP (bilinear), transpose rules (both cotangents are again
convolutions) and batching rule (the vmapped axis folded into batch or
feature dimensions) live next to it.
"""

from __future__ import annotations

import operator
from typing import NamedTuple, Sequence, Union

import numpy as np

from numlir._src import ad, ad_util, batching, core, dtypes
from numlir._src import transpose as tr
from numlir._src.lax import complex_ops
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops, slicing
from numlir._src.lax import type_checks as tc
from numlir._src.lowering import tensor_type


class ConvDimensionNumbers(NamedTuple):
    """Where batch, feature and spatial dimensions are in lhs, rhs and output.

    ``lhs_spec = (batch, feature, spatial...)``, ``rhs_spec = (out feature,
    in feature, spatial...)``, ``out_spec = (batch, feature, spatial...)``,
    each a tuple of dimension indices, as in jax.lax.
    """

    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


#: What ``dimension_numbers=`` accepts: three layout strings, a ConvDimensionNumbers, or None.
ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]


def conv_general_permutations(dimension_numbers) -> tuple[tuple[int, ...], ...]:
    """Layout strings ``('NCHW', 'OIHW', 'NCHW')`` as dimension index tuples.

    Spatial dimensions are ordered as they appear in the rhs string.
    """
    lhs, rhs, out = dimension_numbers
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (spec, (a, b)) in enumerate(zip(dimension_numbers, pairs)):
        if not spec.count(a) == spec.count(b) == 1:
            raise core.shape_error(f"convolution dimension_numbers[{i}] must contain the "
                                   f"characters '{a}' and '{b}' exactly once, got {spec}.")
        if len(spec) != len(set(spec)):
            raise core.shape_error(f"convolution dimension_numbers[{i}] cannot have duplicate "
                                   f"characters, got {spec}.")
    if not set(lhs) - {"N", "C"} == set(rhs) - {"O", "I"} == set(out) - {"N", "C"}:
        raise core.shape_error("convolution dimension_numbers elements must each have the same "
                               f"set of spatial characters, got {tuple(dimension_numbers)}.")

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        spatial.sort(key=lambda i: rhs.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial)

    return tuple(perm(spec, pair) for spec, pair in zip(dimension_numbers, pairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """``dimension_numbers`` (None, layout strings or ConvDimensionNumbers) in canonical form.

    >>> conv_dimension_numbers((1, 8, 8, 3), (3, 3, 3, 16), ("NHWC", "HWIO", "NHWC"))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    if len(lhs_shape) != len(rhs_shape):
        raise core.shape_error(f"convolution requires lhs and rhs ndim to be equal, got "
                               f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)) or len(dimension_numbers) != 3:
        raise core.shape_error("convolution dimension_numbers must be None, a ConvDimensionNumbers "
                               f"or a tuple of 3 layout strings, got {dimension_numbers!r}.")
    if all(isinstance(s, str) for s in dimension_numbers):
        for i, spec in enumerate(dimension_numbers):
            if len(spec) != len(lhs_shape):
                raise core.shape_error(
                    f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs "
                    f"and rhs, got {len(spec)} for lhs and rhs shapes {tuple(lhs_shape)} and "
                    f"{tuple(rhs_shape)}.")
        return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))
    try:  # a ConvDimensionNumbers (ours or jax's) or three index sequences
        specs = [tuple(operator.index(d) for d in spec) for spec in dimension_numbers]
    except TypeError:
        raise core.shape_error("convolution dimension_numbers elements must be layout strings or "
                               f"dimension index sequences, got {dimension_numbers!r}.") from None
    return ConvDimensionNumbers(*specs)


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
    """(low, high) padding per dimension for 'SAME', 'SAME_LOWER' or 'VALID'.

    'SAME' gives ``ceil(in / stride)`` outputs with any odd padding at the end,
    'SAME_LOWER' puts it at the start, 'VALID' pads nothing.
    """
    mode = padding.upper() if isinstance(padding, str) else padding
    if mode == "VALID":
        return [(0, 0)] * len(in_shape)
    if mode not in ("SAME", "SAME_LOWER"):
        raise core.value_error(
            f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}.")
    pads = []
    for size, window, stride in zip(in_shape, window_shape, window_strides):
        out = -(-size // stride)
        total = max((out - 1) * stride + window - size, 0)
        small, large = total // 2, total - total // 2
        pads.append((small, large) if mode == "SAME" else (large, small))
    return pads


def _dilate(size: int, dilation: int) -> int:
    return 0 if size == 0 else (size - 1) * dilation + 1


def _ints(name: str, what: str, values, count: int) -> tuple[int, ...]:
    try:
        values = tuple(operator.index(v) for v in values)
    except TypeError:
        raise core.shape_error(
            f"{name} {what} must be a sequence of integers, got {values!r}") from None
    if len(values) != count:
        raise core.shape_error(f"{name} {what} must have {count} entries (one per spatial "
                               f"dimension), got {values}")
    return values


# --- the primitive ----------------------------------------------------------------

conv_general_dilated_p = core.Primitive("conv_general_dilated")


@conv_general_dilated_p.def_abstract_eval
def _conv_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type):
    name = "conv_general_dilated"
    tc.check_same_dtypes(name, [lhs, rhs])
    tc.check_dtype(name, lhs, tc.NUMERIC)
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise core.shape_error(f"{name} lhs and rhs must have the same number of dimensions, at "
                               f"least 2, but got {lhs.shape} and {rhs.shape}.")
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    for what, spec in (("lhs", lhs_spec), ("rhs", rhs_spec), ("out", out_spec)):
        if sorted(spec) != list(range(lhs.ndim)):
            raise core.shape_error(f"{name} dimension_numbers {what}_spec {tuple(spec)} is not a "
                                   f"permutation of the {lhs.ndim} dimensions")
    for what, count in (("feature_group_count", feature_group_count),
                        ("batch_group_count", batch_group_count)):
        if count <= 0:
            raise core.value_error(f"{name} {what} must be a positive integer, got {count}.")
    if feature_group_count > 1 and batch_group_count > 1:
        raise core.value_error(
            f"At most one of batch_group_count and feature_group_count may be > 1, got "
            f"batch_group_count={batch_group_count} and feature_group_count={feature_group_count}")
    batch, features = lhs.shape[lhs_spec[0]], lhs.shape[lhs_spec[1]]
    out_features, in_features = rhs.shape[rhs_spec[0]], rhs.shape[rhs_spec[1]]
    if features % feature_group_count or features // feature_group_count != in_features:
        raise core.value_error(
            f"{name} lhs feature dimension size divided by feature_group_count must equal the rhs "
            f"input feature dimension size, but {features} // {feature_group_count} != "
            f"{in_features} (lhs {lhs.str_short()}, rhs {rhs.str_short()}).")
    for what, count in (("feature_group_count", feature_group_count),
                        ("batch_group_count", batch_group_count)):
        if out_features % count:
            raise core.value_error(
                f"{name} rhs output feature dimension size must be a multiple of {what}, but "
                f"{out_features} is not a multiple of {count}.")
    if batch % batch_group_count:
        raise core.value_error(f"{name} batch_group_count must divide lhs batch dimension size, "
                               f"but {batch_group_count} does not divide {batch}.")
    out_shape = [0] * lhs.ndim
    out_shape[out_spec[0]] = batch // batch_group_count
    out_shape[out_spec[1]] = out_features
    for i, (l, r, o) in enumerate(zip(lhs_spec[2:], rhs_spec[2:], out_spec[2:])):
        low, high = padding[i]
        padded = _dilate(lhs.shape[l], lhs_dilation[i]) + low + high
        if padded < 0:
            raise core.value_error(
                f"Negative padding is larger than the size of the corresponding dimension: got "
                f"padding={padding} for lhs spatial shape "
                f"{tuple(lhs.shape[d] for d in lhs_spec[2:])}")
        window = _dilate(rhs.shape[r], rhs_dilation[i])
        out_shape[o] = 0 if window > padded else (padded - window) // window_strides[i] + 1
    dtype = preferred_element_type if preferred_element_type is not None else lhs.dtype
    return core.ShapedArray(out_shape, dtype, lhs.weak_type and rhs.weak_type)


def _dims_string(spec, letters: str) -> str:
    labels = [""] * len(spec)
    labels[spec[0]], labels[spec[1]] = letters
    for i, d in enumerate(spec[2:]):
        labels[d] = str(i)
    return "[" + ", ".join(labels) + "]"


def _pairs(padding) -> str:
    return "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + "]"


@conv_general_dilated_p.def_lowering
def _conv_lowering(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type):

    out = ctx.avals_out[0]
    operands, types = [], []
    for x, aval in zip((lhs, rhs), ctx.avals_in):
        if aval.dtype != out.dtype:  # preferred_element_type: compute in the result's type
            converted = aval.update(dtype=out.dtype)
            x = ctx.emit(f"hlo.convert {x} : {tensor_type(aval)} -> {tensor_type(converted)}")
            aval = converted
        operands.append(x)
        types.append(tensor_type(aval))
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    kernel = (rhs_spec[1], rhs_spec[0], *rhs_spec[2:])  # hlo lists `i` first
    dims = (_dims_string(lhs_spec, "bf") + "x" + _dims_string(kernel, "io") + "->"
            + _dims_string(out_spec, "bf"))
    clauses = ""
    if any(s != 1 for s in window_strides):
        clauses += f", strides = {list(window_strides)}"
    if any(p != (0, 0) for p in padding):
        clauses += f", padding = {_pairs(padding)}"
    if any(d != 1 for d in lhs_dilation):
        clauses += f", lhs_dilation = {list(lhs_dilation)}"
    if any(d != 1 for d in rhs_dilation):
        clauses += f", rhs_dilation = {list(rhs_dilation)}"
    if feature_group_count != 1:
        clauses += f", feature_group_count = {feature_group_count}"
    if batch_group_count != 1:
        clauses += f", batch_group_count = {batch_group_count}"
    return ctx.emit(f"hlo.convolution {operands[0]}, {operands[1]}, dims = {dims}{clauses} : "
                    f"{types[0]}, {types[1]} -> {ctx.type_out()}")




# --- layout helpers for the rules below ----------------------------------------------
# The transpose and batching rules move a factor of one axis into another (a
# group count, or the vmapped axis) without leaving the caller's layout, so
# that every dimension_numbers works unchanged.


def _fold_axis(x, src: int, dst: int, groups: int = 1):
    """Merge axis ``src`` of ``x`` into the axis that is ``dst`` once ``src`` is removed.

    That axis is viewed as ``(groups, rest)`` and becomes ``(groups, src, rest)``
    flattened: with groups of contiguous features (or batch entries) each group
    keeps its own slice of ``src``.
    """
    x = batching.moveaxis(x, src, dst)
    shape = core.get_aval(x).shape
    size, dim = shape[dst], shape[dst + 1]
    if groups > 1:
        x = shape_ops.reshape(x, shape[:dst] + (size, groups, dim // groups) + shape[dst + 2:])
        perm = list(range(len(shape) + 1))
        perm[dst], perm[dst + 1] = dst + 1, dst
        x = shape_ops.transpose(x, perm)
    return shape_ops.reshape(x, shape[:dst] + (size * dim,) + shape[dst + 2:])


def _unfold_axis(x, axis: int, size: int, dim: int, groups: int = 1):
    """Undo ``_fold_axis``: axis ``axis`` (``(groups, size, dim // groups)`` flattened)
    becomes an axis of ``size`` at ``axis`` followed by the axis of ``dim`` entries."""
    shape = core.get_aval(x).shape
    if groups > 1:
        x = shape_ops.reshape(x, shape[:axis] + (groups, size, dim // groups) + shape[axis + 1:])
        perm = list(range(len(shape) + 2))
        perm[axis], perm[axis + 1] = axis + 1, axis
        x = shape_ops.transpose(x, perm)
    return shape_ops.reshape(x, shape[:axis] + (size, dim) + shape[axis + 1:])


def _move_groups(x, src: int, dst: int, groups: int):
    """Split axis ``src`` into ``(groups, rest)`` and make ``groups`` the major part of ``dst``."""
    if groups == 1:
        return x
    shape = core.get_aval(x).shape
    x = shape_ops.reshape(x, shape[:src] + (groups, shape[src] // groups) + shape[src + 1:])
    return _fold_axis(x, src, dst)


def _swap_roles(spec) -> tuple[int, ...]:
    """A spec with its first two entries (batch/feature, or out/in feature) exchanged."""
    return (spec[1], spec[0], *spec[2:])


# --- reverse mode -------------------------------------------------------------------
# Per spatial dimension the forward conv reads, for output position o and
# kernel tap k, the padded, lhs-dilated input at o * stride + k * rhs_dilation.
# Both cotangents are again convolutions:
#
# * lhs: scatter ct back along those positions. That is ct dilated by the
#   stride, convolved with the spatially reversed kernel (out/in features
#   swapped, dilated as before), padded by (window - 1 - low) below so tap
#   positions line up; reading every lhs_dilation-th result (a window stride)
#   drops the holes of the dilated input. The high padding also absorbs the
#   `rest` rows the forward stride never reached.
# * rhs: for every tap, correlate input and ct over batch and output
#   positions: a convolution of lhs (batch and features swapped) with ct as
#   the kernel (batch as its input feature), ct dilated by the stride, taps
#   rhs_dilation apart, the forward padding less those unreached `rest` rows.
#
# Feature groups become batch groups of the rhs cotangent and vice versa; in
# the lhs cotangent both become feature groups, with the kernel regrouped.


def _unreached(lhs_size, kernel_size, i, window_strides, padding, lhs_dilation, rhs_dilation):
    """Rows at the high end of spatial dim ``i`` that no output window reaches."""
    lo, hi = padding[i]
    padded = _dilate(lhs_size, lhs_dilation[i]) + lo + hi
    return (padded - _dilate(kernel_size, rhs_dilation[i])) % window_strides[i]


def _to_dtype(x, dtype):
    return x if core.get_aval(x).dtype == dtype else ew.convert_element_type(x, dtype)


def _conv_transpose_lhs(ct, lhs_aval, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count, batch_group_count,
                        precision):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    rhs_shape = core.get_aval(rhs).shape
    groups = feature_group_count * batch_group_count
    kernel = slicing.rev(_to_dtype(rhs, core.get_aval(ct).dtype), rhs_spec[2:])
    kernel = _move_groups(kernel, rhs_spec[0], rhs_spec[1], groups)
    pads = []
    for i, (l, r) in enumerate(zip(lhs_spec[2:], rhs_spec[2:])):
        window = _dilate(rhs_shape[r], rhs_dilation[i])
        rest = _unreached(lhs_aval.shape[l], rhs_shape[r], i, window_strides, padding,
                          lhs_dilation, rhs_dilation)
        pads.append((window - 1 - padding[i][0], window - 1 - padding[i][1] + rest))
    out = conv_general_dilated_p.bind(
        ct, kernel, window_strides=lhs_dilation, padding=tuple(pads),
        lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
        dimension_numbers=ConvDimensionNumbers(out_spec, _swap_roles(rhs_spec), lhs_spec),
        feature_group_count=groups, batch_group_count=1, precision=precision,
        preferred_element_type=None)
    # Batch group b's cotangent came out as feature group b: put it back in the batch.
    return _move_groups(out, lhs_spec[1], lhs_spec[0], batch_group_count)


def _conv_transpose_rhs(ct, lhs, rhs_aval, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count, batch_group_count,
                        precision):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape = core.get_aval(lhs).shape
    pads = []
    for i, (l, r) in enumerate(zip(lhs_spec[2:], rhs_spec[2:])):
        rest = _unreached(lhs_shape[l], rhs_aval.shape[r], i, window_strides, padding,
                          lhs_dilation, rhs_dilation)
        pads.append((padding[i][0], padding[i][1] - rest))
    dn = ConvDimensionNumbers(_swap_roles(lhs_spec), _swap_roles(out_spec), _swap_roles(rhs_spec))
    return conv_general_dilated_p.bind(
        _to_dtype(lhs, core.get_aval(ct).dtype), ct, window_strides=rhs_dilation,
        padding=tuple(pads), lhs_dilation=lhs_dilation, rhs_dilation=window_strides,
        dimension_numbers=dn, feature_group_count=batch_group_count,
        batch_group_count=feature_group_count, precision=precision, preferred_element_type=None)


def _conv_transpose(ct, lhs, rhs, *, preferred_element_type, **params):
    if tr.is_undefined(lhs) == tr.is_undefined(rhs):
        raise AssertionError("conv_general_dilated transposes w.r.t. exactly one operand")
    linear = lhs if tr.is_undefined(lhs) else rhs
    known = rhs if linear is lhs else lhs
    sizes = (core.get_aval(ct).shape, linear.aval.shape, core.get_aval(known).shape)
    if any(0 in shape for shape in sizes):  # nothing flows through an empty convolution
        out = ad_util.zeros_like_aval(linear.aval)
    elif linear is lhs:
        out = _conv_transpose_lhs(ct, lhs.aval, rhs, **params)
    else:
        out = _conv_transpose_rhs(ct, lhs, rhs.aval, **params)
    out = _to_dtype(out, linear.aval.dtype)
    return [out, None] if linear is lhs else [None, out]


ad.defbilinear(conv_general_dilated_p, _conv_transpose)


# --- vmap -------------------------------------------------------------------------
# The vmapped axis is folded into a dimension the convolution already keeps
# apart: lhs's batch (examples do not mix), rhs's output features (kernels do
# not mix), or, when both are batched, feature groups pairing example a's
# input with kernel a (batch groups when the conv already has batch groups).
# Folding keeps existing groups contiguous, so the fold goes inside them.


def _conv_batch_rule(axis_size, args, dims, **params):
    (lhs, rhs), (lhs_dim, rhs_dim) = args, dims
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    avals = [core.get_aval(x) for x in args]
    unbatched = [a if d is None else a.update(shape=a.shape[:d] + a.shape[d + 1:])
                 for a, d in zip(avals, dims)]
    out_aval = _conv_abstract_eval(*unbatched, **params)
    if axis_size == 0:
        out_dim = out_spec[0]
        shape = out_aval.shape[:out_dim] + (0,) + out_aval.shape[out_dim:]
        return shape_ops.full(shape, 0, out_aval.dtype), out_dim
    if lhs_dim is not None and rhs_dim is not None:
        if bgc > 1:
            lhs = _fold_axis(lhs, lhs_dim, lhs_spec[0])
            params["batch_group_count"] = bgc * axis_size
        else:
            lhs = _fold_axis(lhs, lhs_dim, lhs_spec[1])
            params["feature_group_count"] = fgc * axis_size
        rhs, out_dim, groups = _fold_axis(rhs, rhs_dim, rhs_spec[0]), out_spec[1], 1
    elif lhs_dim is not None:
        lhs, out_dim, groups = _fold_axis(lhs, lhs_dim, lhs_spec[0], bgc), out_spec[0], 1
    else:
        groups = fgc * bgc
        rhs, out_dim = _fold_axis(rhs, rhs_dim, rhs_spec[0], groups), out_spec[1]
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    return _unfold_axis(out, out_dim, axis_size, out_aval.shape[out_dim], groups), out_dim


batching.defrule(conv_general_dilated_p, _conv_batch_rule)


# --- public API -------------------------------------------------------------------


def conv_general_dilated(lhs, rhs, window_strides: Sequence[int], padding,
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                         feature_group_count: int = 1, batch_group_count: int = 1,
                         precision=None, preferred_element_type=None):
    """General n-dimensional convolution with strides, padding, dilations and groups.

    ``padding`` is 'SAME', 'SAME_LOWER', 'VALID' or a sequence of (low, high)
    pairs; ``dimension_numbers`` is None (``('NCHW', 'OIHW', 'NCHW')``-style),
    layout strings or a ConvDimensionNumbers. Example (NHWC, 3x3, stride 2)::

        out = lax.conv_general_dilated(x, w, (2, 2), "SAME",
                                       dimension_numbers=("NHWC", "HWIO", "NHWC"))
    """
    lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
    dn = conv_dimension_numbers(lhs_aval.shape, rhs_aval.shape, dimension_numbers)
    n = max(lhs_aval.ndim - 2, 0)
    name = "conv_general_dilated"
    window_strides = _ints(name, "window_strides", window_strides, n)
    lhs_dilation = (1,) * n if lhs_dilation is None else _ints(name, "lhs_dilation",
                                                               lhs_dilation, n)
    rhs_dilation = (1,) * n if rhs_dilation is None else _ints(name, "rhs_dilation",
                                                               rhs_dilation, n)
    for what, values in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                         ("rhs_dilation", rhs_dilation)):
        if any(v <= 0 for v in values):
            raise core.value_error(f"{name} {what} must be positive, got {values}")
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise core.value_error(
                "String padding is not implemented for transposed convolution using this op. "
                "Please either exactly specify the required padding or use conv_transpose.")
        if lhs_aval.ndim >= 2 and rhs_aval.ndim == lhs_aval.ndim:
            in_shape = [lhs_aval.shape[d] for d in dn.lhs_spec[2:]]
            window = [_dilate(rhs_aval.shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation)]
            padding = padtype_to_pads(in_shape, window, window_strides, padding)
    try:
        padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise core.value_error(f"padding argument to {name} should be a string or a sequence of "
                               f"(low, high) pairs, got {padding}") from None
    if len(padding) != n:
        raise core.shape_error(f"{name} padding must have {n} (low, high) pairs (one per spatial "
                               f"dimension), got {len(padding)}")
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(preferred_element_type)
    dn = ConvDimensionNumbers(*(tuple(int(d) for d in spec) for spec in dn))
    params = dict(window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
                  rhs_dilation=rhs_dilation, dimension_numbers=dn,
                  feature_group_count=operator.index(feature_group_count),
                  batch_group_count=operator.index(batch_group_count), precision=None,
                  preferred_element_type=preferred_element_type)
    if dtypes.is_complex(lhs_aval.dtype) or dtypes.is_complex(rhs_aval.dtype):
        return _conv_of_complex_parts(lhs, rhs, params)
    return conv_general_dilated_p.bind(lhs, rhs, **params)


def _conv_of_complex_parts(lhs, rhs, params):
    """A complex convolution as four real ones: (a + ib) * (c + id) = (ac - bd) + i(ad + bc).

    The hlo convolution takes real operands only. Four products rather than Gauss's three keep
    each part as accurate as a real convolution (no cancellation between large sums), and as
    the convolution is bilinear, derivatives, transposes and batching all come from the real
    primitive's rules and those of real/imag/complex.
    """
    lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
    tc.check_same_dtypes("conv_general_dilated", [lhs_aval, rhs_aval])  # jax's error
    preferred = params["preferred_element_type"]
    if preferred is not None and not dtypes.is_complex(preferred):
        raise core.shape_error(  # jax's first sentence, so code matching its error works
            "Input type is incompatible with `preferred_element_type`: conv_general_dilated of "
            f"{lhs_aval.dtype.name} operands needs a complex preferred_element_type, got "
            f"{np.dtype(preferred).name}.")
    part_params = dict(params, preferred_element_type=(
        None if preferred is None else dtypes.complex_part_dtype(preferred)))

    def real_conv(x, y):
        return conv_general_dilated_p.bind(x, y, **part_params)

    a, b = complex_ops.real(lhs), complex_ops.imag(lhs)
    c, d = complex_ops.real(rhs), complex_ops.imag(rhs)
    real_part = ew.sub(real_conv(a, c), real_conv(b, d))
    imag_part = ew.add(real_conv(a, d), real_conv(b, c))
    return complex_ops.complex(real_part, imag_part)


def conv(lhs, rhs, window_strides: Sequence[int], padding, precision=None,
         preferred_element_type=None):
    """NCHW/OIHW convolution without dilation: ``conv_general_dilated`` with defaults."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides: Sequence[int], padding,
                              lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision=None,
                              preferred_element_type=None):
    """NCHW/OIHW convolution with explicit padding and dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding) -> tuple[int, int]:
    """(low, high) padding of the lhs-dilated convolution that transposes a forward conv."""
    if padding == "SAME":
        total = k + s - 2
        low = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        low = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        low, total = pads[0], sum(pads)
    else:
        raise core.value_error(f"Invalid padding mode: {padding}")
    return low, total - low


def conv_transpose(lhs, rhs, strides: Sequence[int], padding,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                   transpose_kernel: bool = False, precision=None, preferred_element_type=None,
                   use_consistent_padding: bool = False):
    """Transposed ("fractionally strided") convolution, as jax.lax.conv_transpose.

    The default layout is ``('NHWC', 'HWIO', 'NHWC')`` (and its 1-D/3-D
    analogues). 'SAME'/'VALID' padding gives keras Conv2DTranspose's output
    shape; ``transpose_kernel=True`` flips the kernel's spatial axes and swaps
    its feature axes, giving the gradient of the forward convolution.
    """
    lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
    ndim = lhs_aval.ndim
    if ndim != rhs_aval.ndim or ndim < 2:
        raise core.shape_error(f"conv_transpose lhs and rhs must have the same number of "
                               f"dimensions, at least 2, got {lhs_aval.shape} and {rhs_aval.shape}")
    if dimension_numbers is None:
        defaults = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                    4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}
        if ndim not in defaults:
            raise core.value_error("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = defaults[ndim]
    dn = conv_dimension_numbers(lhs_aval.shape, rhs_aval.shape, dimension_numbers)
    n = ndim - 2
    strides = _ints("conv_transpose", "strides", strides, n)
    rhs_dilation = (1,) * n if rhs_dilation is None else _ints(
        "conv_transpose", "rhs_dilation", rhs_dilation, n)
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        kernel = [_dilate(rhs_aval.shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation)]
        per_dim = [padding] * n if isinstance(padding, str) else [tuple(p) for p in padding]
        pads = [_conv_transpose_padding(k, s, p) for k, s, p in zip(kernel, strides, per_dim)]
    else:
        pads = padding
    if transpose_kernel:
        rhs = _flip_and_swap_kernel(rhs, dn.rhs_spec)
    return conv_general_dilated(lhs, rhs, (1,) * n, pads, strides, rhs_dilation, dn,
                                precision=precision, preferred_element_type=preferred_element_type)


def _flip_and_swap_kernel(rhs, rhs_spec):
    """The kernel with its spatial axes reversed and its two feature axes swapped."""
    perm = list(range(core.get_aval(rhs).ndim))
    perm[rhs_spec[0]], perm[rhs_spec[1]] = rhs_spec[1], rhs_spec[0]
    return shape_ops.transpose(slicing.rev(rhs, rhs_spec[2:]), perm)
