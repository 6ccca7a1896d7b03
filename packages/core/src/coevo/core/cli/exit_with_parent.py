"""Run a command that dies with its parent: ``python -m coevo.core.cli.exit_with_parent CMD ARGS...``.

``make train`` runs the training process under make; killing make alone (``kill <make pid>``, a CI
job's timeout) used to leave that process running, orphaned, still writing into its run folder
and holding its lock. This launcher asks Linux to send the process SIGKILL when its parent dies
(``prctl(PR_SET_PDEATHSIG)``, which survives ``exec``), checks the parent did not die before that
was armed, then replaces itself with ``CMD`` (same pid, no extra process). SIGKILL rather than
SIGTERM: Lightning defers a SIGTERM to the end of the current step (minutes on a large model),
and a run is built to survive kill -9 (atomic checkpoints, the torn metrics line repaired, the
stale lock reclaimed and unfinished writes removed on resume). Elsewhere than Linux the command
simply runs (the Makefile recipes also ``exec`` it, so make's shell is not a further parent).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Arm ``sig`` for when the parent process dies; ``False`` where the OS has no such setting."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        return False
    return True


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        sys.exit("usage: python -m coevo.core.cli.exit_with_parent CMD [ARGS...]")
    parent = os.getppid()
    die_with_parent()
    if os.getppid() != parent:  # the parent died before the signal was armed: nothing would stop us later
        sys.exit(f"exit_with_parent: the parent process {parent} is gone; not starting {argv[0]}")
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main()
