"""Array creation in numlir.numpy: asarray/array, astype, full/zeros/ones and their _like
forms, arange, linspace and eye.

Each takes the array API standard's ``device=`` (the result is made on that device and
committed there, as ``device_put`` commits) and, where the standard has it, ``copy=``: True
always gives an array with a buffer of its own; False returns the input itself, and where that
is impossible (host data, which numlir always copies into a buffer of its own, a new dtype or
another device) ``asarray`` raises ValueError, as the standard says. Under ``jit`` both only
describe the traced value: ``device=`` and ``copy=`` change nothing there."""

from __future__ import annotations

import builtins
import math

import numpy as np

from numlir._src import core, device_transfer, dtypes, placement, shapes
from numlir._src.array import Array
from numlir._src.lax import elementwise as ew
from numlir._src.lax import shape_ops
from numlir._src.numpy.util import check_arraylike


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


def on_device(device, make):
    """``make()`` computed on ``device`` and committed there (``device`` a Device or a
    one-device sharding); with ``device`` None, ``make()`` as it is."""
    if device is None:
        return make()
    with placement.default_device(device):
        out = make()
    return device_transfer.device_put(out, device)


def fresh_copy(x):
    """A new Array holding ``x``'s contents in a buffer of its own, on ``x``'s device and
    committed as ``x`` is; a traced value as it is (it names no buffer)."""
    if isinstance(x, core.Tracer) or not isinstance(x, Array):
        return x
    if x.is_deleted():
        x._value._raise()
    if x._device is None:
        return Array(np.array(x._value, copy=True), x.aval)
    return Array(x._device.copy_from(x._value, x._device), x.aval, x._device, x._committed)


def _copy_false_error(what: str, why: str) -> ValueError:
    return ValueError(f"{what}: copy=False, but {why}, so a copy is needed (the array API "
                      "standard raises ValueError here; pass copy=None to allow the copy)")


def asarray(a, dtype=None, order: str | None = None, *, copy: bool | None = None, device=None):
    """Convert ``a`` (array, NumPy value, scalar, nested lists) to a numlir array.

    Python scalars stay weakly typed, as in JAX: ``asarray(1.0)`` is a weak float32.
    ``copy=True`` always copies; ``copy=False`` returns the numlir array ``a`` itself and
    raises ValueError where a copy is needed (host data, a new dtype, another ``device``).

    Example::

        >>> x = numlir.numpy.asarray([1.0, 2.0], device=numlir.devices()[0])
        >>> numlir.numpy.asarray(x, copy=False) is x
        True
    """
    if order not in (None, "C", "K", "A"):
        raise NotImplementedError(f"asarray: order={order!r} is not supported (only 'C')")
    if copy is False:
        if not isinstance(a, (core.Tracer, Array)):
            raise _copy_false_error("asarray", f"{type(a).__name__} is host data, which numlir "
                                    "copies into a buffer of its own")
        if dtype is not None and dtypes.canonicalize_dtype(dtype) != a.dtype:
            raise _copy_false_error("asarray", f"converting {a.dtype} to "
                                    f"{dtypes.canonicalize_dtype(dtype)} makes a new array")
        if device is not None and not isinstance(a, core.Tracer) and (
                placement._as_device(device, "device") is not a.device):
            raise _copy_false_error("asarray", f"the array lives on {a.device}, not {device}")
    out = on_device(device, lambda: _asarray(a, dtype))
    return fresh_copy(out) if copy and out is a else out


def _asarray(a, dtype):
    if isinstance(a, (core.Tracer, Array)):
        if dtype is None:
            return a
        if dtypes.is_complex(a.dtype) and dtypes.canonicalize_dtype(dtype) == np.bool_:
            # As jax: converting an array (not astype) is lax's cast, which keeps the real
            # part; a NumPy input goes through NumPy's conversion, which tests both parts.
            return ew.convert_element_type(a, np.bool_, False)
        return astype(a, dtype, copy=False)
    if dtypes.is_python_scalar(a):
        weak = dtype is None and dtypes.is_weak_python_scalar(a)
        return ew.convert_element_type(a, dtype or dtypes.dtype_of_python_scalar(a), weak)
    if _contains_tracer(a):
        from numlir._src.numpy.joining import array_from_nested  # joining.py builds on this module

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
    return placement.place_from_host(Array.from_host(value))


def array(object, dtype=None, copy: bool = True, order: str | None = "K", ndmin: int = 0, *,  # noqa: A002
          device=None):
    """Like ``asarray``; a new array unless ``copy=False`` (then copied only where needed)."""
    out = asarray(object, dtype, order, copy=True if copy else None, device=device)
    if ndmin > out.ndim:
        out = shape_ops.reshape(out, (1,) * (ndmin - out.ndim) + out.shape)
    return out


def astype(x, dtype, /, *, copy: bool = False, device=None):
    """``x`` converted to ``dtype`` (to bool: ``x != 0``), on ``device`` if given.

    ``copy=True`` always gives a new array; ``copy=False`` (jax's default; the standard's is
    True, which only an object's identity can tell from it) returns ``x`` itself when it
    already has ``dtype`` (and lives on ``device``)."""
    check_arraylike("astype", x)
    dtype = dtypes.canonicalize_dtype(dtype)

    def convert():
        if dtype == dtypes.bool_ and dtypes.is_complex(core.get_aval(x).dtype):
            return ew.ne(x, ew.convert_element_type(0, core.get_aval(x).dtype, True))  # both parts
        return ew.convert_element_type(x, dtype)

    out = on_device(device, convert)
    return fresh_copy(out) if copy and out is x else out


