"""custom_jvp and custom_vjp: functions whose derivative rule the user supplies.

Called with no transformation active, a decorated function simply runs. Under
any trace (jit, jvp, grad, vmap) its body is traced to a sub-graph and bound
as one primitive that carries the user's rules as parameters, so the rule is
still there when the equation is re-evaluated later under another trace
(an inlined jit, a cond/scan body being differentiated or batched):

* ``custom_jvp_call``: its JVP rule calls the user's ``jvp``; reverse mode
  needs nothing more, because the user's tangent computation is linear and is
  recorded and transposed like any other.
* ``custom_vjp_call``: its JVP rule runs ``fwd`` on the primals and emits
  ``custom_lin`` of (residuals, tangents), whose transpose calls ``bwd``.
  ``custom_lin`` has no forward evaluation, which is why forward mode of a
  custom_vjp function fails.

Batching a call batches its sub-graph and wraps its rules in a vmap of their
own. The sub-graph is inlined when lowered: by then no rule is needed.

Values the function closes over become leading operands (``num_consts``).
The rules only see the explicit arguments, so differentiating with respect to
a closed-over value is an error, as in JAX.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

from numlir._src import ad, ad_util, batching, core, dtypes, traceback_util, tree_util
from numlir._src import transpose as tr
from numlir._src.lax.elementwise import convert_element_type
from numlir._src.lax.reduction import reduce_sum
from numlir._src.partial_eval import hoist_consts

# --- Shared helpers -------------------------------------------------------------------------


def _name(fun) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def _resolve_args(fun: Callable, args, kwargs) -> tuple:
    """Keyword and defaulted arguments moved to their positions: the rules take positional
    arguments (all of them, as in jax)."""
    try:
        signature = inspect.signature(fun)
    except (TypeError, ValueError):  # no signature to consult (some builtins)
        if kwargs:
            raise TypeError(f"keyword arguments to {_name(fun)} cannot be resolved to positions")
        return tuple(args)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(f"keyword arguments {sorted(bound.kwargs)} of {_name(fun)} could not be "
                        "resolved to positions")
    return tuple(bound.args)


def _normalize_argnums(name: str, nondiff_argnums: Sequence[int], nargs: int) -> tuple[int, ...]:
    nums = []
    for i in nondiff_argnums:
        if not -nargs <= i < nargs:
            raise TypeError(f"nondiff_argnums {tuple(nondiff_argnums)} of {name} is out of range "
                            f"for a call with {nargs} positional argument(s)")
        nums.append(i % nargs)
    return tuple(sorted(set(nums)))


def _merge(nums: tuple[int, ...], nondiff: Sequence[Any], diff: Sequence[Any]) -> list[Any]:
    """The full argument list from the static arguments (at ``nums``) and the others."""
    args, nondiff_it, diff_it = [], iter(nondiff), iter(diff)
    for i in range(len(nondiff) + len(diff)):
        args.append(next(nondiff_it) if i in nums else next(diff_it))
    return args


def _arg_aval(name: str, what: str, path, x) -> core.ShapedArray:
    try:
        return core.get_aval(x)
    except TypeError:
        hint = "; non-array arguments must be listed in nondiff_argnums" * (what == "argument")
        raise TypeError(f"{name}: {what}{tree_util.keystr(path)} is a {type(x).__name__}, not "
                        f"an array{hint}") from None


def _leaf_paths(tree: tree_util.PyTreeDef) -> list[str]:
    """The key path of each leaf of ``tree``, as text (``['a'][0]``)."""
    dummy = tree_util.tree_unflatten(tree, range(tree.num_leaves))
    return [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(dummy)[0]]


class _Call:
    """One call of a custom_jvp/custom_vjp function, flattened: the pieces both rules share."""

    def __init__(self, fun: Callable, nondiff_argnums, args, kwargs):
        self.name = _name(fun)
        args = _resolve_args(fun, args, kwargs)
        self.nums = _normalize_argnums(self.name, nondiff_argnums, len(args))
        self.nondiff = [a for i, a in enumerate(args) if i in self.nums]
        diff = tuple(a for i, a in enumerate(args) if i not in self.nums)
        paths_leaves, self.in_tree = tree_util.tree_flatten_with_path(diff)
        self.leaves = [x for _, x in paths_leaves]
        self.in_avals = [_arg_aval(self.name, "argument", p, x) for p, x in paths_leaves]
        out_tree_box = []

        def flat_fun(*leaves):
            out = fun(*self.full_args(leaves))
            paths_outs, out_tree = tree_util.tree_flatten_with_path(out)
            for p, o in paths_outs:
                _arg_aval(self.name, "output", p, o)
            out_tree_box.append(out_tree)
            return [o for _, o in paths_outs]

        self.call, self.consts = hoist_consts(core.trace_to_graph(flat_fun, self.in_avals))
        self.out_tree = out_tree_box[0]
        self.out_avals = self.call.out_avals

    def full_args(self, leaves) -> list[Any]:
        return _merge(self.nums, self.nondiff, tree_util.tree_unflatten(self.in_tree, leaves))

    def out_paths(self) -> list[str]:
        return [f"output{p}" for p in _leaf_paths(self.out_tree)]

    def check_outputs(self, rule: str, what: str, out) -> list[Any]:
        """``out``'s leaves, checked to have the structure and types of the function's output."""
        leaves, tree = tree_util.tree_flatten(out)
        if tree != self.out_tree:
            raise TypeError(
                f"Custom {rule} for function {self.name} must produce {what} with the container "
                f"(pytree) structure of {self.name}'s output, but got {tree} where {self.name} "
                f"returns {self.out_tree}")
        for path, leaf, aval in zip(self.out_paths(), leaves, self.out_avals):
            got = _arg_aval(f"custom {rule} for function {self.name}", what, (), leaf)
            if got.shape != aval.shape or got.dtype != aval.dtype:
                raise TypeError(
                    f"Custom {rule} for function {self.name} must produce {what} of the same "
                    f"shapes and dtypes as {self.name}'s output, but at {path} it produced "
                    f"{got.str_short()} where {self.name} returns {aval.str_short()}")
        return leaves


def _check_no_closure_tangents(name: str, kind: str, tangents) -> None:
    for t in tangents:
        if not isinstance(t, ad.Zero):
            raise core.UnexpectedTracerError(
                f"{kind} function {name} closes over a value that is being differentiated "
                f"({core.get_aval(t).str_short()}). Its derivative rules only see its explicit "
                "arguments: pass the value as an argument instead of closing over it.")


def _abstract_eval_call(*avals, call, **_):
    return call.out_avals


def _lower_inline(ctx, *args, call, **_):
    # hlo has no call op, and once lowering runs no transformation needs the rules any more.
    return ctx.inline(call, args)


def _batched_aval(aval: core.ShapedArray, axis_size: int) -> core.ShapedArray:
    return aval.update(shape=(axis_size,) + aval.shape)


def _batch_front(args, dims):
    """Batched operands with the batch axis moved to the front, and their new dims."""
    args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
    return args, [None if d is None else 0 for d in dims]


def _batch_call_graph(call: core.ClosedGraph, axis_size: int, in_dims) -> core.ClosedGraph:
    """``call`` on batched operands, every output batched along axis 0."""
    fun = batching.batch_graph_fn(call, axis_size, in_dims, [True] * len(call.out_avals))
    avals = [a if d is None else _batched_aval(a, axis_size)
             for a, d in zip(call.in_avals, in_dims)]
    return core.trace_to_graph(fun, avals)


def _unbatched_zero(t: ad.Zero, bdim: int | None) -> ad.Zero:
    """A symbolic zero tangent as one example sees it."""
    if bdim is None:
        return t
    return ad.Zero(t.aval.update(shape=t.aval.shape[:bdim] + t.aval.shape[bdim + 1:]))


def _front(trace: batching.BatchTrace, x, axis_size: int):
    """A rule's output under ``trace`` as a value batched along axis 0 (run on the parent)."""
    if isinstance(x, ad.Zero):
        return ad.Zero(_batched_aval(x.aval, axis_size))
    return batching.bdim_to_front(*trace.unpack(x), axis_size)


