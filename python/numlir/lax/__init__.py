"""numlir.lax: the primitive operations, with JAX's names and strict dtype rules.

Unlike numlir.numpy, lax does not promote dtypes: ``lax.add`` needs both
operands of one dtype (Python scalars are weakly typed and must match).
"""

from numlir._src.lax.dot import dot_general
from numlir._src.lax.barrier import optimization_barrier
from numlir._src.lax.elementwise import stop_gradient_p
from numlir._src.lax.control_flow import cond, fori_loop, scan, switch, while_loop
from numlir._src.lax.sorting import sort, sort_key_val, top_k
from numlir._src.lax.convolution import (ConvDimensionNumbers, conv, conv_dimension_numbers,
                                         conv_general_dilated, conv_general_permutations,
                                         conv_transpose, conv_with_general_padding,
                                         padtype_to_pads)
from numlir._src.lax.windowed_reductions import (reduce_window, reduce_window_and,
                                                 reduce_window_max, reduce_window_min,
                                                 reduce_window_or, reduce_window_prod,
                                                 reduce_window_sum)
from numlir._src.lax.elementwise import (abs, add, bitwise_and, bitwise_not, bitwise_or, bitwise_xor,
                                         ceil, convert_element_type, cos, div, eq, exp, floor, ge, gt,
                                         le, log, logistic, lt, max, min, mul, ne, neg, pow, rem,
                                         rsqrt, select, sign, sin, sqrt, sub, tanh)
from numlir._src.lax.reduction import (reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod,
                                       reduce_sum)
from numlir._src.lax.elementwise_extra import (RoundingMethod, acos, acosh, argmax, argmin, asin, asinh,
                                               atan, atan2, atanh, bitcast_convert_type, cbrt, clamp, clz,
                                               cosh, cummax, cummin, cumprod, cumsum, digamma, erf, erf_inv,
                                               expm1, is_finite, lgamma, log1p, nextafter, population_count,
                                               round, shift_left, shift_right_arithmetic,
                                               shift_right_logical, sinh, tan)
from numlir._src.lax.elementwise_extra import (acos_p, acosh_p, argmax_p, argmin_p, asin_p, asinh_p,
                                               atan2_p, atan_p, atanh_p, bitcast_convert_type_p, cbrt_p,
                                               clamp_p, clz_p, cosh_p, cummax_p, cummin_p, cumprod_p,
                                               cumsum_p, digamma_p, erf_inv_p, erf_p, expm1_p, is_finite_p,
                                               lgamma_p, log1p_p, nextafter_p, population_count_p, round_p,
                                               shift_left_p, shift_right_arithmetic_p,
                                               shift_right_logical_p, sinh_p, tan_p)
from numlir._src.lax.special import polygamma, polygamma_p, zeta, zeta_p
from numlir._src.lax.slicing import (GatherDimensionNumbers, GatherScatterMode,
                                    ScatterDimensionNumbers, concatenate, dynamic_index_in_dim,
                                    dynamic_slice, dynamic_slice_in_dim, dynamic_update_index_in_dim,
                                    dynamic_update_slice, dynamic_update_slice_in_dim, gather,
                                    index_in_dim, pad, rev, scatter, scatter_add, scatter_max,
                                    scatter_min, scatter_mul, slice, slice_in_dim)
from numlir._src.lax.slicing import (concatenate_p, dynamic_slice_p, dynamic_update_slice_p,
                                    gather_p, pad_p, rev_p, scatter_add_p, scatter_max_p,
                                    scatter_min_p, scatter_mul_p, scatter_p, slice_p)
from numlir._src.lax.shape_ops import (broadcast, broadcast_in_dim, broadcasted_iota, expand_dims,
                                       full, iota, reshape, squeeze, transpose)

# Primitives, for code that inspects graphs.
from numlir._src.lax.control_flow import cond_p, while_p
from numlir._src.lax.scan import scan_p
from numlir._src.lax.sorting import sort_p
from numlir._src.lax.barrier import optimization_barrier_p
from numlir._src.lax.dot import dot_general_p
from numlir._src.lax.convolution import conv_general_dilated_p
from numlir._src.lax.windowed_reductions import (reduce_window_and_p, reduce_window_max_p,
                                                 reduce_window_min_p, reduce_window_or_p,
                                                 reduce_window_prod_p, reduce_window_sum_p)
from numlir._src.lax.elementwise import (abs_p, add_p, and_p, ceil_p, convert_element_type_p, cos_p,
                                         div_p, eq_p, exp_p, floor_p, ge_p, gt_p, le_p, log_p,
                                         logistic_p, lt_p, max_p, min_p, mul_p, ne_p, neg_p, not_p,
                                         or_p, pow_p, rem_p, rsqrt_p, select_p, sign_p, sin_p,
                                         sqrt_p, sub_p, tanh_p, xor_p)
from numlir._src.lax.reduction import (reduce_and_p, reduce_max_p, reduce_min_p, reduce_or_p,
                                       reduce_prod_p, reduce_sum_p)
from numlir._src.lax.shape_ops import broadcast_in_dim_p, iota_p, reshape_p, transpose_p


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Vector/matrix product: contracts lhs's last dimension with rhs's first."""
    from numlir._src import core

    lhs_nd = core.get_aval(lhs).ndim
    return dot_general(lhs, rhs, (((lhs_nd - 1,), (0,)), ((), ())), precision, preferred_element_type)


def stop_gradient(x):
    """``x`` unchanged (a pytree of arrays); it only blocks differentiation.

    Example::

        >>> import numlir.numpy as jnp
        >>> from numlir import lax
        >>> lax.stop_gradient(jnp.ones(2))
        Array([1., 1.], dtype=float32)
    """
    from numlir._src.lax.elementwise import stop_gradient as stop_gradient_leaf
    from numlir._src.numpy.array_api import asarray
    from numlir.tree_util import tree_map

    # Each leaf goes through the stop_gradient primitive, whose JVP is zero.
    return tree_map(lambda v: stop_gradient_leaf(asarray(v)), x)

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
