"""Installs the operators and methods of numlir.Array and of tracers (``x + y``, ``x.sum()``,
``x[i]``, ``x.at[i].set(y)``) on core's ``ArrayMethods``: each calls its numlir.numpy
function."""

from __future__ import annotations

import numpy as np

from numlir._src import config, core, device_queries, device_transfer, traceback_util
from numlir._src.array import Array
from numlir._src.array_methods import ArrayMethods
from numlir._src.numpy import (array_api_info, bit_views, creation, cumulative, float_ops,
                               indexing, indices_and_shapes, joining, linalg_ops, reductions,
                               reshaping, selection, sorting, ufuncs)


def _is_operand(x) -> bool:
    return isinstance(x, (int, float, bool, complex, np.ndarray, np.generic, core.Tracer, ArrayMethods))


def _binop(fn, name: str, reflected: bool = False):
    def op(self, other):
        if not _is_operand(other):
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)

    op.__name__ = f"__{'r' if reflected else ''}{name}__"
    return op


def _reshape(self, *shape, order="C"):
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    return reshaping.reshape(self, shape, order=order)


def _transpose(self, *axes):
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
        axes = axes[0]
    return reshaping.transpose(self, axes or None)


def _at(self):
    """Functional index updates: ``x.at[idx].set(y)``, ``.add``, ``.multiply``, ``.get``..."""
    return indexing._IndexUpdateHelper(self)


_BINARY = {  # operator name -> numlir.numpy function
    "add": ufuncs.add, "sub": ufuncs.subtract, "mul": ufuncs.multiply,
    "truediv": ufuncs.true_divide, "floordiv": ufuncs.floor_divide, "mod": ufuncs.remainder,
    "pow": ufuncs.power, "matmul": linalg_ops.matmul, "and": ufuncs.bitwise_and,
    "or": ufuncs.bitwise_or, "xor": ufuncs.bitwise_xor, "lshift": ufuncs.left_shift,
    "rshift": ufuncs.right_shift,
    # builtin divmod(a, b): the pair (a // b, a % b), as jax.Array's __divmod__ gives it
    "divmod": float_ops.divmod,
}
_COMPARE = {"lt": ufuncs.less, "le": ufuncs.less_equal, "gt": ufuncs.greater,
            "ge": ufuncs.greater_equal, "eq": ufuncs.equal, "ne": ufuncs.not_equal}


# Methods that are the numlir.numpy function of the same name applied to the array, with the
# function's own signature after ``a`` (as jax.Array's are).
_FORWARDED = {
    "argmax": reductions.argmax, "argmin": reductions.argmin, "std": reductions.std,
    "var": reductions.var, "ptp": reductions.ptp, "argsort": sorting.argsort,
    "sort": sorting.sort, "searchsorted": sorting.searchsorted,
    "argpartition": sorting.argpartition, "clip": ufuncs.clip, "round": ufuncs.round,
    "cumsum": cumulative.cumsum, "cumprod": cumulative.cumprod, "diagonal": joining.diagonal,
    "trace": joining.trace, "repeat": joining.repeat, "take": joining.take,
    "swapaxes": reshaping.swapaxes, "conj": float_ops.conjugate, "conjugate": float_ops.conjugate,
    "view": bit_views.view, "byteswap": bit_views.byteswap,
}


def _nonzero(self, *, fill_value=None, size=None):
    return selection.nonzero(self, size=size, fill_value=fill_value)


def _compress(self, condition, axis=None, *, out=None, size=None, fill_value=0):
    return selection.compress(condition, self, axis, size=size, fill_value=fill_value, out=out)


def _choose(self, choices, out=None, mode="raise"):
    return indices_and_shapes.choose(self, choices, out=out, mode=mode)


def _to_device(self, device, *, stream=None):
    """The array on ``device``, committed there (the array API's ``to_device``); ``stream`` is
    accepted for the standard's signature (numlir's devices run each call to completion)."""
    del stream
    return device_transfer.device_put(self, device)


def _astype(self, dtype, copy: bool = False, device=None):
    """``numlir.numpy.astype(self, dtype)``; unlike the function, ``copy`` may be positional."""
    return creation.astype(self, dtype, copy=copy, device=device)


