"""Device placement scenarios, run by numlir or by JAX with 4 CPU devices; prints JSON.

``python device_scenarios.py jax`` and ``python device_scenarios.py numlir`` run the same
program with ``jax_num_cpu_devices = 4`` and report, per scenario, where outputs live
(device id, committed), the errors raised and what the transfer guards let through.
test_devices.py compares the two reports. The program uses only JAX's public API, with
the imports changed for numlir: a JAX program on 4 CPU devices that runs on numlir.
"""

from __future__ import annotations

import json
import sys

import numpy as np

if sys.argv[1:] == ["jax"]:
    import jax
    import jax.numpy as jnp
else:
    import numlir as jax
    import numlir.numpy as jnp

jax.config.update("jax_num_cpu_devices", 4)

report: dict[str, object] = {}


def where(x):
    """(device id, committed) of an array."""
    return [x.device.id, bool(x.committed)]


def outcome(fn):
    """"ok", or the error's type and message (JAX's runtime errors carry a status prefix)."""
    try:
        fn()
        return "ok"
    except Exception as error:  # noqa: BLE001 - the report is the point
        message = str(error).removeprefix("INVALID_ARGUMENT: ")
        kind = "ValueError" if isinstance(error, ValueError) else (
            "RuntimeError" if isinstance(error, RuntimeError) else type(error).__name__)
        return [kind, message]


d = jax.devices()
report["devices"] = [[x.id, x.platform, x.device_kind, x.process_index] for x in d]
report["device_names"] = [repr(d[1]), str(d[1])]
report["counts"] = [jax.device_count(), jax.local_device_count(), jax.default_backend(),
                    len(jax.local_devices())]

x = jnp.ones(3)
y = jax.device_put(np.ones(3, np.float32), d[2])
w = jax.device_put(np.ones(3, np.float32), d[3])
report["created"] = where(x)
report["device_put"] = where(y)
report["device_put_no_device"] = where(jax.device_put(np.ones(3)))
report["devices_set"] = [sorted(v.id for v in x.devices()), sorted(v.id for v in y.devices())]
report["sharding"] = repr(y.sharding)

f = jax.jit(lambda a, b: a + b)
report["jit_committed_and_uncommitted"] = where(f(y, x))
report["jit_uncommitted"] = where(f(x, x))
report["eager_scalar"] = where(y + 1)
report["eager_unary"] = where(jnp.sin(y))
report["eager_reduction"] = where(y.sum())
report["eager_index"] = where(y[1:])
report["grad"] = where(jax.grad(lambda a: (a * a).sum())(y))
report["vmap"] = where(jax.vmap(jnp.sin)(y))
report["jit_mixed_devices"] = outcome(lambda: f(y, w))
report["jit_no_arguments"] = where(jax.jit(lambda: jnp.ones(2))())

on_1 = jax.jit(lambda a: a * 2, device=d[1])
report["jit_device_uncommitted"] = where(on_1(x))
report["jit_device_committed_elsewhere"] = where(on_1(y))
report["jit_backend"] = where(jax.jit(lambda a: a * 2, backend="cpu")(y))
report["jit_device_and_backend"] = outcome(lambda: jax.jit(lambda a: a, device=d[0], backend="cpu"))

with jax.default_device(d[3]):
    report["default_device_created"] = where(jnp.ones(2))
    report["default_device_jit_uncommitted"] = where(f(x, x))
    report["default_device_jit_committed"] = where(f(y, y))
    report["default_device_device_put"] = where(jax.device_put(np.ones(2)))
    report["default_device_asarray"] = where(jnp.asarray(np.ones(2)))
    report["default_device_eager"] = where(jnp.zeros(3) + y)
report["default_device_restored"] = where(jnp.ones(2))
report["default_device_restored_jit"] = where(f(x, x))
jax.config.update("jax_default_device", d[2])
report["config_default_device"] = where(jnp.ones(2))
report["config_default_device_jit"] = where(f(x, x))  # a call f has made before, elsewhere
jax.config.update("jax_default_device", None)

report["device_put_moves"] = where(jax.device_put(y, d[0]))
tree = jax.device_put({"a": np.ones(1), "b": [1.0, np.int32(2)]}, d[1])
report["device_put_pytree"] = [where(leaf) for leaf in jax.tree_util.tree_leaves(tree)]
got = jax.device_get({"a": y, "b": 3})
report["device_get"] = [type(got["a"]).__name__, got["a"].tolist(), got["b"]]
report["copy_to_host_async"] = repr(y.copy_to_host_async())
report["block_until_ready"] = jax.block_until_ready(y) is y
report["chained_steps"] = where(f(f(y, y), f(y, y)))

guard_cases = {
    "np_asarray": lambda: np.asarray(y),
    "jit_numpy_argument": lambda: f(np.ones(3, np.float32), y),
    "jit_python_scalar": lambda: f(1.0, y),
    "device_put_host": lambda: jax.device_put(np.ones(3), d[1]),
    "device_put_device": lambda: jax.device_put(y, d[1]),
    "device_get": lambda: jax.device_get(y),
    "asarray_numpy": lambda: jnp.asarray(np.ones(3)),
    "array_list": lambda: jnp.array([1.0, 2.0]),
    "eager_numpy_argument": lambda: jnp.sin(np.ones(3)),
    "array_plus_numpy": lambda: y + np.ones(3, np.float32),
    "str": lambda: str(y),
    "jit_arrays": lambda: f(y, y),
    "reshape": lambda: y.reshape(3, 1),
}
for level in ("allow", "log", "disallow", "disallow_explicit"):
    with jax.transfer_guard(level):
        for name, case in guard_cases.items():
            report[f"guard_{level}_{name}"] = outcome(case)
with jax.transfer_guard_host_to_device("disallow"):
    report["guard_h2d_only"] = outcome(guard_cases["jit_numpy_argument"])
    report["guard_h2d_only_d2h"] = outcome(guard_cases["np_asarray"])
with jax.transfer_guard_device_to_host("disallow"):
    report["guard_d2h_only_cpu"] = outcome(guard_cases["np_asarray"])

print(json.dumps(report))
