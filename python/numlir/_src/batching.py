"""vmap: the batching interpreter (BatchTrace/BatchTracer) and its shared rule helpers.

A ``BatchTracer`` stands for one example of a batch: it holds the whole
batched value ``val`` and the position ``bdim`` of the batch axis in it
(``None``: the value is the same for every example). Each ``vmap`` is its own
``BatchTrace`` whose ``parent`` is the trace that was current when it
started, so nested vmaps and closures over outer tracers compose. A
primitive's batching rule lives next to its other rules and has the form::

    rule(axis_size, args, dims, **params) -> (outs, out_dims)

where ``args`` are the batched values and ``dims`` their batch axes; it runs
with the parent trace current.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from numlir import tree_util
from numlir._src import core, traceback_util

not_mapped = None


class BatchTracer(core.Tracer):
    __slots__ = ("val", "bdim")

    def __init__(self, trace: "BatchTrace", val, bdim: int | None):
        aval = core.get_aval(val)
        if bdim is not None:
            aval = aval.update(shape=aval.shape[:bdim] + aval.shape[bdim + 1:])
        super().__init__(trace, aval)
        self.val = val
        self.bdim = bdim

    def _inner_value(self):
        return self.val


class BatchTrace(core.Trace):
    """Runs each primitive's batching rule on (value, batch axis) pairs."""

    transformation = "vmap"

    def __init__(self, axis_size: int, axis_name=None, parent: core.Trace | None = None):
        self.parent = parent if parent is not None else core.current_trace()
        self.axis_size = axis_size
        self.axis_name = axis_name

    def unpack(self, x):
        if isinstance(x, BatchTracer) and x._trace is self:
            return x.val, x.bdim
        return x, not_mapped

    def wrap(self, val, bdim):
        return val if bdim is None else BatchTracer(self, val, bdim)

    def process_primitive(self, prim, args, params):
        vals, dims = zip(*[self.unpack(a) for a in args]) if args else ((), ())
        with core.set_current_trace(self.parent):
            if all(d is None for d in dims):
                return prim.bind(*vals, **params)
            rule = core.batching_rules.get(prim)
            if rule is None:
                raise NotImplementedError(f"vmap: no batching rule for the primitive {prim.name}")
            outs, out_dims = rule(self.axis_size, list(vals), list(dims), **params)
        if prim.multiple_results:
            return [self.wrap(o, d) for o, d in zip(outs, out_dims)]
        return self.wrap(outs, out_dims)


# --- Helpers for rules ---------------------------------------------------------------------


def moveaxis(x, src: int, dst: int):
    from numlir._src.lax import shape_ops

    if src == dst:
        return x
    ndim = core.get_aval(x).ndim
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return shape_ops.transpose(x, perm)


def bdim_to_front(x, bdim: int | None, axis_size: int):
    """``x`` with its batch axis first; an unbatched ``x`` is broadcast along a new first axis."""
    return matchaxis(x, bdim, 0, axis_size)


def matchaxis(x, src: int | None, dst: int, axis_size: int):
    from numlir._src.lax import shape_ops

    if src is None:
        aval = core.get_aval(x)
        shape = aval.shape[:dst] + (axis_size,) + aval.shape[dst:]
        dims = tuple(i for i in range(len(shape)) if i != dst)
        return shape_ops.broadcast_in_dim(x, shape, dims)
    return moveaxis(x, src, dst)


def shifted(axis: int, bdim: int) -> int:
    """Where per-example axis ``axis`` sits in a value batched at ``bdim``."""
    return axis + (axis >= bdim)


