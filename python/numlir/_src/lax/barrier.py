"""``optimization_barrier``: the identity that the compiler may not look through.

The primitive lowers to ``hlo.optimization_barrier``. The compiler never
merges (CSE) or fuses a computation on the barrier's outputs with the same
computation on its inputs; the CPU pipeline erases the barrier only right
before bufferization, when nothing merges ops any more. ``checkpoint`` uses
it so that its backward-pass recomputation stays a recomputation. The user function
``numlir.lax.optimization_barrier`` (numlir/lax/__init__.py) takes a pytree and turns its
leaves into arrays with numlir.numpy.asarray.

Example::

    >>> from numlir import lax
    >>> lax.optimization_barrier((jnp.ones(2), jnp.int32(3)))
    (Array([1., 1.], dtype=float32), Array(3, dtype=int32))
"""

from __future__ import annotations

from numlir._src import ad, batching, core
from numlir._src import transpose as tr
from numlir._src.transpose import is_undefined

optimization_barrier_p = core.Primitive("optimization_barrier")
optimization_barrier_p.multiple_results = True


@optimization_barrier_p.def_abstract_eval
def _barrier_abstract_eval(*avals):
    return list(avals)


@optimization_barrier_p.def_lowering
def _barrier_lowering(ctx, *operands):
    if not operands:
        return []
    types = ", ".join(ctx.type_in(i) for i in range(len(operands)))
    return ctx.emit_results(f"hlo.optimization_barrier {', '.join(operands)} : {types}",
                            len(operands))


def _bind_nonzero(values: list) -> list:
    """The barrier applied to the values that are not symbolic zeros (which stay)."""
    nonzero = [v for v in values if not isinstance(v, ad.Zero)]
    outs = iter(optimization_barrier_p.bind(*nonzero) if nonzero else [])
    return [v if isinstance(v, ad.Zero) else next(outs) for v in values]


def _barrier_jvp(primals, tangents):
    # Two binds, never one: reverse mode splits equations into known (primal) and
    # unknown (tangent) ones, and a barrier mixing both would drag the primals along
    # into the recorded linear program.
    return optimization_barrier_p.bind(*primals), _bind_nonzero(list(tangents))


ad.defjvp_rule(optimization_barrier_p, _barrier_jvp)


def _barrier_transpose(cts, *operands):
    linear = [ct if is_undefined(x) else ad.Zero(core.get_aval(x)) for ct, x in zip(cts, operands)]
    out = _bind_nonzero(linear)
    return [o if is_undefined(x) else None for o, x in zip(out, operands)]


tr.deftranspose(optimization_barrier_p, _barrier_transpose)


def _barrier_batch(axis_size, args, dims):
    return optimization_barrier_p.bind(*args), list(dims)


batching.defrule(optimization_barrier_p, _barrier_batch)
