"""Image patches and locally connected convolutions, as jax.lax's
conv_general_dilated_patches and conv_general_dilated_local.

Patches are a grouped convolution (one group per input channel) with a one-hot
kernel: output feature ``c * K + k`` copies input channel ``c`` at the k-th of the
``K = prod(filter_shape)`` window offsets, in row-major order of the filter's
spatial dimensions. A locally connected convolution then contracts those patches
with a kernel that has its own weights at every output position: a dot_general
batched over the output's spatial dimensions.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np

from numlir._src import core
from numlir._src.lax import convolution as conv
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops
from numlir._src.lax.dot import dot_general


def _one_hot_kernel(channels: int, filter_shape: tuple[int, ...], rhs_spec, dtype) -> np.ndarray:
    """The (channels * K, 1, *filter_shape) kernel in the layout ``rhs_spec`` names."""
    k = math.prod(filter_shape)
    offsets = np.eye(k, dtype=dtype).reshape((k, 1) + filter_shape)
    canonical = np.tile(offsets, (channels,) + (1,) * (len(filter_shape) + 1))
    return np.ascontiguousarray(canonical.transpose(np.argsort(rhs_spec)))


def conv_general_dilated_patches(
    lhs,
    filter_shape: Sequence[int],
    window_strides: Sequence[int],
    padding,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers=None,
    precision=None,
    preferred_element_type=None,
):
    """The patches a convolution with a ``filter_shape`` window would see: the output has
    ``C * prod(filter_shape)`` features (channel-major) at each output position, in the
    layout ``dimension_numbers`` gives the output."""
    filter_shape = tuple(operator.index(d) for d in filter_shape)
    lhs_aval = core.get_aval(lhs)
    dn = conv.conv_dimension_numbers(lhs_aval.shape, (1, 1) + filter_shape, dimension_numbers)
    channels = lhs_aval.shape[dn.lhs_spec[1]]
    kernel = _one_hot_kernel(channels, filter_shape, dn.rhs_spec, lhs_aval.dtype)
    kernel = ew.convert_element_type(kernel, lhs_aval.dtype)
    return conv.conv_general_dilated(
        lhs,
        kernel,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        dn,
        feature_group_count=channels,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def conv_general_dilated_local(
    lhs,
    rhs,
    window_strides: Sequence[int],
    padding,
    filter_shape: Sequence[int],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers=None,
    precision=None,
):
    """A locally connected convolution: like conv_general_dilated, but ``rhs`` holds separate
    weights for every output position. Its spatial dimensions are the output's; its input
    feature dimension is ``C * prod(filter_shape)``, channel-major, as the patches'."""
    lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
    dn = conv.conv_dimension_numbers(lhs_aval.shape, rhs_aval.shape, dimension_numbers)
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation, rhs_dilation, dn, precision
    )
    patches_aval = core.get_aval(patches)
    out_spatial = tuple(dn.out_spec[2:])
    rhs_spatial = tuple(dn.rhs_spec[2:])
    for i, (p, r) in enumerate(zip(out_spatial, rhs_spatial)):
        if (
            patches_aval.shape[p] != rhs_aval.shape[r]
            or patches_aval.shape[dn.out_spec[1]] != rhs_aval.shape[dn.rhs_spec[1]]
        ):
            raise core.shape_error(
                f"conv_general_dilated_local: rhs {rhs_aval.str_short()} must have the output's spatial "
                f"sizes {tuple(patches_aval.shape[d] for d in out_spatial)} and "
                f"{patches_aval.shape[dn.out_spec[1]]} input features (C * prod(filter_shape))"
            )
    # (spatial..., batch, out features), then into the output layout.
    out = dot_general(
        patches, rhs, (((dn.out_spec[1],), (dn.rhs_spec[1],)), (out_spatial, rhs_spatial))
    )
    nsp = len(out_spatial)
    canonical_to_result = (nsp, nsp + 1, *range(nsp))  # result axis of N, F, spatial...
    perm = [0] * (nsp + 2)
    for canonical, out_axis in enumerate(dn.out_spec):
        perm[out_axis] = canonical_to_result[canonical]
    return shape_ops.transpose(out, perm)
