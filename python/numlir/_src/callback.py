"""Host callbacks: ``numlir.debug.callback``, ``numlir.debug.print`` and ``numlir.pure_callback``.

Two primitives, lowered to ``hlo.host_callback`` (docs/hlo-dialect.md#host_callback),
which the CPU backend compiles to a call back into this process
(docs/runtime.md#host-callbacks), with the semantics of jax's:

* ``debug_callback`` has a side effect and no outputs: dead-code elimination keeps
  it (core.has_effects), its JVP calls it on the primal values (no tangents), its
  transpose drops it, ``vmap`` calls it once per batch element, in order. Eagerly
  it calls the function at once.
* ``pure_callback`` returns arrays of declared shapes and dtypes and is pure: unused,
  it is removed like any computation. It has no derivative (jax's errors; wrap it
  in ``custom_jvp``); ``vmap`` follows ``vmap_method``.

The Python functions get NumPy arrays (copies), on the thread that runs the
computation; an exception they raise comes out of the call that ran it.

Example::

    >>> @numlir.jit
    ... def f(x):
    ...     numlir.debug.print("x = {}", x)
    ...     return numlir.pure_callback(np.sin, x, x)
    >>> f(jnp.float32(0.5))
    x = 0.5
    Array(0.47942555, dtype=float32)
"""

from __future__ import annotations

import string
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from numlir._src import ad, batching, core, dtypes, host_callbacks, tree_util
from numlir._src import transpose as tr
from numlir._src.array import Array
from numlir._src.lax import scan as scan_lib
from numlir._src.lax import shape_ops, slicing
from numlir._src.lowering import tensor_type

# --- The flat callables the primitives carry -----------------------------------------------


class _KeyedCallable:
    """A host callback equal to another of its class with an equal ``_key()``: primitive
    parameters compare and hash by it, so a function traced again gets the same callback."""

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self), self._key()))


class _FlatCallback(_KeyedCallable):
    """``function`` called on flat leaves: the leaves of ``(args, kwargs)`` that are arrays
    come as operands, the others are fixed (``static``: index -> value). Returns the leaves
    of the result. Equal for the same function and argument structure, so a function
    traced again gets the same callback id."""

    def __init__(self, function: Callable, in_tree, static: tuple[tuple[int, Any], ...]):
        self.function, self.in_tree, self.static = function, in_tree, static

    def _key(self):
        return (self.function, self.in_tree, self.static)

    def __call__(self, *operands) -> list:
        static = dict(self.static)
        dynamic = iter(operands)
        leaves = [static[i] if i in static else next(dynamic)
                  for i in range(len(static) + len(operands))]
        args, kwargs = tree_util.tree_unflatten(self.in_tree, leaves)
        return tree_util.tree_leaves(self.function(*args, **kwargs))


def _is_array_leaf(x) -> bool:
    try:
        core.get_aval(x)
        return True
    except TypeError:
        return False


def _split(args, kwargs) -> tuple[list, tuple[tuple[int, Any], ...], Any]:
    """The array leaves of ``(args, kwargs)``, the others with their positions, the tree."""
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    dynamic = [x for x in leaves if _is_array_leaf(x)]
    static = tuple((i, x) for i, x in enumerate(leaves) if not _is_array_leaf(x))
    try:
        hash(static)
    except TypeError:  # unhashable static leaves: compare by identity
        static = tuple((i, _Identity(x)) for i, x in static)
    return dynamic, static, in_tree


class _Identity:
    """An unhashable static argument, compared by identity; unwrapped when called."""

    def __init__(self, value):
        self.value = value


def _host_values(args) -> list[np.ndarray]:
    return [np.array(core.concrete_to_numpy(a)) for a in args]


def _hlo_types(avals) -> str:
    return ", ".join(tensor_type(a) for a in avals)


