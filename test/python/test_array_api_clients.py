"""Real array API clients on numlir arrays: scikit-learn with array_api_dispatch=True, SciPy
with SCIPY_ARRAY_API=1, array-api-compat and array-api-extra, against their NumPy results.

The clients run in one subprocess (array_api_clients.py), since SciPy reads SCIPY_ARRAY_API
once, at import, and the other tests import SciPy without it."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLIENTS = ("sklearn", "scipy", "array_api_compat", "array_api_extra")
_missing = [name for name in CLIENTS if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(
    bool(_missing), reason=f"array API clients not installed ({', '.join(_missing)}); "
                           "make setup installs them")

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def report():
    env = dict(os.environ, SCIPY_ARRAY_API="1", JAX_PLATFORMS="cpu",
               PYTHONPATH=os.pathsep.join([str(HERE), *sys.path]))
    proc = subprocess.run([sys.executable, str(HERE / "array_api_clients.py")], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)


def _names(group):
    source = (HERE / "array_api_clients.py").read_text()
    # The names only, without importing the clients here (that would import SciPy unset).
    start = source.index(f"{group} = {{")
    return [line.split('"')[1] for line in source[start:].split("\n}")[0].splitlines()[1:]
            if line.startswith('    "')]


def test_array_api_compat_finds_numlir_numpy(report):
    assert report["namespace"] == "numlir.numpy"


# Scalar metrics come back as Python floats (scikit-learn's float(...)), as for NumPy input.
_SCALARS = {"sklearn.metrics.mean_squared_error", "sklearn.metrics.accuracy_score",
            "sklearn.metrics.zero_one_loss", "sklearn.metrics.r2_score"}


@pytest.mark.parametrize("name", _names("CHECKS"))
def test_client_gives_numpys_result_as_a_numlir_array(report, name):
    _check_against_numpy(report["checks"][name], name)


def _check_against_numpy(r, name):
    assert "error" not in r, r.get("error")
    want_type = "builtins.float" if name in _SCALARS else "numlir._src.array.Array"
    assert r["type"] == want_type
    assert r["shape"] == r["want_shape"]
    # float32 throughout (64-bit types are off, as in jax), against NumPy's float32 or
    # float64 result, relative to its largest magnitude.
    assert r["max_error"] <= 1e-5 * max(1.0, r["scale"]), r


@pytest.mark.parametrize("name", _names("NEEDS_SETITEM"))
def test_clients_that_write_in_place_run_with_item_assignment_on(report, name):
    """numlir_array_item_assignment (off by default) lets x[i] = v replace an eager array's
    buffer: the clients that assign then give NumPy's results, as numlir arrays."""
    _check_against_numpy(report["assigning"][name], name)


@pytest.mark.parametrize("name", _names("NEEDS_SETITEM"))
def test_clients_that_write_in_place_meet_numlirs_immutable_arrays(report, name):
    """array-api-compat treats every array type it does not know as writeable and
    array-api-extra's at() copies and assigns for every type but JAX's, so these clients
    assign into numlir arrays, which (as jax's) refuse with a TypeError naming .at[]. When
    that changes upstream, this test fails: move the client to CHECKS."""
    r = report["needs_setitem"][name]
    assert r.get("error", "").startswith("TypeError: numlir arrays are immutable"), r
