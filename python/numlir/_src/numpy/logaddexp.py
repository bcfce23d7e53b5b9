"""logaddexp and logaddexp2 with JAX's derivative.

JAX gives both a ``custom_jvp`` whose tangent is ``t_i * exp(x_i - out)`` with +inf read as
0, so a finite operand against +inf gets weight exp(x) where the plain derivative gives 0
(fuzz seed 1, program 37309). The rule makes this module sit with the api layer, as the
linalg factorizations do (test/python/test_import_layers.py).
"""

from __future__ import annotations

import numpy as np

from numlir._src.custom_derivatives import custom_jvp
from numlir._src.lax import elementwise as ew
from numlir._src.numpy.ufuncs import _LN2, _binary, _logaddexp, exp2, where
from numlir._src.numpy.util import dtype_of


def _replace_inf(x):
    """``x`` with +inf replaced by 0, as JAX's derivative reads its values."""
    dtype = dtype_of(x)
    inf = ew.convert_element_type(np.inf, dtype, weak_type=True)
    return where(ew.eq(x, inf), ew.convert_element_type(0, dtype, weak_type=True), x)


def _tangent(x1, x2, t1, t2, out, exp):
    r_out = _replace_inf(out)
    return ew.add(ew.mul(t1, exp(ew.sub(_replace_inf(x1), r_out))),
                  ew.mul(t2, exp(ew.sub(_replace_inf(x2), r_out))))


@custom_jvp
def _logaddexp_e(x1, x2):
    return _logaddexp(x1, x2)


@_logaddexp_e.defjvp
def _logaddexp_e_jvp(primals, tangents):
    out = _logaddexp_e(*primals)
    return out, _tangent(*primals, *tangents, out, ew.exp)


logaddexp = _binary("logaddexp", _logaddexp_e, inexact=True)


@custom_jvp
def _logaddexp_2(x1, x2):
    if np.issubdtype(dtype_of(x1), np.complexfloating):
        ln2 = ew.convert_element_type(_LN2, dtype_of(x1), weak_type=True)
        return ew.div(_logaddexp(ew.mul(x1, ln2), ew.mul(x2, ln2)), ln2)
    return _logaddexp(x1, x2, base2=True)


@_logaddexp_2.defjvp
def _logaddexp_2_jvp(primals, tangents):
    out = _logaddexp_2(*primals)
    return out, _tangent(*primals, *tangents, out, exp2)


logaddexp2 = _binary("logaddexp2", _logaddexp_2, inexact=True)
