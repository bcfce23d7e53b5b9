"""A failure as a standalone script: imports numlir and jax, builds the inputs, compares.

The script needs neither the fuzzer nor the seed: the program's source and
its input values are written out in full.
"""

from __future__ import annotations

import inspect
import math
import textwrap

import numpy as np

from . import compare, jax_numpy_as_standard, render, run_modes
from .program import Program
from .run_modes import Outcome

_MODE_CODE = {
    "eager": "fn = f",
    "jit": "fn = lib.jit(f)",
    "grad": "fn = lib.grad(make_loss(lib, f), argnums=ARGNUMS)",
    "holomorphic_grad": ("fn = lib.grad(make_holomorphic_loss(lib, f), argnums=COMPLEX_ARGNUMS, "
                         "holomorphic=True)"),
    "vmap": "fn = lib.vmap(f, in_axes=IN_AXES)",
    "jit_vmap_grad": "fn = lib.jit(lib.vmap(lib.grad(make_loss(lib, f), argnums=ARGNUMS), in_axes=IN_AXES))",
    "jit_vmap_holomorphic_grad": ("fn = lib.jit(lib.vmap(lib.grad(make_holomorphic_loss(lib, f), "
                                  "argnums=COMPLEX_ARGNUMS, holomorphic=True), in_axes=IN_AXES))"),
    "jit_donate": "fn = lib.jit(f, **({'donate_argnums': tuple(range(len(INPUTS)))} if lib is NUMLIR else {}))",
}


#: How a reproducer builds a complex input from its parts (``array_source``'s complex form).
COMPLEX_ARRAY_SOURCE = '''
def complex_array(re, im, dtype):
    """A complex array from its parts (exact, infinities and NaNs included)."""
    out = np.empty(np.shape(re), dtype)
    out.real, out.imag = re, im
    return out
'''

WEIGHTS_SOURCE = '''
def weights_of(shape, complex_weights):
    """Fixed uneven weights for a loss over an output of this shape."""
    k = np.arange(int(np.prod(shape)))
    w = np.cos(k * 1.37 + 0.3)
    if complex_weights:
        w = w + 1j * np.sin(k * 0.71 + 1.1)
    return w.reshape(shape)
'''


def _literal(values) -> str:
    """``repr`` of nested lists, with a NaN whose sign bit is set written ``-nan``: x86 makes
    such NaNs (``sqrt(-1)``, ``0 / 0``), and XLA's top_k orders them below -inf, so a
    reproducer that made them positive would not reproduce (seed 101, program 100)."""
    if isinstance(values, list):
        return "[" + ", ".join(_literal(v) for v in values) + "]"
    if isinstance(values, float) and math.isnan(values) and math.copysign(1.0, values) < 0:
        return "-nan"
    return repr(values)


def array_source(a: np.ndarray) -> str:
    if a.dtype.kind == "c":  # the parts apart: repr(complex(inf, nan)) is "(inf+nanj)", not Python
        return (f"complex_array({_literal(a.real.tolist())}, {_literal(a.imag.tolist())}, "
                f"dtype=np.{a.dtype.name})")
    if a.dtype.name == "bfloat16":
        return (f"np.array({_literal(a.astype(np.float32).tolist())}, dtype=np.float32)"
                ".astype(jnp_bfloat16)")
    return f"np.array({_literal(a.tolist())}, dtype=np.{a.dtype.name})"


