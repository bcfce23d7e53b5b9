"""Several CPU devices in one process: JAX's device API, placement rules and transfer guards.

The scenarios run in fresh processes with 4 CPU devices (the device count is fixed once a
process first uses its devices), once on numlir and once on JAX, and must report the same
placements, errors and guard outcomes (device_scenarios.py). The other tests run in a
subprocess too, or on whatever devices this process has.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

HERE = pathlib.Path(__file__).resolve().parent


def _run(args: list[str], env: dict | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-W", "ignore", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def _scenario_report(framework: str) -> dict:
    result = _run([str(HERE / "device_scenarios.py"), framework],
                  env={"JAX_PLATFORMS": "cpu"})
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def reports():
    return _scenario_report("numlir"), _scenario_report("jax")


def test_placements_errors_and_guards_match_jax_on_four_cpu_devices(reports):
    ours, theirs = reports
    assert set(ours) == set(theirs)
    differ = {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}
    assert not differ, "\n".join(f"{k}: numlir {a!r}, jax {b!r}" for k, (a, b) in differ.items())


def test_the_scenarios_exercise_every_rule(reports):
    # A scenario report that lost its meaning (e.g. everything on device 0) would still agree
    # with a broken jax run; pin the facts the rules imply.
    ours, _ = reports
    assert ours["devices"] == [[i, "cpu", "cpu", 0] for i in range(4)]
    assert ours["jit_committed_and_uncommitted"] == [2, True]
    assert ours["jit_uncommitted"] == [0, False]
    assert ours["jit_mixed_devices"][0] == "ValueError"
    assert ours["default_device_created"] == [3, False]
    assert ours["guard_disallow_jit_numpy_argument"][0] == "RuntimeError"
    assert ours["guard_disallow_device_put_host"] == "ok"
    assert ours["guard_disallow_explicit_device_put_host"][0] == "RuntimeError"


def _numlir_script(code: str, devices: int = 4, threads: int | None = None) -> str:
    env = {"NUMLIR_NUM_CPU_DEVICES": str(devices)}
    if threads is not None:
        env["NUMLIR_NUM_THREADS"] = str(threads)
    result = _run(["-c", textwrap.dedent(code)], env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


def test_each_device_runs_on_a_thread_team_of_its_own_share_of_the_cores():
    # 8 threads over 4 devices: 2 each. A host callback runs on the thread that runs the
    # device's executable, where OpenMP's team size for that thread is the device's.
    out = _numlir_script("""
        import ctypes, numpy as np, numlir, numlir.numpy as jnp
        from numlir._src import dispatch
        omp = ctypes.CDLL("libomp.so.5")
        def team(x):
            return np.int32(omp.omp_get_max_threads())
        f = numlir.jit(lambda x: numlir.pure_callback(
            team, numlir.ShapeDtypeStruct((), np.int32), jnp.sum(x * 2.0)))
        devices = numlir.devices()
        print([d.num_threads for d in devices])
        print([int(f(numlir.device_put(np.ones(300000, np.float32), d))) for d in devices])
        print(dispatch.get_backend().parse_options().threads)
    """, devices=4, threads=8)
    shares, teams, chunks = out.strip().splitlines()
    assert shares == "[2, 2, 2, 2]"
    assert teams == "[2, 2, 2, 2]"
    assert chunks == "2"  # parallel loops are split for one device's team


def test_one_device_keeps_the_openmp_default_team():
    out = _numlir_script("""
        import numlir
        print(numlir.device_count(), numlir.devices()[0].num_threads)
    """, devices=1)
    assert out.split() == ["1", "0"]


def test_two_devices_stepping_on_two_threads_at_once_match_one_after_the_other():
    out = _numlir_script("""
        import threading, numpy as np, numlir, numlir.numpy as jnp

        @numlir.jit
        def step(w, x):
            loss = lambda w: jnp.mean(jnp.tanh(x @ w) ** 2)
            return w - 0.1 * numlir.grad(loss)(w)

        rng = np.random.default_rng(0)
        data = [rng.standard_normal((256, 64)).astype(np.float32) for _ in range(2)]
        w0 = rng.standard_normal((64, 64)).astype(np.float32) * 0.1

        def train(device, x, out, index):
            w = numlir.device_put(w0, device)
            x = numlir.device_put(x, device)
            for _ in range(30):
                w = step(w, x)
            assert w.device == device and w.committed
            out[index] = np.asarray(w)

        devices = numlir.devices()
        sequential, concurrent = [None, None], [None, None]
        for i in range(2):
            train(devices[i], data[i], sequential, i)
        threads = [threading.Thread(target=train, args=(devices[i], data[i], concurrent, i))
                   for i in range(2)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(all(np.array_equal(a, b) for a, b in zip(sequential, concurrent)),
              not np.array_equal(concurrent[0], concurrent[1]))
    """, devices=2, threads=2)
    assert out.split() == ["True", "True"]


def test_the_device_count_cannot_change_once_the_devices_exist():
    out = _numlir_script("""
        import numlir
        numlir.devices()
        numlir.config.update("jax_num_cpu_devices", 3)  # the same count is fine
        try:
            numlir.config.update("jax_num_cpu_devices", 2)
        except RuntimeError as e:
            print("refused:", e)
        print(numlir.device_count())
    """, devices=3)
    assert "refused: jax_num_cpu_devices (num_cpu_devices) must be set before" in out
    assert out.strip().endswith("3")


@pytest.mark.parametrize("value", [0, -1, 2.5, True])
def test_a_bad_device_count_is_refused(value):
    with pytest.raises(ValueError, match="num_cpu_devices must be an integer >= 1"):
        numlir.config.update("jax_num_cpu_devices", value)


def test_a_bad_device_count_in_the_environment_is_a_clear_error():
    result = _run(["-c", "import numlir; numlir.devices()"], env={"NUMLIR_NUM_CPU_DEVICES": "zero"})
    assert result.returncode != 0
    assert "NUMLIR_NUM_CPU_DEVICES must be an integer" in result.stderr


def test_a_program_runs_on_every_device_and_compiles_once():
    out = _numlir_script("""
        import numpy as np, numlir, numlir.numpy as jnp
        from numlir._src import dispatch
        f = numlir.jit(lambda a: jnp.cumsum(a) * 3)
        before = dispatch.stats["compiles"]
        outs = [f(numlir.device_put(np.arange(5.0, dtype=np.float32), d)) for d in numlir.devices()]
        print(dispatch.stats["compiles"] - before, [o.device.id for o in outs],
              all(np.array_equal(o, outs[0]) for o in outs))
        eager = [jnp.sin(numlir.device_put(np.ones(2, np.float32), d)) for d in numlir.devices()]
        print([o.device.id for o in eager])
    """, devices=4)
    first, second = out.strip().splitlines()
    assert first == "1 [0, 1, 2, 3] True"
    assert second == "[0, 1, 2, 3]"


def test_donation_on_a_second_device_reuses_the_buffer_and_deletes_the_donor():
    out = _numlir_script("""
        import numpy as np, numlir
        d1 = numlir.devices()[1]
        x = numlir.device_put(np.ones(1 << 16, np.float32), d1)
        f = numlir.jit(lambda a: a * 2, donate_argnums=0)
        y = f(x)
        print(x.is_deleted(), y.device.id, y.committed, float(y[0]))
    """, devices=2)
    assert out.split() == ["True", "1", "True", "2.0"]


def test_log_guard_logs_implicit_host_to_device_transfers(caplog):
    y = numlir.device_put(np.ones(3, np.float32), numlir.devices()[0])
    f = numlir.jit(lambda a, b: a + b)
    with caplog.at_level("WARNING", logger="numlir"), numlir.transfer_guard("log"):
        f(np.ones(3, np.float32), y)
        numlir.device_put(np.ones(3, np.float32))  # explicit: not logged at "log"
    messages = [r.getMessage() for r in caplog.records]
    assert messages == ["host-to-device transfer: aval=ShapedArray(float32[3]), dst_sharding="
                        "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"]


def test_transfer_guards_nest_and_are_per_thread():
    import threading

    f = numlir.jit(lambda a: a + 1)
    seen = []
    with numlir.transfer_guard("disallow"):
        with numlir.transfer_guard_host_to_device("allow"):
            f(np.ones(2, np.float32))  # the inner context wins
        with pytest.raises(RuntimeError, match="Disallowed host-to-device transfer"):
            f(np.ones(2, np.float32))
        other = threading.Thread(target=lambda: seen.append(float(f(np.ones((), np.float32)))))
        other.start()
        other.join()
    assert seen == [2.0]  # another thread keeps the flag's "allow"


def test_a_bad_guard_level_is_refused():
    with pytest.raises(ValueError, match="must be one of allow, log, disallow"):
        with numlir.transfer_guard("forbid"):
            pass
    with pytest.raises(ValueError, match="must be one of allow"):
        numlir.config.update("jax_transfer_guard", "sometimes")


def test_default_device_accepts_a_sharding_and_rejects_other_values():
    device = numlir.devices()[0]
    with numlir.default_device(numlir.sharding.SingleDeviceSharding(device)):
        assert jnp.ones(2).device == device
    with pytest.raises(TypeError, match="must be a numlir Device"):
        with numlir.default_device(3):
            pass


def test_array_device_api_on_the_default_device():
    x = jnp.arange(4.0)
    assert x.device == numlir.devices()[0]
    assert x.devices() == {numlir.devices()[0]}
    assert not x.committed
    y = numlir.device_put(x, numlir.devices()[0])
    assert y.committed and y is not x and np.array_equal(y, x)
    assert x.copy_to_host_async() is None
    assert x.block_until_ready() is x
    assert repr(x.sharding) == ("SingleDeviceSharding(device=CpuDevice(id=0), "
                                "memory_kind=device)")
    assert numlir.device_get(x).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_deleted_arrays_raise_in_the_device_api():
    x = jnp.ones(2)
    x.delete()
    for use in (x.block_until_ready, x.copy_to_host_async, lambda: numlir.device_get(x),
                lambda: numlir.device_put(x, numlir.devices()[0])):
        with pytest.raises(RuntimeError, match="Array has been deleted"):
            use()


def test_arrays_pickle_and_copy_to_uncommitted_arrays_on_the_default_device():
    import copy
    import pickle

    x = numlir.device_put(np.arange(3.0, dtype=np.float32), numlir.devices()[0])
    for again in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x), copy.copy(x)):
        assert type(again) is numlir.Array and not again.committed
        assert again.device == numlir.devices()[0] and again.dtype == x.dtype
        np.testing.assert_array_equal(again, x)
    x.delete()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        pickle.dumps(x)
