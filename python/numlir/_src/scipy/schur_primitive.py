"""The Schur form as a primitive: LAPACK's gees where the backend calls it, else a numlir
program (the real form's Francis iteration, linalg_schur.py; the complex form's,
linalg_complex_schur.py). Not differentiable, as JAX's."""

from __future__ import annotations

from collections.abc import Callable

from numlir._src import batching, core
from numlir._src.lax import library_lowering


def schur_primitive(name: str, composite: Callable):
    """(primitive, function): the primitive (t, z) = ``name``(a) of square (..., n, n) ``a``
    lowered to lapack.gees or ``composite``, and the function binding it. gees sorts no
    eigenvalues (scipy.linalg.schur's sort=None), so their order along t's diagonal is
    LAPACK's, which the composite's may not be."""
    primitive = core.Primitive(name)
    primitive.multiple_results = True

    @primitive.def_abstract_eval
    def _abstract_eval(a):
        return a.strip_weak_type(), a.strip_weak_type()

    @primitive.def_lowering
    def _lowering(ctx, a):
        return library_lowering.lower(ctx, "lapack.gees", [a], composite)

    def _batch_rule(axis_size, args, dims):
        return primitive.bind(batching.bdim_to_front(args[0], dims[0], axis_size)), [0, 0]

    batching.defrule(primitive, _batch_rule)

    def schur(a):
        t, z = primitive.bind(a)
        return t, z

    return primitive, schur
