"""numlir.export (docs/export.md): a jitted function exported as StableHLO, serialized,
read back here and in another process, called on numlir's CPU backend and compiled by
jaxlib's PJRT CPU client with the same results."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import jax
import jax.extend.backend
import ml_dtypes
import numpy as np
import pytest
from jax._src.lib import xla_client

import numlir
import numlir.numpy as jnp
from numlir import lax

R = np.random.default_rng(3535)
SPECIALS = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-30, 3e38, -2.5],
                    np.float32)


def run_on_pjrt(module: bytes | str, args):
    """Compiles a module (StableHLO text or a portable artifact) with jaxlib's CPU client."""
    client = jax.extend.backend.get_backend("cpu")
    device = client.local_devices()[0]
    executable = client.compile_and_load(module, xla_client.DeviceList((device,)),
                                         xla_client.CompileOptions())
    with jax.enable_x64(True):  # else jax.device_put narrows 64-bit values
        outs = executable.execute([jax.device_put(np.asarray(a), device) for a in args])
    return [np.asarray(o) for o in outs]


def assert_trees_equal(got, want):
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def model(params, x, *, scale):
    h = jnp.tanh(x @ params["w"] + params["b"])
    return {"out": h * scale, "norm": lax.erf(h).sum()}, [jnp.argmax(h, axis=1)]


def model_args():
    params = {"w": R.standard_normal((4, 3)).astype(np.float32),
              "b": R.standard_normal(3).astype(np.float32)}
    return params, R.standard_normal((5, 4)).astype(np.float32)


@pytest.fixture(scope="module")
def exported():
    params, x = model_args()
    specs = jax.tree_util.tree_map(lambda a: numlir.ShapeDtypeStruct(a.shape, a.dtype),
                                   (params, x))
    return numlir.export.export(numlir.jit(model, static_argnames="scale"))(*specs, scale=2.0)


def test_an_export_has_jaxs_fields_and_calls_like_the_jitted_function(exported):
    params, x = model_args()
    assert exported.fun_name == "model"
    assert [a.str_short() for a in exported.in_avals] == ["f32[3]", "f32[4,3]", "f32[5,4]"]
    assert [a.str_short() for a in exported.out_avals] == ["f32[]", "f32[5,3]", "i32[5]"]
    assert exported.platforms == ("cpu",) and exported.nr_devices == 1
    assert exported.in_shardings_hlo == (None,) * 3 and not exported.has_vjp()
    assert exported.calling_convention_version == \
        numlir.export.maximum_supported_calling_convention_version
    # Static arguments are baked in: the call takes the others, in the same structure.
    want = numlir.jit(model, static_argnames="scale")(params, x, scale=2.0)
    assert_trees_equal(exported.call(params, x), want)
    assert "stablehlo.tanh" in exported.mlir_module()
    assert '"func.func"' in exported.mlir_module() and "hlo.tanh" in exported.hlo_module()


def test_a_serialized_export_reads_back_whole(exported):
    blob = exported.serialize()
    assert isinstance(blob, bytearray) and blob[:8] == b"NLEXPORT"
    back = numlir.export.deserialize(blob)
    assert back.in_tree == exported.in_tree and back.out_tree == exported.out_tree
    assert back.in_avals == exported.in_avals and back.out_avals == exported.out_avals
    assert back.mlir_module() == exported.mlir_module()
    assert back.mlir_module_serialized == exported.mlir_module_serialized
    assert back.stablehlo_version == exported.stablehlo_version
    params, x = model_args()
    assert_trees_equal(back.call(params, x), exported.call(params, x))
    assert numlir.export.deserialize(bytes(blob)).serialize() == blob


def test_the_portable_artifact_and_the_text_run_on_jaxlibs_pjrt_client(exported):
    params, x = model_args()
    flat = jax.tree_util.tree_leaves((params, x))
    want = jax.tree_util.tree_leaves(exported.call(params, x))
    artifact = exported.mlir_module_serialized
    assert artifact[:4] == b"ML\xefR" and b"StableHLO_v" in artifact[:32]
    for module in (artifact, exported.mlir_module()):
        got = run_on_pjrt(module, flat)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, np.asarray(w), rtol=2e-6, atol=1e-6)


