"""The core: abstract values, primitives, traces/tracers and the Graph IR.

The design follows JAX's "stackless" core. There is one dynamic *current
trace*. ``Primitive.bind`` hands the primitive to it:

* ``EvalTrace`` (the default) runs the primitive on concrete values by
  compiling a one-primitive Graph (see ``dispatch.apply_primitive``).
* ``GraphTrace`` (used by ``jit`` and ``make_graph``) records an equation and
  returns ``GraphTracer``s standing for its outputs.

The interpreters (ad.py, partial_eval.py, batching.py; transpose.py walks graphs) add
Trace subclasses that keep a ``parent`` trace and re-bind primitives on it; each owns
its table of per-primitive rules.

Core imports nothing above it: eager evaluation compiles through dispatch.py, which
registers itself here (``set_eager_evaluator``) when it loads, and the operators of
``Tracer`` are installed on ``ArrayMethods`` by numlir.numpy.
"""

from __future__ import annotations

import abc

import contextlib
import itertools
import math
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from numlir._src import dtypes
from numlir._src.source_info import (SourceInfo, shape_error, source_info_scope,  # noqa: F401
                                     user_source_info, value_error, with_location)
from numlir._src.array_methods import ArrayMethods

# --- Abstract values ---------------------------------------------------------


class ShapedArray:
    """The abstract value of an array: static shape, dtype and weak-type flag."""

    # Treated as immutable: its hash is kept (computed on first use) because every jitted and
    # eager call hashes its arguments' avals to find the executable.
    __slots__ = ("shape", "dtype", "weak_type", "_hash")

    def __init__(self, shape: Sequence[int], dtype, weak_type: bool = False):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self._hash = None

    ndim = property(lambda self: len(self.shape))
    # Python ints: np.prod in int64 would wrap around for the huge shapes shape checks reject.
    size = property(lambda self: math.prod(self.shape))

    def update(self, shape=None, dtype=None, weak_type=None) -> "ShapedArray":
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def strip_weak_type(self) -> "ShapedArray":
        return self.update(weak_type=False) if self.weak_type else self

    def str_short(self) -> str:
        return f"{dtypes.short_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def _key(self):
        return (self.shape, self.dtype, self.weak_type)

    def __eq__(self, other):
        return self is other or (isinstance(other, ShapedArray) and self._key() == other._key())

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __reduce__(self):  # never pickle the hash: dtype hashes differ between processes
        return ShapedArray, (self.shape, self.dtype, self.weak_type)

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"


#: The largest dimension, element count or byte size of an array: MLIR's dimensions, the
#: generated code's byte offsets and NumPy's ``nbytes`` are all signed 64-bit.
MAX_ARRAY_SIZE = 2**63 - 1


def check_shape(shape: tuple[int, ...], what: str, arg: str | None = "shape",
                dtype=None) -> tuple[int, ...]:
    """``shape`` (Python ints) if every dimension is >= 0 and an array of it (of ``dtype``, when
    given) fits the size limit; else a ValueError naming ``what``, argument ``arg`` (None: the
    result) and the user's line."""
    subject = f"argument {arg!r}" if arg is not None else "the result shape"
    for i, d in enumerate(shape):
        if d < 0:
            raise value_error(
                f"{what}: {subject} is {shape}, which has a negative dimension ({d} at index "
                f"{i}); sizes must be >= 0")
        if d > MAX_ARRAY_SIZE:
            raise value_error(
                f"{what}: {subject} is {shape}, whose dimension {i} ({d}) is larger than the "
                "largest array dimension, 2**63 - 1")
    size = math.prod(shape)
    itemsize = max(np.dtype(dtype).itemsize, 1) if dtype is not None else 1
    if size * itemsize > MAX_ARRAY_SIZE:
        of = f" of {np.dtype(dtype).name}" if dtype is not None else ""
        raise value_error(
            f"{what}: {subject} is {shape}: {size} elements{of} ({size * itemsize} bytes) are "
            "more than an array can hold (2**63 - 1 bytes)")
    return shape


def _check_result(prim_name: str, aval: ShapedArray) -> None:
    shape = aval.shape
    if shape and (min(shape) < 0 or math.prod(shape) * aval.dtype.itemsize > MAX_ARRAY_SIZE):
        check_shape(shape, prim_name, None, aval.dtype)


