"""threefry2x32 and PRNG keys: seeding, split, fold_in and random bits, bit-for-bit as JAX.

A key is a raw ``uint32[2]`` array (a batch of keys is ``uint32[..., 2]``), the
representation of ``jax.random.PRNGKey``. The bits follow JAX's default
``jax_threefry_partitionable=True`` mode: element ``i`` (row-major) of a
random-bits array of any shape, and subkey ``i`` of ``split``, is
``threefry2x32(key, (0, i))``.

Rotations are written as multiply/divide by powers of two (``x * 2**r | x // 2**(32-r)``
on uint32); LLVM turns these into shifts, so this is the same machine code
without depending on shift ops in the hlo dialect.
"""

from __future__ import annotations

import math

import numpy as np

from numlir._src import ad, batching, core, dtypes
from numlir._src.array import Array
from numlir._src.lax import elementwise as ew
from numlir._src.lax import reduction, shape_ops
from numlir._src.lax import type_checks as tc

UINT_DTYPES = {8: dtypes.uint8, 16: dtypes.uint16, 32: dtypes.uint32, 64: dtypes.uint64}

# --- the threefry2x32 primitive --------------------------------------------------------

threefry2x32_p = core.Primitive("threefry2x32")
threefry2x32_p.multiple_results = True

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KS_PARITY = 0x1BD11BDA


@threefry2x32_p.def_abstract_eval
def _threefry2x32_abstract_eval(k1, k2, x1, x2):
    for a in (k1, k2, x1, x2):
        if a.dtype != dtypes.uint32:
            raise core.shape_error(
                f"threefry2x32 requires uint32 arguments, got {[b.dtype.name for b in (k1, k2, x1, x2)]}")
    shape = tc.broadcasting_shape("threefry2x32", [k1, k2, x1, x2])
    out = core.ShapedArray(shape, dtypes.uint32)
    return out, out


@threefry2x32_p.def_lowering
def _threefry2x32_lowering(ctx, k1, k2, x1, x2):
    aval = ctx.avals_out[0]
    t = ctx.type_out()
    k1, k2, x1, x2 = (ctx.broadcast_to(v, a, aval.shape) for v, a in zip((k1, k2, x1, x2), ctx.avals_in))
    consts: dict[int, str] = {}

    def const(v: int) -> str:
        if v not in consts:
            consts[v] = ctx.constant(np.full(aval.shape, v, np.uint32))
        return consts[v]

    def op(name: str, a: str, b: str) -> str:
        return ctx.emit(f"hlo.{name} {a}, {b} : {t}")

    def rotate_left(v: str, r: int) -> str:
        return op("or", op("multiply", v, const(1 << r)), op("divide", v, const(1 << (32 - r))))

    ks = [k1, k2, op("xor", op("xor", k1, k2), const(_KS_PARITY))]
    x = [op("add", x1, ks[0]), op("add", x2, ks[1])]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x[0] = op("add", x[0], x[1])
            x[1] = op("xor", x[0], rotate_left(x[1], r))
        x[0] = op("add", x[0], ks[(i + 1) % 3])
        x[1] = op("add", op("add", x[1], ks[(i + 2) % 3]), const(i + 1))
    return x


batching.defbroadcasting(threefry2x32_p)
ad.defzero(threefry2x32_p)  # integer bits: no tangent, so grad through sampling works


def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 block cipher (20 rounds) on uint32 arrays; broadcasts lax-style.

    Returns the two uint32 output words, as JAX's ``threefry2x32_p``.
    """
    return threefry2x32_p.bind(k1, k2, x1, x2)


# --- helpers on the last axis (no slicing ops needed) -------------------------------------


def _u32(v) -> Array:
    return Array.from_host(np.asarray(v, np.uint32))


def key_halves(keys):
    """``(keys[..., 0], keys[..., 1])`` for a uint32[..., 2] key array."""
    aval = core.get_aval(keys)
    last = aval.ndim - 1
    iota = shape_ops.broadcasted_iota(dtypes.uint32, aval.shape, last)
    zero = _u32(0)
    return tuple(reduction.reduce_max(ew.select(ew.eq(iota, _u32(i)), keys, zero), (last,))
                 for i in (0, 1))


def stack_halves(hi, lo):
    """The uint32[..., 2] key array with halves ``hi`` and ``lo`` (of equal shapes)."""
    shape = core.get_aval(hi).shape + (2,)
    dims = tuple(range(len(shape) - 1))
    hi = shape_ops.broadcast_in_dim(hi, shape, dims)
    lo = shape_ops.broadcast_in_dim(lo, shape, dims)
    iota = shape_ops.broadcasted_iota(dtypes.uint32, shape, len(shape) - 1)
    return ew.select(ew.eq(iota, _u32(0)), hi, lo)


def _counts(shape: tuple[int, ...]):
    """uint32 ``iota(prod(shape)).reshape(shape)``: the low word of each element's counter."""
    if math.prod(shape) > 2**32:
        raise NotImplementedError("random bits arrays of more than 2**32 elements")
    if not shape:
        return _u32(0)
    return shape_ops.reshape(shape_ops.iota(dtypes.uint32, math.prod(shape)), shape)


