"""jit/compile, lowering objects and make_graph: staging a Python function out to one
executable.

``jit(f)`` traces ``f`` once per abstract signature — the pytree structure of
the arguments, each leaf's shape/dtype/weak type, the static arguments and the
x64 flag — lowers the Graph to hlo text and compiles it. A jitted function
called inside another trace (jit of jit, later grad/vmap of jit) is inlined
into that trace.

jit needs only core and the runtime (lowering, dispatch), so it sits in the runtime
layer, below the libraries: numlir.random compiles its samplers with it.
"""

from __future__ import annotations

import functools
import inspect
import logging
import weakref
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from numlir._src import (compile_log, config, core, device_calls, dispatch, donation, dtypes,
                         host_calls, lowering, placement, saved_executable, shapes, spmd,
                         static_args, traceback_util, tree_util)
from numlir._src.array import Array
from numlir._src.backends import stablehlo
from numlir._src.lru_cache import LRUCache
from numlir._src.static_args import function_name

_log = logging.getLogger("numlir")


class ShapeDtypeStruct:
    """A shape and dtype standing for an argument, for ``lower`` and ``make_graph``."""

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type: bool = False):
        self.dtype = np.dtype(dtype)
        self.shape = shapes.canonicalize_shape(shape, "ShapeDtypeStruct", dtype=self.dtype)
        self.weak_type = weak_type

    @property
    def aval(self):
        return core.ShapedArray(self.shape, dtypes.canonicalize_dtype(self.dtype), self.weak_type)

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


def _leaf_aval(x, what: str) -> core.ShapedArray:
    try:
        return core.get_aval(x)
    except TypeError:
        raise TypeError(core.with_location(
            f"{what} of type {type(x).__name__} is not a valid numlir type (arrays, NumPy "
            f"values and Python scalars are; mark other arguments static): {x!r:.80}"
        )) from None


def _argument_avals(fun, leaves, in_tree, static_key) -> tuple[core.ShapedArray, ...]:
    """The abstract values of ``fun``'s flat arguments; a bad one is named by its path."""
    try:
        return tuple(map(core.get_aval, leaves))
    except (TypeError, OverflowError):
        pass
    labels = static_args.traced_args(fun, in_tree, leaves, {i for i, _ in static_key[0]})
    for leaf, arg in zip(leaves, labels):
        try:
            core.get_aval(leaf)
        except OverflowError as error:
            raise OverflowError(f"{function_name(fun)}: argument {arg.label!r}: {error}") from None
        except TypeError:
            raise TypeError(core.with_location(
                f"{function_name(fun)}: argument {arg.label!r} of type {type(leaf).__name__} is "
                "not a valid numlir type (arrays, NumPy values and Python scalars are; mark "
                f"other arguments static): {leaf!r:.80}")) from None
    raise AssertionError("unreachable: some argument failed")


def _function_loc(fun) -> core.SourceInfo | None:
    code = getattr(inspect.unwrap(fun), "__code__", None)
    return core.SourceInfo(code.co_filename, code.co_firstlineno, 1) if code else None


class Compiled:
    """A compiled executable for one abstract signature; call it with matching arguments.

    It holds its executable for as long as it lives, whatever the caches drop."""

    def __init__(self, exe, in_tree, in_avals, out_tree, out_avals, static_key, split_args, fun,
                 donated_pairs=None, committed=False):
        self._exe = exe
        #: Compiled for a named device or backend (jit's device=/backend=): outputs committed.
        self._committed = committed
        #: {input leaf: output} whose buffers are one (jit's donate_argnums).
        self.donated_pairs = dict(donated_pairs or {})
        self.in_tree = in_tree
        self.in_avals = in_avals
        self.out_tree = out_tree
        self.out_avals = out_avals
        self._static_key = static_key
        self._split_args = split_args
        self._fun = fun

    @traceback_util.api_boundary
    def __call__(self, *args, **kwargs):
        leaves, in_tree, static_key = self._split_args(args, kwargs)
        avals = list(_argument_avals(self._fun, leaves, in_tree, static_key))
        if in_tree != self.in_tree or avals != self.in_avals or static_key != self._static_key:
            raise TypeError(
                "function compiled for "
                f"{[a.str_short() for a in self.in_avals]} called with {[a.str_short() for a in avals]}"
            )
        return self._run(leaves)

    def _run(self, leaves):
        device = self._exe.device
        try:
            _, committed = placement.computation_device(leaves)
        except placement.IncompatibleDevices as conflict:
            raise conflict.error(leaves, function_name(self._fun),
                                 lambda i: f"args[{i}]") from None
        for leaf in leaves:
            if type(leaf) is Array and leaf._committed and leaf._device is not device:
                raise ValueError(
                    f"{function_name(self._fun)} was compiled for {device} and called with an "
                    f"argument committed to {leaf._device}: move it with "
                    f"numlir.device_put(x, {device!r}) or compile again")
        return _run(self._exe, leaves, self.in_avals, self.out_tree, self.out_avals,
                    self.donated_pairs, committed or self._committed)

    def save(self, path) -> None:
        """Writes this executable to ``path`` for ``numlir.load_executable``, which runs it
        without the compiler (docs/saved-executables.md)."""
        saved_executable.save(self, path)


