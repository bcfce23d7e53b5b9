"""lax's bit generators: rng_bit_generator (a stateless counter-based generator keyed by
an array) and rng_uniform (a stateful one), with the RandomAlgorithm enum.

A key (uint32[4], or uint64[2] read as the same four little-endian words) is a block
cipher key (words 0, 1) and a 64-bit counter (words 2, 3, low first). The bits are the
cipher applied to the counters ``counter, counter + 1, ...``, and the returned key holds
the counter just past the blocks used, so a chain of calls never repeats a block.
``RNG_THREE_FRY`` and ``RNG_DEFAULT`` use Threefry-2x32 (20 rounds; two words per
block), ``RNG_PHILOX`` Philox-4x32-10 (four words per block). XLA's bits for a key
differ: XLA's layout of key and counter is its own.

The ciphers are lax integer arithmetic (rotations as shifts); ``rng_bit_generator_p``
lowers to them inline, so it runs eagerly, under jit and vmap (with JAX's batching: the
first key draws the bits of the whole batch), and has no derivative.
"""

from __future__ import annotations

import enum
import itertools
import math
import operator
import threading

import numpy as np

from numlir._src import ad, batching, core, dtypes
from numlir._src.jit import jit
from numlir._src.lax import bits, shape_ops, slicing
from numlir._src.lax import elementwise as ew
from numlir._src.lax.float_math import nextafter
from numlir._src.lax.mulhi import mulhi


class RandomAlgorithm(enum.IntEnum):
    """Describes which PRNG algorithm to use for rng_bit_generator."""

    RNG_DEFAULT = 0
    "The platform's default algorithm (Threefry-2x32 here)."

    RNG_THREE_FRY = 1
    "The Threefry-2x32 PRNG algorithm."

    RNG_PHILOX = 2
    "The Philox-4x32 PRNG algorithm."

    def __str__(self):
        return self.name


_BITS_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.uint64))


def _u32(value):
    return ew.convert_element_type(np.asarray(value, np.uint32), np.dtype(np.uint32))


def _rotate_left(x, r: int):
    return ew.bitwise_or(bits.shift_left(x, _u32(r)), bits.shift_right_logical(x, _u32(32 - r)))


def _threefry2x32(k0, k1, x0, x1):
    """Threefry-2x32, 20 rounds (Salmon et al. 2011), as jax.random's: two uint32 words."""
    ks = (k0, k1, ew.bitwise_xor(ew.bitwise_xor(k0, k1), _u32(0x1BD11BDA)))
    x0, x1 = ew.add(x0, ks[0]), ew.add(x1, ks[1])
    for i in range(5):
        for r in ((13, 15, 26, 6), (17, 29, 16, 24))[i % 2]:
            x0 = ew.add(x0, x1)
            x1 = ew.bitwise_xor(x0, _rotate_left(x1, r))
        x0 = ew.add(x0, ks[(i + 1) % 3])
        x1 = ew.add(ew.add(x1, ks[(i + 2) % 3]), _u32(i + 1))
    return x0, x1


def _philox4x32(k0, k1, c0, c1, c2, c3):
    """Philox-4x32, 10 rounds (Salmon et al. 2011, Random123's constants): four words."""
    m0, m1 = _u32(0xD2511F53), _u32(0xCD9E8D57)
    for i in range(10):
        if i:
            k0, k1 = ew.add(k0, _u32(0x9E3779B9)), ew.add(k1, _u32(0xBB67AE85))
        hi0, lo0 = mulhi(m0, c0), ew.mul(m0, c0)
        hi1, lo1 = mulhi(m1, c2), ew.mul(m1, c2)
        c0, c1, c2, c3 = (ew.bitwise_xor(ew.bitwise_xor(hi1, c1), k0), lo1,
                          ew.bitwise_xor(ew.bitwise_xor(hi0, c3), k1), lo0)
    return c0, c1, c2, c3


def _add64(lo, hi, n):
    """(lo, hi) + n (uint32 words of a 64-bit counter; n a uint32 array or scalar)."""
    new_lo = ew.add(lo, n)
    carry = ew.convert_element_type(ew.lt(new_lo, lo), np.dtype(np.uint32))
    return new_lo, ew.add(hi, carry)


