"""Functions that work on the host, through NumPy: dtype queries (can_cast, isdtype), reading
and writing arrays (frombuffer, fromstring, fromiter, load, save, savez), printing
(array_repr, array_str, printoptions) and einsum_path."""

from __future__ import annotations

import numpy as np

from numlir._src import core
from numlir._src.numpy import creation
from numlir._src.numpy.array_api_info import KINDS
from numlir._src.numpy.util import dtype_of


def isdtype(dtype, kind) -> bool:
    """Whether ``dtype`` is of ``kind``: a dtype, one of the Array API's kind names, or a tuple."""
    dtype = np.dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if k not in KINDS:
                raise ValueError(f"Unrecognized {k=!r}")
            if KINDS[k](dtype):
                return True
        elif np.dtype(k) == dtype:
            return True
    return False


def can_cast(from_, to, casting: str = "safe") -> bool:
    """NumPy's casting rules between dtypes (or an array's dtype and a dtype)."""
    source = dtype_of(from_) if not isinstance(from_, (type, np.dtype, str)) else np.dtype(from_)
    return bool(np.can_cast(source, np.dtype(to), casting=casting))


def frombuffer(buffer, dtype=float, count: int = -1, offset: int = 0):
    """An array from the bytes of ``buffer``."""
    return creation.asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype=float, count: int = -1, *, sep: str):
    """An array from numbers in a text string separated by ``sep``."""
    return creation.asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromfile(file, dtype=float, count: int = -1, sep: str = "", offset: int = 0):
    """An array from a binary or text file, read on the host when called (jax.numpy refuses
    this; like frombuffer, under jit the contents become a constant of the trace)."""
    return creation.asarray(np.fromfile(file, dtype=dtype, count=count, sep=sep, offset=offset))


def fromiter(iterable, dtype, count: int = -1):
    """An array from the values of an iterable (read on the host)."""
    return creation.asarray(np.fromiter(iterable, dtype=dtype, count=count))


def load(file, *args, **kwargs):
    """``np.load``: ``.npy`` files give arrays; ``.npz`` archives stay NumPy's lazy mapping."""
    out = np.load(file, *args, **kwargs)
    return creation.asarray(out) if isinstance(out, np.ndarray) and out.dtype != object else out


def _host(a):
    if isinstance(a, core.Tracer):
        raise core.ConcretizationTypeError("saving or printing needs a concrete array, not a traced one")
    return np.asarray(a)


def save(file, arr, allow_pickle: bool = True):
    np.save(file, _host(arr), allow_pickle=allow_pickle)


def savez(file, *args, allow_pickle: bool = True, **kwds):
    np.savez(file, *[_host(a) for a in args], allow_pickle=allow_pickle, **{k: _host(v) for k, v in kwds.items()})


def array_str(a, max_line_width=None, precision=None, suppress_small=None) -> str:
    return np.array_str(_host(a), max_line_width, precision, suppress_small)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None) -> str:
    text = np.array_repr(_host(arr), max_line_width, precision, suppress_small)
    return "Array" + text[len("array"):] if text.startswith("array") else text


# numlir prints arrays through NumPy, so NumPy's print options are numlir's.
get_printoptions = np.get_printoptions
set_printoptions = np.set_printoptions
printoptions = np.printoptions


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """NumPy's contraction order for ``einsum(subscripts, *operands)``, from their shapes."""
    shaped = [np.empty(np.shape(o) if not isinstance(o, core.Tracer) else o.shape, np.float32) for o in operands]
    return np.einsum_path(subscripts, *shaped, optimize="greedy" if optimize == "auto" else optimize)
