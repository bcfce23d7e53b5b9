"""numlir.Array: a concrete array held in a buffer on one device.

An Array holds its device's buffer, its abstract value (shape, canonical dtype,
weak-type flag), the device it lives on and whether it is *committed* there
(JAX's placement rules, placement.py: a computation runs where its committed
arguments live). Devices whose memory is the host's (the cpu backend's) hold
C-contiguous NumPy arrays as buffers, which NumPy reads without a transfer;
other devices' buffers are read through ``Device.get``.

An Array made from host data inside numlir (constants, PRNG keys) has no device
yet (``_device`` None): it is uncommitted, on the default device, and a
computation elsewhere takes its host buffer as it is.
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

    __slots__ = ("_value", "aval", "_device", "_committed", "_layout")
    __array_priority__ = 100

    def __init__(self, value, aval: core.ShapedArray, device=None, committed: bool = False,
                 layout=None):
        if type(value) is np.ndarray:
            value.flags.writeable = False  # Arrays are immutable, like JAX's
        self._value = value
        self.aval = aval
        self._device = device
        self._committed = committed
        #: The output of an SPMD computation (pmap, shard_map, jit with shardings): a
        #: NamedSharding saying which block each device computed. The value is one host
        #: buffer, which every cpu device reads, so the blocks are views of it.
        self._layout = layout

    @property
    def device(self):
        """The Device this array lives on (``jax.Array.device``)."""
        if self._device is None:
            from numlir._src import placement  # above this layer: placement knows the backends

            return placement.current_default_device()
        return self._device

    def devices(self) -> set:
        """The set of devices this array lives on (``jax.Array.devices()``)."""
        return set(self._layout.device_set) if self._layout is not None else {self.device}

    @property
    def committed(self) -> bool:
        """Whether the array was placed on its device explicitly (``device_put`` with a
        device, or the output of a computation on committed arrays): computations then run
        there, and mixing committed arrays of two devices is an error."""
        return self._committed

    @property
    def sharding(self):
        """How the array is spread over devices (jax.Array.sharding): the NamedSharding of
        an SPMD computation's output, else ``SingleDeviceSharding(self.device)``."""
        from numlir._src.sharding import SingleDeviceSharding

        return self._layout if self._layout is not None else SingleDeviceSharding(self.device)

    @property
    def is_fully_replicated(self) -> bool:
        return self._layout is None or self._layout.is_fully_replicated

    @property
    def is_fully_addressable(self) -> bool:
        return all(d.is_available() for d in self.devices())

    @property
    def addressable_shards(self) -> list:
        """Each of this process's devices' block (jax.Array.addressable_shards): views of
        the one host buffer, in device order of the sharding's mesh."""
        from numlir._src.sharding import Shard

        if self._layout is None:
            return [Shard(self.device, (slice(None),) * self.ndim, self)]
        host, seen, shards = self._host(), {}, []
        for d, index in self._layout.devices_indices_map(self.shape).items():
            key = tuple((i.start, i.stop) for i in index)
            replica = seen[key] = seen.get(key, -1) + 1  # how many hold this block before
            if d.is_available():
                block = host[index]
                shards.append(Shard(d, index, Array(block, self.aval.update(shape=block.shape),
                                                    d), replica))
        return shards

    def addressable_data(self, index: int) -> "Array":
        return self.addressable_shards[index].data

    def _host(self) -> np.ndarray:
        """The contents as a host ndarray: the buffer itself where it is host memory, else a
        transfer from the device (under the device-to-host transfer guard)."""
        value = self._value
        if type(value) is np.ndarray:
            return value
        if type(value) is _DeletedBuffer:
            value._raise()
        from numlir._src import placement

        return placement.to_host(self)

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
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)

    def __reduce__(self):
        # As jax.Array: the contents and abstract value travel, not the device (which belongs
        # to this process); unpickled, the array is uncommitted on the default device.
        if self.is_deleted():
            self._value._raise()
        return _unpickle, (self._host(), self.aval)

    def __array__(self, dtype=None, copy=None):
        value = self._host()
        if copy is False and dtype is not None and np.dtype(dtype) != value.dtype:
            raise ValueError("a copy is needed to convert the dtype")
        out = value if dtype is None else value.astype(dtype, copy=False)
        return out.copy() if copy else out

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        for row in self._host():
            row = np.asarray(row)  # a 1-d array's rows are NumPy scalars: make them 0-d arrays
            yield self._like(row, core.ShapedArray(row.shape, self.dtype, self.weak_type))

    def item(self, *args):
        return self._host().item(*args)

    def tolist(self):
        return self._host().tolist()

    def _scalar(self, conv, what):
        if self.size != 1:
            raise TypeError(f"only size-1 arrays can be converted to Python {what}s")
        return conv(self._host().reshape(()).item())

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
        return bool(self._host().reshape(()).item())

    def __complex__(self):
        return self._scalar(complex, "complex")

    def __index__(self):
        if not (dtypes.is_int(self.dtype) or dtypes.is_bool(self.dtype)) or self.shape:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._host())

    def __format__(self, spec):
        value = self._host()
        return format(value.item() if not self.shape else value, spec)

    __hash__ = None

    def block_until_ready(self):
        """Waits until the computation behind this array has finished; returns the array."""
        if self.is_deleted():
            self._value._raise()
        if self._device is not None:
            self._device.synchronize()
        return self

    def copy_to_host_async(self) -> None:
        """Starts copying the array to the host, so that a later ``np.asarray`` waits less
        (jax.Array.copy_to_host_async); nothing to do where buffers are host memory."""
        if self.is_deleted():
            self._value._raise()

    def delete(self) -> None:
        """Frees the buffer now; any later use of this array raises (as ``jax.Array.delete``)."""
        if not self.is_deleted():
            self._value = _DeletedBuffer(self.aval)

    def _take_buffer(self, updated: "Array") -> None:
        """Item assignment under ``array_item_assignment``: this array's contents become
        ``updated``'s (same shape and dtype), by taking its buffer; arrays that shared the
        old one (views, other references to it) keep it unchanged."""
        if self.is_deleted():
            self._value._raise()
        self._value = updated._value

    def is_deleted(self) -> bool:
        """Whether ``delete()`` ran or the array was donated to a jitted call."""
        return type(self._value) is _DeletedBuffer

    def copy(self):
        return self._like(self._host().copy(), self.aval)

    def _like(self, host: np.ndarray, aval: core.ShapedArray) -> "Array":
        """An Array of host contents ``host`` on this array's device, committed as it is."""
        device = self._device
        if device is not None and not device.host_memory:
            return Array(device.put(np.asarray(host, order="C")), aval, device, self._committed)
        return Array(host, aval, device, self._committed)

    def clone(self) -> "Array":
        """A new Array object over the same buffer, as ``jax.Array.clone``: no copy is made.

        JAX's clone aliases the device buffer, so deleting or donating either array deletes
        both. numlir's buffer is host memory shared by reference count: deleting one leaves
        the other readable, and donating one copies (donation reuses only a buffer nothing
        else holds)."""
        if self.is_deleted():
            self._value._raise()
        return Array(self._value, self.aval, self._device, self._committed)

    def is_ready(self) -> bool:
        """Whether the computation behind this array has finished: always, since numlir runs
        each call to completion before returning (``block_until_ready`` returns at once)."""
        if self.is_deleted():
            self._value._raise()
        return True

    def tobytes(self, order="C") -> bytes:
        """The array's raw bytes in ``order`` ('C', 'F', 'A' or 'K'), as ``np.ndarray.tobytes``
        (which is what ``jax.Array.tobytes`` calls)."""
        return self._host().tobytes(order)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """This array's memory for a DLPack consumer: shared and read-only under DLPack 1.0,
        a copy under the legacy protocol (numlir._src.dlpack)."""
        from numlir._src import dlpack

        return dlpack.export(self._host(), stream=stream, max_version=max_version,
                             dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        from numlir._src import dlpack

        return dlpack.CPU_DEVICE

    def __repr__(self):
        if self.is_deleted():
            return f"Array(<deleted>, shape={self.shape}, dtype={self.dtype.name})"
        prefix = "Array("
        body = np.array2string(self._host(), prefix=prefix, separator=", ")
        extra = f", dtype={self.dtype.name}" + (", weak_type=True" if self.weak_type else "")
        return f"{prefix}{body}{extra})"

    def __str__(self):
        return repr(self) if self.is_deleted() else str(self._host())


def _unpickle(value: np.ndarray, aval: core.ShapedArray) -> Array:
    return Array(np.array(value, order="C"), aval)


tree_util.register_leaf_type(Array)


def as_array(x):
    """``x`` itself if it is an Array or a tracer; otherwise a new Array holding it."""
    if isinstance(x, (Array, core.Tracer)):
        return x
    aval = core.get_aval(x)
    return Array(np.array(x, dtype=aval.dtype, order="C"), aval)
