"""Random programs agree with jax in every mode: the differential fuzzer's fixed-seed budget.

Each chunk generates its programs (test/fuzz/generate.py; about a quarter of
them with special values in their inputs, as in a campaign) and runs them in a
worker process under eager, jit, grad, vmap and jit(vmap(grad)), comparing
with jax. A failing chunk prints a standalone reproducer for each failure;
``make fuzz SEED=... `` minimizes. Known, not yet fixed bugs are listed in
test/fuzz/known_bugs.py; their failures are reported but tolerated.
"""

import os
import re
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from fuzz import compare, generate, known_bugs, minimize, render, reproducer, run_modes  # noqa: E402
from fuzz.program import Aval, Input, Op, Program  # noqa: E402
from fuzz.run_modes import MODES, Outcome  # noqa: E402
from fuzz.sandbox import Worker  # noqa: E402

SEED = 8
PROGRAMS = 160
CHUNK = 20


#: The worker splits every op with a parallel loop into 3 chunks on OpenMP threads
#: (cpu-parallelize-loops), where by default only ops of 131072 iterations or more
#: are split: the generator's small programs then run through the chunked loops,
#: ragged last chunks included, as well as through everything else. It also outlines
#: every loop nest and compiles every module in up to 3 partitions, where by default
#: only functions of 2000 LLVM instructions or more are, and runs every run of row-local
#: ops row tile by row tile (cpu-fuse-row-loops), where by default only runs over 1 MiB
#: of buffers are.
SPLIT_EVERY_OP = {"NUMLIR_CPU_PARALLEL_MIN_ITERATIONS": "1", "NUMLIR_NUM_THREADS": "3",
                  "NUMLIR_CPU_OUTLINE_MIN_INSTRUCTIONS": "1",
                  "NUMLIR_CPU_ROW_FUSION_MIN_BYTES": "0"}


@pytest.fixture(scope="module")
def worker():
    w = Worker(timeout=300, env={**os.environ, **SPLIT_EVERY_OP})
    yield w
    w.close()


#: Modes that numlir runs op by op, compiling every op of the program on its own: most of
#: this file's time. Every other program runs them; the rest run only the compiled modes
#: (jit, jit_donate, jit_vmap_grad, with grad and holomorphic_grad, whose eager runs are
#: few). Campaigns (`make fuzz`) run every mode on every program.
OP_BY_OP_MODES = ("eager", "vmap")


def in_suite_modes(program, index: int) -> list[str]:
    modes = run_modes.applicable_modes(program)
    return modes if index % 2 == 0 else [m for m in modes if m not in OP_BY_OP_MODES]


