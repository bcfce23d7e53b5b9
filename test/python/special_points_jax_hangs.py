"""Finds the special points where JAX's reference never returns, for
special_points.JAX_NEVER_RETURNS: some of JAX's special-function series loop forever
(``expn`` at huge orders, ``igamma(x, x)`` at 1e30), and a hang in ``make test`` is fatal.

A worker process evaluates JAX's reference (``jax.jit(jax.vmap(...))``, as the sweep does)
case by case, order by order and dtype by dtype; where one takes longer than the timeout,
the worker is killed and that batch's points are tried one at a time. Every point of the
selected cases is tried, listed ones included, so the output is the whole table:

``PYTHONPATH=test/python .venv/bin/python -m special_points_jax_hangs [--timeout 30]
[--only scipy.special.]``
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import time


def _worker() -> None:
    import jax
    import numpy as np

    import special_points as sp
    jax.config.update("jax_enable_x64", True)
    cases = {c.name: c for c in sp.all_cases()}
    J = sp.namespace("jax")
    print("ready", flush=True)
    for line in sys.stdin:
        number, (name, order, dtype, points) = json.loads(line)
        try:
            d = sp.derivative(J, cases[name].make(J), order)
            np.asarray(jax.jit(jax.vmap(d))(np.asarray(points, dtype)))
        except Exception:  # noqa: BLE001 - jax cannot compute it: it returned
            pass
        print(f"done {number}", flush=True)


class _Worker:
    def __init__(self):
        self.process = subprocess.Popen([sys.executable, __file__, "--worker"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.pending, self.jobs = b"", 0
        if not self._line("ready", 120):
            raise RuntimeError("the worker did not start")

    def _line(self, want: str, timeout: float) -> bool:
        """Whether the worker prints the line ``want`` within ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while True:
            line, newline, rest = self.pending.partition(b"\n")
            if newline:
                self.pending = rest
                if line.decode() == want:
                    return True
                continue
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                return False
            chunk = os.read(self.process.stdout.fileno(), 4096)
            if not chunk:
                return False
            self.pending += chunk

    def returns(self, job, timeout: float) -> bool:
        self.jobs += 1
        self.process.stdin.write((json.dumps([self.jobs, job]) + "\n").encode())
        self.process.stdin.flush()
        return self._line(f"done {self.jobs}", timeout)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


def find(prefix: str, timeout: float) -> dict[str, list[float]]:
    """case name -> the points where JAX's reference does not return within ``timeout``."""
    import special_points as sp
    worker, found = _Worker(), {}
    for case in sp.all_cases():
        if not case.name.startswith(prefix):
            continue
        hangs: set[float] = set()
        for dtype in ("float32", "float64"):
            for order in sp.ORDERS:
                points = [p for p in sp.POINTS + case.kinks if p not in hangs]
                if worker.returns((case.name, order, dtype, points), timeout):
                    continue
                worker.kill()
                worker = _Worker()
                for p in points:
                    if not worker.returns((case.name, order, dtype, [p]), timeout):
                        hangs.add(p)
                        print(f"{case.name} d{order} {dtype}: never returns at {p!r}", flush=True)
                        worker.kill()
                        worker = _Worker()
        if hangs:
            found[case.name] = sorted(hangs)
    worker.kill()
    return found


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="names starting with this prefix")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds for one batch")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return _worker()
    for name, points in find(args.only, args.timeout).items():
        print(f"{name!r}: {tuple(points)!r}")


if __name__ == "__main__":
    main()
