"""Functions for the tests of ``coevo.core.time_bound``: importable by name in its worker process."""

from __future__ import annotations

import os
import time


def echo(value):
    return value


def sleep_then(seconds: float, value):
    time.sleep(seconds)
    return value


def fail(message: str):
    raise ValueError(message)


def pid() -> int:
    return os.getpid()


def spin(seconds: float) -> int:
    """Busy pure-Python work (no sleep, no signal check) for about ``seconds`` seconds."""
    end, n = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        n += 1
    return n