@pytest.mark.parametrize("chunk", range(PROGRAMS // CHUNK))
def test_random_programs_agree_with_jax(worker, chunk):
    failures, summary, tolerated, jax_rejects = [], [], [], []
    for index in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        # A quarter of them draw special values, as a campaign's (make fuzz SEED=8 START=...).
        program = worker.generate(SEED, index, None, None, "quarter")
        for outcome in worker.check(program, in_suite_modes(program, index)):
            if outcome.status == "jax_error" and outcome.mode in ("eager", "jit"):
                jax_rejects.append(f"program {index}: {outcome.detail}\n{render.function_source(program)}")
            if not outcome.failed:
                continue
            known = known_bugs.match(program, outcome)
            if known:
                tolerated.append(f"program {index} {outcome.mode}: {known}")
                continue
            summary.append(f"program {index} {outcome.mode} {outcome.status}: "
                           f"{outcome.detail.splitlines()[0] if outcome.detail else ''}")
            note = (f"Found by test_fuzz_programs.py (seed {SEED}, program {index}); not minimized:\n"
                    f"`make fuzz SEED={SEED} N=1 START={index}` writes a minimized one to fuzz-out/.\n")
            failures.append(reproducer.script(program, outcome, note=note))
    for line in tolerated:
        warnings.warn(f"known fuzz bug: {line}", stacklevel=1)
    assert not jax_rejects, "the generator made programs jax rejects:\n" + "\n".join(jax_rejects)
    separator = "\n# " + "=" * 76 + "\n"
    assert not failures, (f"{len(failures)} failing mode(s):\n" + "\n".join(summary)
                          + "\n\nReproducers:\n" + separator.join(failures))


# -- the fuzzer's own machinery -------------------------------------------------------------

def test_generator_is_deterministic_and_covers_the_op_families():
    kinds = set()
    dtypes = set()
    ranks = set()
    for index in range(300):
        a, b = generate.generate(3, index), generate.generate(3, index)
        assert render.function_source(a) == render.function_source(b)
        assert all(np.array_equal(x.value, y.value) for x, y in zip(a.inputs, b.inputs))
        kinds.update(a.kinds())
        dtypes.update(a.dtypes())
        ranks.update(inp.value.ndim for inp in a.inputs)
    for family in ("index", "gather", "bool_mask", "reshape", "squeeze", "expand_dims", "transpose",
                   "broadcast", "reduce_sum", "cumsum", "cumprod", "cummax", "dot_general", "einsum",
                   "matmul", "concatenate", "where", "scatter", "pad", "conv", "reduce_window",
                   "cond", "while_loop", "scan"):
        assert family in kinds, family
    # Rarer families (test_favored_op_families_... covers their tables): some of each.
    assert kinds & set(FFT_KINDS) and kinds & set(LINALG_KINDS), kinds
    assert {"float32", "float64", "int32", "bool", "bfloat16", "complex64", "complex128"} <= dtypes
    assert set(range(5)) <= ranks


def test_favored_op_families_split_half_of_the_draws():
    # --favor: however rare a family was, the favored ones split half of the draws equally.
    names = [f.__name__ for f, _ in generate.FAMILY_WEIGHTS]
    p = generate.family_probabilities(generate.FAMILY_WEIGHTS, ("one_hot", "conv"))
    assert p[names.index("op_one_hot")] == p[names.index("op_conv")] == pytest.approx(0.25)
    assert p.sum() == pytest.approx(1.0)
    program = generate.generate(1, 0, favor=("one_hot",))
    assert program.origin == ("seed", 1, 0, ("favor", "one_hot"))
    with pytest.raises(ValueError, match="no op family"):
        generate.generate(1, 0, favor=("fourier",))


FFT_KINDS = ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "rfft2", "rfftn", "irfft",
             "irfft2", "irfftn", "hfft", "ihfft", "fftshift", "ifftshift", "fft_round_trip",
             "fft_real_part")
LINALG_KINDS = ("solve", "inv", "det", "slogdet", "cholesky", "qr", "eigvalsh", "svd",
                "matrix_norm", "matrix_power", "triangular_solve")
TRANSFORM_KINDS = set(FFT_KINDS) - {"fftshift", "ifftshift"}
#: What a real program may transform: real values to real values.
REAL_FFT_KINDS = ("fftshift", "ifftshift", "fft_round_trip", "fft_real_part")


def test_favored_programs_cover_fft_linalg_and_complex_convolutions():
    real_kinds, complex_kinds, complex_outputs = set(), set(), set()
    for index in range(120):
        real = generate.generate(1, index, families=("float32", "float64"), favor=("fft", "linalg"))
        assert real.origin == ("seed", 1, index, ("float32", "float64"), ("favor", "fft", "linalg"))
        assert not any(a.is_complex for a in real.avals().values()), render.function_source(real)
        real_kinds.update(real.kinds())
        program = generate.generate(1, index, families=COMPLEX, favor=("fft", "linalg", "conv"))
        complex_kinds.update(program.kinds())
        for p in (real, program):  # jax.jit fails where an FFT meets a LAPACK call
            kinds = set(p.kinds())
            assert not (kinds & TRANSFORM_KINDS and kinds & set(LINALG_KINDS)), p.kinds()
        complex_outputs.update(op.kind for op in program.ops if op.aval.is_complex)
    # Complex programs pick complex operands mostly: real ones make their real round trips.
    missing = (set(REAL_FFT_KINDS + LINALG_KINDS) - real_kinds,
               (set(FFT_KINDS + LINALG_KINDS) - {"fft_round_trip", "fft_real_part"}) - complex_kinds)
    assert missing == (set(), set()), missing
    # Complex matrices and convolutions, not only real ones inside complex programs.
    assert {"conv", "solve", "inv", "det", "cholesky", "qr", "triangular_solve"} <= complex_outputs


def test_generator_makes_the_program_whose_product_bound_overflowed():
    # seed 1, program 4739: a reduction's bound x.bound ** n raised OverflowError (for every
    # reduction kind, as the bounds were all computed), which killed a campaign thread
    program = generate.generate(1, 4739)
    assert program.ops and render.function_source(program)


def test_generator_takes_std_only_of_values_that_are_not_copies():
    # seed 1, program 44576: std over broadcast copies is at sqrt's singular point, where
    # the rounding of the mean decides between 0 and an ulp (and a NaN or finite gradient)
    for index in (44576, *range(44400, 44450)):
        program = generate.generate(1, index)
        made_by = {op.out: op.kind for op in program.ops}
        for op in program.ops:
            if op.kind == "reduce_std":
                assert made_by.get(op.args[0]) != "broadcast", (index, op.expression())


def _ops_downstream(program, is_source):
    """The ops of `program` that read a value computed from a source op's output (`is_source`
    of an op), the sources excluded."""
    tainted, found = set(), []
    for op in program.ops:
        if set(op.args) & tainted:
            found.append(op)
            tainted.add(op.out)
        elif is_source(op):
            tainted.add(op.out)
    return found


def test_generator_differentiates_no_singular_op_at_a_convolutions_padding_only_zeros():
    # seed 145, program 663: arctan2 of a convolution whose windows over padding and lhs
    # dilation holes only are exact zeros; its NaN cotangent there meets the inserted zeros
    # in the kernel gradient, which XLA skips and numlir multiplies (0 * NaN)
    def zero_windows(op):
        dilated = all(f"lhs_dilation={ones}" not in op.template for ones in ("(1,)", "(1, 1)"))
        return op.kind == "conv" and ("'VALID'" not in op.template or dilated)

    checked = 0
    for index in range(600, 1400):
        program = generate.generate(145, index)
        if program.differentiable:
            for op in _ops_downstream(program, zero_windows):
                assert op.kind not in generate.DERIVATIVE_SINGULAR_AT_ZERO_KINDS, (
                    index, op.expression())
                checked += 1
    assert checked > 0


def test_generator_transforms_no_infinities_of_a_window_over_padding():
    # seed 143, program 1424: irfft(rfft(x)) of a reduce_window min over explicit padding,
    # whose padding-only windows are inf; where an FFT's butterflies make NaN of an infinity
    # is the algorithm's (NaN on numlir, inf on jax and NumPy)
    def padded_max_or_min(op):
        monoid = "lax.max" in op.template or "lax.min" in op.template
        return (op.kind == "reduce_window" and monoid
                and "'VALID'" not in op.template and "'SAME'" not in op.template)

    checked = 0
    for index in range(1350, 1750):
        for op in _ops_downstream(generate.generate(143, index), padded_max_or_min):
            assert op.kind not in generate._FFT_TRANSFORM_KINDS + generate._LINALG_KINDS, (
                index, op.expression())
            checked += 1
    assert checked > 0


def test_complex_special_inputs_are_marked_by_their_parts():
    # seed 142, program 1805: a complex64 input with 1e-30 parts was not marked tiny (only
    # real inputs were looked at), so norm of a product of it was differentiated where its
    # square underflows
    import numpy as np

    rng = np.random.default_rng(1805)
    marked = 0
    for _ in range(40):
        b = generate.Builder(rng, "complex64", False, True, 2, special=True)
        v = b.input((3, 4), "complex64")
        made = next(i for i in b.inputs if i.name == v.name)
        arrays = [a for a in (made.value, made.batched) if a is not None]
        parts = np.concatenate([p.ravel() for a in arrays for p in (a.real, a.imag)])
        tiny = bool(np.any((parts != 0) & (np.abs(parts) < generate.TINY_VALUE)))
        assert v.tiny == tiny and v.nonfinite == (not np.isfinite(parts).all())
        marked += tiny
    assert marked > 0


def test_a_generator_failure_is_counted_and_the_campaign_goes_on(tmp_path, monkeypatch):
    import argparse
    import json

    from fuzz import campaign, sandbox

    real_generate = sandbox.Worker.generate

    def failing_on_11(self, seed, index, families=None, favor=None, special="none"):
        if index == 11:
            raise RuntimeError(f"generator failed for seed {seed}, index {index}:\nOverflowError: boom")
        return real_generate(self, seed, index, families, favor, special)

    monkeypatch.setattr(sandbox.Worker, "generate", failing_on_11)
    started = []

    class CountedWorker(sandbox.Worker):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(campaign, "Worker", CountedWorker)
    # recycle_every=2: the third program runs in a fresh worker process.
    args = argparse.Namespace(seed=3, start=10, n=3, out=str(tmp_path), modes=["jit"], timeout=300.0,
                              no_minimize=True, budget=0, minimize_per_signature=0,
                              recycle_every=2, families=None, favor=None)
    c = campaign.Campaign(args)

    class Bar:
        def update(self, n):
            pass

        def set_postfix(self, **kwargs):
            pass

    c.work(Bar())
    c.write_summary(final=True)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["programs"], summary["finished_through"]) == (2, 12)
    assert summary["generator_failures"] == {"11": "OverflowError: boom"}
    assert "the generator failed to make (fuzzer bugs): 1" in (tmp_path / "summary.txt").read_text()
    assert len(started) == 2  # a fresh worker process after recycle_every programs


def test_comparison_tolerances_follow_the_dtype():
    w = np.array([1.0, -2.0, 3.0], np.float32)
    assert compare.compare([w * (1 + 5e-5)], [w], compare.RTOL["float32"]).ok
    assert not compare.compare([w * (1 + 1e-3)], [w], compare.RTOL["float32"]).ok
    assert compare.compare([w * (1 + 1e-2)], [w], compare.RTOL["bfloat16"]).ok
    assert not compare.compare([np.array([1, 2], np.int32)], [np.array([1, 3], np.int32)], 0.1).ok
    verdict = compare.compare([w.astype(np.float64)], [w], 1.0)
    assert not verdict.ok and verdict.kind == "dtype"
    nan = np.array([np.nan, 1.0], np.float32)
    assert compare.compare([nan], [nan], 1e-4).ok
    assert not compare.compare([np.array([0.0, 1.0], np.float32)], [nan], 1e-4).ok
    assert compare.program_rtol(["float32", "bfloat16"]) == compare.RTOL["bfloat16"]


def test_a_zero_reference_allows_about_an_ulp_of_one_in_its_dtype():
    # Program 24550 of seed 1 (pad, then standardize of two bfloat16 values): the gradient
    # is zero for every input, jax's cancellation is exact and numlir's leaves 3.6e-4,
    # about a tenth of a bfloat16 ulp at 1.0.
    zero = np.zeros(1, np.float32)
    noise = np.array([3.6e-4], np.float32)
    assert compare.compare([noise], [zero], compare.RTOL["bfloat16"]).ok
    assert not compare.compare([np.array([2e-2], np.float32)], [zero], compare.RTOL["bfloat16"]).ok
    assert not compare.compare([noise], [zero], compare.RTOL["float32"]).ok
    assert compare.compare([np.array([5e-8], np.float32)], [zero], compare.RTOL["float32"]).ok