def _run(exe, leaves, in_avals, out_tree, out_avals, donated_pairs=None, committed=False):
    outs = donation.execute(exe, leaves, in_avals, out_avals, donated_pairs, committed)
    return tree_util.tree_unflatten(out_tree, outs)


class Lowered:
    """A traced and lowered function: ``as_text()`` is its hlo module, ``compile()`` builds it."""

    def __init__(self, closed_graph, text, in_tree, in_avals, out_tree, static_key, split_args,
                 name: str = "module", fun=None, donated_pairs=None, device=None,
                 committed=False):
        self.graph = closed_graph
        #: Where compile() loads it: jit's device, or the default device when lowered.
        self._device = device
        self._committed = committed
        self.donated_pairs = dict(donated_pairs or {})
        self._fun = fun
        self._name = name
        # The module text, lowered at its first use: a jit that runs over a shard_map's
        # mesh never needs this one-device text.
        self._lower_text = text if callable(text) else (lambda: text)
        self._lowered_text: str | None = None
        self.in_tree = in_tree
        self.in_avals = in_avals
        self.out_tree = out_tree
        self._static_key = static_key
        self._split_args = split_args

    @property
    def _text(self) -> str:
        if self._lowered_text is None:
            self._lowered_text = self._lower_text()
        return self._lowered_text

    def as_text(self, dialect: str | None = None) -> str:
        """The module as text: numlir's hlo dialect (``None`` or ``"hlo"``), or StableHLO
        (``"stablehlo"``), the input of PJRT compilers, as jax's ``Lowered.as_text``."""
        if dialect in (None, "hlo"):
            return self._text
        if dialect == "stablehlo":
            return stablehlo.from_hlo(self.portable_text(), self._name)
        raise ValueError(f"Unknown dialect {dialect!r}; numlir lowers to 'hlo' (its own) "
                         "and 'stablehlo'")

    def portable_text(self) -> str:
        """The hlo module without library calls (``hlo.custom_call``), which every backend
        compiles: what StableHLO and ``numlir.export`` carry."""
        if "hlo.custom_call" not in self._text:
            return self._text
        return lowering.lower_graph(self.graph, module_name=self._name,
                                    default_loc=_function_loc(self._fun) if self._fun else None,
                                    aliasing_outputs=self.donated_pairs)

    @traceback_util.api_boundary
    def compile(self) -> Compiled:
        exe = dispatch.compile_module(self._text, name=self._name, keep_image=True,
                                      device=self._device)
        return Compiled(exe, self.in_tree, self.in_avals, self.out_tree, self.graph.out_avals,
                        self._static_key, self._split_args, self._fun, self.donated_pairs,
                        self._committed)


_NO_STATIC_ARGS = ((), ())


@functools.lru_cache(maxsize=64)
def _positional_leaves_structure(nargs: int):
    """The structure ``_split_args`` gives ``nargs`` positional leaves and no keywords."""
    return tree_util.tree_structure((tuple(range(nargs)), {}))