def _numpy_index(idx):
    """``idx`` with numlir arrays as NumPy's (slices, ints, None and Ellipsis as they are)."""
    if isinstance(idx, tuple):
        return tuple(_numpy_index(i) for i in idx)
    return np.asarray(idx) if isinstance(idx, Array) else idx


def _setitem(self, idx, value):
    if config.flags.array_item_assignment and not isinstance(self, core.Tracer):
        # An index beyond the array is NumPy's IndexError, where .at[].set would drop the
        # update: checked on a zero-stride stand-in of the array's shape.
        np.broadcast_to(np.False_, self.shape)[_numpy_index(idx)]
        # The value cast to the array's dtype first, as NumPy's assignment casts.
        value = creation.astype(creation.asarray(value), self.dtype)
        self._take_buffer(self.at[idx].set(value))
        return
    raise TypeError("numlir arrays are immutable and do not support in-place item assignment. "
                    "Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method. "
                    "(For libraries written for NumPy, numlir.config.update("
                    "'numlir_array_item_assignment', True) lets eager arrays be assigned.)")


def _no_flat(self):
    raise NotImplementedError("numlir Arrays do not implement the arr.flat property: consider "
                              "arr.flatten() instead.")


def _forward(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _methods() -> dict:
    methods = {}
    for name, fn in _BINARY.items():
        methods[f"__{name}__"] = _binop(fn, name)
        methods[f"__r{name}__"] = _binop(fn, name, True)
    for name, fn in _COMPARE.items():
        methods[f"__{name}__"] = _binop(fn, name)
    methods.update({
        "__neg__": lambda self: ufuncs.negative(self),
        "__pos__": lambda self: self,
        "__abs__": lambda self: ufuncs.abs(self),
        "__invert__": lambda self: ufuncs.invert(self),
        "astype": _astype,
        "reshape": _reshape,
        "transpose": _transpose,
        "ravel": lambda self: reshaping.ravel(self),
        "flatten": lambda self: reshaping.ravel(self),
        "squeeze": lambda self, axis=None: reshaping.squeeze(self, axis),
        "sum": lambda self, axis=None, dtype=None, keepdims=False: reductions.sum(
            self, axis=axis, dtype=dtype, keepdims=keepdims),
        "prod": lambda self, axis=None, dtype=None, keepdims=False: reductions.prod(
            self, axis=axis, dtype=dtype, keepdims=keepdims),
        "mean": lambda self, axis=None, dtype=None, keepdims=False: reductions.mean(
            self, axis=axis, dtype=dtype, keepdims=keepdims),
        "max": lambda self, axis=None, keepdims=False: reductions.max(self, axis=axis, keepdims=keepdims),
        "min": lambda self, axis=None, keepdims=False: reductions.min(self, axis=axis, keepdims=keepdims),
        "all": lambda self, axis=None, keepdims=False: reductions.all(self, axis=axis, keepdims=keepdims),
        "any": lambda self, axis=None, keepdims=False: reductions.any(self, axis=axis, keepdims=keepdims),
        "dot": lambda self, other: linalg_ops.dot(self, other),
        "__getitem__": lambda self, idx: indexing.getitem(self, idx),
        "__setitem__": _setitem,
        "__array_namespace__": array_api_info.array_namespace,
        "nonzero": _nonzero,
        "compress": _compress,
        "choose": _choose,
        "to_device": _to_device,
    })
    methods.update({name: _forward(fn) for name, fn in _FORWARDED.items()})
    return methods


def _install() -> None:
    # Operators and methods are API entry points too: `x + y` with bad shapes should show the
    # user's line, not these frames.
    for name, method in _methods().items():
        setattr(ArrayMethods, name, traceback_util.api_boundary(method))
    ArrayMethods.T = property(lambda self: reshaping.transpose(self))
    ArrayMethods.mT = property(lambda self: reshaping.swapaxes(self, -1, -2))
    ArrayMethods.itemsize = property(lambda self: self.dtype.itemsize)
    ArrayMethods.at = property(_at)
    ArrayMethods.real = property(float_ops.real)
    ArrayMethods.imag = property(float_ops.imag)
    # Concrete Arrays say where they live (array.py); a traced value reports the default.
    ArrayMethods.device = property(lambda self: device_queries.devices()[0])
    ArrayMethods.flat = property(_no_flat)


_install()