def test_an_exact_zero_by_cancellation_allows_a_few_times_jaxs_noise():
    # Program 31399 of seed 1 (log_softmax of a value broadcast over 160 elements): the
    # gradient with respect to it is exactly 0; jax's float32 sum leaves 2.1e-7 and
    # numlir's, in another order, 6.9e-7, outside the plain tolerance (1e-7).
    truth, jax_noise = [np.zeros((1, 1))], [np.array([[-2.086163e-07]], np.float32)]
    ours = [np.array([[-6.854534e-07]], np.float32)]
    rtol = compare.RTOL["float32"]
    assert not compare.compare(ours, jax_noise, rtol).ok
    assert compare.within_reference_error(ours, jax_noise, truth, rtol)
    # Ten times jax's noise is not noise; nor is the same error where the truth is not 0.
    assert not compare.within_reference_error([np.array([[-2.1e-6]], np.float32)], jax_noise,
                                              truth, rtol)
    near = np.full((1, 1), 1e-5)
    assert not compare.within_reference_error([(near - 6.854534e-07).astype(np.float32)],
                                              [(near - 2.086163e-07).astype(np.float32)], [near], rtol)


def test_cancellation_noise_is_judged_over_the_leaf_not_per_element():
    # Program 40919 of seed 1 (standardize over two gathered copies of one value): the
    # gradient is exactly 0, amplified rounding noise of 1.5e-5 lands on different
    # elements in jax (jit and op by op) and numlir; in float64 all three agree.
    truth = [np.array([0.0, -1.42e-14, 0.0])]
    jax_noise = [np.array([0.0, 1.5258789e-05, 1.5258789e-05], np.float32)]
    ours = [np.array([-1.5258789e-05, 0.0, 0.0], np.float32)]
    rtol = compare.RTOL["float32"]
    assert compare.within_reference_error(ours, jax_noise, truth, rtol)
    # Noise elsewhere in the leaf does not excuse a value where the truth is not 0.
    truth = [np.array([0.5, -1.42e-14, 0.0])]
    assert not compare.within_reference_error([np.array([0.5 - 1e-3, 0.0, 0.0], np.float32)],
                                              [np.array([0.5, 1.5258789e-05, 0.0], np.float32)],
                                              truth, rtol)


def _chain_program() -> Program:
    x = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
    aval = Aval((2, 3), "float32")
    ops = [Op("v0", "sin", "jnp.sin({0})", ("x0",), aval),
           Op("v1", "mul", "{0} * {1}", ("v0", "x0"), aval),
           Op("v2", "matmul", "{0} @ {1}.T", ("v1", "v0"), Aval((2, 2), "float32")),
           Op("v3", "tanh", "jnp.tanh({0})", ("v2",), Aval((2, 2), "float32"))]
    return Program([Input("x0", x, 0, np.stack([x, x + 1]))], ops, ("v3", "v1"))


def test_minimizer_keeps_the_failing_op_and_drops_the_rest():
    program = _chain_program()

    def values_of(p):
        import jax

        f = render.build(p, "jax", returns_all=True)
        return {k: (np.asarray(v), None) for k, v in jax.jit(f)(*[i.value for i in p.inputs]).items()}

    smallest = minimize.reduce(program, lambda p: "matmul" in p.kinds(), values_of)
    assert [op.kind for op in smallest.ops] == ["matmul"]
    # The cut operands hold the values they had, so the matmul sees the same numbers.
    f = render.build(smallest, "jax")
    expected = render.build(program, "jax", returns_all=True)(program.inputs[0].value)["v2"]
    np.testing.assert_allclose(np.asarray(f(*[i.value for i in smallest.inputs])[0]), expected, rtol=1e-6)


def _aborting_in(library_name: str) -> Program:
    """The chain program plus an op that aborts the process when traced by ``library_name``
    only (the op sees which library's ``jnp`` it was built against: numlir.numpy, or the
    jax reference, jax_numpy_as_standard)."""
    on_numlir = library_name == "numlir"
    template = (f"(__import__('os').abort() if jnp.__name__.startswith('numlir') is "
                f"{on_numlir} else jnp.zeros((), jnp.float32))")
    return _chain_program().copy(ops=_chain_program().ops + [
        Op("v4", "abort", template, (), Aval((), "float32"))], outputs=("v4", "v3"))


def test_worker_reports_a_crash_and_carries_on(worker):
    outcomes = worker.check(_aborting_in("numlir"), ["eager", "jit"])
    assert [(o.mode, o.status) for o in outcomes] == [("eager", "crash"), ("jit", "crash")]
    assert "SIGABRT" in outcomes[0].detail
    (fine,) = worker.check(_chain_program(), ["jit"])
    assert fine.status == "ok", fine


def test_a_worker_killed_by_jax_is_a_skipped_jax_crash_not_a_numlir_crash(worker):
    # Campaign finding (seed 1, program 8812): XLA aborted the process while
    # jax.jit compiled the reference, and the sandbox blamed numlir.
    outcomes = worker.check(_aborting_in("jax"), ["eager", "jit"])
    assert [(o.mode, o.status) for o in outcomes] == [("eager", "jax_crash"), ("jit", "jax_crash")]
    assert "SIGABRT" in outcomes[0].detail and not outcomes[0].failed
    (fine,) = worker.check(_chain_program(), ["jit"])
    assert fine.status == "ok", fine


def test_check_announces_jax_before_numlir_and_jax_again_to_judge_a_mismatch(monkeypatch):
    program = _chain_program()
    real = run_modes.evaluate
    phases = []

    def off_by_a_lot(lib, *args, **kwargs):
        phases.append(f"evaluate {lib.name}")
        out = real(lib, *args, **kwargs)
        return [o * 1.5 for o in out] if lib.name == "numlir" else out

    monkeypatch.setattr(run_modes, "evaluate", off_by_a_lot)
    run_modes._UNBATCHED_REFERENCE[:] = [None, None, None]
    assert run_modes.check(program, "jit", announce=phases.append).status == "wrong"
    # Every evaluation runs under the announcement of its own library.
    current = None
    for entry in phases:
        if entry in run_modes.PHASES:
            current = entry
        else:
            assert entry == f"evaluate {current}", phases
    assert phases[:3] == ["jax", "evaluate jax", "numlir"], phases


def test_reproducer_is_a_standalone_script(tmp_path):
    import subprocess

    program = _chain_program()
    path = tmp_path / "repro.py"
    path.write_text(reproducer.script(program, Outcome("jit_vmap_grad", "wrong", "value: (test)")))
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "numlir agrees with jax" in result.stdout


def _std_of_equal_values_program() -> Program:
    """Campaign finding F8 (seed 1, program 3397), minimized: the std of 5 equal floats."""
    v = np.array([[[[0.98304796], [-0.87788409], [-0.87788409], [-0.87788409], [1.96144438]]]],
                 dtype=np.float32)
    ops = [Op("v1", "broadcast", "lax.broadcast_in_dim({0}, (5, 5, 5), (0, 1, 2))", ("v0",),
              Aval((5, 5, 5), "float32")),
           Op("v3", "reduce_std", "jnp.std({0}, axis=2, keepdims=True)", ("v1",),
              Aval((5, 5, 1), "float32"))]
    return Program([Input("v0", v[0], 0, v)], ops, ("v3",))


@pytest.mark.parametrize("mode", ["vmap", "jit_vmap_grad"])
def test_jax_jit_rewriting_the_rounding_is_not_a_wrong_value(mode):
    # jax.jit turns mean(broadcast(x)) into x, so its std of equal values is
    # exactly 0 and the gradient NaN; summed and divided (numlir, and jax
    # itself op by op), the mean of 5 copies of 1.96144 is 1 ulp off, the std
    # 1.2e-7 and the gradient finite.
    outcome = run_modes.check(_std_of_equal_values_program(), mode)
    assert outcome.status == "jax_disagrees", outcome