def _emit_callback(ctx, operands, ident: int, side_effect: bool) -> list[str]:
    results = ctx.avals_out
    out = _hlo_types(results)
    out = out if len(results) == 1 else f"({out})"
    attrs = " {has_side_effect}" if side_effect else ""
    return ctx.emit_results(
        f"hlo.host_callback id = {ident} ({', '.join(operands)}){attrs} : "
        f"({_hlo_types(ctx.avals_in)}) -> {out}", len(results))


# --- debug_callback: a side effect, no outputs ------------------------------------------------

debug_callback_p = core.Primitive("debug_callback")
debug_callback_p.multiple_results = True
debug_callback_p.effectful = True


@debug_callback_p.def_abstract_eval
def _debug_callback_abstract_eval(*avals, callback, ordered):
    return []


@debug_callback_p.def_impl
def _debug_callback_impl(*args, callback, ordered):
    callback(*_host_values(args))
    return []


class _WrappedFunction(_KeyedCallable):
    """A callable around one function, keyed by it."""

    def __init__(self, function):
        self.function = function

    def _key(self):
        return (self.function,)


class _NoResults(_WrappedFunction):
    """``function`` as a host callback with no results."""

    def __call__(self, *operands):
        self.function(*operands)
        return []


@debug_callback_p.def_lowering
def _debug_callback_lowering(ctx, *operands, callback, ordered):
    ident = host_callbacks.register(_NoResults(callback), ctx.avals_in, [])
    return _emit_callback(ctx, operands, ident, side_effect=True)


def _debug_callback_jvp(primals, tangents, **params):
    return debug_callback_p.bind(*primals, **params), []


ad.defjvp_rule(debug_callback_p, _debug_callback_jvp)
tr.deftranspose(debug_callback_p, lambda cts, *operands, **params: [None] * len(operands))


def _debug_callback_batch(axis_size, args, dims, **params):
    """As jax: the callback once per batch element, in order."""
    for i in range(axis_size):
        debug_callback_p.bind(*[x if d is None else slicing.index_in_dim(x, i, d, keepdims=False)
                                for x, d in zip(args, dims)], **params)
    return [], []


batching.defrule(debug_callback_p, _debug_callback_batch)


