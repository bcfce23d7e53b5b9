"""Start-up hook of `make test-asan` (PYTHONPATH=test/asan): numlir's native
extension modules come from the AddressSanitizer build named by
NUMLIR_ASAN_BUILD instead of the editable install's; the Python sources stay
those of the checkout. CPython itself is not instrumented, so the ASan
runtime is LD_PRELOADed (docs/testing.md)."""

import glob
import importlib.abc
import importlib.util
import os
import sys

_BUILD = os.environ.get("NUMLIR_ASAN_BUILD")


class _ASanExtensions(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if not name.startswith("numlir._") or name.count(".") != 1:
            return None
        stem = name.split(".")[1]
        found = glob.glob(os.path.join(_BUILD, "python", "numlir", f"{stem}.*.so"))
        if not found:
            return None
        return importlib.util.spec_from_file_location(name, found[0])


if _BUILD:
    sys.meta_path.insert(0, _ASanExtensions())
