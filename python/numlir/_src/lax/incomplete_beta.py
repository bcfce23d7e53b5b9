"""The regularized incomplete beta function ``I_x(a, b)``, as jax.lax.betainc.

``I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * 1/(1+ d1/(1+ d2/(1+ ...)))`` with
``d_2m+1 = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))`` and
``d_2m = m(b-m) x / ((a+2m-1)(a+2m))``, summed by the modified Lentz method. The
fraction converges fast for ``x < (a+1)/(a+b+2)``; past that point it is
evaluated as ``1 - I_1-x(b, a)``. The loop stops when every element has
converged to the dtype's epsilon (or after 2000 steps); half precisions compute
in float32. Its derivative is JAX's: in ``x`` the beta density, in ``a`` and ``b``
not defined (it raises).
"""

from __future__ import annotations

import numpy as np

from numlir._src import ad, core
from numlir._src.lax import (
    composite_primitives,
    control_flow,
    float_math,
    lentz,
    reduction,
    shape_ops,
    special,
)
from numlir._src.lax import elementwise as ew
from numlir._src.lax.elementwise import const

_MAX_STEPS = 2000


def _fraction(a, b, x):
    """The continued fraction's value, where it converges (x < (a+1)/(a+b+2))."""
    dtype = core.get_aval(a).dtype
    eps, tiny, one, guard = lentz.constants(a)

    def step(c, d, coefficient):
        d = ew.div(one, guard(ew.add(one, ew.mul(coefficient, d))))
        c = guard(ew.add(one, ew.div(coefficient, c)))
        return c, d, ew.mul(c, d)

    def cond(state):
        m, done = state[0], state[-1]
        return ew.bitwise_and(
            ew.lt(m, const(m, _MAX_STEPS)),
            ew.bitwise_not(reduction.reduce_and(done, tuple(range(core.get_aval(done).ndim)))),
        )

    def body(state):
        m, c, d, h, done = state
        fm = ew.convert_element_type(ew.add(m, const(m, 1)), dtype)
        two_m = ew.add(fm, fm)
        even = ew.div(
            ew.mul(ew.mul(fm, ew.sub(b, fm)), x),
            ew.mul(ew.add(ew.sub(a, one), two_m), ew.add(a, two_m)),
        )
        c, d, delta_even = step(c, d, even)
        odd = ew.neg(
            ew.div(
                ew.mul(ew.mul(ew.add(a, fm), ew.add(ew.add(a, b), fm)), x),
                ew.mul(ew.add(a, two_m), ew.add(ew.add(a, one), two_m)),
            )
        )
        c, d, delta_odd = step(c, d, odd)
        keep = ew.bitwise_not(done)
        h = ew.select(keep, ew.mul(ew.mul(h, delta_even), delta_odd), h)
        done = ew.bitwise_or(done, ew.le(ew.abs(ew.sub(delta_odd, one)), eps))
        return ew.add(m, const(m, 1)), c, d, h, done

    shape = core.get_aval(a).shape
    c0 = shape_ops.broadcast_in_dim(one, shape, ())
    d0 = ew.div(one, guard(ew.sub(one, ew.div(ew.mul(ew.add(a, b), x), ew.add(a, one)))))
    state = control_flow.while_loop(cond, body, (np.int32(0), c0, d0, d0, ew.ne(a, a)))
    return state[3]


def _regularized(a, b, x):
    one, zero = const(a, 1.0), const(a, 0.0)
    flip = ew.gt(x, ew.div(ew.add(a, one), ew.add(ew.add(a, b), const(a, 2.0))))
    pa, pb = ew.select(flip, b, a), ew.select(flip, a, b)
    px = ew.select(flip, ew.sub(one, x), x)
    inside = ew.bitwise_and(ew.gt(px, zero), ew.lt(px, one))
    # Lanes outside (0, 1) get a harmless point; their values are chosen below.
    half = const(a, 0.5)
    pa, pb, px = (
        ew.select(inside, v, fallback) for v, fallback in ((pa, one), (pb, one), (px, half))
    )
    log_front = ew.sub(
        ew.add(ew.mul(pa, ew.log(px)), ew.mul(pb, float_math.log1p(ew.neg(px)))),
        ew.add(_log_beta(pa, pb), ew.log(pa)),
    )
    value = ew.mul(ew.exp(log_front), _fraction(pa, pb, px))
    value = ew.select(flip, ew.sub(one, value), value)
    value = ew.select(ew.eq(x, zero), zero, value)
    value = ew.select(ew.eq(x, one), one, value)
    invalid = ew.bitwise_or(
        ew.bitwise_or(ew.le(a, zero), ew.le(b, zero)), ew.bitwise_or(ew.lt(x, zero), ew.gt(x, one))
    )
    invalid = ew.bitwise_or(
        invalid, ew.bitwise_or(ew.ne(x, x), ew.bitwise_or(ew.ne(a, a), ew.ne(b, b)))
    )
    return ew.select(invalid, const(a, np.nan), value)


def _log_beta(a, b):
    return ew.sub(ew.add(special.lgamma(a), special.lgamma(b)), special.lgamma(ew.add(a, b)))


def _impl(a, b, x):
    dtype = core.get_aval(a).dtype
    compute = np.dtype(np.float32) if dtype.itemsize < 4 else dtype
    a, b, x = (ew.convert_element_type(v, compute) for v in (a, b, x))
    return ew.convert_element_type(_regularized(a, b, x), dtype)


betainc_p = composite_primitives.elementwise("betainc", _impl, 3)


def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b)``."""
    dtypes_of = [core.get_aval(v) for v in (a, b, x)]
    target = next((av.dtype for av in dtypes_of if not av.weak_type), dtypes_of[0].dtype)
    a, b, x = (
        v
        if core.get_aval(v).dtype == target
        else ew.convert_element_type(v, target, weak_type=True)
        for v in (a, b, x)
    )
    return betainc_p.bind(a, b, x)


def _density(t, a, b, x):
    # x^(a-1) (1-x)^(b-1) / B(a, b)
    one = const(x, 1.0)
    log_density = ew.sub(
        ew.add(ew.mul(ew.sub(a, one), ew.log(x)), ew.mul(ew.sub(b, one), ew.log(ew.sub(one, x)))),
        _log_beta(a, b),
    )
    return ew.mul(t, ew.exp(log_density))


ad.defjvp(
    betainc_p,
    special._no_tangent("betainc with respect to a"),
    special._no_tangent("betainc with respect to b"),
    _density,
)
