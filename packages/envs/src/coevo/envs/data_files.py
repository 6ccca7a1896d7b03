"""Checks for the data files users point an environment at (math problems, QA rows, corpora)."""

from __future__ import annotations

from pathlib import Path


class DataFileError(FileNotFoundError, ValueError):
    """A configured data file is missing (a ValueError too, so config checks report it)."""


def require_file(path: str, key: str) -> Path:
    """``path`` as a Path, or a DataFileError naming the config ``key`` and the resolved path."""
    resolved = Path(path).expanduser()
    if not resolved.is_file():
        raise DataFileError(
            f"{key}: file not found: {resolved.resolve()} (set {key} to an existing file, or leave it empty)"
        )
    return resolved
