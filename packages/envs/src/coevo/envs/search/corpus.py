"""Passages and the FlashRAG / Search-R1 corpus format.

A corpus is JSONL, one passage per line: ``{"id": "...", "contents": "\\"Title\\"\\ntext"}`` (the
title on the first line, in double quotes). Rows with separate ``title`` and ``text`` fields (the
DPR layout) are accepted too. ``fingerprint`` identifies a corpus for the index cache.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from coevo.envs.data_files import DataFileError, require_file  # noqa: F401 (re-exported)

_CHUNK = 1 << 20
_FULL_HASH_LIMIT = 1 << 30  # larger files: hash the size and the first and last 64 MiB


@dataclass(frozen=True)
class Passage:
    id: str
    title: str
    text: str

    @property
    def contents(self) -> str:
        """The FlashRAG form: the quoted title, a newline, the text."""
        return f'"{self.title}"\n{self.text}'


def split_contents(contents: str) -> tuple[str, str]:
    """``("Title", "text")`` from FlashRAG's ``"\\"Title\\"\\ntext"`` (no newline: no title)."""
    head, sep, rest = contents.partition("\n")
    if not sep:
        return "", contents.strip()
    return head.strip().strip('"'), rest.strip()


def passage_from_row(row: dict, fallback_id: str) -> Passage:
    pid = str(row.get("id", fallback_id))
    if isinstance(row.get("contents"), str):
        title, text = split_contents(row["contents"])
    elif isinstance(row.get("text"), str):
        title, text = str(row.get("title", "")), row["text"].strip()
    else:
        raise ValueError("a corpus row needs 'contents' (or 'title' and 'text')")
    return Passage(pid, title, text)


def load_corpus(path: str | Path) -> tuple[Passage, ...]:
    """Every passage of a JSONL corpus file (cached per file version)."""
    stat = os.stat(path)
    return _load(str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4)
def _load(path: str, _mtime_ns: int, _size: int) -> tuple[Passage, ...]:
    passages = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                passages.append(passage_from_row(json.loads(line), f"{number}"))
            except (json.JSONDecodeError, ValueError, AttributeError) as exc:
                raise ValueError(f"{path}:{number}: bad corpus row ({exc})") from None
    if not passages:
        raise ValueError(f"{path}: the corpus is empty")
    return tuple(passages)


def fingerprint_file(path: str | Path) -> str:
    """SHA-256 of the file's bytes (of its size, head and tail above 1 GiB)."""
    digest = hashlib.sha256()
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        if size <= _FULL_HASH_LIMIT:
            for chunk in iter(lambda: handle.read(_CHUNK), b""):
                digest.update(chunk)
        else:
            digest.update(str(size).encode())
            digest.update(handle.read(64 * _CHUNK))
            handle.seek(size - 64 * _CHUNK)
            digest.update(handle.read(64 * _CHUNK))
    return digest.hexdigest()


@functools.lru_cache(maxsize=8)
def _fingerprint(path: str, _mtime_ns: int, _size: int) -> str:
    return fingerprint_file(path)


def cached_fingerprint(path: str | Path) -> str:
    """``fingerprint_file``, computed once per file version in a process."""
    stat = os.stat(path)
    return _fingerprint(os.path.realpath(path), stat.st_mtime_ns, stat.st_size)


def fingerprint_passages(passages: Sequence[Passage]) -> str:
    """SHA-256 of an in-memory corpus (ids, titles and texts)."""
    digest = hashlib.sha256()
    for p in passages:
        digest.update(json.dumps([p.id, p.title, p.text]).encode())
    return digest.hexdigest()
