"""Typed pipeline options: the cpu backend names each pipeline with its options, and
the native compiler and hlo-opt read them (docs/compiler-stages.md)."""

from __future__ import annotations

import dataclasses

import pytest

from numlir import _compiler
from numlir._src.backends import cpu
from numlir._src.backends.pipelines import Pipeline
from test_compiler import EXAMPLE


def test_a_pipeline_spells_its_options_in_order():
    p = Pipeline.of("hlo-cpu-to-llvm", threads=2, min_iterations=1024)
    assert p.text == "hlo-cpu-to-llvm{threads=2 min-iterations=1024}"
    assert p.anchored == "builtin.module(hlo-cpu-to-llvm{threads=2 min-iterations=1024})"
    assert p.flag == "--hlo-cpu-to-llvm=threads=2 min-iterations=1024"
    assert p.replay == "hlo-opt --hlo-cpu-to-llvm='threads=2 min-iterations=1024'"
    bare = Pipeline("hlo-optimize")
    assert (bare.text, bare.flag, bare.replay) == (
        "hlo-optimize", "--hlo-optimize", "hlo-opt --hlo-optimize")
    assert Pipeline.of("p", on=True, off=False).option_text == "on=true off=false"


@pytest.mark.parametrize("value", ["a b", "x}", "{", "it's", "", 1.5])
def test_a_pipeline_refuses_a_value_that_would_change_the_text(value):
    with pytest.raises(ValueError, match="pipeline option"):
        Pipeline.of("hlo-cpu-to-llvm", threads=value)


def test_every_setting_of_the_cpu_options_reaches_its_pipeline():
    options = dataclasses.replace(cpu.CpuOptions(), threads=3, parallel_min_iterations=7,
                                  row_fusion_min_bytes=-1, arena_max_buffer_bytes=0)
    assert cpu._pipeline("hlo-cpu-to-linalg", options).text == (
        "hlo-cpu-to-linalg{min-iterations=7}")
    assert cpu._pipeline("hlo-cpu-to-llvm", options).text == (
        "hlo-cpu-to-llvm{threads=3 min-iterations=7 row-fusion-min-bytes=-1 "
        "arena-max-buffer-bytes=0}")
    assert cpu._pipeline("hlo-optimize", options).text == "hlo-optimize"


def test_the_cpu_options_defaults_are_the_pipelines_defaults():
    defaults = cpu.CpuOptions()
    optimized = _compiler.run_pipeline(EXAMPLE, "hlo-optimize")
    linalg = _compiler.run_pipeline(optimized, "hlo-cpu-to-linalg")
    assert _compiler.run_pipeline(
        optimized, cpu._pipeline("hlo-cpu-to-linalg", defaults).anchored) == linalg
    assert _compiler.run_pipeline(
        linalg, cpu._pipeline("hlo-cpu-to-llvm", defaults).anchored) == (
        _compiler.run_pipeline(linalg, "hlo-cpu-to-llvm"))


def test_the_pipeline_text_holds_the_default_options():
    text = _compiler.pipeline_text("hlo-cpu-to-llvm")
    assert "cpu-parallelize-loops{threads=0 min-iterations=131072}" in text
    assert "cpu-split-reductions{min-reduction=131072}" in _compiler.pipeline_text(
        "hlo-cpu-to-linalg")
    assert _compiler.pipeline_text("hlo-fuse") == (
        _compiler.pipeline_text("hlo-optimize") + ",func.func(hlo-fusion)")


def test_a_bad_option_value_is_a_compile_error_that_names_it():
    linalg = _compiler.run_pipeline(_compiler.run_pipeline(EXAMPLE, "hlo-optimize"),
                                    "hlo-cpu-to-linalg")
    with pytest.raises(_compiler.CompileError, match="hlo-cpu-to-llvm needs threads >= 0"):
        _compiler.run_pipeline(linalg, "builtin.module(hlo-cpu-to-llvm{threads=-1})")
