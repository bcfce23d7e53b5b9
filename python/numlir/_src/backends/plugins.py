"""What a backend from outside numlir needs from the runtime: its driver plugin, loaded at
run time, and the headers to build one against (docs/backends.md)."""

from __future__ import annotations

import os
import pathlib

from numlir import _runtime


class BackendUnavailableError(RuntimeError):
    """A backend's driver cannot work in this process: its plugin or a vendor library it
    needs does not load, or it has no device here."""


def load_driver(path: str | os.PathLike, backend: str) -> None:
    """Loads the runtime driver plugin at ``path`` for ``backend`` (once per path). A plugin
    that cannot load (a missing vendor library, no such file) raises
    BackendUnavailableError naming the backend and the loader's reason."""
    try:
        _runtime.load_driver(os.fspath(path))
    except RuntimeError as error:
        raise BackendUnavailableError(
            f"the {backend!r} backend is unavailable: its runtime driver {os.fspath(path)!r} "
            f"did not load ({error})") from None


def drivers() -> list[str]:
    """The runtime drivers registered in this process, the built-in cpu driver first."""
    return list(_runtime.drivers())


def runtime_include_dir() -> str:
    """The directory holding ``numlir/runtime.h`` and ``numlir/runtime_driver.h``, for
    compiling a driver plugin: the installed package's ``include``, else the source tree's
    ``runtime/include`` (an editable install)."""
    package = pathlib.Path(__file__).resolve().parents[2]
    for candidate in (package / "include", package.parents[1] / "runtime" / "include"):
        if (candidate / "numlir" / "runtime_driver.h").is_file():
            return str(candidate)
    raise FileNotFoundError(f"numlir's runtime headers are not installed next to {package}")