# --- custom_jvp -----------------------------------------------------------------------------


class CustomVJPPrimal:
    """An argument of a ``defvjp(..., symbolic_zeros=True)`` fwd rule (as jax's): its
    ``value`` and whether it is ``perturbed`` (has a nonzero tangent)."""

    __slots__ = ("value", "perturbed")

    def __init__(self, value, perturbed: bool):
        self.value = value
        self.perturbed = perturbed

    def __repr__(self):
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


class SymbolicZero:
    """A zero tangent handed to a ``defjvp(..., symbolic_zeros=True)`` rule (as jax's).

    The rule can test for it (``isinstance(t, SymbolicZero)``) to skip work, and may
    return one for an output whose tangent is zero.
    """

    __slots__ = ("aval",)

    def __init__(self, aval: core.ShapedArray):
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)

    def __repr__(self):
        return f"SymbolicZero({self.aval.str_short()})"


custom_jvp_call_p = core.Primitive("custom_jvp_call")
custom_jvp_call_p.multiple_results = True
custom_jvp_call_p.def_abstract_eval(_abstract_eval_call)
custom_jvp_call_p.def_lowering(_lower_inline)


class custom_jvp:
    """A function with a user-defined JVP rule, used by every autodiff transformation.

    Example::

        @numlir.custom_jvp
        def log1pexp(x):
            return jnp.log(1.0 + jnp.exp(x))

        @log1pexp.defjvp
        def log1pexp_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))

        numlir.grad(log1pexp)(100.0)   # 1.0, where plain autodiff gives nan

    Arguments at ``nondiff_argnums`` are static (not arrays) and come first in the
    rule: ``jvp(*nondiff_args, primals, tangents)``.
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable | None = None
        self.symbolic_zeros = False

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """Set the rule ``jvp(primals, tangents) -> (primal_out, tangent_out)``; returns ``jvp``.

        Tangents of inputs that are not being differentiated arrive as zeros, or as
        ``SymbolicZero`` objects with ``symbolic_zeros=True``.
        """
        self.jvp = jvp
        self.symbolic_zeros = bool(symbolic_zeros)
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """Set the JVP from one function per argument, ``jvp_i(t_i, primal_out, *primals)``,
        each giving that argument's contribution to the output tangent (``None``: no contribution).

        Example::

            f.defjvps(lambda t, ans, x, y: t * y, lambda t, ans, x, y: t * x)   # f(x, y) = x * y
        """
        if self.nondiff_argnums:
            raise TypeError("Can't use defjvps with nondiff_argnums.")

        def jvp(primals, tangents):
            out = self(*primals)
            parts = [fn(t, out, *primals) for fn, t in zip(jvps, tangents) if fn is not None]
            if not parts:
                t_out = tree_util.tree_map(lambda o: ad_util.zeros_like_aval(core.get_aval(o)), out)
            else:
                t_out = tree_util.tree_map(lambda *ts: functools.reduce(lambda a, b: a + b, ts),
                                           *parts)
            return out, t_out

        jvp.__name__ = f"{_name(self.fun)}_jvps"
        self.defjvp(jvp)

    @traceback_util.api_boundary
    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {_name(self.fun)} "
                                 "using defjvp.")
        if isinstance(core.current_trace(), core.EvalTrace):
            return self.fun(*_resolve_args(self.fun, args, kwargs))
        c = _Call(self.fun, self.nondiff_argnums, args, kwargs)
        outs = custom_jvp_call_p.bind(*c.consts, *c.leaves, call=c.call,
                                      jvp=_flat_jvp_rule(self.jvp, c, self.symbolic_zeros),
                                      num_consts=len(c.consts),
                                      name=c.name)
        return tree_util.tree_unflatten(c.out_tree, outs)


def _flat_jvp_rule(jvp: Callable, c: _Call, symbolic_zeros: bool) -> Callable:
    """The user's rule on flat operand lists: ``(primals, tangents) -> (outs, tangent_outs)``.

    Operands start with the closed-over values, whose tangents (``None``) it ignores.
    Zero tangents (``ad.Zero``) reach the user as zeros, or as ``SymbolicZero``s.
    """
    rule = f"JVP rule {_name(jvp)}"

    def user_tangent(t):
        if not isinstance(t, ad.Zero):
            return t
        return SymbolicZero(t.aval) if symbolic_zeros else ad.instantiate(t)

    def flat_jvp(primals, tangents):
        n = len(c.consts)
        ps = tree_util.tree_unflatten(c.in_tree, primals[n:])
        ts = tree_util.tree_unflatten(c.in_tree, [user_tangent(t) for t in tangents[n:]])
        res = jvp(*c.nondiff, ps, ts)
        if not (isinstance(res, (tuple, list)) and len(res) == 2):
            raise TypeError(
                f"Custom {rule} for function {c.name} must produce a pair (list or tuple of "
                f"length two) of primal and tangent outputs, but got {res!r:.80}")
        out, t_out = res
        outs = c.check_outputs(rule, "primal outputs", out)
        t_leaves, t_tree = tree_util.tree_flatten(t_out)
        if t_tree != c.out_tree:
            raise TypeError(
                f"Custom {rule} for function {c.name} must produce primal and tangent outputs "
                f"with equal container (pytree) structures, but got {c.out_tree} and {t_tree} "
                "respectively")
        t_outs = []
        for path, t, aval in zip(c.out_paths(), t_leaves, c.out_avals):
            if not dtypes.is_inexact(aval.dtype) or isinstance(t, SymbolicZero):
                # No tangent space, or a zero the rule said is zero.
                t_outs.append(ad.Zero(aval.strip_weak_type()))
                continue
            got = _arg_aval(f"custom {rule} for function {c.name}", "tangent output", (), t)
            if got.shape != aval.shape or got.dtype != aval.dtype:
                raise TypeError(
                    f"Custom {rule} for function {c.name} must produce primal and tangent outputs "
                    f"of corresponding shapes and dtypes, but at {path} the primal is "
                    f"{aval.str_short()} and the tangent {got.str_short()}")
            t_outs.append(t)
        return outs, t_outs

    return flat_jvp


def _custom_jvp_call_jvp(primals, tangents, *, call, jvp, num_consts, name):
    _check_no_closure_tangents(name, "custom_jvp", tangents[:num_consts])
    return jvp(list(primals), [None] * num_consts + list(tangents[num_consts:]))


def _custom_jvp_call_batch(axis_size, args, dims, *, call, jvp, num_consts, name):
    args, in_dims = _batch_front(args, dims)

    def batched_jvp(primals, tangents):
        trace = batching.BatchTrace(axis_size)
        ps = [trace.wrap(p, d) for p, d in zip(primals, in_dims)]
        ts = [t if t is None else _unbatched_zero(t, d) if isinstance(t, ad.Zero)
              else trace.wrap(t, d) for t, d in zip(tangents, in_dims)]
        with core.set_current_trace(trace):
            outs, t_outs = jvp(ps, ts)
        return ([_front(trace, o, axis_size) for o in outs],
                [_front(trace, t, axis_size) for t in t_outs])

    outs = custom_jvp_call_p.bind(*args, call=_batch_call_graph(call, axis_size, in_dims),
                                  jvp=batched_jvp, num_consts=num_consts, name=name)
    return outs, [0] * len(outs)


ad.defjvp_rule(custom_jvp_call_p, _custom_jvp_call_jvp)
batching.defrule(custom_jvp_call_p, _custom_jvp_call_batch)


# --- custom_vjp -----------------------------------------------------------------------------

custom_vjp_call_p = core.Primitive("custom_vjp_call")
custom_vjp_call_p.multiple_results = True
custom_vjp_call_p.def_abstract_eval(_abstract_eval_call)
custom_vjp_call_p.def_lowering(_lower_inline)

# The tangent map of a custom_vjp function at a point: linear in its tangent operands,
# known only through its transpose (``bwd``).
custom_lin_p = core.Primitive("custom_lin")
custom_lin_p.multiple_results = True


@custom_lin_p.def_abstract_eval
def _custom_lin_abstract_eval(*avals, num_res, bwd, res_tree, out_avals, name):
    return list(out_avals)


@custom_lin_p.def_lowering
def _custom_lin_lowering(ctx, *args, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


class custom_vjp:
    """A function with a user-defined VJP, used by reverse-mode autodiff (grad, vjp, jacrev).

    Example::

        @numlir.custom_vjp
        def clip_gradient(lo, hi, x):
            return x

        def fwd(lo, hi, x):
            return x, (lo, hi)

        def bwd(res, g):
            lo, hi = res
            return None, None, jnp.clip(g, lo, hi)

        clip_gradient.defvjp(fwd, bwd)

    ``fwd(*args) -> (out, residuals)``; ``bwd(*nondiff_args, residuals, ct)`` returns one
    cotangent per differentiable argument (``None`` for zero). Forward mode (jvp,
    jacfwd) is not available, as in JAX.
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.symbolic_zeros = False

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
               optimize_remat: bool = False) -> None:
        """Set the forward rule ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, ct)``."""
        del optimize_remat  # nothing to optimize: residuals are always saved
        self.fwd, self.bwd = fwd, bwd
        self.symbolic_zeros = bool(symbolic_zeros)

    @traceback_util.api_boundary
    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {_name(self.fun)} "
                                 "using defvjp.")
        if isinstance(core.current_trace(), core.EvalTrace):
            return self.fun(*_resolve_args(self.fun, args, kwargs))
        c = _Call(self.fun, self.nondiff_argnums, args, kwargs)
        outs = custom_vjp_call_p.bind(*c.consts, *c.leaves, call=c.call,
                                      fwd=_flat_fwd(self.fwd, c, self.symbolic_zeros),
                                      bwd=_flat_bwd(self.bwd, c, self.symbolic_zeros),
                                      num_consts=len(c.consts), name=c.name)
        return tree_util.tree_unflatten(c.out_tree, outs)


