"""numlir.numpy: NumPy's API with JAX's semantics (import as ``jnp``).

Example::

    >>> import numlir.numpy as jnp
    >>> jnp.tanh(jnp.ones((2, 3)) @ jnp.ones((3,))).sum()
    Array(1.9901096, dtype=float32)
"""

import sys as _sys

import numpy as _np

ComplexWarning = _np.exceptions.ComplexWarning

from numlir._src import dtypes as _dtypes
from numlir._src.array import Array as ndarray
from numlir._src.dlpack import from_dlpack
from numlir._src.numpy.creation import (arange, array, asarray, astype, eye, full, full_like,
                                        linspace, ones, ones_like, zeros, zeros_like)
from numlir._src.numpy.reshaping import (broadcast_to, expand_dims, ndim, ravel, reshape, shape, size,
                                     squeeze, swapaxes, transpose)
from numlir._src.numpy.linalg_ops import dot, matmul, outer, vdot
from numlir._src.numpy.util import promote_types, result_type
from numlir._src.numpy.cumulative import cumprod, cumsum
from numlir._src.numpy.linalg_ops import einsum, identity, inner, moveaxis, tensordot
from numlir._src.numpy.joining import (array_split, atleast_1d, atleast_2d, atleast_3d, column_stack,
                                      concatenate, diag, diagonal, dsplit, dstack, flip, fliplr,
                                      flipud, hsplit, hstack, pad, repeat, roll, rot90, row_stack,
                                      split, stack, take, take_along_axis, tile, trace, tri, tril,
                                      triu, vsplit, vstack)
from numlir._src.numpy.sorting import (argpartition, argsort, lexsort, median, msort, nanmedian,
                                      nanpercentile, nanquantile, partition, percentile, quantile,
                                      searchsorted, sort, sort_complex, unique)
from numlir._src.numpy.logaddexp import logaddexp, logaddexp2
from numlir._src.numpy.reductions import all, amax, amin, any, max, mean, min, prod, std, sum, var
from numlir._src.numpy.ufuncs import (acos, acosh, arccos, arccosh, arcsin, arcsinh, arctan,
                                      arctan2, arctanh, around, asin, asinh, atan, atan2, atanh,
                                      bitwise_count, bitwise_invert, bitwise_left_shift,
                                      bitwise_right_shift, cbrt, cosh, deg2rad, degrees, exp2,
                                      expm1, fix, fmax, fmin, heaviside, hypot, left_shift, log1p,
                                      log2, log10, nan_to_num, nextafter,
                                      rad2deg, radians, right_shift, rint, round, sinh, tan, trunc)
from numlir._src.numpy.reductions import (argmax, argmin, average, count_nonzero, nanmax, nanmean,
                                          nanmin, nansum, ptp)
from numlir._src.numpy.ufuncs import (abs, absolute, add, bitwise_and, bitwise_not, bitwise_or,
                                      bitwise_xor, ceil, clip, cos, divide, equal, exp, floor,
                                      floor_divide, fmod, greater, greater_equal, invert, isfinite,
                                      isinf, isnan, less, less_equal, log, logical_and, logical_not,
                                      logical_or, logical_xor, maximum, minimum, mod, multiply,
                                      negative, not_equal, positive, power, reciprocal, remainder,
                                      sign, sin, sqrt, square, subtract, tanh, true_divide, where)
from numlir._src.numpy.logic import (allclose, array_equal, array_equiv, iscomplex, iscomplexobj, isclose,
                                    isin, isneginf, isposinf, isreal, isrealobj, isscalar, iterable, signbit)
from numlir._src.numpy.float_ops import (angle, conj, conjugate, copysign, divmod, fabs, float_power, frexp,
                                        gcd, i0, imag, lcm, ldexp, modf, real, sinc, spacing)
from numlir._src.numpy.grids import (bartlett, blackman, copy, diag_indices, diag_indices_from, diagflat,
                                    empty, empty_like, fromfunction, geomspace, hamming, hanning,
                                    indices, kaiser, logspace, mask_indices, meshgrid, tril_indices, tril_indices_from, triu_indices,
                                    triu_indices_from, vander)
from numlir._src.numpy.histograms_nd import histogram2d, histogramdd
from numlir._src.numpy.placement import place, put, put_along_axis
from numlir._src.numpy.bit_packing import packbits, unpackbits
from numlir._src.numpy.editing import (append, broadcast_arrays, broadcast_shapes, concat, delete,
                                      fill_diagonal, insert, matrix_transpose, permute_dims, rollaxis, select,
                                      unstack)
from numlir._src.numpy.statistics import (bincount, convolve, corrcoef, correlate, cov, cumulative_prod,
                                         cumulative_sum, diff, digitize, ediff1d, interp, nanargmax,
                                         nanargmin, nancumprod, nancumsum, nanprod, nanstd, nanvar,
                                         trapezoid)
from numlir._src.numpy.products import cross, kron, matvec, vecdot, vecmat
from numlir._src.numpy.selection import (argwhere, compress, extract, flatnonzero, intersect1d, nonzero,
                                        setdiff1d, setxor1d, trim_zeros, union1d, unique_all, unique_counts,
                                        unique_inverse, unique_values)
from numlir._src.numpy.polynomials import poly, polyadd, polyder, polydiv, polyint, polymul, polysub, polyval
from numlir._src.linalg.polyfit import polyfit
from numlir._src.linalg.roots import roots
from numlir._src.numpy.indices_and_shapes import (block, choose, gradient, histogram, histogram_bin_edges,
                                                 ix_, piecewise, ravel_multi_index, resize, unravel_index,
                                                 unwrap)
from numlir._src.numpy.host_io import (array_repr, array_str, can_cast, einsum_path, frombuffer, fromfile, fromiter,
                                      fromstring, get_printoptions, isdtype, load, printoptions, save, savez,
                                      set_printoptions)
from numlir.numpy.vectorization import apply_along_axis, apply_over_axes, vectorize
from numlir.numpy.ufunc_class import frompyfunc, ufunc

bool_ = _np.bool_
bool = bool_  # noqa: A001 - jax.numpy.bool, as in NumPy 2
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
csingle, cdouble, complex_ = complex64, complex128, complex128
if _dtypes.bfloat16 is not None:
    bfloat16 = _dtypes.bfloat16.type
dtype = _np.dtype
finfo, iinfo, issubdtype = _dtypes.finfo, _dtypes.iinfo, _dtypes.issubdtype
generic, number, integer, signedinteger, unsignedinteger = (_np.generic, _np.number, _np.integer,
                                                            _np.signedinteger, _np.unsignedinteger)
inexact, floating, complexfloating = _np.inexact, _np.floating, _np.complexfloating
character, flexible, object_ = _np.character, _np.flexible, _np.object_
double, single = float64, float32
float_, int_, uint = float64, int64, uint64  # JAX's names for the default 64-bit types
pi, e, inf, nan = _np.pi, _np.e, _np.inf, _np.nan
newaxis = None
pow = power  # noqa: A001

from numlir.numpy import linalg  # noqa: E402 - numlir.numpy.linalg
from numlir.numpy import fft  # noqa: E402 - numlir.numpy.fft

# The Python array API standard: x.__array_namespace__() is this module.
from numlir._src.numpy import array_api_info as _array_api_info  # noqa: E402

__array_api_version__ = _array_api_info.API_VERSION
__array_namespace_info__ = _array_api_info.array_namespace_info
_array_api_info.register_namespace(_sys.modules[__name__])

from numlir._src import traceback_util as _traceback_util  # noqa: E402

_traceback_util.wrap_public_functions(globals())