def get_aval(x) -> ShapedArray:
    """The abstract value of a tracer, an Array, a NumPy value or a Python scalar."""
    aval = getattr(x, "aval", None)  # a tracer or a numlir.Array: the hot path of every call
    if aval.__class__ is ShapedArray:
        return aval
    if isinstance(x, Tracer):
        return x.aval
    if isinstance(aval, ShapedArray):
        return aval
    if dtypes.is_python_scalar(x):
        dtype = dtypes.canonicalize_dtype(dtypes.dtype_of_python_scalar(x))
        if type(x) is int:
            dtypes.check_python_int(x, dtype, default=True)
        return ShapedArray((), dtype, dtypes.is_weak_python_scalar(x))
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), False)
    raise TypeError(f"value of type {type(x).__name__} is not a valid numlir type: {x!r:.60}")


def concrete_to_numpy(x) -> np.ndarray:
    """A concrete value as a host ndarray in its canonical dtype (no computation)."""
    aval = get_aval(x)
    host = x._value if hasattr(x, "_value") else x
    return np.asarray(host, dtype=aval.dtype)


# --- Source locations (source_info.py) and errors -------------------------------

_with_location = with_location


class ConcretizationTypeError(TypeError):
    """A traced value was used where Python needs a concrete value."""


class TracerBoolConversionError(ConcretizationTypeError):
    """``if``/``while``/``bool()`` on a traced value."""


class UnexpectedTracerError(Exception):
    """A tracer escaped the function being traced (e.g. stored in a global)."""


def check_callable(fun) -> None:
    """The TypeError JAX's transformations raise for a non-callable function argument."""
    if not callable(fun):
        raise TypeError(with_location(f"Expected a callable value, got {fun!r:.80}"))


# Tracebacks print them by their public names.
ConcretizationTypeError.__module__ = TracerBoolConversionError.__module__ = "numlir"
UnexpectedTracerError.__module__ = "numlir"


# --- Primitives and rule registries -------------------------------------------

class Primitive:
    """A named operation with an abstract-eval rule and a lowering to hlo text.

    Example::

        exp_p = Primitive("exp")
        exp_p.def_abstract_eval(lambda x: x)
        exp_p.def_lowering(lambda ctx, x: ctx.emit(f"hlo.exp {x} : {ctx.type_out()}"))
    """

    multiple_results = False
    #: Has a side effect (a host callback): dead-code elimination keeps its equations.
    effectful = False

    def __init__(self, name: str):
        self.name = name
        self.abstract_eval: Callable | None = None
        self.lowering: Callable | None = None
        #: Runs the primitive eagerly in Python instead of through a compiled executable.
        self.impl: Callable | None = None

    def def_impl(self, rule: Callable) -> Callable:
        self.impl = rule
        return rule

    def __repr__(self):
        return self.name

    def def_abstract_eval(self, rule: Callable) -> Callable:
        self.abstract_eval = rule
        return rule

    def def_lowering(self, rule: Callable) -> Callable:
        self.lowering = rule
        return rule

    def bind(self, *args, **params):
        return current_trace().process_primitive(self, args, params)

    def bind_with_trace(self, trace: "Trace", args, params):
        with set_current_trace(trace):
            return trace.process_primitive(self, args, params)

    def out_avals(self, in_avals: Sequence[ShapedArray], params) -> list[ShapedArray]:
        out = self.abstract_eval(*in_avals, **params)
        out = list(out) if self.multiple_results else [out]
        for aval in out:  # however a shape was made, nothing too large reaches the compiler
            _check_result(self.name, aval)
        return out


# --- Traces --------------------------------------------------------------------


class Trace(abc.ABC):
    """An interpreter on the trace stack (eval, graph building, jvp, vmap)."""

    #: What the trace does to a function, for error messages ("vmap", "grad/jvp").
    transformation = "a transformation"

    @abc.abstractmethod
    def process_primitive(self, prim: Primitive, args, params):
        """Applies ``prim`` to ``args`` (this trace's values or tracers)."""


#: ``fn(prim, args, params)``: runs one primitive on concrete values (dispatch.apply_primitive).
_eager_evaluator: Callable | None = None


def set_eager_evaluator(fn: Callable) -> None:
    """Makes ``fn(prim, args, params)`` the eager evaluation of every primitive."""
    global _eager_evaluator
    _eager_evaluator = fn


