"""checkify: run-time error checks returned as values (``jax.experimental.checkify``).

``checkify(f, errors)`` traces ``f`` to a Graph and interprets it equation by
equation on the current trace (eagerly, into an enclosing ``jit``, under
``vmap`` or ``grad``), threading an *error state* through the computation:

* ``flag`` (bool[]): whether a check has failed;
* ``code`` (int32[]): which check failed first, 1 + its index in the static
  table of check sites (0: none);
* one slot of payload arrays per site that needs run-time values for its
  message (the offending index of an out-of-bounds access, the format
  arguments of a user ``check``).

A site is a static fact about one equation (a primitive that may make a NaN, a
division, an indexing primitive, a ``check``); the table of sites is collected
by walking the graph and its control-flow sub-graphs before anything runs, so
the state has the same structure everywhere: ``cond`` branches, ``while_loop``
and ``scan`` bodies take it as extra operands and carries and return it
updated. The first failure (in execution order) wins: later failures leave the
code and payloads alone. ``Error`` is a pytree of the state's arrays with the
site table as static data, so ``jit(checkify(f))`` returns it as values and
``vmap(checkify(f))`` batches it.

``check(pred, msg, *fmt_args, **fmt_kwargs)`` is the primitive ``check``
holding an error (flag = not pred); checkify folds it into the state, and
outside checkify it raises ``JaxRuntimeError`` on concrete values.
``checkpoint`` bodies thread the state like loop bodies; a ``custom_jvp`` or
``custom_vjp`` function is bound unchanged (its derivative rule stays) and its
checks come from a second, derivative-free run of its graph. Other primitives
holding sub-graphs (the custom solvers, sort comparators) get no checks inside.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numlir._src import ad, batching, core, dtypes, traceback_util, tree_util
from numlir._src.lax import control_flow, slicing
from numlir._src.lax import elementwise as ew
from numlir._src.lax import scan as scan_lib
from numlir._src.numpy import creation, reductions, reshaping, ufuncs
from numlir._src.partial_eval import hoist_consts

# --- Error categories (the sets of checks to enable) ----------------------------------------


class JaxRuntimeError(ValueError):
    """Raised by ``Error.throw()``/``check_error`` (and ``check`` outside checkify) on failure."""


class FailedCheckError(Exception):
    """The category of user ``check``s."""


class NaNError(Exception):
    """The category of NaNs made by floating-point primitives."""


class DivisionByZeroError(Exception):
    """The category of divisions by zero."""


class OOBError(Exception):
    """The category of out-of-bounds indexing (gather, scatter, dynamic_slice and
    dynamic_update_slice)."""


for _cls in (JaxRuntimeError, FailedCheckError, NaNError, DivisionByZeroError, OOBError):
    _cls.__module__ = "numlir.experimental.checkify"

user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks

#: Primitives whose NaN outputs nan_checks reports (jax's list, by primitive name).
_NAN_PRIMITIVES = frozenset({
    "acos", "acosh", "add", "asin", "asinh", "atan2", "atan", "atanh", "bessel_i0e", "bessel_i1e",
    "cbrt", "conv_general_dilated", "cos", "cosh", "cumlogsumexp", "cummax", "cummin", "cumprod",
    "cumsum", "digamma", "dot_general", "erf_inv", "erf", "erfc", "exp", "expm1", "fft",
    "igamma_grad_a", "igamma", "igammac", "integer_pow", "lgamma", "custom_linear_solve", "log1p",
    "log", "logistic", "mul", "pad", "pow", "psum", "reduce", "reduce_prod", "reduce_sum",
    "reduce_window", "reduce_window_sum", "regularized_incomplete_beta", "rem", "rng_uniform",
    "rsqrt", "sin", "sinh", "sqrt", "sub", "tan", "tanh", "div",
    "scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max",
})
_SCATTERS = frozenset({"scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max"})
_INDEXING = _SCATTERS | {"gather", "dynamic_slice", "dynamic_update_slice"}


# --- Check sites and the Error value ----------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Site:
    """A check's static description: its category, where it is in the user's code and what its
    message needs besides the payload."""

    category: type
    where: str = ""  # "file:line", or "" when unknown
    prim: str = ""
    shape: tuple = ()
    fmt: str = ""
    fmt_tree: Any = None  # treedef of the (args, kwargs) of a user check

    @property
    def num_payloads(self) -> int:
        if self.category is OOBError:
            return 1
        if self.category is FailedCheckError:
            return self.fmt_tree.num_leaves
        return 0

    def message(self, payload: Sequence[np.ndarray]) -> str:
        if self.category is NaNError:
            text = f"nan generated by primitive: {self.prim}"
        elif self.category is DivisionByZeroError:
            text = "division by zero"
        elif self.category is OOBError:
            index, axis, size = (int(v) for v in np.asarray(payload[0]))
            text = (f"out-of-bounds indexing for array of shape {self.shape}: index {index} is "
                    f"out of bounds for axis {axis} with size {size}")
        else:
            args, kwargs = tree_util.tree_unflatten(self.fmt_tree, [np.asarray(p) for p in payload])
            text = self.fmt.format(*args, **kwargs) + " (`check` failed)"
        return f"{text} at {self.where}" if self.where else text


class Error:
    """The outcome of a checkified function: whether a check failed, and which one first.

    ``get()`` is the message (None when nothing failed), ``throw()`` raises it as a
    ``JaxRuntimeError``. An Error is a pytree (its arrays are its leaves), so it can be
    returned from ``jit`` and batched by ``vmap``; a batched Error reports every batch
    element that failed, as ``at mapped index i: message`` lines.
    """

    __slots__ = ("_code", "_flag", "_payloads", "_sites")

    def __init__(self, flag, code, payloads: Sequence[Any], sites: tuple[_Site, ...]):
        self._flag, self._code = flag, code
        self._payloads = tuple(payloads)
        self._sites = tuple(sites)

    def _payload_of(self, site_index: int) -> list:
        start = sum(s.num_payloads for s in self._sites[:site_index])
        return list(self._payloads[start:start + self._sites[site_index].num_payloads])

    def _message_at(self, idx: tuple) -> str:
        code = int(np.asarray(self._code)[idx])
        payload = [np.asarray(p)[idx] for p in self._payload_of(code - 1)]
        return self._sites[code - 1].message(payload)

    def get(self) -> str | None:
        """The message of the first failed check, or None if every check passed."""
        flag = np.asarray(self._flag)
        if flag.ndim == 0:
            return self._message_at(()) if flag else None
        lines = [f"at mapped index {', '.join(map(str, idx))}: {self._message_at(idx)}"
                 for idx in np.ndindex(*flag.shape) if flag[idx]]
        return "\n".join(lines) if lines else None

    def throw(self) -> None:
        """Raises ``JaxRuntimeError`` with the message if a check failed."""
        check_error(self)

    def __str__(self):
        return f"Error({self.get()})"

    __repr__ = __str__


tree_util.register_pytree_node(
    Error, lambda e: ((e._flag, e._code, *e._payloads), e._sites),
    lambda sites, leaves: Error(leaves[0], leaves[1], leaves[2:], sites))


def _where(info: core.SourceInfo | None) -> str:
    return str(info) if info is not None else ""


def _raise_if_failed(error: Error) -> None:
    message = error.get()
    if message is not None:
        raise JaxRuntimeError(message)


# --- The check primitive ------------------------------------------------------------------------

_NOT_FUNCTIONALIZED = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably "
    "means you tried to stage (jit/scan/while_loop/...) a `check` without functionalizing it "
    "through `checkify.checkify`.")


class _CheckPrimitive(core.Primitive):
    """``check``: raises right away on concrete values (eager, or reached through a
    transformation that re-binds it on concrete values); recorded otherwise."""

    multiple_results = True

    def bind(self, *args, **params):
        return self.bind_with_trace(core.current_trace(), args, params)

    def bind_with_trace(self, trace, args, params):
        if isinstance(trace, core.EvalTrace):
            if params["debug"]:
                return []
            flag, code, *payloads = args
            _raise_if_failed(Error(flag, code, payloads, params["sites"]))
            return []
        if not params["debug"] and _staged_by_jit(trace):
            # jit would drop the equation (it has no outputs): say so now, as jax does.
            raise ValueError(_NOT_FUNCTIONALIZED)
        return super().bind_with_trace(trace, args, params)


def _staged_by_jit(trace: core.Trace) -> bool:
    """Whether ``trace`` records for a ``jit`` that no ``checkify`` inside it functionalizes."""
    while trace is not None:
        debug = getattr(trace, "debug", None)
        if isinstance(trace, core.GraphTrace) and debug is not None:
            if debug.traced_for == "checkify":
                return False
            if debug.traced_for == "jit":
                return True
        trace = getattr(trace, "parent", None)
    return False


check_p = _CheckPrimitive("check")
check_p.def_abstract_eval(lambda *avals, sites, debug: [])


@check_p.def_lowering
def _check_lowering(ctx, *args, sites, debug):
    if debug:
        return []  # a debug_check outside checkify does nothing
    raise ValueError(_NOT_FUNCTIONALIZED)


def _first_failure(leaves: Sequence[Any]) -> list:
    """The leaves of a batched error (batch axes first, any shape) reduced to one error: the
    first batch element that failed (or element 0, with flag False, if none did)."""
    flag = leaves[0]
    batch = core.get_aval(flag).shape
    if not batch:
        return list(leaves)
    n = int(np.prod(batch))
    flat_flag = reshaping.reshape(flag, (n,))
    first = reductions.argmax(ew.convert_element_type(flat_flag, np.int32))
    out = [reductions.any(flat_flag)]
    for leaf in leaves[1:]:
        shape = core.get_aval(leaf).shape
        flat = reshaping.reshape(leaf, (n, *shape[len(batch):]))
        out.append(slicing.dynamic_index_in_dim(flat, first, 0, keepdims=False))
    return out


def _check_batch_rule(axis_size, args, dims, **params):
    leaves = [batching.bdim_to_front(a, d, axis_size) for a, d in zip(args, dims)]
    check_p.bind(*_first_failure(leaves), **params)
    return [], []


batching.defrule(check_p, _check_batch_rule)
ad.defjvp_rule(check_p, lambda primals, tangents, **params: (check_p.bind(*primals, **params), []))


def _check_fmt_leaves(leaves) -> None:
    for leaf in leaves:
        if isinstance(leaf, core.Tracer) or hasattr(leaf, "aval") or isinstance(leaf, np.ndarray):
            continue
        raise TypeError("Formatting arguments to checkify.check need to be PyTrees of arrays, "
                        f"but got {leaf!r} of type {type(leaf)}.")


def _check(pred, msg: str, debug: bool, fmt_args, fmt_kwargs) -> None:
    aval = core.get_aval(pred) if not isinstance(pred, bool) else core.ShapedArray((), np.bool_)
    if aval.shape != () or aval.dtype != np.bool_:
        raise TypeError(f"{'debug_check' if debug else 'check'} takes a scalar pred as argument, "
                        f"got {pred}")
    leaves, tree = tree_util.tree_flatten((fmt_args, fmt_kwargs))
    _check_fmt_leaves(leaves)
    site = _Site(FailedCheckError, _where(core.user_source_info()), fmt=msg, fmt_tree=tree)
    failed = ufuncs.logical_not(pred)
    check_p.bind(failed, np.int32(1), *leaves, sites=(site,), debug=debug)


def check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
    """Adds a run-time check: if ``pred`` (a scalar bool) is False, the error ``msg`` is
    recorded (under ``checkify``) or raised (``JaxRuntimeError``, on concrete values).

    ``msg`` is a format string; ``fmt_args``/``fmt_kwargs`` are arrays (traced values too)
    whose run-time values fill it in.

    Example::

        def f(x):
            checkify.check(x > 0, "{x} needs to be positive!", x=x)
            return 1 / x

        err, out = numlir.jit(checkify.checkify(f))(-3.0)
        err.get()   # '-3.0 needs to be positive! (`check` failed) at .../file.py:2'
    """
    _check(pred, msg, False, fmt_args, fmt_kwargs)


def debug_check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
    """``check`` under ``checkify``; outside it (eagerly or staged out) nothing happens.

    Example::

        def f(x):
            checkify.debug_check(x != 0, "cannot be zero!")
            return x

        f(0)                                    # no error
        err, _ = checkify.checkify(f)(jnp.asarray(0))
        err.get()   # 'cannot be zero! (`check` failed) at .../file.py:2'
    """
    _check(pred, msg, True, fmt_args, fmt_kwargs)


def check_error(error: Error) -> None:
    """Raises ``JaxRuntimeError`` if ``error`` holds a failure; under ``checkify`` the error
    is merged into the checkified function's error instead (as ``jax``'s ``check_error``)."""
    if not isinstance(error, Error):
        raise TypeError(f"check_error takes an Error as argument, got type {type(error)} instead.")
    leaves = tree_util.tree_leaves(error)
    if not any(isinstance(x, core.Tracer) for x in leaves):
        _raise_if_failed(error)
        return
    check_p.bind(*_first_failure(leaves), sites=error._sites, debug=False)


# --- The checkify interpreter -----------------------------------------------------------------


def _is_float(aval: core.ShapedArray) -> bool:
    return dtypes.issubdtype(aval.dtype, np.inexact)


class _State:
    """The error state while a graph is interpreted (values of the current trace)."""

    def __init__(self, keys: Sequence, flat: Sequence[Any], num_payloads: dict):
        self.flag, self.code = flat[0], flat[1]
        self.payloads, it = {}, iter(flat[2:])
        for k in keys:
            self.payloads[k] = [next(it) for _ in range(num_payloads[k])]

    def flat(self) -> list:
        return [self.flag, self.code] + [p for ps in self.payloads.values() for p in ps]


class _Checker:
    """The check sites of one checkified function, and the interpreter that adds them."""

    def __init__(self, errors: frozenset):
        self.errors = errors
        self.sites: dict[Any, _Site] = {}  # key -> site, in code order
        self.codes: dict[Any, int] = {}
        self.payload_avals: dict[Any, list[core.ShapedArray]] = {}

    # -- the site table (static) --

    def _add(self, key, site: _Site, avals: Sequence[core.ShapedArray]) -> None:
        if key not in self.sites:
            self.sites[key] = site
            self.codes[key] = len(self.sites)
            self.payload_avals[key] = [a.strip_weak_type() for a in avals]

    def collect(self, graph: core.Graph) -> None:
        for eqn in graph.eqns:
            name, where = eqn.prim.name, _where(eqn.source_info)
            if eqn.prim is check_p:
                avals = [a.aval for a in eqn.inputs[2:]]
                for j, site in enumerate(eqn.params["sites"]):
                    n = site.num_payloads
                    if site.category in self.errors:
                        self._add((id(eqn), j), site, avals[:n])
                    avals = avals[n:]
            if name == "div" and DivisionByZeroError in self.errors:
                self._add((id(eqn), "div"), _Site(DivisionByZeroError, where), [])
            if name in _INDEXING and OOBError in self.errors:
                shape = eqn.inputs[0].aval.shape
                index = eqn.inputs[2 if name == "dynamic_update_slice" else 1:]
                wide = bool(index) and index[0].aval.dtype.itemsize == 8
                payload = core.ShapedArray((3,), np.int64 if wide else np.int32)
                self._add((id(eqn), "oob"), _Site(OOBError, where, name, shape), [payload])
            if (name in _NAN_PRIMITIVES and NaNError in self.errors
                    and any(_is_float(v.aval) for v in eqn.outputs)):
                self._add((id(eqn), "nan"), _Site(NaNError, where, name), [])
            for sub in _subgraphs(eqn):
                self.collect(sub.graph)

    def initial_state(self) -> _State:
        flat = [np.zeros((), np.bool_), np.zeros((), np.int32)]
        for avals in self.payload_avals.values():
            flat += [np.zeros(a.shape, a.dtype) for a in avals]
        return self.state(flat)

    def state(self, flat: Sequence[Any]) -> _State:
        return _State(list(self.sites), flat,
                      {k: len(v) for k, v in self.payload_avals.items()})

    def state_avals(self) -> list[core.ShapedArray]:
        avals = [core.ShapedArray((), np.bool_), core.ShapedArray((), np.int32)]
        return avals + [a for avs in self.payload_avals.values() for a in avs]

    def error(self, state: _State) -> Error:
        payloads = [p for ps in state.payloads.values() for p in ps]
        return Error(state.flag, state.code, payloads, tuple(self.sites.values()))

    # -- updating the state --

    def update(self, state: _State, key, failed, payload: Sequence[Any] = ()) -> None:
        """Records the failure ``failed`` (a bool scalar) of site ``key``, unless an earlier
        check failed already."""
        if key not in self.sites:
            return
        first = ufuncs.logical_and(failed, ufuncs.logical_not(state.flag))
        state.code = ew.select(first, np.int32(self.codes[key]), state.code)
        state.payloads[key] = [
            ew.select(first, ew.convert_element_type(new, a.dtype), old)
            for new, old, a in zip(payload, state.payloads[key], self.payload_avals[key])]
        state.flag = ufuncs.logical_or(state.flag, failed)

    def merge(self, state: _State, eqn: core.Eqn, leaves: Sequence[Any]) -> None:
        """Folds the error held by a ``check`` equation into the state."""
        flag, code, *payloads = leaves
        for j, site in enumerate(eqn.params["sites"]):
            n = site.num_payloads
            mine, payloads = payloads[:n], payloads[n:]
            self.update(state, (id(eqn), j), ufuncs.logical_and(flag, ufuncs.equal(code, j + 1)),
                        mine)

    # -- the interpreter --

    def run(self, graph: core.Graph, consts: Sequence[Any], args: Sequence[Any],
            state: _State) -> list:
        env: dict[int, Any] = {}

        def read(atom):
            return atom.val if isinstance(atom, core.Literal) else env[id(atom)]

        for v, x in zip(graph.constvars, consts):
            env[id(v)] = x
        for v, x in zip(graph.invars, args):
            env[id(v)] = x
        for eqn in graph.eqns:
            with core.source_info_scope(eqn.source_info):
                outs = self.apply(eqn, [read(a) for a in eqn.inputs], state)
            for v, o in zip(eqn.outputs, outs if eqn.prim.multiple_results else [outs]):
                env[id(v)] = o
        return [read(a) for a in graph.outvars]

    def apply(self, eqn: core.Eqn, invals: list, state: _State):
        prim, params = eqn.prim, eqn.params
        rule = _HIGHER_ORDER_RULES.get(prim.name)
        if prim is check_p:
            self.merge(state, eqn, invals)
            return []
        if rule is not None:
            return rule(self, eqn, invals, state)
        key = id(eqn)
        if (key, "div") in self.sites:
            self.update(state, (key, "div"), reductions.any(ufuncs.equal(invals[1], 0)))
        if (key, "oob") in self.sites:
            oob = _out_of_bounds(prim.name, invals, params)
            if oob is not None:
                self.update(state, (key, "oob"), *oob)
        outs = prim.bind(*invals, **params)
        if (key, "nan") in self.sites:
            results = outs if prim.multiple_results else [outs]
            nans = [reductions.any(ufuncs.isnan(o)) for o in results
                    if _is_float(core.get_aval(o))]
            failed = functools.reduce(ufuncs.logical_or, nans)
            self.update(state, (key, "nan"), failed)
        return outs

    def checked_graph(self, in_avals: Sequence[core.ShapedArray], num_leading: int,
                      body: Callable) -> tuple[core.ClosedGraph, list]:
        """``body(leading, state, rest) -> outs`` (updating ``state``) traced for ``in_avals``
        with the state's avals inserted after the first ``num_leading``, as a constant-free
        graph ``(hoisted, leading, state, rest) -> (state, outs)`` and the values of
        ``hoisted``."""
        in_avals = list(in_avals)
        ns = len(self.state_avals())

        def fun(*args):
            lead = list(args[:num_leading])
            state = self.state(args[num_leading:num_leading + ns])
            outs = body(lead, state, list(args[num_leading + ns:]))
            return state.flat() + list(outs)

        avals = in_avals[:num_leading] + self.state_avals() + in_avals[num_leading:]
        return hoist_consts(core.trace_to_graph(fun, avals))


def _subgraphs(eqn: core.Eqn) -> list[core.ClosedGraph]:
    name, p = eqn.prim.name, eqn.params
    if name == "cond":
        return list(p["branches"])
    if name == "while":
        return [p["cond_graph"], p["body_graph"]]
    if name in ("scan", "checkpoint"):
        return [p["graph"]]
    if name in _CUSTOM_CALLS:
        return [p["call"]]
    return []


# --- Out-of-bounds conditions ------------------------------------------------------------------


def _oob_payload(mask, indices, dims_map: Sequence[int], operand_shape):
    """(any out of bounds, [the first such index, its axis, the axis size]: int32, or int64 for
    64-bit indices); ``indices`` has its index vectors along the last axis, ``dims_map`` their
    operand axes."""
    n = core.get_aval(mask).size
    flat_mask = reshaping.reshape(mask, (n,))
    first = reductions.argmax(ew.convert_element_type(flat_mask, np.int32))
    pos = ew.rem(first, np.asarray(len(dims_map), core.get_aval(first).dtype))
    dtype = np.int64 if core.get_aval(indices).dtype.itemsize == 8 else np.int32
    axes = np.asarray(dims_map, dtype)
    sizes = np.asarray([operand_shape[d] for d in dims_map], dtype)
    flat_idx = ew.convert_element_type(reshaping.reshape(indices, (n,)), dtype)
    pick = lambda a, i: slicing.dynamic_index_in_dim(creation.asarray(a), i, 0, keepdims=False)
    payload = reshaping.reshape(creation.asarray(
        [pick(flat_idx, first), pick(axes, pos), pick(sizes, pos)]), (3,))
    return reductions.any(flat_mask), [ew.convert_element_type(payload, dtype)]


def _out_of_bounds(name: str, invals: list, params: dict):
    operand = invals[0]
    shape = core.get_aval(operand).shape
    if name in ("dynamic_slice", "dynamic_update_slice"):
        starts = invals[1:] if name == "dynamic_slice" else invals[2:]
        if not starts:
            return None
        sizes = (params["slice_sizes"] if name == "dynamic_slice"
                 else core.get_aval(invals[1]).shape)
        dtype = core.get_aval(starts[0]).dtype
        idx = creation.asarray([ew.convert_element_type(s, dtype) for s in starts])
        limit = np.asarray([d - s for d, s in zip(shape, sizes)], dtype)
        mask = ufuncs.logical_or(ufuncs.less(idx, 0), ufuncs.greater(idx, limit))
        return _oob_payload(mask, idx, range(len(shape)), shape)
    indices = invals[1]
    iaval = core.get_aval(indices)
    ivd = params["index_vector_dim"]
    if ivd == iaval.ndim:
        indices = reshaping.reshape(indices, (*iaval.shape, 1))
    elif ivd != iaval.ndim - 1:
        indices = batching.moveaxis(indices, ivd, iaval.ndim - 1)
    if core.get_aval(indices).size == 0:
        return None
    dn = params["dimension_numbers"]
    if name == "gather":
        dims_map, slice_sizes = dn.start_index_map, params["slice_sizes"]
    else:
        dims_map = dn.scatter_dims_to_operand_dims
        window = iter(core.get_aval(invals[2]).shape[d] for d in dn.update_window_dims)
        slice_sizes = [1 if d in dn.inserted_window_dims else next(window)
                       for d in range(len(shape))]
    dtype = core.get_aval(indices).dtype
    limit = np.asarray([shape[d] - slice_sizes[d] for d in dims_map], np.int64)
    limit = np.minimum(limit, np.iinfo(dtype).max).astype(dtype)
    mask = ufuncs.logical_or(ufuncs.less(indices, 0), ufuncs.greater(indices, limit))
    return _oob_payload(mask, indices, dims_map, shape)


# --- Control flow: the state as extra operands and carries --------------------------------------


def _cond_rule(checker: _Checker, eqn, invals, state: _State):
    index, rest = invals[0], invals[1:]
    branches, const_counts = eqn.params["branches"], eqn.params["const_counts"]
    consts, ops = rest[:sum(const_counts)], rest[sum(const_counts):]
    new_branches, new_consts, new_counts, start = [], [], [], 0
    for graph, count in zip(branches, const_counts):
        def body(lead, st, rest, graph=graph):
            return checker.run(graph.graph, graph.consts, lead + rest, st)

        closed, hoisted = checker.checked_graph(graph.in_avals, count, body)
        new_branches.append(closed)
        new_consts += hoisted + list(consts[start:start + count])
        new_counts.append(len(hoisted) + count)
        start += count
    flat = state.flat()
    outs = control_flow.cond_p.bind(index, *new_consts, *flat, *ops, branches=tuple(new_branches),
                                    const_counts=tuple(new_counts))
    _set_state(state, checker.state(outs[:len(flat)]))
    return outs[len(flat):]


def _while_rule(checker: _Checker, eqn, invals, state: _State):
    p = eqn.params
    cond_graph, body_graph = p["cond_graph"], p["body_graph"]
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    cconsts, bconsts, init = invals[:cn], invals[cn:cn + bn], invals[cn + bn:]
    # The first evaluation of the predicate; the body checks each later one.
    checker.run(cond_graph.graph, cond_graph.consts, cconsts + init, state)

    def body(lead, st, carry):
        new = checker.run(body_graph.graph, body_graph.consts, lead[cn:] + carry, st)
        checker.run(cond_graph.graph, cond_graph.consts, lead[:cn] + new, st)
        return new

    def cond(lead, st, carry):
        scratch = checker.state(st.flat())  # the predicate's own checks ran in the body
        return checker.run(cond_graph.graph, cond_graph.consts, lead + carry, scratch)

    new_body, body_hoisted = checker.checked_graph(
        cond_graph.in_avals[:cn] + body_graph.in_avals, cn + bn, body)
    new_cond, cond_hoisted = checker.checked_graph(cond_graph.in_avals, cn, cond)
    # The cond graph returns only the predicate.
    g = new_cond.graph
    ns = len(state.flat())
    new_cond = core.ClosedGraph(core.Graph(g.constvars, g.invars, g.eqns, g.outvars[ns:]),
                                new_cond.consts)
    flat = state.flat()
    outs = control_flow.while_p.bind(
        *cond_hoisted, *cconsts, *body_hoisted, *cconsts, *bconsts, *flat, *init,
        cond_graph=new_cond, body_graph=new_body, cond_nconsts=len(cond_hoisted) + cn,
        body_nconsts=len(body_hoisted) + cn + bn)
    _set_state(state, checker.state(outs[:ns]))
    return outs[ns:]


def _scan_rule(checker: _Checker, eqn, invals, state: _State):
    p = eqn.params
    graph, nc = p["graph"], p["num_consts"]

    def body(lead, st, rest):
        return checker.run(graph.graph, graph.consts, lead + rest, st)

    closed, hoisted = checker.checked_graph(graph.in_avals, nc, body)
    flat = state.flat()
    params = dict(p, graph=closed, num_consts=len(hoisted) + nc,
                  num_carry=len(flat) + p["num_carry"])
    outs = scan_lib.scan_p.bind(*hoisted, *invals[:nc], *flat, *invals[nc:], **params)
    _set_state(state, checker.state(outs[:len(flat)]))
    return outs[len(flat):]


def _remat_rule(checker: _Checker, eqn, invals, state: _State):
    graph = eqn.params["graph"]

    def body(lead, st, rest):
        return checker.run(graph.graph, graph.consts, rest, st)

    closed, hoisted = checker.checked_graph(graph.in_avals, 0, body)
    flat = state.flat()
    outs = eqn.prim.bind(*hoisted, *flat, *invals, **dict(eqn.params, graph=closed))
    _set_state(state, checker.state(outs[:len(flat)]))
    return outs[len(flat):]


def _custom_call_rule(checker: _Checker, eqn, invals, state: _State):
    """A custom_jvp/custom_vjp function: its outputs come from the primitive (so every
    derivative still uses the custom rule); its checks from running the function's graph
    once more on values whose derivatives are stopped (compilers merge the two)."""
    call = eqn.params["call"]
    checker.run(call.graph, call.consts, [ew.stop_gradient(x) for x in invals], state)
    return eqn.prim.bind(*invals, **eqn.params)


def _set_state(state: _State, new: _State) -> None:
    state.flag, state.code, state.payloads = new.flag, new.code, new.payloads


_CUSTOM_CALLS = ("custom_jvp_call", "custom_vjp_call")
_HIGHER_ORDER_RULES: dict[str, Callable] = {
    "cond": _cond_rule, "while": _while_rule, "scan": _scan_rule, "checkpoint": _remat_rule,
    **{name: _custom_call_rule for name in _CUSTOM_CALLS}}


# --- checkify ------------------------------------------------------------------------------------


def checkify(f: Callable, errors: frozenset = user_checks) -> Callable:
    """``f`` returning ``(err, out)``: ``out`` is ``f``'s output and ``err`` an ``Error``
    holding the first failed check among ``errors`` (``user_checks`` by default; also
    ``nan_checks``, ``div_checks``, ``index_checks``, ``float_checks``, ``automatic_checks``,
    ``all_checks``, combined with ``|`` and ``-``), as ``jax.experimental.checkify``.

    The checks are computed as values (no host callbacks), so the result can be jitted,
    vmapped and differentiated, and ``f`` can contain ``jit``, ``vmap``, ``grad``,
    ``lax.cond``, ``lax.while_loop`` and ``lax.scan``. Messages end with the user's line.

    Example::

        from numlir.experimental import checkify

        def f(x, i):
            return jnp.log(x)[i]

        err, out = numlir.jit(checkify.checkify(f, errors=checkify.all_checks))(
            jnp.array([1.0, -1.0]), 1)
        err.get()   # 'nan generated by primitive: log at .../file.py:4'
        err.throw()  # raises JaxRuntimeError with that message
    """
    core.check_callable(f)
    errors = frozenset(errors)
    for e in errors:
        if not (isinstance(e, type) and issubclass(e, Exception)):
            raise TypeError(f"checkify errors must be a set of error categories such as "
                            f"checkify.nan_checks, got an element {e!r}")

    @traceback_util.api_boundary
    @functools.wraps(f)
    def checked(*args, **kwargs):
        out_tree = []

        def flat_fun():
            leaves, tree = tree_util.tree_flatten(f(*args, **kwargs))
            out_tree.append(tree)
            return leaves

        # The arguments are closed over, as jax does: Python scalars stay Python values.
        closed = core.trace_to_graph(flat_fun, [], core.TraceDebugInfo(
            "checkify", getattr(f, "__name__", "fun"), ()))
        checker = _Checker(errors)
        checker.collect(closed.graph)
        state = checker.initial_state()
        outs = checker.run(closed.graph, closed.consts, [], state)
        return checker.error(state), tree_util.tree_unflatten(out_tree[0], outs)

    return checked
