"""How a dot product may be computed: jax.lax's DotAlgorithm and DotAlgorithmPreset, and
the PrecisionLike and DotDimensionNumbers types.

numlir's CPU contractions compute every product at the operands' own precision,
accumulating 16-bit floats in float32 (hlo-widen-accumulation), so each algorithm
and preset is accepted and computes the same, as each Precision does; that is
also what XLA's CPU backend does with the presets it accepts, except that its
F64_F64_F64 computes float32 operands in float64.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import Any, Union

from numlir._src.lax.composites import Precision


@dataclasses.dataclass(frozen=True)
class DotAlgorithm:
    """A dot product's operand and accumulation types and how many component products
    make up each multiplication, as jax.lax.DotAlgorithm."""

    lhs_precision_type: Any
    rhs_precision_type: Any
    accumulation_type: Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """The named algorithms of jax.lax.DotAlgorithmPreset: operand types, then the
    accumulation type, with the number of bfloat16 products per multiplication
    (``BF16_BF16_F32_X3``)."""

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __str__(self) -> str:
        return self.name


#: What ``precision=`` accepts.
PrecisionLike = Union[
    None,
    str,
    Precision,
    tuple[str, str],
    tuple[Precision, Precision],
    DotAlgorithm,
    DotAlgorithmPreset,
]

#: ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``.
DotDimensionNumbers = tuple[
    tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
]
