"""Signs of life for the long stages outside the training loop (expert episodes, demonstrations,
index builds, model conversion, engine start, weight gathering).

Two shapes, both silent on every rank but 0 and for work that ends within ``QUIET_SECONDS``:

- ``track(items, "playing expert episodes", total)``: work in units. In a terminal, a rich
  progress bar (count, elapsed, remaining); elsewhere (CI logs, ``nohup``), one line per unit at
  most every ``LINE_SECONDS``: ``playing expert episodes: 12/50 (24 s)``, and a closing line.
- ``with activity("converting SmolLM2's GGUF to safetensors"):`` one piece of work: a line when it
  has run ``QUIET_SECONDS``, then a line every ``LINE_SECONDS`` while it runs (from a timer
  thread, so a blocking call still shows it is alive), and ``… done in 41 s``.

An ``activity`` stays quiet while a ``track`` inside it is printing (a model build that plays
expert episodes shows the episodes). Output goes to a rich console on stdout, as the CLI's.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from coevo.core import distributed as dist

T = TypeVar("T")
QUIET_SECONDS = 2.0  # work that ends sooner prints nothing
LINE_SECONDS = 10.0  # without a terminal: at most one line per this many seconds

_console: Console | None = None
_tracking = 0  # tracks running now: an enclosing activity's heartbeat waits


def console() -> Console:
    global _console
    if _console is None:
        _console = Console(file=sys.stdout)
    return _console


def shown() -> bool:
    """Progress is printed by rank 0 only."""
    return dist.is_main()


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """``items``, with a progress bar (terminal) or periodic lines (elsewhere) once it runs long."""
    total = total if total is not None else (len(items) if hasattr(items, "__len__") else None)
    if not shown():
        yield from items
        return
    global _tracking
    start = time.perf_counter()
    out = console()
    bar: Progress | None = None
    task = None
    last_line = start
    done = 0
    _tracking += 1
    try:
        for item in items:
            yield item
            done += 1
            now = time.perf_counter()
            if now - start < QUIET_SECONDS:
                continue
            if out.is_terminal:
                if bar is None:
                    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                   TimeElapsedColumn(), TimeRemainingColumn(), console=out, transient=False)
                    bar.start()
                    task = bar.add_task(description, total=total, completed=done)
                bar.update(task, completed=done)
            elif now - last_line >= LINE_SECONDS or last_line == start:
                out.print(f"{description}: {done}{f'/{total}' if total else ''} ({now - start:.0f} s)",
                          markup=False, highlight=False)
                last_line = now
    finally:
        _tracking -= 1
        if bar is not None:
            bar.stop()
    elapsed = time.perf_counter() - start
    if elapsed >= QUIET_SECONDS and not out.is_terminal:
        out.print(f"{description}: {done} done in {elapsed:.0f} s", markup=False, highlight=False)


@contextmanager
def activity(description: str) -> Iterator[None]:
    """One long piece of work: announced once it has run ``QUIET_SECONDS``, a line every
    ``LINE_SECONDS`` while it runs, and its duration at the end."""
    if not shown():
        yield
        return
    out = console()
    start = time.perf_counter()
    finished = threading.Event()
    announced = threading.Event()

    def heartbeat() -> None:
        wait = QUIET_SECONDS
        while not finished.wait(wait):
            if _tracking:  # the work inside reports its own units
                continue
            out.print(f"{description} … ({time.perf_counter() - start:.0f} s)", markup=False, highlight=False)
            announced.set()
            wait = LINE_SECONDS

    thread = threading.Thread(target=heartbeat, name="coevo-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        finished.set()
        thread.join()
        if announced.is_set():
            out.print(f"{description}: done in {time.perf_counter() - start:.0f} s", markup=False, highlight=False)
