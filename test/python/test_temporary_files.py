"""Compiling and loading need no TMPDIR, hold no descriptors, and say so when they do.

Executables are loaded from memory files whose descriptors are closed once
loaded, so neither the number of live executables nor an unusable TMPDIR
limits compilation (it used to fail from the 129th executable on, with 127
descriptors held). Linking uses Python's tempfile, which skips an unusable
TMPDIR. Where a temporary file really is needed (no memfd_create, or no
temporary directory at all), the error names TMPDIR.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

import numlir
from numlir._src.backends import CompileError, get_backend
from asan_environment import skip_under_asan

# Compiles, loads and runs `count` distinct executables, keeping them all
# alive (as the compilation caches do), then drops them; prints the
# descriptor and mapping counts before, with all of them live, and after.
MANY_EXECUTABLES = textwrap.dedent(r"""
    import gc, os, sys
    import numpy as np
    from numlir._src.backends import get_backend

    def counts():
        with open("/proc/self/maps") as f:
            return len(os.listdir("/proc/self/fd")), sum(1 for _ in f)

    def module(i):
        return ("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                f"  %c = hlo.constant dense<{i}.0> : tensor<4xf32>\n"
                "  %0 = hlo.add %x, %c : tensor<4xf32>\n"
                "  return %0 : tensor<4xf32>\n}\n")

    backend = get_backend("cpu")
    backend.compile(module(-1), name="warm_up")
    gc.collect()
    before = counts()
    live = []
    for i in range(int(sys.argv[1])):
        live.append(backend.compile(module(i), name=f"many{i}"))
        (out,) = live[-1].execute([np.ones(4, np.float32)])
        assert (out == i + 1).all(), (i, out)
    during = counts()
    del live
    gc.collect()
    print(*before, *during, *counts())
""")


@skip_under_asan("ASan keeps the mappings of freed memory in quarantine")
@pytest.mark.parametrize("tmpdir,count", [("missing", 300), ("regular_file", 150)])
def test_hundreds_of_live_executables_with_unusable_tmpdir(tmp_path, tmpdir, count):
    if tmpdir == "missing":
        value = str(tmp_path / "does" / "not" / "exist")
    else:
        value = str(tmp_path / "a_file")
        open(value, "w").close()
    result = subprocess.run(
        [sys.executable, "-c", MANY_EXECUTABLES, str(count)], capture_output=True, text=True,
        timeout=600, env=dict(os.environ, TMPDIR=value))
    assert result.returncode == 0, result.stderr[-3000:]
    fds_before, maps_before, fds_live, maps_live, fds_after, maps_after = map(
        int, result.stdout.split())
    # Loaded executables hold no descriptor, however many are live.
    assert fds_live == fds_before and fds_after == fds_before
    # Each maps a few regions while loaded; released, they leave none behind
    # (a little slack for allocator arenas).
    assert maps_live > maps_before + count
    assert maps_after - maps_before < 20, (maps_before, maps_live, maps_after)


NO_MEMFD = "#include <errno.h>\nint memfd_create(const char *n, unsigned f) {\n" \
           "  (void)n; (void)f; errno = ENOSYS; return -1; }\n"

# Without memfd_create, loading from memory needs TMPDIR: each load fails
# with a message naming it and holds nothing; once TMPDIR is fixed loads work.
WITHOUT_MEMFD = textwrap.dedent(r"""
    import os, sys
    from numlir import _runtime
    image = open(sys.argv[1], "rb").read()
    device = _runtime.Device()
    fds = len(os.listdir("/proc/self/fd"))
    for _ in range(200):
        try:
            device.load(image)
            print("loaded")
        except RuntimeError as error:
            last = str(error)
    assert len(os.listdir("/proc/self/fd")) == fds
    print(last)
    os.environ["TMPDIR"] = sys.argv[2]
    exe = device.load(image)
    print("recovered", exe.signature)
""")


@skip_under_asan("the test replaces LD_PRELOAD, and the ASan runtime must come first in it")
def test_without_memfd_an_unusable_tmpdir_is_named(tmp_path):
    cc = os.environ.get("CC") or "cc"
    shim_source = tmp_path / "no_memfd.c"
    shim_source.write_text(NO_MEMFD)
    shim = tmp_path / "no_memfd.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(shim), str(shim_source)], check=True)
    image = tmp_path / "image.nlx"
    exe_bytes = _compile(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = hlo.add %x, %x : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n")
    image.write_bytes(exe_bytes)
    good = tmp_path / "good"
    good.mkdir()
    missing = tmp_path / "missing"
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_MEMFD, str(image), str(good)], capture_output=True,
        text=True, timeout=120, env=dict(os.environ, LD_PRELOAD=str(shim), TMPDIR=str(missing)))
    assert result.returncode == 0, result.stderr[-3000:]
    error, recovered = result.stdout.splitlines()
    assert error.startswith("INTERNAL: cannot create a temporary file for an executable in "
                            f"TMPDIR='{missing}': No such file or directory.")
    assert "set TMPDIR to a writable directory" in error
    assert recovered == "recovered f32[4]->f32[4]"
    assert list(good.iterdir()) == []


def test_linking_without_a_temporary_directory_names_tmpdir(monkeypatch, tmp_path):
    missing = str(tmp_path / "missing")
    monkeypatch.setenv("TMPDIR", missing)
    monkeypatch.setattr(tempfile, "tempdir", missing)
    with pytest.raises(CompileError) as info:
        _compile("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}\n")
    message = str(info.value)
    assert "links each executable in a temporary directory and cannot use one" in message
    assert f"TMPDIR='{missing}'" in message and "Set TMPDIR to a writable directory" in message
    assert isinstance(info.value, numlir.CompileError)


def _compile(text: str) -> bytes:
    from numlir._src.backends.base import WithExtras

    backend = get_backend("cpu")
    options = backend.parse_options()
    value = text
    for stage in backend.stages(options):
        value = stage.run(value, options)
        if isinstance(value, WithExtras):
            value = value.value
    return value