def _dtype_arg(what: str, dtype):
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        raise core.shape_error(
            f"{what}: cannot interpret {dtype!r} as a data type; did you mean {what}((..., "
            f"{dtype})), with a single tuple argument for the shape?")
    return dtypes.canonicalize_dtype(dtype)


def _full(what: str, shape, fill_value, dtype):
    dtype = _dtype_arg(what, core.get_aval(fill_value).dtype if dtype is None else dtype)
    shape = shapes.canonicalize_shape(shape, what, dtype=dtype)
    value = ew.convert_element_type(fill_value, dtype)
    fill_shape = core.get_aval(value).shape
    if len(fill_shape) > len(shape) or any(
            f not in (1, s) for f, s in zip(fill_shape[::-1], shape[::-1])):
        raise core.value_error(f"{what}: fill_value of shape {fill_shape} does not broadcast to "
                               f"shape {shape}")
    return shape_ops.broadcast_to_rank(value, shape)


def full(shape, fill_value, dtype=None, *, device=None):
    """An array of ``shape`` filled with ``fill_value``."""
    return on_device(device, lambda: _full("full", shape, fill_value, dtype))


def zeros(shape, dtype=None, *, device=None):
    """An array of zeros (default dtype float32, float64 with x64)."""
    return on_device(device, lambda: _full("zeros", shape, 0, dtype or dtypes.default_float_dtype()))


def ones(shape, dtype=None, *, device=None):
    """An array of ones (default dtype float32, float64 with x64)."""
    return on_device(device, lambda: _full("ones", shape, 1, dtype or dtypes.default_float_dtype()))


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    """An array like ``a`` (its shape and dtype unless given) filled with ``fill_value``."""
    aval = core.get_aval(a)
    return on_device(device, lambda: _full("full_like", aval.shape if shape is None else shape,
                                           fill_value, dtype or aval.dtype))


def zeros_like(a, dtype=None, shape=None, *, device=None):
    return full_like(a, 0, dtype, shape, device=device)


def ones_like(a, dtype=None, shape=None, *, device=None):
    return full_like(a, 1, dtype, shape, device=device)


def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values (static Python numbers only), built with ``iota``."""
    return on_device(device, lambda: _arange(start, stop, step, dtype))


def _arange(start, stop, step, dtype):
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
        out = ew.mul(out, ew.convert_element_type(step, dtype))
    if start != 0:
        out = ew.add(out, ew.convert_element_type(start, dtype))
    return out


def linspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, *, device=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (static Python numbers)."""
    return on_device(device, lambda: _linspace(start, stop, num, endpoint, dtype))


def _linspace(start, stop, num, endpoint, dtype):
    for name, v in (("start", start), ("stop", stop)):
        if isinstance(v, core.Tracer):
            raise shapes.traced_value_error("linspace", name, f"<traced {v.aval.str_short()}>", v,
                                            "a concrete number")
    if dtype is None:
        is_complex = builtins.any(isinstance(v, (complex, np.complexfloating)) for v in (start, stop))
        dtype = dtypes.default_complex_dtype() if is_complex else dtypes.default_float_dtype()
    dtype = dtypes.canonicalize_dtype(dtype)
    num = shapes.canonicalize_dim(num, "linspace", "num")
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    steps = ew.convert_element_type(shape_ops.iota(dtypes.complex_part_dtype(dtype), num), dtype)
    out = ew.add(ew.mul(steps, ew.convert_element_type(step, dtype)),
                 ew.convert_element_type(start, dtype))
    if endpoint and num > 1:  # make the last value exactly ``stop``, as NumPy does
        last = ew.eq(shape_ops.iota(dtypes.default_int_dtype(), num),
                      ew.convert_element_type(num - 1, dtypes.default_int_dtype()))
        out = ew.select(last, ew.convert_element_type(stop, dtype), out)
    return out


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, *, device=None):
    """A 2-D array with ones on the ``k``-th diagonal."""
    return on_device(device, lambda: _eye(N, M, k, dtype))


def _eye(N, M, k, dtype):
    N = shapes.canonicalize_dim(N, "eye", "N")
    M = N if M is None else shapes.canonicalize_dim(M, "eye", "M")
    dtype = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    core.check_shape((N, M), "eye", None, dtype)
    idt = dtypes.default_int_dtype()
    rows = shape_ops.broadcasted_iota(idt, (N, M), 0)
    cols = shape_ops.broadcasted_iota(idt, (N, M), 1)
    if isinstance(k, (int, np.integer)):
        # A diagonal beyond the matrix is all zeros, as at its edge: a k past the index
        # type's range (2**31 without x64) must not overflow into another diagonal.
        k = max(-N, min(M, int(k)))
    if k:
        rows = ew.add(rows, ew.convert_element_type(k, idt))
    return ew.convert_element_type(ew.eq(rows, cols), dtype)


