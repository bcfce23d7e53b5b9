"""A worker process that generates and runs programs, so a crash is counted, not fatal.

The parent talks to ``python -m fuzz.sandbox`` over a pipe with length-prefixed
pickles. The worker announces each mode before running it, and within a mode
each phase (jax's reference and judges, or numlir), so when it dies (a
signal, an abort, a hang past the timeout) the parent knows which mode and
which library killed it. A death while numlir runs is a ``crash`` or
``timeout`` of numlir's; one while jax runs is a skipped ``jax_crash`` (XLA
aborts the process on a few programs it accepts). Either way the parent
starts a fresh worker and carries on with the remaining modes. The worker's stdout and
stderr go to a log file whose tail is quoted in crash reports.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile

from .run_modes import Outcome, applicable_modes

_HEADER = struct.Struct("<Q")
TEST_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _send(stream, message) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read_exact(fd: int, n: int) -> bytes:
    chunks = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


class WorkerDied(Exception):
    def __init__(self, status: str, detail: str):
        super().__init__(detail)
        self.status = status
        self.detail = detail


class Worker:
    """One worker process, restarted whenever it dies."""

    def __init__(self, timeout: float = 300.0, env: dict | None = None):
        self.timeout = timeout
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.log = tempfile.NamedTemporaryFile(prefix="numlir-fuzz-worker-", suffix=".log", delete=False)
        self.restarts = 0

    def _start(self) -> None:
        read_fd, write_fd = os.pipe()
        env = dict(os.environ if self.env is None else self.env)
        env["PYTHONPATH"] = os.pathsep.join([TEST_DIR] + [p for p in [env.get("PYTHONPATH")] if p])
        self.log.seek(0)
        self.log.truncate()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "fuzz.sandbox", str(write_fd)], stdin=subprocess.PIPE,
            stdout=self.log, stderr=subprocess.STDOUT, pass_fds=(write_fd,), env=env, cwd=TEST_DIR)
        os.close(write_fd)
        self.replies = read_fd

    def close(self) -> None:
        if self.proc is not None:
            try:
                _send(self.proc.stdin, ("stop",))
                self.proc.wait(timeout=10)
            except Exception:  # noqa: BLE001 - it may be dead already
                self._kill()
            self._cleanup()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass

    def _kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def _cleanup(self) -> None:
        if self.proc is not None:
            os.close(self.replies)
            if self.proc.stdin:
                self.proc.stdin.close()
        self.proc = None

    def _log_tail(self, lines: int = 8) -> str:
        try:
            with open(self.log.name, "rb") as f:
                text = f.read()[-4000:].decode(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.strip().splitlines()[-lines:])

    def _died(self, timed_out: bool) -> WorkerDied:
        self._kill()
        code = self.proc.returncode if self.proc else None
        tail = self._log_tail()
        self._cleanup()
        self.restarts += 1
        if timed_out:
            return WorkerDied("timeout", f"no answer within {self.timeout:.0f}s\n{tail}".strip())
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return WorkerDied("crash", f"killed by {name}\n{tail}".strip())
        return WorkerDied("crash", f"worker exited with status {code}\n{tail}".strip())

    def _receive(self):
        ready, _, _ = select.select([self.replies], [], [], self.timeout)
        if not ready:
            raise self._died(timed_out=True)
        try:
            (n,) = _HEADER.unpack(_read_exact(self.replies, _HEADER.size))
            return pickle.loads(_read_exact(self.replies, n))
        except EOFError:
            self.proc.wait()
            raise self._died(timed_out=False) from None

    def _request(self, message):
        if self.proc is None:
            self._start()
        try:
            _send(self.proc.stdin, message)
        except (BrokenPipeError, OSError):
            raise self._died(timed_out=False) from None

    def generate(self, seed: int, index: int, families=None, favor=None, special="none"):
        self._request(("generate", seed, index, families, favor, special))
        kind, payload = self._receive()
        if kind == "raised":
            raise RuntimeError(f"generator failed for seed {seed}, index {index}:\n{payload}")
        return payload

    def check(self, program, modes=None) -> list[Outcome]:
        """Outcomes for ``modes`` (default: all that apply); a dead worker is one failed mode."""
        pending = list(modes if modes is not None else applicable_modes(program))
        outcomes: list[Outcome] = []
        while pending:
            self._request(("check", program, pending))
            current = phase = None
            try:
                while True:
                    kind, payload = self._receive()
                    if kind == "mode":
                        current, phase = payload, None
                    elif kind == "phase":
                        phase = payload
                    elif kind == "outcome":
                        outcomes.append(payload)
                        pending.remove(payload.mode)
                    elif kind == "done":
                        break
                    elif kind == "raised":
                        raise RuntimeError(f"fuzzer bug in the worker:\n{payload}")
            except WorkerDied as death:
                mode = current if current is not None else pending[0]
                if phase == "jax":
                    outcomes.append(Outcome(mode, "jax_crash", f"jax {death.status}: {death.detail}"))
                else:
                    outcomes.append(Outcome(mode, death.status, death.detail))
                pending.remove(mode)
        return outcomes

    def intermediates(self, program):
        self._request(("intermediates", program))
        kind, payload = self._receive()
        if kind == "raised":
            raise RuntimeError(payload)
        return payload


def serve(reply_fd: int) -> None:
    """The worker's loop: read requests from stdin, answer on ``reply_fd``."""
    import traceback

    from . import generate, run_modes

    requests = sys.stdin.buffer
    replies = os.fdopen(reply_fd, "wb")
    while True:
        header = requests.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return
        (n,) = _HEADER.unpack(header)
        message = pickle.loads(requests.read(n))
        try:
            if message[0] == "stop":
                return
            if message[0] == "generate":
                _send(replies, ("program", generate.generate(*message[1:])))
            elif message[0] == "check":
                program, modes = message[1], message[2]

                def announce(phase):
                    sys.stdout.flush()
                    _send(replies, ("phase", phase))

                for mode in modes:
                    _send(replies, ("mode", mode))
                    _send(replies, ("outcome", run_modes.check(program, mode, announce)))
                _send(replies, ("done", None))
            elif message[0] == "intermediates":
                _send(replies, ("values", run_modes.intermediates(message[1])))
        except Exception:  # noqa: BLE001 - reported to the parent as a fuzzer bug
            _send(replies, ("raised", traceback.format_exc()))


if __name__ == "__main__":
    serve(int(sys.argv[1]))