class _CacheEntry(NamedTuple):
    """What a jitted function keeps per signature: its module, not its executable, which the
    shared LRU (``dispatch.executables``) holds and may drop; then it is compiled again from
    ``text`` without tracing again."""

    text: str | None  # None: run over a mesh (over_mesh)
    name: str
    in_avals: tuple[core.ShapedArray, ...]
    out_tree: Any
    out_avals: list[core.ShapedArray]
    donated_pairs: dict[int, int]
    #: The flat arguments to flat outputs, over a shard_map's mesh (``_over_mesh``).
    over_mesh: Callable | None = None


#: Every live jitted function, so that ``clear_caches`` reaches their caches.
_jit_functions: weakref.WeakSet = weakref.WeakSet()


class JitFunction:
    """The result of ``numlir.jit(f)``: call it, or ``.lower(*args)`` to see its hlo."""

    def __init__(self, fun: Callable, static_argnums=(), static_argnames=(), donate_argnums=(),
                 donate_argnames=(), device=None, backend: str | None = None):
        core.check_callable(fun)
        if device is not None and backend is not None:
            raise ValueError("can't specify both a device and a backend for jit, got "
                             f"device={device!r} and backend={backend!r}")
        self._fun = fun
        # Where every call runs (placement.py): jit's device=, or backend='s first device.
        self._device = device
        self._backend = backend
        spec = static_args.resolve(fun, static_argnums, static_argnames, donate_argnums,
                                   donate_argnames)
        self._static_argnums = spec.static_argnums
        self._static_argnames = spec.static_argnames
        # A donated argument's buffer holds an output of its type (donation.py).
        self._donate_argnums = spec.donate_argnums
        self._donate_argnames = spec.donate_argnames
        self._cache = LRUCache(lambda: config.flags.executable_cache_size)
        # Calls the general path has decided once skip it (only plain jits: no static,
        # donated or placed arguments): in C++ on the cpu backend (host_calls.py), in
        # Python on a device with memory of its own (device_calls.py).
        plain = not (spec.static_argnums or spec.static_argnames or spec.donate_argnums
                     or spec.donate_argnames or device is not None or backend is not None)
        self._host_calls = host_calls.CallCache() if plain else None
        self._device_calls = device_calls.DeviceCalls() if plain else None
        self.cache_misses = 0
        # Not fun's __dict__: the jit of a jitted function would take over its cache.
        functools.update_wrapper(self, fun, updated=())
        _jit_functions.add(self)

    def __get__(self, obj, objtype=None):  # so @jit works on methods
        if obj is None:
            return self
        return functools.partial(self, obj)

    def _split_args(self, args, kwargs):
        if not kwargs and not self._static_argnums and tree_util.all_leaf_types(args):
            # The common call, positional arrays only: its structure is the same object for
            # every call with this many arguments, so the cache lookup compares identities.
            return list(args), _positional_leaves_structure(len(args)), _NO_STATIC_ARGS
        nargs = len(args)
        static_nums = {i % nargs if i < 0 else i for i in self._static_argnums if -nargs <= i < nargs}
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_nums)
        static_args = tuple((i, args[i]) for i in sorted(static_nums))
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self._static_argnames}
        static_kwargs = tuple(sorted((k, v) for k, v in kwargs.items() if k in self._static_argnames))
        static_key = (static_args, static_kwargs)
        for _, v in static_args + static_kwargs:
            try:
                hash(v)
            except TypeError as e:
                raise ValueError(
                    f"Non-hashable static arguments are not supported: a static argument of "
                    f"{function_name(self._fun)} has type {type(v).__name__} ({v!r:.60}): {e}. "
                    "Pass a tuple instead of a list, or make the argument non-static.") from None
        leaves, in_tree = tree_util.tree_flatten((dyn_args, dyn_kwargs))
        return leaves, in_tree, static_key

    def _rebuild(self, in_tree, static_key, leaves):
        dyn_args, dyn_kwargs = tree_util.tree_unflatten(in_tree, leaves)
        static_args, static_kwargs = static_key
        args = list(dyn_args)
        for i, v in static_args:
            args.insert(i, v)
        return args, {**dyn_kwargs, **dict(static_kwargs)}

    def _lower_flat(self, leaves, in_tree, static_key) -> Lowered:
        in_avals = list(_argument_avals(self._fun, leaves, in_tree, static_key))
        out_tree_box = []
        device, committed = self._placement(leaves, in_tree, static_key)
        # On the CPU devices, shard_maps called by the function itself are spread over their
        # mesh's devices (shard_map.py); elsewhere they run as vmaps.
        spreads = device.name == "cpu"

        def flat_fun(*tracers):
            args, kwargs = self._rebuild(in_tree, static_key, tracers)
            with spmd.spreading_shard_maps(core.current_trace() if spreads else None):
                out = self._fun(*args, **kwargs)
            out_leaves, out_tree = tree_util.tree_flatten(out)
            for leaf in out_leaves:
                _leaf_aval(leaf, f"output of {function_name(self._fun)}")
            out_tree_box.append(out_tree)
            return out_leaves

        debug = core.TraceDebugInfo("jit", function_name(self._fun), static_args.traced_args(
            self._fun, in_tree, leaves, {i for i, _ in static_key[0]}))
        fun_name = function_name(self._fun)
        with compile_log.phase(f"tracing + transforming {fun_name} for jit"):
            closed = core.trace_to_graph(flat_fun, in_avals, debug)
            # Unused work (e.g. the primal value inside jit(grad(f))) never reaches the
            # compiler.
            graph, _ = core.dce_graph(closed.graph, [True] * len(closed.graph.outvars))
            closed = core.ClosedGraph(graph, closed.consts)
        name = lowering.sanitize_symbol(f"jit_{function_name(self._fun)}")
        pairs = {}
        if self._donate_argnums or self._donate_argnames:
            donated = donation.donated_leaves(in_tree, leaves, {i for i, _ in static_key[0]},
                                              self._donate_argnums, self._donate_argnames)
            pairs = donation.pair_outputs(in_avals, donated, [v.aval for v in closed.graph.outvars],
                                          f"jit({function_name(self._fun)})")
        def lower_text() -> str:
            with compile_log.phase(f"lowering jit({fun_name}) to hlo"):
                return lowering.lower_graph(
                    closed, module_name=name, default_loc=_function_loc(self._fun),
                    aliasing_outputs=pairs,
                    library_routines=dispatch.backend_of(device).library_routines())

        return Lowered(closed, lower_text, in_tree, in_avals, out_tree_box[0], static_key, self._split_args,
                       name, self._fun, pairs, device, committed)

    def _placement(self, leaves, in_tree, static_key):
        """(device, committed) of a call (placement.py), with JAX's error naming the
        arguments ("a", "params['w']") when committed ones disagree."""
        try:
            return placement.computation_device(leaves, self._device, self._backend)
        except placement.IncompatibleDevices as conflict:
            labels = static_args.traced_args(self._fun, in_tree, leaves,
                                             {k for k, _ in static_key[0]})
            raise conflict.error(leaves, function_name(self._fun),
                                 lambda i: labels[i].label) from None

    @traceback_util.api_boundary
    def lower(self, *args, **kwargs) -> Lowered:
        """Trace and lower for these arguments (arrays or ShapeDtypeStructs), without compiling."""
        leaves, in_tree, static_key = self._split_args(args, kwargs)
        return self._lower_flat(leaves, in_tree, static_key)

    def __call__(self, *args, **kwargs):
        # The one line of Python a remembered cpu (or committed device) call runs
        # (host_calls.py). The API boundary is inline: a wrapper's frame cost 20% of a
        # remembered cpu call (0.13 of 0.63 µs) and ~2 µs on the TPU host.
        if not kwargs and self._host_calls is not None:
            out = self._host_calls.call(args)
            if out is not None:
                return out
        try:
            return self._call(args, kwargs)
        except Exception as error:
            traceback_util.filter_raised(error)
            raise

    def _call(self, args, kwargs):
        """The general path: placement, the signature's cache entry (tracing and compiling
        on a miss), the run; then remembers the decisions for the per-call paths."""
        start = host_calls.generation()
        fast = None
        if self._device_calls is not None and not kwargs:
            fast = device_calls.DeviceCalls.key(args)
            if fast is not None:
                out = self._device_calls.call(fast, args)
                if out is not None:
                    return out
        if not isinstance(core.current_trace(), core.EvalTrace) or config.flags.disable_jit:
            return self._fun(*args, **kwargs)  # inline into the enclosing trace, or run eagerly
        leaves, in_tree, static_key = self._split_args(args, kwargs)
        device, committed = self._placement(leaves, in_tree, static_key)
        in_avals = _argument_avals(self._fun, leaves, in_tree, static_key)
        # The module text depends on the library routines of the device's backend
        # (hlo.custom_call on the CPU, the portable program elsewhere).
        routines = dispatch.backend_of(device).library_routines()
        key = (in_tree, in_avals, static_key, dtypes.x64_enabled(), routines)
        entry = self._cache.get(key)
        if entry is None:
            self.cache_misses += 1
            if config.flags.explain_cache_misses:
                self._explain_cache_miss(key)
            dispatch.log_compile(f"jit({function_name(self._fun)})", in_avals)
            lowered = self._lower_flat(leaves, in_tree, static_key)
            mesh = _shard_map_mesh(lowered.graph.graph)
            over_mesh = (None if mesh is None else
                         _over_mesh(lowered.graph, mesh, lowered._name))
            text = lowered.as_text() if over_mesh is None else None  # unused over a mesh
            entry = _CacheEntry(text, lowered._name, in_avals, lowered.out_tree,
                                lowered.graph.out_avals, lowered.donated_pairs, over_mesh)
            self._cache.put(key, entry)
        if entry.over_mesh is not None:  # not remembered: the per-call paths run one device
            out = tree_util.tree_unflatten(entry.out_tree, entry.over_mesh(leaves))
            if config.flags.debug_nans or config.flags.debug_infs:
                self._check_invalid_values(out, args, kwargs)
            return out
        exe = dispatch.compile_module(entry.text, name=entry.name, device=device)
        out = _run(exe, leaves, entry.in_avals, entry.out_tree, entry.out_avals,
                   entry.donated_pairs, committed)
        if config.flags.debug_nans or config.flags.debug_infs:
            self._check_invalid_values(out, args, kwargs)
        elif fast is not None:
            # Remembered in C++, or here where C++ declines (a default_device context).
            if not (self._host_calls is not None and exe.device is fast[1]
                    and host_calls.remember_on_device(self._host_calls, start, args, exe,
                                                      entry.out_avals,
                                                      host_calls.unflattener(entry.out_tree))):
                self._device_calls.remember(fast, exe, entry.out_avals, entry.out_tree)
        elif self._host_calls is not None and not kwargs:
            host_calls.remember(self._host_calls, start, args, exe, entry.out_avals, committed,
                                host_calls.unflattener(entry.out_tree))
        return out

    def _check_invalid_values(self, out, args, kwargs) -> None:
        """On a NaN/inf output, re-run op by op so the first op producing it raises, as jax does."""
        where = f"jit({function_name(self._fun)})"
        try:
            dispatch.check_invalid_values(where, tree_util.tree_leaves(out))
        except FloatingPointError as error:
            with config.disable_jit():
                self._fun(*args, **kwargs)
            raise FloatingPointError(
                f"{error}. The function was run again op by op (as if the jit decorator were "
                "removed) to find the op, but no op produced the invalid value there: it depends "
                "on how the compiled code evaluates it") from None

    def _explain_cache_miss(self, key) -> None:
        name = function_name(self._fun)
        if not self._cache:
            _log.warning("jit %s: compiling for the first time", name)
            return
        in_tree, in_avals, static_key, x64, routines = key
        reasons = []
        for old_tree, old_avals, old_static, old_x64, old_routines in self._cache.keys():
            if old_tree != in_tree:
                reasons.append(f"argument structure {in_tree} differs from {old_tree}")
            elif old_static != static_key:
                reasons.append(f"static arguments {static_key} differ from {old_static}")
            elif old_x64 != x64:
                reasons.append("the x64 flag changed")
            elif old_routines != routines:
                reasons.append("the library routines of the device's backend differ "
                               "(another backend, or the cpu_library_calls flag changed)")
            else:
                diff = [f"argument {i}: {a.str_short()}{'(weak)' * a.weak_type} vs "
                        f"{b.str_short()}{'(weak)' * b.weak_type}"
                        for i, (a, b) in enumerate(zip(in_avals, old_avals)) if a != b]
                reasons.append("; ".join(diff))
        _log.warning("jit %s: compiling again; closest cached signature differs: %s", name,
                     min(reasons, key=len))

    def _cache_size(self) -> int:
        return len(self._cache)

    def clear_cache(self) -> None:
        """Forgets every traced signature and drops their executables from the shared cache."""
        for entry in self._cache.values():
            if entry.text is not None:
                dispatch.evict_module(entry.text)
        self._cache.clear()
        self._forget_calls()

    def _forget_calls(self) -> None:
        """Drops the remembered calls, which hold their executables."""
        if self._host_calls is not None:
            self._host_calls.clear()
        if self._device_calls is not None:
            self._device_calls.clear()