@pytest.mark.parametrize("mode", ["eager", "jit", "vmap"])
def test_jax_rounding_a_float32_zero_under_x64_is_judged_by_the_float64_answer(mode):
    # Seed 134, program 3075: lax.lgamma(1.0) in float32 is exactly 0 on numlir (and in
    # truth), 4.8e-7 on jax; the program had x64 on, where the float64 reference used to be
    # skipped, so the tolerance was jax's own tiny scale and the right answer "wrong".
    one = np.array(1.0, np.float32)
    program = Program([Input("v3", one, 0, np.stack([one, np.float32(2.0)]))],
                      [Op("v6", "lgamma", "lax.lgamma({0})", ("v3",), Aval((), "float32"))],
                      ("v6",), x64=True, special_values=True)
    assert compare.has_narrow_floats(program.dtypes())
    outcome = run_modes.check(program, mode)
    assert outcome.status == "ok", outcome


def test_a_bool_of_float32_rounding_is_judged_by_the_float64_answer():
    # Seed 134, program 22545: bool(lgamma(x)) at x = 1 is True on jax (its float32
    # lgamma(1) is 4.8e-7) and False on numlir and in truth; at 2 and 0.5 both agree.
    x = np.array([1.0, 2.0, 0.5], np.float32)
    program = Program([Input("x1", x, 0, np.stack([x, x[::-1]]))],
                      [Op("v1", "lgamma", "lax.lgamma({0})", ("x1",), Aval((3,), "float32")),
                       Op("v7", "cast", "jnp.asarray({0}, dtype=jnp.bool)", ("v1",),
                          Aval((3,), "bool"))],
                      ("v7",), special_values=True)
    for mode in ("eager", "vmap"):
        outcome = run_modes.check(program, mode)
        assert outcome.status == "ok", outcome
    truth = [np.array([False, False, True])]
    assert compare.within_reference_error([np.array([False, False, True])],
                                          [np.array([True, False, True])], truth, 1e-4)
    assert not compare.within_reference_error([np.array([False, True, True])],
                                              [np.array([True, False, True])], truth, 1e-4)


def test_a_float64_program_has_no_wider_reference():
    assert not compare.has_narrow_floats(["float64", "complex128", "int32", "bool"])
    assert compare.has_narrow_floats(["float64", "complex64"])
    assert compare.has_narrow_floats(["bfloat16"])


def test_a_wrong_value_is_still_wrong_when_jax_op_by_op_agrees_with_jit(monkeypatch):
    program = _chain_program()
    real = run_modes.evaluate

    def off_by_a_lot(lib, *args, **kwargs):
        out = real(lib, *args, **kwargs)
        return [o * 1.5 for o in out] if lib.name == "numlir" else out

    monkeypatch.setattr(run_modes, "evaluate", off_by_a_lot)
    assert run_modes.check(program, "jit").status == "wrong"


def test_a_running_campaign_keeps_its_summary_current(tmp_path):
    import argparse
    import json

    from fuzz import campaign

    args = argparse.Namespace(seed=1, start=10, n=5, out=str(tmp_path), minimize_per_signature=0,
                              families=None, favor=None)
    c = campaign.Campaign(args)
    for index in (10, 11, 13):
        c.record(index, _chain_program(), [Outcome("jit", "ok")])
    c.write_summary(final=False)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["final"], summary["finished_through"], summary["programs"]) == (False, 11, 3)
    assert "every program up to 11 has finished" in (tmp_path / "summary.txt").read_text()


def test_every_mode_has_reproducer_code():
    assert set(MODES) == set(reproducer._MODE_CODE)


def test_known_bugs_carry_reproducers():
    for bug in known_bugs.KNOWN_BUGS:
        assert bug.description and bug.reproducer and bug.statuses, bug.name


# -- complex programs ----------------------------------------------------------------------------

COMPLEX = ("complex64", "complex128")


def test_complex_programs_cover_the_complex_op_tables():
    kinds, dtypes, complex_ones, with_grad = set(), set(), 0, 0
    # Seed 7: since the FFT and linear-algebra families came, seed 5's 150 programs sort no
    # complex numbers.
    for index in range(150):
        program = generate.generate(7, index, families=COMPLEX)
        kinds.update(program.kinds())
        dtypes.update(program.dtypes())
        complex_ones += bool({"complex64", "complex128"} & set(program.dtypes()))
        with_grad += program.has_grad() and any(i.aval.is_complex for i in program.inputs)
        assert program.origin == ("seed", 7, index, COMPLEX)
    assert complex_ones >= 140 and with_grad >= 60, (complex_ones, with_grad)
    for kind in ("make_complex", "real", "imag", "abs", "abs2", "angle", "conj", "complex_scalar",
                 "exp", "log", "sqrt", "div", "power", "mul_conj", "abs2_sum", "real_abs_sum", "norm",
                 "vdot", "vecdot", "matmul", "einsum", "dot_general", "reduce_sum", "reduce_prod",
                 "reduce_var", "cumsum", "cumprod", "sort_complex", "cast", "compare", "where",
                 "scatter", "gather", "pad", "concatenate", "scan", "fori_loop", "cond", "cosh",
                 "arcsin", "arctan", "arccosh", "logistic", "atan2", "maximum", "reduce_max"):
        assert kind in kinds, kind
    assert {"complex64", "complex128", "float32", "float64"} <= dtypes
    with pytest.raises(ValueError, match="no program family"):
        generate.generate(7, 0, families=("complex256",))


def test_complex_programs_agree_with_jax_in_every_mode(worker):
    """The first complex programs of a seed that between them run in every mode."""
    covered, failures = set(), []
    for index in range(60):
        program = generate.generate(SEED, index, families=COMPLEX)
        modes = set(run_modes.applicable_modes(program))
        if modes <= covered:
            continue
        covered |= modes
        for outcome in worker.check(program):
            assert outcome.status not in ("jax_error", "jax_crash"), (index, outcome)
            if outcome.failed and not known_bugs.match(program, outcome):
                note = f"complex program {index}\n"
                failures.append(reproducer.script(program, outcome, note=note))
        if covered == set(MODES):
            break
    assert covered == set(MODES), covered
    assert not failures, "\n\n".join(failures)


def test_complex_results_compare_by_the_modulus_of_the_difference():
    rtol = compare.program_rtol(["complex64", "int32"])
    assert rtol == compare.RTOL["float32"]
    assert compare.program_rtol(["complex128"]) == compare.RTOL["float64"]
    assert compare.program_rtol(["complex128", "bfloat16"]) == compare.RTOL["bfloat16"]
    w = np.array([1 + 1j, -2 + 0.5j, 3j], np.complex64)
    assert compare.compare([w * (1 + 5e-5j)], [w], rtol).ok
    off = w.copy()
    off[1] += 1e-3j  # only the imaginary part is off
    verdict = compare.compare([off], [w], rtol)
    assert not verdict.ok and verdict.kind == "value" and "worst at (1,)" in verdict.detail, verdict
    assert not compare.compare([np.conj(w)], [w], rtol).ok  # same modulus, another number
    assert compare.compare([w.astype(np.complex128)], [w], rtol).kind == "dtype"
    # NaN and inf in the same places in each part; a finite part next to an infinite one counts.
    nan_re, nan_im = (np.array([c], np.complex64) for c in (complex(np.nan, 1), complex(1, np.nan)))
    assert compare.compare([nan_re], [nan_re], rtol).ok
    assert compare.compare([nan_im], [nan_re], rtol).kind == "nonfinite"
    inf_re = np.array([complex(np.inf, 2.0)], np.complex64)
    assert compare.compare([inf_re], [inf_re], rtol).ok
    assert compare.compare([np.array([complex(2.0, np.inf)], np.complex64)], [inf_re],
                           rtol).kind == "nonfinite"
    assert compare.compare([inf_re + 0.5j], [inf_re], rtol).kind == "value"
    assert compare.compare([-inf_re], [inf_re], rtol).kind == "nonfinite"
    # Rounding: numlir as close to the complex128 answer as jax, on the other side of it.
    truth = [np.array([1 + 1j])]
    jax_off = [np.array([1 + 1.0003j], np.complex64)]
    assert not compare.compare([np.array([0.9996 + 1j], np.complex64)], jax_off, rtol).ok
    ours, far = (np.array([c], np.complex64) for c in (0.9996 + 1j, 0.999 + 1j))
    assert compare.within_reference_error([ours], jax_off, truth, rtol)
    assert not compare.within_reference_error([far], jax_off, truth, rtol)