class EvalTrace(Trace):
    """Runs primitives on concrete values (eager mode)."""

    def process_primitive(self, prim, args, params):
        for a in args:
            if isinstance(a, Tracer):
                raise UnexpectedTracerError(
                    f"{prim.name} got a tracer ({a.aval.str_short()}) outside the transformation "
                    "that created it. A traced value escaped the function being traced, e.g. "
                    "through a global variable or a closure that outlived jit."
                )
        if _eager_evaluator is None:
            raise RuntimeError(f"cannot run {prim.name} eagerly: numlir._src.dispatch is not "
                               "loaded (import numlir first)")
        return _eager_evaluator(prim, args, params)


class CompileTimeEvalTrace(EvalTrace):
    """``ensure_compile_time_eval``'s trace: runs primitives on concrete values even while a
    function is being traced, and refuses traced ones."""

    def process_primitive(self, prim, args, params):
        for a in args:
            if isinstance(a, Tracer):
                raise ConcretizationTypeError(with_location(
                    f"{prim.name} inside ensure_compile_time_eval() got a traced value "
                    f"({a.aval.str_short()}): only values known while tracing can be computed "
                    "there; move the computation out of the context"))
        return super().process_primitive(prim, args, params)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """Within the context, numlir operations run eagerly, also inside ``jit`` (as
    ``jax.ensure_compile_time_eval``): their results are concrete values Python can branch
    on. An operation on a traced value raises ConcretizationTypeError.

    Example::

        @numlir.jit
        def f(x):
            with numlir.ensure_compile_time_eval():
                positive = jnp.sin(3.0) > 0       # a concrete bool
            return jnp.sin(x) if positive else jnp.cos(x)
    """
    with set_current_trace(CompileTimeEvalTrace()):
        yield


def encloses(trace: Trace, other: Trace) -> bool:
    """Whether ``other`` is on ``trace``'s chain of parents (its values are constants there)."""
    t = getattr(trace, "parent", None)
    while t is not None:
        if t is other:
            return True
        t = getattr(t, "parent", None)
    return False


class _TraceState(threading.local):
    def __init__(self):
        self.trace: Trace = EvalTrace()


_trace_state = _TraceState()


def current_trace() -> Trace:
    return _trace_state.trace


@contextlib.contextmanager
def set_current_trace(trace: Trace):
    prev = _trace_state.trace
    _trace_state.trace = trace
    try:
        yield trace
    finally:
        _trace_state.trace = prev


class Tracer(ArrayMethods):
    """Stands for an array during tracing; operators dispatch to numlir.numpy."""

    __array_priority__ = 1000
    __slots__ = ("_trace", "aval")

    def __init__(self, trace: Trace, aval: ShapedArray):
        self._trace = trace
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def _concretization_error(self, what: str, cls=ConcretizationTypeError):
        why, fix = traced_value_origin(self)
        raise cls(_with_location(
            f"{what} of a traced array with shape {self.aval.str_short()}: its value is not known "
            f"while tracing. {why} Use numlir.lax.cond / numlir.lax.while_loop for control flow "
            "on traced values, or numlir.numpy.where to select between values elementwise"
            f"{'; or ' + fix if fix else ''}."
        ))

    def _inner_value(self):
        """The value this tracer wraps in its parent trace (None when it wraps nothing)."""
        return None

    def __bool__(self):
        self._concretization_error("Attempted boolean conversion (Python if/while/and/or/not)",
                                   TracerBoolConversionError)

    def __float__(self):
        self._concretization_error("Attempted float() conversion")

    def __int__(self):
        self._concretization_error("Attempted int() conversion")

    def __index__(self):
        self._concretization_error("Attempted use as an index")

    def __complex__(self):
        self._concretization_error("Attempted complex() conversion")

    def item(self):
        self._concretization_error("Attempted .item()")

    def tobytes(self, order="C"):
        del order
        self._concretization_error("Attempted .tobytes()")

    def __array__(self, dtype=None, copy=None):
        self._concretization_error("Attempted conversion to a NumPy array (np.asarray)")

    def __iter__(self):
        if not self.shape:
            raise TypeError(_with_location(
                f"iteration over a 0-d array (a traced {self.aval.str_short()})"))
        # Like jax: a traced array unpacks into its rows along axis 0.
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self):
        raise TypeError("unhashable type: tracer")

    def __repr__(self):
        return f"Traced<{self.aval.str_short()}>with<{type(self._trace).__name__}>"