ELEMENTWISE = [
    ("float32", lambda x: jnp.where(x > 0, jnp.log1p(x), jnp.expm1(x)) / (1 + x * x)),
    ("float32", lambda x: (jnp.maximum(x, 0.0), jnp.minimum(x, -0.0), jnp.sign(x))),
    ("bfloat16", lambda x: jnp.tanh(x) * 3 + x),
    ("int32", lambda x: (x // 3, x % 3, x >> 2, jnp.abs(x))),
    ("bool", lambda x: (~x, x & x[::-1])),
    ("complex64", lambda x: (jnp.exp(x) * jnp.conj(x), jnp.abs(x))),
]


@pytest.mark.parametrize("dtype, f", ELEMENTWISE, ids=[f"{d}-{i}" for i, (d, _) in
                                                        enumerate(ELEMENTWISE)])
def test_exported_dtypes_and_special_values_match_on_pjrt(dtype, f):
    if dtype == "int32":
        x = np.array([0, 1, -1, 7, -7, 2**31 - 1, -2**31, 3], np.int32)
    elif dtype == "bool":
        x = np.array([True, False, True, True])
    elif dtype == "complex64":
        x = np.array([0.5 - 1j, -0.0 + 0j, 1 + 2j, -1.5 + 0.25j, 1e-30 + 1e-30j, 3 - 4j],
                     np.complex64)
    else:
        x = SPECIALS.astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    exp = numlir.export.export(numlir.jit(f))(x)
    want = jax.tree_util.tree_leaves(exp.call(x))
    got = run_on_pjrt(exp.mlir_module_serialized, [x])
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if w.dtype.kind in "fc" or w.dtype == ml_dtypes.bfloat16:
            wide = np.complex128 if w.dtype.kind == "c" else np.float64
            np.testing.assert_allclose(g.astype(wide), w.astype(wide), rtol=1e-2
                                       if w.dtype == ml_dtypes.bfloat16 else 2e-6)
        else:
            np.testing.assert_array_equal(g, w)


def test_an_export_with_x64_keeps_its_64_bit_types():
    with numlir.enable_x64(True):
        exp = numlir.export.export(numlir.jit(lambda x: x * 2 + jnp.arange(3)))(
            np.ones(3, np.float64))
        blob = exp.serialize()
    back = numlir.export.deserialize(blob)
    assert [a.str_short() for a in back.in_avals] == ["f64[3]"]
    assert [a.str_short() for a in back.out_avals] == ["f64[3]"]
    got = run_on_pjrt(back.mlir_module_serialized, [np.ones(3)])
    np.testing.assert_array_equal(got[0], [2.0, 3.0, 4.0])


def test_a_serialized_export_runs_in_another_process_and_on_pjrt_without_the_compiler(
        tmp_path, exported):
    params, x = model_args()
    blob = tmp_path / "model.nlexport"
    blob.write_bytes(exported.serialize())
    np.savez(tmp_path / "args.npz", w=params["w"], b=params["b"], x=x)
    want = jax.tree_util.tree_leaves(exported.call(params, x))
    script = textwrap.dedent(f"""
        import sys
        import numpy as np
        import numlir.export
        exp = numlir.export.deserialize(open({str(blob)!r}, "rb").read())
        a = np.load({str(tmp_path / "args.npz")!r})
        args = [a["b"], a["w"], a["x"]]
        import jax, jax.extend.backend
        from jax._src.lib import xla_client
        client = jax.extend.backend.get_backend("cpu")
        dev = client.local_devices()[0]
        exe = client.compile_and_load(exp.mlir_module_serialized, xla_client.DeviceList((dev,)),
                                      xla_client.CompileOptions())
        outs = [np.asarray(o) for o in exe.execute([jax.device_put(v, dev) for v in args])]
        # Reading and compiling on PJRT needed no numlir compiler.
        assert "numlir._compiler" not in sys.modules, "the compiler was loaded"
        native = jax.tree_util.tree_leaves(exp.call({{"w": a["w"], "b": a["b"]}}, a["x"]))
        np.savez({str(tmp_path / "out.npz")!r}, *outs, *[np.asarray(n) for n in native])
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=300,
                   env={**os.environ, "JAX_PLATFORMS": "cpu"})
    outs = np.load(tmp_path / "out.npz")
    got = [outs[f"arr_{i}"] for i in range(2 * len(want))]
    for g, w in zip(got[:len(want)], want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=2e-6, atol=1e-6)
    for g, w in zip(got[len(want):], want):
        np.testing.assert_array_equal(g, np.asarray(w))


def test_a_pjrt_cpu_device_runs_exports_for_the_cpu_platform(exported):
    params, x = model_args()
    device = numlir.devices("pjrt_cpu")[0]
    assert device.lowering_platform == "cpu"
    got = exported.call(*numlir.device_put((params, x), device))
    assert all(leaf.device == device for leaf in jax.tree_util.tree_leaves(got))
    want = exported.call(params, x)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=1e-6)


def test_an_export_for_other_platforms_refuses_the_cpu():
    exp = numlir.export.export(numlir.jit(jnp.sin), platforms=("tpu",))(np.ones(2, np.float32))
    assert exp.platforms == ("tpu",)
    with pytest.raises(ValueError, match=r"exported for platforms \('tpu',\) but it is used "
                                         r"on \('cpu',\)"):
        exp.call(np.ones(2, np.float32))
    both = numlir.export.export(numlir.jit(jnp.sin), platforms=("cpu", "tpu"))(
        np.ones(2, np.float32))
    np.testing.assert_allclose(both.call(np.ones(2, np.float32)), np.sin(np.ones(2)), rtol=1e-6)


@pytest.mark.parametrize("platforms, error, message", [
    (("gpu9",), ValueError, "Unknown platform 'gpu9'"),
    ("cpu", TypeError, "sequence of names"),
    (("cpu", "cpu"), ValueError, "each platform once"),
    ((), ValueError, "each platform once"),
])
def test_bad_platforms_are_clear_errors(platforms, error, message):
    with pytest.raises(error, match=message):
        numlir.export.export(numlir.jit(jnp.sin), platforms=platforms)


def test_export_takes_a_jitted_function():
    with pytest.raises(TypeError, match=r"export\(numlir.jit\(f\)\)"):
        numlir.export.export(jnp.sin)


@pytest.mark.parametrize("call, error, message", [
    (lambda e: e.call(np.ones(3, np.float32)), ValueError, "same pytree structure"),
    (lambda e: e.call(np.ones(3, np.float32), y=np.ones(3, np.float32)), ValueError,
     "same pytree structure"),
    (lambda e: e.call(np.ones(4, np.float32), np.ones(3, np.float32)), TypeError,
     r"argument 0 of type f32\[3\], and called with f32\[4\]"),
    (lambda e: e.call(np.ones(3, np.int32), np.ones(3, np.float32)), TypeError,
     r"f32\[3\], and called with i32\[3\]"),
    (lambda e: numlir.jit(e.call)(np.ones(3, np.float32), np.ones(3, np.float32)), TypeError,
     "does not yet inline an exported module"),
])
def test_a_call_off_the_signature_is_a_clear_error(call, error, message):
    exp = numlir.export.export(numlir.jit(lambda x, y: x * y))(np.ones(3, np.float32),
                                                                np.ones(3, np.float32))
    with pytest.raises(error, match=message):
        call(exp)


def test_an_export_from_another_numlir_version_runs_only_on_pjrt(monkeypatch):
    exp = numlir.export.export(numlir.jit(jnp.cos))(np.ones(2, np.float32))
    back = numlir.export.deserialize(exp.serialize())
    back.numlir_version = "0.0.1"
    with pytest.raises(ValueError, match="exported by numlir 0.0.1.*runs on a PJRT device"):
        back.call(np.ones(2, np.float32))
    got = run_on_pjrt(back.mlir_module_serialized, [np.ones(2, np.float32)])
    np.testing.assert_allclose(got[0], np.cos(np.ones(2)), rtol=1e-6)
    # The PJRT backend (docs/pjrt.md) compiles the exported module itself.
    on_pjrt = back.call(numlir.device_put(np.ones(2, np.float32), numlir.devices("pjrt_cpu")[0]))
    assert on_pjrt.device.platform == "pjrt_cpu"
    np.testing.assert_allclose(np.asarray(on_pjrt), np.cos(np.ones(2)), rtol=1e-6)


def test_an_export_runs_on_a_pjrt_device_in_a_process_without_numlirs_compiler(
        tmp_path, exported):
    # As on a TPU machine with numlir's Python package and runtime but not its compiler:
    # Exported.call on a PJRT device compiles the exported StableHLO with the client.
    params, x = model_args()
    (tmp_path / "model.nlexport").write_bytes(exported.serialize())
    np.savez(tmp_path / "args.npz", w=params["w"], b=params["b"], x=x)
    script = textwrap.dedent(f"""
        import sys
        sys.modules["numlir._compiler"] = None  # import numlir._compiler now fails
        sys.modules["numlir._compiler_cpu"] = None
        import jax
        import numpy as np
        import numlir, numlir.export
        exp = numlir.export.deserialize(open({str(tmp_path / "model.nlexport")!r}, "rb").read())
        a = np.load({str(tmp_path / "args.npz")!r})
        device = numlir.devices("pjrt_cpu")[0]
        args = numlir.device_put(({{"w": a["w"], "b": a["b"]}}, a["x"]), device)
        outs = jax.tree_util.tree_leaves(exp.call(*args))
        assert all(o.device == device for o in outs)
        np.savez({str(tmp_path / "out.npz")!r}, *[np.asarray(o) for o in outs])
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=300,
                   env={**os.environ, "JAX_PLATFORMS": "cpu"})
    outs = np.load(tmp_path / "out.npz")
    want = jax.tree_util.tree_leaves(exported.call(params, x))
    for i, w in enumerate(want):
        np.testing.assert_allclose(outs[f"arr_{i}"], np.asarray(w), rtol=2e-6, atol=1e-6)


def test_the_tpu_scripts_export_runs_on_a_pjrt_device_without_the_compiler(tmp_path):
    # tools/tpu/exported_on_tpu.py: `make` here, `check` on the TPU machine; on jaxlib's CPU
    # client here, as tools/tpu/run.sh's rehearsal.
    script = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "tpu",
                          "exported_on_tpu.py")
    subprocess.run([sys.executable, script, "make", str(tmp_path)], check=True, timeout=300)
    done = subprocess.run([sys.executable, script, "check", str(tmp_path), "pjrt_cpu"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "without numlir's compiler: 5 outputs" in done.stdout


DAMAGE = {
    "empty": (lambda d: b"", "truncated: 0 bytes"),
    "bad_magic": (lambda d: b"NLSAVED\x1a" + d[8:], "not a numlir exported function"),
    "flipped_byte": (lambda d: d[:-10] + bytes([d[-10] ^ 1]) + d[-9:], "checksum"),
    "one_byte_short": (lambda d: d[:-1], "truncated"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_bytes_are_a_clear_error(exported, damage):
    change, message = DAMAGE[damage]
    with pytest.raises(numlir.export.DeserializationError, match=message):
        numlir.export.deserialize(change(bytes(exported.serialize())))


def test_a_host_callback_cannot_be_exported_and_the_error_names_it():
    def f(x):
        numlir.debug.print("x = {}", x)
        return x + 1

    with pytest.raises(numlir.CompileError, match="host_callback"):
        numlir.export.export(numlir.jit(f))(np.ones(2, np.float32))