def clear_caches() -> None:
    """Drops every cached executable and traced signature (like ``jax.clear_caches``).

    The executables of eager ops and of every jitted function are unloaded once
    nothing else holds them (a ``Compiled`` from ``.lower().compile()`` keeps its
    own); the next call traces and compiles again.

    Example::

        numlir.clear_caches()
    """
    for fun in list(_jit_functions):
        fun._cache.clear()
        fun._forget_calls()
    # Every other remembered call (pmap's) is dropped at its next call, with its executables.
    host_calls.CallCache.invalidate_all()
    dispatch.clear()


@traceback_util.api_boundary
def _no_sharded_jit(fun, in_shardings, out_shardings):
    raise RuntimeError("jit with shardings needs numlir._src.sharded_jit, which importing "
                       "numlir registers")


#: ``jit(f, in_shardings=..., out_shardings=...)``'s implementation: sharded_jit.py (above
#: this layer: it partitions with shard_map and vmap) registers it when numlir is imported.
_sharded_jit: Callable = _no_sharded_jit

# shard_map.py's: the mesh of a shard_map bound in a jit graph (None if none), and the
# runner of such a graph over the mesh's devices.
_shard_map_mesh: Callable[[core.Graph], Any] = lambda graph: None
_over_mesh: Callable | None = None


