"""Source locations: the user's file:line, for error messages and the hlo text's locations.

Frames from files under numlir's package directory are numlir's own; the
first frame outside it is the user's. Every numlir error that the user's
input caused ends with " at file:line" of that frame (``with_location``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
from dataclasses import dataclass

#: numlir's package directory: frames from files under it are numlir's, the rest the user's.
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@dataclass(frozen=True)
class SourceInfo:
    file: str
    line: int
    col: int  # 1-based, as MLIR locations
    #: The named_scope names around the op ("outer/inner"), carried into the hlo location.
    name: str = ""

    def __str__(self):
        return f"{self.file}:{self.line}"


_internal_files: dict[str, bool] = {}


def is_internal(filename: str) -> bool:
    """Whether ``filename`` is one of numlir's own files (or Python's frozen import machinery)."""
    internal = _internal_files.get(filename)
    if internal is None:
        internal = (filename.startswith("<frozen")
                    or os.path.abspath(filename).startswith(PACKAGE_DIR))
        _internal_files[filename] = internal
    return internal


class _SourceOverride(threading.local):
    info: SourceInfo | None = None
    names: tuple[str, ...] = ()


_source_override = _SourceOverride()


@contextlib.contextmanager
def named_scope(name: str):
    """Ops traced inside carry ``name`` (nested scopes join with "/") in their hlo
    locations, as ``loc("name"("file.py":LINE:COL))`` (``jax.named_scope``)."""
    if not isinstance(name, str):
        raise TypeError(f"named_scope name must be a string, got {name!r}")
    prev = _source_override.names
    _source_override.names = prev + (name,)
    try:
        yield
    finally:
        _source_override.names = prev


@contextlib.contextmanager
def source_info_scope(info: SourceInfo | None):
    """Attribute equations built inside to ``info`` (an equation being re-traced or
    transposed keeps the user's line it came from)."""
    if info is None:
        yield
        return
    prev = _source_override.info
    _source_override.info = info
    try:
        yield
    finally:
        _source_override.info = prev


def user_source_info() -> SourceInfo | None:
    """The first stack frame outside numlir's own package (the user's code)."""
    if _source_override.info is not None:
        return _source_override.info
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not is_internal(filename):
            col = 1
            try:
                positions = list(frame.f_code.co_positions())
                pos = positions[frame.f_lasti // 2]
                if pos[2] is not None:
                    col = pos[2] + 1
                line = pos[0] if pos[0] is not None else frame.f_lineno
            except (AttributeError, IndexError):
                line = frame.f_lineno
            return SourceInfo(filename, line, col, "/".join(_source_override.names))
        frame = frame.f_back
    return None


def with_location(msg: str) -> str:
    """``msg`` ending with " at file:line" of the user's code, where there is one."""
    info = user_source_info()
    return f"{msg} at {info}" if info is not None else msg


def shape_error(msg: str) -> TypeError:
    """A TypeError whose message ends with the user's file:line, like every numlir shape error."""
    return TypeError(with_location(msg))


def value_error(msg: str) -> ValueError:
    return ValueError(with_location(msg))


def named_call(fun, *, name: str | None = None):
    """``fun`` with its ops inside ``named_scope(name or fun.__name__)``."""
    scope = name or getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        with named_scope(scope):
            return fun(*args, **kwargs)

    return wrapped
