"""Dtypes and JAX's type-promotion lattice, with weak types.

Python scalars are *weakly typed*: ``x_f16 + 1.0`` stays float16 because the
Python float only fixes the kind (float), not the width. The lattice below is
JAX's (see the JAX design note "type promotion semantics"); ``promote_types``
is its least upper bound. With x64 off (the default), 64-bit types are
canonicalized to their 32-bit counterparts on the way in, as JAX does.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from numlir._src import config
from numlir._src.source_info import with_location

try:  # ml_dtypes ships with jax; bfloat16 is only available when it is installed.
    import ml_dtypes

    bfloat16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    ml_dtypes = None
    bfloat16 = None

bool_ = np.dtype(np.bool_)
# The (empty) tangent and cotangent dtype of integer and boolean values, as jax.dtypes.float0:
# grad(..., allow_int=True) returns zeros of this dtype for integer inputs.
float0 = np.dtype([("float0", np.void, 0)])
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)

_signed = (int8, int16, int32, int64)
_unsigned = (uint8, uint16, uint32, uint64)
_floats = tuple(t for t in (float16, bfloat16, float32, float64) if t is not None)
_complexes = (complex64, complex128)
SUPPORTED_DTYPES: tuple[np.dtype, ...] = (bool_, *_signed, *_unsigned, *_floats, *_complexes)


#: Each dtype and the MLIR element type that spells it in hlo text (``tensor<4xf32>``), in
#: executables' signatures and in the runtime's buffer specs: the one table of the two names.
_MLIR_ELEMENT_TYPES: dict[np.dtype, str] = {
    bool_: "i1", int8: "i8", int16: "i16", int32: "i32", int64: "i64",
    uint8: "ui8", uint16: "ui16", uint32: "ui32", uint64: "ui64",
    float16: "f16", float32: "f32", float64: "f64",
    complex64: "complex<f32>", complex128: "complex<f64>",
    **({bfloat16: "bf16"} if bfloat16 is not None else {}),
}
_FROM_MLIR_ELEMENT_TYPES = {name: dtype for dtype, name in _MLIR_ELEMENT_TYPES.items()}


def mlir_element_type(dtype) -> str:
    """``f32``, ``i1``, ``ui8``, ``bf16``...: the MLIR element type of ``dtype``."""
    return _MLIR_ELEMENT_TYPES[np.dtype(dtype)]


def from_mlir_element_type(name: str) -> np.dtype:
    """The dtype of MLIR element type ``name`` (``"f32"`` -> float32)."""
    try:
        return _FROM_MLIR_ELEMENT_TYPES[name]
    except KeyError:
        raise ValueError(f"no numlir dtype has the MLIR element type {name!r}") from None


def x64_enabled() -> bool:
    return bool(config.flags.enable_x64)


def is_float(dtype) -> bool:
    dtype = np.dtype(dtype)
    return dtype in _floats


def is_complex(dtype) -> bool:
    return np.dtype(dtype) in _complexes


def is_inexact(dtype) -> bool:
    """Float or complex: the dtypes that have tangents and that ``x / y`` keeps."""
    dtype = np.dtype(dtype)
    return dtype in _floats or dtype in _complexes


def complex_part_dtype(dtype) -> np.dtype:
    """The float of a complex dtype's parts (complex64 -> float32); a float stays itself."""
    dtype = np.dtype(dtype)
    return {complex64: float32, complex128: float64}.get(dtype, dtype)


def complex_dtype_of(dtype) -> np.dtype:
    """The complex dtype a value of ``dtype`` becomes (as jax's ``to_complex_dtype``: float64
    and 64-bit ints give complex128, everything else complex64; canonicalized)."""
    dtype = np.dtype(dtype)
    if dtype in _complexes:
        return canonicalize_dtype(dtype)
    return canonicalize_dtype(complex128 if to_inexact_dtype(dtype) == float64 else complex64)


def is_signed_int(dtype) -> bool:
    return np.dtype(dtype) in _signed


def is_unsigned_int(dtype) -> bool:
    return np.dtype(dtype) in _unsigned


def is_int(dtype) -> bool:
    return is_signed_int(dtype) or is_unsigned_int(dtype)


def is_bool(dtype) -> bool:
    return np.dtype(dtype) == bool_


def short_name(dtype) -> str:
    """``f32``, ``i8``, ``u32``, ``c64``, ``bool``, ``bf16``: the names used in graph printing."""
    dtype = np.dtype(dtype)
    if dtype == bool_:
        return "bool"
    if dtype == bfloat16:
        return "bf16"
    return {"f": "f", "i": "i", "u": "u", "c": "c"}[dtype.kind] + str(dtype.itemsize * 8)


