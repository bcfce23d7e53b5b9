"""Tests whose subject is the process itself, which `make test-asan` changes.

Under the AddressSanitizer run (NUMLIR_ASAN_BUILD set, docs/testing.md) the ASan
runtime is preloaded into every process: it owns malloc (so "the C library" of an
executable is libasan), keeps freed memory and its mappings in quarantine, reports
a SIGSEGV as an AddressSanitizer error, and must stay first in LD_PRELOAD. The
tests that measure those things say so with ``skip_under_asan``.
"""

import os

import pytest

UNDER_ASAN = bool(os.environ.get("NUMLIR_ASAN_BUILD"))


def skip_under_asan(reason: str):
    return pytest.mark.skipif(UNDER_ASAN, reason=f"make test-asan: {reason}")