def debug_callback(callback: Callable[..., None] | None = None, *args: Any, ordered: bool = False,
                   partitioned: bool = False, **kwargs: Any):
    """Calls ``callback(*args, **kwargs)`` from the computation, with NumPy arrays for the
    array leaves of the arguments; returns None. Inside ``jit`` it runs when the compiled
    code reaches it, never removed as dead code; under ``vmap`` once per batch element;
    under ``grad``/``jvp`` on the forward values. ``ordered=True`` keeps it in program
    order with other ordered callbacks (numlir keeps every callback in program order).
    Without ``callback``, returns a decorator-like function taking it (jax's two-call form).

    Example::

        >>> numlir.jit(lambda x: numlir.debug.callback(print, x) or x)(jnp.arange(3))
        [0 1 2]
        Array([0, 1, 2], dtype=int32)
    """
    def _debug_callback(callback, *c_args, **c_kwargs):
        if not callable(callback):
            raise TypeError("first argument to numlir.debug.callback must be callable, but got an "
                            f"object of type {type(callback)}")
        dynamic, static, in_tree = _split(c_args, c_kwargs)
        flat = _FlatCallback(_ReturnsNothing(callback), in_tree, static)
        debug_callback_p.bind(*dynamic, callback=flat, ordered=bool(ordered))

    if callback is not None:
        _debug_callback(callback, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError("debug_callback received unexpected arguments in the two-call form: "
                        f"{args=} {kwargs=}")
    return _debug_callback


class _ReturnsNothing(_WrappedFunction):
    """``function`` with its static arguments unwrapped; its result ignored."""

    def __call__(self, *args, **kwargs):
        args, kwargs = tree_util.tree_map(
            lambda x: x.value if isinstance(x, _Identity) else x, (args, kwargs),
            is_leaf=lambda x: isinstance(x, _Identity))
        self.function(*args, **kwargs)


# --- debug.print ---------------------------------------------------------------------------


class _FormatChecker(string.Formatter):
    """Checks that a format string's fields exist and every argument is used, without
    formatting values (they may be tracers)."""

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused_args = [arg for i, arg in enumerate(args) if i not in used_args]
        unused_kwargs = [k for k in kwargs if k not in used_args]
        if unused_args:
            raise ValueError(f"Unused positional arguments to `numlir.debug.print`: {unused_args}")
        if unused_kwargs:
            raise ValueError(
                f"Unused keyword arguments to `numlir.debug.print`: {unused_kwargs}. You may be "
                'passing an f-string (i.e, `f"{x}"`) into `numlir.debug.print` and instead should '
                "pass in a regular string.")


class _PrintCallback(_KeyedCallable):
    """Formats and writes one line to sys.stdout, as jax.debug.print does."""

    def __init__(self, fmt: str, printoptions: tuple, has_placeholders: bool):
        self.fmt, self.printoptions, self.has_placeholders = fmt, printoptions, has_placeholders

    def _key(self):
        return (self.fmt, self.printoptions, self.has_placeholders)

    def __call__(self, *args, **kwargs):
        if self.has_placeholders:
            with np.printoptions(**dict(self.printoptions)):
                message = self.fmt.format(*args, **kwargs)
        else:
            message = " ".join((self.fmt, *(str(a) for a in args)))
        sys.stdout.write(message + "\n")


def debug_print(fmt: str | None = None, *args, ordered: bool = False, partitioned: bool = False,
                skip_format_check: bool = False, **kwargs):
    """Prints ``fmt.format(*args, **kwargs)`` from the computation with the runtime values
    (NumPy arrays), eagerly and inside ``jit``, ``vmap`` (a line per batch element),
    ``grad`` (the forward values), loops and conditionals. Use placeholders, not
    f-strings: formatting happens when the values exist.

    Example::

        >>> @numlir.jit
        ... def f(x):
        ...     numlir.debug.print("x = {x}", x=x)
        ...     return x + 1
        >>> _ = f(jnp.arange(3))
        x = [0 1 2]
    """
    def _debug_print(fmt: str, *c_args, **c_kwargs):
        if not skip_format_check:
            _FormatChecker().format(fmt, *c_args, **c_kwargs)
        has_placeholders = False
        if fmt:
            _, field_name, *_ = next(iter(string.Formatter().parse(fmt)))
            has_placeholders = field_name is not None
        printoptions = tuple(sorted(np.get_printoptions().items(), key=lambda kv: kv[0]))
        try:
            hash(printoptions)
        except TypeError:
            printoptions = tuple((k, v) for k, v in printoptions if k != "formatter")
        debug_callback(_PrintCallback(fmt, printoptions, has_placeholders), *c_args,
                       ordered=ordered, **c_kwargs)

    if fmt is not None:
        _debug_print(fmt, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(f"debug_print received unexpected arguments in the two-call form: "
                        f"{args=} {kwargs=}")
    return _debug_print


# --- pure_callback: results of declared shapes, no side effect ---------------------------------

pure_callback_p = core.Primitive("pure_callback")
pure_callback_p.multiple_results = True

_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None)


@pure_callback_p.def_abstract_eval
def _pure_callback_abstract_eval(*avals, callback, result_avals, vmap_method):
    return list(result_avals)


@pure_callback_p.def_impl
def _pure_callback_impl(*args, callback, result_avals, vmap_method):
    results = host_callbacks.check_results(callback(*_host_values(args)), result_avals)
    return [Array(np.array(r), aval) for r, aval in zip(results, result_avals)]


@pure_callback_p.def_lowering
def _pure_callback_lowering(ctx, *operands, callback, result_avals, vmap_method):
    if not result_avals:
        return []
    ident = host_callbacks.register(callback, ctx.avals_in, result_avals)
    return _emit_callback(ctx, operands, ident, side_effect=False)


def _pure_callback_jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. Please use `numlir.custom_jvp` to use "
                     "callbacks while taking gradients.")


