"""The static shape helpers of jax.lax: the output shapes of convolutions and windowed
reductions, computed from shapes alone (no arrays are made)."""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from numlir._src import core
from numlir._src.lax import convolution as conv
from numlir._src.lax import windowed_reductions as windows


def _ints(values) -> tuple[int, ...]:
    return tuple(operator.index(v) for v in values)


def conv_shape_tuple(
    lhs_shape, rhs_shape, strides, pads, batch_group_count: int = 1
) -> tuple[int, ...]:
    """The output shape of a convolution of an NCHW ``lhs_shape`` with an OIHW ``rhs_shape``;
    ``pads`` is 'SAME', 'VALID' or (low, high) pairs."""
    lhs_shape, rhs_shape, strides = _ints(lhs_shape), _ints(rhs_shape), _ints(strides)
    if isinstance(pads, str):
        pads = conv.padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise core.shape_error(
            f"conv_shape_tuple: wrong number of pads for lhs {lhs_shape}: "
            f"expected {len(lhs_shape) - 2}, got {len(pads)}"
        )
    space = []
    for size, window, stride, (lo, hi) in zip(lhs_shape[2:], rhs_shape[2:], strides, pads):
        padded = size + lo + hi
        space.append(max((padded - window) // stride + 1, 0))
    return (lhs_shape[0] // batch_group_count, rhs_shape[0], *space)


def _permuted(shape, perm) -> tuple[int, ...]:
    return tuple(shape[p] for p in perm)


def _unpermuted(shape, perm) -> tuple[int, ...]:
    """The shape whose dimension ``perm[i]`` is ``shape[i]``."""
    return tuple(shape[i] for i in np.argsort(perm))


def conv_general_shape_tuple(
    lhs_shape, rhs_shape, window_strides, padding, dimension_numbers
) -> tuple[int, ...]:
    """The output shape of ``conv_general_dilated`` with these shapes and ``dimension_numbers``."""
    lhs_shape, rhs_shape = _ints(lhs_shape), _ints(rhs_shape)
    dn = conv.conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    out = conv_shape_tuple(
        _permuted(lhs_shape, dn.lhs_spec),
        _permuted(rhs_shape, dn.rhs_spec),
        window_strides,
        padding,
    )
    return _unpermuted(out, dn.out_spec)


def conv_transpose_shape_tuple(
    lhs_shape, rhs_shape, window_strides, padding, dimension_numbers
) -> tuple[int, ...]:
    """The output shape of ``conv_transpose`` with these shapes and ``dimension_numbers``."""
    lhs_shape, rhs_shape, window_strides = _ints(lhs_shape), _ints(rhs_shape), _ints(window_strides)
    dn = conv.conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs_t, rhs_t = _permuted(lhs_shape, dn.lhs_spec), _permuted(rhs_shape, dn.rhs_spec)
    if isinstance(padding, str):
        padding = [
            conv._conv_transpose_padding(k, s, padding) for k, s in zip(rhs_t[2:], window_strides)
        ]
    # The lhs is dilated by the stride and padded, then a VALID convolution with the kernel.
    space = [
        (size - 1) * s + 1 + lo + hi - k + 1
        for size, k, s, (lo, hi) in zip(lhs_t[2:], rhs_t[2:], window_strides, padding)
    ]
    return _unpermuted((lhs_t[0], rhs_t[0], *space), dn.out_spec)


def reduce_window_shape_tuple(
    operand_shape,
    window_dimensions,
    window_strides,
    padding,
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """The output shape of ``reduce_window`` on an operand of ``operand_shape``."""
    operand = np.broadcast_to(np.zeros((), np.int8), _ints(operand_shape))  # a shape, no memory
    params = windows._canonical_params(
        "reduce_window_shape_tuple",
        operand,
        window_dimensions,
        window_strides,
        padding,
        base_dilation,
        window_dilation,
    )
    return windows._window_shape("reduce_window_shape_tuple", core.get_aval(operand), **params)
