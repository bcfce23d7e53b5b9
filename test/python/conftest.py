"""Shared pytest setup for numlir's Python tests (jax is the numerical oracle)."""

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("numlir") is None:  # running from a source tree without `pip install -e .`
    sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python")))

# Each test compiles what it tests: the persistent compilation cache stays off unless a
# test turns it on (test_compilation_cache.py) or the environment asks for it.
os.environ.setdefault("NUMLIR_ENABLE_COMPILATION_CACHE", "0")

import jax  # noqa: E402

from numlir._src import config  # noqa: E402


@pytest.fixture
def x64():
    """Enable 64-bit types in numlir and in the jax oracle for one test."""
    prev = (config.flags.enable_x64, jax.config.jax_enable_x64)
    config.update("jax_enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    yield
    config.update("jax_enable_x64", prev[0])
    jax.config.update("jax_enable_x64", prev[1])


@pytest.fixture(autouse=True)
def _x32_by_default():
    """Tests start with x64 off in both numlir and jax, whatever the environment says."""
    prev = (config.flags.enable_x64, jax.config.jax_enable_x64)
    config.update("jax_enable_x64", False)
    jax.config.update("jax_enable_x64", False)
    yield
    config.update("jax_enable_x64", prev[0])
    jax.config.update("jax_enable_x64", prev[1])


@pytest.fixture(scope="session")
def mpirun() -> Path:
    """Open MPI's mpirun (on PATH, or beside this Python: `make setup` puts the PyPI
    wheel's there). Missing, the test skips, or fails where NUMLIR_REQUIRE_MPI=1 (CI)."""
    found = shutil.which("mpirun")
    path = Path(found) if found else Path(sys.prefix) / "bin" / "mpirun"
    if not path.exists():
        if os.environ.get("NUMLIR_REQUIRE_MPI") == "1":
            pytest.fail("mpirun not found, and NUMLIR_REQUIRE_MPI=1 (make setup installs "
                        "Open MPI)")
        pytest.skip("mpirun not found (make setup installs Open MPI)")
    return path
