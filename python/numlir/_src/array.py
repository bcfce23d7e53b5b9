"""numlir.Array: a concrete array held in a backend buffer.

For this increment every backend's host interface is NumPy (``exe.execute``
takes and returns host ndarrays), so an Array holds the host ndarray together
with its abstract value (shape, canonical dtype, weak-type flag).
"""

from __future__ import annotations

import numpy as np

from numlir._src import core, dtypes, tree_util
from numlir._src.array_methods import ArrayMethods


class _DeletedBuffer:
    """What a deleted Array holds in place of its buffer (``delete()``, or donated to a jitted
    call): any use of the buffer raises the error JAX raises for a deleted array."""

    __slots__ = ("_message",)

    def __init__(self, aval: core.ShapedArray):
        self._message = f"Array has been deleted with shape={aval.str_short()}."

    def _raise(self, *args, **kwargs):
        raise RuntimeError(self._message)

    def __getattr__(self, name):
        self._raise()

    __array__ = __len__ = __iter__ = __getitem__ = _raise


class _ArrayMeta(type):
    # As with jax.Array, a traced value counts as an Array: isinstance(x, numlir.Array) holds
    # inside jit too.
    def __instancecheck__(cls, instance):
        return super().__instancecheck__(instance) or isinstance(instance, core.Tracer)


class Array(ArrayMethods, metaclass=_ArrayMeta):
    """A numlir array. Convert with ``np.asarray(x)``; operators follow numlir.numpy.

    Example::

        >>> x = numlir.numpy.ones((2, 3))
        >>> (x * 2).sum()
        Array(12., dtype=float32)
    """

    __slots__ = ("_value", "aval")
    __array_priority__ = 100

    def __init__(self, value: np.ndarray, aval: core.ShapedArray):
        value.flags.writeable = False  # Arrays are immutable, like JAX's
        self._value = value
        self.aval = aval

    @classmethod
    def from_host(cls, value, weak_type: bool = False) -> "Array":
        """Put a host value (canonicalizing its dtype, e.g. float64 → float32 without x64)."""
        value = np.asarray(value)
        dtype = dtypes.canonicalize_dtype(value.dtype)
        value = np.array(value, dtype=dtype, order="C", copy=True)
        return cls(value, core.ShapedArray(value.shape, dtype, weak_type))

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self._value.nbytes)

    def __array__(self, dtype=None, copy=None):
        if type(self._value) is _DeletedBuffer:
            self._value._raise()
        if copy is False and dtype is not None and np.dtype(dtype) != self._value.dtype:
            raise ValueError("a copy is needed to convert the dtype")
        out = self._value if dtype is None else self._value.astype(dtype, copy=False)
        return out.copy() if copy else out

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        for row in self._value:
            row = np.asarray(row)  # a 1-d array's rows are NumPy scalars: make them 0-d arrays
            yield Array(row, core.ShapedArray(row.shape, self.dtype, self.weak_type))

    def item(self, *args):
        return self._value.item(*args)

    def tolist(self):
        return self._value.tolist()

    def _scalar(self, conv, what):
        if self.size != 1:
            raise TypeError(f"only size-1 arrays can be converted to Python {what}s")
        return conv(self._value.reshape(()).item())

    def __float__(self):
        return self._scalar(float, "float")

    def __int__(self):
        return self._scalar(int, "int")

    def __bool__(self):
        if self.size != 1:
            raise ValueError(
                "The truth value of an array with more than one element is ambiguous. "
                "Use a.any() or a.all()"
            )
        return bool(self._value.reshape(()).item())

    def __complex__(self):
        return self._scalar(complex, "complex")

    def __index__(self):
        if not (dtypes.is_int(self.dtype) or dtypes.is_bool(self.dtype)) or self.shape:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._value)

    def __format__(self, spec):
        return format(self._value.item() if not self.shape else self._value, spec)

    __hash__ = None

    def block_until_ready(self):
        return self

    def delete(self) -> None:
        """Frees the buffer now; any later use of this array raises (as ``jax.Array.delete``)."""
        if not self.is_deleted():
            self._value = _DeletedBuffer(self.aval)

    def is_deleted(self) -> bool:
        """Whether ``delete()`` ran or the array was donated to a jitted call."""
        return type(self._value) is _DeletedBuffer

    def copy(self):
        return Array(self._value.copy(), self.aval)

    def clone(self) -> "Array":
        """A new Array object over the same buffer, as ``jax.Array.clone``: no copy is made.

        JAX's clone aliases the device buffer, so deleting or donating either array deletes
        both. numlir's buffer is host memory shared by reference count: deleting one leaves
        the other readable, and donating one copies (donation reuses only a buffer nothing
        else holds)."""
        if self.is_deleted():
            self._value._raise()
        return Array(self._value, self.aval)

    def is_ready(self) -> bool:
        """Whether the computation behind this array has finished: always, since numlir runs
        each call to completion before returning (``block_until_ready`` returns at once)."""
        if self.is_deleted():
            self._value._raise()
        return True

    def tobytes(self, order="C") -> bytes:
        """The array's raw bytes in ``order`` ('C', 'F', 'A' or 'K'), as ``np.ndarray.tobytes``
        (which is what ``jax.Array.tobytes`` calls)."""
        return self._value.tobytes(order)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """This array's memory for a DLPack consumer: shared and read-only under DLPack 1.0,
        a copy under the legacy protocol (numlir._src.dlpack)."""
        from numlir._src import dlpack

        return dlpack.export(self._value, stream=stream, max_version=max_version,
                             dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        from numlir._src import dlpack

        return dlpack.CPU_DEVICE

    def __repr__(self):
        if self.is_deleted():
            return f"Array(<deleted>, shape={self.shape}, dtype={self.dtype.name})"
        prefix = "Array("
        body = np.array2string(self._value, prefix=prefix, separator=", ")
        extra = f", dtype={self.dtype.name}" + (", weak_type=True" if self.weak_type else "")
        return f"{prefix}{body}{extra})"

    def __str__(self):
        return repr(self) if self.is_deleted() else str(self._value)


tree_util.register_leaf_type(Array)


def as_array(x):
    """``x`` itself if it is an Array or a tracer; otherwise a new Array holding it."""
    if isinstance(x, (Array, core.Tracer)):
        return x
    aval = core.get_aval(x)
    return Array(np.array(x, dtype=aval.dtype, order="C"), aval)
