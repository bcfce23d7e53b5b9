"""Errors raised through numlir's API carry tracebacks without numlir's own frames.

An error in the user's function under ``jit`` passes through a dozen frames
of tracing machinery before it reaches the user, and an eager op's shape
error through a few; they say nothing about the user's mistake. As JAX does
(``JAX_TRACEBACK_FILTERING``), every API entry point (``jit``, the
transformations, and the functions of ``numlir.numpy``, ``numlir.lax``,
``numlir.nn`` and ``numlir.random``) is an *API boundary*: an exception
leaving it has the frames from files under numlir's package removed from its
traceback, and a note saying so. The user's frames, including those of the
function being traced, stay.

``NUMLIR_TRACEBACK_FILTERING=off`` (or ``config.update("traceback_filtering",
"off")``) keeps every frame, for debugging numlir itself. The message itself
is never changed: it already ends with the user's file:line.
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable, TypeVar

from numlir._src import config
from numlir._src.source_info import is_internal

F = TypeVar("F", bound=Callable[..., Any])

NOTE = ("numlir removed its internal frames from this traceback; set "
        "NUMLIR_TRACEBACK_FILTERING=off to see them.")


def filter_traceback(tb: types.TracebackType | None) -> tuple[types.TracebackType | None, bool]:
    """``tb`` without numlir's frames, and whether any were removed."""
    kept = []
    removed = False
    while tb is not None:
        if is_internal(tb.tb_frame.f_code.co_filename):
            removed = True
        else:
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for entry in reversed(kept):
        out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out, removed


def _filter(error: BaseException) -> None:
    tb, removed = filter_traceback(error.__traceback__)
    if not removed:
        return
    error.with_traceback(tb)
    if NOTE not in getattr(error, "__notes__", ()):
        error.add_note(NOTE)


def filter_raised(error: BaseException) -> None:
    """``error``'s traceback without numlir's frames, unless the flags turn filtering off.
    For a boundary written inline, where a wrapper's frame costs too much (jit's
    ``__call__``): the caller re-raises with a bare ``raise``."""
    if config.flags.traceback_filtering != "off":
        _filter(error)


def api_boundary(fun: F) -> F:
    """``fun``, raising its exceptions with numlir's frames filtered from their tracebacks."""

    @functools.wraps(fun)
    def boundary(*args, **kwargs):
        try:
            return fun(*args, **kwargs)
        except Exception as error:
            filter_raised(error)
            # A bare raise keeps the traceback just set; this frame is not added to it.
            raise

    boundary.__numlir_boundary__ = True
    return boundary  # type: ignore[return-value]


def unwrap(fun: Any) -> Any:
    """The function an API boundary wraps (``fun`` itself if it is none), for code that
    recognizes numlir functions by identity (``lax.reduce_window(x, 0., lax.add, ...)``)."""
    return fun.__wrapped__ if getattr(fun, "__numlir_boundary__", False) else fun


# One boundary per function, so aliases stay aliases (``numlir.remat is numlir.checkpoint``,
# ``numlir.nn.tanh is numlir.numpy.tanh``).
_boundaries: dict[Callable, Callable] = {}


def wrap_public_functions(namespace: dict[str, Any]) -> None:
    """Makes every numlir function in a public module's ``namespace`` an API boundary."""
    for name, value in list(namespace.items()):
        if (isinstance(value, types.FunctionType) and not name.startswith("_")
                and value.__module__.startswith("numlir.")
                and not getattr(value, "__numlir_boundary__", False)):
            if value not in _boundaries:
                _boundaries[value] = api_boundary(value)
            namespace[name] = _boundaries[value]