# --- The Graph IR ----------------------------------------------------------------


class Var:
    """A graph variable (an SSA value). Printed names are assigned by the printer."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"Var({self.aval.str_short()})"


class Literal:
    """A scalar constant appearing directly as an equation input."""

    __slots__ = ("val", "aval")

    def __init__(self, val, aval: ShapedArray):
        self.val = np.asarray(val, dtype=aval.dtype)
        self.aval = aval

    def __repr__(self):
        return f"{_format_scalar(self.val)}:{self.aval.str_short()}"


Atom = Var | Literal


@dataclass
class Eqn:
    prim: Primitive
    inputs: list[Atom]
    outputs: list[Var]
    params: dict[str, Any]
    source_info: SourceInfo | None = None


@dataclass
class Graph:
    """A jaxpr-like program: ``{ lambda constvars ; invars . let eqns in outvars }``."""

    constvars: list[Var]
    invars: list[Var]
    eqns: list[Eqn]
    outvars: list[Atom]

    def __str__(self):
        return pp_graph(self)

    __repr__ = __str__


@dataclass
class ClosedGraph:
    """A Graph with the values of its constvars (like JAX's ClosedJaxpr)."""

    graph: Graph
    consts: list[Any]

    in_avals = property(lambda self: [v.aval for v in self.graph.invars])
    out_avals = property(lambda self: [v.aval for v in self.graph.outvars])
    eqns = property(lambda self: self.graph.eqns)

    def __str__(self):
        return pp_graph(self.graph)

    __repr__ = __str__


def _format_scalar(val: np.ndarray) -> str:
    v = val.item()
    if isinstance(v, bool):
        return "True" if v else "False"
    return repr(v)


def _var_names():
    for n in itertools.count():
        name = ""
        n += 1
        while n:
            n, r = divmod(n - 1, 26)
            name = chr(ord("a") + r) + name
        yield name


def _format_param(v) -> str:
    if isinstance(v, np.dtype):
        return v.name
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    return repr(v) if not isinstance(v, (tuple, list)) else str(v)


def pp_graph(graph: Graph, indent: int = 0) -> str:
    names: dict[int, str] = {}
    gen = _var_names()

    def name(v: Var) -> str:
        if id(v) not in names:
            names[id(v)] = next(gen)
        return names[id(v)]

    def binder(v: Var) -> str:
        return f"{name(v)}:{v.aval.str_short()}"

    def atom(a) -> str:
        return repr(a) if isinstance(a, Literal) else name(a)

    pad = " " * indent
    consts = " ".join(binder(v) for v in graph.constvars)
    ins = " ".join(binder(v) for v in graph.invars)
    lines = [f"{pad}{{ lambda {consts}; {ins}. let"]
    for eqn in graph.eqns:
        outs = " ".join(binder(v) for v in eqn.outputs)
        params = ""
        if eqn.params:
            params = "[" + " ".join(f"{k}={_format_param(v)}" for k, v in eqn.params.items()) + "]"
        args = " ".join(atom(a) for a in eqn.inputs)
        lines.append(f"{pad}    {outs} = {eqn.prim.name}{params} {args}".rstrip())
    outs = ", ".join(atom(a) for a in graph.outvars)
    trailing = "," if len(graph.outvars) == 1 else ""
    lines.append(f"{pad}  in ({outs}{trailing}) }}")
    return "\n".join(lines)


# --- Graph building ----------------------------------------------------------------


@dataclass(frozen=True)
class TracedArg:
    """Where one graph input came from: its label (``"params['w']"``) and, when it is part of
    a top-level positional or keyword argument of the traced function, that argument."""

    label: str
    argnum: int | None = None
    argname: str | None = None


@dataclass(frozen=True)
class TraceDebugInfo:
    """What a GraphTrace is tracing, so that errors can say which argument a value came from."""

    traced_for: str  # "jit", "make_graph", "body_fun of while_loop"
    fun_name: str
    args: tuple[TracedArg, ...]  # one per graph input, in order




class GraphTracer(Tracer):
    __slots__ = ("graph_var",)

    def __init__(self, trace: "GraphTrace", var: Var):
        super().__init__(trace, var.aval)
        self.graph_var = var


class GraphTrace(Trace):
    """Records primitive applications as Graph equations (for jit and make_graph).

    Values from enclosing traces (``parent`` chain) and concrete arrays become
    constvars; scalar concrete values become Literals.
    """

    transformation = "jit"

    def __init__(self, parent: Trace | None = None, debug: TraceDebugInfo | None = None):
        self.parent = parent if parent is not None else current_trace()
        self.invars: list[Var] = []
        self.eqns: list[Eqn] = []
        self._consts: dict[int, tuple[Var, Any]] = {}
        self.debug = debug

    def new_arg(self, aval: ShapedArray) -> GraphTracer:
        var = Var(aval)
        self.invars.append(var)
        return GraphTracer(self, var)

    def to_atom(self, x) -> Atom:
        if isinstance(x, GraphTracer) and x._trace is self:
            return x.graph_var
        if isinstance(x, Tracer):
            if not encloses(self, x._trace):
                raise UnexpectedTracerError(
                    f"Encountered a tracer ({x.aval.str_short()}) from a different, finished "
                    "trace. A traced value escaped a jit-compiled function, e.g. through a "
                    "global variable or a side effect."
                )
            return self._constvar(x, x.aval)
        aval = get_aval(x)
        if not aval.shape:
            return Literal(concrete_to_numpy(x), aval)
        return self._constvar(x, aval)

    def _constvar(self, value, aval: ShapedArray) -> Var:
        entry = self._consts.get(id(value))
        if entry is None:
            entry = self._consts[id(value)] = (Var(aval), value)
        return entry[0]

    def process_primitive(self, prim, args, params):
        in_avals = [get_aval(a) for a in args]
        out_avals = prim.out_avals(in_avals, params)
        inputs = [self.to_atom(a) for a in args]
        outputs = [Var(a) for a in out_avals]
        self.eqns.append(Eqn(prim, inputs, outputs, dict(params), user_source_info()))
        tracers = [GraphTracer(self, v) for v in outputs]
        return tracers if prim.multiple_results else tracers[0]

    def to_closed_graph(self, outs: Sequence[Any]) -> ClosedGraph:
        outvars = [self.to_atom(o) for o in outs]
        constvars = [var for var, _ in self._consts.values()]
        consts = [value for _, value in self._consts.values()]
        return ClosedGraph(Graph(constvars, list(self.invars), list(self.eqns), outvars), consts)


def eval_graph(graph: Graph, consts: Sequence[Any], *args: Any) -> list[Any]:
    """Run ``graph`` by binding its equations in the current trace (eager, or another trace)."""
    env: dict[int, Any] = {}

    def read(atom):
        return atom.val if isinstance(atom, Literal) else env[id(atom)]

    for v, x in zip(graph.constvars, consts):
        env[id(v)] = x
    for v, x in zip(graph.invars, args):
        env[id(v)] = x
    for eqn in graph.eqns:
        with source_info_scope(eqn.source_info):
            outs = eqn.prim.bind(*[read(a) for a in eqn.inputs], **eqn.params)
        for v, o in zip(eqn.outputs, outs if eqn.prim.multiple_results else [outs]):
            env[id(v)] = o
    return [read(a) for a in graph.outvars]


def trace_to_graph(fun: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray],
                   debug: TraceDebugInfo | None = None) -> ClosedGraph:
    """Trace ``fun`` (flat list of arrays in, flat list of arrays out) into a ClosedGraph.

    ``debug`` names the function and its inputs for error messages."""
    trace = GraphTrace(debug=debug)
    args = [trace.new_arg(a) for a in in_avals]
    with set_current_trace(trace):
        outs = fun(*args)
    return trace.to_closed_graph(outs)


