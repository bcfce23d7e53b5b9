"""jax.nn.scaled_dot_general: a dot_general whose operands are quantized in blocks
(mxfp8: float8_e4m3fn values with power-of-two scales; nvfp4: float4_e2m1fn values
with float8_e4m3fn scales and a global scale) and multiplied by ``scaled_matmul``.

Its gradient is jax's: each cotangent matmul is itself a block-scaled one, quantized
with the third config (mxfp8), or a plain matmul (nvfp4) whose gradient is zeroed
where the forward pass clipped the operand (a straight-through estimator).
"""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np

from numlir._src import dtypes
from numlir._src.custom_derivatives import custom_vjp
from numlir._src.lax.dot import dot_general
from numlir._src.nn import block_quantization as bq
from numlir._src.nn.scaled_matmul import scaled_matmul
from numlir._src.numpy import creation, reshaping, ufuncs

_OUTPUT_DTYPES = tuple(np.dtype(t) for t in (np.float32, ml_dtypes.bfloat16, np.float16))


def get_scaled_dot_general_config(mode: str, global_scale=None) -> bq.BlockScaleConfig:
    """The quantization config of one operand for ``scaled_dot_general``: ``'mxfp8'``
    (blocks of 32, float8_e4m3fn values, float8_e8m0fnu scales) or ``'nvfp4'`` (blocks
    of 16, float4_e2m1fn values, float8_e4m3fn scales, ``global_scale`` default 1)."""
    if mode == "nvfp4":
        scale = creation.ones((1,), np.float32) if global_scale is None else global_scale
        return bq.BlockScaleConfig(mode="nvfp4", block_size=16, data_type=ml_dtypes.float4_e2m1fn,
                                   scale_type=ml_dtypes.float8_e4m3fn, global_scale=scale,
                                   infer_only=False)
    if mode == "mxfp8":
        return bq.BlockScaleConfig(mode="mxfp8", block_size=32, data_type=ml_dtypes.float8_e4m3fn,
                                   scale_type=ml_dtypes.float8_e8m0fnu, global_scale=None,
                                   infer_only=False)
    raise ValueError(f"Unsupported mode: {mode}")


def _as_tuples(dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    return (tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))


def _kept(ndim: int, contracting, batch) -> list[int]:
    return [d for d in range(ndim) if d not in contracting and d not in batch]


def _as_bmk(x, contracting, batch):
    """``x`` transposed to (batch, kept, contracting) and flattened to 3-D: batch and
    contracting axes in the order given (so the operands' pairs line up), kept axes in
    axis order. Quantization blocks run along the flattened contracting axes."""
    kept = _kept(x.ndim, contracting, batch)
    size = lambda axes: int(np.prod([x.shape[d] for d in axes], dtype=np.int64))
    return reshaping.transpose(x, tuple(batch) + tuple(kept) + tuple(contracting)).reshape(
        size(batch), size(kept), size(contracting))


def _dot_shape(a_shape, b_shape, a_dims, b_dims) -> tuple[int, ...]:
    """dot_general's result shape: batch (in ``a``'s order), ``a``'s kept, ``b``'s kept."""
    (a_contract, a_batch), (b_contract, b_batch) = a_dims, b_dims
    return (tuple(a_shape[d] for d in a_batch)
            + tuple(a_shape[d] for d in _kept(len(a_shape), a_contract, a_batch))
            + tuple(b_shape[d] for d in _kept(len(b_shape), b_contract, b_batch)))


def _scaled_product(a, b, a_dims, b_dims, out_dtype, a_config, b_config, context=""):
    """The block-scaled dot of ``a`` and ``b`` over ``(contracting, batch)`` axes
    ``a_dims`` and ``b_dims``, laid out as dot_general's result."""
    a_q, a_scales = bq.quantize(_as_bmk(a, *a_dims), a_config, context)
    b_q, b_scales = bq.quantize(_as_bmk(b, *b_dims), b_config, context)
    nvfp4 = a_config.mode == "nvfp4"
    out = scaled_matmul(a_q, b_q, a_scales, b_scales,
                        preferred_element_type=np.float32 if nvfp4 else out_dtype)
    if nvfp4:
        out = (out * (a_config.global_scale * b_config.global_scale)).astype(out_dtype)
    return out.reshape(_dot_shape(a.shape, b.shape, a_dims, b_dims))


def _cotangent(g, mine, other, mine_dims, other_dims, g_other_start: int, out_dtype, configs):
    """One operand's cotangent from the output's cotangent ``g``: the dot of ``g``
    with the other operand over the other operand's kept axes (which sit in ``g``
    from ``g_other_start``), transposed back to the operand's axes."""
    (mine_c, mine_b), (other_c, other_b) = mine_dims, other_dims
    other_kept = tuple(_kept(other.ndim, other_c, other_b))
    g_dims = (tuple(range(g_other_start, g_other_start + len(other_kept))), tuple(range(len(mine_b))))
    o_dims = (other_kept, other_b)
    if configs[0].mode == "nvfp4":
        out = dot_general(g, other, ((g_dims[0], o_dims[0]), (g_dims[1], o_dims[1])),
                          preferred_element_type=out_dtype)
    else:
        out = _scaled_product(g, other, g_dims, o_dims, out_dtype, *configs,
                              context="'s gradient (contracting the other operand's non-contracting axes)")
    # out's axes: the batch pairs, my kept axes, then the other's contracting axes in
    # axis order, each standing for the axis of mine it was contracted with.
    partner = dict(zip(other_c, mine_c))
    layout = list(mine_b) + _kept(mine.ndim, mine_c, mine_b) + [partner[a] for a in sorted(other_c)]
    return reshaping.transpose(out, tuple(int(i) for i in np.argsort(layout))).astype(mine.dtype)


