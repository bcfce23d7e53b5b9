"""Issue 36's first "done when": a JAX program that uses pmap with psum, pmean, all_gather
and ppermute on 4 CPU devices runs on numlir with only its imports changed, and gives
JAX's values. The same text runs twice, each in a process of its own (both libraries
take their device count before their first computation)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

PROGRAM = '''
import sys
import numpy as np
import {lib} as jax
import {lib}.numpy as jnp
from {lib} import lax

jax.config.update("jax_num_cpu_devices", 4)


def step(w, x, y):
    def loss(w):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)

    value, grad = jax.value_and_grad(loss)(w)
    grad = lax.pmean(grad, "d")
    ring = lax.ppermute(x[:1], "d", [(i, (i + 1) % 4) for i in range(4)])
    losses = lax.all_gather(value, "d")
    total = lax.psum(jnp.sum(x), "d")
    where = lax.axis_index("d")
    return w - 0.1 * grad, losses, ring, total, where


rng = np.random.default_rng(0)
w = rng.normal(size=(3,)).astype(np.float32)
x = rng.normal(size=(4, 8, 3)).astype(np.float32)
y = rng.normal(size=(4, 8)).astype(np.float32)
out = jax.pmap(step, axis_name="d", in_axes=(None, 0, 0))(w, x, y)
assert len(jax.devices()) == 4
np.savez(sys.argv[1], *[np.asarray(o) for o in out])
'''


def _run(lib: str, path) -> list[np.ndarray]:
    code = PROGRAM.format(lib=lib)
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "NUMLIR_NUM_CPU_DEVICES": "1"}
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    with np.load(path) as saved:
        return [saved[f"arr_{i}"] for i in range(len(saved.files))]


def test_a_jax_pmap_program_runs_on_numlir_with_its_imports_changed(tmp_path):
    want = _run("jax", tmp_path / "jax.npz")
    got = _run("numlir", tmp_path / "numlir.npz")
    assert [g.shape for g in got] == [(4, 3), (4, 4), (4, 1, 3), (4,), (4,)]
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)
    # Every device took the same step, and the ring moved each device's first row to the
    # next device.
    np.testing.assert_array_equal(got[0], np.broadcast_to(got[0][0], got[0].shape))
    rng = np.random.default_rng(0)
    rng.normal(size=(3,))
    x = rng.normal(size=(4, 8, 3)).astype(np.float32)
    np.testing.assert_array_equal(got[2], np.roll(x[:, :1], 1, axis=0))
    np.testing.assert_array_equal(got[4], np.arange(4))
