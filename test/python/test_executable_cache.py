"""The executable cache: bounded (LRU), shared by jit and eager ops, and really emptied by
numlir.clear_caches() and a jitted function's clear_cache()."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir._src import config, dispatch
from asan_environment import skip_under_asan

# The directory this process imports numlir from, for subprocesses.
REPO_PYTHON = os.path.dirname(os.path.dirname(os.path.abspath(numlir.__file__)))


@pytest.fixture
def cache_size():
    """Sets the executable cache size for one test and restores it."""
    before = config.flags.executable_cache_size

    def set_size(n):
        numlir.config.update("executable_cache_size", n)

    yield set_size
    numlir.config.update("executable_cache_size", before)


def test_eager_cache_keeps_at_most_executable_cache_size_entries(cache_size):
    cache_size(4)
    for n in range(1, 9):
        np.testing.assert_allclose(jnp.cos(np.full(n, 0.5, np.float32)), np.cos(np.full(n, 0.5)),
                                   rtol=1e-6)
    assert len(dispatch.executables) <= 4


def test_least_recently_used_executable_is_dropped_first(cache_size):
    numlir.clear_caches()
    cache_size(2)
    a, b, c = (np.ones(n, np.float32) for n in (101, 102, 103))
    jnp.exp(a)
    jnp.exp(b)
    jnp.exp(a)  # a is now more recent than b
    misses = dispatch.stats["eager_cache_misses"]
    jnp.exp(c)  # evicts b
    jnp.exp(a)
    assert dispatch.stats["eager_cache_misses"] == misses + 1
    jnp.exp(b)
    assert dispatch.stats["eager_cache_misses"] == misses + 2


def test_lowering_the_limit_shrinks_the_cache_at_once(cache_size):
    cache_size(16)
    for n in range(1, 9):
        jnp.sin(np.ones(n, np.float32))
    cache_size(3)
    assert len(dispatch.executables) <= 3


def test_jitted_function_recompiles_an_evicted_executable_without_retracing(cache_size):
    traces = []

    @numlir.jit
    def f(x):
        traces.append(1)
        return x * 3.0

    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(f(x), x * 3)
    cache_size(0)  # drops everything, f's executable included
    compiles = dispatch.stats["compiles"]
    np.testing.assert_allclose(f(x), x * 3)
    assert dispatch.stats["compiles"] == compiles + 1
    assert len(traces) == 1 and f.cache_misses == 1


def test_cache_size_zero_caches_nothing_but_still_computes(cache_size):
    cache_size(0)
    np.testing.assert_allclose(jnp.add(np.ones(3, np.float32), 2.0), [3, 3, 3])
    assert len(dispatch.executables) == 0


def test_clear_caches_forgets_traced_signatures():
    traces = []

    @numlir.jit
    def f(x):
        traces.append(1)
        return x + 1

    f(np.ones(2, np.float32))
    numlir.clear_caches()
    assert len(dispatch.executables) == 0
    f(np.ones(2, np.float32))
    assert len(traces) == 2


def test_a_compiled_object_keeps_its_executable_through_clear_caches():
    compiled = numlir.jit(lambda x: x * 2).lower(np.ones(3, np.float32)).compile()
    numlir.clear_caches()
    np.testing.assert_allclose(compiled(np.ones(3, np.float32)), [2, 2, 2])


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True])
def test_executable_cache_size_must_be_a_non_negative_int(bad):
    with pytest.raises(ValueError, match="executable_cache_size must be an integer >= 0"):
        numlir.config.update("executable_cache_size", bad)


@pytest.mark.parametrize("value, message", [("abc", "must be an integer"), ("-3", "must be >= 0")])
def test_bad_cache_size_environment_variable_is_a_clear_error(value, message):
    env = dict(os.environ, NUMLIR_EXECUTABLE_CACHE_SIZE=value, PYTHONPATH=REPO_PYTHON)
    result = subprocess.run([sys.executable, "-c", "import numlir"], env=env, capture_output=True,
                            text=True)
    assert result.returncode != 0
    assert f"NUMLIR_EXECUTABLE_CACHE_SIZE {message}" in result.stderr


def test_cache_size_environment_variable_sets_the_flag():
    env = dict(os.environ, NUMLIR_EXECUTABLE_CACHE_SIZE="7", PYTHONPATH=REPO_PYTHON)
    result = subprocess.run(
        [sys.executable, "-c", "import numlir; print(numlir.config.flags.executable_cache_size)"],
        env=env, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "7"


# Runs in a fresh process so that other tests' executables and allocations do not blur the
# numbers. Each loaded executable maps its shared object (a few mappings) and its pages; after
# clear_caches() those mappings must be gone again and the resident size must fall.
_MEMORY_SCRIPT = textwrap.dedent("""
    import gc, json
    import numpy as np
    import numlir, numlir.numpy as jnp

    def rss_kb():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))

    def mappings():
        with open("/proc/self/maps") as f:
            return sum(1 for _ in f)

    def snapshot():
        gc.collect()
        return {"rss": rss_kb(), "maps": mappings()}

    jnp.sin(np.ones(1, np.float32))  # load the compiler and the runtime first
    numlir.clear_caches()
    out = {"baseline": snapshot()}
    for n in range(2, 2 + EAGER):
        jnp.sin(np.ones(n, np.float32))
    fs = [numlir.jit(lambda x, k=k: x * k + k) for k in range(JITTED)]
    for f in fs:
        f(np.ones(3, np.float32))
    out["peak"] = snapshot()
    numlir.clear_caches()
    out["cleared"] = snapshot()

    g = numlir.jit(lambda x: x * 2 + 1)
    for n in range(1, 1 + PER_FUNCTION):
        g(np.ones(n, np.float32))
    out["one_function"] = snapshot()
    g.clear_cache()
    out["one_function_cleared"] = snapshot()
    print(json.dumps(out))
""")

EAGER, JITTED, PER_FUNCTION = 150, 50, 40


@skip_under_asan("ASan keeps freed memory and its mappings in quarantine")
def test_clear_caches_unloads_executables_and_returns_their_memory():
    import json

    script = (_MEMORY_SCRIPT.replace("EAGER", str(EAGER)).replace("JITTED", str(JITTED))
              .replace("PER_FUNCTION", str(PER_FUNCTION)))
    env = dict(os.environ, PYTHONPATH=REPO_PYTHON)
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, check=True)
    m = json.loads(result.stdout.strip().splitlines()[-1])
    base, peak, cleared = m["baseline"], m["peak"], m["cleared"]
    compiled = EAGER + JITTED
    # Every executable added mappings, and clearing removed (nearly) all of them again.
    assert peak["maps"] - base["maps"] >= compiled, m
    assert cleared["maps"] - base["maps"] <= 20, m
    # The resident size fell: an unloaded executable returns its pages (~20 KiB here; at
    # least 2 KiB each on average is asked, whatever the allocator keeps of the rest).
    assert peak["rss"] - cleared["rss"] >= 2 * compiled, m
    # One jitted function's clear_cache() unloads its own executables.
    one, one_cleared = m["one_function"], m["one_function_cleared"]
    assert one["maps"] - cleared["maps"] >= PER_FUNCTION, m
    assert one_cleared["maps"] - cleared["maps"] <= 20, m
    assert one["rss"] - one_cleared["rss"] >= 2 * PER_FUNCTION, m
