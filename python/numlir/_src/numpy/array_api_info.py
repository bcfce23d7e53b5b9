"""The Python array API standard's inspection API for numlir.numpy: ``x.__array_namespace__()``
and ``numlir.numpy.__array_namespace_info__()`` (capabilities, default device, devices and
dtypes), as data-apis.org/array-api/2024.12 specifies them.

What they report follows numlir, not the standard's ideal: 64-bit dtypes are listed only while
``jax_enable_x64`` is on, and boolean indexing and data-dependent shapes (``unique``,
``nonzero``) are reported unsupported, as jax.numpy reports them, because they work on concrete
arrays but not under ``jit``.

Example::

    >>> import numlir.numpy as jnp
    >>> xp = jnp.ones(3).__array_namespace__()
    >>> xp.__array_namespace_info__().default_dtypes()["real floating"]
    dtype('float32')
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from numlir._src import device_queries, dtypes, placement

API_VERSION = "2024.12"
#: The versions ``__array_namespace__(api_version=...)`` accepts (NumPy accepts the same).
SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")

#: The standard's dtypes, in its order; 64-bit ones only exist with x64 (dtypes.py).
_STANDARD_DTYPES = tuple(np.dtype(name) for name in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128"))

#: The standard's dtype kinds (as ``isdtype`` reads them).
KINDS = {
    "bool": lambda d: d == dtypes.bool_,
    "signed integer": dtypes.is_signed_int,
    "unsigned integer": dtypes.is_unsigned_int,
    "integral": dtypes.is_int,
    "real floating": dtypes.is_float,
    "complex floating": dtypes.is_complex,
    "numeric": lambda d: dtypes.is_int(d) or dtypes.is_inexact(d),
}

_namespace: ModuleType | None = None


def register_namespace(module: ModuleType) -> None:
    """Called by numlir.numpy as it loads: the module ``__array_namespace__`` returns (the
    public package sits above this layer, so it registers itself, as numpy registers with lax)."""
    global _namespace
    _namespace = module


def array_namespace(self, /, *, api_version: str | None = None) -> ModuleType:
    """numlir.numpy, the array API namespace of numlir arrays (``x.__array_namespace__()``).

    ``api_version`` None means the newest version (2024.12); an unsupported one is a
    ValueError naming those supported."""
    if api_version is not None and api_version not in SUPPORTED_VERSIONS:
        raise ValueError(f"api_version={api_version!r} is not available; available versions "
                         f"are: {list(SUPPORTED_VERSIONS)}")
    return _namespace


class ArrayNamespaceInfo:
    """What ``numlir.numpy.__array_namespace_info__()`` returns: the standard's inspection API.

    Example::

        >>> info = numlir.numpy.__array_namespace_info__()
        >>> list(info.dtypes(kind="unsigned integer"))
        ['uint8', 'uint16', 'uint32']
    """

    def capabilities(self) -> dict:
        """Boolean indexing and data-dependent shapes work on concrete arrays only, not under
        jit, so both are False (as jax.numpy says); arrays hold at most NumPy's 64 axes."""
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}

    def default_device(self):
        """The device new arrays are made on (``numlir.default_device`` or the first device)."""
        return placement.current_default_device()

    def devices(self) -> list:
        """The devices of the default backend (``numlir.devices()``)."""
        return device_queries.devices()

    def default_dtypes(self, *, device=None) -> dict:
        """The default dtypes: 32-bit, or 64-bit while ``jax_enable_x64`` is on (the same on
        every device)."""
        del device
        return {"real floating": dtypes.default_float_dtype(),
                "complex floating": dtypes.default_complex_dtype(),
                "integral": dtypes.default_int_dtype(),
                "indexing": dtypes.default_int_dtype()}

    def dtypes(self, *, device=None, kind: str | tuple | None = None) -> dict:
        """The standard's dtypes numlir has now (no 64-bit ones without x64), by name, of
        ``kind``: None (all), a kind name ("integral", "real floating", ...) or a tuple of
        them. Every device has the same dtypes."""
        del device
        kinds = ("bool", "numeric") if kind is None else kind if isinstance(kind, tuple) else (kind,)
        for k in kinds:
            if k not in KINDS:
                raise ValueError(f"unsupported kind {k!r}: the kinds are {list(KINDS)}")
        return {d.name: d for d in _STANDARD_DTYPES
                if dtypes.canonicalize_dtype(d) == d and any(KINDS[k](d) for k in kinds)}


def array_namespace_info() -> ArrayNamespaceInfo:
    """numlir.numpy's ``__array_namespace_info__()``."""
    return ArrayNamespaceInfo()

