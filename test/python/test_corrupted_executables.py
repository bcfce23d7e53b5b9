"""Damaged executables are refused with a clear error before anything is mapped.

The cpu backend wraps each shared object in the runtime's image format: a
64-byte header with a magic, a format version, the payload size and CRC-32
checksums of header and payload (docs/runtime.md). The corruptions run in a
subprocess, so that a crash shows up as a signal rather than killing the test
run, and every one of them must come back as InvalidExecutableError.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import _runtime
from numlir._src.backends import get_backend
from numlir._src.backends.base import WithExtras

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
Y = np.linspace(0, 2, 20, dtype=np.float32).reshape(4, 5)


def _function(x, y):
    return jnp.tanh(x @ y) + jnp.sum(y, axis=0)


def _expected():
    return np.tanh(X @ Y) + Y.sum(axis=0)


@pytest.fixture(scope="module")
def image() -> bytes:
    backend = get_backend("cpu")
    options = backend.parse_options()
    value = numlir.jit(_function).lower(X, Y).as_text()
    for stage in backend.stages(options):
        value = stage.run(value, options)
        if isinstance(value, WithExtras):
            value = value.value
    return value


def _run(exe) -> np.ndarray:
    out = np.empty((3, 5), np.float32)
    exe.execute([X, Y, out])
    return out


def test_good_image_runs(image):
    np.testing.assert_allclose(_run(_runtime.Device().load(image)), _expected(), rtol=1e-5)


def test_image_header_matches_the_documented_format(image):
    magic, version, header_size, payload_size, payload_crc, flags = struct.unpack_from(
        "<8sIIQII", image)
    driver = image[32:48].rstrip(b"\0")
    (header_crc,) = struct.unpack_from("<I", image, 60)
    assert magic == b"\x7fNLX\r\n\x1a\n"
    assert (version, header_size, flags) == (1, 64, 0)
    assert (_runtime.IMAGE_FORMAT_VERSION, _runtime.IMAGE_HEADER_SIZE) == (1, 64)
    assert payload_size == len(image) - 64
    assert payload_crc == zlib.crc32(image[64:])
    assert header_crc == zlib.crc32(image[:60])
    assert driver == b"cpu" and image[48:60] == bytes(12)
    assert image[64:68] == b"\x7fELF"
    assert _runtime.unwrap_image(image) == ("cpu", image[64:])
    assert _runtime.wrap_image(image[64:], "cpu") == image


# Each corruption: a name, then Python that turns `good` (bytes) into `bad`.
CORRUPTIONS = {
    "truncated_to_half": "bad = good[:len(good) // 2]",
    "zeroed_tail": "bad = good[:len(good) // 2] + bytes(len(good) - len(good) // 2)",
    "wrong_version": "bad = good[:8] + (2).to_bytes(4, 'little') + good[12:]",
    "future_version_with_valid_checksums": (
        "import zlib\n"
        "h = bytearray(good[:64]); h[8:12] = (7).to_bytes(4, 'little')\n"
        "h[60:64] = zlib.crc32(bytes(h[:60])).to_bytes(4, 'little')\n"
        "bad = bytes(h) + good[64:]"),
    "bad_magic": "bad = b'\\x7fNLY' + good[4:]",
    "one_extra_byte": "bad = good + b'\\0'",
    "header_only": "bad = good[:64]",
    "payload_size_changed": (
        "import zlib\n"
        "h = bytearray(good[:64]); h[16:24] = (len(good)).to_bytes(8, 'little')\n"
        "h[60:64] = zlib.crc32(bytes(h[:60])).to_bytes(4, 'little')\n"
        "bad = bytes(h) + good[64:]"),
    "other_driver": (
        "import zlib\n"
        "h = bytearray(good[:64]); h[32:48] = b'cuda'.ljust(16, b'\\0')\n"
        "h[60:64] = zlib.crc32(bytes(h[:60])).to_bytes(4, 'little')\n"
        "bad = bytes(h) + good[64:]"),
}
for seed in range(20):
    CORRUPTIONS[f"ten_random_byte_flips_seed_{seed}"] = (
        f"import random\nrng = random.Random({seed})\nbad = bytearray(good)\n"
        "for _ in range(10):\n"
        "    i = rng.randrange(len(bad)); bad[i] ^= rng.randrange(1, 256)\n"
        "bad = bytes(bad)")
for size in (1, 7, 8, 11, 12, 63):
    CORRUPTIONS[f"truncated_to_{size}_bytes"] = f"bad = good[:{size}]"

EXPECTED = {
    "truncated_to_half": "has the wrong size: the header promises",
    "zeroed_tail": "is damaged: payload checksum mismatch",
    "wrong_version": "has unsupported format version 2 (this runtime reads version 1)",
    "future_version_with_valid_checksums": "has unsupported format version 7",
    "bad_magic": "is not a numlir executable: bad magic (starts with 7f 4e 4c 59",
    "one_extra_byte": "(trailing bytes)",
    "header_only": "(truncated)",
    "payload_size_changed": "has the wrong size",
    "other_driver": "was compiled for the 'cuda' driver and cannot run on device cpu:0",
}

# Loads every corruption from memory and from a file in a fresh process and
# prints one JSON line per load: the exception type and message, or "loaded".
PROBE = r"""
import json, os, sys
from numlir import _runtime
good = open(sys.argv[1], "rb").read()
corruptions = json.loads(open(sys.argv[2]).read())
device = _runtime.Device()
for name, code in corruptions.items():
    scope = {"good": good}
    exec(code, scope)
    bad = scope["bad"]
    path = os.path.join(sys.argv[3], name + ".nlx")
    with open(path, "wb") as f:
        f.write(bad)
    for how, load in (("memory", lambda: device.load(bad)), ("file", lambda: device.load_file(path))):
        try:
            load()
            outcome = ["loaded", ""]
        except Exception as error:
            outcome = [type(error).__name__, str(error)]
        print(json.dumps([name, how] + outcome), flush=True)
