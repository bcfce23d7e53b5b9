"""Renders a program as Python source and builds it against numlir or jax.

The source is a factory ``make(jnp, lax, nn)`` returning ``f(*inputs)``, so
the text that runs on numlir is exactly the text that runs on jax.
"""

from __future__ import annotations

import functools
import importlib

import numpy as np

from .program import Program

#: The modules a program's ``jnp``, ``lax`` and ``nn`` names bind to, per library.
APIS = {
    "numlir": ("numlir.numpy", "numlir.lax", "numlir.nn"),
    # jax.numpy where it departs from the array API standard that numlir follows.
    "jax": (f"{__package__}.jax_numpy_as_standard", "jax.lax", "jax.nn"),
}


def function_source(program: Program, name: str = "f", indent: str = "",
                    returns_all: bool = False) -> str:
    """``def f(x0, ...): v0 = ...; return (outputs,)``; ``returns_all`` returns every op's value
    as a dict (what the minimizer needs to cut a value into an input)."""
    args = ", ".join(inp.name for inp in program.inputs)
    lines = [f"def {name}({args}):"]
    lines += [f"    {op.out} = {op.expression()}" for op in program.ops]
    if returns_all:
        lines.append("    return dict(" + ", ".join(f"{op.out}={op.out}" for op in program.ops) + ")")
    else:
        lines.append("    return (" + "".join(f"{out}, " for out in program.outputs).rstrip() + ")")
    return "\n".join(indent + line for line in lines) + "\n"


def describe(program: Program) -> str:
    """Comment lines that say where a program came from, and, for a special-value program,
    that it is one and what its inputs hold (``--show`` prints them above the source)."""
    lines = [f"# origin {program.origin}; x64={program.x64}; "
             f"differentiable={program.differentiable}; "
             f"special_values={program.special_values}"]
    if program.special_values:
        lines.append("# special values: the inputs hold zeros of both signs, ties, kinks, "
                     "+-inf, NaN, tiny and huge magnitudes, integer extremes")
        with np.printoptions(threshold=64, linewidth=10**6, precision=6):
            for inp in program.inputs:  # flattened, one line each
                text = np.array2string(inp.value.ravel(), separator=", ")
                lines.append(f"# {inp.name}: {inp.aval} (flattened) {text}")
    return "\n".join(lines) + "\n"


def factory_source(program: Program, returns_all: bool = False) -> str:
    return ("def make(jnp, lax, nn):\n" + function_source(program, indent="    ",
                                                          returns_all=returns_all)
            + "    return f\n")


@functools.lru_cache(maxsize=None)
def modules(api: str):
    return tuple(importlib.import_module(name) for name in APIS[api])


def build(program: Program, api: str, returns_all: bool = False):
    """The program as a Python function over ``api``'s modules."""
    namespace = {"np": np}
    exec(compile(factory_source(program, returns_all), "<fuzz program>", "exec"), namespace)
    return namespace["make"](*modules(api))


def build_expression(template: str, arity: int, api: str):
    """One op template as a function of its operands (the generator's shape oracle)."""
    params = [f"a{i}" for i in range(arity)]
    source = f"lambda {', '.join(params)}: {template.format(*params)}"
    jnp, lax, nn = modules(api)
    return eval(source, {"np": np, "jnp": jnp, "lax": lax, "nn": nn})