def _input_dependencies(trace: GraphTrace, var: Var) -> list[tuple[GraphTrace, int]]:
    """The inputs of ``trace`` (and of enclosing graph traces, through closed-over tracers)
    that ``var`` is computed from, as (trace, input index) pairs."""
    live = {id(var)}
    for eqn in reversed(trace.eqns):
        if any(id(v) in live for v in eqn.outputs):
            live.update(id(a) for a in eqn.inputs if isinstance(a, Var))
    found = [(trace, i) for i, v in enumerate(trace.invars) if id(v) in live]
    for const_var, value in trace._consts.values():
        if id(const_var) in live:
            outer = _graph_tracer(value)
            if outer is not None and outer._trace is not trace:
                found += [d for d in _input_dependencies(outer._trace, outer.graph_var) if d not in found]
    return found


def _graph_tracer(x) -> GraphTracer | None:
    """The GraphTracer a (possibly jvp- or vmap-wrapped) tracer stands for, if any."""
    while isinstance(x, Tracer) and not isinstance(x, GraphTracer):
        x = x._inner_value()
    return x if isinstance(x, GraphTracer) else None


def traced_value_origin(x: Tracer) -> tuple[str, str]:
    """Why the value of tracer ``x`` is unknown, and how to make it known (or ""), as sentences
    for concretization errors: the arguments of the traced function it depends on, and the
    ``static_argnums``/``static_argnames`` that would make them concrete."""
    graph_tracer = _graph_tracer(x)
    abstract = (f"It is traced by {x._trace.transformation}, which computes with abstract "
                "values.", "")
    if graph_tracer is None:
        return abstract
    trace = graph_tracer._trace
    debug = trace.debug
    deps = [t.debug.args[i] if t.debug is not None and i < len(t.debug.args) else None
            for t, i in _input_dependencies(trace, graph_tracer.graph_var)]
    if debug is None and not any(deps):
        return abstract
    fun = f"{debug.fun_name} (traced for {debug.traced_for})" if debug else "the traced function"
    labels = [d.label for d in deps if d is not None]
    if not labels:
        return (f"It was computed while tracing {fun}, which records operations on abstract "
                "values instead of running them.", "")
    names = ", ".join(repr(label) for label in labels)
    plural = len(labels) > 1
    why = (f"It depends on the value{'s' * plural} of argument{'s' * plural} {names} of {fun}, "
           f"which {'are' if plural else 'is'} abstract: only shapes and dtypes are known "
           "while tracing.")
    nums = sorted({d.argnum for d in deps if d is not None and d.argnum is not None})
    argnames = sorted({d.argname for d in deps if d is not None and d.argname is not None})
    if debug is None or debug.traced_for != "jit" or not (nums or argnames):
        return why, ""
    options = []
    if nums:
        options.append(f"static_argnums={nums[0] if len(nums) == 1 else tuple(nums)}")
    if argnames:
        options.append(f"static_argnames={argnames[0]!r}" if len(argnames) == 1
                       else f"static_argnames={tuple(argnames)}")
    return why, (f"mark {'it' if len(labels) == 1 else 'them'} static with numlir.jit(..., "
                 f"{' or '.join(options)}) to use {'its' if len(labels) == 1 else 'their'} "
                 "Python value")


