"""The key API of numlir.random: PRNGKey, key, split, fold_in, bits, key_data, wrap_key_data.

Keys are raw ``uint32[2]`` arrays for both ``PRNGKey`` and ``key`` (numlir has no
typed key dtype yet); ``key_data`` and ``wrap_key_data`` convert between the two
views, which are the same array.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from numlir._src import core, dtypes, shapes
from numlir._src.jit import jit
from numlir._src.lax.elementwise import convert_element_type
from numlir._src.array import Array
from numlir._src.random import prng


def canonical_shape(name: str, shape) -> tuple[int, ...]:
    """A random function's ``shape``: a sequence, as JAX requires (not a bare int)."""
    if not isinstance(shape, (Sequence, core.Tracer)) and not (
            isinstance(shape, np.ndarray) and shape.ndim == 1):
        raise core.shape_error(f"{name}: shapes must be 1D sequences of concrete values of "
                               f"integer type, got {shape!r}")
    return shapes.canonicalize_shape(shape, name)


def PRNGKey(seed) -> Array:  # noqa: N802 - JAX's name
    """A PRNG key (a ``uint32[2]`` array) from an integer seed, bit-identical to jax's.

    A 64-bit seed ``s`` gives ``[s >> 32, s & 0xFFFFFFFF]``; Python ints go through
    int64 (and, without x64, wrap to int32, as in JAX).

    Example::

        >>> numlir.random.PRNGKey(42)
        Array([ 0, 42], dtype=uint32)
    """
    return _seed_jit(seed) if isinstance(seed, core.Tracer) else prng.seed_key(seed)


def key(seed) -> Array:
    """A PRNG key from an integer seed: the same ``uint32[2]`` array as ``PRNGKey``.

    JAX's ``jax.random.key`` returns a typed scalar key; numlir keeps the raw
    ``uint32[2]`` representation, so ``key_data(k)`` and ``wrap_key_data(d)``
    return their argument. Every numlir.random function accepts these keys.

    Example::

        >>> k = numlir.random.key(0)
        >>> numlir.random.uniform(k, (2,))
    """
    return PRNGKey(seed)


def key_data(keys) -> Array:
    """The ``uint32[..., 2]`` data of a key array (the key itself in numlir)."""
    return prng.check_key("key_data", keys, allow_batched=True)


def wrap_key_data(key_bits_array, *, impl=None) -> Array:
    """A key array from its ``uint32[..., 2]`` data (returned as is, after checking it).

    Example::

        >>> d = numlir.random.key_data(numlir.random.key(1))
        >>> numlir.random.wrap_key_data(d)
    """
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"numlir.random supports only the threefry2x32 PRNG, got impl={impl!r}")
    return prng.check_key("wrap_key_data", key_bits_array, allow_batched=True)


def key_impl(keys) -> str:
    """The PRNG implementation of ``keys``: always ``'threefry2x32'``."""
    prng.check_key("key_impl", keys, allow_batched=True)
    return "threefry2x32"


_seed_jit = jit(prng.seed_key)
_split_jit = jit(prng.split, static_argnums=1)
_fold_in_jit = jit(prng.fold_in)
_bits_jit = jit(prng.random_bits, static_argnums=(1, 2))


def split(key, num: int | Sequence[int] = 2) -> Array:
    """``num`` new keys (``uint32[num, 2]``; ``num`` may be a shape), as ``jax.random.split``.

    Example::

        >>> k1, k2 = numlir.random.split(numlir.random.PRNGKey(0))
    """
    key = prng.check_key("split", key)
    shape = canonical_shape("split", num) if isinstance(num, Sequence) else (int(num),)
    return _split_jit(key, shape)


def fold_in(key, data) -> Array:
    """A new key that is a deterministic function of ``key`` and the 32-bit integer ``data``.

    Example::

        >>> k = numlir.random.fold_in(numlir.random.PRNGKey(0), 7)
    """
    key = prng.check_key("fold_in", key)
    if np.ndim(data) if not isinstance(data, core.Tracer) else data.ndim:
        raise TypeError(f"fold_in accepts a scalar, but was given an array of shape "
                        f"{np.shape(data)} != (). Use a Python loop for several values.")
    if isinstance(data, core.Tracer) or isinstance(data, Array):
        data = convert_element_type(data, dtypes.uint32)
    else:
        # As JAX: a Python int must fit uint32 (OverflowError otherwise); NumPy values wrap.
        host = np.asarray(data, np.uint32) if isinstance(data, int) else np.asarray(data).astype(np.uint32)
        data = Array.from_host(host)
    return _fold_in_jit(key, data)


def bits(key, shape: Sequence[int] = (), dtype=None) -> Array:
    """Uniform random bits as unsigned integers (default uint32, or uint64 with x64).

    Example::

        >>> numlir.random.bits(numlir.random.PRNGKey(0), (3,))
    """
    key = prng.check_key("bits", key)
    dtype = dtypes.default_uint_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_unsigned_int(dtype):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    shape = canonical_shape("bits", shape)
    return _bits_jit(key, dtype.itemsize * 8, shape)


def clone(key) -> Array:
    """``key`` itself: numlir's keys are immutable arrays, so a clone is the same value
    (``jax.random.clone`` exists for jax's mutable key references)."""
    return prng.check_key("clone", key, allow_batched=True)


def key_dtype(impl_spec=None) -> np.dtype:
    """The dtype of numlir's keys: raw ``uint32`` words (numlir has no typed key dtype)."""
    if impl_spec not in (None, "threefry2x32"):
        raise ValueError(f"unknown PRNG implementation {impl_spec!r}; numlir has 'threefry2x32'")
    return np.dtype(np.uint32)
