"""Graph → MLIR text in the ``hlo`` dialect (the Python↔C++ boundary).

Every op carries the user's source location ``loc("file.py":LINE:COL)``.
Constants (closed-over arrays, literals) become ``hlo.constant`` ops: a splat
``dense<v>`` when all elements are equal, nested lists for small arrays, and
the exact little-endian hex form ``dense<"0x...">`` for large arrays or values
that have no decimal spelling (inf/nan). Primitive-specific text comes from
each primitive's lowering rule (``Primitive.def_lowering``), called as
``rule(ctx, *operand_names, **params)`` with ``ctx`` a ``LoweringRuleContext``.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from numlir._src import core, dtypes, spmd

_HEX_THRESHOLD = 16  # non-splat constants with more elements use the hex form


def tensor_type(aval: core.ShapedArray) -> str:
    dims = "".join(f"{d}x" for d in aval.shape)
    return f"tensor<{dims}{dtypes.mlir_element_type(aval.dtype)}>"


def format_loc(info: core.SourceInfo | None) -> str:
    if info is None:
        return "loc(unknown)"
    file = info.file.replace("\\", "\\\\").replace('"', '\\"')
    loc = f'"{file}":{info.line}:{info.col}'
    if info.name:
        name = info.name.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{name}"({loc}))'
    return f"loc({loc})"


def _float_literal(v: float) -> str:
    s = repr(float(v))  # exact: the double holds any f16/bf16/f32 value exactly
    mantissa, e, exp = s.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + (("e" + exp) if e else "")


def _scalar_literal(v, dtype: np.dtype) -> str:
    if dtype == dtypes.bool_:
        return "true" if bool(v) else "false"
    if dtypes.is_complex(dtype):
        v = complex(v)
        return f"({_float_literal(v.real)}, {_float_literal(v.imag)})"
    if dtypes.is_float(dtype):
        return _float_literal(float(v))
    return str(int(v))


def dense_attr(value: np.ndarray) -> str:
    """The ``dense<...>`` attribute spelling ``value`` exactly."""
    value = np.ascontiguousarray(value)  # the byte views below need one contiguous buffer
    dtype = value.dtype
    if value.size == 0:
        return "dense<>"
    flat = value.reshape(-1)
    if dtypes.is_complex(dtype):
        finite = bool(np.all(np.isfinite(flat)))  # both parts
    else:
        finite = not dtypes.is_float(dtype) or bool(np.all(np.isfinite(flat.astype(np.float64))))
    as_bytes = flat.view(np.uint8).reshape(flat.size, -1)
    if bool(np.all(as_bytes == as_bytes[:1])):  # splat (bitwise, so -0.0 and nan count)
        if finite:
            return f"dense<{_scalar_literal(flat[0], dtype)}>"
        return f'dense<"0x{flat[:1].astype(dtype.newbyteorder("<")).tobytes().hex().upper()}">'
    if dtype != dtypes.bool_ and (value.size > _HEX_THRESHOLD or not finite):
        raw = np.ascontiguousarray(value).astype(dtype.newbyteorder("<")).tobytes()
        return f'dense<"0x{raw.hex().upper()}">'

    def nested(a):
        if a.ndim == 0:
            return _scalar_literal(a, dtype)
        return "[" + ", ".join(nested(x) for x in a) + "]"

    return f"dense<{nested(value)}>"


class LoweringRuleContext:
    """What a lowering rule sees: the avals and a way to emit ops at the eqn's location."""

    def __init__(self, module: "_FunctionBuilder", avals_in, avals_out, loc: str):
        self._module = module
        self.avals_in: list[core.ShapedArray] = avals_in
        self.avals_out: list[core.ShapedArray] = avals_out
        self.loc = loc

    def emit(self, op: str) -> str:
        """Append ``%N = <op> loc(...)`` and return ``%N``."""
        return self._module.emit(op, self.loc)

    @property
    def axis_env(self) -> spmd.AxisEnv:
        """The named axes of the SPMD module being lowered (empty outside one)."""
        return self._module.axis_env

    def has_library(self, routine: str) -> bool:
        """Whether the module's backend runs ``hlo.custom_call`` of ``routine``
        ("lapack.potrf", "numlir.fft"); a primitive lowers to its portable composite
        where it does not."""
        return routine in self._module.library_routines

    def custom_call(self, routine: str, operands: Sequence[str], config: Sequence[int] = ()
                    ) -> list[str]:
        """Emit ``hlo.custom_call`` of ``routine`` on ``operands``, giving the eqn's
        results."""
        types_in = ", ".join(self.type_in(i) for i in range(len(self.avals_in)))
        types_out = ", ".join(self.type_out(i) for i in range(len(self.avals_out)))
        op = (f'hlo.custom_call "{routine}" ({", ".join(operands)}) '
              f'config = [{", ".join(str(int(c)) for c in config)}] : '
              f"({types_in}) -> ({types_out})")
        return self.emit_results(op, len(self.avals_out))

    def type_in(self, i: int = 0) -> str:
        return tensor_type(self.avals_in[i])

    def type_out(self, i: int = 0) -> str:
        return tensor_type(self.avals_out[i])

    def emit_results(self, op: str, num_results: int) -> list[str]:
        """Append an op with ``num_results`` results (``%N:k = <op>``) and return their names."""
        return self._module.emit_results(op, self.loc, num_results)

    def fresh_name(self) -> str:
        """A new SSA name, e.g. for region arguments named in an op's header."""
        return self._module.fresh_name()

    def lower_region(self, closed: core.ClosedGraph, args: Sequence[str]) -> str:
        """The text ``{ ... hlo.return ... }`` of a region computing ``closed``.

        ``args`` are the SSA names ``closed``'s invars stand for: the region's
        own arguments (named in the op's header) or values from above, which
        regions may use directly.
        """
        return self._module.region(closed, args, self.loc)

    def inline(self, closed: core.ClosedGraph, args: Sequence[str]) -> list[str]:
        """Emit ``closed``'s equations in place, its invars standing for ``args``; return
        its outputs' SSA names. A primitive defined by a composite of others lowers this way
        while keeping its own differentiation rule."""
        env = {id(v): a for v, a in zip(closed.graph.invars, args)}
        return _lower_eqns(self._module, closed.graph, closed.consts, env, self.loc)

    def constant(self, value: np.ndarray) -> str:
        value = np.asarray(value)
        return self._module.constant(value, self.loc)

    def broadcast_to(self, x: str, aval: core.ShapedArray, shape: tuple[int, ...]) -> str:
        """Right-aligned NumPy-style broadcast of ``x`` (of ``aval``) to ``shape``."""
        if aval.shape == tuple(shape):
            return x
        dims = list(range(len(shape) - aval.ndim, len(shape)))
        out = aval.update(shape=shape)
        return self.emit(f"hlo.broadcast_in_dim {x}, dims = {dims} : {tensor_type(aval)} -> {tensor_type(out)}")


