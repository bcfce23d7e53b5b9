"""Array creation, shape manipulation and products of numlir.numpy."""

from __future__ import annotations

import builtins
import math


import numpy as np

from numlir._src import core, dtypes, shapes
from numlir._src.lax import dot as lax_dot
from numlir._src.lax import elementwise as lax
from numlir._src.lax import shape_ops
from numlir._src.lax import type_checks as tc
from numlir._src.numpy.util import broadcast_shapes, check_arraylike, promote_dtypes

# --- creation -----------------------------------------------------------------------


def _contains_tracer(obj) -> bool:
    if isinstance(obj, core.Tracer):
        return True
    if isinstance(obj, (list, tuple)):
        return builtins.any(_contains_tracer(o) for o in obj)
    return False


def _first_int_beyond_int64(obj):
    """A Python int in nested lists/tuples ``obj`` that NumPy cannot hold, if any."""
    if type(obj) is int:
        return obj if not -2**63 <= obj < 2**64 else None
    if isinstance(obj, (list, tuple)):
        for o in obj:
            found = _first_int_beyond_int64(o)
            if found is not None:
                return found
    return None


def asarray(a, dtype=None, copy=None):
    """Convert ``a`` (array, NumPy value, scalar, nested lists) to a numlir array.

    Python scalars stay weakly typed, as in JAX: ``asarray(1.0)`` is a weak float32.
    """
    from numlir._src.array import Array

    if isinstance(a, (core.Tracer, Array)):
        return a if dtype is None else astype(a, dtype)
    if dtypes.is_python_scalar(a):
        weak = dtype is None and dtypes.is_weak_python_scalar(a)
        return lax.convert_element_type(a, dtype or dtypes.dtype_of_python_scalar(a), weak)
    if _contains_tracer(a):
        from numlir._src.numpy.joining import array_from_nested

        return array_from_nested(a, dtype)
    try:
        value = np.asarray(a)
    except ValueError as error:  # ragged nested sequences
        raise core.value_error(f"cannot convert {type(a).__name__} to a numlir array: "
                               f"{a!r:.80}: {error}") from None
    nested = isinstance(a, (list, tuple))
    if value.dtype == object:
        big = _first_int_beyond_int64(a) if nested else None
        if big is not None:
            dtypes.check_python_int(big, dtypes.default_int_dtype(), default=True)
        raise core.shape_error(f"cannot convert {type(a).__name__} to a numlir array: {a!r:.80}")
    target = None
    if dtype is not None:
        target = dtypes.canonicalize_dtype(dtype)
    elif nested and value.dtype == np.float64:
        target = dtypes.default_float_dtype()
    elif nested and value.dtype.kind in "iu":
        target = dtypes.default_int_dtype()
    if nested and target is not None and target.kind in "iu" and value.dtype.kind in "iu":
        # Python ints that do not fit are an error (as in JAX), never wrapped around.
        for bound in (value.min(initial=0), value.max(initial=0)):
            dtypes.check_python_int(int(bound), target, default=dtype is None)
    if target is not None:
        value = value.astype(target)
    return Array.from_host(value)


def array(object, dtype=None, copy: bool = True, ndmin: int = 0):  # noqa: A002
    """Like ``asarray``, always returning a new array."""
    out = asarray(object, dtype)
    if ndmin > out.ndim:
        out = shape_ops.reshape(out, (1,) * (ndmin - out.ndim) + out.shape)
    return out


def astype(x, dtype):
    """``x`` converted to ``dtype`` (to bool: ``x != 0``)."""
    check_arraylike("astype", x)
    return lax.convert_element_type(x, dtypes.canonicalize_dtype(dtype))


def _dtype_arg(what: str, dtype):
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        raise core.shape_error(
            f"{what}: cannot interpret {dtype!r} as a data type; did you mean {what}((..., "
            f"{dtype})), with a single tuple argument for the shape?")
    return dtypes.canonicalize_dtype(dtype)


def _full(what: str, shape, fill_value, dtype):
    dtype = _dtype_arg(what, core.get_aval(fill_value).dtype if dtype is None else dtype)
    shape = shapes.canonicalize_shape(shape, what, dtype=dtype)
    value = lax.convert_element_type(fill_value, dtype)
    fill_shape = core.get_aval(value).shape
    if len(fill_shape) > len(shape) or any(
            f not in (1, s) for f, s in zip(fill_shape[::-1], shape[::-1])):
        raise core.value_error(f"{what}: fill_value of shape {fill_shape} does not broadcast to "
                               f"shape {shape}")
    return shape_ops.broadcast_to_rank(value, shape)


def full(shape, fill_value, dtype=None):
    """An array of ``shape`` filled with ``fill_value``."""
    return _full("full", shape, fill_value, dtype)


def zeros(shape, dtype=None):
    """An array of zeros (default dtype float32, float64 with x64)."""
    return _full("zeros", shape, 0, dtype or dtypes.default_float_dtype())


