"""numlir.lax: the primitive operations, with JAX's names and strict dtype rules.

Unlike numlir.numpy, lax does not promote dtypes: ``lax.add`` needs both
operands of one dtype (Python scalars are weakly typed and must match).
"""

from numlir._src.lax.dot import dot_general
from numlir._src.lax.elementwise import (abs, add, bitwise_and, bitwise_not, bitwise_or, bitwise_xor,
                                         ceil, convert_element_type, cos, div, eq, exp, floor, ge, gt,
                                         le, log, logistic, lt, max, min, mul, ne, neg, pow, rem,
                                         rsqrt, select, sign, sin, sqrt, sub, tanh)
from numlir._src.lax.reduction import (reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod,
                                       reduce_sum)
from numlir._src.lax.shape_ops import (broadcast, broadcast_in_dim, broadcasted_iota, expand_dims,
                                       full, iota, reshape, squeeze, transpose)

# Primitives, for code that inspects graphs.
from numlir._src.lax.dot import dot_general_p
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
