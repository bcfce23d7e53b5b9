"""Runs one program in one mode on numlir and on jax, and classifies the outcome.

Modes:

- ``eager``: ``f(*xs)``, op by op;
- ``jit``: ``jit(f)(*xs)``;
- ``grad``: ``grad(loss, argnums=<float and complex inputs>)(*xs)``, eagerly, where
  ``loss`` is ``sum_i sum(out_i * w_i)`` over the float outputs and
  ``sum_i sum(real(out_i * w_i))`` over the complex ones, ``w_i`` fixed weights
  (complex ones for complex outputs);
- ``holomorphic_grad``: ``grad(hloss, argnums=<complex inputs>, holomorphic=True)(*xs)``,
  eagerly, where ``hloss`` is ``sum_i sum(out_i * w_i)`` over the float and complex outputs
  with complex weights: a complex scalar, whose "gradient" jax defines for any function
  (holomorphic or not) as the pullback of 1;
- ``vmap``: ``vmap(f, in_axes)(*batched xs)``, eagerly;
- ``jit_vmap_grad``: ``jit(vmap(grad(loss, argnums), in_axes))(*batched xs)``;
- ``jit_vmap_holomorphic_grad``: ``jit(vmap(grad(hloss, argnums=<complex inputs>,
  holomorphic=True), in_axes))(*batched xs)``;
- ``jit_donate``: ``jit(f, donate_argnums=<every input>)(*xs)`` on numlir (jax's
  reference is plain ``jit``), for programs where some input has an output's shape
  and dtype: the donated buffers then hold outputs while the program still reads them.

jax's reference is always run under ``jax.jit``. Outcomes:

- ``ok``; ``wrong`` (a value, shape or dtype disagrees);
- ``error``: numlir raises where jax succeeds;
- ``crash`` / ``timeout``: decided by the sandbox, which sees the worker die
  while numlir runs;
- ``jax_crash``: the worker died (or hung) while jax ran: its reference, or
  one of the checks that judge a mismatch. XLA aborts the process on some
  programs it accepts (skipped: a bug of jax's, not evidence about numlir);
- ``jax_error``: jax rejects the program in this mode (skipped);
- ``unstable``: a mismatch, but jax's own result moves by more than the
  tolerance when the float inputs are perturbed slightly: the program is
  ill-conditioned at this input (near a discontinuity or a tie), so the
  mismatch is not evidence of a bug (skipped);
- ``jax_disagrees``: a mismatch with ``jax.jit``, but numlir agrees with
  jax run op by op (``jax.disable_jit()``): XLA's
  algebraic rewrites changed the rounding (``mean(broadcast(x))`` becomes
  exactly ``x``, where summing and dividing is 1 ulp off) at a point where
  the result is pure rounding, so the mismatch is not evidence of a bug
  (skipped).
"""

from __future__ import annotations

import dataclasses
import functools
import traceback
import warnings

import numpy as np

from . import compare, render
from .program import Program

MODES = ("eager", "jit", "grad", "holomorphic_grad", "vmap", "jit_vmap_grad",
         "jit_vmap_holomorphic_grad", "jit_donate")
BATCHED_MODES = ("vmap", "jit_vmap_grad", "jit_vmap_holomorphic_grad")
SKIPS = ("jax_error", "jax_crash", "unstable", "jax_disagrees")
#: What ``check`` announces before each stretch of work, so that the sandbox,
#: seeing the worker die, knows which library killed it.
PHASES = ("jax", "numlir")
FAILURES = ("wrong", "error", "crash", "timeout")


@dataclasses.dataclass
class Outcome:
    mode: str
    status: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.status in FAILURES


def applicable_modes(program: Program) -> list[str]:
    modes = ["eager", "jit"]
    outputs = {(a.shape, a.dtype) for a in program.output_avals()}
    if any((inp.aval.shape, inp.aval.dtype) in outputs for inp in program.inputs):
        modes.append("jit_donate")
    if program.has_grad():
        modes.append("grad")
    if program.has_holomorphic_grad():
        modes.append("holomorphic_grad")
    if program.has_vmap():
        modes.append("vmap")
        if program.has_grad():
            modes.append("jit_vmap_grad")
        if program.has_holomorphic_grad():
            modes.append("jit_vmap_holomorphic_grad")
    return modes