def broadcast_batcher(prim: core.Primitive) -> Callable:
    """The rule of an elementwise primitive with lax broadcasting (rank 0 or size-1 dims)."""

    def rule(axis_size, args, dims, **params):
        from numlir._src.lax import shape_ops

        avals = [core.get_aval(a) for a in args]
        ranks = [a.ndim - (d is not None) for a, d in zip(avals, dims)]
        rank = max(ranks)
        if len({(a.shape, d) for a, d in zip(avals, dims)}) == 1:  # same shapes and batch axes
            return prim.bind(*args, **params), dims[0]
        new = []
        for x, a, d, r in zip(args, avals, dims, ranks):
            if d is None:
                new.append(x if r == 0 else shape_ops.reshape(x, (1,) + a.shape))
            else:
                x = moveaxis(x, d, 0)
                new.append(x if r == rank else shape_ops.reshape(x, (axis_size,) + (1,) * rank))
        out = prim.bind(*new, **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)

    return rule


def defbroadcasting(*prims: core.Primitive) -> None:
    for p in prims:
        core.batching_rules[p] = broadcast_batcher(p)


# --- Batching closed graphs (for control flow) --------------------------------------------


def batch_graph_fn(graph: core.ClosedGraph, axis_size: int, in_dims: Sequence[int | None],
                   out_batched: Sequence[bool] | None = None) -> Callable:
    """A function running ``graph`` on batched values (batch axes ``in_dims``).

    Outputs come back with the batch axis first where ``out_batched`` says so
    (unbatched ones are broadcast) and unbatched elsewhere. Returns
    ``(outs, batched)`` when ``out_batched`` is None.
    """

    def fun(*args):
        trace = BatchTrace(axis_size)
        wrapped = [trace.wrap(a, d) for a, d in zip(args, in_dims)]
        with core.set_current_trace(trace):
            outs = core.eval_graph(graph.graph, graph.consts, *wrapped)
        pairs = [trace.unpack(o) for o in outs]
        if out_batched is None:
            return [v if d is None else moveaxis(v, d, 0) for v, d in pairs], [
                d is not None for _, d in pairs]
        result = []
        for (v, d), b in zip(pairs, out_batched):
            if b:
                result.append(bdim_to_front(v, d, axis_size))
            elif d is not None:
                raise AssertionError("a batched output was expected to be unbatched")
            else:
                result.append(v)
        return result

    return fun


def graph_out_batched(graph: core.ClosedGraph, axis_size: int,
                      in_dims: Sequence[int | None]) -> list[bool]:
    """Which outputs of ``graph`` are batched when its inputs are batched at ``in_dims``."""
    fun = batch_graph_fn(graph, axis_size, in_dims)
    avals = []
    for aval, d in zip(graph.in_avals, in_dims):
        avals.append(aval if d is None else aval.update(shape=aval.shape[:d] + (axis_size,) + aval.shape[d:]))
    box = []

    def flat(*args):
        outs, batched = fun(*args)
        box.append(batched)
        return outs

    core.trace_to_graph(flat, avals)
    return box[0]


# --- vmap ---------------------------------------------------------------------------------


def _broadcast_prefix(prefix, tree, what: str) -> list:
    """The leaves of ``prefix`` (a pytree prefix of ``tree``) repeated for each leaf of ``tree``."""
    treedef = tree_util.tree_structure(tree)
    out = []

    def walk(p, t):
        if p is None or isinstance(p, int):
            out.extend([p] * len(tree_util.tree_leaves(t)))
            return
        pdef = tree_util.tree_structure(p, is_leaf=lambda x: x is None)
        if isinstance(t, (tuple, list)) and isinstance(p, (tuple, list)) and len(p) == len(t):
            for pi, ti in zip(p, t):
                walk(pi, ti)
            return
        if isinstance(t, dict) and isinstance(p, dict) and set(p) == set(t):
            for k in sorted(t):
                walk(p[k], t[k])
            return
        raise core.value_error(
            f"vmap {what} specification must be a tree prefix of the corresponding value, got "
            f"specification {p!r} for value tree {tree_util.tree_structure(t)} "
            f"(specification tree {pdef})")

    del treedef
    walk(prefix, tree)
    return out


def _check_axis_spec(spec, what: str):
    for leaf in tree_util.tree_leaves(spec, is_leaf=lambda x: x is None):
        if leaf is not None and not isinstance(leaf, int):
            raise TypeError(f"vmap {what} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {leaf!r}")


