"""Cumulative reductions along one axis: cumsum, cumprod, cummax and cummin (``hlo.cumulative``)."""

from __future__ import annotations

import numpy as np

from numlir._src import ad, batching, core, dtypes
from numlir._src import transpose as tr
from numlir._src.lax import elementwise as ew
from numlir._src.lax import slicing
from numlir._src.lax.associative_scan import associative_scan
from numlir._src.lax import type_checks as tc
from numlir._src.lax.shape_ops import broadcasted_iota


def _cumulative(name: str, kind: str, accepted):
    prim = core.Primitive(name)

    @prim.def_abstract_eval
    def _abstract_eval(operand, *, axis, reverse):
        tc.check_dtype(name, operand, accepted)
        if not 0 <= axis < operand.ndim:
            raise core.value_error(
                f"{name}: axis {axis} is out of bounds for shape {operand.shape}"
            )
        return operand

    @prim.def_lowering
    def _lowering(ctx, operand, *, axis, reverse):
        return ctx.emit(
            f"hlo.cumulative {kind} {operand}, dim = {axis}, "
            f"reverse = {'true' if reverse else 'false'} : {ctx.type_out()}"
        )

    def _batch_rule(axis_size, args, dims, *, axis, reverse):
        (x,), (d,) = args, dims
        return prim.bind(x, axis=batching.shifted(axis, d), reverse=reverse), d

    batching.defrule(prim, _batch_rule)

    def fn(operand, axis: int = 0, reverse: bool = False):
        aval = core.get_aval(operand)
        axis = tc.canonical_axis(name, axis, aval.ndim)
        if kind in ("max", "min") and dtypes.is_complex(aval.dtype):
            return _complex_cumulative_extremum(kind, operand, axis, bool(reverse))
        return prim.bind(operand, axis=axis, reverse=bool(reverse))

    fn.__name__ = name
    fn.__doc__ = f"Inclusive cumulative {kind} along ``axis`` (from the end when ``reverse``)."
    return prim, fn


cumsum_p, cumsum = _cumulative("cumsum", "sum", tc.NUMERIC_OR_COMPLEX)
cumprod_p, cumprod = _cumulative("cumprod", "prod", tc.NUMERIC_OR_COMPLEX)
cummax_p, cummax = _cumulative("cummax", "max", tc.ANY)
cummin_p, cummin = _cumulative("cummin", "min", tc.ANY)


def _shifted(x, steps: int, axis: int, reverse: bool, fill):
    """``x`` moved ``steps`` places along the scan direction, ``fill`` entering at the start."""
    config = [(0, 0, 0)] * core.get_aval(x).ndim
    config[axis] = (-steps, steps, 0) if reverse else (steps, -steps, 0)
    return slicing.pad(x, ew.const(x, fill), config)


def _complex_cumulative_extremum(kind: str, x, axis: int, reverse: bool):
    """cummax/cummin of complex numbers in jax's lexicographic order (lax.max/lax.min), which
    hlo.cumulative lacks: a doubling prefix scan, each step combining every running extremum
    with the one ``steps`` places earlier. Derivatives, batching and jit come from lax.max's."""
    combine = ew.max if kind == "max" else ew.min
    if reverse:  # work in scan order
        x = slicing.rev(x, (axis,))
    aval = core.get_aval(x)
    pos = broadcasted_iota(np.int32, aval.shape, axis)
    out, steps = x, 1
    while steps < aval.shape[axis]:
        # The first `steps` positions have nothing that far back: they keep their value.
        has_earlier = ew.ge(pos, ew.const(pos, steps))
        combined = combine(_shifted(out, steps, axis, False, 0), out)
        out = ew.select(has_earlier, combined, out)
        steps *= 2
    return slicing.rev(out, (axis,)) if reverse else out


def _cumprod_jvp(primals, tangents, *, axis, reverse):
    # A doubling prefix scan of (product, its tangent) by the product rule: no division,
    # so zeros in x are handled, and each step is linear in the tangent.
    x, t = primals[0], ad.instantiate(tangents[0])
    out = cumprod_p.bind(x, axis=axis, reverse=reverse)
    p, dp, steps = x, t, 1
    while steps < core.get_aval(x).shape[axis]:
        p_prev = _shifted(p, steps, axis, reverse, 1)
        dp = ew.add(ew.mul(dp, p_prev), ew.mul(p, _shifted(dp, steps, axis, reverse, 0)))
        p = ew.mul(p, p_prev)
        steps *= 2
    return out, dp


def _cumulative_chooser_jvp(prim, combine):
    # JAX's cummax/cummin derivative is the JVP of its associative scan of lax.max/min:
    # equal elements split the tangent pair by pair in the scan's tree (1/2 at each tie),
    # and a NaN wins where max's rule gives it the tangent. The same scan gives the same
    # splits; the value still comes from the primitive.
    def rule(primals, tangents, *, axis, reverse):
        x, t = primals[0], ad.instantiate(tangents[0])
        _, _, (t_out,) = ad.jvp_flat(
            lambda v: associative_scan(combine, v, reverse=reverse, axis=axis), [x], [t])
        return prim.bind(x, axis=axis, reverse=reverse), ad.instantiate(t_out)

    return rule


ad.defjvp_rule(cumprod_p, _cumprod_jvp)
ad.defjvp_rule(cummax_p, _cumulative_chooser_jvp(cummax_p, ew.max))
ad.defjvp_rule(cummin_p, _cumulative_chooser_jvp(cummin_p, ew.min))


def _cumsum_transpose(ct, operand, *, axis, reverse):
    # Each input adds into every output after it, so cotangents flow back the other way.
    return cumsum_p.bind(ct, axis=axis, reverse=not reverse)


ad.deflinear(cumsum_p, tr.first_operand(_cumsum_transpose))