def _flat_fwd(fwd: Callable, c: _Call, symbolic_zeros: bool) -> Callable:
    """``fwd`` on flat operands (closed-over values first): ``(outs, residuals, res_tree)``.

    ``perturbed`` says which operands have nonzero tangents; with ``symbolic_zeros`` the
    rule gets each differentiable argument leaf as a ``CustomVJPPrimal``.
    """
    rule = f"VJP fwd rule {_name(fwd)}"

    def flat_fwd(primals, perturbed):
        leaves = primals[len(c.consts):]
        if symbolic_zeros:
            leaves = [CustomVJPPrimal(x, p) for x, p in zip(leaves, perturbed[len(c.consts):])]
        res = fwd(*c.full_args(leaves))
        if not (isinstance(res, (tuple, list)) and len(res) == 2):
            raise TypeError(
                f"Custom {rule} for function {c.name} must produce a pair (list or tuple of length "
                f"two): the primal output and the residuals for bwd, but got {res!r:.80}")
        out, residuals = res
        outs = c.check_outputs(rule, "a primal output", out)
        paths_res, res_tree = tree_util.tree_flatten_with_path(residuals)
        for path, r in paths_res:
            _arg_aval(f"custom {rule} for function {c.name}", "residuals", path, r)
        return outs, [r for _, r in paths_res], res_tree

    return flat_fwd