def _passes_unclipped(x, grad, config, gate_config):
    # nvfp4's straight-through estimator: no gradient where the forward pass clipped.
    largest = float(dtypes.finfo(gate_config.data_type).max) * float(dtypes.finfo(gate_config.scale_type).max)
    bound = config.global_scale * np.asarray(largest).astype(x.dtype)
    return ufuncs.where(ufuncs.abs(x) <= bound, grad, creation.zeros_like(grad))


def _forward(lhs, rhs, dimension_numbers, out_dtype, configs):
    (lc, rc), (lb, rb) = dimension_numbers
    return _scaled_product(lhs, rhs, (lc, lb), (rc, rb), out_dtype, configs[0], configs[1])


_scaled_dot = custom_vjp(_forward, nondiff_argnums=(2, 3, 4))


def _scaled_dot_fwd(lhs, rhs, dimension_numbers, out_dtype, configs):
    return _forward(lhs, rhs, dimension_numbers, out_dtype, configs), (lhs, rhs)


def _scaled_dot_bwd(dimension_numbers, out_dtype, configs, residuals, g):
    lhs, rhs = residuals
    (lc, rc), (lb, rb) = dimension_numbers
    lhs_dims, rhs_dims = (lc, lb), (rc, rb)
    lhs_kept = len(_kept(lhs.ndim, lc, lb))
    d_lhs = _cotangent(g, lhs, rhs, lhs_dims, rhs_dims, len(lb) + lhs_kept, out_dtype,
                       (configs[2], configs[1]))
    d_rhs = _cotangent(g, rhs, lhs, rhs_dims, lhs_dims, len(lb), out_dtype, (configs[2], configs[0]))
    if configs[2].mode == "nvfp4":
        d_lhs = _passes_unclipped(lhs, d_lhs, configs[0], configs[0])
        d_rhs = _passes_unclipped(rhs, d_rhs, configs[1], configs[0])
    return d_lhs, d_rhs


_scaled_dot.defvjp(_scaled_dot_fwd, _scaled_dot_bwd)


def _check_dimension_numbers(lhs, rhs, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    shapes = f"lhs {lhs.shape} and rhs {rhs.shape} with dimension_numbers {dimension_numbers}"
    for x, axes in ((lhs, lc + lb), (rhs, rc + rb)):
        if len(set(axes)) != len(axes) or any(not 0 <= d < x.ndim for d in axes):
            raise TypeError(f"scaled_dot_general: axes out of range or repeated for {shapes}")
    if len(lc) != len(rc) or len(lb) != len(rb) or not lc:
        raise TypeError(f"scaled_dot_general needs as many contracting (at least one) and batch "
                        f"axes on each side: {shapes}")
    for a, b in zip(lc + lb, rc + rb):
        if lhs.shape[a] != rhs.shape[b]:
            raise TypeError(f"scaled_dot_general: lhs axis {a} and rhs axis {b} differ in size: {shapes}")


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """``lax.dot_general`` of block-quantized ``lhs`` and ``rhs``, as jax.nn's.

    ``configs`` holds three ``BlockScaleConfig`` (from ``get_scaled_dot_general_config``):
    for lhs, for rhs, and for the output cotangent in the backward pass. Both operands
    are quantized along their contracting axes (their total size a multiple of the
    block size). Without ``configs`` this is ``lax.dot_general``. The result has
    dot_general's layout: batch axes, then lhs's other axes, then rhs's.
    """
    if implementation is not None:
        warnings.warn("Backend selector, now ignored. The system chooses the backend "
                      "automatically.", DeprecationWarning, stacklevel=2)
    if configs is None:
        return dot_general(lhs, rhs, dimension_numbers, preferred_element_type=preferred_element_type)
    out_dtype = np.dtype(preferred_element_type)
    if out_dtype not in _OUTPUT_DTYPES:
        raise TypeError("scaled_dot_general: preferred_element_type must be float32, bfloat16 or "
                        f"float16, got {out_dtype}")
    configs = list(configs)
    if len(configs) != 3:
        raise ValueError(f"scaled_dot_general needs 3 configs (lhs, rhs, gradient), got {len(configs)}")
    for name, config in zip(("configs[0]", "configs[1]", "configs[2]"), configs):
        bq.check_config(config, name)
    lhs, rhs = creation.asarray(lhs), creation.asarray(rhs)
    for name, x in (("lhs", lhs), ("rhs", rhs)):
        if not dtypes.is_float(x.dtype):
            raise TypeError(f"scaled_dot_general: {name} must be floating point, got {x.dtype}")
    dimension_numbers = _as_tuples(dimension_numbers)
    _check_dimension_numbers(lhs, rhs, dimension_numbers)
    return _scaled_dot(lhs, rhs, dimension_numbers, out_dtype, configs)
