"""bench/run.py runs end to end: worker processes, the check, the tables and the JSON.

Only the quickest mode on one tiny workload, numlir against NumPy: no timing is
asserted (the machine is shared), only that the harness produces what
docs/benchmarks.md promises.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))


def _run(tmp_path, *args):
    return subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--quick", "--rounds", "2", "--repeats", "2",
         "--results-dir", str(tmp_path), "--no-chart", *args],
        capture_output=True, text=True, timeout=300)


def test_quick_run_writes_the_table_and_the_json(tmp_path):
    done = _run(tmp_path, "--only", "W1", "--frameworks", "numlir,numpy")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "| W1 tanh(x*1.5+0.1)*0.5+x" in done.stdout
    assert "numlir/numpy" in done.stdout and "faults/call numlir" in done.stdout

    latest = json.loads((tmp_path / "latest.json").read_text())
    stamped = json.loads((tmp_path / f"{latest['timestamp']}.json").read_text())
    assert stamped == latest
    assert latest["schema"] == 1 and latest["quick"] is True
    assert latest["frameworks"] == ["numlir", "numpy"]
    assert not latest["worker_errors"]
    machine = latest["machine"]
    for key in ("copy_gbs", "read_gbs", "sgemm_gflops", "faults_per_mib"):
        assert machine[key] > 0
    assert machine["first_touch_us_per_mib"] >= 0
    assert len(machine["runs"]) == 2

    (w1,) = latest["workloads"]
    assert w1["name"] == "W1" and w1["limit"] == "copy" and w1["bytes"] == 2 * 4 * (1 << 16)
    assert w1["check"] == "ok (vs numpy)"
    assert w1["results"]["numlir"]["check"] == "ok"
    for framework in ("numlir", "numpy"):
        cell = w1["results"][framework]
        assert cell["supported"] and "error" not in cell
        assert len(cell["rounds"]) == 2
        assert all(len(r["samples_s"]) == 2 for r in cell["rounds"])
        assert 0 < cell["round_min_s"] <= cell["round_max_s"] and cell["seconds"] > 0
        assert cell["compile_s"] > 0 and cell["faults_per_call"] >= 0
    assert set(w1["ratios"]) == {"numpy"} and w1["ratios"]["numpy"] > 0
    assert w1["limit_s"] > 0 and set(w1["fraction_of_limit"]) == {"numlir", "numpy"}

    again = subprocess.run([sys.executable, str(BENCH / "run.py"), "--report",
                            str(tmp_path / "latest.json"), "--no-chart"],
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stdout.splitlines()[:3] == done.stdout.splitlines()[:3]


def test_a_framework_that_cannot_start_is_reported(tmp_path, monkeypatch):
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "torch.py").write_text("raise ImportError('no torch in this test')\n")
    monkeypatch.setenv("PYTHONPATH", str(fake))
    done = _run(tmp_path, "--only", "W1", "--frameworks", "numpy,torch")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "torch: ImportError: no torch in this test" in done.stdout
    latest = json.loads((tmp_path / "latest.json").read_text())
    assert "no torch in this test" in latest["worker_errors"]["torch"]
    (w1,) = latest["workloads"]
    assert "seconds" in w1["results"]["numpy"] and "error" in w1["results"]["torch"]


def test_on_a_tpu_the_frameworks_take_turns_as_libtpu_allows_one_process():
    import run
    assert run.turns(["numlir", "jax"], "tpu") == [["numlir"], ["jax"]]
    assert run.turns(["numlir", "jax"], "pjrt_cpu") == [["numlir", "jax"]]
    assert run.turns(["numlir", "numpy", "torch"], None) == [["numlir", "numpy", "torch"]]


def test_unknown_names_are_refused(tmp_path):
    done = _run(tmp_path, "--only", "W99", "--frameworks", "numpy")
    assert done.returncode != 0 and "unknown workload(s) W99" in done.stderr
    done = _run(tmp_path, "--only", "W1", "--frameworks", "numpy,tensorflow")
    assert done.returncode != 0 and "unknown framework(s) tensorflow" in done.stderr


def test_gan_workload_state_shapes_are_the_examples():
    # specs.py builds workload G's state leaves without importing either library; they must be
    # examples/gan's GANState, leaf for leaf.
    sys.path.insert(0, str(BENCH))
    sys.path.insert(0, str(BENCH.parent / "examples" / "gan"))
    import model
    import specs

    import numlir
    from numlir import tree_util

    state = model.GAN(model.numlir_stack()).init(numlir.random.PRNGKey(0), 1)
    assert [tuple(x.shape) for x in tree_util.tree_leaves(state)] == specs.gan_state_shapes()


# Sizes far below --quick's that still take every path: a four-step split (256), Bluestein
# (67 is prime and above the direct DFT's 64), an even image, pivoting and a Hermitian factor.
TINY = {"W8a": dict(batch=2, n=256), "W8b": dict(batch=2, n=67), "W8c": dict(batch=2, hw=16),
        "W9a": dict(batch=2, n=8, rhs=3), "W9b": dict(batch=2, n=8)}


def _first_outputs(framework, workload, path):
    import worker

    worker.Worker(framework, quick=True).setup(workload.name, str(path), min_sample_s=0.0)


@pytest.mark.parametrize("name", sorted(TINY))
def test_complex_workloads_agree_across_frameworks(name, tmp_path, monkeypatch):
    # What run.py's check does for W8 and W9, in process and at tiny sizes: every
    # framework's first outputs against jax's.
    import run
    import specs

    tiny = {n: dataclasses.replace(w, dims=TINY.get(n, w.dims))
            for n, w in specs.workloads(True).items()}
    monkeypatch.setattr(specs, "workloads", lambda quick: tiny)
    frameworks = ["jax", "numlir", "numpy"]
    try:
        import torch  # noqa: F401  (a bench dependency, not a test one)

        frameworks.append("torch")
    except ImportError:
        pass
    for framework in frameworks:
        _first_outputs(framework, tiny[name], tmp_path / f"{framework}.npz")
    with np.load(tmp_path / "jax.npz") as reference:
        (out,) = reference.values()
        assert np.iscomplexobj(out) == name.startswith(("W8a", "W8b", "W9"))
    for framework in frameworks[1:]:
        verdict = run.compare(tmp_path / f"{framework}.npz", tmp_path / "jax.npz",
                              tiny[name].tolerance)
        assert verdict == "ok", f"{framework}: {verdict}"


def test_selecting_a_family_names_its_variants():
    import specs

    assert [w.name for w in specs.select(True, "W8,W9a")] == ["W8a", "W8b", "W8c", "W9a"]
    table = specs.workloads(True)
    assert table["W8b"].limit is None and table["W9a"].limit == "gemm"
    n = table["W8a"].dims["n"]
    assert table["W8a"].flops == table["W8a"].dims["batch"] * 5 * n * np.log2(n)
    a, b = table["W9a"].inputs()
    assert a.dtype == b.dtype == np.complex64 and b.shape == (16, 64, 8)


def test_compare_measures_complex_differences_and_refuses_a_real_for_a_complex(tmp_path):
    import run

    reference = np.array([1 + 1j, 2 - 1j], np.complex64)
    np.savez(tmp_path / "ref.npz", reference)
    np.savez(tmp_path / "imag_off.npz", reference + np.complex64(0.1j))
    np.savez(tmp_path / "real.npz", reference.real)
    assert run.compare(tmp_path / "ref.npz", tmp_path / "ref.npz", 1e-3) == "ok"
    assert run.compare(tmp_path / "imag_off.npz", tmp_path / "ref.npz", 1e-3) == \
        "MISMATCH: rel. error 0.045"
    assert run.compare(tmp_path / "real.npz", tmp_path / "ref.npz", 1.0) == \
        "MISMATCH: output arr_0 is float32, expected complex64"


# --- The GPU's limits (bench/gpu_limits.py), on the fake libcuda ---------------------------


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory) -> pathlib.Path:
    from c_test_programs import CC, REPO

    library = tmp_path_factory.mktemp("fake_cuda") / "libfake_cuda.so"
    subprocess.run([CC, "-std=c11", "-shared", "-fPIC", "-o", str(library),
                    str(REPO / "runtime" / "test" / "fake_libcuda.c")], check=True)
    return library


def _probe(fake_libcuda, tmp_path, **env):
    log = tmp_path / "cuda.log"
    done = subprocess.run([sys.executable, str(BENCH / "gpu_limits.py"), "--quick"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NUMLIR_LIBCUDA": str(fake_libcuda),
                               "FAKE_CUDA_LOG": str(log), **env})
    return done, log.read_text().splitlines() if log.exists() else []


def test_the_gpu_probe_times_device_to_device_copies_through_the_driver(fake_libcuda, tmp_path):
    done, log = _probe(fake_libcuda, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    size = 64 << 20
    assert found["copy_bytes"] == size and found["copy_gbs"] > 0 and found["gpu"]
    assert found["read_gbs"] == found["copy_gbs"]  # W3's limit: reads run at the copy rate
    # Two buffers, the source filled, one untimed batch and three timed ones of four
    # copies each, and both buffers freed.
    assert sorted(line for line in log if line.startswith("alloc")) == \
        [f"alloc #0 {size}", f"alloc #1 {size}"]
    assert log.count(f"memset8 {size}") == 1
    assert log.count(f"copy {size}") == 4 * 4
    assert sorted(line for line in log if line.startswith("free")) == ["free #0", "free #1"]


def test_a_failing_gpu_probe_names_the_call_and_frees_its_buffers(fake_libcuda, tmp_path):
    done, log = _probe(fake_libcuda, tmp_path, FAKE_CUDA_FAIL="cuMemcpyDtoDAsync_v2")
    assert done.returncode != 0
    assert "cuMemcpyDtoDAsync_v2 failed" in done.stderr
    assert sorted(line for line in log if line.startswith("free")) == ["free #0", "free #1"]


def test_without_a_driver_the_gpu_probe_says_so(tmp_path):
    import gpu_limits

    with pytest.raises(RuntimeError, match="no CUDA driver to measure the GPU with"):
        gpu_limits.copy_bandwidth(1 << 20, 1, 1, path=str(tmp_path / "libcuda.so.1"))


def test_on_a_gpu_w1_to_w3_are_measured_against_its_bandwidth_and_the_rest_in_time():
    import report

    machine = {"copy_gbs": 40.0, "read_gbs": 40.0, "sgemm_gflops": 250.0,
               "device_limits": {"gpu": "GPU", "copy_gbs": 2000.0, "read_gbs": 2000.0,
                                 "copy_bytes": 1 << 29}}
    cell = {"rounds": [{"samples_s": [1e-3], "faults_per_call": 0}]}
    copy = {"limit": "copy", "bytes": 10**9, "flops": 0, "results": {"numlir": dict(cell)}}
    read = {"limit": "read", "bytes": 10**9, "flops": 0, "results": {"numlir": dict(cell)}}
    gemm = {"limit": "gemm", "bytes": 0, "flops": 10**9, "results": {"numlir": dict(cell)}}
    for workload in (copy, read, gemm):
        report.finish(workload, machine, ["numlir"], "cuda")
    for workload in (copy, read):  # 1 GB at 2,000 GB/s, not at the host's 40
        assert workload["limit_s"] == pytest.approx(0.5e-3)
        assert workload["fraction_of_limit"]["numlir"] == pytest.approx(0.5)
    assert gemm["limit_s"] is None and gemm["fraction_of_limit"] == {}
    # On a chip nothing was measured of (a TPU), no workload has a limit; on the host,
    # the host's.
    tpu = {"limit": "copy", "bytes": 10**9, "flops": 0, "results": {"numlir": dict(cell)}}
    assert report.finish(tpu, {"copy_gbs": 40.0}, ["numlir"], "tpu")["limit_s"] is None
    host = {"limit": "copy", "bytes": 10**9, "flops": 0, "results": {"numlir": dict(cell)}}
    assert report.finish(host, machine, ["numlir"])["limit_s"] == pytest.approx(1 / 40)


def test_the_tables_give_the_geometric_means_over_w1_w7_and_w1_w9():
    import report

    names = ["W1", "W2", "W3", "W4a", "W4b", "W5", "W6", "W7", "W8a", "W8b", "W8c", "W9a", "W9b",
             "G", "D"]
    # W1-W7 at 0.5, W8-W9 at 2, G and D (never in a mean) at 100.
    ratio = {n: 100.0 if n in ("G", "D") else 0.5 if n < "W8" else 2.0 for n in names}
    machine = {"model": "cpu", "threads": 2, "copy_gbs": 1.0, "read_gbs": 1.0,
               "sgemm_gflops": 1.0, "peak_gflops_estimate": None}

    def run(members):
        workloads = [{"name": n, "title": n, "results": {}, "ratios": {"jax": ratio[n]},
                      "limit_s": None, "fraction_of_limit": {}, "fastest_peer": "jax"}
                     for n in members]
        return report.tables({"frameworks": ["numlir", "jax"], "workloads": workloads,
                              "machine": machine, "host": {}})

    text = run(names)
    assert "over W1-W7 (8 workloads): 0.500" in text
    assert "over W1-W9 (13 workloads): 0.852" in text  # 2 ** (-3 / 13)
    # A run of part of W1-W9 (here without W9b) gives no W1-W9 mean.
    assert "W1-W9" not in run(names[:12])
