"""The process's table of host callbacks: what ``hlo.host_callback id = N`` calls.

A compiled module names a callback by an id that only this process knows
(docs/runtime.md#host-callbacks). ``register`` hands out the ids: the same
callable with the same operand and result types gets the same id, so a
function traced again lowers to the same text and hits the executable cache.
The runtime calls ``dispatch`` (through numlir._runtime, with the GIL) with one
address per buffer; it copies the operands into NumPy arrays, calls the
Python function, checks its results against the declared shapes and dtypes
and writes them into the result buffers. An exception stops the executable
and is raised again from the call that ran it.

Example::

    ident = register(lambda x: [x * 2], [ShapedArray((2,), np.float32)],
                     [ShapedArray((2,), np.float32)])
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numlir._src import core

_lock = threading.Lock()
#: id -> (function, operand avals, result avals)
_table: list[tuple[Callable, tuple[core.ShapedArray, ...], tuple[core.ShapedArray, ...]]] = []
_ids: dict[Any, int] = {}
_installed = False


def register(function: Callable[..., Sequence[Any]], operand_avals: Sequence[core.ShapedArray],
             result_avals: Sequence[core.ShapedArray]) -> int:
    """The id under which executables call ``function(*operands) -> results`` (a sequence
    of arrays of ``result_avals``' shapes and dtypes)."""
    entry = (function, tuple(operand_avals), tuple(result_avals))
    try:
        key = entry
        hash(key)
    except TypeError:  # an unhashable callable: an id of its own each time
        key = None
    global _installed
    with _lock:
        if key is not None and key in _ids:
            return _ids[key]
        ident = len(_table)
        _table.append(entry)
        if key is not None:
            _ids[key] = ident
        if not _installed:
            from numlir import _runtime  # the native extension loads on first use

            _runtime.set_host_callback_dispatcher(dispatch)
            _installed = True
    return ident


def _buffer(address: int, aval: core.ShapedArray) -> np.ndarray:
    """A writable NumPy view of the dense buffer at ``address``."""
    dtype = np.dtype(aval.dtype)
    nbytes = dtype.itemsize * int(np.prod(aval.shape, dtype=np.int64))
    if nbytes == 0:
        return np.empty(aval.shape, dtype)
    raw = (ctypes.c_char * nbytes).from_address(address)
    return np.frombuffer(raw, dtype=dtype).reshape(aval.shape)


def check_results(results: Any, result_avals: Sequence[core.ShapedArray]) -> list[np.ndarray]:
    """``results`` as NumPy arrays, checked against ``result_avals`` (as jax's messages)."""
    results = list(results)
    if len(results) != len(result_avals):
        raise RuntimeError("Mismatched number of outputs from callback. "
                           f"Expected: {len(result_avals)}, Actual: {len(results)}")
    arrays = []
    for i, (value, aval) in enumerate(zip(results, result_avals)):
        value = np.asarray(value)
        if value.shape != tuple(aval.shape):
            raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                               f"Expected: {tuple(aval.shape)}, Actual: {value.shape}")
        if value.dtype != np.dtype(aval.dtype):
            raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                               f"Expected: {np.dtype(aval.dtype)}, Actual: {value.dtype}")
        arrays.append(value)
    return arrays


def dispatch(ident: int, operand_addresses: Sequence[int], result_addresses: Sequence[int]) -> None:
    """Runs callback ``ident`` on the buffers at the given addresses (called by the runtime)."""
    function, operand_avals, result_avals = _table[ident]
    operands = [_buffer(a, aval).copy() for a, aval in zip(operand_addresses, operand_avals)]
    results = check_results(function(*operands), result_avals)
    for address, value, aval in zip(result_addresses, results, result_avals):
        if value.size:
            np.copyto(_buffer(address, aval), value)