def _flat_bwd(bwd: Callable, c: _Call, symbolic_zeros: bool) -> Callable:
    """``bwd`` on flat lists: ``(res_tree, residuals, cts) -> one cotangent per argument leaf``
    (``ad.Zero`` where ``bwd`` said ``None``/``SymbolicZero`` or the argument has no tangent
    space). Zero cotangents (``ad.Zero``) reach ``bwd`` as zeros, or as ``SymbolicZero``s."""
    rule = f"VJP bwd rule {_name(bwd)}"
    arg_trees = tree_util.treedef_children(c.in_tree)
    in_avals = list(c.in_avals)
    diff_positions = [i for i in range(len(c.nondiff) + len(arg_trees)) if i not in c.nums]

    def flat_bwd(res_tree, residuals, cts):
        cts = [(SymbolicZero(ct.aval) if symbolic_zeros else ad.instantiate(ct))
               if isinstance(ct, ad.Zero) else ct for ct in cts]
        got = bwd(*c.nondiff, tree_util.tree_unflatten(res_tree, residuals),
                  tree_util.tree_unflatten(c.out_tree, cts))
        if not isinstance(got, (tuple, list)) or len(got) != len(arg_trees):
            shape = f"a {type(got).__name__} of length {len(got)}" if isinstance(
                got, (tuple, list)) else f"{type(got).__name__} {got!r:.60}"
            raise TypeError(
                f"Custom {rule} for function {c.name} must produce a tuple with one cotangent "
                f"per differentiable argument ({len(arg_trees)} here), but produced {shape}")
        leaves_out = []
        avals = iter(in_avals)
        for pos, tree, ct in zip(diff_positions, arg_trees, got):
            arg_avals = [next(avals) for _ in range(tree.num_leaves)]
            if ct is None:
                leaves_out += [ad.Zero(a.strip_weak_type()) for a in arg_avals]
                continue
            leaves, ct_tree = tree_util.tree_flatten(ct, is_leaf=lambda x: x is None)
            if ct_tree != tree:
                raise TypeError(
                    f"Custom {rule} for function {c.name} must produce a cotangent with the "
                    f"container (pytree) structure of argument {pos}, {tree}, but got {ct_tree}")
            for path, leaf, aval in zip(_leaf_paths(tree), leaves, arg_avals):
                where = f"argument {pos}{path}"
                leaves_out.append(_check_cotangent(rule, c.name, where, leaf, aval))
        return leaves_out

    return flat_bwd