def test_complex_inputs_are_perturbed_in_both_parts():
    z = np.array([1 + 2j, -0.5 - 0.25j], np.complex64)
    (moved,) = run_modes.perturbed([z], np.random.default_rng(0))
    assert moved.dtype == z.dtype
    for part in ("real", "imag"):
        rel = np.abs(getattr(moved, part) / getattr(z, part) - 1)
        assert (rel > 0).all() and (rel < 30 * compare.PERTURBATION["float32"]).all(), (part, rel)
    wide = run_modes.upcast(Program([Input("x0", z, None, None)],
                                    [Op("v0", "cast", "{0}.astype(jnp.complex64)", ("x0",),
                                        Aval((2,), "complex64"))], ("v0",)))
    assert wide.inputs[0].value.dtype == np.complex128
    assert wide.ops[0].template == "{0}.astype(jnp.complex128)"


def test_complex_inputs_render_exactly_non_finite_parts_included():
    a = np.array([1.5 - 0.25j, complex(np.inf, np.nan), complex(-0.0, -np.inf), 1 / 3 + 0j],
                 np.complex64)
    namespace = {"np": np, "inf": np.inf, "nan": np.nan}
    exec(reproducer.COMPLEX_ARRAY_SOURCE, namespace)
    back = eval(reproducer.array_source(a), namespace)
    assert back.dtype == a.dtype
    for part in ("real", "imag"):
        got, want = getattr(back, part), getattr(a, part)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def _complex_program() -> Program:
    """exp of a complex input times a complex scalar (a complex output, and a real end of it),
    and the conjugate of a complex input with non-finite parts that jax and numlir pass through
    alike; the gradient of the loss does not read them."""
    rng = np.random.default_rng(0)

    def draw(shape):
        return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(np.complex64)

    x0, x1 = draw((2, 3)), np.array([complex(np.inf, np.nan), 0.5 - 1j], np.complex64)
    ops = [Op("v0", "exp", "jnp.exp({0}) * (1.5-0.5j)", ("x0",), Aval((2, 3), "complex64")),
           Op("v1", "abs2_sum", "jnp.sum(jnp.abs({0}) ** 2, axis=0)", ("v0",),
              Aval((3,), "float32")),
           Op("v2", "conj", "jnp.conj({0})", ("x1",), Aval((2,), "complex64"))]
    return Program([Input("x0", x0, 0, np.stack([x0, draw((2, 3))])), Input("x1", x1, None, None)],
                   ops, ("v0", "v1", "v2"))


def test_reproducer_of_a_complex_program_is_a_standalone_script(tmp_path):
    import subprocess

    program = _complex_program()
    text = reproducer.script(program, Outcome("jit_vmap_grad", "wrong", "value: (test)"))
    # The script's loss is the campaign's: complex weights for the complex outputs.
    namespace = {"__name__": "reproducer"}
    exec(compile(text, "repro.py", "exec"), namespace)
    for spec in namespace["OUTPUT_WEIGHTS"]:
        np.testing.assert_array_equal(namespace["weights_of"](*spec),
                                      run_modes.loss_weights(spec[0], spec[1]))
    assert [spec[1] for spec in namespace["OUTPUT_WEIGHTS"]] == [True, False, True]
    path = tmp_path / "repro.py"
    path.write_text(text)
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                            timeout=300, cwd=tmp_path, check=False)
    assert result.returncode == 0, result.stderr
    assert "numlir agrees with jax" in result.stdout
    # The holomorphic mode's script, run here: its loss is the campaign's too.
    namespace = {"__name__": "reproducer"}
    text = reproducer.script(program, Outcome("holomorphic_grad", "wrong", "value: (test)"))
    exec(compile(text, "repro.py", "exec"), namespace)
    assert namespace["COMPLEX_ARGNUMS"] == (0, 1)
    for lib in ("JAX", "NUMLIR"):
        got = namespace["run"](namespace[lib])
        api = run_modes.library(lib.lower())
        want = run_modes.evaluate(api, program, "holomorphic_grad",
                                  run_modes.mode_inputs(program, "holomorphic_grad"))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5)
    namespace["check"](namespace["run"](namespace["NUMLIR"]), namespace["run"](namespace["JAX"]))
    # And the batched holomorphic mode's, on the batched inputs.
    namespace = {"__name__": "reproducer"}
    mode = "jit_vmap_holomorphic_grad"
    exec(compile(reproducer.script(program, Outcome(mode, "wrong", "value: (test)")), "repro.py", "exec"),
         namespace)
    want = run_modes.evaluate(run_modes.library("jax"), program, mode, run_modes.mode_inputs(program, mode))
    for g, w in zip(namespace["run"](namespace["NUMLIR"]), want):
        np.testing.assert_allclose(g, w, rtol=1e-5)


# -- special values -------------------------------------------------------------------------------

def _same_inputs(a: Program, b: Program) -> bool:
    return all(x.value.tobytes() == y.value.tobytes()
               and (x.batched is None) == (y.batched is None)
               and (x.batched is None or x.batched.tobytes() == y.batched.tobytes())
               for x, y in zip(a.inputs, b.inputs)) and len(a.inputs) == len(b.inputs)


def test_about_a_quarter_of_the_programs_draw_special_values_chosen_by_seed_and_index():
    for seed in (1, SEED, 101):
        share = np.mean([generate.special_values(seed, i) for i in range(2000)])
        assert 0.22 < share < 0.28, (seed, share)
    assert not any(generate.special_values(1, i, "none") for i in range(50))
    assert all(generate.special_values(1, i, "all") for i in range(50))
    with pytest.raises(ValueError, match="special values"):
        generate.special_values(1, 0, "half")
    specials = 0
    for index in range(16):
        program = generate.generate(SEED, index, special="quarter")
        assert program.special_values == generate.special_values(SEED, index)
        assert program.origin == ("seed", SEED, index, ("special_values", "quarter"))
        # The same (seed, index) always makes the same program, special values included
        # (compared by bytes: NaN != NaN).
        again = generate.generate(SEED, index, special="quarter")
        assert render.function_source(again) == render.function_source(program)
        assert _same_inputs(again, program)
        specials += program.special_values
        if not program.special_values:  # the other programs are the ones they were
            plain = generate.generate(SEED, index)
            assert not plain.special_values and plain.origin == ("seed", SEED, index)
            assert render.function_source(plain) == render.function_source(program)
            assert _same_inputs(plain, program)
    assert 0 < specials < 16, specials


def _classify(values: np.ndarray) -> set[str]:
    """The special values a float (or complex: both parts) or int array holds."""
    found = set()
    if values.dtype.kind in "iu":
        info = np.iinfo(values.dtype)
        for name, hit in (("INT_MIN", values == info.min), ("INT_MAX", values == info.max),
                          ("int zero", values == 0), ("minus one", values == -1),
                          ("shift past the width", values >= info.bits)):
            if hit.any():
                found.add(name)
        return found
    parts = [values.real, values.imag] if values.dtype.kind == "c" else [values]
    for part in parts:
        x = part.astype(np.float64)
        checks = (("+0", (x == 0) & ~np.signbit(x)), ("-0", (x == 0) & np.signbit(x)),
                  ("+inf", x == np.inf), ("-inf", x == -np.inf), ("nan", np.isnan(x)),
                  ("tiny", (x != 0) & (np.abs(x) < 1e-20)),
                  ("huge", np.isfinite(x) & (np.abs(x) > 1e20)),
                  ("kink", np.isin(x, (0.5, -0.5, 1.5, -1.5, 2.5, 6.0))),
                  ("-nan", np.isnan(x) & np.signbit(x)))
        found.update(name for name, hit in checks if hit.any())
        finite = x[np.isfinite(x)]
        if np.unique(finite).size < finite.size:
            found.add("tie")
    return found