# --- keys ----------------------------------------------------------------------------------


def check_key(name: str, key, allow_batched: bool = False):
    """``key`` as an array, after checking it is a uint32[2] key (or uint32[..., 2] if batched)."""
    try:
        aval = core.get_aval(key)
    except TypeError:
        raise core.shape_error(f"{name}: unexpected PRNG key type {type(key).__name__}") from None
    if aval.dtype != dtypes.uint32 or not aval.shape or aval.shape[-1] != 2:
        raise core.shape_error(
            f"{name} requires a PRNG key: a uint32 array of shape (2,) from numlir.random.PRNGKey, "
            f"key, split or fold_in; got {aval.str_short()}")
    if not allow_batched and aval.ndim != 1:
        raise core.value_error(
            f"{name} accepts a single key, but was given a key array of shape "
            f"{aval.shape[:-1]} != (). Use a Python loop (vmap is not supported yet).")
    if isinstance(key, np.ndarray):
        return Array.from_host(key)
    return key


def _host_seed_words(seed) -> np.ndarray:
    dtype = np.asarray(seed).dtype
    value = int(np.asarray(seed))
    hi = (value % 2**64) >> 32 if dtype.itemsize == 8 else 0
    return np.array([hi, value % 2**32], np.uint32)


def seed_key(seed, ctor_name: str = "PRNGKey"):
    """JAX's threefry seeding: a 64-bit seed becomes ``[seed >> 32, seed & 0xFFFFFFFF]``."""
    if isinstance(seed, int) and not isinstance(seed, bool):
        # As JAX: Python ints go through int64 (OverflowError past its range) and, without
        # x64, wrap to int32, so large Python hashes still work as seeds.
        seed = np.asarray(np.int64(seed)).astype(dtypes.canonicalize_dtype(np.int64))
    aval = core.get_aval(seed)
    if aval.shape:
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of shape "
                        f"{aval.shape} != (). Use a Python loop to make several keys.")
    if not dtypes.is_int(aval.dtype):
        raise TypeError(f"PRNG key seed must be an integer; got {aval.str_short()}")
    if not isinstance(seed, core.Tracer):
        return Array.from_host(_host_seed_words(core.concrete_to_numpy(seed)))
    if aval.dtype.itemsize == 8:
        as_u64 = ew.convert_element_type(seed, dtypes.uint64)
        hi = ew.convert_element_type(ew.div(as_u64, Array.from_host(np.uint64(2**32))),
                                      dtypes.uint32)
        lo = ew.convert_element_type(as_u64, dtypes.uint32)
    else:
        wide = dtypes.int32 if dtypes.is_signed_int(aval.dtype) else dtypes.uint32
        lo = ew.convert_element_type(ew.convert_element_type(seed, wide), dtypes.uint32)
        hi = _u32(0)
    return stack_halves(hi, lo)


def split(key, shape: tuple[int, ...]):
    """Keys of ``shape`` (a uint32[*shape, 2] array): key ``i`` is ``threefry2x32(key, (0, i))``."""
    k1, k2 = key_halves(key)
    bits1, bits2 = threefry2x32(k1, k2, _u32(0), _counts(shape))
    return stack_halves(bits1, bits2)


def split_list(key, num: int) -> list:
    """``split(key, (num,))`` as a list of keys, without indexing."""
    k1, k2 = key_halves(key)
    return [stack_halves(*threefry2x32(k1, k2, _u32(0), _u32(i))) for i in range(num)]


def fold_in(key, data):
    """``threefry2x32(key, seed(uint32(data)))``; data is a 32-bit scalar."""
    k1, k2 = key_halves(key)
    return stack_halves(*threefry2x32(k1, k2, _u32(0), data))


def random_bits(key, bit_width: int, shape: tuple[int, ...]):
    """Uniform unsigned integers of ``bit_width`` bits and ``shape``, as jax's ``random_bits``."""
    if bit_width not in UINT_DTYPES:
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    k1, k2 = key_halves(key)
    bits1, bits2 = threefry2x32(k1, k2, _u32(0), _counts(shape))
    if bit_width == 64:
        u64 = dtypes.canonicalize_dtype(dtypes.uint64)
        if u64 != dtypes.uint64:
            raise TypeError("64-bit random bits need jax_enable_x64")
        hi = ew.convert_element_type(bits1, u64)
        lo = ew.convert_element_type(bits2, u64)
        return ew.bitwise_or(ew.mul(hi, Array.from_host(np.uint64(2**32))), lo)
    bits = ew.bitwise_xor(bits1, bits2)
    if bit_width < 32:
        bits = ew.convert_element_type(bits, UINT_DTYPES[bit_width])
    return bits
