"""The parts of complex numbers: real, imag, complex and conj, and abs's complex derivative;
and clamp of complex numbers (XLA's order: real parts only).

The transpose rules are jax's: transposes are linear maps, not adjoints, so none
conjugates except conj's own. With them, ``grad`` of a real-valued function of a
complex ``z`` is the conjugate of d/dz-bar times two, as in jax
(``grad(lambda z: abs(z) ** 2)(3 + 4j) == 6 - 8j``).
"""

from __future__ import annotations

from numlir._src import ad, batching, core, dtypes
from numlir._src import transpose as tr
from numlir._src.lax import type_checks as tc
from numlir._src.lax.elementwise import _abs_jvp as _real_abs_jvp
from numlir._src.lax.elementwise import (_broadcast_operands, abs, abs_p, check_clamp_operands,
                                         const, convert_element_type, div, eq, lt, mul, neg,
                                         select)
from numlir._src.lax.shape_ops import broadcast_in_dim
from numlir._src.lowering import tensor_type


def _part_abstract_eval(name):
    def rule(x: core.ShapedArray) -> core.ShapedArray:
        tc.check_dtype(name, x, (tc.COMPLEX,))
        return x.update(dtype=dtypes.complex_part_dtype(x.dtype))

    return rule


def _part(name: str) -> core.Primitive:
    prim = core.Primitive(name)
    prim.def_abstract_eval(_part_abstract_eval(name))

    @prim.def_lowering
    def _lowering(ctx, x):
        return ctx.emit(f"hlo.{name} {x} : {ctx.type_in()} -> {ctx.type_out()}")

    batching.defvectorized(prim)
    return prim


real_p = _part("real")
imag_p = _part("imag")


def real(x):
    """The real part of each element of complex ``x`` (float32 for complex64)."""
    return real_p.bind(x)


def imag(x):
    """The imaginary part of each element of complex ``x``."""
    return imag_p.bind(x)


complex_p = core.Primitive("complex")

# complex64 and complex128 are built from their own parts only: jax refuses float16 too.
_PART = ("float32 or float64", lambda d: d in (dtypes.float32, dtypes.float64))


@complex_p.def_abstract_eval
def _complex_abstract_eval(x, y):
    dtype = tc.check_same_dtypes("complex", [x, y])
    tc.check_dtype("complex", x, (_PART,))
    shape = tc.broadcasting_shape("complex", [x, y])
    return core.ShapedArray(shape, dtypes.complex_dtype_of(dtype), False)


@complex_p.def_lowering
def _complex_lowering(ctx, x, y):
    x, y = _broadcast_operands(ctx, x, y)
    parts = tensor_type(ctx.avals_out[0].update(dtype=ctx.avals_in[0].dtype))
    return ctx.emit(f"hlo.complex {x}, {y} : {parts} -> {ctx.type_out()}")


batching.defbroadcasting(complex_p)


def complex(x, y):  # noqa: A001 - JAX's name
    """The complex number ``x + i y`` elementwise (float32 parts give complex64)."""
    return complex_p.bind(x, y)


conj_p = core.Primitive("conj")


@conj_p.def_abstract_eval
def _conj_abstract_eval(x):
    tc.check_dtype("conj", x, (tc.COMPLEX,))
    return x


conj_p.def_lowering(lambda ctx, x: ctx.emit(f"hlo.conj {x} : {ctx.type_out()}"))
batching.defvectorized(conj_p)


def conj(x):
    """The complex conjugate of each element; a real ``x`` becomes complex (``x + 0i``), as in
    jax."""
    aval = core.get_aval(x)
    if dtypes.is_complex(aval.dtype):
        return conj_p.bind(x)
    part = dtypes.complex_part_dtype(dtypes.complex_dtype_of(aval.dtype))
    x = convert_element_type(x, part)
    return complex(x, const(x, 0))


def _zeros_like(ct):
    return convert_element_type(0, core.get_aval(ct).dtype, weak_type=True)


def _complex_transpose(ct, x, y):
    re = tr.unbroadcast(real(ct), x.aval) if tr.is_undefined(x) else None
    im = tr.unbroadcast(neg(imag(ct)), y.aval) if tr.is_undefined(y) else None
    return [re, im]


ad.deflinear(real_p, lambda ct, x: [complex(ct, _zeros_like(ct))])
ad.deflinear(imag_p, lambda ct, x: [complex(_zeros_like(ct), neg(ct))])
ad.deflinear(complex_p, _complex_transpose)
ad.deflinear(conj_p, lambda ct, x: [conj(ct)])


def _abs_jvp(t, x):
    if not dtypes.is_complex(core.get_aval(x).dtype):
        return _real_abs_jvp(t, x)
    # d|x| = re(t conj(x)) / |x|; at 0 the modulus is replaced by 1, as in jax.
    modulus = abs(x)
    safe = select(eq(modulus, const(modulus, 0)), const(modulus, 1), modulus)
    return real(div(mul(t, conj_p.bind(x)), convert_element_type(safe, core.get_aval(x).dtype)))


# abs's rule covers both kinds here, where conj and real exist.
ad.defjvp(abs_p, _abs_jvp)


# --- clamp ---------------------------------------------------------------------------------

def clamp_complex(lo, x, hi):
    """jax's clamp of complex numbers, which hlo.clamp (real-only here) lacks.

    XLA's clamp compares real parts only, unlike lax.max/lax.min's lexicographic order, so jax
    gives ``clamp(1, 1 + 1j, 2 + 1j) == 1`` and ``clamp(1, 2 + 3j, 2 + 1j) == 2 + 3j``: ``lo``
    unless x's real part exceeds lo's, then ``hi`` where that result's real part exceeds hi's.
    The tangent is the selected operand's, as for reals away from ties (jax's own rule
    refuses complex operands: its comparisons do).
    """
    shape = check_clamp_operands(*(core.get_aval(v) for v in (lo, x, hi))).shape
    lo, hi = (v if core.get_aval(v).shape == shape else broadcast_in_dim(v, shape, ())
              for v in (lo, hi))
    at_least_lo = select(lt(real(lo), real(x)), x, lo)
    return select(lt(real(hi), real(at_least_lo)), hi, at_least_lo)