class _FunctionBuilder:
    def __init__(self, axis_env: spmd.AxisEnv | None = None,
                 library_routines: frozenset[str] = frozenset()):
        self.lines: list[str] = []
        self._counter = 0
        self.axis_env = axis_env or spmd.AxisEnv()
        self.library_routines = library_routines

    def fresh_name(self) -> str:
        name = f"%{self._counter}"
        self._counter += 1
        return name

    def emit(self, op: str, loc: str) -> str:
        name = self.fresh_name()
        self.lines.append(f"    {name} = {op} {loc}")
        return name

    def emit_results(self, op: str, loc: str, num_results: int) -> list[str]:
        if num_results == 0:
            self.lines.append(f"    {op} {loc}")
            return []
        if num_results == 1:
            return [self.emit(op, loc)]
        name = self.fresh_name()
        self.lines.append(f"    {name}:{num_results} = {op} {loc}")
        return [f"{name}#{i}" for i in range(num_results)]

    def region(self, closed: core.ClosedGraph, args: Sequence[str], loc: str) -> str:
        outer, self.lines = self.lines, []
        env = {id(v): a for v, a in zip(closed.graph.invars, args)}
        outs = _lower_eqns(self, closed.graph, closed.consts, env, loc)
        types = ", ".join(tensor_type(a.aval) for a in closed.graph.outvars)
        ret = f"hlo.return {', '.join(outs)} : {types}" if outs else "hlo.return"
        body, self.lines = self.lines, outer
        return "\n".join(["{", *body, f"    {ret} {loc}", "    }"])

    def constant(self, value: np.ndarray, loc: str) -> str:
        aval = core.ShapedArray(value.shape, value.dtype)
        return self.emit(f"hlo.constant {dense_attr(value)} : {tensor_type(aval)}", loc)


