"""hlo-opt survives a fixed-seed budget of mutated lit inputs.

Mutants of test/**/*.mlir (test/hlo_opt_fuzz) run through the round trip,
hlo-optimize, hlo-cpu-to-linalg, hlo-cpu-to-llvm, hlo-to-cpu and the passes
of their seed's RUN line. Malformed IR must give a diagnostic and exit 1;
valid IR must compile or be rejected with a diagnostic. A signal, an abort,
an LLVM fatal error, another exit code or a 10 s timeout fails the test
with a minimized reproducer. `make fuzz-hlo-opt N=... SEED=...` runs longer
campaigns."""

from __future__ import annotations

import os
import shutil
import sys
import warnings
from pathlib import Path

import pytest

TEST_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TEST_DIR))

from hlo_opt_fuzz import harness  # noqa: E402
from hlo_opt_fuzz.corpus import load_seeds  # noqa: E402
from asan_environment import skip_under_asan  # noqa: E402

SEED = 20260101
MUTANTS = 1000  # issue 8 asks for at least 1,000 in make test
SHARDS = 8  # pytest-xdist spreads the shards over its workers


def _hlo_opt() -> str:
    for candidate in (os.environ.get("HLO_OPT_FUZZ_BINARY"), shutil.which("hlo-opt"),
                      TEST_DIR.parent / "build" / "bin" / "hlo-opt"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    pytest.fail("hlo-opt is neither on PATH nor in build/bin; run `make build`")


@pytest.mark.parametrize("shard", range(SHARDS))
def test_hlo_opt_survives_mutated_lit_inputs(shard):
    hlo_opt = _hlo_opt()
    corpus = load_seeds(TEST_DIR)
    per_shard = MUTANTS // SHARDS
    mutants = harness.make_mutants(corpus, SEED, range(shard * per_shard, (shard + 1) * per_shard))
    findings = harness.fuzz(hlo_opt, mutants)
    harness.triage(hlo_opt, findings, budget=100)
    for finding in findings:
        if finding.upstream:  # MLIR's own bug: reported, not ours to fix
            warnings.warn(finding.report(hlo_opt))
    ours = [f for f in findings if not f.upstream]
    assert not ours, "\n\n".join(f.report(hlo_opt) for f in ours)


@skip_under_asan("the preloaded ASan runtime reports the stand-in tool's SIGSEGV as its own error")
def test_fuzzer_detects_a_crash(tmp_path):
    """The harness classifies a dying hlo-opt as a finding and bisects a batch
    down to the culprit (a stand-in tool that segfaults on one input)."""
    fake = tmp_path / "hlo-opt"
    fake.write_text(
        "#!/bin/sh\n"
        "for a; do [ -f \"$a\" ] && f=$a; done\n"
        "grep -q CRASH \"$f\" && kill -SEGV $$\n"
        "exit 0\n"
    )
    fake.chmod(0o755)
    corpus = load_seeds(TEST_DIR)[:1]
    mutants = [harness.Mutant(i, corpus[0], f"// {'CRASH' if i == 5 else 'fine'}", ("test",))
               for i in range(8)]
    findings = harness.run_batch(str(fake), "roundtrip", ("--verify-roundtrip",), mutants,
                                 harness.Stats())
    assert [(f.kind, f.mutant.id) for f in findings] == [("signal SIGSEGV", 5)]


@pytest.mark.parametrize("returncode, stderr, kind", [
    (0, "", None),
    (1, "x.mlir:1:1: error: expected operation name", None),
    (1, "", "exit 1 without a diagnostic"),
    (-11, "", "signal SIGSEGV"),
    (134, "LLVM ERROR: out of memory", "LLVM ERROR"),
    (1, "UNREACHABLE executed at Foo.cpp:3", "UNREACHABLE"),
    (2, "", "exit 2"),
    (None, "", "timeout"),
])
def test_fuzzer_classifies_outcomes(returncode, stderr, kind):
    assert harness.classify(returncode, stderr) == kind


def test_mutants_are_reproducible_from_seed_and_id():
    corpus = load_seeds(TEST_DIR)
    a = harness.make_mutants(corpus, 7, range(40, 45))
    b = harness.make_mutants(corpus, 7, range(42, 43))
    assert a[2] == b[0]


def test_repair_retypes_a_result_from_the_verifier_message():
    from hlo_opt_fuzz.repair import repair

    text = "  %0 = hlo.pad %x, %v, low = [2], high = [0], interior = [0] : tensor<3xf32>, tensor<f32> -> tensor<3xf32>"
    message = ("'hlo.pad' op result shape [3] must be [5] "
               "(low + size + (size - 1) * interior + high)")
    assert repair(text, 1, message).endswith("-> tensor<5xf32>")


def test_repair_follows_a_retyped_result_into_the_function_signature():
    from hlo_opt_fuzz.repair import repair

    text = ("func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
            "  return %0 : tensor<5xf32>\n}")
    message = ("type of return operand 0 ('tensor<5xf32>') doesn't match function result "
               "type ('tensor<3xf32>') in function @f")
    assert repair(text, 2, message).startswith("func.func @f(%x: tensor<3xf32>) -> tensor<5xf32> {")