def _key_words(key):
    """The four uint32 words of a uint32[4] or uint64[2] key."""
    aval = core.get_aval(key)
    if aval.dtype == np.uint32:
        return [slicing.index_in_dim(key, i, 0, keepdims=False) for i in range(4)]
    words = []
    for i in range(2):
        x = slicing.index_in_dim(key, i, 0, keepdims=False)
        low = ew.bitwise_and(x, ew.convert_element_type(np.uint64(0xFFFFFFFF), aval.dtype))
        high = bits.shift_right_logical(x, ew.convert_element_type(np.uint64(32), aval.dtype))
        words += [ew.convert_element_type(w, np.dtype(np.uint32)) for w in (low, high)]
    return words


def _key_from_words(words, dtype):
    if dtype == np.uint32:
        return slicing.concatenate([shape_ops.reshape(w, (1,)) for w in words], 0)
    u64 = np.dtype(np.uint64)
    halves = []
    for low, high in (words[:2], words[2:]):
        high = bits.shift_left(ew.convert_element_type(high, u64),
                               ew.convert_element_type(np.uint64(32), u64))
        halves.append(shape_ops.reshape(ew.bitwise_or(high, ew.convert_element_type(low, u64)),
                                        (1,)))
    return slicing.concatenate(halves, 0)