def sanitize_symbol(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_$.]", "_", name) or "fn"


def lower_graph(closed: core.ClosedGraph, module_name: str = "jit_fn",
                default_loc: core.SourceInfo | None = None,
                aliasing_outputs: dict[int, int] | None = None,
                axis_env: spmd.AxisEnv | None = None,
                library_routines: frozenset[str] = frozenset()) -> str:
    """The hlo-dialect module text for ``closed``: ``func.func public @main`` over its invars.

    ``aliasing_outputs`` maps donated inputs to the outputs whose buffers they are
    (``numlir.aliasing_output``, as JAX's ``tf.aliasing_output``). ``axis_env`` names the
    mapped axes of an SPMD module: its collectives lower to hlo's, and the module records
    its replica count (``numlir.num_replicas``). ``library_routines`` are the
    ``hlo.custom_call`` routines the target backend runs (``Backend.library_routines``);
    without them every primitive lowers to a portable module.
    """
    graph = closed.graph
    fb = _FunctionBuilder(axis_env, library_routines)
    env: dict[int, str] = {}
    default = format_loc(default_loc)
    args = []
    aliasing_outputs = aliasing_outputs or {}
    for i, v in enumerate(graph.invars):
        env[id(v)] = f"%arg{i}"
        attrs = (f" {{numlir.aliasing_output = {aliasing_outputs[i]} : i32}}"
                 if i in aliasing_outputs else "")
        args.append(f"%arg{i}: {tensor_type(v.aval)}{attrs}")
    outs = _lower_eqns(fb, graph, closed.consts, env, default)
    out_types = [tensor_type(a.aval) for a in graph.outvars]
    ret = f"    return {', '.join(outs)} : {', '.join(out_types)}" if outs else "    return"
    attrs = (f" attributes {{numlir.num_replicas = {fb.axis_env.num_replicas} : i64}}"
             if fb.axis_env.frames else "")
    return "\n".join([
        f"module @{sanitize_symbol(module_name)}{attrs} {{",
        f"  func.func public @main({', '.join(args)}) -> ({', '.join(out_types)}) {{",
        *fb.lines,
        ret,
        "  }",
        "}",
        "",
    ])


def _lower_eqns(fb: _FunctionBuilder, graph: core.Graph, consts: Sequence, env: dict[int, str],
                default: str) -> list[str]:
    """Emit ``graph``'s equations into ``fb`` (invars already in ``env``); return the outputs."""
    pending_consts = {id(v): c for v, c in zip(graph.constvars, consts)}

    def read(atom, loc: str) -> str:
        if isinstance(atom, core.Literal):
            return fb.constant(atom.val, loc)
        if id(atom) not in env:  # constvars are materialized at their first use
            value = core.concrete_to_numpy(pending_consts[id(atom)])
            env[id(atom)] = fb.constant(value, loc)
        return env[id(atom)]

    for eqn in graph.eqns:
        loc = format_loc(eqn.source_info) if eqn.source_info else default
        operands = [read(a, loc) for a in eqn.inputs]
        if eqn.prim.lowering is None:
            raise NotImplementedError(f"no hlo lowering for primitive {eqn.prim.name}")
        ctx = LoweringRuleContext(fb, [a.aval for a in eqn.inputs], [v.aval for v in eqn.outputs], loc)
        results = eqn.prim.lowering(ctx, *operands, **eqn.params)
        if isinstance(results, str):
            results = [results]
        assert len(results) == len(eqn.outputs), eqn.prim
        for v, r in zip(eqn.outputs, results):
            env[id(v)] = r
    return [read(a, default) for a in graph.outvars]


def lower_single_primitive(prim: core.Primitive, in_avals: Sequence[core.ShapedArray], params,
                           library_routines: frozenset[str] = frozenset()
                           ) -> tuple[str, list[core.ShapedArray]]:
    invars = [core.Var(a) for a in in_avals]
    out_avals = prim.out_avals(in_avals, params)
    outvars = [core.Var(a) for a in out_avals]
    eqn = core.Eqn(prim, list(invars), outvars, dict(params), None)
    graph = core.Graph([], invars, [eqn], list(outvars))
    return lower_graph(core.ClosedGraph(graph, []), module_name=prim.name,
                       default_loc=core.user_source_info(),
                       library_routines=library_routines), out_avals
