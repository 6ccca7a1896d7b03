"""Call a function with a hard time bound that works in any thread and any process.

``call_bounded("package.module:function", args, timeout_s, default)`` runs the function in a
persistent worker subprocess and returns its result, or ``default`` when it does not answer
within ``timeout_s`` seconds (the worker is then killed and a fresh one started in the
background) or raises (the exception is logged once per kind). ``signal.alarm`` — what
math-verify's own timeout uses — works only in the main thread; killing a process works
everywhere.

Why a persistent worker: starting Python and importing sympy costs seconds, a round trip over
a pipe costs well under a millisecond (``bench/robustness/hostile_output.py`` measures it), and these
calls run per episode. Modules are imported in the worker once, before the first call's clock
starts (``_START_TIMEOUT_S`` bounds that), so ``timeout_s`` bounds only the call itself.

The function must be importable by name (module level), and its arguments and result
picklable; keep them small (strings, numbers). Calls of one process share one worker and run
one at a time (a lock); each process — a forked child, a DDP rank — gets its own worker. If no
worker can be started at all, the call runs in this process, unbounded, with a warning: the
callers keep cheap structural pre-checks for the common hostile inputs for that reason.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from typing import Any

_START_TIMEOUT_S = 120.0  # starting a worker and importing its modules (sympy: seconds)
_HEADER = struct.Struct("<Q")  # the length of each pickled message

_log = logging.getLogger(__name__)
#: counters for tests and logs: calls made, calls that ran out of time, workers started
stats = {"calls": 0, "timeouts": 0, "errors": 0, "starts": 0}


class _Worker:
    """One worker subprocess and the modules it has imported."""

    def __init__(self, modules: set[str]):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from coevo.core.time_bound import serve; serve()", *sorted(modules)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, bufsize=0,
        )
        self.modules = set(modules)
        self.ready = False  # the first message (after the preloads) has been read
        stats["starts"] += 1

    def send(self, message: Any) -> None:
        body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        self.proc.stdin.write(_HEADER.pack(len(body)) + body)

    def receive(self, timeout_s: float) -> Any:
        """The next message; ``TimeoutError`` when it does not come in time, ``EOFError`` if the worker died."""
        deadline = time.monotonic() + timeout_s
        header = self._read(_HEADER.size, deadline)
        return pickle.loads(self._read(_HEADER.unpack(header)[0], deadline))

    def _read(self, size: int, deadline: float) -> bytes:
        chunks, left, fd = [], size, self.proc.stdout.fileno()
        while left:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise TimeoutError
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                raise EOFError("the worker exited")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def wait_ready(self) -> None:
        if not self.ready:
            self.receive(_START_TIMEOUT_S)
            self.ready = True

    def kill(self) -> None:
        try:
            self.proc.kill()
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 (already gone)
            pass


class _Pool:
    """This process's worker (replaced after a timeout; recreated in a forked child)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.worker: _Worker | None = None
        self.modules: set[str] = set()  # every module a call has needed (preloaded on restarts)
        self.failed_start = False

    def call(self, module: str, name: str, args: tuple, timeout_s: float, default: Any) -> Any:
        with self.lock:
            stats["calls"] += 1
            if self.failed_start:
                return self._in_process(module, name, args, default, None)
            try:
                worker = self._worker_with(module)
            except Exception as exc:  # noqa: BLE001 (no subprocess here: run in-process, unbounded)
                self.failed_start = True
                return self._in_process(module, name, args, default, exc)
            try:
                worker.send(("call", module, name, args))
                status, value = worker.receive(timeout_s)
            except TimeoutError:
                stats["timeouts"] += 1
                self._restart()
                return default
            except (EOFError, OSError, pickle.UnpicklingError):
                stats["errors"] += 1
                self._restart()
                return default
            if status == "error":
                stats["errors"] += 1
                _log_once(f"{module}:{name} raised in the bounded worker: {value}")
                return default
            return value

    def _worker_with(self, module: str) -> _Worker:
        if self.worker is None or self.worker.proc.poll() is not None:
            self.modules.add(module)
            self.worker = _Worker(self.modules)
        worker = self.worker
        try:
            worker.wait_ready()
            if module not in worker.modules:
                worker.send(("import", module, None, ()))
                worker.receive(_START_TIMEOUT_S)
                worker.modules.add(module)
                self.modules.add(module)
        except Exception:
            self.worker = None
            self.modules.discard(module)
            worker.kill()
            raise
        return worker

    def _restart(self) -> None:
        """Kill the worker and start the next one now, so that its imports overlap the caller's work."""
        if self.worker is not None:
            self.worker.kill()
        try:
            self.worker = _Worker(self.modules)
        except Exception:  # noqa: BLE001 (the next call tries again)
            self.worker = None

    def _in_process(self, module: str, name: str, args: tuple, default: Any, exc: Exception | None) -> Any:
        if exc is not None:
            _log.warning("no bounded worker could be started (%s); calls run in this process without a "
                         "time bound", exc)
        try:
            return getattr(importlib.import_module(module), name)(*args)
        except Exception:  # noqa: BLE001 (the caller's default stands for any failure)
            return default

    def close(self) -> None:
        if self.worker is not None:
            self.worker.kill()
            self.worker = None


_logged: set[str] = set()


def _log_once(message: str) -> None:
    key = message.split(":", 2)[:2]
    if str(key) not in _logged:
        _logged.add(str(key))
        _log.warning("%s (further ones are only counted in coevo.core.time_bound.stats)", message)


_pool = _Pool()


def _reset_after_fork() -> None:
    global _pool
    _pool = _Pool()  # the parent's worker and lock belong to the parent


os.register_at_fork(after_in_child=_reset_after_fork)
atexit.register(lambda: _pool.close())


def call_bounded(target: str, args: tuple, timeout_s: float, default: Any = None) -> Any:
    """``module:function(*args)`` run in the worker; ``default`` if it takes over ``timeout_s`` s or fails."""
    module, _, name = target.partition(":")
    if not module or not name:
        raise ValueError(f"target must be 'package.module:function', not {target!r}")
    return _pool.call(module, name, tuple(args), float(timeout_s), default)


def close() -> None:
    """Stop this process's worker (the next call starts a new one)."""
    with _pool.lock:
        _pool.close()
        _pool.failed_start = False


def serve() -> None:
    """The worker's loop (``python -c 'from coevo.core.time_bound import serve; serve()' modules…``)."""
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # anything the called code prints goes to stderr, not into the protocol
    source = os.fdopen(os.dup(0), "rb", buffering=0)

    def read(size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = source.read(size - len(data))
            if not chunk:
                raise SystemExit(0)  # the parent is gone
            data += chunk
        return data

    def write(message: Any) -> None:
        body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        out.write(_HEADER.pack(len(body)) + body)

    for module in sys.argv[1:]:
        importlib.import_module(module)
    write(("ready", None))
    while True:
        kind, module, name, args = pickle.loads(read(_HEADER.unpack(read(_HEADER.size))[0]))
        try:
            function = importlib.import_module(module)
            if kind == "call":
                write(("ok", getattr(function, name)(*args)))
            else:
                write(("ok", None))
        except Exception as exc:  # noqa: BLE001 (reported to the caller, which returns its default)
            write(("error", f"{type(exc).__name__}: {str(exc)[:200]}"))