def ones(shape, dtype=None):
    """An array of ones (default dtype float32, float64 with x64)."""
    return _full("ones", shape, 1, dtype or dtypes.default_float_dtype())


def full_like(a, fill_value, dtype=None, shape=None):
    aval = core.get_aval(a)
    return _full("full_like", aval.shape if shape is None else shape, fill_value,
                 dtype or aval.dtype)


def zeros_like(a, dtype=None, shape=None):
    return full_like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
    return full_like(a, 1, dtype, shape)


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values (static Python numbers only), built with ``iota``."""
    if stop is None:
        start, stop = 0, start
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(v, core.Tracer):
            raise shapes.traced_value_error("arange", name, f"<traced {v.aval.str_short()}>", v,
                                            "a concrete number")
    step = 1 if step is None else step
    if dtype is None:
        is_float = builtins.any(isinstance(v, (float, np.floating)) for v in (start, stop, step))
        dtype = dtypes.default_float_dtype() if is_float else dtypes.default_int_dtype()
    dtype = dtypes.canonicalize_dtype(dtype)
    if step == 0:
        raise core.value_error("arange: step must not be zero")
    size = builtins.max(0, math.ceil((stop - start) / step))
    core.check_shape((size,), "arange", None, dtype)
    out = shape_ops.iota(dtype, size)
    if step != 1:
        out = lax.mul(out, lax.convert_element_type(step, dtype))
    if start != 0:
        out = lax.add(out, lax.convert_element_type(start, dtype))
    return out


def linspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (static Python numbers)."""
    for name, v in (("start", start), ("stop", stop)):
        if isinstance(v, core.Tracer):
            raise shapes.traced_value_error("linspace", name, f"<traced {v.aval.str_short()}>", v,
                                            "a concrete number")
    dtype = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    num = shapes.canonicalize_dim(num, "linspace", "num")
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    out = lax.add(lax.mul(shape_ops.iota(dtype, num), lax.convert_element_type(step, dtype)),
                  lax.convert_element_type(start, dtype))
    if endpoint and num > 1:  # make the last value exactly ``stop``, as NumPy does
        last = lax.eq(shape_ops.iota(dtypes.default_int_dtype(), num),
                      lax.convert_element_type(num - 1, dtypes.default_int_dtype()))
        out = lax.select(last, lax.convert_element_type(stop, dtype), out)
    return out


def eye(N: int, M: int | None = None, k: int = 0, dtype=None):
    """A 2-D array with ones on the ``k``-th diagonal."""
    N = shapes.canonicalize_dim(N, "eye", "N")
    M = N if M is None else shapes.canonicalize_dim(M, "eye", "M")
    dtype = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    core.check_shape((N, M), "eye", None, dtype)
    idt = dtypes.default_int_dtype()
    rows = shape_ops.broadcasted_iota(idt, (N, M), 0)
    cols = shape_ops.broadcasted_iota(idt, (N, M), 1)
    if k:
        rows = lax.add(rows, lax.convert_element_type(k, idt))
    return lax.convert_element_type(lax.eq(rows, cols), dtype)


# --- shapes -------------------------------------------------------------------------


def shape(a) -> tuple[int, ...]:
    return core.get_aval(a).shape


def ndim(a) -> int:
    return core.get_aval(a).ndim


def size(a) -> int:
    return core.get_aval(a).size


def reshape(a, newshape, order: str = "C"):
    """Reshape in row-major order; one dimension may be -1."""
    check_arraylike("reshape", a)
    if order != "C":
        raise NotImplementedError("reshape only supports order='C'")
    aval = core.get_aval(a)
    newshape = list(shapes.shape_ints(newshape, "reshape", "newshape"))
    if newshape.count(-1) > 1:
        raise core.value_error("reshape: can only specify one unknown dimension (-1)")
    if -1 in newshape:
        known = math.prod(d for d in newshape if d != -1)
        if known == 0 or aval.size % known:
            raise core.shape_error(f"cannot reshape array of shape {aval.shape} (size {aval.size}) "
                                   f"into shape {tuple(newshape)}")
        newshape[newshape.index(-1)] = aval.size // known
    core.check_shape(tuple(newshape), "reshape", "newshape")
    if math.prod(newshape) != aval.size:
        raise core.shape_error(f"cannot reshape array of shape {aval.shape} (size {aval.size}) "
                               f"into shape {tuple(newshape)}")
    return shape_ops.reshape(a, newshape)


def ravel(a):
    return reshape(a, (-1,))


def transpose(a, axes=None):
    """Permute the axes (default: reverse them)."""
    check_arraylike("transpose", a)
    nd = core.get_aval(a).ndim
    if axes is None:
        perm = tuple(reversed(range(nd)))
    else:
        if len(axes) != nd:
            raise core.value_error(f"transpose: axes {tuple(axes)} don't match array of dimension {nd}")
        perm = tuple(tc.canonical_axis("transpose", ax, nd) for ax in axes)
        if len(set(perm)) != nd:
            raise core.value_error(f"transpose: repeated axis in {tuple(axes)}")
    return shape_ops.transpose(a, perm)


