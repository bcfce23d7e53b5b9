"""Saved executables: Compiled.save, numlir.load_executable, and every way a file can be bad."""

import collections
import hashlib
import json
import os
import random
import struct
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir._src import saved_executable
from numlir._src.backends import host_cpu

Pair = collections.namedtuple("Pair", ["left", "right"])


def step(params, batch):
    h = jnp.tanh(batch["x"] @ params.left + params.right)
    return {"loss": jnp.mean(h * h), "parts": (h.sum(axis=0), None, [h.max()])}


def example_args():
    rng = np.random.default_rng(0)
    params = Pair(rng.standard_normal((3, 4)).astype(np.float32),
                  rng.standard_normal(4).astype(np.float32))
    return params, {"x": rng.standard_normal((5, 3)).astype(np.float32)}


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "step.nlexe"
    numlir.jit(step).lower(*example_args()).compile().save(path)
    return path


def assert_trees_equal(a, b):
    leaves_a, tree_a = numlir.tree_util.tree_flatten(a)
    leaves_b, tree_b = numlir.tree_util.tree_flatten(b)
    assert tree_a == tree_b
    for x, y in zip(leaves_a, leaves_b):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_a_loaded_executable_returns_what_the_jitted_function_returns(saved):
    loaded = numlir.load_executable(saved)
    assert isinstance(loaded, numlir.LoadedExecutable)
    assert_trees_equal(loaded(*example_args()), numlir.jit(step)(*example_args()))
    assert "f32[3,4]" in repr(loaded) and "step" in repr(loaded)


