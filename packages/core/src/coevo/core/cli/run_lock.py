"""One training process per run folder: ``<run_dir>/.coevo.lock``, flock-held, with the owner's pid.

The lock is an advisory ``fcntl.flock`` on the file, held for the life of the process (the
kernel drops it when the process dies, kill -9 included), and the file names the holder's pid
for the message a second run gets. A lock file whose pid is still written but whose flock is
free was left by a process that died without cleaning up: it is reclaimed, with a message. A
normal exit empties the file. Taking a lock the process already holds is a no-op (a test that
trains and then resumes in one process). Rank 0 takes it (``cli/train.py``); the other ranks of
a multi-process run never touch it.
"""

from __future__ import annotations

import atexit
import fcntl
import os
from collections.abc import Callable
from pathlib import Path

LOCK_NAME = ".coevo.lock"
_held: dict[Path, int] = {}  # resolved run folder -> open, flock-held file descriptor


class RunDirError(FileExistsError):
    """A run folder refused: another run holds it, or it holds a run and neither resume nor overwrite was asked."""


def _read_pid(fd: int) -> int | None:
    os.lseek(fd, 0, os.SEEK_SET)
    text = os.read(fd, 64).decode(errors="replace").strip()
    return int(text) if text.isdigit() else None


def lock_run_dir(folder: Path, say: Callable[[str], None] = print) -> None:
    """Hold ``folder``'s lock or raise ``RunDirError`` naming the process that holds it."""
    key = Path(folder).resolve()
    if key in _held:
        return
    key.mkdir(parents=True, exist_ok=True)
    fd = os.open(key / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        owner = _read_pid(fd)
        os.close(fd)
        who = f"process {owner}" if owner else "another process"
        raise RunDirError(f"run_dir: '{folder}' is in use by {who} (a coevo-train writing there); wait for it to "
                          f"finish or stop it, or choose another run_dir=…") from None
    previous = _read_pid(fd)
    if previous is not None and previous != os.getpid():
        say(f"run_dir: reclaimed the lock of process {previous}, which stopped without releasing it")
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, f"{os.getpid()}\n".encode())
    os.fsync(fd)
    _held[key] = fd


def release_run_dir(folder: Path) -> None:
    """Empty the lock file and drop the lock (also done at a normal exit)."""
    fd = _held.pop(Path(folder).resolve(), None)
    if fd is None:
        return
    try:
        os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # closing the descriptor drops the flock


@atexit.register
def _release_all() -> None:
    for folder in list(_held):
        release_run_dir(folder)