def swapaxes(a, axis1: int, axis2: int):
    nd = core.get_aval(a).ndim
    perm = list(range(nd))
    i, j = tc.canonical_axis("swapaxes", axis1, nd), tc.canonical_axis("swapaxes", axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return shape_ops.transpose(a, perm)


def expand_dims(a, axis):
    check_arraylike("expand_dims", a)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return shape_ops.expand_dims(a, axes)


def squeeze(a, axis=None):
    check_arraylike("squeeze", a)
    aval = core.get_aval(a)
    if axis is None:
        axis = tuple(i for i, d in enumerate(aval.shape) if d == 1)
    elif isinstance(axis, (int, np.integer)):
        axis = (axis,)
    return shape_ops.squeeze(a, axis)


def broadcast_to(a, shape):
    check_arraylike("broadcast_to", a)
    aval = core.get_aval(a)
    shape = shapes.canonicalize_shape(shape, "broadcast_to", dtype=aval.dtype)
    if aval.ndim > len(shape) or broadcast_shapes("broadcast_to", aval.shape, shape) != shape:
        raise core.value_error(f"cannot broadcast array of shape {aval.shape} to shape {shape}")
    return shape_ops.broadcast_to_rank(a, shape)


# --- products -----------------------------------------------------------------------


def matmul(a, b, /):
    """Matrix product with NumPy semantics: 1-D operands are promoted and the added dim removed;
    leading (batch) dimensions broadcast."""
    check_arraylike("matmul", a, b)
    a, b = promote_dtypes(a, b)
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    orig = f"{core.get_aval(a).str_short()} and {core.get_aval(b).str_short()}"
    if not sa or not sb:
        raise core.value_error(f"matmul: operands must not be scalars, got shapes {sa} and {sb}")
    a_vec, b_vec = len(sa) == 1, len(sb) == 1
    if a_vec:
        a, sa = shape_ops.reshape(a, (1,) + sa), (1,) + sa
    if b_vec:
        b, sb = shape_ops.reshape(b, sb + (1,)), sb + (1,)
    if sa[-1] != sb[-2]:
        raise core.shape_error(
            f"matmul got incompatible shapes: {orig} "
            f"(contracting sizes {sa[-1]} and {sb[-2]} differ)")
    batch = broadcast_shapes("matmul", sa[:-2], sb[:-2])
    nb = len(batch)
    if len(sb) == 2:  # (..., n, k) @ (k, m): one contraction, no batch dims needed
        out = lax_dot.dot_general(a, b, (((len(sa) - 1,), (0,)), ((), ())))
    else:
        if sa[:-2] != batch:
            a = shape_ops.broadcast_to_rank(a, batch + sa[-2:])
        if sb[:-2] != batch:
            b = shape_ops.broadcast_to_rank(b, batch + sb[-2:])
        bd = tuple(range(nb))
        out = lax_dot.dot_general(a, b, (((nb + 1,), (nb,)), (bd, bd)))
    out_shape = core.get_aval(out).shape
    if a_vec or b_vec:
        out_shape = out_shape[:-2] + (() if a_vec else out_shape[-2:-1]) + (() if b_vec else out_shape[-1:])
        out = shape_ops.reshape(out, out_shape)
    return out


def dot(a, b, /):
    """NumPy's dot: scalars multiply; otherwise contract a's last axis with b's second-to-last."""
    check_arraylike("dot", a, b)
    a, b = promote_dtypes(a, b)
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    if not sa or not sb:
        from numlir._src.numpy.ufuncs import multiply

        return multiply(a, b)
    rc = 0 if len(sb) == 1 else len(sb) - 2
    if sa[-1] != sb[rc]:
        raise core.shape_error(f"dot got incompatible shapes: {sa} and {sb} "
                               f"(contracting sizes {sa[-1]} and {sb[rc]} differ)")
    return lax_dot.dot_general(a, b, (((len(sa) - 1,), (rc,)), ((), ())))


def vdot(a, b, /):
    return dot(ravel(a), ravel(b))


def outer(a, b, /):
    a, b = ravel(a), ravel(b)
    return dot(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def result_type(*args) -> np.dtype:
    """The dtype numlir.numpy's type promotion gives for these arrays/dtypes/scalars."""
    pairs = []
    for x in args:
        if isinstance(x, (np.dtype, type, str)) and not dtypes.is_python_scalar(x):
            pairs.append((np.dtype(x), False))
        else:
            aval = core.get_aval(x)
            pairs.append((aval.dtype, aval.weak_type))
    return dtypes.result_type(*pairs)[0]


def promote_types(a, b) -> np.dtype:
    return dtypes.promote_types(a, b)