def canonicalize_dtype(dtype) -> np.dtype:
    """Map a dtype to the one numlir computes in (64-bit → 32-bit unless x64 is on)."""
    try:
        dtype = np.dtype(dtype)
    except TypeError as error:  # NumPy's message names the value but not the call
        raise TypeError(with_location(f"{dtype!r:.60} is not a valid dtype ({error})")) from None
    if dtype not in SUPPORTED_DTYPES:
        raise TypeError(with_location(
            f"numlir does not support dtype {dtype}; supported: "
            f"{', '.join(sorted(d.name for d in SUPPORTED_DTYPES))}"))
    if not x64_enabled():
        dtype = {int64: int32, uint64: uint32, float64: float32,
                 complex128: complex64}.get(dtype, dtype)
    return dtype


def default_float_dtype() -> np.dtype:
    return float64 if x64_enabled() else float32


def default_complex_dtype() -> np.dtype:
    return complex128 if x64_enabled() else complex64


def to_inexact_dtype(dtype) -> np.dtype:
    """The float an integer or bool dtype promotes to where an op needs
    floats (``x / y``, ``sqrt``, ``mean``): as in jax, ints of up to 32 bits
    become float32 and 64-bit ints float64, x64 or not; floats and complex stay."""
    dtype = np.dtype(dtype)
    if is_inexact(dtype):
        return dtype
    return canonicalize_dtype(float64 if dtype.itemsize == 8 else float32)


def default_int_dtype() -> np.dtype:
    return int64 if x64_enabled() else int32


def default_uint_dtype() -> np.dtype:
    return uint64 if x64_enabled() else uint32


# --- The promotion lattice ---------------------------------------------------
# Nodes are dtypes plus the three weak kinds "i*" (Python int), "f*" (Python
# float) and "c*" (Python complex). A weak bool does not exist: Python bools are
# strongly typed.
_WEAK_INT, _WEAK_FLOAT, _WEAK_COMPLEX = "i*", "f*", "c*"
_WEAK_KINDS = (_WEAK_INT, _WEAK_FLOAT, _WEAK_COMPLEX)


def _lattice_edges(x64: bool) -> dict[Any, list[Any]]:
    edges: dict[Any, list[Any]] = {
        bool_: [_WEAK_INT],
        _WEAK_INT: [uint8, int8],
        uint8: [int16, uint16],
        uint16: [int32, uint32],
        # Without x64, no promotion forms a 64-bit type from 32-bit inputs (as in JAX).
        uint32: [int64, uint64] if x64 else [int32, uint64],
        uint64: [_WEAK_FLOAT],
        int8: [int16],
        int16: [int32],
        int32: [int64],
        int64: [_WEAK_FLOAT],
        _WEAK_FLOAT: [float16, _WEAK_COMPLEX] + ([bfloat16] if bfloat16 is not None else []),
        float16: [float32],
        float32: [float64, complex64],
        float64: [complex128],
        _WEAK_COMPLEX: [complex64],
        complex64: [complex128],
        complex128: [],
    }
    if bfloat16 is not None:
        edges[bfloat16] = [float32]
    return edges


@functools.lru_cache(maxsize=None)
def _upper_bounds(x64: bool) -> dict[Any, frozenset]:
    edges = _lattice_edges(x64)
    bounds: dict[Any, frozenset] = {}

    def visit(node):
        if node not in bounds:
            acc = {node}
            for nxt in edges[node]:
                acc |= visit(nxt)
            bounds[node] = frozenset(acc)
        return bounds[node]

    for node in edges:
        visit(node)
    return bounds


def _lattice_node(dtype: np.dtype, weak: bool):
    if not weak or dtype == bool_:
        return dtype
    if is_complex(dtype):
        return _WEAK_COMPLEX
    return _WEAK_FLOAT if is_float(dtype) else _WEAK_INT


def _join(a, b):
    return _join_cached(a, b, x64_enabled())


@functools.lru_cache(maxsize=None)
def _join_cached(a, b, x64: bool):
    bounds = _upper_bounds(x64)
    common = bounds[a] & bounds[b]
    # The least upper bound: the common bound whose own upper bounds cover all the others.
    least = [c for c in common if common <= bounds[c]]
    assert len(least) == 1, (a, b, common)
    return least[0]


def promote_types(a, b) -> np.dtype:
    """The promoted (strong) dtype of two dtypes, as ``jax.numpy.promote_types``.

    As in JAX the result is not canonicalized (``int64, int8`` gives int64 even
    without x64), and a mixed signed/unsigned pair that needs a float gives float64.
    """
    node = _join(np.dtype(a), np.dtype(b))
    return {_WEAK_INT: int64, _WEAK_FLOAT: float64, _WEAK_COMPLEX: complex128}.get(node, node)