def test_special_value_programs_hold_zeros_ties_infinities_nan_tiny_huge_and_int_extremes():
    floats, complexes, ints, kinds, kinked_ties = set(), set(), set(), set(), False
    programs = [generate.generate(101, index, special="all") for index in range(50)]
    programs += [generate.generate(101, index, families=COMPLEX, special="all")
                 for index in range(12)]
    for program in programs:
        index = program.origin[2]
        assert program.special_values and program.origin[-1] == ("special_values", "all")
        if COMPLEX not in program.origin:
            kinds.update(program.kinds())
        for inp in program.inputs:
            for values in (inp.value, inp.batched):
                if values is None or values.dtype == bool:
                    continue
                found = _classify(values)
                {"c": complexes, "i": ints}.get(values.dtype.kind, floats).update(found)
                if values.dtype.kind == "c":
                    # No infinities, NaN or huge parts in complex programs (docs/fuzzing.md).
                    assert not found & {"+inf", "-inf", "nan", "huge"}, (index, found)
        # No contraction multiplies a huge input (Builder.emit: fused multiply-adds), and no op
        # that reads the sign of a zero reads one a sum made (its sign is the implementation's).
        huge_inputs = {inp.name for inp in program.inputs if "huge" in _classify(inp.value)}
        sums = {op.out for op in program.ops if op.kind in generate.SUM_KINDS}
        for op in program.ops:
            if op.kind in generate.CONTRACTION_KINDS:
                assert not huge_inputs & set(op.args), (index, op.expression())
            if op.kind in generate.ZERO_SIGN_KINDS + generate.NAN_SIGN_KINDS:
                assert not sums & set(op.args), (index, op.expression())
        # Kinked ops see ties in differentiated programs (jax's conventions there).
        kinked_ties |= program.differentiable and bool(
            set(program.kinds()) & {"maximum", "minimum", "relu", "abs", "clip", "sort",
                                    "reduce_max", "cummax", "top_k", "fmax", "relu6"})
    assert floats >= {"+0", "-0", "+inf", "-inf", "nan", "-nan", "tiny", "huge", "kink",
                      "tie"}, floats
    assert complexes >= {"+0", "-0", "tiny", "tie"}, complexes
    assert ints >= {"INT_MIN", "INT_MAX", "int zero", "minus one", "shift past the width"}, ints
    assert kinked_ties
    # The functions at their singular points, integer division and shifts by anything.
    special_kinds = {entry[0] for table in (generate._UNARY_SPECIAL, generate._BINARY_SPECIAL)
                     for entries in table.values() for entry in entries}
    assert len(kinds & special_kinds) >= 8, kinds & special_kinds
    assert kinds & {"floordiv", "mod", "remainder", "lax_div"} and kinds & {"shift", "bit_count"}
    # No transforms or factorizations of special values (docs/fuzzing.md).
    assert not kinds & (TRANSFORM_KINDS | set(LINALG_KINDS)), kinds


def test_comparison_places_nan_and_inf_exactly():
    rtol = compare.RTOL["float32"]
    want = np.array([1.0, np.nan, np.inf, -np.inf, 0.0], np.float32)
    assert compare.compare([want.copy()], [want], rtol).ok
    for got in ([np.nan, 1.0, np.inf, -np.inf, 0.0],     # the NaN moved
                [1.0, np.nan, -np.inf, -np.inf, 0.0],    # an infinity's sign flipped
                [1.0, np.nan, 3e38, -np.inf, 0.0],       # finite where jax overflowed
                [1.0, np.nan, np.inf, np.nan, 0.0],      # NaN for an infinity
                [1.0, np.nan, np.inf, -np.inf, np.inf]):  # an infinity for a zero
        verdict = compare.compare([np.array(got, np.float32)], [want], rtol)
        assert not verdict.ok and verdict.kind == "nonfinite", (got, verdict)


def test_huge_values_are_judged_relatively_and_hide_no_error_next_to_them():
    rtol = compare.RTOL["float32"]
    want = np.array([1e30, 1.5], np.float32)
    assert compare.compare([np.array([1e30 * (1 + 5e-5), 1.5], np.float32)], [want], rtol).ok
    assert not compare.compare([np.array([1e30 * (1 + 1e-3), 1.5], np.float32)], [want], rtol).ok
    # With the leaf's scale 1e30, rtol * scale would excuse any error in the 1.5.
    verdict = compare.compare([np.array([1e30, 1.6], np.float32)], [want], rtol)
    assert not verdict.ok and "worst at (1,)" in verdict.detail, verdict
    wide = np.array([1e300, 2.0])
    assert not compare.compare([np.array([1e300, 2.0 + 1e-6])], [wide], compare.RTOL["float64"]).ok
    # Tiny values: judged absolutely (a flushed 1e-30 is 0 to any tolerance).
    tiny = np.array([1e-30, 1.0], np.float32)
    assert compare.compare([np.array([0.0, 1.0], np.float32)], [tiny], rtol).ok
    # The reproducer's check has the same cap.
    namespace = {"__name__": "reproducer"}
    program = _chain_program().copy(special_values=True)
    exec(compile(reproducer.script(program, Outcome("jit", "wrong", "value: (test)")), "repro.py",
                 "exec"), namespace)
    namespace["check"]([np.array([1e30, 1.5], np.float32)], [want])
    with pytest.raises(AssertionError):
        namespace["check"]([np.array([1e30, 1.6], np.float32)], [want])
    with pytest.raises(AssertionError):
        namespace["check"]([np.array([1e30, np.nan], np.float32)], [want])


def test_a_finite_value_where_jax_made_a_nonfinite_one_is_judged_against_float64():
    # jax's float32 result is NaN where the float64 one is 0.5: numlir's must be within
    # the tolerance of 0.5 (jax's error, infinite, excuses nothing).
    rtol = compare.RTOL["float32"]
    truth, want = [np.array([0.5, 2.0])], [np.array([np.nan, 2.0], np.float32)]
    assert compare.within_reference_error([np.array([0.5, 2.0], np.float32)], want, truth, rtol)
    assert not compare.within_reference_error([np.array([0.7, 2.0], np.float32)], want, truth,
                                              rtol)


def test_perturbation_of_special_value_programs_keeps_ties_and_special_points():
    a = np.array([0.0, -0.0, 1.5, -0.5, np.inf, np.nan, 0.7, 0.7, -0.7, 1e30], np.float32)
    b = np.array([0.7, 0.3], np.float32)
    moved_a, moved_b = run_modes.perturbed([a, b], np.random.default_rng(0), special=True)
    same = [0, 1, 2, 3, 4, 5]  # zeros (with their signs), kinks, inf, NaN
    assert moved_a[same].tobytes() == a[same].tobytes()
    assert moved_a[6] != a[6] and moved_a[6] == moved_a[7] == moved_b[0]  # a tie stays a tie
    assert moved_a[8] != -moved_a[6]  # x and -x move apart: no cancellation survives
    assert moved_a[9] != a[9] and moved_b[1] != b[1]
    # Element by element (regular programs): the tie breaks.
    plain_a, _ = run_modes.perturbed([a, b], np.random.default_rng(0))
    assert plain_a[6] != plain_a[7]


def _tie_program(special: bool) -> Program:
    """maximum of two inputs that tie in their first element (1.2, not a kink value)."""
    x0 = np.array([1.2, 0.7], np.float32)
    x1 = np.array([1.2, 0.3], np.float32)
    ops = [Op("v0", "maximum", "jnp.maximum({0}, {1})", ("x0", "x1"), Aval((2,), "float32"))]
    return Program([Input("x0", x0, 0, x0[None]), Input("x1", x1, 0, x1[None])], ops, ("v0",),
                   special_values=special)