def _pure_callback_transpose(cts, *operands, **params):
    raise ValueError("Pure callbacks do not support transpose. Please use `numlir.custom_vjp` to "
                     "use callbacks while taking gradients.")


ad.defjvp_rule(pure_callback_p, _pure_callback_jvp)
tr.deftranspose(pure_callback_p, _pure_callback_transpose)


def _batched(aval: core.ShapedArray, size: int) -> core.ShapedArray:
    return core.ShapedArray((size, *aval.shape), aval.dtype)


def _pure_callback_batch(axis_size, args, dims, *, callback, result_avals, vmap_method):
    """jax's rule: ``vmap_method`` says how the callback sees the batch."""
    args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
    batched_avals = tuple(_batched(a, axis_size) for a in result_avals)
    if vmap_method == "legacy_vectorized":
        outs = pure_callback_p.bind(*args, callback=callback, result_avals=batched_avals,
                                    vmap_method=vmap_method)
    elif vmap_method in ("expand_dims", "broadcast_all"):
        size = axis_size if vmap_method == "broadcast_all" else 1
        args = [shape_ops.broadcast(x, (size,)) if d is None else x for x, d in zip(args, dims)]
        outs = pure_callback_p.bind(*args, callback=callback, result_avals=batched_avals,
                                    vmap_method=vmap_method)
    elif vmap_method in ("sequential", "sequential_unrolled"):
        is_batched = [d is not None for d in dims]
        fixed = [x for x, b in zip(args, is_batched) if not b]
        mapped = [x for x, b in zip(args, is_batched) if b]

        def body(carry, xs):
            xs, fx = iter(xs), iter(fixed)
            merged = [next(xs) if b else next(fx) for b in is_batched]
            return carry, pure_callback_p.bind(*merged, callback=callback,
                                               result_avals=result_avals, vmap_method=vmap_method)

        _, outs = scan_lib.scan(body, (), mapped)
    else:
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got {vmap_method=}.")
    return list(outs), [0] * len(outs)


batching.defrule(pure_callback_p, _pure_callback_batch)


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                  sharding=None, vmap_method: str | None = None, **kwargs: Any):
    """Calls the pure Python function ``callback(*args, **kwargs)`` with NumPy arrays and
    returns its results, which must match ``result_shape_dtypes`` (a pytree of objects with
    ``shape`` and ``dtype``, e.g. ``numlir.ShapeDtypeStruct``) exactly: a wrong shape or
    dtype raises RuntimeError. Being pure, it may be removed when its results are unused.
    ``vmap_method`` ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all")
    says how ``vmap`` calls it, as in jax; it has no derivative (wrap it in ``custom_jvp``).

    Example::

        >>> f = numlir.jit(lambda x: numlir.pure_callback(
        ...     np.sin, numlir.ShapeDtypeStruct(x.shape, x.dtype), x))
        >>> f(jnp.zeros(2))
        Array([0., 0.], dtype=float32)
    """
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {list(_VMAP_METHODS)}, "
                         f"but got: {vmap_method}")
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    result_leaves, out_tree = tree_util.tree_flatten(result_shape_dtypes)
    result_avals = []
    for r in result_leaves:
        if not (hasattr(r, "shape") and hasattr(r, "dtype")):
            raise TypeError("pure_callback: each leaf of result_shape_dtypes needs a shape and a "
                            f"dtype, got {r!r}")
        result_avals.append(core.ShapedArray(tuple(r.shape), dtypes.canonicalize_dtype(r.dtype)))
    outs = pure_callback_p.bind(*leaves, callback=_FlatCallback(callback, in_tree, ()),
                                result_avals=tuple(result_avals), vmap_method=vmap_method)
    return tree_util.tree_unflatten(out_tree, outs)