def jit(fun: Callable | None = None, *, in_shardings=None, out_shardings=None,
        static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (), donate_argnums: int | Sequence[int] = (),
        donate_argnames: str | Sequence[str] = (), device=None, backend: str | None = None):
    """Compile ``fun`` with numlir; traced once per abstract signature, then cached.

    It traces again exactly when the argument tree structure, a leaf's shape, dtype
    or weak type, or a static argument changes. Static arguments (by position or
    name; a parameter named in one is static in either calling style) must be
    hashable. Arrays a function closes over become constants of the compiled code.
    ``donate_argnums``/``donate_argnames`` donate arguments, as in JAX: each donated
    array's buffer holds the first output of its shape and dtype (a warning names the
    ones no output can use), and the donated arrays are deleted by the call. A buffer
    something else still sees (an ``np.asarray`` of it, a view, another argument) is
    copied first, never written.

    A call runs where its committed arguments live (``device_put(x, d)``, or outputs of a
    computation on committed arrays), else on the default device; ``device=d`` runs every
    call on ``d`` and ``backend="cpu"`` on that backend's first device, committing the
    outputs there (JAX's placement rules; docs/devices.md).

    ``in_shardings``/``out_shardings`` (NamedShardings over one mesh) run the call
    data-parallel on the mesh's devices: arguments split along one dimension (the batch)
    or replicated, the all_reduces added where a split is summed over (sharded_jit.py,
    docs/pmap.md).

    Example::

        @numlir.jit
        def f(x, w):
            return numlir.numpy.tanh(x @ w).sum(axis=1)

        print(f.lower(x, w).as_text())   # the hlo module; .compile() builds it
    """
    if fun is None:
        return functools.partial(jit, in_shardings=in_shardings, out_shardings=out_shardings,
                                 static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                 device=device, backend=backend)
    if in_shardings is not None or out_shardings is not None:
        if any(a not in ((), None) for a in (static_argnums, static_argnames, donate_argnums,
                                              donate_argnames, device, backend)):
            raise NotImplementedError(
                "jit with in_shardings/out_shardings takes no static or donated arguments, "
                "device or backend yet (docs/pmap.md): pass static values by closure")
        return _sharded_jit(fun, in_shardings, out_shardings)
    return JitFunction(fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                       device, backend)


compile = jit  # noqa: A001 - numlir's own name for jit
