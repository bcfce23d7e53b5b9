"""Temporaries and large outputs are kept for reuse across calls, within a budget.

A jitted function called in a loop asks the runtime for the same temporaries
every call. Freed blocks of 64 KiB and more stay in the runtime's cache
(NUMLIR_ALLOCATOR_CACHE_BYTES, default 1 GiB), so steady-state calls map no
fresh memory and take no page faults for them; outputs of 64 KiB and more
come from the same allocator (`_runtime.host_buffer`) and return to it when
the array dies. numlir.clear_caches() frees them. Page-fault counts, not times, are asserted.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np

import numlir
import numlir.numpy as jnp
from numlir import _runtime

# x * x has two consumers, so it is not fused into either reduction: a 64 MiB
# temporary per call.
FAULTS_PER_CALL = textwrap.dedent(r"""
    import resource, sys
    import numpy as np
    import numlir, numlir.numpy as jnp
    from numlir import _runtime

    def faults():
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_minflt + usage.ru_majflt

    x = np.full(16 * 1024 * 1024, 0.5, np.float32)
    if sys.argv[1] == "temporaries":
        f = numlir.jit(lambda x: (lambda y: jnp.sum(y) + jnp.max(y))(x * x))
    else:  # a 64 MiB output, dropped by the next iteration's assignment
        f = numlir.jit(lambda x: x * 2.0 + 1.0)
    # Two warm-up calls: while a call runs the previous result is still
    # alive, so a loop cycles through two output blocks.
    y = f(x)
    y = f(x)
    want = float(np.asarray(y).ravel()[-1])
    before = faults()
    for _ in range(5):
        y = f(x)
    assert float(np.asarray(y).ravel()[-1]) == (2.0 if sys.argv[1] == "outputs" else want)
    print((faults() - before) / 5, _runtime.cached_memory_bytes())
""")


def _faults_per_call(buffers="temporaries", **env):
    result = subprocess.run([sys.executable, "-c", FAULTS_PER_CALL, buffers], capture_output=True,
                            text=True, timeout=300, env=dict(os.environ, **env))
    assert result.returncode == 0, result.stderr[-3000:]
    faults, cached = result.stdout.split()
    return float(faults), int(cached)


def test_steady_state_calls_take_no_page_faults_for_temporaries():
    faults, cached = _faults_per_call()
    # 64 MiB of fresh pages would be 16,384 faults per call.
    assert faults < 1000, faults
    assert cached >= 64 << 20


def test_without_a_cache_budget_every_call_faults_its_temporaries_in():
    faults, cached = _faults_per_call(NUMLIR_ALLOCATOR_CACHE_BYTES="0")
    assert faults > 10000, faults
    assert cached == 0


def test_steady_state_calls_take_no_page_faults_for_large_outputs():
    faults, _ = _faults_per_call("outputs")
    assert faults < 1000, faults


def test_without_a_cache_budget_large_outputs_fault_in_every_call():
    faults, _ = _faults_per_call("outputs", NUMLIR_ALLOCATOR_CACHE_BYTES="0")
    assert faults > 10000, faults


def test_blocks_larger_than_the_budget_are_not_kept():
    _, cached = _faults_per_call(NUMLIR_ALLOCATOR_CACHE_BYTES=str(1 << 20))
    assert cached <= 1 << 20


def test_unparsable_budget_falls_back_to_the_default():
    faults, cached = _faults_per_call(NUMLIR_ALLOCATOR_CACHE_BYTES="lots")
    assert faults < 1000 and cached >= 64 << 20


def test_clear_caches_frees_the_kept_buffers():
    x = np.linspace(0, 1, 1 << 18, dtype=np.float32)
    f = numlir.jit(lambda x: (lambda y: jnp.sum(y) + jnp.max(y))(jnp.sin(x) * x))
    float(f(x))
    assert _runtime.cached_memory_bytes() > 0
    numlir.clear_caches()
    assert _runtime.cached_memory_bytes() == 0
    assert _runtime.release_cached_memory() == 0


def test_reused_buffers_give_the_same_results_for_different_inputs():
    # Two functions whose temporaries have the same size take each other's
    # blocks; stale contents must never show through.
    f = numlir.jit(lambda x: jnp.cumsum(x * 2.0)[-1] + jnp.sum(x * x))
    g = numlir.jit(lambda x: jnp.sum(jnp.sort(x * -1.0)[:10]))
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = rng.standard_normal(1 << 16).astype(np.float32)
        want_f = np.cumsum(x.astype(np.float64) * 2)[-1] + (x.astype(np.float64) ** 2).sum()
        want_g = np.sort(-x.astype(np.float64))[:10].sum()
        np.testing.assert_allclose(float(f(x)), want_f, rtol=1e-4)
        np.testing.assert_allclose(float(g(x)), want_g, rtol=1e-5)
