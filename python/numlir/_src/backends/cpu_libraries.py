"""The library routines CPU executables may call (``hlo.custom_call``; docs/runtime.md
"Library calls"): LAPACK's, from the OpenBLAS that NumPy's wheel ships, and the runtime's
own FFT. The runtime loads LAPACK on first use; this module tells it where NumPy's is."""

from __future__ import annotations

import functools
import glob
import os

from numlir import _runtime

#: Every routine the runtime knows, in hlo.custom_call's spelling.
ROUTINES = ("lapack.potrf", "lapack.getrf", "lapack.trsm", "lapack.geqrf", "lapack.orgqr",
            "lapack.syevd", "lapack.gesdd", "lapack.geev", "lapack.gees", "numlir.fft")


def numpy_openblas() -> str | None:
    """The ILP64 OpenBLAS inside NumPy's wheel (``numpy.libs/libscipy_openblas64_*.so``),
    or None for a NumPy built otherwise."""
    import numpy

    libs = os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), "numpy.libs")
    found = sorted(glob.glob(os.path.join(libs, "libscipy_openblas64_*.so")))
    return found[0] if found else None


@functools.cache
def available_routines() -> frozenset[str]:
    """The routines whose libraries load in this process (checked once)."""
    path = numpy_openblas()
    if path is not None:
        _runtime.set_lapack_library(path)
    return frozenset(r for r in ROUTINES if _runtime.library_routine_available(r) is None)


def unavailable_reason(routine: str) -> str | None:
    """Why ``routine`` cannot be called here, or None when it can."""
    available_routines()
    return _runtime.library_routine_available(routine)