def _graphs_in(value) -> Iterator[Graph]:
    if isinstance(value, ClosedGraph):
        yield value.graph
    elif isinstance(value, Graph):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _graphs_in(v)


def has_effects(eqn: Eqn) -> bool:
    """Whether ``eqn`` has a side effect: an effectful primitive, or a sub-graph (cond
    branch, loop body...) holding one."""
    if eqn.prim.effectful:
        return True
    return any(has_effects(e) for p in eqn.params.values() for g in _graphs_in(p) for e in g.eqns)


def dce_graph(graph: Graph, used_outputs: Sequence[bool]) -> tuple[Graph, list[bool]]:
    """``graph`` keeping only the outputs ``used_outputs`` and the equations they need.

    Returns the new graph (all invars kept) and which invars are used. An equation
    whose outputs are all unused is dropped, unless it has a side effect (has_effects).
    """
    live = {id(a) for a, u in zip(graph.outvars, used_outputs) if u and isinstance(a, Var)}
    kept = []
    for eqn in reversed(graph.eqns):
        if any(id(v) in live for v in eqn.outputs) or has_effects(eqn):
            kept.append(eqn)
            live.update(id(a) for a in eqn.inputs if isinstance(a, Var))
    outvars = [a for a, u in zip(graph.outvars, used_outputs) if u]
    new = Graph(list(graph.constvars), list(graph.invars), kept[::-1], outvars)
    return new, [id(v) in live for v in graph.invars]