def _random_words(key, count: int, algorithm):
    """(new key, ``count`` uint32 words) from ``key``."""
    k0, k1, lo, hi = _key_words(key)
    per_block = 4 if algorithm == RandomAlgorithm.RNG_PHILOX else 2
    blocks = -(-count // per_block)
    if blocks >= 2**32:
        raise NotImplementedError("rng_bit_generator: more than 2**32 blocks of random bits")
    if blocks:
        block_lo, block_hi = _add64(lo, hi, shape_ops.iota(np.dtype(np.uint32), blocks))
        if per_block == 4:
            zero = shape_ops.full((blocks,), 0, np.dtype(np.uint32))
            outs = _philox4x32(k0, k1, block_lo, block_hi, zero, zero)
        else:
            outs = _threefry2x32(k0, k1, block_lo, block_hi)
        words = slicing.concatenate([shape_ops.reshape(o, (blocks, 1)) for o in outs], 1)
        words = slicing.slice(shape_ops.reshape(words, (blocks * per_block,)), (0,), (count,))
    else:
        words = shape_ops.full((0,), 0, np.dtype(np.uint32))
    new_lo, new_hi = _add64(lo, hi, _u32(blocks % 2**32))
    return _key_from_words([k0, k1, new_lo, new_hi], core.get_aval(key).dtype), words


def _random_bits(key, shape: tuple[int, ...], dtype: np.dtype, algorithm):
    """(new key, bits of ``shape`` and unsigned ``dtype``)."""
    size = math.prod(shape)
    wide = dtype.itemsize == 8
    new_key, words = _random_words(key, size * (2 if wide else 1), algorithm)
    if wide:
        u64 = np.dtype(np.uint64)
        pairs = shape_ops.reshape(words, (size, 2))
        low, high = (ew.convert_element_type(slicing.index_in_dim(pairs, i, 1, keepdims=False), u64)
                     for i in (0, 1))
        values = ew.bitwise_or(bits.shift_left(high, ew.convert_element_type(np.uint64(32), u64)),
                               low)
    elif dtype.itemsize < 4:
        mask = _u32((1 << (8 * dtype.itemsize)) - 1)
        values = ew.convert_element_type(ew.bitwise_and(words, mask), dtype)
    else:
        values = words
    return new_key, shape_ops.reshape(values, shape)


# --- rng_bit_generator ------------------------------------------------------------------------

rng_bit_generator_p = core.Primitive("rng_bit_generator")
rng_bit_generator_p.multiple_results = True


@rng_bit_generator_p.def_abstract_eval
def _rng_bit_generator_abstract_eval(key, *, shape, dtype, algorithm):
    return key, core.ShapedArray(shape, dtype)


@rng_bit_generator_p.def_lowering
def _rng_bit_generator_lowering(ctx, key, *, shape, dtype, algorithm):
    graph = core.trace_to_graph(lambda k: list(_random_bits(k, shape, dtype, algorithm)),
                                [ctx.avals_in[0]])
    return ctx.inline(graph, [key])


def _rng_bit_generator_batch(axis_size, args, dims, *, shape, dtype, algorithm):
    # As JAX's rule: the first key draws the bits of every example, and only it advances.
    (keys,), (dim,) = args, dims
    keys = batching.moveaxis(keys, dim, 0)
    first = slicing.index_in_dim(keys, 0, 0, keepdims=False)
    new_key, values = rng_bit_generator_p.bind(first, shape=(axis_size,) + shape, dtype=dtype,
                                               algorithm=algorithm)
    keys = slicing.dynamic_update_index_in_dim(keys, new_key, 0, 0)
    return [keys, values], [0, 0]


ad.defzero(rng_bit_generator_p)
batching.defrule(rng_bit_generator_p, _rng_bit_generator_batch)


def _check_key(name: str, key):
    aval = core.get_aval(key)
    if not ((aval.shape == (4,) and aval.dtype == np.uint32)
            or (aval.shape == (2,) and aval.dtype == np.uint64)):
        raise TypeError(f"{name}: the key must be a uint32[4] or uint64[2] array, got "
                        f"{aval.str_short()}")


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """(new_key, bits): uniformly random bits of ``shape`` and unsigned ``dtype`` from
    ``key`` (uint32[4] or uint64[2]), and the key to draw the next bits from. The same
    key gives the same bits, eagerly and under jit.

    Example::

        >>> key = jnp.array([0, 42, 0, 0], jnp.uint32)
        >>> key, bits = lax.rng_bit_generator(key, (2, 3), dtype=jnp.uint8)
        >>> bits.shape, bits.dtype
        ((2, 3), dtype('uint8'))
    """
    del out_sharding
    shape = tuple(operator.index(d) for d in (shape if isinstance(shape, (tuple, list))
                                               else (shape,)))
    core.check_shape(shape, "rng_bit_generator")
    dtype = dtypes.canonicalize_dtype(dtype)
    if dtype not in _BITS_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    _check_key("rng_bit_generator", key)
    algorithm = RandomAlgorithm(algorithm)
    new_key, values = rng_bit_generator_p.bind(key, shape=shape, dtype=dtype, algorithm=algorithm)
    return new_key, values


# --- rng_uniform ------------------------------------------------------------------------------


class _Counter(threading.local):
    """Each rng_uniform call (each trace, under jit) takes the next stream."""

    def __init__(self):
        self.next = itertools.count()


_streams = _Counter()
#: The cipher key of rng_uniform's streams (any constant would do).
_UNIFORM_KEY = (0x6A09E667, 0xBB67AE85)


def _uniform_unit(bits_u, float_dtype):
    """Floats in [0, 1) of ``float_dtype`` (float32 or float64) from unsigned bits of its
    width: the top mantissa bits under the exponent of 1, minus 1."""
    info = np.finfo(float_dtype)
    width = 8 * float_dtype.itemsize
    unsigned = core.get_aval(bits_u).dtype
    shift = ew.convert_element_type(np.asarray(width - info.nmant, unsigned), unsigned)
    one = ew.convert_element_type(np.asarray(1.0, float_dtype).view(unsigned), unsigned)
    mantissa = ew.bitwise_or(bits.shift_right_logical(bits_u, shift), one)
    return ew.sub(bits.bitcast_convert_type(mantissa, float_dtype),
                  ew.convert_element_type(np.asarray(1.0, float_dtype), float_dtype))


def rng_uniform(a, b, shape):
    """Uniform random numbers in [a, b) of ``shape``: a, b scalars of one dtype. Stateful:
    every call draws new numbers. It runs eagerly only: a compiled numlir function has no
    state to draw anew from on each run (XLA's ``RngUniform`` does), and numbers drawn when
    it is traced would repeat on every run, so under jit, vmap or grad it raises. Use
    numlir.random with an explicit key there.

    Example::

        >>> lax.rng_uniform(0.0, 1.0, (3,)).shape
        (3,)
    """
    a_aval, b_aval = core.get_aval(a), core.get_aval(b)
    if a_aval.dtype != b_aval.dtype:
        raise ValueError(f"Arguments to rng_uniform must have identical dtypes, got "
                         f"{a_aval.dtype} and {b_aval.dtype}.")
    if a_aval.shape != () or b_aval.shape != ():
        raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {a_aval.shape} "
                         f"and {b_aval.shape}.")
    shape = tuple(operator.index(d) for d in shape)
    core.check_shape(shape, "rng_uniform")
    dtype = a_aval.dtype
    weak = a_aval.weak_type and b_aval.weak_type
    if not (dtypes.is_float(dtype) or dtypes.is_int(dtype)):
        raise TypeError(f"rng_uniform: unsupported dtype {dtype}")
    if not isinstance(core.current_trace(), core.EvalTrace):
        raise NotImplementedError(
            "lax.rng_uniform is stateful and runs eagerly only: inside jit, vmap or grad its "
            "numbers would be fixed when the function is traced and repeat on every run; use "
            "numlir.random with an explicit key")
    stream = next(_streams.next)
    # each stream starts its counter at a multiple of 2**32: streams never share a block
    key = np.array([*_UNIFORM_KEY, 0, stream % 2**32], np.uint32)
    a, b = ew.convert_element_type(a, dtype), ew.convert_element_type(b, dtype)
    return ew.convert_element_type(_uniform(key, a, b, shape), dtype, weak)