"""


def test_corrupted_images_raise_invalid_executable_and_never_crash(image, tmp_path):
    good = tmp_path / "good.nlx"
    good.write_bytes(image)
    corruptions = tmp_path / "corruptions.json"
    corruptions.write_text(json.dumps(CORRUPTIONS))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(good), str(corruptions), str(scratch)],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, (
        f"the probe died (return code {result.returncode}) after:\n{result.stdout[-2000:]}"
        f"\n{result.stderr[-2000:]}")
    outcomes = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(outcomes) == 2 * len(CORRUPTIONS)
    for name, how, kind, message in outcomes:
        assert kind == "InvalidExecutableError", (name, how, kind, message)
        assert message.startswith("INVALID_EXECUTABLE: "), (name, how, message)
        if how == "file":
            assert f"{name}.nlx" in message, (name, message)
        if name in EXPECTED:
            assert EXPECTED[name] in message, (name, how, message)
        if name.startswith("ten_random_byte_flips"):
            assert any(reason in message for reason in (
                "bad magic", "unsupported format version", "header checksum mismatch",
                "payload checksum mismatch")), (name, message)


def test_truncated_bare_shared_object_is_refused_before_loading(image, tmp_path):
    """A bare ELF object (no header) has no checksum, but its segments are
    bounds checked: one truncated into its segments is refused instead of
    faulting. (Section headers at the end are not the loader's business.)"""
    shared_object = image[64:]
    script = (
        "import sys\nfrom numlir import _runtime\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "for size in (len(data) // 2, 100, 64):\n"
        "    try:\n"
        "        _runtime.Device().load(data[:size]); print('loaded')\n"
        "    except _runtime.InvalidExecutableError as error:\n"
        "        print(error)\n")
    path = tmp_path / "module.so"
    path.write_bytes(shared_object)
    result = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and all("is a truncated or damaged ELF object" in line
                                   for line in lines), lines


def test_dumped_executables_load_with_the_runtime(tmp_path, monkeypatch):
    from numlir._src import config

    monkeypatch.setattr(config.flags, "dump_dir", str(tmp_path))
    get_backend("cpu").compile(numlir.jit(_function).lower(X, Y).as_text(), name="dumped")
    (image_path,) = tmp_path.glob("dumped.*.executable.nlx")
    (so_path,) = tmp_path.glob("dumped.*.executable.so")
    device = _runtime.Device()
    np.testing.assert_allclose(_run(device.load_file(image_path)), _expected(), rtol=1e-5)
    np.testing.assert_allclose(_run(device.load_file(so_path)), _expected(), rtol=1e-5)
    assert so_path.read_bytes() == image_path.read_bytes()[64:]
