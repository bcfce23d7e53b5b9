"""Block-scaled quantization to the narrow float formats of mxfp8 and nvfp4.

numlir has no float8/float4 array dtypes, so a quantized value is carried in float32:
the float32 number equal to the narrow-format value (every float8 and float4 value is
exactly a float32). Rounding to a format is therefore a float32 computation that
gives the bits a cast would, round-to-nearest-even, subnormals included.
"""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np

from numlir._src import core, dtypes
from numlir._src.lax import bits
from numlir._src.numpy import reductions, ufuncs

_F32_MANTISSA_BITS = 23
_F32_EXPONENT_BIAS = 127


@dataclasses.dataclass
class BlockScaleConfig:
    """How one operand of ``scaled_dot_general`` is quantized (jax.nn's fields):
    ``block_size`` consecutive elements of the contracting axis share one scale of
    ``scale_type``; the scaled elements are stored as ``data_type``; nvfp4 divides by
    ``global_scale`` first."""
    mode: str
    block_size: int
    data_type: object
    scale_type: object
    global_scale: object
    infer_only: bool


def _exponent_field(x32):
    """The biased exponent of float32 ``x32`` as int32."""
    word = bits.bitcast_convert_type(x32, np.int32)
    return ufuncs.bitwise_and(ufuncs.right_shift(word, np.int32(_F32_MANTISSA_BITS)),
                              np.int32(0xFF))


def _power_of_two(exponent_field):
    """The float32 with biased exponent ``exponent_field`` and a zero mantissa."""
    return bits.bitcast_convert_type(
        ufuncs.left_shift(exponent_field, np.int32(_F32_MANTISSA_BITS)), np.float32)


def round_to_format(x, fmt):
    """``x.astype(fmt)`` as float32 values, for a narrow float format ``fmt`` and
    finite ``x`` inside its range (callers clip first, as jax does)."""
    info = ml_dtypes.finfo(fmt)
    x32 = x.astype(np.float32)
    # The spacing of fmt around x: 2**(e - nmant), e the exponent of x, held at the
    # format's least normal exponent so subnormals get the subnormal spacing.
    exponent = ufuncs.maximum(_exponent_field(x32), np.int32(int(info.minexp) + _F32_EXPONENT_BIAS))
    spacing = _power_of_two(exponent - np.int32(int(info.nmant)))
    # Division and multiplication by a power of two are exact; rint ties to even.
    return ufuncs.rint(x32 / spacing) * spacing


def e8m0_scale_exponent(scale):
    """The float8_e8m0fnu code of ``scale`` rounded up to a power of two, as jax's
    mxfp8 quantizer computes it (bits of the float32 exponent, plus one when the
    mantissa is non-zero; saturating below NaN), as int32 in [0, 255]."""
    x32 = scale.astype(np.float32)
    exponent = _exponent_field(x32)
    mantissa = ufuncs.bitwise_and(bits.bitcast_convert_type(x32, np.int32), np.int32(0x7FFFFF))
    rounds_up = ((mantissa > 0) & (exponent != 0xFE)
                 & ~((exponent == 0) & (mantissa <= 0x400000)))
    return ufuncs.where(rounds_up, exponent + np.int32(1), exponent)


def e8m0_value(code):
    """The float32 value of float8_e8m0fnu ``code``: 2**(code - 127), NaN for 255."""
    value = ufuncs.where(code == 0, np.float32(2.0**-127), _power_of_two(code))  # a float32 subnormal
    return ufuncs.where(code == 255, np.float32(np.nan), value)


def _divisor_of_e8m0(code, dtype):
    # jax divides by the scale in the operand's dtype, where 2**-127 would be 0 in
    # float16, so a zero code divides by a small normal value instead.
    tiny = np.float32(2.0**-15 if np.dtype(dtype) == np.float16 else 2.0**-127)
    value = _power_of_two(code)
    return ufuncs.where(value == 0, tiny, value).astype(dtype)


def check_config(config, name: str) -> None:
    if not isinstance(config, BlockScaleConfig):
        raise TypeError(f"scaled_dot_general: {name} must be a BlockScaleConfig (from "
                        f"get_scaled_dot_general_config), got {type(config).__name__}")
    if config.mode == "mxfp8":
        if np.dtype(config.scale_type) != np.dtype(ml_dtypes.float8_e8m0fnu) or config.global_scale is not None:
            raise ValueError(f"scaled_dot_general: {name} in mode mxfp8 needs scale_type "
                             "float8_e8m0fnu and no global_scale")
    elif config.mode == "nvfp4":
        if np.dtype(config.scale_type) != np.dtype(ml_dtypes.float8_e4m3fn):
            raise ValueError(f"scaled_dot_general: {name} in mode nvfp4 needs scale_type "
                             "float8_e4m3fn")
        if config.global_scale is None or np.dtype(core.get_aval(config.global_scale).dtype) != np.float32:
            raise ValueError(f"scaled_dot_general: {name} in mode nvfp4 needs a float32 global_scale")
    else:
        raise ValueError(f"scaled_dot_general: unrecognized mode {config.mode!r} of {name}; "
                         "expected 'mxfp8' or 'nvfp4'")


def quantize(x, config, context: str = ""):
    """``(values, scales)`` of (B, M, K) operand ``x`` in blocks of the last axis: the
    data-type values and their per-block scales (B, M, K // block_size), both as float32
    numbers, such that ``values * scales`` approximates ``x`` (divided by the global
    scale in nvfp4)."""
    b, m, k = x.shape
    block = int(config.block_size)
    if k < block or k % block:
        raise core.value_error(
            f"scaled_dot_general{context}: the contracting size {k} must be a positive multiple "
            f"of the {config.mode} block size {block}")
    x = x.reshape(b, m, k // block, block)
    largest = np.asarray(dtypes.finfo(config.data_type).max).astype(x.dtype)

    def scale_per_block(values):
        return reductions.max(ufuncs.abs(values), axis=-1, keepdims=True) / largest

    if config.mode == "mxfp8":
        code = e8m0_scale_exponent(scale_per_block(x))
        scaled = x / _divisor_of_e8m0(code, x.dtype)
        scales = e8m0_value(code)
    else:
        x = x / config.global_scale
        scale_largest = np.asarray(dtypes.finfo(config.scale_type).max).astype(x.dtype)
        scales = round_to_format(ufuncs.clip(scale_per_block(x), 0, scale_largest), config.scale_type)
        scaled = x / scales
    values = round_to_format(ufuncs.clip(scaled, -largest, largest), config.data_type)
    return values.reshape(b, m, k), scales.reshape(b, m, k // block)