def test_it_runs_in_a_process_that_cannot_import_the_compiler(saved, tmp_path):
    expected = numlir.jit(step)(*example_args())
    np.save(tmp_path / "loss.npy", np.asarray(expected["loss"]))
    script = tmp_path / "run_saved.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.modules["numlir._compiler"] = None  # importing it now raises ImportError
        sys.modules["numlir._compiler_cpu"] = None
        import numpy as np, numlir
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_saved_executables import example_args
        out = numlir.load_executable({str(saved)!r})(*example_args())
        np.testing.assert_array_equal(np.asarray(out["loss"]), np.load({str(tmp_path / "loss.npy")!r}))
        assert "numlir._compiler" not in sys.modules or sys.modules["numlir._compiler"] is None
        assert not any("libMLIR" in line for line in open("/proc/self/maps"))
        print("ran without the compiler")
    """))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "ran without the compiler" in run.stdout


def test_static_arguments_are_baked_in_and_left_out_of_the_call(tmp_path):
    f = numlir.jit(lambda x, power, y: x ** power + y, static_argnums=1)
    x, y = np.arange(4.0, dtype=np.float32), np.ones(4, np.float32)
    f.lower(x, 3, y).compile().save(tmp_path / "f.nlexe")
    loaded = numlir.load_executable(tmp_path / "f.nlexe")
    np.testing.assert_array_equal(np.asarray(loaded(x, y)), x ** 3 + y)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_, ml_dtypes.bfloat16,
                                   np.uint8, np.int64])
def test_signatures_of_every_dtype_round_trip(tmp_path, x64, dtype):
    x = np.arange(6).reshape(2, 3).astype(dtype)
    f = numlir.jit(lambda a: (a, jnp.zeros((), jnp.float32) + a.shape[0]))
    f.lower(x).compile().save(tmp_path / "f.nlexe")
    out, two = numlir.load_executable(tmp_path / "f.nlexe")(x)
    assert np.asarray(out).dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(out), x)
    assert float(two) == 2.0


@pytest.mark.parametrize("call, message", [
    (lambda f, p, b: f(p, {"x": b["x"][:4]}), r"argument 2 must be f32\[5,3\], got f32\[4,3\]"),
    (lambda f, p, b: f(p, {"x": b["x"].astype(np.float64)}), r"must be f32\[5,3\], got f64"),
    (lambda f, p, b: f(p, b["x"]), "arguments structured as"),
    (lambda f, p, b: f(p), "arguments structured as"),
])
def test_a_call_that_does_not_match_the_signature_is_a_type_error(saved, call, message, x64):
    loaded = numlir.load_executable(saved)
    with pytest.raises(TypeError, match=message):
        call(loaded, *example_args())


def rewrite(path, metadata_change=None, version=None):
    """The file with its metadata changed (and the checksum recomputed), or another version."""
    metadata, image = saved_executable.decode(path.read_bytes(), str(path))
    if metadata_change:
        metadata_change(metadata)
    data = bytearray(saved_executable.encode(metadata, image))
    if version is not None:
        struct.pack_into("<I", data, 8, version)
    path.write_bytes(bytes(data))


DAMAGE = {
    "empty": lambda d: b"",
    "half_a_header": lambda d: d[:20],
    "truncated_to_half": lambda d: d[:len(d) // 2],
    "one_byte_short": lambda d: d[:-1],
    "trailing_bytes": lambda d: d + b"\0" * 7,
    "zeroed_tail": lambda d: d[:len(d) - 512] + bytes(512),
    "flipped_image_byte": lambda d: d[:-100] + bytes([d[-100] ^ 1]) + d[-99:],
    "flipped_metadata_byte": lambda d: d[:70] + bytes([d[70] ^ 0x20]) + d[71:],
    "bad_magic": lambda d: b"NLSAVEX\x1a" + d[8:],
}
MESSAGES = {
    "empty": "truncated: 0 bytes", "half_a_header": "truncated: 20 bytes",
    "truncated_to_half": "truncated: the header promises", "one_byte_short": "truncated",
    "trailing_bytes": "has trailing bytes", "zeroed_tail": "checksum",
    "flipped_image_byte": "checksum", "flipped_metadata_byte": "checksum",
    "bad_magic": "not a numlir saved executable",
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_file_is_a_clear_error(saved, damage):
    saved.write_bytes(DAMAGE[damage](saved.read_bytes()))
    with pytest.raises(numlir.SavedExecutableError, match=MESSAGES[damage]) as error:
        numlir.load_executable(saved)
    assert str(saved) in str(error.value)


def test_random_byte_flips_never_load(saved):
    original = saved.read_bytes()
    rng = random.Random(8)
    for _ in range(20):
        data = bytearray(original)
        for _ in range(10):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        saved.write_bytes(bytes(data))
        with pytest.raises(numlir.SavedExecutableError):
            numlir.load_executable(saved)


def test_a_runtime_image_is_not_a_saved_executable(saved, tmp_path):
    metadata, image = saved_executable.decode(saved.read_bytes(), str(saved))
    (tmp_path / "bare.nlx").write_bytes(image)
    with pytest.raises(numlir.SavedExecutableError, match="not a numlir saved executable"):
        numlir.load_executable(tmp_path / "bare.nlx")


def test_another_format_version_is_a_clear_error(saved):
    rewrite(saved, version=saved_executable.FORMAT_VERSION + 1)
    with pytest.raises(numlir.SavedExecutableError, match="format version 2; this numlir reads "
                                                          "version 1"):
        numlir.load_executable(saved)


def test_another_numlir_version_is_a_clear_error(saved):
    rewrite(saved, lambda m: m.update(numlir_version="0.0.1"))
    with pytest.raises(numlir.SavedExecutableError, match="saved by numlir 0.0.1"):
        numlir.load_executable(saved)


def test_code_for_another_architecture_is_refused_before_it_is_loaded(saved):
    rewrite(saved, lambda m: m["target"].update(triple="aarch64-unknown-linux-gnu"))
    with pytest.raises(numlir.SavedExecutableError, match="compiled for aarch64-unknown-linux-gnu"):
        numlir.load_executable(saved)


def test_code_that_needs_cpu_features_this_cpu_lacks_is_refused(saved):
    metadata, _ = saved_executable.decode(saved.read_bytes(), str(saved))
    lacking = [f for f in host_cpu.X86_FEATURES
               if host_cpu.missing_features(metadata["target"]["triple"], "+" + f)]
    if not lacking:
        pytest.skip("this CPU has every feature the check knows")
    rewrite(saved, lambda m: m["target"].update(features=m["target"]["features"] + ",+" + lacking[0]))
    with pytest.raises(numlir.SavedExecutableError, match=f"with {lacking[0]}, which this CPU lacks"):
        numlir.load_executable(saved)


def test_the_host_check_accepts_the_host_itself(saved):
    metadata, _ = saved_executable.decode(saved.read_bytes(), str(saved))
    assert host_cpu.missing_features(metadata["target"]["triple"],
                                     metadata["target"]["features"]) == []
    assert host_cpu.architecture_matches(metadata["target"]["triple"])


def test_a_signature_type_this_process_lacks_is_named(saved):
    rewrite(saved, lambda m: m.update(in_tree=json.loads(
        json.dumps(m["in_tree"]).replace("test_saved_executables:Pair", "gone_module:Pair"))))
    with pytest.raises(numlir.SavedExecutableError, match="gone_module:Pair"):
        numlir.load_executable(saved)


def test_pytree_nodes_whose_data_is_not_json_cannot_be_saved(tmp_path):
    class Opaque:
        def __init__(self, value, tag):
            self.value, self.tag = value, tag

    numlir.tree_util.register_pytree_node(Opaque, lambda o: ((o.value,), object()),
                                          lambda tag, kids: Opaque(kids[0], tag))
    compiled = numlir.jit(lambda o: o.value * 2).lower(Opaque(np.ones(2, np.float32), 0)).compile()
    with pytest.raises(TypeError, match="auxiliary data"):
        compiled.save(tmp_path / "opaque.nlexe")
    assert not (tmp_path / "opaque.nlexe").exists()


def test_saving_writes_the_whole_file_or_nothing(saved, tmp_path):
    assert [p.name for p in tmp_path.iterdir()] == [saved.name]
    data = saved.read_bytes()
    body = data[saved_executable.HEADER_SIZE:]
    assert hashlib.sha256(body).digest() == data[32:64]


def test_an_executable_from_the_persistent_cache_can_be_saved(tmp_path):
    from numlir._src import compilation_cache, config

    saved = config.flags.enable_compilation_cache, config.flags.compilation_cache_dir
    config.update("enable_compilation_cache", True)
    config.update("compilation_cache_dir", str(tmp_path / "cache"))
    try:
        f = numlir.jit(lambda x: jnp.cumsum(x) * 2)
        x = np.arange(5, dtype=np.float32)
        f(x)
        numlir.clear_caches()
        hits = compilation_cache.stats["hits"]
        f.lower(x).compile().save(tmp_path / "f.nlexe")
        assert compilation_cache.stats["hits"] == hits + 1
    finally:
        config.update("enable_compilation_cache", saved[0])
        config.update("compilation_cache_dir", saved[1])
        numlir.clear_caches()
    np.testing.assert_array_equal(np.asarray(numlir.load_executable(tmp_path / "f.nlexe")(x)),
                                  np.cumsum(x) * 2)
