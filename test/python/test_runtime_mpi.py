"""The runtime's MPI transport: communicators whose replicas live in several processes.

runtime/test/mpi_test.c runs under ``mpirun`` with 2 or 3 processes of 1 or 2 local
devices each, over shared memory and over TCP: every collective of test_kernels.c's SPMD
kernels, checked against results computed in the program, then divergence, failures,
disagreeing creation and a timeout across processes. Each process writes its replicas'
results to files, which must equal, bit for bit, those of one process holding every
replica (the same program with ``--without-mpi``, which never loads MPI).

Open MPI comes from ``make setup`` (the PyPI wheel, mpirun in the virtual environment's
bin). Without mpirun the tests skip, unless NUMLIR_REQUIRE_MPI=1. NUMLIR_TEST_LIBNLRT
names the libnlrt.so to test (a standalone runtime build); the default is the package's.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from numlir import _runtime

from c_test_programs import CC, REPO, build_program, build_test_kernels

pytestmark = pytest.mark.skipif(CC is None, reason="needs a C compiler")

TIMEOUT = 90


def _prefix(mpirun: Path) -> Path:
    return mpirun.resolve().parent.parent


def _environment(mpirun: Path) -> dict[str, str]:
    env = dict(os.environ)
    # The wheel's libmpi is not on the system loader's path: point the runtime's search at
    # the one beside mpirun (a system Open MPI is found by its soname anyway).
    library = _prefix(mpirun) / "lib" / "libmpi.so.40"
    if "NUMLIR_MPI_LIBRARY" not in env and library.exists():
        env["NUMLIR_MPI_LIBRARY"] = str(library)
    if os.geteuid() == 0:  # containers: Open MPI refuses root unless told
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.pop("LD_PRELOAD", None)  # the ASan runtime of `make test-asan` is not in mpirun's children
    return env


@pytest.fixture(scope="module")
def mpi_test(tmp_path_factory) -> tuple[Path, Path]:
    """Builds runtime/test/mpi_test.c and the test kernels against libnlrt."""
    directory = tmp_path_factory.mktemp("mpi")
    library = Path(os.environ.get("NUMLIR_TEST_LIBNLRT") or _runtime.library_path())
    return build_program("mpi_test", directory, library), build_test_kernels(directory)


@pytest.fixture(scope="module")
def one_process(mpi_test, tmp_path_factory):
    """The results of one process holding all R replicas, for R = 1 to 4, by replica."""
    program, kernels = mpi_test
    results = {}
    for replicas in range(1, 5):
        out = tmp_path_factory.mktemp(f"one_process_{replicas}")
        run = subprocess.run([str(program), str(kernels), str(out), str(replicas),
                              "--without-mpi"],
                             capture_output=True, text=True, timeout=TIMEOUT)
        assert run.returncode == 0, run.stderr[-4000:]
        results[replicas] = {r: (out / f"replica{r}.bin").read_bytes()
                             for r in range(replicas)}
    return results


TRANSPORTS = {
    "shared-memory": [],
    "tcp": ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
            "--mca", "btl_tcp_if_include", "lo"],
}


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
@pytest.mark.parametrize("processes,local", [(2, 1), (2, 2), (3, 1)])
def test_collectives_across_processes(mpirun, mpi_test, one_process, tmp_path, transport,
                                      processes, local):
    program, kernels = mpi_test
    run = subprocess.run(
        [str(mpirun), "--oversubscribe", *TRANSPORTS[transport], "-np", str(processes),
         str(program), str(kernels), str(tmp_path), str(local)],
        capture_output=True, text=True, timeout=TIMEOUT, env=_environment(mpirun))
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    for rank in range(processes):
        assert f"all MPI checks passed (rank {rank} of {processes})" in run.stdout, run.stdout
    replicas = processes * local
    for r in range(replicas):
        got = (tmp_path / f"replica{r}.bin").read_bytes()
        assert got == one_process[replicas][r], f"replica {r} differs from one process's"


def test_singleton_without_mpirun(mpirun, mpi_test, one_process, tmp_path):
    """Open MPI initializes a process started without mpirun as a world of one."""
    program, kernels = mpi_test
    run = subprocess.run([str(program), str(kernels), str(tmp_path), "2"],
                         capture_output=True, text=True, timeout=TIMEOUT,
                         env=_environment(mpirun))
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    assert "all MPI checks passed (rank 0 of 1)" in run.stdout
    for r in range(2):
        assert (tmp_path / f"replica{r}.bin").read_bytes() == one_process[2][r]


def test_hand_written_abi_matches_mpi_h(mpirun, tmp_path):
    """runtime/lib/spmd/mpi.c's constants and signatures against the installed mpi.h."""
    prefix = _prefix(mpirun)
    if not (prefix / "include" / "mpi.h").exists():
        pytest.skip(f"no mpi.h in {prefix / 'include'}")
    program = tmp_path / "mpi_abi_check"
    build = subprocess.run(
        [CC, "-std=c11", "-Wall", "-Werror=incompatible-pointer-types",
         str(REPO / "runtime" / "test" / "mpi_abi_check.c"), "-I", str(prefix / "include"),
         "-L", str(prefix / "lib"), "-lmpi", "-ldl", f"-Wl,-rpath,{prefix / 'lib'}",
         "-o", str(program)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=TIMEOUT,
                         env=_environment(mpirun))
    assert run.returncode == 0, run.stderr
    assert "the Open MPI ABI matches" in run.stdout
