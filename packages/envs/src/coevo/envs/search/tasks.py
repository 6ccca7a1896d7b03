"""Stable per-task seeds: SHA-256 of ``"search/<split>/<index>/<seed>"`` (same on every machine)."""

from __future__ import annotations

import hashlib


def task_seed(split: str, index: int, base_seed: int) -> int:
    digest = hashlib.sha256(f"search/{split}/{index}/{base_seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
