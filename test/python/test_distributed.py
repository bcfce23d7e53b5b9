"""pmap across processes (numlir.distributed over MPI): mpi_scenarios.py under mpirun, 2 and
3 processes, over shared memory and over TCP on loopback, against one process holding every
replica (bit for bit) and NumPy; divergence and missing-peer failures; initialize's errors.

Skips where mpirun is absent (conftest's ``mpirun`` fixture: "make setup installs Open
MPI"); NUMLIR_REQUIRE_MPI=1 (CI) makes that a failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
SCENARIOS = HERE / "mpi_scenarios.py"
TCP = ["--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", "lo"]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    """One compilation cache for every run: the reference compiles, the ranks load."""
    return tmp_path_factory.mktemp("cache")


def _env(cache: Path, **extra) -> dict:
    env = dict(os.environ, NUMLIR_ENABLE_COMPILATION_CACHE="1", NUMLIR_CACHE_DIR=str(cache),
               NUMLIR_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", JAX_PLATFORMS="cpu", **extra)
    env.pop("NUMLIR_NUM_CPU_DEVICES", None)  # the scenarios set their own counts
    return env


def _launch(mpirun: Path, out: Path, mode: str, processes: int, devices: int, cache: Path,
            transport: list[str] = (), timeout: float = 120, **env) -> subprocess.CompletedProcess:
    command = [str(mpirun), "--oversubscribe", "-np", str(processes), *transport, sys.executable,
               str(SCENARIOS), str(out), mode, str(processes), str(devices)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          env=_env(cache, **env))


def _reference(out: Path, processes: int, devices: int, cache: Path) -> dict:
    done = subprocess.run([sys.executable, str(SCENARIOS), str(out), "single", str(processes),
                           str(devices)], capture_output=True, text=True, timeout=300,
                          env=_env(cache))
    assert done.returncode == 0, done.stderr[-4000:]
    with np.load(out / "single.npz") as saved:
        return {k: saved[k] for k in saved.files}


@pytest.mark.parametrize("processes,devices,transport", [
    (2, 1, "shared memory"), (2, 1, "tcp"), (3, 1, "shared memory"), (3, 1, "tcp"),
    (2, 2, "shared memory"),
])
def test_pmap_across_processes_equals_one_process_bit_for_bit(mpirun, cache_dir, tmp_path,
                                                              processes, devices, transport):
    reference = _reference(tmp_path, processes, devices, cache_dir)
    done = _launch(mpirun, tmp_path, "mpi", processes, devices, cache_dir,
                   TCP if transport == "tcp" else [])
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert done.stdout.count("scenarios done") == processes
    g = processes * devices
    for p in range(processes):
        with np.load(tmp_path / f"rank{p}.npz") as saved:
            got = {k: saved[k] for k in saved.files}
        assert got.keys() == reference.keys()
        for name, want in reference.items():
            rows = want if name in ("out_axes_none", "pmean_grad") else \
                want[p * devices:(p + 1) * devices]
            np.testing.assert_array_equal(got[name], rows, err_msg=f"{name} on process {p}")
            assert got[name].dtype == rows.dtype
            # Bit for bit: zeros' signs and NaN payloads too.
            assert got[name].tobytes() == rows.tobytes(), f"{name} on process {p}: bits"
        queries = json.loads((tmp_path / f"rank{p}.json").read_text())
        assert queries["process_index"] == p and queries["process_count"] == processes
        assert queries["devices"] == [[i, i // devices] for i in range(g)]
        assert queries["local_devices"] == list(range(p * devices, (p + 1) * devices))
        assert queries["local_device_count"] == devices


def test_the_reference_agrees_with_numpy(cache_dir, tmp_path):
    """What the bitwise test compares against is itself right (3 replicas, 1 process)."""
    got = _reference(tmp_path, 3, 1, cache_dir)
    rng = np.random.default_rng(0)
    x = (rng.normal(size=(3, 5)) * 10).astype(np.float32)
    np.testing.assert_allclose(got["psum_f32"], np.broadcast_to(x.sum(0), (3, 5)), rtol=1e-6)
    np.testing.assert_array_equal(got["all_gather"], np.broadcast_to(x, (3, 3, 5)))
    np.testing.assert_array_equal(got["ppermute_ring"], np.roll(x, 1, axis=0))
    want = np.zeros_like(x)
    want[2] = x[0]
    np.testing.assert_array_equal(got["ppermute_partial"], want)
    np.testing.assert_array_equal(got["axis_index"], np.arange(3))
    edged = x.copy()
    edged[0, 0], edged[-1, 1], edged[1, 2], edged[0, 3] = np.nan, -0.0, np.inf, -np.inf
    assert np.isnan(got["pmax_edges"][:, 0]).all() and np.isnan(got["pmin_edges"][:, 0]).all()
    assert (got["pmax_edges"][:, 2] == np.inf).all() and (got["pmin_edges"][:, 3] == -np.inf).all()
    for name, seed, shape in [("psum_rotated", 13, (67,)), ("psum_scalar", 9, ()),
                              ("psum_two", 10, (2,)), ("psum_empty", 11, (0,)),
                              ("psum_donated", 12, (1001,))]:
        v = (np.random.default_rng(seed).normal(size=(3, *shape)) * 10).astype(np.float32)
        np.testing.assert_allclose(got[name], np.broadcast_to(v.sum(0), v.shape), rtol=1e-5,
                                   atol=1e-5, err_msg=name)
    v = (np.random.default_rng(14).normal(size=(3, 9)) * 10).astype(np.float32)
    for name in ("psum_remembered", "psum_remembered_donated"):  # (3/2)^4 * sum / 2
        np.testing.assert_allclose(got[name], np.broadcast_to(v.sum(0) * 1.5**4 / 2, v.shape),
                                   rtol=1e-5, err_msg=name)


def test_processes_at_different_collectives_fail_naming_both(mpirun, cache_dir, tmp_path):
    done = _launch(mpirun, tmp_path, "diverge", 2, 1, cache_dir)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    for p in range(2):
        report = json.loads((tmp_path / f"diverge{p}.json").read_text())
        assert "COLLECTIVE_FAILED" in report["message"], report["message"]
        assert "process" in report["message"] and "different program" in report["message"]
        # The next launch on the same communicator works.
        np.testing.assert_allclose(report["again"], report["want"], rtol=1e-6)


def test_a_process_that_skips_a_pmap_times_its_peer_out(mpirun, cache_dir, tmp_path):
    done = _launch(mpirun, tmp_path, "skip", 2, 1, cache_dir, timeout=120,
                   NUMLIR_COLLECTIVE_TIMEOUT="3")
    report = json.loads((tmp_path / "skip0.json").read_text())
    assert "timed out after 3 s" in report["message"], report["message"]
    assert "all_reduce" in report["message"]
    assert json.loads((tmp_path / "skip1.json").read_text())["message"] == "skipped"
    del done  # how mpirun ends the job after the failure is Open MPI's business


def test_initialize_outside_mpirun_says_how_to_start_the_processes(tmp_path):
    code = "import numlir; numlir.distributed.initialize()"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_"))}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode != 0
    assert "found no MPI job" in done.stderr and "mpirun -np N" in done.stderr


def test_initialize_with_a_missing_libmpi_names_it(tmp_path):
    code = "import numlir; numlir.distributed.initialize()"
    env = dict(os.environ, OMPI_COMM_WORLD_SIZE="2", OMPI_COMM_WORLD_RANK="0",
               NUMLIR_MPI_LIBRARY=str(tmp_path / "libmpi-nowhere.so"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode != 0
    assert "UNAVAILABLE" in done.stderr and "libmpi-nowhere.so" in done.stderr


@pytest.mark.parametrize("ids,error", [(["0"], "TypeError"), ([-1], "TypeError"),
                                       ([True], "TypeError"), ([0, 0], "ValueError")])
def test_initialize_checks_local_device_ids_before_mpi(tmp_path, ids, error):
    code = (f"import numlir\ntry:\n    numlir.distributed.initialize(local_device_ids={ids!r})\n"
            "except Exception as e:\n    print(type(e).__name__, e)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_"))}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.stdout.startswith(error) and "local_device_ids" in done.stdout, done.stdout
    assert "found no MPI job" not in done.stdout


def test_jax_local_device_ids_are_kept_and_leave_the_cpu_devices(mpirun, cache_dir, tmp_path):
    # As jax's initialize, which makes them the CUDA/ROCm visible devices only.
    code = ("import json, sys, numlir\nnumlir.distributed.initialize()\n"
            "from numlir._src import distributed\n"
            "print(json.dumps([distributed.state.visible_device_ids, "
            "numlir.local_device_count(), numlir.device_count()]))\n")
    done = subprocess.run([str(mpirun), "--oversubscribe", "-np", "2", sys.executable, "-c",
                           code], capture_output=True, text=True, timeout=120,
                          env=dict(_env(cache_dir), JAX_LOCAL_DEVICE_IDS="1,0",
                                   NUMLIR_NUM_CPU_DEVICES="2"))
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("[")]
    assert lines == [[[1, 0], 2, 4]] * 2, done.stdout


def test_initialize_after_the_devices_are_used_is_refused(tmp_path):
    code = ("import numlir; numlir.devices()\n"
            "try:\n    numlir.distributed.initialize()\n"
            "except RuntimeError as e:\n    print('refused:', e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert "refused:" in done.stdout and "before any numlir calls" in done.stdout


def test_the_dcgan_trains_under_mpirun_as_on_two_local_devices(mpirun, cache_dir, tmp_path):
    """Issue 36's second "done when": `mpirun -np 2 train.py --data-parallel 1` takes the
    steps that `--data-parallel 2` takes in one process, bit for bit (the same group-order
    reductions), which test_gan_example.py checks against one device."""
    script = HERE.parent.parent / "examples" / "gan" / "train.py"
    flags = ["--steps", "2", "--batch", "8", "--out", str(tmp_path / "out")]
    local = subprocess.run(
        [sys.executable, str(script), *flags, "--save", str(tmp_path / "local.npz"),
         "--data-parallel", "2"], capture_output=True, text=True, timeout=600,
        env=_env(cache_dir))
    assert local.returncode == 0, local.stderr[-3000:]
    done = subprocess.run(
        [str(mpirun), "--oversubscribe", "-np", "2", sys.executable, str(script), *flags,
         "--save", str(tmp_path / "mpi.npz"), "--data-parallel", "1"],
        capture_output=True, text=True, timeout=600, env=_env(cache_dir))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    # Process 0 alone reports.
    assert done.stdout.count("final losses") == 1
    assert done.stdout.split("final losses")[1] == local.stdout.split("final losses")[1]
    with np.load(tmp_path / "local.npz") as a, np.load(tmp_path / "mpi.npz") as b:
        assert a.files == b.files
        for name in a.files:
            np.testing.assert_array_equal(b[name], a[name], err_msg=name)
