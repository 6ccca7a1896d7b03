"""Checks for the data files users point an environment at (math problems, QA rows, corpora)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


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


def load_checked(load: Callable[[Path], T], path: str, key: str, row_format: str) -> T:
    """``load(path)`` with any problem of the file (missing, unreadable, empty, a bad line) reported
    as one DataFileError naming the config ``key``, the line, and the expected ``row_format``."""
    resolved = require_file(path, key)
    try:
        return load(resolved)
    except UnicodeDecodeError:
        raise DataFileError(f"{key}: {resolved} is not UTF-8 text (expected {row_format})") from None
    except ImportError as exc:  # e.g. Parquet without pyarrow: the message holds the install hint
        raise DataFileError(f"{key}: {exc}") from None
    except (ValueError, OSError) as exc:  # UnicodeDecodeError and pyarrow's ArrowInvalid are ValueErrors
        raise DataFileError(f"{key}: {' '.join(str(exc).split())} (expected {row_format})") from None