def _uniform_impl(key, a, b, shape):
    dtype = core.get_aval(a).dtype
    if dtypes.is_float(dtype):
        work = np.dtype(np.float64) if dtype.itemsize == 8 else np.dtype(np.float32)
        unsigned = np.dtype(np.uint64) if dtype.itemsize == 8 else np.dtype(np.uint32)
        _, raw = _random_bits(key, shape, unsigned, RandomAlgorithm.RNG_THREE_FRY)
        unit = _uniform_unit(raw, work)
        lo, hi = ew.convert_element_type(a, work), ew.convert_element_type(b, work)
        lo_b = shape_ops.broadcast_in_dim(lo, shape, ())
        values = ew.add(lo_b, ew.mul(unit, shape_ops.broadcast_in_dim(ew.sub(hi, lo), shape, ())))
        values = ew.convert_element_type(values, dtype)
        # rounding may reach b itself: the interval is half-open
        return ew.min(values, shape_ops.broadcast_in_dim(_largest_below(b), shape, ()))
    unsigned = np.dtype(f"uint{8 * dtype.itemsize}")
    wide = np.dtype(np.uint64) if dtype.itemsize == 8 else np.dtype(np.uint32)
    _, raw = _random_bits(key, shape, wide, RandomAlgorithm.RNG_THREE_FRY)

    def as_wide(x):
        return ew.convert_element_type(bits.bitcast_convert_type(x, unsigned), wide)

    mask = ew.convert_element_type(np.asarray((1 << (8 * dtype.itemsize)) - 1, wide), wide)
    lo = as_wide(a)
    span = ew.bitwise_and(ew.sub(as_wide(b), lo), mask)
    span = ew.select(ew.eq(span, ew.convert_element_type(np.asarray(0, wide), wide)),
                     ew.convert_element_type(np.asarray(1, wide), wide), span)
    offset = ew.rem(raw, shape_ops.broadcast_in_dim(span, shape, ()))
    values = ew.bitwise_and(ew.add(shape_ops.broadcast_in_dim(lo, shape, ()), offset),
                            shape_ops.broadcast_in_dim(mask, shape, ()))
    return bits.bitcast_convert_type(ew.convert_element_type(values, unsigned), dtype)


#: Compiled whole, the key an argument: eager calls reuse one executable per shape and dtype.
_uniform = jit(_uniform_impl, static_argnums=3)


def _largest_below(b):
    """The largest value of b's float dtype below ``b``."""
    dtype = core.get_aval(b).dtype
    return nextafter(b, ew.convert_element_type(np.asarray(-np.inf, dtype), dtype))