def _check_cotangent(rule: str, name: str, where: str, ct, aval: core.ShapedArray):
    if ct is None or isinstance(ct, SymbolicZero) or not dtypes.is_inexact(aval.dtype):
        return ad.Zero(aval.strip_weak_type())
    got = _arg_aval(f"custom {rule} for function {name}", "cotangent", (), ct)
    if got.shape != aval.shape:
        raise ValueError(
            f"Custom {rule} for function {name} must produce cotangents of the shapes of the "
            f"arguments, but for {where} of type {aval.str_short()} it produced {got.str_short()}")
    if got.dtype != aval.dtype:  # as jax: a cotangent of another float type is converted

        ct = convert_element_type(ct, aval.dtype)
    return ct


def _custom_vjp_call_jvp(primals, tangents, *, call, fwd, bwd, num_consts, name):
    _check_no_closure_tangents(name, "custom_vjp", tangents[:num_consts])
    outs, residuals, res_tree = fwd(list(primals),
                                    [not isinstance(t, ad.Zero) for t in tangents])
    arg_tangents = [ad.instantiate(t) for t in tangents[num_consts:]]
    out_avals = tuple(a.strip_weak_type() for a in call.out_avals)
    t_outs = custom_lin_p.bind(*residuals, *arg_tangents, num_res=len(residuals), bwd=bwd,
                               res_tree=res_tree, out_avals=out_avals, name=name)
    t_outs = [t if dtypes.is_inexact(a.dtype) else ad.Zero(a) for t, a in zip(t_outs, out_avals)]
    return outs, t_outs