@dataclasses.dataclass(frozen=True)
class Library:
    name: str
    jnp: object
    jit: object
    grad: object
    vmap: object


@functools.lru_cache(maxsize=None)
def library(name: str) -> Library:
    if name == "numlir":
        import numlir

        return Library("numlir", numlir.numpy, numlir.jit, numlir.grad, numlir.vmap)
    import jax

    return Library("jax", jax.numpy, jax.jit, jax.grad, jax.vmap)


def set_x64(enabled: bool) -> None:
    """Both libraries at once; the worker process owns these flags."""
    import jax
    import numlir

    numlir.config.update("jax_enable_x64", enabled)
    jax.config.update("jax_enable_x64", enabled)


def loss_weights(shape, complex_weights: bool = False) -> np.ndarray:
    """Fixed, uneven weights, so every output element matters differently to the loss;
    complex ones (for a complex output, whose loss term is ``sum(real(out * w))``) with an
    imaginary part, so both parts of the output reach the gradient."""
    size = int(np.prod(shape, dtype=np.int64))
    k = np.arange(size)
    w = np.cos(k * 1.37 + 0.3)
    if complex_weights:
        w = w + 1j * np.sin(k * 0.71 + 1.1)
    return w.reshape(shape)


def make_loss(lib: Library, f, program: Program):
    """``sum_i sum(out_i * w_i)`` over the float outputs, plus ``sum(real(out_i * w_i))`` over
    the complex ones: a real scalar, as grad needs."""
    weights = [loss_weights(a.shape, a.is_complex) if a.is_inexact else None
               for a in program.output_avals()]

    def loss(*xs):
        total = 0.0
        for out, w in zip(f(*xs), weights):
            if w is None:
                continue
            term = out * w.astype(out.dtype)
            total = total + lib.jnp.sum(lib.jnp.real(term) if np.iscomplexobj(w) else term)
        return total

    return loss


def complex_of(dtype) -> type:
    """The complex dtype of a float (or complex) dtype's precision."""
    return np.complex128 if np.dtype(dtype).name in ("float64", "complex128") else np.complex64


def make_holomorphic_loss(lib: Library, f, program: Program):
    """``sum_i sum(out_i * w_i)`` over the float and complex outputs, with complex weights: a
    complex scalar, as ``grad(..., holomorphic=True)`` needs."""
    weights = [loss_weights(a.shape, True) if a.is_inexact else None
               for a in program.output_avals()]

    def loss(*xs):
        total = 0.0
        for out, w in zip(f(*xs), weights):
            if w is not None:
                total = total + lib.jnp.sum(out * w.astype(complex_of(out.dtype)))
        return total

    return loss


def mode_function(lib: Library, program: Program, mode: str):
    f = render.build(program, lib.name)
    if mode == "eager":
        return f
    if mode == "jit":
        return lib.jit(f)
    if mode == "jit_donate":
        if lib.name != "numlir":
            return lib.jit(f)
        return _donating(lib.jit(f, donate_argnums=tuple(range(len(program.inputs)))))
    if mode == "vmap":
        return lib.vmap(f, in_axes=program.in_axes())
    if mode in ("holomorphic_grad", "jit_vmap_holomorphic_grad"):
        grad = lib.grad(make_holomorphic_loss(lib, f, program), argnums=program.complex_argnums(),
                        holomorphic=True)
        return grad if mode == "holomorphic_grad" else lib.jit(lib.vmap(grad, in_axes=program.in_axes()))
    grad = lib.grad(make_loss(lib, f, program), argnums=program.grad_argnums())
    if mode == "grad":
        return grad
    if mode == "jit_vmap_grad":
        return lib.jit(lib.vmap(grad, in_axes=program.in_axes()))
    raise ValueError(f"unknown mode {mode!r}")


def _donating(jitted):
    """``jitted``, with the warning about unusable donations (inputs no output can take, the
    common case) silenced: it comes when a call traces."""
    @functools.wraps(jitted)
    def call(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return jitted(*args)

    return call


def mode_inputs(program: Program, mode: str) -> list[np.ndarray]:
    if mode in BATCHED_MODES:
        return [inp.batched if inp.batch_axis is not None else inp.value for inp in program.inputs]
    return [inp.value for inp in program.inputs]


def flatten(tree) -> list:
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in flatten(item)]
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in flatten(tree[key])]
    return [tree]


