"""numlir.lax: the primitive operations, with JAX's names and strict dtype rules.

Unlike numlir.numpy, lax does not promote dtypes: ``lax.add`` needs both
operands of one dtype (Python scalars are weakly typed and must match).
"""

from numlir._src.lax.dot import dot_general
from numlir._src.lax.elementwise import stop_gradient_p
from numlir._src.lax.control_flow import cond, switch, while_loop
from numlir._src.lax.scan import fori_loop, scan
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
from numlir._src.lax.float_math import (RoundingMethod, acos, acos_p, acosh, acosh_p, asin, asin_p,
                                        asinh, asinh_p, atan, atan2, atan2_p, atan_p, atanh,
                                        atanh_p, cbrt, cbrt_p, cosh, cosh_p, expm1, expm1_p,
                                        is_finite, is_finite_p, log1p, log1p_p, nextafter,
                                        nextafter_p, round, round_p, sinh, sinh_p, tan, tan_p)
from numlir._src.lax.reduction import (argmax, argmax_p, argmin, argmin_p)
from numlir._src.lax.bits import (bitcast_convert_type, bitcast_convert_type_p, clz, clz_p,
                                  population_count, population_count_p, shift_left, shift_left_p,
                                  shift_right_arithmetic, shift_right_arithmetic_p,
                                  shift_right_logical, shift_right_logical_p)
from numlir._src.lax.elementwise import (clamp, clamp_p)
from numlir._src.lax.complex_ops import complex, complex_p, conj, conj_p, imag, imag_p, real, real_p
from numlir._src.lax.fft import FftType, fft, fft_p
from numlir._src.lax.cumulative import (cummax, cummax_p, cummin, cummin_p, cumprod, cumprod_p,
                                        cumsum, cumsum_p)
from numlir._src.lax.special import (digamma, digamma_p, erf, erf_inv, erf_inv_p, erf_p, lgamma,
                                     lgamma_p)
from numlir._src.lax.special import erfc, erfc_p, polygamma, polygamma_p, zeta, zeta_p
from numlir._src.lax.mulhi import mulhi
from numlir._src.lax.incomplete_beta import betainc
from numlir._src.lax.incomplete_gamma import igamma, igamma_grad_a, igammac, random_gamma_grad
from numlir._src.lax.array_helpers import broadcast_like, shape_as_value, stack, stage
from numlir._src.lax.ragged_dot import ragged_dot
from numlir._src.lax.scaled_dot import scaled_dot
from numlir._src.lax.dot_algorithms import DotAlgorithm, DotAlgorithmPreset, DotDimensionNumbers, PrecisionLike
from numlir._src.lax.convolution import ConvGeneralDilatedDimensionNumbers
from numlir._src.lax.conv_patches import conv_general_dilated_local, conv_general_dilated_patches
from numlir._src.lax.shape_tuples import (conv_general_shape_tuple, conv_shape_tuple,
                                          conv_transpose_shape_tuple, reduce_window_shape_tuple)
from numlir._src.lax.generic_reduce import reduce
from numlir._src.lax.reduce_precision import reduce_precision, reduce_precision_p
from numlir._src.lax.bessel import bessel_i0e, bessel_i0e_p, bessel_i1e, bessel_i1e_p
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
from numlir._src.lax.collectives import (all_gather, all_to_all, axis_index, axis_size, pmax, pmean,
                                        pmin, ppermute, pshuffle, psum, psum_scatter, pswapaxes)
from numlir._src.lax.composites import (Precision, approx_max_k, approx_min_k, associative_scan,
                                        batch_matmul, broadcast_shapes, broadcast_to_rank, collapse,
                                        composite, cumlogsumexp, dce_sink, dtype, empty, exp2, full_like,
                                        index_take, integer_pow, map, platform_dependent, reciprocal,
                                        reduce_xor, scatter_sub, select_n, split, square, tile, unstack)
from numlir._src.lax.custom_solvers import custom_linear_solve, custom_root
from numlir._src.lax.rng import RandomAlgorithm, rng_bit_generator, rng_uniform

from numlir._src import core as _core
from numlir._src import tree_util as _tree_util
from numlir._src.lax.elementwise import stop_gradient as _stop_gradient_leaf
from numlir._src.numpy.creation import asarray as _asarray

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
from numlir._src.lax.custom_solvers import linear_solve_p
from numlir._src.lax.rng import rng_bit_generator_p


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Vector/matrix product: contracts lhs's last dimension with rhs's first."""
    lhs_nd = _core.get_aval(lhs).ndim
    return dot_general(lhs, rhs, (((lhs_nd - 1,), (0,)), ((), ())), precision, preferred_element_type)


def stop_gradient(x):
    """``x`` unchanged (a pytree of arrays); it only blocks differentiation.

    Example::

        >>> import numlir.numpy as jnp
        >>> from numlir import lax
        >>> lax.stop_gradient(jnp.ones(2))
        Array([1., 1.], dtype=float32)
    """
    # Each leaf goes through the stop_gradient primitive, whose JVP is zero.
    return _tree_util.tree_map(lambda v: _stop_gradient_leaf(_asarray(v)), x)


def optimization_barrier(operand):
    """``operand`` (a pytree of arrays) unchanged, as values the compiler cannot see through.

    Computations on the result are never merged with the same computations on
    ``operand``, nor fused with what produced it: use it to keep a deliberate
    recomputation (as ``checkpoint`` does) or to order work. Like
    ``jax.lax.optimization_barrier``, differentiation and ``vmap`` pass through it.

    Example::

        x, y = lax.optimization_barrier((x, y))
    """
    leaves, tree = _tree_util.tree_flatten(operand)
    leaves = [_asarray(leaf) for leaf in leaves]
    outs = optimization_barrier_p.bind(*leaves) if leaves else []
    return _tree_util.tree_unflatten(tree, outs)


from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())

from numlir.lax import linalg  # noqa: E402 - jax.lax.linalg is there once jax.lax is
