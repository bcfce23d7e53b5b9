"""jax.lax functions composed from numlir's primitives: square, reciprocal, exp2,
integer_pow, full_like, empty, the shape helpers (broadcast_shapes, broadcast_to_rank,
collapse, tile, split, unstack, the *_shape_tuple functions), select_n, reduce_xor,
scatter_sub, index_take, associative_scan, cumlogsumexp, map, batch_matmul,
approx_max_k/approx_min_k, Precision, platform_dependent, composite and dce_sink."""

from __future__ import annotations

import enum
import operator
from typing import Callable, Sequence

import numpy as np

from numlir._src import ad, batching, core, dtypes, tree_util
from numlir._src.lax import elementwise as ew
from numlir._src.lax import bits as lax_bits
from numlir._src.lax import float_math, reduction, shape_ops, slicing, sorting
from numlir._src.lax import scan as scan_mod
from numlir._src.lax.associative_scan import associative_scan
from numlir._src.lax.dot import dot_general
from numlir._src.lax import type_checks as tc
from numlir._src.lax.type_checks import check_same_dtypes


def _const(x, value):
    return ew.convert_element_type(np.asarray(value, core.get_aval(x).dtype), core.get_aval(x).dtype)


def square(x):
    """``x * x``."""
    return ew.mul(x, x)


def reciprocal(x):
    """``1 / x`` (inexact ``x``)."""
    return ew.div(_const(x, 1), x)


def exp2(x, *, accuracy=None):
    """``2 ** x``, as ``exp(x * log 2)``."""
    return ew.exp(ew.mul(_const(x, np.log(2.0)), x))


def _short(aval) -> str:
    """``int32[5]``, as jax writes an aval in messages."""
    return f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"  # lax's map shadows map()


def integer_pow(x, y: int):
    """``x ** y`` for a static integer ``y``, by repeated squaring (``1 / x ** -y`` for negative;
    integers to negative powers raise, as jax's)."""
    y = operator.index(y)
    if y < 0 and not dtypes.is_inexact(core.get_aval(x).dtype):
        raise core.shape_error(f"Integers cannot be raised to negative powers, got "
                               f"integer_pow({_short(core.get_aval(x))}, {y})")
    if y == 0:
        return shape_ops.full(core.get_aval(x).shape, 1, core.get_aval(x).dtype)
    return integer_pow_p.bind(x, y=y)


def _repeated_squaring(x, y: int):
    result, base, n = None, x, abs(y)
    while n:
        if n & 1:
            result = base if result is None else ew.mul(result, base)
        n >>= 1
        if n:
            base = ew.mul(base, base)
    return reciprocal(result) if y < 0 else result


# integer_pow is a primitive, not its products, so that its derivative is JAX's
# y * x^(y - 1): the products' own derivative at x = 0 or ±inf for y < 0 is 0 * inf = NaN
# where JAX gives ±inf or 0 (grad(lambda x: x ** -2)(0.) is -inf).
integer_pow_p = core.Primitive("integer_pow")


@integer_pow_p.def_abstract_eval
def _integer_pow_abstract_eval(x, *, y):
    tc.check_dtype("integer_pow", x, tc.NUMERIC_OR_COMPLEX)
    return x


@integer_pow_p.def_lowering
def _integer_pow_lowering(ctx, x, *, y):
    closed = core.trace_to_graph(lambda u: [_repeated_squaring(u, y)],
                                 [ctx.avals_out[0].strip_weak_type()])
    return ctx.inline(closed, [x])[0]


batching.defvectorized(integer_pow_p)
ad.defjvp(integer_pow_p,
          lambda t, x, *, y: ew.mul(t, ew.mul(_const(x, y), integer_pow(x, y - 1))))


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """A new array like ``x`` (its shape and dtype unless given) filled with ``fill_value``."""
    aval = core.get_aval(x)
    return shape_ops.full(aval.shape if shape is None else shape, fill_value,
                          aval.dtype if dtype is None else dtype)