def _custom_lin_transpose(cts, *args, num_res, bwd, res_tree, out_avals, name):
    return [None] * num_res + list(bwd(res_tree, list(args[:num_res]), list(cts)))


def _batch_fwd(fwd: Callable, axis_size: int, in_dims) -> Callable:
    """``fwd`` of the batched call: outputs and residuals all batched along axis 0."""

    def batched_fwd(primals, perturbed):
        trace = batching.BatchTrace(axis_size)
        with core.set_current_trace(trace):
            outs, residuals, res_tree = fwd([trace.wrap(p, d) for p, d in zip(primals, in_dims)],
                                            perturbed)
        return ([_front(trace, o, axis_size) for o in outs],
                [_front(trace, r, axis_size) for r in residuals], res_tree)

    return batched_fwd


def _batch_bwd(bwd: Callable, axis_size: int, res_dims, arg_dims) -> Callable:
    """``bwd`` for a batched call (whose outputs, hence cotangents, are batched along axis 0).

    ``res_dims=None`` means every residual is batched along axis 0. The cotangent of an
    unbatched argument is summed over the batch: every example used that one value.
    """

    def batched_bwd(res_tree, residuals, cts):
        trace = batching.BatchTrace(axis_size)
        rdims = [0] * len(residuals) if res_dims is None else res_dims
        with core.set_current_trace(trace):
            cts_in = bwd(res_tree, [trace.wrap(r, d) for r, d in zip(residuals, rdims)],
                         [_unbatched_zero(ct, 0) if isinstance(ct, ad.Zero) else trace.wrap(ct, 0)
                          for ct in cts])
        out = []
        for ct, d in zip(cts_in, arg_dims):
            if d is not None:
                out.append(_front(trace, ct, axis_size))
            elif isinstance(ct, ad.Zero):
                out.append(ct)
            else:
                v, vd = trace.unpack(ct)
                out.append(v if vd is None else reduce_sum(v, (vd,)))
        return out

    return batched_bwd


def _custom_vjp_call_batch(axis_size, args, dims, *, call, fwd, bwd, num_consts, name):
    args, in_dims = _batch_front(args, dims)
    outs = custom_vjp_call_p.bind(
        *args, call=_batch_call_graph(call, axis_size, in_dims),
        fwd=_batch_fwd(fwd, axis_size, in_dims),
        bwd=_batch_bwd(bwd, axis_size, None, in_dims[num_consts:]), num_consts=num_consts,
        name=name)
    return outs, [0] * len(outs)


def _custom_lin_batch(axis_size, args, dims, *, num_res, bwd, res_tree, out_avals, name):
    args, dims = _batch_front(args, dims)
    outs = custom_lin_p.bind(
        *args, num_res=num_res, bwd=_batch_bwd(bwd, axis_size, dims[:num_res], dims[num_res:]),
        res_tree=res_tree, out_avals=tuple(_batched_aval(a, axis_size) for a in out_avals),
        name=name)
    return outs, [0] * len(outs)


ad.defjvp_rule(custom_vjp_call_p, _custom_vjp_call_jvp)
batching.defrule(custom_vjp_call_p, _custom_vjp_call_batch)
tr.deftranspose(custom_lin_p, _custom_lin_transpose)
batching.defrule(custom_lin_p, _custom_lin_batch)
