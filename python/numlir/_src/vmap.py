"""vmap: vectorize a function over an axis of its arguments (the batching interpreter is
batching.py)."""

from __future__ import annotations

import inspect
from typing import Any, Callable

from numlir._src import batching, core, traceback_util, tree_util


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
        trace = batching.BatchTrace(size, axis_name)
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
                results.append(batching.matchaxis(v, d, spec % ndim, size))
        return tree_util.tree_unflatten(out_tree, results)

    vmapped.__name__ = getattr(fun, "__name__", "vmapped")
    vmapped.__doc__ = getattr(fun, "__doc__", None)
    return vmapped