def _node_dtype(node) -> np.dtype:
    if node == _WEAK_INT:
        return default_int_dtype()
    if node == _WEAK_FLOAT:
        return default_float_dtype()
    if node == _WEAK_COMPLEX:
        return default_complex_dtype()
    return node


def result_type(*args: tuple[np.dtype, bool]) -> tuple[np.dtype, bool]:
    """Promote ``(dtype, weak_type)`` pairs; returns the result ``(dtype, weak_type)``.

    A result is weak only when every input is weak (then it keeps the kind, e.g.
    a Python float and a weak float32 give a weak float32).
    """
    if not args:
        raise TypeError("result_type needs at least one argument")
    node = _lattice_node(*args[0])
    for dtype, weak in args[1:]:
        node = _join(node, _lattice_node(dtype, weak))
    if node in _WEAK_KINDS:
        # All the operands that decided the kind are weak: keep the widest weak
        # operand's dtype of that kind, else the default.
        same_kind = [d for d, w in args if w and _lattice_node(d, w) == node]
        dtype = same_kind[0] if same_kind else _node_dtype(node)
        for d in same_kind[1:]:
            if d.itemsize > dtype.itemsize:
                dtype = d
        return canonicalize_dtype(dtype), True
    return canonicalize_dtype(node), False


def dtype_of_python_scalar(x) -> np.dtype:
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return default_int_dtype()
    if isinstance(x, float):
        return default_float_dtype()
    if isinstance(x, complex):
        return default_complex_dtype()
    raise TypeError(f"not a Python scalar: {type(x).__name__}")


@functools.lru_cache(maxsize=None)
def _int_bounds(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def check_python_int(x: int, dtype: np.dtype, default: bool = False) -> None:
    """OverflowError (at the user's line) if Python int ``x`` does not fit integer ``dtype``
    (``default``: the dtype was chosen as the default int, so x64 would widen it)."""
    low, high = _int_bounds(dtype)
    if not low <= x <= high:
        hint = ("; numlir.config.update('jax_enable_x64', True) makes Python ints int64"
                if default and not x64_enabled() else "")
        raise OverflowError(with_location(
            f"Python int {x} too {'large' if x > high else 'small'} to convert to {dtype.name} "
            f"(its range is {low} to {high}{hint})"))


def python_scalar_to_numpy(x, dtype: np.dtype) -> np.ndarray:
    """Python scalar ``x`` as a 0-d array of ``dtype``, refusing values that do not fit (as JAX),
    instead of NumPy's wrap-around or its bare OverflowError."""
    if type(x) is int and dtype.kind in "iu":
        check_python_int(x, dtype)
    try:
        return np.asarray(x, dtype=dtype)
    except OverflowError:
        raise OverflowError(with_location(
            f"Python {type(x).__name__} {x} too large to convert to {dtype.name}")) from None


def is_python_scalar(x) -> bool:
    return type(x) in (bool, int, float, complex)


def is_weak_python_scalar(x) -> bool:
    return type(x) in (int, float, complex)


# --- finfo / iinfo / issubdtype (numlir.numpy's, as jnp's) ---------------------------------------


def _dtype_arg(x) -> np.dtype:
    if isinstance(x, (type, np.dtype, str)):
        return np.dtype(x)
    return np.dtype(x.dtype)  # an array or a NumPy scalar


def finfo(dtype):
    """Machine limits of a float dtype (float16, bfloat16, float32, float64), as ``jnp.finfo``.

    Example::

        >>> numlir.numpy.finfo(numlir.numpy.bfloat16).eps
        0.0078125
    """
    if ml_dtypes is not None:
        return ml_dtypes.finfo(_dtype_arg(dtype))
    return np.finfo(_dtype_arg(dtype))


def iinfo(dtype):
    """Machine limits of an integer dtype, as ``jnp.iinfo``: ``iinfo(np.int8).max == 127``."""
    return np.iinfo(_dtype_arg(dtype))


def issubdtype(arg1, arg2) -> bool:
    """``np.issubdtype`` that also places bfloat16 under ``np.floating`` (as ``jnp.issubdtype``)."""
    if bfloat16 is not None and isinstance(arg2, type) and issubclass(arg2, np.generic):
        try:
            if np.dtype(arg1) == bfloat16:
                return arg2 in (np.floating, np.inexact, np.number, np.generic) or arg2 is bfloat16.type
        except TypeError:
            pass
    return bool(np.issubdtype(arg1, arg2))
