"""The persistent compilation cache: hits across processes, damaged entries, eviction, keys.

The rest of the suite runs with the cache off (conftest.py); every test here
turns it on with a directory of its own.
"""

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir._src import compilation_cache, config


@pytest.fixture
def cache_dir(tmp_path):
    """The cache on, in an empty directory, with the in-process caches empty."""
    saved = {name: config.read(name) for name in (
        "enable_compilation_cache", "compilation_cache_dir", "compilation_cache_max_size",
        "persistent_cache_min_compile_time_secs", "persistent_cache_min_entry_size_bytes")}
    directory = tmp_path / "cache"
    config.update("enable_compilation_cache", True)
    config.update("compilation_cache_dir", str(directory))
    numlir.clear_caches()
    yield directory
    for name, value in saved.items():
        config.update(name, value)
    numlir.clear_caches()


def entries(directory):
    if not directory.exists():
        return []
    return sorted(p for p in directory.glob("*" + compilation_cache.SUFFIX)
                  if not p.name.startswith("."))


def counts():
    return dict(compilation_cache.stats)


def delta(before):
    return {k: v - before[k] for k, v in compilation_cache.stats.items() if v != before[k]}


def scaled_sine(scale):
    return numlir.jit(lambda a: jnp.sin(a) * scale + a @ a.T @ a)


X = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)


