"""Checks run before any work and before anything is written: can the run folder be created and
written, and is a configured model folder a model. Each failure names the key and the fix."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from coevo.core.cli.errors import InputError


def check_writable_folder(path: str | Path, key: str = "run_dir") -> None:
    """Refuse ``path`` unless it is (or can be created as) a folder this process can write.

    Nothing is left on disk: the test write is a temporary folder in the nearest existing
    ancestor, removed at once.
    """
    folder = Path(path).expanduser()
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{key}: '{folder}' exists and is not a folder; pass {key}=<a folder path>")
    existing = folder
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(f"{key}: '{folder}' cannot be created ('{existing}' is not a folder); "
                         f"pass {key}=<a writable folder path>")
    try:
        probe = tempfile.mkdtemp(prefix=".coevo-write-check-", dir=existing)
        os.rmdir(probe)
    except OSError as exc:
        raise InputError(f"{key}: '{folder}' cannot be written ({exc.strerror or exc} in '{existing}'); "
                         f"pass {key}=<a writable folder path>") from None