def empty(shape, dtype, *, out_sharding=None):
    """A new array of ``shape`` and ``dtype`` (zero-filled)."""
    return shape_ops.full(shape, 0, dtype)


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The shape that ``shapes`` broadcast to; a ValueError if they do not."""
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}") from None


def broadcast_to_rank(x, rank: int):
    """``x`` with leading unit dimensions added up to ``rank``."""
    aval = core.get_aval(x)
    if aval.ndim >= rank:
        return x
    return shape_ops.reshape(x, (1,) * (rank - aval.ndim) + aval.shape)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """``operand`` with dimensions ``[start, stop)`` merged into one."""
    shape = core.get_aval(operand).shape
    lo = start_dimension % max(len(shape), 1) if start_dimension < 0 else start_dimension
    hi = len(shape) if stop_dimension is None else (stop_dimension % (len(shape) + 1)
                                                    if stop_dimension < 0 else stop_dimension)
    if not 0 <= lo <= hi <= len(shape):
        raise ValueError(f"collapse: invalid dimensions [{start_dimension}, {stop_dimension}) for shape {shape}")
    return shape_ops.reshape(operand, shape[:lo] + (int(np.prod(shape[lo:hi], dtype=np.int64)),) + shape[hi:])


def dtype(x):
    """The canonical dtype of ``x`` (Python scalars give the default dtypes)."""
    return core.get_aval(x).dtype


def tile(operand, reps: Sequence[int]):
    """``operand`` repeated ``reps[i]`` times along each dimension."""
    aval = core.get_aval(operand)
    reps = tuple(operator.index(r) for r in reps)
    if len(reps) != aval.ndim:
        raise ValueError(f"tile: len(reps) = {len(reps)} must equal the rank {aval.ndim}")
    interleaved = tuple(d for r, n in zip(reps, aval.shape) for d in (r, n))
    dims = tuple(2 * i + 1 for i in range(aval.ndim))
    return shape_ops.reshape(shape_ops.broadcast_in_dim(operand, interleaved, dims),
                             tuple(r * n for r, n in zip(reps, aval.shape)))


def split(operand, sizes: Sequence[int], axis: int = 0):
    """Pieces of ``operand`` of ``sizes`` along ``axis`` (they must add up to its length)."""
    aval = core.get_aval(operand)
    axis = axis % aval.ndim
    sizes = [operator.index(s) for s in sizes]
    if sum(sizes) != aval.shape[axis] or any(s < 0 for s in sizes):
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {aval.shape[axis]} of the "
                         f"operand shape {aval.shape}")
    out, start = [], 0
    for s in sizes:
        out.append(slicing.slice_in_dim(operand, start, start + s, axis=axis))
        start += s
    return out


def unstack(x, axis: int = 0):
    """The slices of ``x`` along ``axis``."""
    aval = core.get_aval(x)
    if aval.ndim == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.")
    axis = axis % aval.ndim
    return tuple(slicing.index_in_dim(x, i, axis, keepdims=False) for i in range(aval.shape[axis]))


def select_n(which, *cases):
    """Per element, ``cases[which]``: ``which`` boolean (2 cases) or int32."""
    if not cases:
        raise ValueError("select_n() must have at least one case")
    if len(cases) == 1:
        return cases[0]
    check_same_dtypes("select_n", [core.get_aval(c) for c in cases])
    w = core.get_aval(which)
    if w.dtype == np.bool_:
        if len(cases) > 2:
            raise ValueError("select_n with a boolean predicate takes exactly 2 cases")
        return ew.select(which, cases[1], cases[0])
    out = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        out = ew.select(ew.eq(which, ew.convert_element_type(np.asarray(i, w.dtype), w.dtype)), cases[i], out)
    return out


def reduce_xor(operand, axes: Sequence[int]):
    """The bitwise XOR over ``axes`` (booleans: odd parity)."""
    aval = core.get_aval(operand)
    axes = tuple(axes)
    if aval.dtype == np.bool_:
        count = reduction.reduce_sum(ew.convert_element_type(operand, np.int32), axes)
        return ew.ne(ew.rem(count, _const(count, 2)), _const(count, 0))
    if not dtypes.is_int(aval.dtype):
        raise TypeError(f"reduce_xor does not accept dtype {aval.dtype}; it needs an integer or bool type")
    bits = np.dtype(aval.dtype).itemsize * 8
    unsigned = np.dtype(f"uint{bits}")
    x = ew.convert_element_type(operand, unsigned) if not dtypes.is_unsigned_int(aval.dtype) else operand
    out = None
    for b in range(bits):
        bit = ew.bitwise_and(lax_bits.shift_right_logical(x, _const(x, b)), _const(x, 1))
        parity = ew.rem(reduction.reduce_sum(bit, axes), _const(x, 2))
        term = lax_bits.shift_left(parity, _const(parity, b))
        out = term if out is None else ew.bitwise_or(out, term)
    return ew.convert_element_type(out, aval.dtype) if out is not None else operand


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode=None):
    """Like ``scatter_add``, subtracting the updates."""
    return slicing.scatter_add(operand, scatter_indices, ew.neg(updates), dimension_numbers,
                               indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)


def index_take(src, idxs, axes: Sequence[int]):
    """``src`` indexed along ``axes`` by the index arrays ``idxs`` (one per axis, same length)."""
    aval = core.get_aval(src)
    axes = tuple(a % aval.ndim for a in axes)
    idxs = list(idxs) if isinstance(idxs, (list, tuple)) else [idxs[i] for i in range(core.get_aval(idxs).shape[0])]
    if len(idxs) != len(axes):
        raise ValueError(f"index_take: {len(idxs)} index arrays for {len(axes)} axes")
    indices = shape_ops.broadcast_in_dim(idxs[0], core.get_aval(idxs[0]).shape + (1,), (0,))
    for i in idxs[1:]:
        indices = slicing.concatenate([indices, shape_ops.broadcast_in_dim(i, core.get_aval(i).shape + (1,), (0,))], 1)
    offset = tuple(d for d in range(aval.ndim) if d not in axes)
    dnums = slicing.GatherDimensionNumbers(offset_dims=tuple(range(1, 1 + len(offset))), collapsed_slice_dims=axes,
                                           start_index_map=axes)
    slice_sizes = tuple(1 if d in axes else aval.shape[d] for d in range(aval.ndim))
    return slicing.gather(src, indices, dnums, slice_sizes, mode="clip")


def _logaddexp(a, b):
    top = ew.max(a, b)
    finite_top = ew.select(float_math.is_finite(top), top, ew.convert_element_type(np.zeros((), core.get_aval(a).dtype),
                                                                                   core.get_aval(a).dtype))
    return ew.add(finite_top, ew.log(ew.add(ew.exp(ew.sub(a, finite_top)), ew.exp(ew.sub(b, finite_top)))))


def cumlogsumexp(operand, axis: int = 0, reverse: bool = False):
    """``log(cumsum(exp(operand)))`` along ``axis``, computed stably."""
    return associative_scan(_logaddexp, operand, reverse=reverse, axis=axis)


def map(f: Callable, xs, *, batch_size: int | None = None):  # noqa: A001
    """``[f(x) for x in xs]`` stacked, as a sequential scan; with ``batch_size``, ``f`` runs
    on batches of that many elements at a time (and once more on the remainder)."""
    if batch_size is None:
        _, ys = scan_mod.scan(lambda carry, x: (carry, f(x)), None, xs)
        return ys
    leaves, tree = tree_util.tree_flatten(xs)
    n = core.get_aval(leaves[0]).shape[0]
    batch_size = min(operator.index(batch_size), n)
    elem_avals = [core.get_aval(x).update(shape=core.get_aval(x).shape[1:]) for x in leaves]
    out_trees = []

    def flat_f(*elems):
        out, out_tree = tree_util.tree_flatten(f(tree.unflatten(elems)))
        out_trees.append(out_tree)
        return out

    graph = core.trace_to_graph(flat_f, elem_avals)
    num_out = len(graph.out_avals)

    def batched(count):
        return batching.batch_graph_fn(graph, count, [0] * len(leaves), [True] * num_out)

    full, rest = divmod(n, batch_size)
    main = [shape_ops.reshape(slicing.slice_in_dim(x, 0, full * batch_size, 1, 0),
                              (full, batch_size) + core.get_aval(x).shape[1:]) for x in leaves]
    _, ys = scan_mod.scan(lambda c, chunk: (c, batched(batch_size)(*chunk)), None, main)
    ys = [shape_ops.reshape(y, (full * batch_size,) + core.get_aval(y).shape[2:]) for y in ys]
    if rest:
        tail = batched(rest)(*[slicing.slice_in_dim(x, full * batch_size, n, 1, 0) for x in leaves])
        ys = [slicing.concatenate([y, t], 0) for y, t in zip(ys, tail)]
    return out_trees[0].unflatten(ys)


def batch_matmul(lhs, rhs, precision=None):
    """Batched matrix products: ``(..., m, k) x (..., k, n) -> (..., m, n)`` with equal batch dims."""
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    if la.ndim != ra.ndim or la.ndim < 2 or la.shape[:-2] != ra.shape[:-2]:
        raise ValueError(f"batch_matmul requires operands of equal rank >= 2 and equal batch dimensions, "
                         f"got {la.shape} and {ra.shape}")
    batch = tuple(range(la.ndim - 2))
    return dot_general(lhs, rhs, (((la.ndim - 1,), (ra.ndim - 2,)), (batch, batch)), precision)


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """The ``k`` largest entries along ``reduction_dimension`` and their indices; exact on the
    CPU (as jax's is there)."""
    aval = core.get_aval(operand)
    dim = reduction_dimension % aval.ndim
    last = tuple(d for d in range(aval.ndim) if d != dim) + (dim,)
    values, indices = sorting.top_k(shape_ops.transpose(operand, last), k)
    back = tuple(int(i) for i in np.argsort(last))
    return shape_ops.transpose(values, back), shape_ops.transpose(indices, back)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """The ``k`` smallest entries along ``reduction_dimension`` and their indices (exact)."""
    values, indices = approx_max_k(ew.neg(operand), k, reduction_dimension)
    return ew.neg(values), indices


class Precision(enum.Enum):
    """Matrix-product precision, as jax's; numlir's CPU contractions always use the
    operands' full precision, so every value computes the same."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        names = {"default": cls.DEFAULT, "fastest": cls.DEFAULT, "bfloat16": cls.DEFAULT, "high": cls.HIGH,
                 "bfloat16_3x": cls.HIGH, "tensorfloat32": cls.HIGH, "highest": cls.HIGHEST, "float32": cls.HIGHEST}
        return names.get(str(value).lower())


def platform_dependent(*args, default: Callable | None = None, **per_platform: Callable):
    """The branch for the platform numlir compiles for ("cpu"), else ``default``."""
    from numlir._src import dispatch  # noqa: PLC0415 - the backend, known only at call time
    fn = per_platform.get(dispatch.get_backend().name, default)
    if fn is None:
        raise NotImplementedError(f"platform_dependent: no branch for platform {dispatch.get_backend().name!r} "
                                  "and no default")
    return fn(*args)


def composite(decomposition: Callable, name: str, version: int = 0):
    """``decomposition`` itself: numlir compiles the decomposition (jax also names it in the IR)."""
    return decomposition


def dce_sink(val, *, prevent_mlir_dce: bool = False):
    """``val`` unchanged (jax uses it to keep a value alive for dead-code elimination tests)."""
    return val
