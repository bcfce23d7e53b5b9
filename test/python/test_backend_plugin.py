"""The out-of-tree backend example (examples/backend-plugin): a backend and a runtime driver
from another package, found through the ``numlir.backends`` entry point, with no edit of
numlir. ``make test`` builds and installs it into the virtualenv first.

It exercises the whole seam: typed options, stages, dumps, the cache identity, the
driver's registration and its buffers, and JAX's placement rules across two kinds of
device.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import numlir
import numlir.backends as nb
import numlir.numpy as jnp
from numlir import _runtime
from numlir._src import config

if "pool" not in nb.available_backends():
    pytest.fail("the example backend is not installed: `make test` installs it, or run "
                "`.venv/bin/python -m pip install --no-build-isolation examples/backend-plugin`",
                pytrace=False)


def pool(i: int = 0):
    return numlir.devices("pool")[i]


def mlp_loss(w, b, x):
    return jnp.mean(jnp.tanh(x @ w + b) ** 2)


def test_the_backend_and_its_driver_register_from_outside_numlir():
    assert numlir.default_backend() == "cpu"  # a plugin does not take over
    devices = numlir.devices("pool")
    assert [repr(d) for d in devices] == ["PoolDevice(id=0)", "PoolDevice(id=1)"]
    assert [str(d) for d in devices] == ["pool:0", "pool:1"]
    assert "pool" in nb.drivers()
    assert nb.get_backend("pool").name == "pool"


def test_programs_on_the_pool_match_the_cpu_and_stay_in_pool_memory():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    x = rng.standard_normal((16, 8)).astype(np.float32)
    step = numlir.value_and_grad(mlp_loss, argnums=(0, 1))
    on_pool = numlir.jit(step, backend="pool")(w, b, x)
    on_cpu = numlir.jit(step)(w, b, x)
    for got, want in zip(numlir.tree_util.tree_leaves(on_pool),
                         numlir.tree_util.tree_leaves(on_cpu)):
        assert got.device == pool(0) and got.committed
        assert type(got._value).__name__ == "PoolBuffer"  # the driver's memory, not NumPy's
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_placement_follows_pool_arrays_across_jit_eager_ops_and_transfers():
    x = numlir.device_put(np.arange(6.0, dtype=np.float32).reshape(2, 3), pool(1))
    y = numlir.jit(lambda a: jnp.cumsum(a, axis=1) * 2)(x)
    assert y.device == pool(1) and y.committed
    z = (y + 1).sum(axis=0)  # eager ops run on the pool device too
    assert z.device == pool(1)
    np.testing.assert_array_equal(np.asarray(z), [8.0, 18.0, 32.0])
    back = numlir.device_put(z, numlir.devices()[0])
    assert back.device == numlir.devices()[0] and type(back._value) is np.ndarray
    moved = numlir.device_put(z, pool(0))  # pool to pool
    np.testing.assert_array_equal(np.asarray(moved), np.asarray(z))
    assert [float(v) for v in z] == [8.0, 18.0, 32.0]
    with pytest.raises(ValueError, match=r"device ids \[1\] on platform POOL and argument y "
                                         r"of add .* device ids \[0\] on platform CPU"):
        z + numlir.device_put(np.ones(3, np.float32), numlir.devices()[0])


def test_reading_a_pool_array_is_a_guarded_device_to_host_transfer():
    x = numlir.device_put(np.ones(3, np.float32), pool(0))
    host = numlir.device_put(np.ones(3, np.float32), numlir.devices()[0])
    with numlir.transfer_guard_device_to_host("disallow"):
        np.asarray(host)  # cpu buffers are host memory: no transfer
        numlir.device_get(x)  # explicit: allowed
        with pytest.raises(RuntimeError, match=r"Disallowed device-to-host transfer: "
                                               r"aval=ShapedArray\(float32\[3\]\)"):
            np.asarray(x)


def test_donating_a_pool_array_deletes_it_and_gives_the_right_result():
    x = numlir.device_put(np.arange(4.0, dtype=np.float32), pool(0))
    y = numlir.jit(lambda a: a * 3, donate_argnums=0)(x)
    assert x.is_deleted()
    np.testing.assert_array_equal(np.asarray(y), [0.0, 3.0, 6.0, 9.0])


def test_dumps_show_the_pool_stage_and_its_image_names_the_pool_driver(tmp_path, monkeypatch):
    monkeypatch.setattr(config.flags, "dump_dir", str(tmp_path))
    numlir.jit(lambda a: jnp.exp(a) - 1, backend="pool")(np.ones(5, np.float32))
    images = sorted(tmp_path.rglob("*pool-image*.nlx"))
    assert images, sorted(p.name for p in tmp_path.rglob("*"))
    driver, payload = _runtime.unwrap_image(images[-1].read_bytes())
    assert driver == "pool" and payload[:4] == b"\x7fELF"
    names = " ".join(p.name for p in tmp_path.rglob("*"))
    for stage in ("linalg", "llvm", "object", "executable", "pool-image"):
        assert stage in names


def test_options_are_typed_and_part_of_the_cache_identity():
    backend = nb.get_backend("pool")
    fast, plain = backend.parse_options(opt_level=0), backend.parse_options(opt_level=3)
    assert fast.cpu.opt_level == 0 and plain.opt_level == 3
    assert hash(fast) != hash(plain) or fast != plain
    identities = {backend.cache_identity(fast), backend.cache_identity(plain),
                  nb.get_backend("cpu").cache_identity(plain.cpu)}
    assert len(identities) == 3  # its own options, and never the cpu backend's key


def _pool_script(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **env})


def test_a_full_pool_is_a_clear_out_of_memory_error():
    result = _pool_script("""
        import numpy as np, numlir
        d = numlir.devices("pool")[0]
        a = numlir.device_put(np.ones(200, np.float32), d)    # 800 of 1000 bytes
        try:
            numlir.device_put(np.ones(100, np.float32), d)    # 400 more
        except MemoryError as e:
            print(type(e).__name__, e)
        del a
        print(numlir.device_put(np.ones(100, np.float32), d).device)  # freed: fits
    """, NUMLIR_POOL_BYTES="1000")
    assert result.returncode == 0, result.stderr
    assert "OutOfMemoryError" in result.stdout
    assert "pool device 0 is full: 800 of 1000 bytes in use, 400 more asked" in result.stdout
    assert result.stdout.strip().endswith("pool:0")


def test_a_driver_that_does_not_load_is_a_clear_error():
    with pytest.raises(nb.BackendUnavailableError,
                       match=r"the 'pool' backend is unavailable: its runtime driver "
                             r"'/nonexistent/_pool_driver.so' did not load \(UNAVAILABLE: "
                             r"cannot load driver plugin"):
        nb.load_driver("/nonexistent/_pool_driver.so", "pool")