def test_a_gradient_convention_at_a_tie_is_checked_in_special_value_programs(monkeypatch):
    real = run_modes.evaluate

    def all_to_the_first(lib, program, mode, *args, **kwargs):
        out = real(lib, program, mode, *args, **kwargs)
        if lib.name != "numlir":
            return out
        g0, g1 = (np.array(o) for o in out)  # jax splits the tie: 0.5 w_0 to each
        g0[0], g1[0] = g0[0] + g1[0], 0.0
        return [g0, g1]

    monkeypatch.setattr(run_modes, "evaluate", all_to_the_first)
    # The perturbation keeps the tie (by value), so jax's split is stable: a wrong value.
    outcome = run_modes.check(_tie_program(special=True), "grad")
    assert outcome.status == "wrong", outcome
    # In a regular program the perturbation breaks the tie: ill-conditioned, skipped.
    assert run_modes.check(_tie_program(special=False), "grad").status == "unstable"


def test_a_misplaced_nan_or_infinity_in_a_special_value_program_is_a_wrong_value(monkeypatch):
    x = np.array([0.0, 1.0, -1.0, 4.0], np.float32)
    ops = [Op("v0", "log", "jnp.log({0})", ("x0",), Aval((4,), "float32"))]
    program = Program([Input("x0", x, None, None)], ops, ("v0",), special_values=True)
    real = run_modes.evaluate
    spoil = {}

    def spoiled(lib, *args, **kwargs):
        out = real(lib, *args, **kwargs)
        if lib.name == "numlir":
            out = [np.array(o) for o in out]
            out[0][spoil["at"]] = spoil["value"]
        return out

    monkeypatch.setattr(run_modes, "evaluate", spoiled)
    for at, value in ((0, np.inf), (2, 0.0), (1, np.nan)):  # log(0) = -inf, log(-1) = NaN
        spoil.update(at=at, value=value)
        run_modes._UNBATCHED_REFERENCE[:] = [None, None, None]
        outcome = run_modes.check(program, "jit")
        assert outcome.status == "wrong" and "nonfinite" in outcome.detail, (at, outcome)


def test_summary_and_reproducer_name_special_value_programs(tmp_path):
    import argparse
    import json

    from fuzz import campaign

    args = argparse.Namespace(seed=1, start=0, n=2, out=str(tmp_path), minimize_per_signature=0,
                              families=None, favor=None, special_values="quarter")
    c = campaign.Campaign(args)
    c.record(0, _chain_program().copy(special_values=True), [Outcome("jit", "wrong", "value: x")])
    c.record(1, _chain_program(), [Outcome("jit", "ok")])
    text = c.write_summary(final=True)
    assert "special-value programs: 1 of 2" in text and "1 in special-value programs" in text
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["special_value_programs"] == 1
    assert summary["special_value_counts"] == {"wrong": 1}
    assert campaign.Campaign(argparse.Namespace(**{**vars(args), "special_values": "all"})
                             ).restriction() == " --special-values all"
    text = reproducer.script(_chain_program().copy(special_values=True),
                             Outcome("jit", "wrong", ""))
    assert "Special values: yes" in text and "SPECIAL_VALUES = True" in text
    assert "Special values" not in reproducer.script(_chain_program(), Outcome("jit", "wrong", ""))
    described = render.describe(generate.generate(101, 3, special="all"))
    assert "special_values=True" in described and "(flattened)" in described


def test_reproducers_keep_the_sign_bit_of_a_nan():
    # Seed 101, program 100: rsqrt of negative values made NaNs with the sign bit set, which
    # XLA's top_k ranks below -inf; a reproducer that wrote them as plain nan did not fail.
    import ml_dtypes

    a = np.array([np.nan, 1.0, np.nan, -0.0], np.float32)
    a[2] = np.copysign(np.nan, -1)
    namespace = {"np": np, "inf": np.inf, "nan": np.nan, "jnp_bfloat16": ml_dtypes.bfloat16}
    exec(reproducer.COMPLEX_ARRAY_SOURCE, namespace)
    for values in (a, a.astype(np.float64), a.astype(ml_dtypes.bfloat16),
                   (a + 1j * a[::-1]).astype(np.complex64)):
        source = reproducer.array_source(values)
        assert "-nan" in source, source
        back = eval(source, namespace)
        assert back.dtype == values.dtype and back.tobytes() == values.tobytes(), source


def test_a_known_bug_can_match_special_value_programs_only():
    bug = known_bugs.KnownBug(name="b", description="d", reproducer="r", statuses=("wrong",),
                              kinds=("matmul",), special_values_only=True)
    failure = Outcome("jit", "wrong", "value: x")
    assert bug.matches(_chain_program().copy(special_values=True), failure)
    assert not bug.matches(_chain_program(), failure)


