"""Where compile time goes, for ``jax_log_compiles``.

With the flag on, JAX logs one WARNING line per phase of a compilation ("Finished tracing +
transforming f for pjit in 0.01 sec", "Finished XLA compilation of jit(f) in 1.2 sec"), and
users read them to see where a slow first call spends its time. numlir logs the same
phases, and the compiler's line lists the time of every backend stage, so that a slow
compile names its stage (``hlo-opt``, ``llvm``, ``object``, ...).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator, Sequence

from numlir._src import config

_log = logging.getLogger("numlir")


@contextlib.contextmanager
def phase(what: str) -> Iterator[None]:
    """Logs "Finished <what> in <seconds> sec" when the block ends, if the flag is on."""
    if not config.flags.log_compiles:
        yield
        return
    start = time.perf_counter()
    yield
    _log.warning("Finished %s in %.3f sec", what, time.perf_counter() - start)


def stages(name: str, backend: str, times: Sequence[tuple[str, float]], load: float) -> None:
    """Logs a backend compilation of module ``name``: its total and each stage's time."""
    if not config.flags.log_compiles:
        return
    total = sum(seconds for _, seconds in times)
    each = ", ".join(f"{stage} {seconds:.3f}" for stage, seconds in times)
    _log.warning("Finished numlir compilation of %s for %s in %.3f sec (%s; load %.3f sec)",
                 name, backend, total, each, load)
