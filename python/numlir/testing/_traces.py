"""assert_max_traces: fail when a function is traced more often than expected.

The wrapper counts calls of the Python function. Under ``numlir.jit`` the function
body runs only while tracing, so the count is the number of traces (as in Chex,
the wrapper goes inside jit: ``jit(assert_max_traces(f, n=1))``).
"""

from __future__ import annotations

import functools
from typing import Callable

import numlir

# The type numlir.jit returns, found without reaching into numlir's internals.
_JITTED = type(numlir.jit(lambda x: x))

_TRACE_COUNTS: dict[Callable, int] = {}


def clear_trace_counter() -> None:
    """Forgets every count (call it at the start of a test)."""
    _TRACE_COUNTS.clear()


def assert_max_traces(fn=None, n=None):
    """``fn`` wrapped to raise AssertionError on its ``n + 1``-th trace; usable as
    ``@assert_max_traces(n=1)`` or ``assert_max_traces(fn, n)``."""
    if not callable(fn) and n is None:
        fn, n = None, fn
    if fn is None:
        return lambda f: assert_max_traces(f, n)
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"assert_max_traces: n must be a non-negative int, got {n!r}")
    if isinstance(fn, _JITTED):
        raise ValueError("@assert_max_traces must not wrap a jitted function (numlir.jit); "
                         "put it inside: jit(assert_max_traces(f, n))")

    @functools.wraps(fn)
    def counted(*args, **kwargs):
        count = _TRACE_COUNTS.get(counted, 0) + 1
        _TRACE_COUNTS[counted] = count
        if count > n:
            raise AssertionError(f"{getattr(fn, '__qualname__', fn)} is traced > {n} times!\n"
                                 "It often happens when a jitted function is called with "
                                 "arguments of different shapes, dtypes or static values.")
        return fn(*args, **kwargs)

    return counted