def test_campaign_guards_reject_what_jax_and_numlir_may_differ_on():
    # Fuzzer gaps from seeds 111 to 118 (docs/fuzzing.md): each guard refuses the op that read
    # an implementation's choice, and lets the same op through where nothing was chosen.
    def builder(special=True, differentiable=True):
        return generate.Builder(np.random.default_rng(0), "float32", False, differentiable, 1,
                                special=special)

    def refused(b, kind, template, *args):
        try:
            b.emit(kind, template, args, 1.0)
        except generate.Rejected:
            return True
        return False

    aval = Aval((3,), "float32")
    plain = generate.Val("x0", aval, 1.0, True)
    summed = generate.Val("x1", aval, 1.0, True, zero_sign=True)
    spectrum = generate.Val("x2", aval, 1.0, True, cancels=True)
    b = builder()
    # sqrt's and log's derivatives at a sum's zero (seed 113, program 1).
    assert refused(b, "sqrt", "jnp.sqrt({0})", summed) and not refused(b, "sqrt",
                                                                       "jnp.sqrt({0})", plain)
    assert not refused(builder(differentiable=False), "sqrt", "jnp.sqrt({0})", summed)
    # The remainders' derivatives in the divisor at a sum's zero (seed 126, program 5896).
    assert refused(b, "remainder", "jnp.fmod({0}, {1})", plain, summed)
    assert not refused(b, "remainder", "jnp.fmod({0}, {1})", plain, plain)
    assert not refused(builder(differentiable=False), "remainder", "jnp.fmod({0}, {1})",
                       plain, summed)
    # jax's cumprod makes its zero products +0 (seed 132, program 972): they count as a
    # sum's zeros, so the remainder's derivative does not read their sign.
    product = b.emit("cumprod", "lax.cumprod({0}, axis=0)", [plain], 1.0)
    assert product.zero_sign and refused(b, "remainder", "jnp.remainder({0}, {1})", plain,
                                         product)
    assert not builder(special=False).emit("cumprod", "lax.cumprod({0}, axis=0)", [plain],
                                           1.0).zero_sign
    # jax's tanh at an infinite cotangent (seed 114, program 2303): special programs only.
    assert refused(b, "tanh", "jnp.tanh({0})", plain)
    assert not refused(builder(special=False), "tanh", "jnp.tanh({0})", plain)
    # jax's i0 at an infinite cotangent (seed 129, program 3266), likewise.
    assert refused(b, "i0", "jnp.i0({0})", plain)
    assert not refused(builder(special=False), "i0", "jnp.i0({0})", plain)
    # FFT rounding noise: no sign reads (seed 111, program 1541's bool cast is op_cast's).
    assert refused(b, "sign", "jnp.sign({0})", spectrum)
    assert not refused(b, "sign", "jnp.sign({0})", plain)
    out = b.emit("fft_round_trip", "jnp.fft.irfft(jnp.fft.rfft({0}), 3)", [plain], 1.0)
    assert out.cancels and b.emit("neg", "-{0}", [out], 1.0).cancels
    # Seeds 116 to 118: jax's hypot at tiny and i0 at huge values, atan2's overflowing
    # derivative, and trigonometric functions of a huge value an operation rounded.
    tiny = generate.Val("x3", aval, 1.0, True, tiny=True)
    huge = generate.Val("x4", aval, 1.0, True, huge=True)
    plain_builder = builder(special=False)
    assert refused(b, "hypot", "jnp.hypot({0}, {1})", plain, tiny)
    assert refused(b, "arctan2", "jnp.arctan2({0}, {1})", tiny, plain)
    assert refused(b, "i0", "jnp.i0({0})", huge)
    assert not refused(plain_builder, "hypot", "jnp.hypot({0}, {1})", plain, plain)
    assert refused(b, "cos", "jnp.cos({0})", huge)
    b.special_inputs.add("x4")
    assert not refused(b, "cos", "jnp.cos({0})", huge)
    # An infinite derivative downstream of a chooser (seed 8, program 9 of the in-suite test).
    chosen = b.emit("maximum", "jnp.maximum({0}, {1})", [plain, plain], 1.0)
    assert chosen.chooser_upstream and b.emit("neg", "-{0}", [chosen], 1.0).chooser_upstream
    assert refused(b, "erf_inv", "lax.erf_inv({0})", chosen)
    assert not refused(b, "erf_inv", "lax.erf_inv({0})", plain)
    assert not refused(builder(differentiable=False), "erf_inv", "lax.erf_inv({0})", chosen)
    # Seed 120: an infinite operand downstream of a chooser (program 3268), the truth of FFT
    # rounding noise (3007), a float sum of integer extremes (1548).
    infinite = generate.Val("x5", aval, 1.0, True, nonfinite=True, chooser_upstream=True)
    assert refused(b, "pow2", "{0} ** 2", infinite)
    assert not refused(b, "pow2", "{0} ** 2", chosen)
    assert refused(b, "reduce_all", "jnp.all({0})", spectrum)
    assert refused(b, "compare", "{0} > {1}", spectrum, plain)
    assert not refused(b, "reduce_all", "jnp.all({0})", plain)
    # Seed 123, program 2325: argmin over FFT noise breaks its ties by the noise.
    assert refused(b, "argmax", "jnp.argmin({0}, axis=0)", spectrum)
    assert refused(b, "argsort", "jnp.argsort({0}, axis=0)", spectrum)
    assert not refused(b, "argmax", "jnp.argmin({0}, axis=0)", plain)
    ints = generate.Val("x6", Aval((3,), "int32"), 5.0, False)
    assert refused(b, "reduce_mean", "jnp.mean({0})", ints)
    assert not refused(b, "reduce_sum", "jnp.sum({0})", ints)
    assert not refused(builder(special=False), "reduce_mean", "jnp.mean({0})", ints)
    # Seed 121: jax's digamma derivative at inf (1766), the norm's where squares underflow
    # (2184).
    infinite_input = generate.Val("x7", aval, 1.0, True, nonfinite=True)
    assert refused(b, "digamma", "lax.digamma({0})", infinite_input)
    assert not refused(b, "lgamma", "lax.lgamma({0})", infinite_input)
    assert not refused(builder(differentiable=False), "digamma", "lax.digamma({0})",
                       infinite_input)
    assert refused(b, "norm", "jnp.linalg.norm({0})", tiny)
    assert not refused(b, "norm", "jnp.linalg.norm({0})", plain)
    # Seed 125, program 5362: x - log_softmax(x) is logsumexp(x) along the axis, equal
    # elements up to the order of evaluation, so argmax over it ranks rounding noise.
    matrix = generate.Val("x8", Aval((1, 3, 3), "float32"), 1.0, True)
    b = builder(special=False, differentiable=False)
    shifted = b.emit("softmax", "nn.log_softmax({0}, axis=1)", [matrix], 8.0)
    squeezed = b.emit("squeeze", "jnp.squeeze({0})", [shifted], 8.0)
    assert squeezed.log_softmax_of == "x8" and squeezed.root == shifted.name
    difference = b.emit("sub", "{0} - {1}", [matrix, squeezed], 9.0)
    assert difference.cancels
    assert refused(b, "argmax", "jnp.argmax({0}, axis=1)", difference)
    # Not of another value, nor softmax itself, nor log_softmax alone.
    other = generate.Val("x9", Aval((1, 3, 3), "float32"), 1.0, True)
    assert not b.emit("sub", "{0} - {1}", [other, squeezed], 9.0).cancels
    probabilities = b.emit("softmax", "nn.softmax({0}, axis=1)", [matrix], 1.0)
    assert not b.emit("sub", "{0} - {1}", [matrix, probabilities], 2.0).cancels
    assert not refused(b, "argmax", "jnp.argmax({0}, axis=1)", shifted)


def test_differentiated_programs_standardize_more_than_two_elements():
    # Seed 121, program 3246: standardize of two elements is +-1 up to its epsilon; its
    # gradient is rounding.
    for differentiable in (True, False):
        b = generate.Builder(np.random.default_rng(1), "float32", False, differentiable, 1)
        b.vals.append(generate.Val("x0", Aval((3, 2), "float32"), 1.0, True))
        widths = set()
        for _ in range(300):
            try:
                generate.op_softmax(b)
            except generate.Rejected:
                continue
            op = b.ops[-1]
            if op.kind == "standardize":
                widths.add((3, 2)[int(re.search(r"axis=(-?\d)", op.template).group(1))])
        assert widths == ({3} if differentiable else {2, 3}), widths


def test_the_generator_bounds_a_long_cumulative_product_without_overflowing():
    # Seed 120, program 1666: bound ** n raised OverflowError in the generator itself.
    program = generate.generate(120, 1666, special="quarter")
    assert program.ops


def test_special_value_gradients_avoid_jaxs_chooser_at_one_nan_and_tanh_in_scans():
    # Seed 117, programs 437 and 1742 (docs/fuzzing.md).
    def programs():
        for index in range(300):
            program = generate.generate(101, index, favor=("reduce", "scan"), special="all")
            if program.differentiable:
                yield program

    reductions = scans = 0
    for program in programs():
        for op in program.ops:
            if op.kind == "scan":
                scans += 1
                assert "jnp.tanh" not in op.template, op.template
            if op.kind in ("reduce_max", "reduce_min"):
                reductions += 1
    assert scans and reductions
    b = generate.Builder(np.random.default_rng(0), "float32", False, True, 1, special=True)
    b.vals.append(generate.Val("x0", Aval((), "float32"), 1.0, True, nonfinite=True))
    for _ in range(200):
        try:
            generate.op_reduce(b)
        except generate.Rejected:
            pass
    assert b.ops and not {op.kind for op in b.ops} & {"reduce_max", "reduce_min"}


def test_differentiated_special_value_programs_convolve_without_inserted_zeros():
    # seed 113, program 2238: padding times a NaN cotangent (XLA skips the zeros it inserts).
    convs = {True: [], False: []}
    for index in range(400):
        program = generate.generate(101, index, favor=("conv",), special="all")
        convs[program.differentiable] += [op for op in program.ops if op.kind == "conv"]
    assert convs[True] and convs[False]
    for op in convs[True]:
        assert "padding='VALID'" in op.template and "lhs_dilation=(1," in op.template, op.template
    assert any("padding='VALID'" not in op.template for op in convs[False])


def test_campaign_help_prints_the_shares_as_percentages(capsys):
    # The help text once held a bare "%", which argparse's formatting rejected: --help crashed.
    from fuzz import campaign
    with pytest.raises(SystemExit) as exit_info:
        campaign.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "share 50% of the draws" in out
    assert "about 25% of them" in out


def test_an_input_batched_after_the_ops_holds_only_the_special_values_they_saw():
    # Seed 152, program 1408: no input had a batch axis, so the first one was batched after
    # the ops were made, with fresh special draws; they held tiny values that its unbatched
    # value (which the ops' guards saw) did not, and jnp.sinc's derivative, which jax gets
    # wrong at tiny values, was checked there. The batch is now permutations of the value.
    program = generate.generate(152, 1408, special="quarter")
    (first,) = [inp for inp in program.inputs if inp.name == "x0"]
    assert "sinc" in program.kinds() and first.batched is not None
    for sample in first.batched:
        np.testing.assert_array_equal(np.sort(sample, axis=None), np.sort(first.value, axis=None))