def _arg_names(fun, args) -> list[str]:
    import inspect

    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(len(args)):
        p = params[i] if i < len(params) else None
        if p is not None and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(f"argument {p.name}")
        else:
            names.append(f"args[{i}]")
    return names


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_name=None,
         axis_size: int | None = None, spmd_axis_name=None) -> Callable:
    """Vectorize ``fun`` over an axis of its arguments (like ``jax.vmap``).

    Example::

        >>> per_example = numlir.vmap(lambda x, w: x @ w, in_axes=(0, None))
        >>> per_example(jnp.ones((8, 3)), jnp.ones((3, 2))).shape
        (8, 2)
    """
    del spmd_axis_name  # single-device: nothing to shard
    core.check_callable(fun)
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axis_spec(in_axes, "in_axes")
    _check_axis_spec(out_axes, "out_axes")

    @traceback_util.api_boundary
    def vmapped(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise core.value_error(
                f"vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                f"positional arguments passed to the function, but got len(in_axes)={len(in_axes)}, "
                f"len(args)={len(args)}")
        all_args = (args, kwargs)
        axes = _broadcast_prefix((in_axes, 0), all_args, "in_axes")
        paths_leaves, in_tree = tree_util.tree_flatten_with_path(all_args)
        leaves = [x for _, x in paths_leaves]
        names = _arg_names(fun, args)
        descs = []
        for path, _ in paths_leaves:
            if path[0].idx == 0:
                descs.append(names[path[1].idx] + tree_util.keystr(path[2:]))
            else:
                descs.append(f"kwargs{tree_util.keystr(path[1:])}")
        dims, sizes = [], []
        for x, a, desc in zip(leaves, axes, descs):
            if a is None:
                dims.append(None)
                continue
            aval = core.get_aval(x)
            if not -aval.ndim <= a < aval.ndim:
                raise core.value_error(
                    f"vmap was requested to map its argument along axis {a}, which implies that "
                    f"its rank should be at least {a + 1 if a >= 0 else -a}, but is only "
                    f"{aval.ndim} (its shape is {aval.shape}) for {desc}")
            d = a % aval.ndim
            dims.append(d)
            sizes.append((aval.shape[d], d, desc, aval))
        distinct = {s for s, *_ in sizes}
        if axis_size is not None:
            distinct.add(int(axis_size))
        if len(distinct) > 1:
            lines = [f"  * {desc} of type {aval.str_short()} has size {s} along axis {d}"
                     for s, d, desc, aval in sizes]
            if axis_size is not None:
                lines.append(f"  * axis_size is {axis_size}")
            raise core.value_error("vmap got inconsistent sizes for array axes to be mapped:\n"
                                   + "\n".join(lines))
        if not distinct:
            raise core.value_error("vmap must have at least one non-None value in in_axes, or "
                                   "be given axis_size")
        size = distinct.pop()
        trace = BatchTrace(size, axis_name)
        wrapped = [trace.wrap(x, d) for x, d in zip(leaves, dims)]
        call_args, call_kwargs = tree_util.tree_unflatten(in_tree, wrapped)
        with core.set_current_trace(trace):
            out = fun(*call_args, **call_kwargs)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        out_specs = _broadcast_prefix(out_axes, out, "out_axes")
        results = []
        with core.set_current_trace(trace.parent):
            for o, spec in zip(out_leaves, out_specs):
                v, d = trace.unpack(o)
                if spec is None:
                    if d is not None:
                        raise core.value_error(
                            "vmap has mapped output but out_axes is None")
                    results.append(v)
                    continue
                ndim = core.get_aval(v).ndim + (d is None)
                if not -ndim <= spec < ndim:
                    raise core.value_error(
                        f"vmap out_axes specification {spec} is out of bounds for an output of "
                        f"rank {ndim - 1} (batched rank {ndim})")
                results.append(matchaxis(v, d, spec % ndim, size))
        return tree_util.tree_unflatten(out_tree, results)

    vmapped.__name__ = getattr(fun, "__name__", "vmapped")
    vmapped.__doc__ = getattr(fun, "__doc__", None)
    return vmapped
