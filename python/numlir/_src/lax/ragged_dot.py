"""lax.ragged_dot: a grouped matrix product, as jax.lax.ragged_dot.

The rows of ``lhs`` (m, k) fall into consecutive groups of ``group_sizes`` (g,)
rows; group i is multiplied by ``rhs[i]`` (k, n). Rows past the sum of the sizes
give zeros. It is composed as every row against every group's matrix, masked by
the row's group: g times the work of one product, exact, and differentiable in
``lhs`` and ``rhs`` like any composition.
"""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import cumulative, reduction, shape_ops
from numlir._src.lax import elementwise as ew
from numlir._src.lax.dot import dot_general


def ragged_dot(
    lhs,
    rhs,
    group_sizes,
    precision=None,
    preferred_element_type=None,
    group_offset=None,
    out_sharding=None,
):
    """``out[r] = lhs[r] @ rhs[group(r)]``, where group(r) is the group of consecutive rows
    (sizes ``group_sizes``) that row r falls in; rows past ``sum(group_sizes)`` are zero."""
    if group_offset is not None:
        raise NotImplementedError("ragged_dot: group_offset is not supported (nor is it in jax's)")
    lhs_aval, rhs_aval, sizes_aval = (
        core.get_aval(lhs),
        core.get_aval(rhs),
        core.get_aval(group_sizes),
    )
    if lhs_aval.ndim != 2 or rhs_aval.ndim != 3 or sizes_aval.ndim != 1:
        raise core.shape_error(
            f"ragged_dot expects lhs (m, k), rhs (g, k, n) and group_sizes (g,), got "
            f"{lhs_aval.str_short()}, {rhs_aval.str_short()} and {sizes_aval.str_short()}"
        )
    (m, k), (g, k2, n) = lhs_aval.shape, rhs_aval.shape
    if k != k2 or sizes_aval.shape[0] != g:
        raise core.shape_error(
            f"ragged_dot: lhs {lhs_aval.str_short()}, rhs {rhs_aval.str_short()} and "
            f"group_sizes {sizes_aval.str_short()} disagree on k or on the number of groups"
        )
    if not dtypes.is_int(sizes_aval.dtype):
        raise core.shape_error(
            f"ragged_dot: group_sizes must be integers, got {sizes_aval.dtype.name}"
        )
    every = dot_general(
        lhs,
        rhs,
        (((1,), (1,)), ((), ())),
        precision=precision,
        preferred_element_type=preferred_element_type,
    )  # (m, g, n)
    ends = cumulative.cumsum(group_sizes, axis=0)
    starts = ew.sub(ends, group_sizes)
    rows = shape_ops.broadcasted_iota(sizes_aval.dtype, (m, g), 0)
    member = ew.bitwise_and(
        ew.ge(rows, shape_ops.broadcast_in_dim(starts, (m, g), (1,))),
        ew.lt(rows, shape_ops.broadcast_in_dim(ends, (m, g), (1,))),
    )
    out_dtype = core.get_aval(every).dtype
    zero = ew.convert_element_type(np.zeros((), out_dtype), out_dtype)
    masked = ew.select(
        shape_ops.broadcast_in_dim(member, (m, g, n), (0, 1)),
        every,
        shape_ops.broadcast_in_dim(zero, (m, g, n), ()),
    )
    return reduction.reduce_sum(masked, (1,))