def evaluate(lib: Library, program: Program, mode: str, arrays, fn=None) -> list[np.ndarray]:
    fn = fn or mode_function(lib, program, mode)
    args = [lib.jnp.asarray(a) for a in arrays]
    return [compare.to_numpy(leaf) for leaf in flatten(fn(*args))]


def perturbed(arrays, rng: np.random.Generator, special: bool = False) -> list[np.ndarray]:
    """The float inputs, each element moved by a few ulps; complex ones in each part.

    ``special`` (a special-value program): by value, not by element, so equal values stay
    equal (a tie in the inputs is the program's, and jax's convention there is what is
    checked), and the exact special values (zeros, the kinks, infinities, NaN) stay where
    they are; the others move. Keyed on the signed value, so ``x`` and ``-x`` move apart
    and a cancellation of huge terms does not survive the perturbation."""
    factor_of = _factors_by_value(arrays, rng) if special else None
    out = []
    for a in arrays:
        name = compare.part_dtype(a.dtype.name)
        if name in compare.PERTURBATION:
            eps = compare.PERTURBATION[name]

            def move(part):
                part = part.astype(np.float64)
                if factor_of is not None:
                    return part * factor_of(part, eps)
                return part * (1.0 + eps * rng.standard_normal(a.shape))

            if np.iscomplexobj(a):
                moved = np.empty(a.shape, a.dtype)
                moved.real, moved.imag = move(a.real), move(a.imag)
                out.append(moved)
            else:
                out.append(np.asarray(move(a)).astype(a.dtype))
        else:
            out.append(a)
    return out


def _factors_by_value(arrays, rng: np.random.Generator):
    """``factor_of(part, eps)``: one random factor ``1 + eps * N(0, 1)`` per distinct finite
    value over every float (and complex part) input, 1 for the exact special values."""
    from .generate import KINK_VALUES

    values = [p.astype(np.float64).ravel() for a in arrays
              if compare.part_dtype(a.dtype.name) in compare.PERTURBATION
              for p in ((a.real, a.imag) if np.iscomplexobj(a) else (a,))]
    every = np.concatenate(values) if values else np.zeros(0)
    distinct = np.unique(every[np.isfinite(every)])
    noise = rng.standard_normal(distinct.size)
    exact = np.isin(distinct, (0.0,) + tuple(KINK_VALUES) + tuple(-k for k in KINK_VALUES))

    def factor_of(part: np.ndarray, eps: float) -> np.ndarray:
        factors = np.where(exact, 1.0, 1.0 + eps * noise)
        finite = np.isfinite(part)
        where = np.searchsorted(distinct, np.where(finite, part, 0.0))
        where = np.clip(where, 0, max(distinct.size - 1, 0))
        return np.where(finite & (distinct.size > 0), factors[where] if distinct.size else 1.0,
                        1.0)

    return factor_of


def _describe(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:400]


# Eager and jit modes share one reference, jax.jit(f) on the same inputs:
# computing it once saves a jax compilation per program.
_UNBATCHED_REFERENCE: list = [None, None, None]  # [program, jitted f, its outputs]


def _jax_reference(jax_lib: Library, program: Program, mode: str, arrays):
    shared = mode in ("eager", "jit", "jit_donate")
    if shared and _UNBATCHED_REFERENCE[0] is program:
        return _UNBATCHED_REFERENCE[1], _UNBATCHED_REFERENCE[2]
    jax_fn = jax_lib.jit(mode_function(jax_lib, program, mode))
    want = evaluate(jax_lib, program, mode, arrays, jax_fn)
    if shared:
        _UNBATCHED_REFERENCE[:] = [program, jax_fn, want]
    return jax_fn, want


def _no_announcement(phase: str) -> None:
    pass