def test_a_compilation_is_stored_and_loaded_back_after_the_in_memory_caches_are_cleared(cache_dir):
    before = counts()
    first = np.asarray(scaled_sine(3.0)(X))
    assert delta(before) == {"misses": 1, "writes": 1}
    assert len(entries(cache_dir)) == 1
    numlir.clear_caches()
    before = counts()
    second = np.asarray(scaled_sine(3.0)(X))
    assert delta(before) == {"hits": 1}
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first, np.sin(X) * 3 + X @ X.T @ X, rtol=1e-5)


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, numlir, numlir.numpy as jnp
        from numlir._src import compilation_cache
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        y = numlir.jit(lambda a: jnp.tanh(a @ a.T).sum(axis=0))(x)
        print(compilation_cache.stats["hits"], compilation_cache.stats["writes"], repr(y.tolist()))
    """))
    env = dict(os.environ, NUMLIR_ENABLE_COMPILATION_CACHE="1", NUMLIR_CACHE_DIR=str(tmp_path / "c"))
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                           timeout=300) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    first, second = (run.stdout.split(maxsplit=2) for run in runs)
    assert first[:2] == ["0", "1"] and second[:2] == ["1", "0"]
    assert first[2] == second[2]


def test_eager_ops_are_cached_too(cache_dir):
    # An eager op's module carries its caller's line (for out-of-memory messages), so
    # the same line hits: a script run again.
    def exp_of_ones():
        return jnp.exp(np.ones((5, 7), np.float32))

    exp_of_ones()
    assert len(entries(cache_dir)) == 1
    numlir.clear_caches()
    before = counts()
    np.testing.assert_allclose(exp_of_ones(), np.exp(np.ones((5, 7))), rtol=1e-6)
    assert delta(before) == {"hits": 1}


@pytest.mark.parametrize("damage", ["flipped_payload_byte", "truncated", "zeroed_header",
                                    "empty", "wrong_version"])
def test_a_damaged_entry_is_deleted_and_compiled_again(cache_dir, damage):
    expected = np.asarray(scaled_sine(2.0)(X))
    (path,) = entries(cache_dir)
    data = bytearray(path.read_bytes())
    if damage == "flipped_payload_byte":
        data[len(data) // 2] ^= 0x40
    elif damage == "truncated":
        data = data[:len(data) // 3]
    elif damage == "zeroed_header":
        data[:compilation_cache.HEADER_SIZE] = bytes(compilation_cache.HEADER_SIZE)
    elif damage == "empty":
        data = bytearray()
    else:
        data[8] += 1
    path.write_bytes(bytes(data))
    numlir.clear_caches()
    before = counts()
    np.testing.assert_array_equal(np.asarray(scaled_sine(2.0)(X)), expected)
    assert delta(before) == {"misses": 1, "damaged": 1, "writes": 1}
    assert compilation_cache.decode(path.read_bytes()) is not None  # rewritten whole


def test_an_intact_entry_the_runtime_refuses_is_compiled_again(cache_dir):
    expected = np.asarray(scaled_sine(5.0)(X))
    (path,) = entries(cache_dir)
    garbage = b"\x7fELF but not an executable image"
    path.write_bytes(compilation_cache.encode(garbage))
    numlir.clear_caches()
    before = counts()
    np.testing.assert_array_equal(np.asarray(scaled_sine(5.0)(X)), expected)
    assert delta(before) == {"misses": 1, "refused": 1, "writes": 1}
    assert compilation_cache.decode(path.read_bytes()) not in (None, garbage)


def test_an_unwritable_directory_warns_once_and_compiles_anyway(cache_dir, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    config.update("compilation_cache_dir", str(blocker / "cache"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = np.asarray(scaled_sine(7.0)(X))
        b = np.asarray(jnp.cos(np.ones(3, np.float32)))
    np.testing.assert_allclose(a, np.sin(X) * 7 + X @ X.T @ X, rtol=1e-5)
    np.testing.assert_allclose(b, np.cos(np.ones(3)), rtol=1e-6)
    messages = [str(w.message) for w in caught if "compilation cache" in str(w.message)]
    assert len(messages) == 1 and "NUMLIR_CACHE_DIR" in messages[0] and "a_file" in messages[0]


def test_writes_leave_no_temporary_files(cache_dir):
    for scale in (1.0, 2.0, 3.0):
        scaled_sine(scale)(X)
    assert len(entries(cache_dir)) == 3
    assert [p.name for p in cache_dir.iterdir() if p.name.startswith(".tmp-")] == []


def test_stale_temporary_files_of_a_dead_writer_are_removed_on_eviction(cache_dir):
    scaled_sine(1.0)(X)
    stale = cache_dir / ".tmp-dead.nlcc"
    stale.write_bytes(b"half an entry")
    old = os.path.getmtime(stale) - 2 * compilation_cache.STALE_TEMPORARY_S
    os.utime(stale, (old, old))
    fresh = cache_dir / ".tmp-writing.nlcc"
    fresh.write_bytes(b"being written")
    (entry,) = entries(cache_dir)
    config.update("compilation_cache_max_size", entry.stat().st_size * 3 // 2)
    scaled_sine(2.0)(X)  # over the bound: scans the directory (on a thread of its own)
    compilation_cache.settle()
    assert not stale.exists() and fresh.exists()


def test_a_compile_that_writes_an_entry_does_not_wait_for_the_directory_scan(cache_dir,
                                                                           monkeypatch):
    # A process's first write scans the whole directory to learn its size (0.54 s over
    # 116,064 entries, all of it once in the first compile): the scan runs on a thread of
    # its own. Here it is held until the compile has returned.
    import threading
    release, scanning = threading.Event(), threading.Event()
    scan, callers = compilation_cache._Directory._scan, []

    def held_scan(self):
        callers.append(threading.current_thread())
        scanning.set()
        if threading.current_thread() is not threading.main_thread():
            release.wait(60)
        return scan(self)

    monkeypatch.setattr(compilation_cache._Directory, "_scan", held_scan)
    np.testing.assert_allclose(np.asarray(scaled_sine(5.0)(X)), np.sin(X) * 5.0 + X @ X.T @ X,
                               rtol=1e-5)
    assert scanning.wait(60) and not release.is_set()  # the compile returned mid-scan
    assert callers and threading.main_thread() not in callers
    assert len(entries(cache_dir)) == 1
    release.set()
    compilation_cache.settle()


def test_the_least_recently_used_entries_are_evicted_at_the_size_bound(cache_dir):
    names = {}
    for scale in (1.0, 2.0, 3.0):
        known = {p.name for p in entries(cache_dir)}
        scaled_sine(scale)(X)
        (names[scale],) = {p.name for p in entries(cache_dir)} - known
    size = max(p.stat().st_size for p in entries(cache_dir))
    config.update("compilation_cache_max_size", int(size * 3.5))
    numlir.clear_caches()
    scaled_sine(1.0)(X)  # a hit: the oldest entry becomes the most recently used
    scaled_sine(4.0)(X)  # over the bound: evicts down to 90% of it, oldest first
    compilation_cache.settle()
    left = {p.name for p in entries(cache_dir)}
    assert names[1.0] in left and names[3.0] in left and names[2.0] not in left
    assert sum(p.stat().st_size for p in entries(cache_dir)) <= size * 3.5
    assert compilation_cache.stats["evicted"] >= 1


def test_an_entry_larger_than_the_bound_is_not_stored(cache_dir):
    config.update("compilation_cache_max_size", 100)
    np.testing.assert_allclose(np.asarray(scaled_sine(1.5)(X)), np.sin(X) * 1.5 + X @ X.T @ X,
                               rtol=1e-5)
    assert entries(cache_dir) == []


@pytest.mark.parametrize("setting, value", [
    ("enable_compilation_cache", False),
    ("compilation_cache_max_size", 0),
    ("persistent_cache_min_compile_time_secs", 1e6),
    ("persistent_cache_min_entry_size_bytes", 1 << 40),
])
def test_settings_that_store_nothing(cache_dir, setting, value):
    config.update(setting, value)
    scaled_sine(1.25)(X)
    assert entries(cache_dir) == []


def test_a_dump_directory_bypasses_the_cache_so_every_stage_runs(cache_dir, tmp_path):
    scaled_sine(1.75)(X)
    numlir.clear_caches()
    saved = config.flags.dump_dir
    config.update("numlir_dump_dir", str(tmp_path / "dump"))
    try:
        before = counts()
        scaled_sine(1.75)(X)
    finally:
        config.update("numlir_dump_dir", saved)
    assert delta(before) == {}
    assert any(p.suffix == ".nlx" for p in (tmp_path / "dump").rglob("*"))


def test_the_key_covers_the_backend_options(cache_dir):
    from numlir._src import dispatch

    backend = dispatch.get_backend()
    text = scaled_sine(1.0).lower(X).as_text()
    keys = {backend._cache_entry(text, backend.parse_options(opt_level=level)) for level in (1, 3)}
    keys.add(backend._cache_entry(text, backend.parse_options(llvm_unroll=True)))
    keys.add(backend._cache_entry(text + "\n", backend.parse_options()))
    assert len(keys) == 4 and None not in keys


def test_the_key_parts_are_length_prefixed():
    assert compilation_cache.key(["ab", "c"]) != compilation_cache.key(["a", "bc"])
    assert compilation_cache.key(["a"]) == compilation_cache.key(["a"])


def test_jax_spellings_of_the_settings_and_their_validation(tmp_path):
    saved = config.read("jax_compilation_cache_dir"), config.read("jax_compilation_cache_max_size")
    try:
        config.update("jax_compilation_cache_dir", tmp_path)
        assert config.flags.compilation_cache_dir == str(tmp_path)
        assert compilation_cache.directory() == str(tmp_path)
        config.update("jax_compilation_cache_max_size", -1)
        for name, bad in [("jax_compilation_cache_max_size", -2),
                          ("jax_compilation_cache_max_size", 1.5),
                          ("jax_persistent_cache_min_compile_time_secs", -1),
                          ("jax_persistent_cache_min_entry_size_bytes", "big")]:
            with pytest.raises(ValueError, match=name.removeprefix("jax_")):
                config.update(name, bad)
    finally:
        config.update("compilation_cache_dir", saved[0])
        config.update("compilation_cache_max_size", saved[1])


def test_the_default_directory_follows_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert compilation_cache.default_directory() == str(tmp_path / "numlir" / "compilation")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert compilation_cache.default_directory() == str(tmp_path / "home" / ".cache" / "numlir"
                                                          / "compilation")


def test_a_rebuilt_compiler_does_not_serve_what_the_old_build_compiled(cache_dir, monkeypatch):
    """Development builds share one version number: the key also names the compiler's
    build, so a codegen fix takes effect at once instead of after the cache is cleared."""
    assert compilation_cache.compiler_build() != "unknown"
    scaled_sine(2.0)(X)
    numlir.clear_caches()
    monkeypatch.setattr(compilation_cache, "_build", "libNumlirCompiler.so:1:2")
    before = counts()
    scaled_sine(2.0)(X)
    assert delta(before) == {"misses": 1, "writes": 1}
    assert len(entries(cache_dir)) == 2