def script(program: Program, outcome: Outcome, note: str = "") -> str:
    mode = outcome.mode
    batched = mode in run_modes.BATCHED_MODES
    arrays = [inp.batched if batched and inp.batch_axis is not None else inp.value
              for inp in program.inputs]
    inputs = "\n".join(f"    {array_source(a)},  # {inp.name}" for inp, a in zip(program.inputs, arrays))
    weights = [None if not a.is_inexact else (list(a.shape), a.is_complex)
               for a in program.output_avals()]
    detail = textwrap.indent(outcome.detail.strip(), "    ") if outcome.detail else ""
    rtol = compare.program_rtol(program.dtypes())
    uses_grad = "grad" in mode
    loss = ""
    if mode in ("holomorphic_grad", "jit_vmap_holomorphic_grad"):
        loss = f'''
OUTPUT_WEIGHTS = {weights!r}
COMPLEX_ARGNUMS = {program.complex_argnums()!r}

{WEIGHTS_SOURCE.strip()}


def make_holomorphic_loss(lib, f):
    """sum_i sum(out_i * w_i) over the float and complex outputs, with fixed uneven complex
    weights: a complex scalar."""
    weights = [None if spec is None else weights_of(spec[0], True) for spec in OUTPUT_WEIGHTS]

    def loss(*xs):
        total = 0.0
        for out, w in zip(f(*xs), weights):
            if w is not None:
                wide = out.dtype in (np.float64, np.complex128)
                total = total + lib.jnp.sum(out * w.astype(np.complex128 if wide else np.complex64))
        return total

    return loss
'''
    elif uses_grad:
        loss = f'''
# (shape, complex) of each float or complex output's weights; None for the others.
OUTPUT_WEIGHTS = {weights!r}

{WEIGHTS_SOURCE.strip()}


def make_loss(lib, f):
    """sum_i sum(out_i * w_i) over the float outputs and sum_i sum(real(out_i * w_i)) over the
    complex ones, with fixed uneven weights."""
    weights = [None if spec is None else weights_of(*spec) for spec in OUTPUT_WEIGHTS]

    def loss(*xs):
        total = 0.0
        for out, w in zip(f(*xs), weights):
            if w is not None:
                term = out * w.astype(out.dtype)
                total = total + lib.jnp.sum(lib.jnp.real(term) if np.iscomplexobj(w) else term)
        return total

    return loss
'''
    special = ""
    if program.special_values:
        special = ("Special values: yes (the inputs hold zeros, ties, kinks, +-inf, NaN, tiny and "
                   "huge magnitudes,\ninteger extremes; kinked ops see ties).\n")
    return f'''"""numlir fuzz reproducer: {mode} -> {outcome.status}
{detail}

{note}{special}Program kinds: {", ".join(program.kinds())}; dtypes: {", ".join(program.dtypes())}; x64={program.x64}.
Run: python this_file.py  (compares numlir with jax on the same inputs)
"""
import types

import numpy as np
import jax
import jax.numpy
import numlir
import numlir.numpy

jnp_bfloat16 = jax.numpy.bfloat16
inf, nan = np.inf, np.nan  # how the inputs' non-finite values are written (-nan: sign bit set)


{COMPLEX_ARRAY_SOURCE.strip()}


JAX_NUMPY_AS_STANDARD_SOURCE = {inspect.getsource(jax_numpy_as_standard)!r}

X64 = {program.x64}
jax.config.update("jax_enable_x64", X64)
numlir.config.update("jax_enable_x64", X64)

{render.factory_source(program)}

INPUTS = [
{inputs}
]
IN_AXES = {program.in_axes()!r}
ARGNUMS = {program.grad_argnums()!r}
RTOL = {rtol!r}
SCALE_FLOOR = {compare.scale_floor(rtol)!r}
SCALE_CAP = {compare.SCALE_CAP!r}  # larger elements: relative tolerance only, not the scale
SPECIAL_VALUES = {program.special_values!r}
{loss}

# jax.numpy as the fuzzer's reference (test/fuzz/jax_numpy_as_standard.py).
jax_numpy_as_standard = types.ModuleType("jax_numpy_as_standard")
exec(JAX_NUMPY_AS_STANDARD_SOURCE, jax_numpy_as_standard.__dict__)
JAX = types.SimpleNamespace(jit=jax.jit, grad=jax.grad, vmap=jax.vmap,
                            jnp=jax_numpy_as_standard, lax=jax.lax, nn=jax.nn)
NUMLIR = types.SimpleNamespace(jit=numlir.jit, grad=numlir.grad, vmap=numlir.vmap,
                               jnp=numlir.numpy, lax=numlir.lax, nn=numlir.nn)


def run(lib):
    f = make(lib.jnp, lib.lax, lib.nn)
    {_MODE_CODE[mode]}
    if lib is JAX:
        fn = jax.jit(fn)  # the reference always runs under jax.jit
    out = fn(*[lib.jnp.asarray(a) for a in INPUTS])
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(out)]


def check(got, want):
    """Shapes and dtypes exactly; floats (complex numbers: by the modulus) to RTOL of the
    leaf's magnitude; the rest exactly."""
    assert len(got) == len(want), (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and g.dtype == w.dtype, (i, g.shape, g.dtype, w.shape, w.dtype)
        if w.dtype.kind == "c":
            for part in ("real", "imag"):  # NaN and inf in the same places in each part
                gp, wp = getattr(g, part), getattr(w, part)
                np.testing.assert_array_equal(np.isnan(gp), np.isnan(wp),
                                              err_msg=f"result {{i}} {{part}}")
                np.testing.assert_array_equal(np.where(np.isinf(gp), gp, 0),
                                              np.where(np.isinf(wp), wp, 0),
                                              err_msg=f"result {{i}} {{part}}")
            # A part that is not finite (in both) drops out of the modulus.
            g128, w128 = (np.where(np.isfinite(a.real), a.real, 0)
                          + 1j * np.where(np.isfinite(a.imag), a.imag, 0) for a in (g, w))
            magnitude = np.abs(w128)
            scale = np.max(magnitude[np.isfinite(w) & (magnitude <= SCALE_CAP)], initial=0.0)
            np.testing.assert_allclose(g128, w128, rtol=RTOL, atol=RTOL * max(scale, SCALE_FLOOR),
                                       err_msg=f"result {{i}}")
        elif w.dtype.kind == "f" or w.dtype.name == "bfloat16":
            g64, w64 = g.astype(np.float64), w.astype(np.float64)
            # NaN and inf in the same places, infinities of the same sign; the rest to RTOL.
            magnitude = np.abs(w64)
            scale = np.max(magnitude[np.isfinite(w64) & (magnitude <= SCALE_CAP)], initial=0.0)
            np.testing.assert_allclose(g64, w64, rtol=RTOL, atol=RTOL * max(scale, SCALE_FLOOR),
                                       err_msg=f"result {{i}}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"result {{i}}")


if __name__ == "__main__":
    want = run(JAX)
    got = run(NUMLIR)
    check(got, want)
    print("numlir agrees with jax")
'''.rstrip() + "\n"