def check(program: Program, mode: str, announce=_no_announcement) -> Outcome:
    """Runs ``program`` in ``mode`` on jax, then numlir, and classifies the result.

    ``announce(phase)`` is called with a name from ``PHASES`` before each stretch
    of work in which only that library runs."""
    announce("jax")
    set_x64(program.x64)
    arrays = mode_inputs(program, mode)
    jax_lib = library("jax")
    try:
        jax_fn, want = _jax_reference(jax_lib, program, mode, arrays)
    except Exception as exc:  # noqa: BLE001 - jax's verdict on the program
        return Outcome(mode, "jax_error", _describe(exc))
    announce("numlir")
    try:
        got = evaluate(library("numlir"), program, mode, arrays)
    except Exception as exc:  # noqa: BLE001 - anything numlir raises is a finding
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" [at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}]" if tb else ""
        return Outcome(mode, "error", _describe(exc) + where)
    announce("jax")  # from here on, only jax runs: the references that judge a mismatch
    rtol = compare.program_rtol(program.dtypes())
    verdict = compare.compare(got, want, rtol)
    if verdict.ok:
        return Outcome(mode, "ok")
    if verdict.kind in ("value", "nonfinite") and compare.has_narrow_floats(program.dtypes()):
        # Rounding, not a bug, when numlir is about as close to the float64 answer as jax is;
        # with x64 on too, where float32 values are as inexact (seed 134, program 3075:
        # lax.lgamma(1.0) in float32 is 0 on numlir and in truth, 4.8e-7 on jax).
        set_x64(True)
        try:
            exact = upcast(program)
            truth = evaluate(jax_lib, exact, mode, mode_inputs(exact, mode),
                             jax_lib.jit(mode_function(jax_lib, exact, mode)))
        except Exception:  # noqa: BLE001 - no float64 answer: judge without it
            truth = None
        finally:
            set_x64(program.x64)
        if truth is not None and compare.within_reference_error(got, want, truth, rtol):
            return Outcome(mode, "ok", "differs from jax by rounding: as close to the float64 result")
    if verdict.kind in ("value", "nonfinite") and _matches_jax_op_by_op(got, program, mode, arrays, rtol):
        return Outcome(mode, "jax_disagrees", verdict.detail)
    if verdict.kind in ("value", "nonfinite"):
        rng = np.random.default_rng(0)
        if any(compare.part_dtype(a.dtype.name) in compare.PERTURBATION for a in arrays):
            for _ in range(3):
                moved = evaluate(jax_lib, program, mode,
                                 perturbed(arrays, rng, program.special_values), jax_fn)
                if not compare.compare(moved, want, rtol).ok:
                    return Outcome(mode, "unstable", verdict.detail)
    return Outcome(mode, "wrong", f"{verdict.kind}: {verdict.detail}")


def _matches_jax_op_by_op(got, program: Program, mode: str, arrays, rtol: float) -> bool:
    """Whether numlir's result agrees with jax's own, computed without jit."""
    import jax

    jax_lib = library("jax")
    try:
        with jax.disable_jit():
            eager = evaluate(jax_lib, program, mode, arrays)
    except Exception:  # noqa: BLE001 - no op-by-op answer: judge without it
        return False
    return compare.compare(got, eager, rtol).ok


def upcast(program: Program) -> Program:
    """The program with every float in float64 and every complex in complex128 (run with x64
    on): the reference for rounding."""
    def wide(a):
        if a is None:
            return None
        if np.iscomplexobj(a):
            return a.astype(np.complex128)
        return a.astype(np.float64) if a.dtype.name in compare.RTOL else a

    ops = [dataclasses.replace(op, template=_widen(op.template)) for op in program.ops]
    inputs = [dataclasses.replace(i, value=wide(i.value), batched=wide(i.batched)) for i in program.inputs]
    return program.copy(ops=ops, inputs=inputs, x64=True)


def _widen(template: str) -> str:
    for name in ("bfloat16", "float16", "float32"):
        template = template.replace(f"jnp.{name}", "jnp.float64")
    return template.replace("jnp.complex64", "jnp.complex128")


def intermediates(program: Program) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """Every op's value by jax, unbatched and (where some input is batched) batched along axis 0.

    The minimizer cuts a value into an input that holds exactly these numbers."""
    import jax

    set_x64(program.x64)
    f = render.build(program, "jax", returns_all=True)
    plain = jax.jit(f)(*mode_inputs(program, "eager"))
    batched = {}
    if program.has_vmap():
        batched = jax.jit(jax.vmap(f, in_axes=program.in_axes()))(*mode_inputs(program, "vmap"))
    return {name: (np.asarray(value), np.asarray(batched[name]) if name in batched else None)
            for name, value in plain.items()}
