"""CPU executables are linked by lld inside the compiler, or by NUMLIR_CC's driver.

The built-in link needs no C compiler at run time and names only the libc
and libm this process has loaded; a driver process (gcc, clang) stays
available through NUMLIR_CC and must give executables that compute the same.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir._src.backends import CompileError, get_backend
from asan_environment import skip_under_asan

MODULE = ("func.func @main(%x: tensor<5xf32>) -> tensor<f32> {\n"
          "  %0 = hlo.sin %x : tensor<5xf32>\n"
          "  %1 = hlo.reduce sum %0, dims = [0] : tensor<5xf32> -> tensor<f32>\n"
          "  return %1 : tensor<f32>\n}\n")


def _needed_libraries(shared_object: bytes, tmp_path) -> list[str]:
    path = tmp_path / "module.so"
    path.write_bytes(shared_object)
    listing = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True,
                             check=True).stdout
    return [line.split("[")[1].rstrip("]") for line in listing.splitlines() if "(NEEDED)" in line]


@skip_under_asan("libasan defines malloc, so it is the C library the link names")
def test_builtin_link_needs_only_libc_and_libm(tmp_path, monkeypatch):
    from numlir._src import config

    monkeypatch.setattr(config.flags, "dump_dir", str(tmp_path / "dump"))
    backend = get_backend("cpu")
    assert backend.parse_options().linker == "lld"
    exe = backend.compile(MODULE, name="builtin_link")
    (out,) = exe.execute([np.arange(5, dtype=np.float32)])
    np.testing.assert_allclose(float(out), np.sin(np.arange(5)).sum(), rtol=1e-6)
    (so,) = (tmp_path / "dump").rglob("*.so")
    needed = _needed_libraries(so.read_bytes(), tmp_path)
    assert "libm.so.6" in needed  # sinf
    assert set(needed) <= {"libc.so.6", "libm.so.6"}


RUN_WITH_DRIVER = textwrap.dedent(r"""
    import numpy as np, numlir, numlir.numpy as jnp
    from numlir._src.backends import get_backend
    backend = get_backend("cpu")
    assert backend.parse_options().linker == "cc", backend.parse_options()
    x = np.linspace(-2, 2, 301).astype(np.float32)
    print(repr(float(numlir.jit(lambda v: (jnp.tanh(v) * jnp.exp(v)).sum())(x))))
""")


def test_numlir_cc_links_with_a_driver_process_and_agrees():
    env = dict(os.environ, NUMLIR_CC="cc")
    external = subprocess.run([sys.executable, "-c", RUN_WITH_DRIVER], capture_output=True,
                              text=True, timeout=300, env=env)
    assert external.returncode == 0, external.stderr[-3000:]
    x = np.linspace(-2, 2, 301).astype(np.float32)
    builtin = float(numlir.jit(lambda v: (jnp.tanh(v) * jnp.exp(v)).sum())(x))
    assert float(external.stdout) == builtin


def test_missing_driver_is_named():
    backend = get_backend("cpu")
    with pytest.raises(CompileError, match="NUMLIR_CC names 'no-such-cc-driver'"):
        backend.compile(MODULE, name="missing_driver",
                        options=backend.parse_options(linker="no-such-cc-driver"))
